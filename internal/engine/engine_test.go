package engine

import (
	"context"
	"errors"
	"fmt"
	"runtime"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/go-sql-driver/mysql"

	"github.com/goslap/goslap/internal/mysqlconn"
	"github.com/goslap/goslap/internal/results"
	"github.com/goslap/goslap/internal/sandbox"
	"github.com/goslap/goslap/internal/sandbox/servertest"
	"github.com/goslap/goslap/internal/workload"
	"github.com/goslap/goslap/internal/workload/selectone"
)

func TestMain(m *testing.M) {
	servertest.Main(m, sandbox.Config{}, nil)
}

// connector is a Connector for root on the package's server.
func connector(t testing.TB) *mysqlconn.Connector {
	t.Helper()
	s := servertest.Require(t)
	c, err := mysqlconn.NewConnector(s.RootConfig(""), "")
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// selectPlan is a plan for the selectone workload.
func selectPlan(t testing.TB, clients int) Plan {
	w := selectone.Workload{}
	l, err := w.Load(workload.Iteration{Number: 1})
	if err != nil {
		t.Fatal(err)
	}
	return Plan{Connector: connector(t), Workload: w, Load: l, Clients: clients, Seed: 1}
}

// scripted is a test workload whose clients run next; it counts the
// Begin and End calls.
type scripted struct {
	ops   []string
	begin func(id int, c *mysqlconn.Conn) error
	next  func(id int, n int, c *mysqlconn.Conn) (workload.Step, error)
	// text, when set, makes the clients workload.StatementClients: unit n
	// of client id is the statement text(id, n) of op, sent by Next on the
	// goroutine path or by the ring path (ringpath_test.go).
	text func(id, n int) (stmt string, op int)
	// plainNext: with text, the clients answer Statements() false.
	plainNext bool
	// coroutine: without text, the clients claim the ring's coroutine
	// mode (workload.CoroutineClient).
	coroutine bool
	// threaded: the clients claim the coroutine mode and its threaded
	// range (workload.ThreadedClient).
	threaded bool
	begins   atomic.Int64
	ends     atomic.Int64
	fails    atomic.Int64 // units next failed (failing)
	calls    atomic.Int64 // Next calls
}

func (w *scripted) Ops() []string                                                  { return w.ops }
func (w *scripted) Setup(context.Context, *workload.Session, workload.Point) error { return nil }
func (w *scripted) BeginIteration(context.Context, *workload.Session, workload.Iteration) error {
	return nil
}
func (w *scripted) EndIteration(context.Context, *workload.Session, workload.Iteration) error {
	return nil
}
func (w *scripted) Teardown(context.Context, *workload.Session, workload.Point) error { return nil }
func (w *scripted) Load(workload.Iteration) (workload.Load, error)                    { return w, nil }
func (w *scripted) Client(id int) workload.Client {
	if w.text != nil {
		return &textClient{scriptedClient: scriptedClient{w: w, id: id}}
	}
	if w.threaded {
		return &threadedClient{coroutineClient{scriptedClient{w: w, id: id}}}
	}
	if w.coroutine {
		return &coroutineClient{scriptedClient{w: w, id: id}}
	}
	return &scriptedClient{w: w, id: id}
}

// coroutineClient is a scripted client that claims the coroutine mode.
type coroutineClient struct{ scriptedClient }

func (*coroutineClient) Coroutine() bool { return true }

// threadedClient is a coroutine client that claims the threaded range too
// (workload.ThreadedClient).
type threadedClient struct{ coroutineClient }

func (*threadedClient) Threaded() bool { return true }

type scriptedClient struct {
	w     *scripted
	id, n int
	tally workload.Tally
}

func (c *scriptedClient) Begin(conn *mysqlconn.Conn) error {
	c.w.begins.Add(1)
	if c.w.begin != nil {
		return c.w.begin(c.id, conn)
	}
	return nil
}

func (c *scriptedClient) Next(conn *mysqlconn.Conn) (workload.Step, error) {
	c.n++
	c.w.calls.Add(1)
	s, err := c.w.next(c.id, c.n, conn)
	if err == nil {
		c.tally.Reads++
	}
	return s, err
}

func (c *scriptedClient) End(*mysqlconn.Conn) error { c.w.ends.Add(1); return nil }
func (c *scriptedClient) Tally() workload.Tally     { return c.tally }

func selectOne(_ int, _ int, c *mysqlconn.Conn) (workload.Step, error) {
	return workload.Step{}, c.Exec("SELECT 1")
}

func scriptedPlan(t testing.TB, w *scripted, clients int) Plan {
	if w.ops == nil {
		w.ops = []string{"select"}
	}
	return Plan{Connector: connector(t), Workload: w, Load: w, Clients: clients, Seed: 1}
}

// checkTotals verifies the figures every benchmark must agree on.
func checkTotals(t *testing.T, b *results.Benchmark) {
	t.Helper()
	var perClient, recorded uint64
	for _, c := range b.Clients {
		perClient += c.Events
	}
	for _, op := range b.Ops {
		recorded += uint64(op.Service.TotalCount())
	}
	if perClient != b.Events || recorded != b.Events {
		t.Errorf("events %d, per-client sum %d, recorded latencies %d: must agree", b.Events, perClient, recorded)
	}
}

func TestEventsLimitIsExact(t *testing.T) {
	for _, tc := range []struct {
		clients int
		events  uint64
	}{{1, 1}, {1, 250}, {4, 3}, {4, 1001}, {16, 5000}} {
		t.Run(fmt.Sprintf("c%d-e%d", tc.clients, tc.events), func(t *testing.T) {
			p := selectPlan(t, tc.clients)
			p.Events = tc.events
			b, err := Run(context.Background(), p)
			if err != nil {
				t.Fatal(err)
			}
			if b.Events != tc.events || b.Tally.Reads != tc.events {
				t.Errorf("events %d, reads %d; want %d", b.Events, b.Tally.Reads, tc.events)
			}
			if b.StoppedBy != "events" {
				t.Errorf("stopped by %q", b.StoppedBy)
			}
			if len(b.Clients) != tc.clients || len(b.Ops) != 1 || b.Ops[0].Name != "select" {
				t.Errorf("%d clients, ops %v", len(b.Clients), b.Ops)
			}
			checkTotals(t, b)
		})
	}
}

func TestPerClientQuota(t *testing.T) {
	p := selectPlan(t, 5)
	p.PerClientEvents = func(id int) uint64 { return uint64(10 * (id + 1)) }
	b, err := Run(context.Background(), p)
	if err != nil {
		t.Fatal(err)
	}
	if b.StoppedBy != "events" {
		t.Errorf("stopped by %q", b.StoppedBy)
	}
	for i, c := range b.Clients {
		if c.Events != uint64(10*(i+1)) {
			t.Errorf("client %d: %d events, want %d", i, c.Events, 10*(i+1))
		}
		if c.Busy <= 0 || c.Busy > b.Elapsed {
			t.Errorf("client %d: busy %v of %v", i, c.Busy, b.Elapsed)
		}
	}
	if b.Events != 150 {
		t.Errorf("events %d, want 150", b.Events)
	}
	checkTotals(t, b)
}

func TestTimeLimit(t *testing.T) {
	for _, tc := range []struct {
		name     string
		events   uint64
		perFirst uint64 // client 0's own quota
		warmup   time.Duration
	}{
		{"time only", 0, 0, 0},
		{"time before events", 1 << 40, 0, 0},
		{"time after one client's quota", 0, 10, 0},
		{"after warm-up", 0, 0, 300 * time.Millisecond},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := selectPlan(t, 4)
			p.Duration = 500 * time.Millisecond
			p.Events = tc.events
			p.Warmup = tc.warmup
			if tc.perFirst > 0 {
				p.PerClientEvents = func(id int) uint64 {
					if id == 0 {
						return tc.perFirst
					}
					return 0
				}
			}
			began := time.Now()
			b, err := Run(context.Background(), p)
			if err != nil {
				t.Fatal(err)
			}
			if b.StoppedBy != "time" {
				t.Errorf("stopped by %q", b.StoppedBy)
			}
			if b.Elapsed < p.Duration || b.Elapsed > p.Duration+250*time.Millisecond {
				t.Errorf("elapsed %v for a %v limit", b.Elapsed, p.Duration)
			}
			if d := b.Start.Sub(began); d < tc.warmup {
				t.Errorf("measured phase began %v after Run, before the %v warm-up ended", d, tc.warmup)
			}
			if b.Events == 0 {
				t.Error("no events")
			}
			// The warm-up's statements are not counted either.
			if b.Tally.Reads != b.Events {
				t.Errorf("reads %d, measured events %d (warm-up %v)", b.Tally.Reads, b.Events, tc.warmup)
			}
			checkTotals(t, b)
		})
	}
}

