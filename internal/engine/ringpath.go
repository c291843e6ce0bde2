package engine

import (
	"errors"
	"fmt"
	"os"
	"runtime"
	"sync"
	"sync/atomic"
	"time"

	"github.com/go-sql-driver/mysql"

	"github.com/goslap/goslap/internal/mysqlconn"
	"github.com/goslap/goslap/internal/mysqlconn/ring"
	"github.com/goslap/goslap/internal/workload"
)

// The ring path (docs/architecture.md, "The ring path"; issue 28): the
// statements of clients whose units are statements that never depend on an
// earlier reply (workload.StatementClient: mysqlslap's lists, sysbench's
// built-in events) are sent by a few locked OS threads, each driving its
// share of the connections on one io_uring (ring.Loop), instead of one
// goroutine per client parked in the netpoller per reply. The workload is
// called once per statement (Statement takes the reply and gives the next
// statement); a unit of several statements goes one statement at a time,
// each reply awaited.
//
// A client's goroutine still connects, begins, ends and closes, and
// reconnects after a broken connection (a ring thread never dials: one
// dial would stall every connection of its ring). In between it hands its
// connection's descriptor (mysqlconn.Conn.Handover) to its ring thread
// through the thread's inbox and waits on its back channel. The ring
// thread runs the client's units with the admission and recording loop
// uses (client.admit, client.record, client.tolerate), so quotas, warm-up,
// intervals, error counts and end reasons cannot differ between the paths.
//
// ring.New refuses where io_uring is unavailable (every system but Linux,
// old kernels, seccomp): the load then keeps the goroutine path.

// RingEnv names the environment variable that puts every eligible load on
// the ring path ("1") or none ("0"); unset, the measured default range of
// ringchoice.go decides.
const RingEnv = "GOSLAP_RING"

// ringPerThread is the fewest clients a ring thread drives: a load of n
// clients gets min(GOMAXPROCS, ceil(n/ringPerThread)) ring threads
// (ringThreads; statement loads of RaisedRingFrom to RaisedRingBelow-1
// clients get fewer: ringLayout), so on 2 cores both have one from 3
// clients. It was 4
// (one ring up to 4 clients) until TPC-C took the coroutine mode from 4
// connections: there two rings of two had 1.17-1.38x tpcc_start's tpmC
// against one ring's 0.96-1.02x in the two sets that ran both
// (BENCHMARKS.md, "TPC-C from 4 connections on two rings"). Statement
// loads start at 7 clients (RingFrom), where on 2 cores it makes no
// difference; on more cores a ring load of 8 clients or more has up to
// twice the rings it had then, which was not measured (this machine has
// 2).
//
// Why not one ring for all (it was 1024 per thread: the probe ran 1000 on
// one ring at 0.35x mariadb-slap's CPU): one thread does every client's
// sends and receives in turn, so while it works through a batch the server
// threads that already answered wait for it, and on a machine whose cores
// the server shares one core sits idle meanwhile (perf sched at the key
// load's 16 clients: 30-135 us at a time; 9.6 % idle over whole runs
// against mariadb-slap's 3.0 %, a ring per core's 5.1 %). With a ring per
// core, oltp_point_select and oltp_read_only at 8 clients went from
// 0.84-0.98x sysbench's tps to 0.98-1.17x (three sets, both servers), at
// 0.67-0.87x its CPU per transaction instead of 0.63-0.74x (fewer
// completions per io_uring_enter); from 64 clients tps is level.
// BENCHMARKS.md, "A ring per core".
const ringPerThread = 2

// ringWait bounds one wait of a ring thread for completions, so it looks
// at its inbox between them even when every statement in flight is slow.
const ringWait = 100 * time.Millisecond

// ringBack is why a ring thread gives a client back to its goroutine.
type ringBack uint8

const (
	ringEnd       ringBack = iota // the client's loop is over: End and close
	ringReconnect                 // the connection broke: reconnect, begin, come back
)

