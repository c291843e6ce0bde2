package slap

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/goslap/goslap/internal/latency"
)

// latencyResult is a result with fixed measurements for the golden files.
func latencyResult(paced bool) *BenchmarkResult {
	rec := latency.NewRecorder(paced)
	for i := 1; i <= 2000; i++ {
		d := time.Duration(100+i%700) * time.Microsecond
		if i%500 == 0 {
			d = 12345 * time.Microsecond
		}
		if paced {
			rec.RecordPaced(d, d+time.Duration(i%3)*time.Millisecond, time.Duration(i%3)*time.Millisecond)
		} else {
			rec.Record(d)
		}
	}
	rec.Error(1146, "Table 'goslap.t' doesn't exist")
	rec.Error(1146, "Table 'goslap.t' doesn't exist")
	rec.Reconnects = 1
	r := &BenchmarkResult{Engine: "innodb", HasEngine: true, LoadType: "mixed", Concurrency: 4,
		QueriesPerClient: 500, IterationMillis: []int64{1010, 990, 1003}}
	r.finishMeasurements(rec, 3.0)
	if paced {
		r.TargetRate, r.RateKept = 700, false
	}
	return r
}

func TestLatencyBlockGolden(t *testing.T) {
	var b bytes.Buffer
	if err := WriteBenchmarkLatency(&b, latencyResult(false)); err != nil {
		t.Fatal(err)
	}
	checkGolden(t, "latency-benchmark", b.Bytes())
	b.Reset()
	if err := WriteBenchmarkLatency(&b, latencyResult(true)); err != nil {
		t.Fatal(err)
	}
	checkGolden(t, "latency-benchmark-rate", b.Bytes())

	// The mysqlslap block is a prefix of the --latency block.
	var plain bytes.Buffer
	WriteBenchmark(&plain, latencyResult(false))
	b.Reset()
	WriteBenchmarkLatency(&b, latencyResult(false))
	if !strings.HasPrefix(b.String(), strings.TrimSuffix(plain.String(), "\n")) || !strings.HasSuffix(b.String(), "\n\n") {
		t.Errorf("latency block does not extend the mysqlslap block:\n%s", b.String())
	}
}

func TestLatencyCSVGolden(t *testing.T) {
	var b bytes.Buffer
	if err := WriteCSVLineLatency(&b, latencyResult(false)); err != nil {
		t.Fatal(err)
	}
	checkGolden(t, "latency-csv", b.Bytes())
	if got := strings.Count(b.String(), ","); got != 6+strings.Count(CSVLatencyHeader, ",")+1 {
		t.Errorf("%d commas in %q", got, b.String())
	}
}

func TestJSONDocumentGolden(t *testing.T) {
	o := &Options{User: "root", Password: "s3cret", PasswordSet: true, Concurrency: "4", Iterations: 3}
	o.Own.JSONSet, o.Own.Latency, o.Own.RunTime = true, true, 90*time.Second
	or := &ownRun{own: &o.Own, seed: 42, startedAt: time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)}
	server := &ServerInfo{Version: "10.11.6-MariaDB", VersionComment: "Debian",
		Variables: map[string]string{"default_storage_engine": "InnoDB", "max_connections": "151"}}
	doc, err := or.jsonDocument(o, server, []BenchmarkResult{*latencyResult(false), *latencyResult(true)}, nil)
	if err != nil {
		t.Fatal(err)
	}
	doc.FinishedAt = doc.StartedAt.Add(3 * time.Second)
	data, err := json.MarshalIndent(doc, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	if bytes.Contains(data, []byte("s3cret")) || bytes.Contains(data, []byte(`"Password"`)) {
		t.Error("the password is in the JSON document")
	}
	checkGolden(t, "latency-json", append(data, '\n'))

	// Histograms decode to the figures next to them and merge.
	var back JSONDocument
	if err := json.Unmarshal(data, &back); err != nil {
		t.Fatal(err)
	}
	h, err := latency.MergeEncoded(back.Benchmarks[0].Histogram, back.Benchmarks[1].Histogram)
	if err != nil {
		t.Fatal(err)
	}
	if h.TotalCount() != int64(back.Benchmarks[0].Executed+back.Benchmarks[1].Executed) {
		t.Errorf("merged count %d", h.TotalCount())
	}
	if back.Benchmarks[1].Rate == nil || back.Benchmarks[0].Rate != nil || back.Benchmarks[1].Rate.Histogram == "" {
		t.Errorf("rate sections: %+v %+v", back.Benchmarks[0].Rate, back.Benchmarks[1].Rate)
	}
}