func TestWarmupNotCounted(t *testing.T) {
	w := &scripted{next: selectOne}
	p := scriptedPlan(t, w, 2)
	p.Warmup = 200 * time.Millisecond
	p.Events = 100
	b, err := Run(context.Background(), p)
	if err != nil {
		t.Fatal(err)
	}
	if b.Events != 100 || b.Tally.Reads != 100 {
		t.Errorf("events %d, reads %d; want 100", b.Events, b.Tally.Reads)
	}
	if w.calls.Load() <= 100 {
		t.Errorf("%d units in all: none ran in the warm-up", w.calls.Load())
	}
	checkTotals(t, b)
}

func TestRate(t *testing.T) {
	for _, uniform := range []bool{false, true} {
		t.Run(fmt.Sprintf("uniform=%v", uniform), func(t *testing.T) {
			p := selectPlan(t, 4)
			p.Rate = 500
			p.Uniform = uniform
			p.Duration = 2 * time.Second
			b, err := Run(context.Background(), p)
			if err != nil {
				t.Fatal(err)
			}
			got := float64(b.Events) / b.Elapsed.Seconds()
			// Poisson: 1000 expected arrivals have a standard deviation
			// of 3.2 %; 10 % is three of them.
			if got < 450 || got > 550 {
				t.Errorf("rate %.1f/s, want 500 ± 10 %%", got)
			}
			in := b.Ops[0].Intended
			if in == nil || uint64(in.TotalCount()) != b.Events {
				t.Fatalf("intended-start latencies missing or miscounted: %v", in)
			}
			if in.Max() < b.Ops[0].Service.Min() {
				t.Error("time from the scheduled start shorter than every service time")
			}
			checkTotals(t, b)
		})
	}
}

