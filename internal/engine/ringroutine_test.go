package engine

import (
	"context"
	"runtime"
	"sync"
	"testing"

	"github.com/goslap/goslap/internal/mysqlconn"
	"github.com/goslap/goslap/internal/workload"
)

// TestRoutineDoesNotAllocate: in the ring path's coroutine mode a unit
// that executes a prepared statement (mysqlconn's lean path) costs no
// allocation of the engine, the exchanger or the ring: the coroutine's
// switches, the pending writes and the raw exchanges reuse their state.
// The same load on the goroutine path is the reference.
func TestRoutineDoesNotAllocate(t *testing.T) {
	if !ringUsable() {
		t.Skip("io_uring unavailable here")
	}
	for _, env := range []string{"0", "1"} {
		t.Run("GOSLAP_RING="+env, func(t *testing.T) {
			t.Setenv(RingEnv, env)
			var mu sync.Mutex
			stmts := map[int]*mysqlconn.Stmt{}
			w := &scripted{
				begin: func(id int, c *mysqlconn.Conn) error {
					st, err := c.Prepare("SELECT 1")
					if err != nil {
						return err
					}
					if !st.Lean() {
						t.Error("SELECT 1 is not on the lean path")
					}
					mu.Lock()
					stmts[id] = st
					mu.Unlock()
					return nil
				},
				next: func(id, _ int, _ *mysqlconn.Conn) (workload.Step, error) {
					return workload.Step{}, stmts[id].Exec(nil)
				},
			}
			p := scriptedPlan(t, w, 2)
			p.Events = 20000
			before := routineArrivals.Load()
			var m0, m1 runtime.MemStats
			runtime.ReadMemStats(&m0)
			b, err := Run(context.Background(), p)
			runtime.ReadMemStats(&m1)
			if err != nil {
				t.Fatal(err)
			}
			if on := routineArrivals.Load() - before; env == "1" && on != 2 {
				t.Fatalf("%d clients in the coroutine mode, want 2", on)
			}
			// Connecting, preparing, folding and the results cost a few
			// thousand allocations in all; one per unit would be 20000.
			if n := m1.Mallocs - m0.Mallocs; n > b.Events/10 {
				t.Errorf("%d allocations for %d units", n, b.Events)
			}
			t.Logf("%d allocations for %d units", m1.Mallocs-m0.Mallocs, b.Events)
		})
	}
}