// ringMsg is a client arriving on its ring thread with the descriptor of
// its (new) connection, or (gone) leaving it for good without running on
// it (it could not start, or its connection cannot be handed over).
type ringMsg struct {
	c            *client
	fd           int
	deprecateEOF bool
	gone         bool
}

// ringThread is one OS thread's ring and the clients assigned to it.
type ringThread struct {
	r      *run
	share  int          // clients assigned
	raised bool         // runs raisedRingSteps above the process's priority
	left   int          // assigned clients not yet gone for good
	inbox  chan ringMsg // arrivals and departures (capacity share: one each)
	loop   *ring.Loop
	units  []*ringUnit // by ring.Conn ID
	now    time.Time   // the reaped batch's time, zero until its first completion
	done   func(*ring.Conn, ring.Result)

	// The coroutine mode's clients in a wait (ringRoutine.wait), and
	// wakeWaiters' and idle's reused state.
	waiters, due []*ringUnit
	timer        *time.Timer
}

// ringUnit is a client's state on its ring thread, which alone uses it.
type ringUnit struct {
	c        *client
	sc       workload.StatementClient
	rc       *ring.Conn
	on       bool      // the client is on the ring (not given back)
	pkt      []byte    // header and payload of the statement in flight or next (the kernel reads it)
	t0       time.Time // the unit's start (its first attempt's)
	restart  time.Time // non-zero: the unit is restarted after an ignored error
	measured bool
	op       int // the running unit's
	// The next unit, whose first statement (unless skip) is in pkt.
	nextOp   int
	nextSkip bool
}

// newRing is ring.New (tests: a system without io_uring).
var newRing = ring.New

// ringArrivals counts clients taken onto a ring (tests: which path ran).
var ringArrivals atomic.Int64

// RingClients is the number of clients taken onto the ring path since the
// process started: how a front end's tests tell which path a load ran on.
func RingClients() int64 { return ringArrivals.Load() }

// ringWanted reports whether the load may run on the ring path: asked for,
// unpaced (pacing stays on loop) and a plain connector. Clients that give
// their units as statements run as such; the others run their own loop as
// a coroutine on the ring (ringroutine.go), in a range of its own
// (ringchoice.go). kind is how the clients would run there (startRings'
// layout depends on it).
func (r *run) ringWanted() (wanted bool, kind ringKind) {
	if r.paced || !r.p.Connector.Plain() {
		return false, 0
	}
	kind = ringStatements
	threaded := true // every client claims the threaded range (workload.ThreadedClient)
	for i := range r.clients {
		if tc, ok := r.clients[i].wc.(workload.ThreadedClient); !ok || !tc.Threaded() {
			threaded = false
		}
		if _, ok := r.clients[i].wc.(workload.StatementClient); ok {
			continue
		}
		// The coroutine mode's load (ringroutine.go); by default only
		// for clients that claim it.
		kind = ringRoutines
		if cc, ok := r.clients[i].wc.(workload.CoroutineClient); !ok || !cc.Coroutine() {
			kind = ringForcedOnly
			break
		}
	}
	if kind == ringRoutines && threaded {
		kind = ringThreadedRoutines
	}
	return ringChosen(len(r.clients), os.Getenv(RingEnv), r.p.ThreadPerClientBelow != nil, kind), kind
}

// ringThreads is the number of ring threads for a load of clients with
// procs Ps: one per ringPerThread clients, at most procs.
func ringThreads(clients, procs int) int {
	return min(procs, (clients+ringPerThread-1)/ringPerThread)
}

