package mysqlslap

import (
	"bytes"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/goslap/goslap/internal/getopt"
	"github.com/goslap/goslap/internal/latency"
	"github.com/goslap/goslap/internal/results/jsondoc"
	"github.com/goslap/goslap/internal/target"
)

// latencyResult is a result with fixed measurements for the golden files.
func latencyResult(paced bool) *BenchmarkResult {
	rec := latency.NewRecorder(paced)
	s := latency.Samples{Paced: paced}
	for i := 1; i <= 2000; i++ {
		d := time.Duration(100+i%700) * time.Microsecond
		if i%500 == 0 {
			d = 12345 * time.Microsecond
		}
		if paced {
			s.RecordPaced(d, d+time.Duration(i%3)*time.Millisecond, time.Duration(i%3)*time.Millisecond)
		} else {
			s.Record(d)
		}
	}
	s.Fold(rec)
	rec.Error(1146, "Table 'goslap.t' doesn't exist")
	rec.Error(1146, "Table 'goslap.t' doesn't exist")
	rec.Reconnects = 1
	r := &BenchmarkResult{Engine: "innodb", HasEngine: true, LoadType: "mixed", Concurrency: 4,
		QueriesPerClient: 500, IterationMillis: []int64{1010, 990, 1003}}
	r.FinishMeasurements(rec, 3.0)
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
	o := &Options{User: "root", Password: "s3cret", PasswordSet: true, Concurrency: "4", Iterations: 3, NumberOfQueries: 2000}
	o.Ext.JSONSet, o.Ext.Latency, o.Ext.RunTime = true, true, 90*time.Second
	o.Ext.Sandbox.Targets = []string{"a:server:/run/a.sock,user=u,password=s3cret", "b:sandbox"}
	started := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	server := &jsondoc.Server{Version: "10.11.6-MariaDB", VersionComment: "Debian",
		Variables: map[string]string{"default_storage_engine": "InnoDB", "max_connections": "151"}}
	withBounds := func(r *BenchmarkResult, from time.Time) BenchmarkResult {
		for _, ms := range r.IterationMillis {
			to := from.Add(time.Duration(ms) * time.Millisecond)
			r.IterationBounds = append(r.IterationBounds, Bounds{Start: from, End: to})
			from = to.Add(time.Millisecond)
		}
		return *r
	}
	rec := &RunRecord{StartedAt: started, Seed: 42}
	rec.add("a", server, []BenchmarkResult{withBounds(latencyResult(false), started.Add(time.Second))})
	rec.add("b", nil, []BenchmarkResult{withBounds(latencyResult(true), started.Add(5*time.Second))})
	rec.describe([]target.Target{{Label: "a", Kind: target.Server, Socket: "/run/a.sock"}, {Label: "b", Kind: target.Sandbox}},
		[]target.Outcome{{Target: target.Target{Label: "b"}, Description: "sandbox: mariadbd  Ver 10.11.6-MariaDB"}})
	doc, err := rec.document(recordOf(o), nil)
	if err != nil {
		t.Fatal(err)
	}
	doc.FinishedAt = doc.StartedAt.Add(9 * time.Second)
	var b bytes.Buffer
	if err := jsondoc.Encode(&b, doc); err != nil {
		t.Fatal(err)
	}
	data := b.Bytes()
	if bytes.Contains(data, []byte("s3cret")) || bytes.Contains(data, []byte(`"password"`)) {
		t.Error("the password is in the JSON document")
	}
	checkGolden(t, "latency-json", data)

	// Both targets are in the one document, options by their names, and
	// the histograms decode to the figures next to them and merge.
	back, err := jsondoc.Decode(bytes.NewReader(data))
	if err != nil {
		t.Fatal(err)
	}
	if len(back.Targets) != 2 || back.Targets[0].Label != "a" || back.Targets[1].Kind != "sandbox" ||
		back.Targets[1].Server.Error != "not connected" || len(back.Benchmarks) != 2 ||
		back.Benchmarks[0].Target != "a" || back.Benchmarks[1].Target != "b" {
		t.Errorf("targets %+v, %d benchmarks", back.Targets, len(back.Benchmarks))
	}
	for name, want := range map[string]any{"concurrency": "4", "iterations": 3.0, "number-of-queries": 2000.0,
		"run-time": "1m30s", "json": "-", "latency": true, "csv": nil, "seed": nil} {
		if got, ok := back.Options[name]; !ok || !reflect.DeepEqual(got, want) {
			t.Errorf("option %s = %#v (present %v), want %#v", name, got, ok, want)
		}
	}
	if got := back.Benchmarks[0].Iterations; len(got) != 3 || got[0].Millis != 1010 || got[1].End.Sub(got[1].Start) != 990*time.Millisecond {
		t.Errorf("iterations %+v", got)
	}
	a, b2 := back.Benchmarks[0].Ops[0], back.Benchmarks[1].Ops[0]
	h, err := latency.MergeEncoded(a.Histogram, b2.Histogram)
	if err != nil {
		t.Fatal(err)
	}
	if h.TotalCount() != int64(a.Executed+b2.Executed) {
		t.Errorf("merged count %d", h.TotalCount())
	}
	if back.Benchmarks[1].Rate == nil || back.Benchmarks[0].Rate != nil || b2.FromSchedule == nil || b2.FromSchedule.Histogram == "" {
		t.Errorf("rate sections: %+v %+v", back.Benchmarks[0].Rate, back.Benchmarks[1].Rate)
	}
}

