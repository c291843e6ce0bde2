package engine

import (
	"context"
	"fmt"
	"io"
	"runtime"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/go-sql-driver/mysql"

	"github.com/goslap/goslap/internal/mysqlconn"
	"github.com/goslap/goslap/internal/mysqlconn/mysqlfake"
	"github.com/goslap/goslap/internal/mysqlconn/ring"
	"github.com/goslap/goslap/internal/workload"
)

// textClient is a scripted client whose units are the statements of its
// workload's text: a workload.StatementClient, so the ring path may run it.
type textClient struct {
	scriptedClient
	sent bool   // a statement is in flight
	text []byte // the statement last appended
}

func (c *textClient) Next(conn *mysqlconn.Conn) (workload.Step, error) {
	c.n++
	c.w.calls.Add(1)
	stmt, op := c.w.text(c.id, c.n)
	err := conn.Exec(stmt)
	if err == nil {
		c.tally.Reads++
	} else {
		c.w.fails.Add(1)
	}
	return workload.Step{Op: op}, err
}

func (c *textClient) Statements() bool { return !c.w.plainNext }

// Statement counts the reply to the statement in flight (sent) and
// appends unit n's.
func (c *textClient) Statement(dst []byte, reply workload.Reply) ([]byte, workload.StatementStep) {
	step := workload.StatementStep{Ended: true}
	if c.sent {
		c.sent = false
		if reply.Err == nil {
			c.tally.Reads++
		} else {
			c.w.fails.Add(1)
		}
		step.Err = reply.Err
	}
	c.n++
	c.w.calls.Add(1)
	stmt, op := c.w.text(c.id, c.n)
	step.Op = op
	dst = append(dst, 0x03)
	c.text, c.sent = append(c.text[:0], stmt...), true
	return append(dst, stmt...), step
}

func (c *textClient) Again(dst []byte) []byte { return append(append(dst, 0x03), c.text...) }

func selectText(int, int) (string, int) { return "SELECT 1", 0 }

// ringUsable reports whether io_uring works here (a ring can be set up).
var ringUsable = ring.Available

// onPaths runs f on the goroutine path (RingEnv=0), on the ring path
// (RingEnv=1) and on the ring path's coroutine mode (RingEnv=1, every
// client a coroutine: ringroutine.go), and checks that the ring path ran
// the load in the mode asked for (when arrive: some client reached the
// release) and the goroutine path did not.
func onPaths(t *testing.T, arrive bool, f func(t *testing.T)) {
	t.Helper()
	for _, path := range []string{"goroutines", "ring", "coroutines"} {
		onRing := path != "goroutines"
		t.Run(path, func(t *testing.T) {
			if onRing && !ringUsable() {
				t.Skip("io_uring unavailable here")
			}
			env := "0"
			if onRing {
				env = "1"
			}
			t.Setenv(RingEnv, env)
			routineAlways = path == "coroutines"
			defer func() { routineAlways = false }()
			before, routinesBefore := ringArrivals.Load(), routineArrivals.Load()
			f(t)
			took, routines := ringArrivals.Load()-before, routineArrivals.Load()-routinesBefore
			switch {
			case onRing && arrive && took == 0:
				t.Error("no client ran on the ring path")
			case !onRing && took != 0:
				t.Errorf("%d clients ran on the ring path with %s=0", took, RingEnv)
			case path == "ring" && routines != 0:
				t.Errorf("%d statement clients ran as coroutines", routines)
			case path == "coroutines" && routines != took:
				t.Errorf("%d of %d clients on the ring ran as coroutines", routines, took)
			}
		})
	}
}

// TestRingFallbacks: a load the ring path cannot take runs on the
// goroutine path with GOSLAP_RING=1 and the same counts: io_uring
// refused, clients that give no statements; a workload without statement
// texts takes the ring's coroutine mode (ringroutine.go), same counts.
func TestRingFallbacks(t *testing.T) {
	if !ringUsable() {
		t.Skip("io_uring unavailable here")
	}
	for _, tc := range []struct {
		name        string
		w           *scripted
		unavailable bool
		coroutines  int64 // clients in the coroutine mode
	}{
		{"io_uring refused", &scripted{text: selectText}, true, 0},
		{"no StatementClient", &scripted{}, false, 3},
		{"Statements false", &scripted{text: selectText, plainNext: true}, false, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Setenv(RingEnv, "1")
			if tc.unavailable {
				newRing = func(int) (*ring.Loop, error) { return nil, ring.ErrUnavailable }
				defer func() { newRing = ring.New }()
			}
			p, s := fakePlan(t, tc.w, 3, nil, mysqlfake.Options{})
			p.PerClientEvents = func(int) uint64 { return 30 }
			before, routines := ringArrivals.Load(), routineArrivals.Load()
			b, err := Run(context.Background(), p)
			if err != nil {
				t.Fatal(err)
			}
			checkTotals(t, b)
			got, gotRoutines := ringArrivals.Load()-before, routineArrivals.Load()-routines
			if got != tc.coroutines || gotRoutines != tc.coroutines {
				t.Errorf("%d clients on the ring, %d as coroutines; want %d, %d", got, gotRoutines, tc.coroutines, tc.coroutines)
			}
			if sent := len(queriesByConn(s.Log(), "SELECT 1")); b.Events != 90 || sent != 3 {
				t.Errorf("events %d over %d connections %v", b.Events, sent, b.Clients)
			}
			if tc.w.ends.Load() != 3 {
				t.Errorf("%d End calls", tc.w.ends.Load())
			}
		})
	}
}

