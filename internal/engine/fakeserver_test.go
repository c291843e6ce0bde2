package engine

// The engine's logic against the in-process fake server (mysqlfake): the
// real client code on the wire, no mariadbd, milliseconds per case. The
// real-server tests in engine_test.go stay; these cover the paths a real
// server makes slow or hard to provoke (a chosen error code, a connection
// dropped mid-statement, a statement that never ends, a fixed latency).

import (
	"context"
	"errors"
	"os"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/goslap/goslap/internal/mysqlconn"
	"github.com/goslap/goslap/internal/mysqlconn/mysqlfake"
)

// fakePlan is a plan for w's clients against a fake server answering h.
func fakePlan(t *testing.T, w *scripted, clients int, h mysqlfake.Handler, o mysqlfake.Options) (Plan, *mysqlfake.Server) {
	t.Helper()
	s := mysqlfake.Start(t, h, o)
	cn, err := mysqlconn.NewConnector(s.Config(), "")
	if err != nil {
		t.Fatal(err)
	}
	if w.ops == nil {
		w.ops = []string{"select"}
	}
	if w.next == nil {
		w.next = selectOne
	}
	// A guard, not a limit the cases rely on: a broken engine fails the
	// case in seconds instead of hanging the package's tests.
	return Plan{Connector: cn, Workload: w, Load: w, Clients: clients, Seed: 1, Duration: guard}, s
}

const guard = 5 * time.Second

// queriesByConn counts the COM_QUERYs of text stmt per connection.
func queriesByConn(log []mysqlfake.Query, stmt string) map[uint32]int {
	n := map[uint32]int{}
	for _, q := range log {
		if q.Kind == mysqlfake.KindQuery && q.SQL == stmt {
			n[q.Conn]++
		}
	}
	return n
}

// TestFakeCounts: N clients x M units end with the counts the limits say,
// and the server saw exactly the statements counted.
func TestFakeCounts(t *testing.T) {
	for _, tc := range []struct {
		name      string
		clients   int
		events    uint64 // Plan.Events
		perClient uint64 // Plan.PerClientEvents for every client
		unix      bool
	}{
		{"events 1x1", 1, 1, 0, false},
		{"events 4x250", 4, 1000, 0, false},
		{"events 16x7 unix", 16, 7, 0, true},
		{"per client 3x25", 3, 0, 25, false},
		{"per client 8x10 unix", 8, 0, 10, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			onPaths(t, true, func(t *testing.T) {
				w := &scripted{text: selectText}
				p, s := fakePlan(t, w, tc.clients, nil, mysqlfake.Options{Unix: tc.unix})
				p.Events = tc.events
				if tc.perClient > 0 {
					p.PerClientEvents = func(int) uint64 { return tc.perClient }
				}
				b, err := Run(context.Background(), p)
				if err != nil {
					t.Fatal(err)
				}
				want := tc.events
				if tc.perClient > 0 {
					want = tc.perClient * uint64(tc.clients)
				}
				checkTotals(t, b)
				if b.Events != want || b.Tally.Reads != want || b.StoppedBy != "events" {
					t.Errorf("events %d, reads %d, stopped by %q; want %d by events", b.Events, b.Tally.Reads, b.StoppedBy, want)
				}
				byConn := queriesByConn(s.Log(), "SELECT 1")
				var sent int
				for id, n := range byConn {
					sent += n
					if tc.perClient > 0 && uint64(n) != tc.perClient {
						t.Errorf("connection %d sent %d statements, want %d", id, n, tc.perClient)
					}
				}
				if uint64(sent) != want {
					t.Errorf("the server received %d statements, the engine counted %d", sent, want)
				}
				if got := s.Connects(); got != int64(tc.clients) {
					t.Errorf("%d connections for %d clients", got, tc.clients)
				}
				if w.begins.Load() != int64(tc.clients) || w.ends.Load() != int64(tc.clients) {
					t.Errorf("%d Begin, %d End for %d clients", w.begins.Load(), w.ends.Load(), tc.clients)
				}
				// One interface call per unit on the ring: Statement takes a
				// reply and gives the next statement (each client's first
				// call takes none, its last one's statement is not sent).
				if os.Getenv(RingEnv) == "1" && !routineAlways && w.calls.Load() != int64(want)+int64(tc.clients) {
					t.Errorf("%d Statement calls for %d units of %d clients: want one a unit", w.calls.Load(), want, tc.clients)
				}
			})
		})
	}
}