// failing fails every third unit of each client with stmt's error.
func failing(stmt string) *scripted {
	w := &scripted{ops: []string{"select", "fail"}}
	w.next = func(_ int, n int, c *mysqlconn.Conn) (workload.Step, error) {
		if n%3 == 0 {
			w.fails.Add(1)
			return workload.Step{Op: 1}, c.Exec(stmt)
		}
		return workload.Step{Op: 0}, c.Exec("SELECT 1")
	}
	return w
}

func TestIgnoredErrorRestartsUnit(t *testing.T) {
	const missing = "SELECT * FROM mysql.no_such_table"
	for _, tc := range []struct {
		name  string
		stmt  string
		code  uint16
		users int
	}{
		{"missing table", missing, 1146, 2},
		{"signal", "SIGNAL SQLSTATE '45000' SET MYSQL_ERRNO = 1644, MESSAGE_TEXT = 'chosen'", 1644, 3},
	} {
		t.Run(tc.name, func(t *testing.T) {
			w := failing(tc.stmt)
			p := scriptedPlan(t, w, tc.users)
			p.Events = 60
			p.Ignore = func(code uint16) bool { return code == tc.code }
			b, err := Run(context.Background(), p)
			if err != nil {
				t.Fatal(err)
			}
			fails := b.Ops[1].Errors[tc.code]
			if b.Events != 60 || b.Ops[1].Service.TotalCount() != 0 {
				t.Errorf("events %d, fail-op latencies %d", b.Events, b.Ops[1].Service.TotalCount())
			}
			if fails == 0 || fails != uint64(w.fails.Load()) {
				t.Errorf("%d errors counted %d times, the workload failed %d times", tc.code, fails, w.fails.Load())
			}
			if b.Tally.Retries != fails {
				t.Errorf("retries %d, errors %d", b.Tally.Retries, fails)
			}
			if b.Ops[1].ErrorText[tc.code] == "" {
				t.Error("no error text kept")
			}

			p.Ignore = nil
			w.begins.Store(0)
			w.ends.Store(0)
			b, err = Run(context.Background(), p)
			var ce *ClientError
			if !errors.As(err, &ce) || ce.Code != tc.code || ce.Op != "fail" {
				t.Fatalf("error %v, want a ClientError %d on op fail", err, tc.code)
			}
			if !strings.HasPrefix(err.Error(), fmt.Sprintf("client %d, fail: ERROR %d ", ce.Client, tc.code)) {
				t.Errorf("message %q", err)
			}
			if b == nil || b.StoppedBy != "error" {
				t.Errorf("benchmark %v", b)
			}
			if w.begins.Load() != int64(tc.users) || w.ends.Load() != int64(tc.users) {
				t.Errorf("%d Begin, %d End calls for %d clients", w.begins.Load(), w.ends.Load(), tc.users)
			}
		})
	}
}