// TestJSONOptionsCoverTheTable: every option of the table is in the
// document under its own name, or deliberately left out; a new option
// without a plain variable needs an optionValue entry.
func TestJSONOptionsCoverTheTable(t *testing.T) {
	o, err, _ := parseForTest(t, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	got := optionValues(o)
	st := &parseState{opts: newOptions(), strSet: map[string]bool{}}
	// A registered workload's own options are accepted only with
	// --workload, whose runs write no document (--json is refused there).
	workloadRow := map[string]bool{}
	for _, opt := range workloadOptions(&WorkloadArgs{}, nil) {
		if opt.Name != "workload" && opt.Name != "sweep-server-option" {
			workloadRow[getopt.HelpName(opt.Name)] = true
		}
	}
	refused := 0
	for _, spec := range optionTable(st) {
		name := getopt.HelpName(spec.Name)
		_, in := got[name]
		switch {
		case workloadRow[name]:
		case unrecordedOptions[name] && in:
			t.Errorf("--%s is in the document but listed as unrecorded", name)
		case unrecordedOptions[name]:
		case !in && spec.Var == getopt.VarNone:
			t.Errorf("--%s has no variable and no optionValue entry: it is missing from the document", name)
		case !in:
			refused++ // bound to scratch: goslap refuses it whenever given
		}
	}
	if refused == 0 || refused > 12 {
		t.Errorf("%d options left out as refused", refused)
	}
	for name := range got {
		if strings.ToLower(name) != name || strings.Contains(name, "_") {
			t.Errorf("option key %q is not an option name as --help spells it", name)
		}
	}
	if _, ok := got["default-auth"]; !ok {
		t.Error("default_auth is not keyed default-auth")
	}
	if got["port"] != o.Port || got["create-schema"] != o.CreateSchema || got["show-progress"] != true {
		t.Errorf("port %v create-schema %v show-progress %v", got["port"], got["create-schema"], got["show-progress"])
	}
}

// recordOf is the record ParseCommandLine would capture for o, for
// Options a test builds by hand: o read through an option table bound to
// a copy (building a table sets defaults, so the copy is reset after).
func recordOf(o *Options) map[string]any {
	c := *o
	table := optionTable(&parseState{opts: &c, strSet: map[string]bool{}})
	c = *o
	return recordOptions(table, &c)
}