// TestFakeErrors: a server error is counted and the unit restarted when
// the plan ignores its code, and ends the run otherwise; a dropped
// connection is re-established (Begin again) when a lost-connection code
// is ignored, whichever of them.
func TestFakeErrors(t *testing.T) {
	const units = 60
	for _, tc := range []struct {
		name   string
		reply  mysqlfake.Reply // to every third unit's statement
		ignore []uint16
		// want: the code of the fatal error (0: the run completes).
		fatal  uint16
		broken bool // the reply breaks the connection
	}{
		{"deadlock ignored", mysqlfake.Err{Code: 1213, State: "40001", Message: "Deadlock found"}, []uint16{1213}, 0, false},
		{"deadlock not ignored", mysqlfake.Err{Code: 1213, State: "40001", Message: "Deadlock found"}, nil, 1213, false},
		{"other code ignored", mysqlfake.Err{Code: 1213, Message: "Deadlock found"}, []uint16{1062}, 1213, false},
		{"signal ignored", mysqlfake.Err{Code: 1644, State: "45000", Message: "chosen"}, []uint16{1644, 1213}, 0, false},
		{"drop, 2013 ignored", mysqlfake.Drop{}, []uint16{2013}, 0, true},
		{"drop, 2006 ignored", mysqlfake.Drop{}, []uint16{2006}, 0, true},
		{"drop, 1927 ignored", mysqlfake.Drop{}, []uint16{1927}, 0, true},
		{"drop not ignored", mysqlfake.Drop{}, nil, 2013, true},
		{"drop, only 1213 ignored", mysqlfake.Drop{}, []uint16{1213}, 2013, true},
		{"killed (1927) not ignored", mysqlfake.Err{Code: 1927, Message: "Connection was killed"}, []uint16{1213}, 1927, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			onPaths(t, true, func(t *testing.T) {
				w := failingText("FAIL")
				const clients = 2
				p, s := fakePlan(t, w, clients, func(q mysqlfake.Query) mysqlfake.Reply {
					if q.SQL == "FAIL" {
						return tc.reply
					}
					return nil
				}, mysqlfake.Options{})
				p.Events = units
				if tc.ignore != nil {
					p.Ignore = func(code uint16) bool {
						for _, c := range tc.ignore {
							if c == code {
								return true
							}
						}
						return false
					}
				}
				b, err := Run(context.Background(), p)
				if tc.fatal != 0 {
					var ce *ClientError
					if !errors.As(err, &ce) || ce.Code != tc.fatal || ce.Op != "fail" {
						t.Fatalf("error %v, want a ClientError %d on op fail", err, tc.fatal)
					}
					if b == nil || b.StoppedBy != "error" {
						t.Errorf("benchmark %+v", b)
					}
					if w.ends.Load() != clients {
						t.Errorf("End ran %d times for %d clients", w.ends.Load(), clients)
					}
					return
				}
				if err != nil {
					t.Fatal(err)
				}
				checkTotals(t, b)
				fails := uint64(w.fails.Load())
				var counted uint64
				for _, n := range b.Ops[1].Errors {
					counted += n
				}
				if b.Events != units || b.StoppedBy != "events" || b.Ops[1].Service.TotalCount() != 0 {
					t.Errorf("events %d, stopped by %q, failing op's latencies %d", b.Events, b.StoppedBy, b.Ops[1].Service.TotalCount())
				}
				if fails == 0 || counted != fails || b.Tally.Retries != fails {
					t.Errorf("errors counted %d (%v), retries %d, the workload failed %d times", counted, b.Ops[1].Errors, b.Tally.Retries, fails)
				}
				var reconnects uint64
				if tc.broken {
					reconnects = fails
					if b.Ops[1].Errors[2013] != fails {
						t.Errorf("a dropped connection counted as %v, want 2013", b.Ops[1].Errors)
					}
				}
				if b.Ops[1].Reconnects != reconnects {
					t.Errorf("%d reconnects, want %d", b.Ops[1].Reconnects, reconnects)
				}
				if got, want := s.Connects(), int64(clients)+int64(reconnects); got != want {
					t.Errorf("%d connections made, want %d", got, want)
				}
				if got, want := w.begins.Load(), int64(clients)+int64(reconnects); got != want {
					t.Errorf("%d Begin calls, want %d", got, want)
				}
			})
		})
	}
}

// failingText is failing with statement texts: every third unit of a
// client sends stmt (op "fail"); the clients count the units that failed.
func failingText(stmt string) *scripted {
	w := &scripted{ops: []string{"select", "fail"}}
	w.text = func(_, n int) (string, int) {
		if n%3 == 0 {
			return stmt, 1
		}
		return "SELECT 1", 0
	}
	return w
}

// TestFakeServerGone: every connection breaks under the clients at once
// (a server restart); with lost connections ignored the clients reconnect
// and finish their units.
func TestFakeServerGone(t *testing.T) {
	onPaths(t, true, func(t *testing.T) {
		var n atomic.Int64
		var srv atomic.Pointer[mysqlfake.Server]
		w := &scripted{text: selectText}
		p, s := fakePlan(t, w, 4, func(q mysqlfake.Query) mysqlfake.Reply {
			if n.Add(1) == 100 {
				go srv.Load().BreakAll()
				return mysqlfake.Stall{For: 50 * time.Millisecond}
			}
			return nil
		}, mysqlfake.Options{})
		srv.Store(s)
		p.Events = 400
		p.Ignore = func(code uint16) bool { return code == 2013 }
		b, err := Run(context.Background(), p)
		if err != nil {
			t.Fatal(err)
		}
		checkTotals(t, b)
		if b.Events != 400 || b.StoppedBy != "events" || b.Ops[0].Reconnects == 0 || int64(b.Ops[0].Reconnects) != s.Connects()-4 {
			t.Errorf("events %d, reconnects %d, connections %d", b.Events, b.Ops[0].Reconnects, s.Connects())
		}
	})
}