// TestKilledConnection kills a client's connection on the server while it
// runs: with 2013 ignorable it reconnects (Begin again), without the run
// stops with the lost connection's error.
func TestKilledConnection(t *testing.T) {
	s := servertest.Require(t)
	db, err := s.OpenDB("")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	for _, ignore := range []bool{true, false} {
		t.Run(fmt.Sprintf("ignore=%v", ignore), func(t *testing.T) {
			ids := make(chan string, 4)
			w := &scripted{
				begin: func(_ int, c *mysqlconn.Conn) error {
					id, err := c.QueryStrings("SELECT CONNECTION_ID()")
					if err == nil {
						ids <- id[0]
					}
					return err
				},
				next: selectOne,
			}
			p := scriptedPlan(t, w, 1)
			p.Duration = 600 * time.Millisecond
			if ignore {
				p.Ignore = func(code uint16) bool { return code == 2013 }
			}
			go func() {
				id := <-ids
				time.Sleep(100 * time.Millisecond)
				_, _ = db.Exec("KILL " + id)
			}()
			b, err := Run(context.Background(), p)
			if ignore {
				if err != nil {
					t.Fatal(err)
				}
				if b.Ops[0].Reconnects != 1 || w.begins.Load() != 2 || len(b.Ops[0].Errors) != 1 {
					t.Errorf("reconnects %d, Begin calls %d, errors %v", b.Ops[0].Reconnects, w.begins.Load(), b.Ops[0].Errors)
				}
				if b.StoppedBy != "time" {
					t.Errorf("stopped by %q", b.StoppedBy)
				}
				return
			}
			var ce *ClientError
			// 2006 when the KILL's close reached the client before the
			// next statement was written, 2013 when it came while reading.
			if !errors.As(err, &ce) || (ce.Code != 2013 && ce.Code != 2006 && ce.Code != 1927) {
				t.Fatalf("error %v, want a lost connection", err)
			}
			if w.ends.Load() != 1 {
				t.Errorf("End ran %d times", w.ends.Load())
			}
		})
	}
}

