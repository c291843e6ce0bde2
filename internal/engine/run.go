package engine

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/goslap/goslap/internal/latency"
	"github.com/goslap/goslap/internal/mysqlconn"
	"github.com/goslap/goslap/internal/results"
)

// Connect limits, as mysqlslap: 10 attempts 100 ms apart; at most
// connectParallel dials in flight, below MariaDB's smallest automatic
// back_log (80) and Linux's somaxconn: thousands of simultaneous connects
// overflow the listen backlog (EAGAIN on a Unix socket, time-outs on TCP),
// and the server accepts them one by one anyway.
const (
	connectAttempts = 10
	connectBackoff  = 100 * time.Millisecond
	connectParallel = 64
)

// Reconnect back-off after a broken connection: 10 ms doubling up to 1 s,
// for at most reconnectFor.
const (
	reconnectFirst = 10 * time.Millisecond
	reconnectMax   = time.Second
	reconnectFor   = 60 * time.Second
)

// abortGrace is how long a stopped load waits for clients to finish their
// unit before it closes their sockets and KILLs their statements.
const abortGrace = time.Second

// errStopped is a connect abandoned because the load was stopped; it is
// never returned by Run (the cause of the stop is).
var errStopped = errors.New("engine: stopped")

// Reasons a load ended (results.Benchmark.StoppedBy).
const (
	stopEvents    = "events"
	stopTime      = "time"
	stopInterrupt = "interrupt"
	stopError     = "error"
)

// run is one Run's shared state. Clients only read it during the load,
// except for the stop flag (written once) and the quota.
type run struct {
	p       *Plan
	ops     []string
	paced   bool
	clients []client

	// Set before the clients are released; read-only afterwards.
	base        time.Time // the release
	measureFrom time.Time // base + Warmup
	deadline    time.Time // zero without Duration

	_       [64]byte
	stopped atomic.Bool // set once: clients check it between units
	_       [64]byte
	quota   quota
	running atomic.Int64 // clients still in their loop (snapshots)
	// ended is why the client that stopped last stopped ("events" or
	// "time"): with per-client quotas one client's quota does not end the
	// load, the last client to stop does.
	ended atomic.Pointer[string]

	stopOnce sync.Once
	stopCh   chan struct{} // closed with stopped: wakes paced sleeps
	failMu   sync.Mutex
	failure  error
	failed   chan struct{} // closed on the first failure

	dials   chan struct{}      // one token per connect in flight
	threads *mysqlconn.Threads // the clients' path: thread per client or netpoller
	// ringsDone: the ring threads (ringpath.go) have ended, once every
	// client has left them.
	ringsDone sync.WaitGroup
}

// Run runs one iteration of p's workload and returns its measurements.
//
// It returns a nil Benchmark only when nothing was measured because the
// plan is invalid or a client could not connect or begin (*ConnectError,
// *ClientError with Op "begin"). A load stopped by ctx returns the
// Benchmark so far with ErrInterrupted; one stopped by a client's fatal
// error returns it with that *ClientError or *ConnectError
// (StoppedBy "error").
func Run(ctx context.Context, p Plan) (*results.Benchmark, error) {
	if err := p.check(); err != nil {
		return nil, err
	}
	r := &run{
		p:      &p,
		ops:    p.Workload.Ops(),
		paced:  p.Rate > 0,
		stopCh: make(chan struct{}),
		failed: make(chan struct{}),
		dials:  make(chan struct{}, connectParallel),
	}
	if p.Events > 0 {
		r.quota.init(p.Events, p.Clients)
	}
	r.clients = make([]client, p.Clients)
	for i := range r.clients {
		c := &r.clients[i]
		wc := p.Load.Client(p.FirstClientID + i)
		if wc == nil {
			return nil, fmt.Errorf("engine: the workload's load has no client %d", p.FirstClientID+i)
		}
		c.init(r, i, wc)
		if c.limit == 0 && p.Events == 0 && p.Duration <= 0 {
			return nil, fmt.Errorf("engine: nothing limits client %d: PerClientEvents gives it no quota and there is no Events or Duration", i)
		}
	}

	var rep *reporter // nil without intervals
	if p.ReportInterval > 0 {
		var err error
		if rep, err = newReporter(r); err != nil {
			return nil, err
		}
		defer rep.close()
	}

	below := -1
	if p.ThreadPerClientBelow != nil {
		below = *p.ThreadPerClientBelow
	}
	if wanted, kind := r.ringWanted(); wanted && r.startRings(kind) {
		// The clients' goroutines only connect, begin and end.
		below = 0
		// After every client's goroutine: the last leaves the rings.
		defer r.ringsDone.Wait()
	} else {
		below = threadBelow(p.Clients, kind, below)
	}
	r.threads = p.Connector.StartThreads(p.Clients, below)
	defer r.threads.Stop()
	var ready, looped, done sync.WaitGroup
	release := make(chan struct{})
	ready.Add(p.Clients)
	looped.Add(p.Clients)
	done.Add(p.Clients)
	for i := range r.clients {
		go func(c *client) {
			defer done.Done()
			c.run(&ready, release, &looped)
		}(&r.clients[i])
	}
	allReady := signal(&ready)
	allLooped := signal(&looped)
	finished := signal(&done)

	// Before the clock too, a stop must not wait on a client stuck in a
	// Begin (a lock): abort breaks what is still busy after the grace.
	select {
	case <-allReady:
	case <-r.failed:
		r.abort(allReady)
	case <-ctx.Done():
		r.stop()
		r.abort(allReady)
	}
	if r.stopped.Load() {
		// A client failed to connect or begin, or ctx ended: nobody is
		// measured. The clients end and close what they opened.
		close(release)
		<-finished
		if err := r.err(); err != nil {
			return nil, err
		}
		return r.benchmark(time.Now(), stopInterrupt), ErrInterrupted
	}
	if err := r.awaitStart(ctx); err != nil {
		close(release)
		<-finished
		return nil, err
	}

	r.base = time.Now()
	r.measureFrom = r.base.Add(p.Warmup)
	if p.Duration > 0 {
		r.deadline = r.measureFrom.Add(p.Duration)
	}
	r.running.Store(int64(p.Clients))
	close(release)

	rep.start()

	var end time.Time
	var outcome error
	select {
	case <-allLooped:
		end = time.Now()
	case <-r.failed:
		end = time.Now()
		r.abort(finished)
	case <-ctx.Done():
		end = time.Now()
		r.stop()
		r.abort(finished)
		outcome = ErrInterrupted
	}
	rep.stop()
	<-finished
	reason := stopEvents
	if s := r.ended.Load(); s != nil {
		reason = *s
	}
	if outcome != nil {
		reason = stopInterrupt
	}
	if err := r.err(); err != nil {
		// A fatal error wins over an interrupt that came after it.
		outcome = err
		reason = stopError
	}
	b := r.benchmark(end, reason)
	if rep != nil {
		b.Intervals = rep.intervals
	}
	return b, outcome
}

