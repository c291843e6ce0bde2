package tpcc

import (
	"context"
	"testing"
	"time"

	"github.com/goslap/goslap/internal/engine"
	"github.com/goslap/goslap/internal/workload"
)

// TestRingCoroutineRun: a timed TPC-C run on the engine's ring path, whose
// coroutine mode runs TPC-C's clients (they read values from replies, so
// they are not statement clients), commits transactions that leave the
// schema consistent (Check), as the goroutine path's run does; and the
// load really ran on the ring.
func TestRingCoroutineRun(t *testing.T) {
	e := newEnv(t, "tpcc_ring")
	w := build(t, 1, e.schema)
	p := workload.Point{Clients: 8}
	if err := w.Setup(context.Background(), e.sess, p); err != nil {
		t.Fatal(err)
	}
	for _, path := range []struct{ name, env string }{{"goroutines", "0"}, {"ring", "1"}} {
		t.Run(path.name, func(t *testing.T) {
			t.Setenv(engine.RingEnv, path.env)
			it := workload.Iteration{Point: p, Number: 1}
			l, err := w.Load(it)
			if err != nil {
				t.Fatal(err)
			}
			before := engine.RingClients()
			b, err := engine.Run(context.Background(), engine.Plan{Connector: e.conn, Workload: w, Load: l, Iteration: it,
				Clients: p.Clients, Duration: 2 * time.Second, Seed: 7})
			if err != nil {
				t.Fatal(err)
			}
			if on := engine.RingClients() - before; path.env == "1" && on < int64(p.Clients) || path.env == "0" && on != 0 {
				t.Errorf("%d clients on the ring with %s=%s", on, engine.RingEnv, path.env)
			}
			r, err := FromBenchmark(b, w.Counts(), b.Elapsed)
			if err != nil {
				t.Fatal(err)
			}
			var all uint64
			for _, tx := range r.Tx {
				all += tx.Completed()
			}
			if all != b.Events || all < 50 || r.TpmC() <= 0 {
				t.Errorf("%d transactions completed, engine counted %d, tpmC %.0f (want >= 50)", all, b.Events, r.TpmC())
			}
			t.Logf("%d transactions in %s, %.0f tpmC, tally %+v", all, b.Elapsed.Round(time.Millisecond), r.TpmC(), b.Tally)
			if err := Check(e.main); err != nil {
				t.Fatal(err)
			}
		})
	}
}