// The raised ring (issue 28; BENCHMARKS.md, "One ring at a raised
// priority from 16 clients"): a load of RaisedRingFrom to RaisedRingBelow-1
// clients whose units are all statements runs on one ring thread per two
// Ps instead of one per P, each raised raisedRingSteps nice steps above
// the process, where the process may raise a thread (CAP_SYS_NICE, or an
// RLIMIT_NICE that allows it); where it may not, the load keeps a ring per
// P at the process's priority.
//
// Measured on 2 cores, both servers, medians of 9-11 alternated runs:
// mysqlslap's key load at 16 clients 0.75-0.89x mariadb-slap's wall in six
// default-server sets (median 0.81x; a ring per P 0.82-0.87x in the four
// sets that ran it too), 0.78-0.85x on the tuned server (0.84-0.91x), at
// 0.50-0.62x its CPU (0.56-0.66x); at 32 clients 0.80x (0.83-0.85x). Both
// the client's CPU per query and the server's fall (server 2.12-2.15 s
// against 2.24-2.39 s per 100000 queries in one set). One ring alone
// (probes) saved the client's CPU (a wake-up of a server thread cost about
// 1.9 us from one ring against 2.9 us from two, under perf) but idled the
// cores more and was 0.82-0.88x; raised, the server's CPU fell too
// (2.08-2.12 s against 2.30-2.33 s), for reasons not established. Probes
// of the steps: 3 gained little (0.82x), 7 cost CPU (0.89x), 10 more
// (1.07-1.10x); two raised rings 0.93-0.95x. oltp_* at 16 and 32 threads:
// tps level (16: 1.11-1.23x sysbench's against 1.09-1.28x; 32: 1.22-1.35x
// against 1.23-1.33x) at the same or lower CPU. At 8 clients one raised
// ring was worse (key load 0.91x against 0.80x; oltp_point_select 0.95x
// sysbench's tps against 1.16x), so fewer than 16 keep a ring per P. At
// 64 the key load was level and oltp_* lower in 5 of 6 row-server cells
// (ro-64 tuned 1.21x against 1.40x), at 128 the key load worse
// (0.77-0.84x against 0.72-0.76x), so from 33 the load keeps a ring per
// P. At 12 and 48 (BENCHMARKS.md, "The raised ring at 12 and 48
// clients") the raised ring won the key load in two of four row-server
// cells and was level in two, but oltp_* was mixed (lower tps in 6 of 12
// cells, ps-12 0.99x sysbench's on the default server): the range stays
// 16-32. The coroutine mode (TPC-C, Lua) keeps a ring per P: not
// measured. More than 2 cores were not measured; one ring per two Ps
// keeps each ring's share of the machine as measured.
const (
	RaisedRingFrom  = 16
	RaisedRingBelow = 33
	raisedRingSteps = 5
)

// ringLayout is the ring threads for a load of clients of kind with procs
// Ps, and whether they run raised. mayRaise (whether the process may
// raise a thread) is asked only for a load the raised ring is for.
func ringLayout(clients, procs int, kind ringKind, mayRaise func() bool) (threads int, raised bool) {
	if kind == ringStatements && clients >= RaisedRingFrom && clients < RaisedRingBelow && mayRaise() {
		return max(1, procs/2), true
	}
	return ringThreads(clients, procs), false
}

// mayRaise reports whether this process may raise a thread's priority:
// asked once, by raising a throwaway thread.
var mayRaise = sync.OnceValue(func() bool {
	ok := make(chan bool)
	go func() {
		// Never unlocked: the thread ends with this goroutine, so no
		// other goroutine runs at its priority.
		runtime.LockOSThread()
		ok <- raiseThreadPriority(raisedRingSteps) == nil
	}()
	return <-ok
})