var (
	endedByEvents = stopEvents
	endedByTime   = stopTime
)

// setReason records why a client's loop ended; the last one wins.
func (r *run) setReason(s *string) { r.ended.Store(s) }

// signal returns a channel closed when wg is done.
func signal(wg *sync.WaitGroup) <-chan struct{} {
	ch := make(chan struct{})
	go func() { wg.Wait(); close(ch) }()
	return ch
}

func (r *run) stop() {
	r.stopOnce.Do(func() {
		r.stopped.Store(true)
		close(r.stopCh)
	})
}

// fail records the first fatal error and stops every client. Errors after
// a stop are consequences of it, not causes.
func (r *run) fail(err error) {
	r.failMu.Lock()
	defer r.failMu.Unlock()
	if r.failure != nil || r.stopped.Load() {
		r.stop()
		return
	}
	r.failure = err
	r.stop()
	close(r.failed)
}

func (r *run) err() error {
	r.failMu.Lock()
	defer r.failMu.Unlock()
	return r.failure
}

// abort gives the clients a moment to notice the stop, then closes the
// sockets of those still inside a statement (which wakes them) and KILLs
// their statements so the server releases their locks; then waits until
// finished is closed.
func (r *run) abort(finished <-chan struct{}) {
	select {
	case <-finished:
		return
	case <-time.After(abortGrace):
	}
	var ids []uint32
	for i := range r.clients {
		if id := r.clients[i].slot.Break(); id != 0 {
			ids = append(ids, id)
		}
	}
	r.kill(ids)
	<-finished
}

// killers bounds the connections abort KILLs through. One KILL of a
// thread in SLEEP() took MariaDB 10.11 2.0 s instead of 2 ms in one of 8
// runs of TestInterrupt/in_a_long_statement (-race, -count=8), so they run
// side by side rather than one after another.
const killers = 4

// kill KILLs the server threads ids, best effort, and returns when done.
func (r *run) kill(ids []uint32) {
	work := make(chan uint32, len(ids))
	for _, id := range ids {
		work <- id
	}
	close(work)
	var wg sync.WaitGroup
	for range min(killers, len(ids)) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			killer, err := r.p.Connector.Connect(nil)
			if err != nil {
				return
			}
			defer killer.Close()
			for id := range work {
				_ = killer.Exec("KILL " + strconv.FormatUint(uint64(id), 10))
			}
		}()
	}
	wg.Wait()
}

// reconnect re-opens a broken connection with back-off until it succeeds,
// the load stops or passes its deadline, or reconnectFor has passed.
func (r *run) reconnect(c *client) (*mysqlconn.Conn, error) {
	wait := reconnectFirst
	giveUp := time.Now().Add(reconnectFor)
	for {
		r.dials <- struct{}{}
		conn, err := r.p.Connector.Connect(&c.slot)
		<-r.dials
		if err == nil {
			return conn, nil
		}
		now := time.Now()
		if r.stopped.Load() || now.After(giveUp) || r.pastDeadline(now) {
			code, msg := r.p.Connector.ConnectError(err)
			return nil, &ConnectError{Client: c.gid, Code: code, Message: msg}
		}
		select {
		case <-time.After(wait):
		case <-r.stopCh:
		}
		wait = min(wait*2, reconnectMax)
	}
}

func (r *run) pastDeadline(t time.Time) bool {
	return !r.deadline.IsZero() && !t.Before(r.deadline)
}

// benchmark folds the finished clients' recordings into the results.
func (r *run) benchmark(end time.Time, reason string) *results.Benchmark {
	b := &results.Benchmark{
		Point:     r.p.Iteration,
		StoppedBy: reason,
		Ops:       make([]results.Op, len(r.ops)),
		Clients:   make([]results.Client, len(r.clients)),
	}
	start := r.measureFrom
	if start.IsZero() || end.Before(start) {
		start = end
	}
	b.Start, b.End, b.Elapsed = start.Round(0), end.Round(0), end.Sub(start)
	for op, name := range r.ops {
		rec := latency.NewRecorder(r.paced)
		for i := range r.clients {
			r.clients[i].fold(op, rec)
		}
		b.Ops[op] = results.Op{Name: name, Recorder: rec}
	}
	for i := range r.clients {
		c := &r.clients[i]
		b.Events += c.events
		b.Clients[i] = results.Client{Events: c.events, Busy: c.busy}
		if c.wc != nil {
			b.Tally.Add(c.tally())
		}
		b.Tally.Retries += c.retries
	}
	return b
}
