package merge

import (
	"testing"

	"github.com/goslap/goslap/internal/latency"
	"github.com/goslap/goslap/internal/results/jsondoc"
)

func ptr(v float64) *float64 { return &v }

// TestMergeServer: the merged intervals' units are the shards' sums,
// interval by interval; the server's counters are one shard's (the same
// server), divided by all the units; a stall is flagged on the sum.
func TestMergeServer(t *testing.T) {
	shard := func(tx []uint64, cpu float64) *jsondoc.Benchmark {
		b := &jsondoc.Benchmark{Server: &jsondoc.ServerFigures{Unit: "transaction", Units: 0,
			PerTransaction: jsondoc.PerTransaction{CPUMicros: ptr(cpu), ClientCPUMicros: ptr(10)},
			Counters:       map[string]int64{"Innodb_buffer_pool_reads": 500}}}
		for i, n := range tx {
			b.Server.Units += n
			b.Intervals = append(b.Intervals, jsondoc.Interval{Iteration: 1, AtSeconds: float64(i + 1), Seconds: 1,
				Transactions: n, Queries: 10 * n, Latency: latency.Percentiles{Count: int64(n), Min: 100, Mean: 200, Max: 900, P99: 800},
				Server: &jsondoc.ServerFigures{Units: n, PerTransaction: jsondoc.PerTransaction{CPUMicros: ptr(cpu)}}})
		}
		return b
	}
	a, b := shard([]uint64{100, 100, 10, 100}, 400), shard([]uint64{100, 100, 10, 100}, 400)
	var m jsondoc.Benchmark
	mergeServer(&m, []*jsondoc.Benchmark{a, b})
	if len(m.Intervals) != 4 {
		t.Fatalf("%d intervals, want 4", len(m.Intervals))
	}
	for i, want := range []uint64{200, 200, 20, 200} {
		iv := m.Intervals[i]
		if iv.Transactions != want || iv.Queries != 10*want || iv.Latency.Count != int64(want) {
			t.Errorf("interval %d: %d transactions, %d queries, latency count %d; want %d", i, iv.Transactions, iv.Queries, iv.Latency.Count, want)
		}
		if iv.Latency.P99 != 0 {
			t.Errorf("interval %d: p99 %d from a merge of percentiles", i, iv.Latency.P99)
		}
		if got := *iv.Server.PerTransaction.CPUMicros; got != 200 {
			t.Errorf("interval %d: server CPU %v µs per transaction, want 200 (one server's over both shards' units)", i, got)
		}
		if iv.Stall != (i == 2) {
			t.Errorf("interval %d: stall %v", i, iv.Stall)
		}
	}
	if m.Server.Units != 620 || *m.Server.PerTransaction.CPUMicros != 200 || *m.Server.PerTransaction.ClientCPUMicros != 10 ||
		m.Server.Counters["Innodb_buffer_pool_reads"] != 500 {
		t.Errorf("server %+v per transaction %+v", m.Server, m.Server.PerTransaction)
	}
}