func TestInterrupt(t *testing.T) {
	sleeper := &scripted{next: func(_ int, n int, c *mysqlconn.Conn) (workload.Step, error) {
		if n == 1 {
			return workload.Step{}, c.Exec("SELECT 1")
		}
		return workload.Step{}, c.Exec("SELECT SLEEP(30)")
	}}
	for _, tc := range []struct {
		name  string
		w     *scripted     // nil: selectone
		after time.Duration // -1: cancelled before Run
	}{
		{"during the load", nil, 200 * time.Millisecond},
		{"before the clock", nil, -1},
		// The clients are inside a 30 s statement: after the grace the
		// engine closes their sockets and KILLs the statements.
		{"in a long statement", sleeper, 200 * time.Millisecond},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := selectPlan(t, 3)
			if tc.w != nil {
				p = scriptedPlan(t, tc.w, 3)
			}
			p.Duration = 20 * time.Second
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			if tc.after < 0 {
				cancel()
			} else {
				time.AfterFunc(tc.after, cancel)
			}
			began := time.Now()
			b, err := Run(ctx, p)
			if !errors.Is(err, ErrInterrupted) {
				t.Fatalf("error %v, want ErrInterrupted", err)
			}
			// The grace (1 s), plus a KILL the server may take 2 s over.
			if time.Since(began) > 4*time.Second {
				t.Errorf("Run took %v to stop", time.Since(began))
			}
			if b == nil || b.StoppedBy != "interrupt" {
				t.Fatalf("benchmark %+v", b)
			}
			if (tc.after > 0) != (b.Events > 0) {
				t.Errorf("%d events", b.Events)
			}
			checkTotals(t, b)
		})
	}
}

func TestIntervals(t *testing.T) {
	for _, tc := range []struct {
		name   string
		w      *scripted // nil: selectone
		warmup time.Duration
	}{
		{"plain", nil, 0},
		// Intervals cover the measured load only: they start after it.
		{"after a warm-up", nil, 200 * time.Millisecond},
		{"ignored errors", failing("SELECT * FROM mysql.no_such_table"), 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := selectPlan(t, 3)
			if tc.w != nil {
				p = scriptedPlan(t, tc.w, 3)
				p.Ignore = func(code uint16) bool { return code == 1146 }
			}
			p.Warmup = tc.warmup
			p.Duration = 550 * time.Millisecond
			p.ReportInterval = 100 * time.Millisecond
			var got []results.Interval
			p.OnInterval = func(iv results.Interval) { got = append(got, iv) }
			b, err := Run(context.Background(), p)
			if err != nil {
				t.Fatal(err)
			}
			if len(got) != 5 || len(b.Intervals) != 5 {
				t.Fatalf("%d intervals delivered, %d kept; want 5", len(got), len(b.Intervals))
			}
			var events, errs uint64
			for i, iv := range got {
				if iv.At < time.Duration(i+1)*p.ReportInterval || iv.At > time.Duration(i+1)*p.ReportInterval+80*time.Millisecond {
					t.Errorf("interval %d at %v", i, iv.At)
				}
				if iv.Events == 0 || iv.Tally.Reads != iv.Events || iv.Latency.P95 <= 0 || iv.Latency.Count != int64(iv.Events) {
					t.Errorf("interval %d: %+v", i, iv)
				}
				if iv.Clients != 3 {
					t.Errorf("interval %d: %d clients running", i, iv.Clients)
				}
				var perOp int64
				for _, o := range iv.Ops {
					perOp += o.Count
				}
				if len(iv.Ops) != len(p.Workload.Ops()) || perOp != int64(iv.Events) {
					t.Errorf("interval %d: %d ops holding %d units, want %d and %d", i, len(iv.Ops), perOp, len(p.Workload.Ops()), iv.Events)
				}
				if iv.Tally.Retries != iv.Errors || (tc.w != nil) != (iv.Errors > 0) {
					t.Errorf("interval %d: %d errors, %d retries", i, iv.Errors, iv.Tally.Retries)
				}
				events += iv.Events
				errs += iv.Errors
			}
			if events > b.Events || events < b.Events*8/10 {
				t.Errorf("intervals hold %d of %d events", events, b.Events)
			}
			if errs > b.Tally.Retries || errs < b.Tally.Retries*8/10 {
				t.Errorf("intervals hold %d of %d errors", errs, b.Tally.Retries)
			}
		})
	}
}