// TestFakeWarmupAndIntervals: on both paths a warm-up's units reach the
// server but neither the counts nor the tally, and the measured load's
// intervals are reported from the units as they end.
func TestFakeWarmupAndIntervals(t *testing.T) {
	onPaths(t, true, func(t *testing.T) {
		w := &scripted{text: selectText}
		p, s := fakePlan(t, w, 2, nil, mysqlfake.Options{Delay: time.Millisecond})
		p.Duration, p.Warmup, p.ReportInterval = 400*time.Millisecond, 200*time.Millisecond, 100*time.Millisecond
		b, err := Run(context.Background(), p)
		if err != nil {
			t.Fatal(err)
		}
		checkTotals(t, b)
		var sent uint64
		for _, n := range queriesByConn(s.Log(), "SELECT 1") {
			sent += uint64(n)
		}
		if b.StoppedBy != "time" || b.Events == 0 || sent < b.Events+50 {
			t.Errorf("stopped by %q, %d events, %d statements sent: want the warm-up's on top", b.StoppedBy, b.Events, sent)
		}
		if b.Tally.Reads != b.Events {
			t.Errorf("tally %d reads for %d events: the warm-up's are not taken off", b.Tally.Reads, b.Events)
		}
		var inIntervals uint64
		for _, iv := range b.Intervals {
			if iv.Events == 0 {
				t.Errorf("an interval without events: %+v", iv)
			}
			inIntervals += iv.Events
		}
		if len(b.Intervals) < 3 || inIntervals > b.Events || inIntervals < b.Events/2 {
			t.Errorf("%d intervals with %d events of %d", len(b.Intervals), inIntervals, b.Events)
		}
	})
}

// TestWireError: a broken exchange is worded as the driver path words it
// (mysqlconn's connection failures), the server's ERR passes as it is.
func TestWireError(t *testing.T) {
	serverErr := &mysql.MySQLError{Number: 1213, Message: "Deadlock found"}
	for _, tc := range []struct {
		name string
		err  error
		code uint16
		msg  string
	}{
		{"none", nil, 0, ""},
		{"server's ERR", serverErr, 1213, "Deadlock found"},
		{"send failed", &ring.ConnError{Op: "send", Err: syscall.EPIPE}, 2006, "Server has gone away"},
		{"server closed", &ring.ConnError{Op: "recv", Err: io.ErrUnexpectedEOF}, 2013, "Lost connection to server during query"},
		{"canceled", &ring.ConnError{Op: "recv", Err: ring.ErrCanceled}, 2013, "Lost connection to server during query"},
		{"unfollowable reply", &ring.ConnError{Op: "reply", Err: &ring.ProtocolError{Msg: "x"}}, 2013, "Lost connection to server during query"},
	} {
		got := wireError(tc.err)
		if tc.err == nil {
			if got != nil {
				t.Errorf("%s: %v", tc.name, got)
			}
			continue
		}
		code, msg, _ := classify(got)
		if code != tc.code || msg != tc.msg {
			t.Errorf("%s: %d %q, want %d %q", tc.name, code, msg, tc.code, tc.msg)
		}
	}
}

// TestRingHoldsAP: a ring thread's waits keep its P (raw system calls), so
// a ring load raises GOMAXPROCS for its threads as a threaded load does
// for its clients, and gives it back at the end; with GOMAXPROCS=1 the
// clients' goroutines would otherwise get the P only at sysmon's
// preemptions of the waiting ring thread.
func TestRingHoldsAP(t *testing.T) {
	if !ringUsable() {
		t.Skip("io_uring unavailable here")
	}
	t.Setenv(RingEnv, "1")
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(1))
	var during atomic.Int64
	w := &scripted{text: selectText, begin: func(int, *mysqlconn.Conn) error {
		during.Store(int64(runtime.GOMAXPROCS(0)))
		return nil
	}}
	p, _ := fakePlan(t, w, 3, nil, mysqlfake.Options{})
	p.PerClientEvents = func(int) uint64 { return 30 }
	before := ringArrivals.Load()
	b, err := Run(context.Background(), p)
	if err != nil {
		t.Fatal(err)
	}
	checkTotals(t, b)
	if ringArrivals.Load() == before {
		t.Fatal("the load did not run on the ring")
	}
	if during.Load() < 2 || runtime.GOMAXPROCS(0) != 1 {
		t.Errorf("GOMAXPROCS %d during the ring load, %d after it; want 2 or more, then 1", during.Load(), runtime.GOMAXPROCS(0))
	}
}