// startRings starts the ring threads for clients of kind and assigns the
// clients to them in id order; false (nothing started) where io_uring is
// unavailable.
func (r *run) startRings(kind ringKind) bool {
	clients := len(r.clients)
	n, raised := ringLayout(clients, runtime.GOMAXPROCS(0), kind, mayRaise)
	threads := make([]*ringThread, n)
	ready := make(chan error, n)
	for k := range threads {
		lo, hi := k*clients/n, (k+1)*clients/n
		t := &ringThread{r: r, share: hi - lo, left: hi - lo, inbox: make(chan ringMsg, hi-lo), raised: raised}
		t.done = t.completed
		threads[k] = t
		for i := lo; i < hi; i++ {
			r.clients[i].rt = t
			r.clients[i].back = make(chan ringBack, 1)
		}
		r.ringsDone.Add(1)
		go func() {
			defer r.ringsDone.Done()
			t.serve(ready)
		}()
	}
	var failed bool
	for range threads {
		if err := <-ready; err != nil {
			failed = true
		}
	}
	if !failed {
		return true
	}
	// The threads that started end once their clients are all gone.
	for i := range r.clients {
		c := &r.clients[i]
		c.ringGone()
		c.back = nil
	}
	r.ringsDone.Wait()
	return false
}

// onRing runs the client's units on its ring thread until it is given back
// for good. A client whose connection cannot be handed over (TLS
// negotiated, or its workload gives no statements now) leaves the ring and
// runs loop instead; a restarted unit is then timed from its new start.
func (c *client) onRing() {
	sc, ok := c.wc.(workload.StatementClient)
	if !ok || routineAlways {
		c.onRingRoutine() // ringroutine.go
		return
	}
	for {
		if !sc.Statements() || !c.conn.CanHandOver() {
			c.ringGone()
			c.loop()
			return
		}
		fd, deprecateEOF, err := c.conn.Handover()
		if err != nil {
			c.ringGone()
			c.loop()
			return
		}
		c.rt.inbox <- ringMsg{c: c, fd: fd, deprecateEOF: deprecateEOF}
		if <-c.back == ringEnd {
			return
		}
		if !c.reestablish(c.ringOp, c.ringMeasured) {
			c.ringGone()
			return
		}
	}
}

// ringGone tells the client's ring thread, if any, that it will not
// (again) run on it.
func (c *client) ringGone() {
	if c.rt != nil {
		c.rt.inbox <- ringMsg{c: c, gone: true}
		c.rt = nil
	}
}

// serve is a ring thread: its ring on a locked OS thread, reporting to
// ready whether io_uring is there, then its clients' units until every one
// of them is gone.
func (t *ringThread) serve(ready chan<- error) {
	runtime.LockOSThread()
	if t.raised {
		// Never unlocked: the thread ends with this goroutine, so no other
		// goroutine runs at its priority. Should the raise fail after all
		// (mayRaise said it would not), the ring runs unraised.
		_ = raiseThreadPriority(raisedRingSteps)
	} else {
		defer runtime.UnlockOSThread()
	}
	// The ring's waits are raw system calls that keep the thread's P.
	mysqlconn.HoldPs(1)
	defer mysqlconn.HoldPs(-1)
	l, err := newRing(t.share)
	ready <- err
	if err != nil {
		return
	}
	t.loop = l
	for t.left > 0 {
		if l.Busy() == 0 && len(t.waiters) == 0 {
			// Nothing in flight: only a client arriving or leaving changes
			// that, and each one does, within its own bounded connect.
			t.take(<-t.inbox)
		}
		for more := true; more && t.left > 0; {
			select {
			case m := <-t.inbox:
				t.take(m)
			default:
				more = false
			}
		}
		wait := ringWait
		if len(t.waiters) > 0 {
			now := time.Now()
			t.wakeWaiters(now)
			if l.Busy() == 0 {
				if len(t.waiters) > 0 {
					t.idle(now)
				}
				continue
			}
			if len(t.waiters) > 0 {
				wait = min(wait, t.nextWake().Sub(now))
			}
		}
		if l.Busy() == 0 {
			continue
		}
		t.now = time.Time{}
		if err := l.Poll(1, wait, t.done); err != nil {
			t.r.fail(fmt.Errorf("engine: the ring path: %w", err))
			t.broke()
			return
		}
	}
	if err := l.Close(); err != nil && !t.r.stopped.Load() {
		t.r.fail(fmt.Errorf("engine: the ring path: %w", err))
	}
}