// TestWorkloadAsksForNewConnection: Step.Reconnect (mysqlslap's --detach)
// gives the client a fresh connection and a new Begin, not counted as a
// reconnect after a break.
func TestWorkloadAsksForNewConnection(t *testing.T) {
	ids := map[string]bool{}
	w := &scripted{
		begin: func(_ int, c *mysqlconn.Conn) error {
			id, err := c.QueryStrings("SELECT CONNECTION_ID()")
			if err == nil {
				ids[id[0]] = true
			}
			return err
		},
		next: func(_ int, n int, c *mysqlconn.Conn) (workload.Step, error) {
			return workload.Step{Reconnect: n%4 == 0}, c.Exec("SELECT 1")
		},
	}
	p := scriptedPlan(t, w, 1)
	p.Events = 12
	b, err := Run(context.Background(), p)
	if err != nil {
		t.Fatal(err)
	}
	if w.begins.Load() != 4 || len(ids) != 4 || w.ends.Load() != 1 || b.Ops[0].Reconnects != 0 {
		t.Errorf("%d Begin on %d connections, %d End, %d reconnects; want 4, 4, 1, 0",
			w.begins.Load(), len(ids), w.ends.Load(), b.Ops[0].Reconnects)
	}
}

func TestConnectError(t *testing.T) {
	cfg := mysql.NewConfig()
	cfg.User, cfg.Net, cfg.Addr = "root", "unix", "/nonexistent/goslap.sock"
	conn, err := mysqlconn.NewConnector(cfg, "")
	if err != nil {
		t.Fatal(err)
	}
	p := selectPlan(t, 3)
	p.Connector = conn
	p.Events = 10
	b, err := Run(context.Background(), p)
	want := "Error when connecting to server: 2002 Can't connect to local server through socket '/nonexistent/goslap.sock' (2)"
	var ce *ConnectError
	if !errors.As(err, &ce) || err.Error() != want || b != nil {
		t.Fatalf("got %v, %v; want %q", b, err, want)
	}
}

// TestStopWhileBeginning: a stop before the clock does not wait for a
// client stuck in Begin: after the grace its statement is broken off.
func TestStopWhileBeginning(t *testing.T) {
	for _, tc := range []struct {
		name   string
		cancel bool // ctx ends; else another client's Begin fails
	}{{"interrupt", true}, {"another client failed", false}} {
		t.Run(tc.name, func(t *testing.T) {
			w := &scripted{
				begin: func(id int, c *mysqlconn.Conn) error {
					switch {
					case id == 0:
						return c.Exec("DO SLEEP(30)")
					case id == 1 && !tc.cancel:
						time.Sleep(100 * time.Millisecond)
						return c.Exec("SELECT * FROM mysql.no_such_table")
					}
					return nil
				},
				next: selectOne,
			}
			p := scriptedPlan(t, w, 3)
			p.Events = 10
			ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
			defer cancel()
			if !tc.cancel {
				ctx = context.Background()
			}
			began := time.Now()
			b, err := Run(ctx, p)
			if time.Since(began) > 4*time.Second {
				t.Errorf("Run took %v", time.Since(began))
			}
			var ce *ClientError
			switch {
			case tc.cancel && (!errors.Is(err, ErrInterrupted) || b == nil || b.Events != 0):
				t.Errorf("got %v, %v; want ErrInterrupted and no events", b, err)
			case !tc.cancel && (!errors.As(err, &ce) || ce.Client != 1 || b != nil):
				t.Errorf("got %v, %v; want client 1's error", b, err)
			}
			if w.ends.Load() != w.begins.Load() {
				t.Errorf("%d Begin, %d End", w.begins.Load(), w.ends.Load())
			}
		})
	}
}

