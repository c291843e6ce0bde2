package engine

import (
	"context"
	"runtime"
	"sync/atomic"
	"testing"
	"time"

	"github.com/goslap/goslap/internal/results"
)

// BenchmarkUnit is the hot loop: one client, b.N SELECT 1 units against the
// test server. allocs/op is per unit, the driver's included (the engine's
// own share is 0: see the latency folding and quota).
func BenchmarkUnit(b *testing.B) {
	for _, tc := range []struct {
		name      string
		intervals bool
	}{{"plain", false}, {"intervals", true}} {
		b.Run(tc.name, func(b *testing.B) {
			p := selectPlan(b, 1)
			p.Events = uint64(b.N)
			if tc.intervals {
				p.ReportInterval = 1e9
			}
			b.ReportAllocs()
			b.ResetTimer()
			res, err := Run(context.Background(), p)
			if err != nil {
				b.Fatal(err)
			}
			if res.Events != uint64(b.N) {
				b.Fatalf("%d events for b.N=%d", res.Events, b.N)
			}
		})
	}
}

// BenchmarkEventsCounter compares claiming the Events limit in chunks with
// one shared atomic decrement per unit, with every P hammering it: the
// worst case, as a real unit is a round trip of tens of µs.
//
//	go test -run XXX -bench EventsCounter -count 5 ./internal/engine
func BenchmarkEventsCounter(b *testing.B) {
	b.Run("chunked", func(b *testing.B) {
		var q quota
		q.init(1<<62, 64)
		b.RunParallel(func(pb *testing.PB) {
			var credit uint64
			for pb.Next() {
				if credit == 0 {
					credit = q.claim()
				}
				credit--
			}
		})
	})
	b.Run("atomic-per-unit", func(b *testing.B) {
		var left atomic.Uint64
		left.Store(1 << 62)
		b.RunParallel(func(pb *testing.PB) {
			for pb.Next() {
				if left.Add(^uint64(0)) == 0 {
					b.Fatal("empty")
				}
			}
		})
	})
}

// BenchmarkLoop is the engine's own cost per unit: a workload whose Next
// does nothing, two clients.
//
//	go test -run XXX -bench Loop -count 5 ./internal/engine
func BenchmarkLoop(b *testing.B) {
	for _, tc := range []struct {
		name      string
		intervals bool
	}{{"plain", false}, {"intervals", true}} {
		b.Run(tc.name, func(b *testing.B) {
			p := scriptedPlan(b, &scripted{next: nothing}, 2)
			p.Events = uint64(b.N)
			if tc.intervals {
				p.ReportInterval = 100 * time.Millisecond
			}
			b.ReportAllocs()
			b.ResetTimer()
			if _, err := Run(context.Background(), p); err != nil {
				b.Fatal(err)
			}
		})
	}
}

// BenchmarkClientHeap reports the heap a client costs while it runs
// (connection buffers, recorders, snapshots): 1000 clients, SELECT 1 for
// 1 s, the peak heap in use sampled at each 200 ms interval.
//
//	go test -run XXX -bench ClientHeap -benchtime 1x ./internal/engine
func BenchmarkClientHeap(b *testing.B) {
	const clients = 1000
	for range b.N {
		p := selectPlan(b, clients)
		p.Duration = time.Second
		p.ReportInterval = 200 * time.Millisecond
		var peak uint64
		p.OnInterval = func(results.Interval) {
			var m runtime.MemStats
			runtime.ReadMemStats(&m)
			peak = max(peak, m.HeapInuse)
		}
		runtime.GC()
		var m0 runtime.MemStats
		runtime.ReadMemStats(&m0)
		if _, err := Run(context.Background(), p); err != nil {
			b.Fatal(err)
		}
		b.ReportMetric(float64(peak-min(peak, m0.HeapInuse))/1024/clients, "KB/client")
	}
}