// TestRoutineDefaultRange: without RingEnv, clients that claim the
// coroutine mode (workload.CoroutineClient) run in it in its default range
// and on the goroutine path outside it; clients that do not claim it never
// do.
func TestRoutineDefaultRange(t *testing.T) {
	if !ringUsable() {
		t.Skip("io_uring unavailable here")
	}
	t.Setenv(RingEnv, "")
	t.Setenv(mysqlconn.ThreadBelowEnv, "")
	for _, tc := range []struct {
		name      string
		coroutine bool
		clients   int
		want      bool
	}{
		{"claimed, in range", true, RoutineFrom, true},
		{"claimed, below the range", true, RoutineFrom - 1, false},
		{"not claimed", false, RoutineFrom, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			w := &scripted{coroutine: tc.coroutine}
			p, _ := fakePlan(t, w, tc.clients, nil, mysqlfake.Options{})
			p.PerClientEvents = func(int) uint64 { return 20 }
			before := routineArrivals.Load()
			b, err := Run(context.Background(), p)
			if err != nil {
				t.Fatal(err)
			}
			checkTotals(t, b)
			if got := routineArrivals.Load() - before; (got == int64(tc.clients)) != tc.want || (got != 0) != tc.want {
				t.Errorf("%d of %d clients ran as coroutines; want all: %v", got, tc.clients, tc.want)
			}
		})
	}
}

// TestRoutineThreadedRange: clients that claim the coroutine mode and its
// threaded range (workload.ThreadedClient) run a thread per client
// (GOMAXPROCS raised to their count + 1 for the load) in RoutineThreadFrom
// to RoutineThreadBelow-1, as coroutines on the ring on either side of it,
// and on the netpoller (GOMAXPROCS as it was) where
// mysqlconn.ThreadBelowEnv says so; clients that claim the coroutine mode
// only stay on the ring.
func TestRoutineThreadedRange(t *testing.T) {
	if !ringUsable() {
		t.Skip("io_uring unavailable here")
	}
	for _, tc := range []struct {
		name      string
		threaded  bool
		clients   int
		threadEnv string
		want      string // "ring", "threaded" or "netpoller"
	}{
		{"below the range", true, RoutineThreadFrom - 1, "", "ring"},
		{"from", true, RoutineThreadFrom, "", "threaded"},
		{"last", true, RoutineThreadBelow - 1, "", "threaded"},
		{"above the range", true, RoutineThreadBelow, "", "ring"},
		{"threshold in the environment", true, RoutineThreadFrom, "0", "netpoller"},
		{"not claimed", false, RoutineThreadFrom, "", "ring"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Setenv(RingEnv, "")
			t.Setenv(mysqlconn.ThreadBelowEnv, tc.threadEnv)
			defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(1))
			var during atomic.Int64
			w := &scripted{coroutine: true, threaded: tc.threaded, begin: func(int, *mysqlconn.Conn) error {
				during.Store(int64(runtime.GOMAXPROCS(0)))
				return nil
			}}
			p, _ := fakePlan(t, w, tc.clients, nil, mysqlfake.Options{})
			p.PerClientEvents = func(int) uint64 { return 5 }
			before := routineArrivals.Load()
			b, err := Run(context.Background(), p)
			if err != nil {
				t.Fatal(err)
			}
			checkTotals(t, b)
			got := "netpoller"
			switch {
			case routineArrivals.Load()-before == int64(tc.clients):
				got = "ring"
			case routineArrivals.Load() != before:
				got = fmt.Sprintf("%d of %d clients on the ring", routineArrivals.Load()-before, tc.clients)
			case during.Load() > int64(tc.clients):
				got = "threaded"
			case during.Load() != 1:
				got = fmt.Sprintf("GOMAXPROCS %d", during.Load())
			}
			if got != tc.want {
				t.Errorf("%d coroutine clients, %s=%q: %s, want %s", tc.clients, mysqlconn.ThreadBelowEnv, tc.threadEnv, got, tc.want)
			}
		})
	}
}