func TestBeginError(t *testing.T) {
	w := &scripted{
		begin: func(id int, c *mysqlconn.Conn) error {
			if id == 2 {
				return c.Exec("SELECT * FROM mysql.no_such_table")
			}
			return nil
		},
		next: selectOne,
	}
	p := scriptedPlan(t, w, 4)
	p.Events = 10
	b, err := Run(context.Background(), p)
	var ce *ClientError
	if !errors.As(err, &ce) || ce.Op != "begin" || ce.Client != 2 || ce.Code != 1146 || b != nil {
		t.Fatalf("got %v, %v", b, err)
	}
	if w.ends.Load() != w.begins.Load() {
		t.Errorf("%d Begin, %d End", w.begins.Load(), w.ends.Load())
	}
}

func TestManyClients(t *testing.T) {
	if testing.Short() {
		t.Skip("1000 connections")
	}
	p := selectPlan(t, 1000)
	p.FirstClientID = 5000
	p.Events = 3000
	b, err := Run(context.Background(), p)
	if err != nil {
		t.Fatal(err)
	}
	if b.Events != 3000 || len(b.Clients) != 1000 {
		t.Errorf("%d events over %d clients", b.Events, len(b.Clients))
	}
	checkTotals(t, b)
}

// TestNothingLeaks runs loads that end every way and checks that no
// goroutine and no server connection outlives them.
func TestNothingLeaks(t *testing.T) {
	s := servertest.Require(t)
	db, err := s.OpenDB("")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	db.SetMaxOpenConns(1)
	connected := func() int {
		var name string
		var n int
		if err := db.QueryRow("SHOW GLOBAL STATUS LIKE 'Threads_connected'").Scan(&name, &n); err != nil {
			t.Fatal(err)
		}
		return n
	}
	threadsBefore := connected()
	before := runtime.NumGoroutine()
	runs := []func(){
		func() { p := selectPlan(t, 8); p.Events = 100; _, _ = Run(context.Background(), p) },
		func() {
			p := selectPlan(t, 4)
			p.Duration, p.Rate, p.ReportInterval = 300*time.Millisecond, 200, 50*time.Millisecond
			_, _ = Run(context.Background(), p)
		},
		func() {
			p := scriptedPlan(t, failing("SELECT * FROM mysql.nope"), 4)
			p.Events = 50
			_, _ = Run(context.Background(), p)
		},
		func() {
			ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
			defer cancel()
			p := selectPlan(t, 4)
			p.Duration, p.Rate = 10*time.Second, 10
			_, _ = Run(ctx, p)
		},
	}
	runs = append(runs, func() {
		w := &scripted{next: selectOne, begin: func(id int, c *mysqlconn.Conn) error {
			if id == 1 {
				return c.Exec("SELECT * FROM mysql.nope")
			}
			return nil
		}}
		p := scriptedPlan(t, w, 3)
		p.Events = 5
		_, _ = Run(context.Background(), p)
	})
	for _, run := range runs {
		run()
	}
	deadline := time.Now().Add(3 * time.Second)
	for runtime.NumGoroutine() > before && time.Now().Before(deadline) {
		time.Sleep(20 * time.Millisecond)
	}
	if n := runtime.NumGoroutine(); n > before {
		buf := make([]byte, 1<<16)
		t.Errorf("%d goroutines before, %d after:\n%s", before, n, buf[:runtime.Stack(buf, true)])
	}
	for connected() > threadsBefore && time.Now().Before(deadline) {
		time.Sleep(20 * time.Millisecond)
	}
	if n := connected(); n > threadsBefore {
		t.Errorf("%d server connections before, %d after", threadsBefore, n)
	}
}

func TestPlanChecked(t *testing.T) {
	good := selectPlan(t, 1)
	good.Events = 1
	for _, tc := range []struct {
		name string
		edit func(*Plan)
	}{
		{"no connector", func(p *Plan) { p.Connector = nil }},
		{"no clients", func(p *Plan) { p.Clients = 0 }},
		{"no limit", func(p *Plan) { p.Events = 0 }},
		{"negative rate", func(p *Plan) { p.Rate = -1 }},
		{"a client without quota", func(p *Plan) {
			p.Events = 0
			p.PerClientEvents = func(id int) uint64 { return 0 }
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := good
			tc.edit(&p)
			if b, err := Run(context.Background(), p); err == nil || b != nil {
				t.Errorf("accepted: %v, %v", b, err)
			}
		})
	}
}

