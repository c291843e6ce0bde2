package jsondoc

import (
	"bytes"
	"encoding/json"
	"reflect"
	"testing"
	"time"

	"github.com/goslap/goslap/internal/latency"
	"github.com/goslap/goslap/internal/results"
	"github.com/goslap/goslap/internal/workload"
)

// iteration is a benchmark of two ops with known service times (µs).
func iteration(t *testing.T, start time.Time, elapsed time.Duration, a, b []int64) *results.Benchmark {
	t.Helper()
	bm := &results.Benchmark{Workload: "w", Target: "t", Start: start, End: start.Add(elapsed), Elapsed: elapsed,
		Events: uint64(len(a) + len(b)), Tally: workload.Tally{Reads: 10, Writes: 4, Other: 2, Retries: 1}, StoppedBy: "time"}
	for i, vals := range [][]int64{a, b} {
		r := latency.NewRecorder(false)
		for _, v := range vals {
			if err := r.Service.RecordValue(v); err != nil {
				t.Fatal(err)
			}
		}
		if i == 1 {
			r.Error(1213, "Deadlock found")
			r.Reconnects = 1
		}
		bm.Ops = append(bm.Ops, results.Op{Name: []string{"read", "write"}[i], Recorder: r})
	}
	return bm
}

func TestFromBenchmarks(t *testing.T) {
	t0 := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	bs := []*results.Benchmark{
		iteration(t, t0, 2*time.Second, []int64{100, 200}, []int64{1000}),
		iteration(t, t0.Add(3*time.Second), 4*time.Second, []int64{300}, []int64{2000, 4000}),
	}
	b, err := FromBenchmarks(bs, "innodb", 8)
	if err != nil {
		t.Fatal(err)
	}
	f := b.Figures
	switch {
	case b.Target != "t" || b.Workload != "w" || b.Engine != "innodb" || b.Concurrency != 8:
		t.Errorf("labels %+v", b)
	case b.AvgMillis != 3000 || b.MinMillis != 2000 || b.MaxMillis != 4000 || b.StdDevMillis != 1000:
		t.Errorf("ms avg %d min %d max %d sd %g", b.AvgMillis, b.MinMillis, b.MaxMillis, b.StdDevMillis)
	case b.Seconds != 6 || f.Transactions != 6 || f.TPS != 1 || f.Statements != 32 || b.Executed != 6 || b.QPS != 1:
		t.Errorf("seconds %g, figures %+v, q/s %g", b.Seconds, f, b.QPS)
	case f.Reads != 20 || f.Writes != 8 || f.Other != 4 || f.Retries != 2 || b.QueriesPerClient != 0: // 6 events / 2 iterations / 8 clients
		t.Errorf("tally %+v, per client %d", f, b.QueriesPerClient)
	case !reflect.DeepEqual(f.StoppedBy, []string{"time", "time"}) || len(b.Iterations) != 2 || b.Iterations[1].Millis != 4000:
		t.Errorf("stopped by %v, iterations %+v", f.StoppedBy, b.Iterations)
	case len(b.Ops) != 2 || b.Ops[0].Executed != 3 || b.Ops[1].Executed != 3 || b.Ops[1].Errors != 2 || b.Ops[1].Reconnects != 2:
		t.Errorf("ops %+v", b.Ops)
	case b.Errors != 2 || len(b.ErrorsByCode) != 1 || b.ErrorsByCode[0].Code != 1213 || b.Reconnects != 2:
		t.Errorf("errors %d %+v, reconnects %d", b.Errors, b.ErrorsByCode, b.Reconnects)
	case f.Latency.Count != 6 || f.Latency.Max < 3990 || f.Latency.Min < 99 || f.Latency.Min > 101:
		t.Errorf("latency %+v", f.Latency)
	}
	h, err := latency.Decode(f.Histogram)
	if err != nil || h.TotalCount() != 6 {
		t.Errorf("histogram: %v, %d values", err, h.TotalCount())
	}

	// The workload parts survive the round trip.
	b.Point = &Point{EngineOptions: "ROW_FORMAT=COMPRESSED", Scale: 500000, ScaleName: "table size", ServerOption: "innodb_buffer_pool_size=64M"}
	b.Sections = map[string]json.RawMessage{
		"oltp": json.RawMessage(`{"dialect":"1.0","distribution":"special","tables":2,"table_size":500000}`),
		"tpcc": json.RawMessage(`{"warehouses":2,"tpmc":1234.5,"transactions":[{"name":"New-Order","on_time":10}]}`),
	}
	d := New("mysqlslap", "0.1.0", t0, 7)
	d.Benchmarks = append(d.Benchmarks, b)
	var buf bytes.Buffer
	if err := Encode(&buf, d); err != nil {
		t.Fatal(err)
	}
	back, err := Decode(&buf)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(back.Benchmarks[0], b) {
		t.Errorf("round trip:\n got %+v\nwant %+v", back.Benchmarks[0], b)
	}
}

func TestFromBenchmarksEmpty(t *testing.T) {
	b, err := FromBenchmarks(nil, "", 4)
	if err != nil || b.Figures != nil || b.Concurrency != 4 || b.Iterations == nil || b.Ops == nil || b.ErrorsByCode == nil {
		t.Errorf("%+v, %v", b, err)
	}
}