// TestFakeStops: a time limit ends the run by time; an interrupt ends it
// as interrupted, also when every client is inside a statement that does
// not end (the engine then breaks their sockets and KILLs their
// statements on the server, which the fake's log shows).
func TestFakeStops(t *testing.T) {
	for _, tc := range []struct {
		name     string
		duration time.Duration
		cancel   time.Duration // -1: none; 0: before Run
		stall    bool          // the second unit of each client never ends
		stopped  string
		killed   bool
	}{
		{"time limit", 150 * time.Millisecond, -1, false, "time", false},
		{"interrupt during the load", 20 * time.Second, 100 * time.Millisecond, false, "interrupt", false},
		{"interrupt before the clock", 20 * time.Second, 0, false, "interrupt", false},
		{"interrupt in a long statement", 20 * time.Second, 100 * time.Millisecond, true, "interrupt", true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			onPaths(t, tc.cancel != 0, func(t *testing.T) {
				const clients = 3
				w := &scripted{text: func(_, n int) (string, int) {
					if tc.stall && n > 1 {
						return "SELECT SLEEP(30)", 0
					}
					return "SELECT 1", 0
				}}
				p, s := fakePlan(t, w, clients, func(q mysqlfake.Query) mysqlfake.Reply {
					if strings.HasPrefix(q.SQL, "SELECT SLEEP") {
						return mysqlfake.Stall{For: 30 * time.Second}
					}
					return nil
				}, mysqlfake.Options{Delay: 100 * time.Microsecond})
				p.Duration = tc.duration
				ctx, cancel := context.WithCancel(context.Background())
				defer cancel()
				switch {
				case tc.cancel == 0:
					cancel()
				case tc.cancel > 0:
					time.AfterFunc(tc.cancel, cancel)
				}
				began := time.Now()
				b, err := Run(ctx, p)
				took := time.Since(began)
				if tc.stopped == "interrupt" {
					if !errors.Is(err, ErrInterrupted) {
						t.Fatalf("error %v, want ErrInterrupted", err)
					}
				} else if err != nil {
					t.Fatal(err)
				}
				if b == nil || b.StoppedBy != tc.stopped {
					t.Fatalf("benchmark %+v, want stopped by %q", b, tc.stopped)
				}
				checkTotals(t, b)
				// An abort waits a grace of 1 s before it breaks the sockets.
				if limit := tc.duration + 2*abortGrace; tc.cancel < 0 && took > limit || tc.cancel >= 0 && took > tc.cancel+2*abortGrace {
					t.Errorf("Run took %v to stop", took)
				}
				if tc.cancel < 0 && took < tc.duration {
					t.Errorf("Run ended after %v, before its time limit", took)
				}
				if (tc.cancel != 0) != (b.Events > 0) {
					t.Errorf("%d events", b.Events)
				}
				var kills int
				for _, q := range s.Log() {
					if strings.HasPrefix(q.SQL, "KILL ") {
						kills++
					}
				}
				if tc.killed && kills != clients || !tc.killed && kills != 0 {
					t.Errorf("%d KILLs sent, stalled clients %d", kills, clients)
				}
				if w.ends.Load() != w.begins.Load() {
					t.Errorf("%d End for %d Begin calls", w.ends.Load(), w.begins.Load())
				}
			})
		})
	}
}

// TestFakeLatencyRecorded: with 1 ms added to every reply, every recorded
// latency is at least 1 ms (the histograms are in µs), the percentiles
// too, and the service time adds up.
func TestFakeLatencyRecorded(t *testing.T) {
	onPaths(t, true, func(t *testing.T) {
		for _, delay := range []time.Duration{time.Millisecond, 3 * time.Millisecond} {
			w := &scripted{text: selectText}
			p, _ := fakePlan(t, w, 2, nil, mysqlfake.Options{Delay: delay})
			p.Events = 40
			b, err := Run(context.Background(), p)
			if err != nil {
				t.Fatal(err)
			}
			if b.StoppedBy != "events" {
				t.Errorf("stopped by %q", b.StoppedBy)
			}
			h := b.Ops[0].Service
			us := delay.Microseconds()
			if h.TotalCount() != 40 || h.Min() < us || h.ValueAtQuantile(50) < us || h.ValueAtQuantile(95) < us {
				t.Errorf("delay %v: %d latencies, min %d µs, p50 %d µs, p95 %d µs; want all >= %d µs",
					delay, h.TotalCount(), h.Min(), h.ValueAtQuantile(50), h.ValueAtQuantile(95), us)
			}
			for i, c := range b.Clients {
				if c.Busy < time.Duration(c.Events)*delay {
					t.Errorf("delay %v: client %d busy %v for %d units", delay, i, c.Busy, c.Events)
				}
			}
		}
	})
}