// broke ends a thread whose ring failed (the load is failing): its
// exchanges canceled, every client given back, later arrivals too.
func (t *ringThread) broke() {
	_ = t.loop.Close()
	for _, u := range t.units {
		if u.on {
			t.stopRoutine(u)
			t.leave(u, ringEnd)
		}
	}
	for t.left > 0 {
		m := <-t.inbox
		if m.gone {
			t.left--
			continue
		}
		t.left--
		m.c.ringOp, m.c.ringMeasured = 0, false
		m.c.back <- ringEnd
	}
}

// take is a client arriving on (or leaving) the ring.
func (t *ringThread) take(m ringMsg) {
	if m.gone {
		t.left--
		return
	}
	c := m.c
	if c.co != nil {
		t.takeRoutine(m) // ringroutine.go
		return
	}
	u := c.ru
	if u == nil {
		rc, err := t.loop.Add(m.fd, m.deprecateEOF)
		if err != nil {
			t.r.fail(fmt.Errorf("engine: the ring path: %w", err))
			t.left--
			c.back <- ringEnd
			return
		}
		u = &ringUnit{c: c, sc: c.wc.(workload.StatementClient), rc: rc, pkt: make([]byte, 4, 256)}
		c.ru = u
		t.units = append(t.units, u)
		ringArrivals.Add(1)
		// The first unit's statement: drawn before its admission, which
		// no workload can observe.
		var st workload.StatementStep
		u.pkt, st = u.sc.Statement(u.pkt[:4], workload.Reply{})
		u.nextOp, u.nextSkip = st.Op, st.Skip
	} else if err := u.rc.Rebind(m.fd, m.deprecateEOF); err != nil {
		t.r.fail(fmt.Errorf("engine: the ring path: %w", err))
		u.on = true
		t.leave(u, ringEnd)
		return
	} else if !u.nextSkip {
		// The restarted unit's first statement, for the new connection.
		u.pkt = u.sc.Again(u.pkt[:4])
	}
	u.on = true
	t.start(u, time.Now())
}

// leave gives u's client back to its goroutine.
func (t *ringThread) leave(u *ringUnit, why ringBack) {
	u.on = false
	if why == ringEnd {
		t.left--
	}
	c := u.c
	c.ringOp, c.ringMeasured = u.op, u.measured
	c.back <- why
}

// start starts u's next unit at now (or restarts the one an ignored error
// ended), or gives the client back when it has none left. A unit the
// workload skips is done at once, as loop does with Next's.
func (t *ringThread) start(u *ringUnit, now time.Time) {
	r, c := t.r, u.c
	for {
		if r.stopped.Load() {
			t.leave(u, ringEnd)
			return
		}
		t0 := now
		if !u.restart.IsZero() {
			t0 = u.restart
		}
		measured, ok := c.admit(t0)
		if !ok {
			t.leave(u, ringEnd)
			return
		}
		u.t0, u.measured, u.op = t0, measured, u.nextOp
		if !u.nextSkip {
			t.send(u, now)
			return
		}
		now = time.Now()
		if !t.succeeded(u, now) {
			return
		}
		var st workload.StatementStep
		u.pkt, st = u.sc.Statement(u.pkt[:4], workload.Reply{})
		u.nextOp, u.nextSkip = st.Op, st.Skip
	}
}

// send starts the exchange of the statement in u.pkt; a connection that
// cannot take it is that statement's reply.
func (t *ringThread) send(u *ringUnit, now time.Time) {
	pkt := u.pkt
	n := len(pkt) - 4
	pkt[0], pkt[1], pkt[2], pkt[3] = byte(n), byte(n>>8), byte(n>>16), 0
	if err := u.rc.Start(pkt); err != nil {
		t.replied(u, workload.Reply{Err: wireError(err)}, now)
	}
}

