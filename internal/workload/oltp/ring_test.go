package oltp

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/goslap/goslap/internal/engine"
	"github.com/goslap/goslap/internal/mysqlconn"
	"github.com/goslap/goslap/internal/mysqlconn/mysqlfake"
	"github.com/goslap/goslap/internal/workload"
)

// TestRingSendsWhatNextSends: every built-in workload and dialect sends,
// on the engine's ring path (GOSLAP_RING=1), exactly what it sends on the
// goroutine path, command for command: the same statements, prepared or
// text, the same values, types left out of the same executes, the same
// ROLLBACK after a failure, and counts the same tally and errors. One
// client, a fixed seed, every 29th statement a deadlock (more than an
// event's statements, so that events get done)
// (1213, ignored):
// events fail part-way and restart, so the values drawn after a failure
// must be Next's too. The ring path must have been taken.
func TestRingSendsWhatNextSends(t *testing.T) {
	for _, tc := range seqCases {
		t.Run(strings.TrimSuffix(strings.TrimPrefix(tc.file(), "seq/"), ".sql"), func(t *testing.T) {
			type outcome struct {
				log               string
				events, deadlocks uint64
				tally             workload.Tally
			}
			run := func(env string) outcome {
				t.Setenv(engine.RingEnv, env)
				var n atomic.Int64
				// The fake server's goroutines write the log, the test
				// reads it: the reply a client waits for orders the two,
				// but the race detector does not see through a socket.
				var (
					logMu sync.Mutex
					log   strings.Builder
				)
				s := mysqlfake.Start(t, sysbenchServer(false, func(q mysqlfake.Query) mysqlfake.Reply {
					if q.Kind == mysqlfake.KindPrepare || q.Kind == mysqlfake.KindClose {
						return nil
					}
					logMu.Lock()
					fmt.Fprintf(&log, "%v %s %v types=%v\n", q.Kind, q.SQL, q.Args, q.TypesSent)
					logMu.Unlock()
					if q.SQL != "ROLLBACK" && n.Add(1)%29 == 0 {
						return deadlock
					}
					return nil
				}), mysqlfake.Options{})
				words := append([]string{"--sysbench-compat=" + tc.dialect, "--table-size=1000", "--rand-seed=7"}, tc.words...)
				w := build(t, tc.name, words...)
				it := workload.Iteration{Point: workload.Point{Engine: tc.engine, Clients: 1}, Number: 1}
				l, err := w.Load(it)
				if err != nil {
					t.Fatal(err)
				}
				cn, err := mysqlconn.NewConnector(s.Config(), "")
				if err != nil {
					t.Fatal(err)
				}
				ring0 := engine.RingClients()
				b, err := engine.Run(context.Background(), engine.Plan{Connector: cn, Workload: w, Load: l, Iteration: it,
					Clients: 1, Events: 60, Seed: 7, Ignore: func(code uint16) bool { return code == 1213 }})
				if err != nil {
					t.Fatal(err)
				}
				if took := engine.RingClients() - ring0; (env == "1") != (took == 1) {
					t.Fatalf("%s=%s: %d clients on the ring", engine.RingEnv, env, took)
				}
				logMu.Lock()
				defer logMu.Unlock()
				return outcome{log: log.String(), events: b.Events, deadlocks: b.Ops[0].Errors[1213], tally: b.Tally}
			}
			onGoroutines, onRing := run("0"), run("1")
			if onGoroutines.deadlocks == 0 || onGoroutines.events != 60 {
				t.Fatalf("goroutine path: %d events, %d deadlocks: the comparison would prove little", onGoroutines.events, onGoroutines.deadlocks)
			}
			if onRing.log != onGoroutines.log {
				t.Errorf("the ring path sent (first difference at %s)", firstLineDiff(onRing.log, onGoroutines.log))
			}
			onRing.log, onGoroutines.log = "", ""
			if onRing != onGoroutines {
				t.Errorf("ring path %+v, goroutine path %+v", onRing, onGoroutines)
			}
		})
	}
}

// firstLineDiff shows the first line where a and b differ.
func firstLineDiff(a, b string) string {
	al, bl := strings.Split(a, "\n"), strings.Split(b, "\n")
	for i := range max(len(al), len(bl)) {
		var x, y string
		if i < len(al) {
			x = al[i]
		}
		if i < len(bl) {
			y = bl[i]
		}
		if x != y {
			return fmt.Sprintf("line %d:\n  ring:       %s\n  goroutines: %s", i+1, x, y)
		}
	}
	return "nowhere"
}

// BenchmarkRingEvent is the workload's side of one event on the ring
// path, without a server: the Statement calls of an event (one per
// statement) with replies that change one row. allocs/op is what the
// workload allocates per event there (the ring path adds none of its
// own: the event's statements and packets reuse the client's buffers).
//
//	go test ./internal/workload/oltp -run '^$' -bench RingEvent -benchmem
func BenchmarkRingEvent(b *testing.B) {
	for _, name := range []string{"oltp_point_select", "oltp_read_only", "oltp_read_write"} {
		b.Run(name, func(b *testing.B) {
			s := mysqlfake.Start(b, sysbenchServer(false, nil), mysqlfake.Options{})
			c := fakeClient(b, s, name, "--tables=1", "--table-size=10000")
			if !c.Statements() {
				b.Fatal("Statements() false")
			}
			buf := make([]byte, 4, 512)
			var calls int
			reply := workload.Reply{Affected: 1}
			b.ReportAllocs()
			b.ResetTimer()
			for range b.N {
				for {
					calls++
					out, st := c.Statement(buf[:4], reply)
					buf = out
					if st.Ended {
						break
					}
				}
			}
			b.ReportMetric(float64(calls)/float64(b.N), "calls/event")
		})
	}
}