// nothing is a unit that does no work: what is left is the engine's loop.
func nothing(int, int, *mysqlconn.Conn) (workload.Step, error) { return workload.Step{}, nil }

// TestLoopDoesNotAllocate: the engine's own share of a unit (clock reads,
// limits, latency recording, the snapshot) allocates nothing, amortised.
func TestLoopDoesNotAllocate(t *testing.T) {
	for _, tc := range []struct {
		name string
		edit func(*Plan)
	}{
		{"plain", func(*Plan) {}},
		{"intervals", func(p *Plan) { p.ReportInterval = time.Hour }},
		{"per-client quota", func(p *Plan) { p.Events = 0; p.PerClientEvents = func(int) uint64 { return 100000 } }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := scriptedPlan(t, &scripted{next: nothing}, 2)
			p.Events = 200000
			tc.edit(&p)
			var m0, m1 runtime.MemStats
			runtime.ReadMemStats(&m0)
			b, err := Run(context.Background(), p)
			runtime.ReadMemStats(&m1)
			if err != nil {
				t.Fatal(err)
			}
			// Connecting, folding and the results cost a few thousand
			// allocations in all; one per unit would be 200000.
			if n := m1.Mallocs - m0.Mallocs; n > b.Events/20 {
				t.Errorf("%d allocations for %d units", n, b.Events)
			}
		})
	}
}

// TestRestartedUnitTimedFromFirstAttempt: a unit restarted after an
// ignored error is one unit, timed from the start of its first attempt
// (sysbench's event latency includes its restarts).
func TestRestartedUnitTimedFromFirstAttempt(t *testing.T) {
	w := &scripted{next: func(_ int, n int, c *mysqlconn.Conn) (workload.Step, error) {
		if n == 2 {
			if err := c.Exec("DO SLEEP(0.05)"); err != nil {
				return workload.Step{}, err
			}
			return workload.Step{}, c.Exec("SELECT * FROM mysql.no_such_table")
		}
		return workload.Step{}, c.Exec("SELECT 1")
	}}
	p := scriptedPlan(t, w, 1)
	p.Events = 5
	p.Ignore = func(code uint16) bool { return code == 1146 }
	b, err := Run(context.Background(), p)
	if err != nil {
		t.Fatal(err)
	}
	h := b.Ops[0].Service
	if b.Events != 5 || h.TotalCount() != 5 || b.Tally.Retries != 1 {
		t.Fatalf("events %d, latencies %d, retries %d", b.Events, h.TotalCount(), b.Tally.Retries)
	}
	if h.Max() < 50000 || b.Clients[0].Busy < 50*time.Millisecond {
		t.Errorf("slowest unit %d µs, busy %v: the failed attempt's 50 ms are not in it", h.Max(), b.Clients[0].Busy)
	}
}

// TestAlwaysFailingUnitEndsAtTheTimeLimit: restarts stop at the deadline.
func TestAlwaysFailingUnitEndsAtTheTimeLimit(t *testing.T) {
	w := &scripted{next: func(int, int, *mysqlconn.Conn) (workload.Step, error) {
		return workload.Step{}, &mysql.MySQLError{Number: 1205, Message: "Lock wait timeout exceeded"}
	}}
	p := scriptedPlan(t, w, 2)
	p.Duration = 300 * time.Millisecond
	p.Ignore = func(code uint16) bool { return code == 1205 }
	b, err := Run(context.Background(), p)
	if err != nil {
		t.Fatal(err)
	}
	if b.Events != 0 || b.Ops[0].Errors[1205] == 0 || b.StoppedBy != "time" || b.Elapsed > time.Second {
		t.Errorf("events %d, errors %v, stopped by %q after %v", b.Events, b.Ops[0].Errors, b.StoppedBy, b.Elapsed)
	}
}