// completed is Poll's callback: u's exchange finished.
func (t *ringThread) completed(rc *ring.Conn, res ring.Result) {
	if u := t.units[rc.ID()]; u.c.co != nil {
		t.routineDone(u, res) // ringroutine.go
		return
	}
	if t.now.IsZero() {
		// One clock reading per reaped batch: the end of every unit in it
		// and the start of the units it starts.
		t.now = time.Now()
	}
	t.replied(t.units[rc.ID()], workload.Reply{Rows: res.Rows, Affected: res.Affected, Err: wireError(res.Err)}, t.now)
}

// replied gives the workload the reply to u's statement at now, in the
// one call per statement that also takes the next statement: the unit
// goes on with it, or it ended (recorded, or failed) and the next unit
// starts with it.
func (t *ringThread) replied(u *ringUnit, reply workload.Reply, now time.Time) {
	var st workload.StatementStep
	u.pkt, st = u.sc.Statement(u.pkt[:4], reply)
	if !st.Ended {
		t.send(u, now)
		return
	}
	u.nextOp, u.nextSkip = st.Op, st.Skip
	if st.Err != nil {
		t.failed(u, st.Err, now)
		return
	}
	if t.succeeded(u, now) {
		t.start(u, now)
	}
}

// succeeded records u's unit that ended at now; false when the client is
// given back (a limit, the time limit, a fatal error).
func (t *ringThread) succeeded(u *ringUnit, now time.Time) bool {
	c := u.c
	u.restart = time.Time{}
	if !u.measured {
		c.warmTally = c.wc.Tally()
	} else if !c.record(u.op, u.t0, now, time.Time{}) {
		t.leave(u, ringEnd)
		return false
	}
	if t.r.pastDeadline(now) {
		t.r.setReason(&endedByTime)
		t.leave(u, ringEnd)
		return false
	}
	return true
}

// failed is u's unit ending in err (Statement's) at now, as loop's
// error branch: fatal or counted and restarted, the restart after a
// reconnect by the client's goroutine when the connection broke.
func (t *ringThread) failed(u *ringUnit, err error, now time.Time) {
	c := u.c
	if !u.measured {
		c.warmTally = c.wc.Tally()
	}
	restart, broken := c.tolerate(err, u.op, u.measured)
	if !restart {
		t.leave(u, ringEnd)
		return
	}
	u.restart = u.t0
	if t.r.pastDeadline(now) {
		// Past the time limit a failing unit is not restarted.
		t.r.setReason(&endedByTime)
		t.leave(u, ringEnd)
		return
	}
	if broken {
		t.leave(u, ringReconnect)
		return
	}
	t.start(u, now)
}

// Errors of a broken exchange as the driver path words them
// (mysqlconn.connectionFailure): a failed send is the server gone, any
// other break a lost connection.
var (
	errRingGone = &mysql.MySQLError{Number: crServerGoneError, Message: "Server has gone away"}
	errRingLost = &mysql.MySQLError{Number: crServerLost, Message: "Lost connection to server during query"}
)

// wireError is an exchange's error as the workload and classify see it:
// the server's ERR as it is, a broken connection as the driver path's
// client error.
func wireError(err error) error {
	if err == nil {
		// Before ce is declared: errors.As(&ce) moves it to the heap, an
		// allocation per successful statement otherwise.
		return nil
	}
	var ce *ring.ConnError
	if !errors.As(err, &ce) {
		return err
	}
	if ce.Op == "send" {
		return errRingGone
	}
	return errRingLost
}

// ringState is a client's link to the ring path; nil fields keep it on
// loop.
type ringState struct {
	rt           *ringThread
	back         chan ringBack
	ru           *ringUnit    // owned by rt
	co           *ringRoutine // the coroutine mode's (ringroutine.go), nil for statement clients
	ringOp       int          // the unit that broke the connection, for reestablish
	ringMeasured bool
}
