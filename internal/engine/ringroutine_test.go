package engine

import (
	"context"
	"runtime"
	"sync"
	"testing"
	"time"

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

// waitLoad is a scripted load whose clients wait inside their units
// (workload.Waiter, as a Lua script's ffi.C.usleep): pause(id) long
// before each SELECT 1.
type waitLoad struct {
	scripted
	pause func(id int) time.Duration
}

func (w *waitLoad) Load(workload.Iteration) (workload.Load, error) { return w, nil }
func (w *waitLoad) Client(id int) workload.Client {
	return &waitClient{coroutineClient: coroutineClient{scriptedClient{w: &w.scripted, id: id}}, pause: w.pause}
}

type waitClient struct {
	coroutineClient
	pause func(id int) time.Duration
	wait  func(time.Duration) bool
}

func (c *waitClient) UseWait(wait func(time.Duration) bool) { c.wait = wait }

func (c *waitClient) Next(conn *mysqlconn.Conn) (workload.Step, error) {
	c.wait(c.pause(c.id))
	return c.coroutineClient.Next(conn)
}

// TestRoutineWaitFreesTheRing: a client that waits inside its units
// (workload.Waiter) holds neither its ring thread nor the stop. Clients 0
// and 4 (one on each of the two rings) wait 250 ms per unit while the
// others run SELECT 1 on the same rings: the others' units go on
// meanwhile. And a load whose clients all wait 20 s per unit ends soon
// after an interrupt (the time limit lets a unit end, as sysbench's
// --time does). The goroutine path (GOSLAP_RING=0), whose wait is a
// timer, is held to the same.
func TestRoutineWaitFreesTheRing(t *testing.T) {
	if !ringUsable() {
		t.Skip("io_uring unavailable here")
	}
	if runtime.GOMAXPROCS(0) < 2 {
		t.Skip("needs two ring threads (GOMAXPROCS >= 2)")
	}
	for _, env := range []string{"0", "1"} {
		t.Run("GOSLAP_RING="+env, func(t *testing.T) {
			t.Setenv(RingEnv, env)
			t.Run("others", func(t *testing.T) {
				w := &waitLoad{scripted: scripted{next: selectOne}, pause: func(id int) time.Duration {
					if id%4 == 0 {
						return 250 * time.Millisecond
					}
					return 0
				}}
				p := scriptedPlan(t, &w.scripted, 8)
				p.Workload, p.Load = w, w
				p.Duration = time.Second
				before := routineArrivals.Load()
				b, err := Run(context.Background(), p)
				if err != nil {
					t.Fatal(err)
				}
				if on := routineArrivals.Load() - before; env == "1" && on != 8 {
					t.Fatalf("%d clients in the coroutine mode, want 8", on)
				}
				for i, c := range b.Clients {
					switch {
					case i%4 == 0 && c.Events > 5:
						t.Errorf("client %d: %d units of 250 ms in 1 s", i, c.Events)
					case i%4 != 0 && c.Events < 200:
						// A ring held by its waiting client would run
						// about 4 units of each other client.
						t.Errorf("client %d: %d units beside waiting clients, want at least 200", i, c.Events)
					}
				}
				checkTotals(t, b)
			})
			t.Run("stop", func(t *testing.T) {
				w := &waitLoad{scripted: scripted{next: selectOne}, pause: func(int) time.Duration { return 20 * time.Second }}
				p := scriptedPlan(t, &w.scripted, 8)
				p.Workload, p.Load = w, w
				p.Events = 1000000
				ctx, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
				defer cancel()
				t0 := time.Now()
				_, err := Run(ctx, p)
				if d := time.Since(t0); d > 5*time.Second {
					t.Errorf("the load ended %v after its start, interrupted after 300 ms (%v)", d, err)
				}
			})
		})
	}
}
