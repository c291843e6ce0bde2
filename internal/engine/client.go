package engine

import (
	"math/rand/v2"
	"sync"
	"time"

	"github.com/goslap/goslap/internal/latency"
	"github.com/goslap/goslap/internal/mysqlconn"
	"github.com/goslap/goslap/internal/pacer"
	"github.com/goslap/goslap/internal/workload"
)

// client is one simulated client. Everything its loop writes is its own;
// the snapshot state (iv) is the one part another goroutine reads, under
// iv's lock.
type client struct {
	r    *run
	idx  int // local index
	gid  int // global id
	wc   workload.Client
	conn *mysqlconn.Conn
	slot mysqlconn.Slot // current socket, for abort

	samples []latency.Samples // per op
	errs    []opErrors        // per op, nil until an error
	events  uint64            // measured units
	busy    time.Duration     // time inside measured Next calls
	retries uint64            // measured units restarted after an ignored error

	limit  uint64 // PerClientEvents quota, 0 = none
	credit uint64 // units claimed from the Events quota, not yet run

	// Pacing: the next scheduled start and how it advances.
	rng   *rand.Rand // Poisson gaps
	mean  float64    // mean gap in ns (Clients/Rate)
	pace  pacer.Pacer
	k     uint64 // next slot on the uniform schedule
	timer *time.Timer

	begun bool // Begin ran at least once: End must run

	// warmTally is the workload's tally at the end of the warm-up, taken
	// off the results (sysbench resets its counters after a warm-up).
	warmTally workload.Tally

	ringState // the ring path's link (ringpath.go); zero on loop

	iv snapshot
	_  [64]byte // keep the next client's hot fields off this cache line
}

// opErrors is one op's ignored errors and reconnects in one client, merged
// into the op's Recorder at the end (a Recorder per client per op would be
// a 180 KB histogram each).
type opErrors struct {
	counts     map[uint16]uint64
	text       map[uint16]string
	reconnects uint64
}

func (c *client) init(r *run, idx int, wc workload.Client) {
	c.r, c.idx, c.gid, c.wc = r, idx, r.p.FirstClientID+idx, wc
	c.samples = make([]latency.Samples, len(r.ops))
	for i := range c.samples {
		c.samples[i].Paced = r.paced
	}
	if f := r.p.PerClientEvents; f != nil {
		c.limit = f(idx)
	}
	if w, ok := wc.(workload.Waiter); ok {
		w.UseWait(c.wait)
	}
	if r.paced {
		if r.p.Uniform {
			c.pace = pacer.Pacer{Rate: r.p.Rate, Clients: r.p.Clients}
		} else {
			c.rng = rand.New(rand.NewPCG(r.p.Seed, uint64(c.gid)))
			c.mean = float64(r.p.Clients) / r.p.Rate * float64(time.Second)
		}
	}
}

// run is the client's goroutine: connect and begin, wait for the release,
// loop, end. End and Close always run once Begin has.
func (c *client) run(ready *sync.WaitGroup, release <-chan struct{}, looped *sync.WaitGroup) {
	r := c.r
	r.threads.Enter(&c.slot)
	defer r.threads.Leave(&c.slot)
	defer func() {
		if c.begun {
			if err := c.wc.End(c.conn); err != nil && !r.stopped.Load() {
				r.fail(c.fatal("end", err))
			}
		}
		c.conn.Close()
		c.slot.Clear()
	}()
	defer looped.Done()
	var ok bool
	if r.p.ConnectAfterStart {
		ready.Done()
		<-release
		ok = c.start()
	} else {
		ok = c.start()
		ready.Done()
		<-release
	}
	if !ok || r.stopped.Load() {
		c.ringGone()
		r.running.Add(-1)
		return
	}
	if c.rt != nil {
		c.onRing()
	} else {
		c.loop()
	}
	r.running.Add(-1)
}

// start connects and begins; false (after recording the failure) when the
// client cannot take part.
func (c *client) start() bool {
	r := c.r
	if r.stopped.Load() {
		return false
	}
	conn, err := r.connect(c)
	if err != nil {
		r.fail(err)
		return false
	}
	c.conn = conn
	c.begun = true
	if err := c.wc.Begin(conn); err != nil {
		r.fail(c.fatal("begin", err))
		return false
	}
	return true
}

func (c *client) fatal(op string, err error) *ClientError {
	code, msg, _ := classify(err)
	return &ClientError{Client: c.gid, Op: op, Code: code, Message: msg, Err: err}
}

// nextDue advances the schedule and returns the next unit's scheduled
// start.
func (c *client) nextDue(prev time.Time) time.Time {
	if c.rng != nil {
		return prev.Add(time.Duration(c.rng.ExpFloat64() * c.mean))
	}
	d := c.pace.Due(c.idx, c.k)
	c.k++
	return c.r.base.Add(d)
}

// loop runs units until a limit, a stop or a fatal error.
func (c *client) loop() {
	r := c.r
	var (
		deadline = r.deadline
		timed    = !deadline.IsZero()
		due      time.Time
	)
	// restart is the start of a unit being restarted after an ignored
	// error: a unit is timed from its first attempt (sysbench's event
	// latency includes its restarts), zero otherwise; on the ring path's
	// coroutine mode it may be one that broke the connection before a
	// reconnect.
	var restart time.Time
	if c.co.on() {
		restart, c.co.restart = c.co.restart, time.Time{}
	}
	if r.paced {
		due = c.nextDue(r.base)
	}
	for !r.stopped.Load() {
		if r.paced {
			if timed && !due.Before(deadline) {
				r.setReason(&endedByTime)
				return
			}
			if wait := time.Until(due); wait > 0 && !c.sleep(wait) {
				return
			}
		}
		t0 := time.Now()
		if !restart.IsZero() {
			t0 = restart
		}
		measured, ok := c.admit(t0)
		if !ok {
			return
		}
		step, err := c.wc.Next(c.conn)
		t1 := time.Now()
		if err != nil {
			// The unit is restarted (same scheduled start, same claim) or
			// the client ends.
			if !measured {
				c.warmTally = c.wc.Tally()
			}
			if !c.failed(err, step.Op, measured) {
				if c.co.on() {
					c.co.restart = t0 // restarted after the reconnect (ringroutine.go)
				}
				return
			}
			restart = t0
			if timed && !t1.Before(deadline) {
				// Past the time limit a failing unit is not restarted:
				// one that always fails would never let the run end.
				r.setReason(&endedByTime)
				return
			}
			continue
		}
		restart = time.Time{}
		if !measured {
			c.warmTally = c.wc.Tally()
		} else if !c.record(step.Op, t0, t1, due) {
			return
		}
		if r.paced {
			due = c.nextDue(due)
		}
		if timed && !t1.Before(deadline) {
			r.setReason(&endedByTime)
			return
		}
		// A client with no unit left does not reconnect for one.
		if step.Reconnect && (c.limit == 0 || c.events < c.limit) && !c.redial() {
			return
		}
	}
}

// admit is the admission of a unit that starts at t0 (its first attempt's
// start when it is restarted), shared by loop and the ring path: measured
// or warm-up by the start time, and for a measured unit the client's
// PerClientEvents quota and a claim on the Events quota. A restarted unit
// keeps its first attempt's claim: credit and events only change when a
// unit succeeds (record). False: the client has no unit left (the load's
// end reason is set).
func (c *client) admit(t0 time.Time) (measured, ok bool) {
	r := c.r
	if t0.Before(r.measureFrom) {
		return false, true
	}
	if c.limit != 0 && c.events >= c.limit {
		r.setReason(&endedByEvents)
		return true, false
	}
	if c.credit == 0 && r.p.Events > 0 {
		if c.credit = r.quota.claim(); c.credit == 0 {
			r.setReason(&endedByEvents)
			return true, false
		}
	}
	return true, true
}

// record counts a measured unit of op that ran from t0 to t1 (due: its
// scheduled start when paced), shared by loop and the ring path: events,
// busy time, the claim, the op's latency and the interval snapshot. False:
// the workload named an op outside Ops(), which fails the load.
func (c *client) record(op int, t0, t1, due time.Time) bool {
	r := c.r
	if uint(op) >= uint(len(c.samples)) {
		r.fail(&ClientError{Client: c.gid, Op: "next", Code: 0,
			Message: "the workload reported an op id outside Ops()"})
		return false
	}
	d := t1.Sub(t0)
	c.events++
	c.busy += d
	if r.p.Events > 0 {
		c.credit--
	}
	if r.paced {
		c.samples[op].RecordPaced(d, t1.Sub(due), t0.Sub(due))
	} else {
		c.samples[op].Record(d)
	}
	if r.p.ReportInterval > 0 {
		c.iv.unit(d, op, c.tally())
	}
	return true
}

// sleep waits d for a scheduled start; false when the load stops meanwhile.
func (c *client) sleep(d time.Duration) bool {
	if c.timer == nil {
		c.timer = time.NewTimer(d)
	} else {
		c.timer.Reset(d)
	}
	select {
	case <-c.timer.C:
		return !c.r.stopped.Load()
	case <-c.r.stopCh:
		c.timer.Stop()
		return false
	}
}

// wait is a unit's wait inside itself (workload.Waiter): in the ring
// path's coroutine mode a suspension of the client's coroutine while its
// ring thread drives the others, elsewhere sleep's timer. False: the load
// is stopping.
func (c *client) wait(d time.Duration) bool {
	switch {
	case c.r.stopped.Load():
		return false
	case d <= 0:
		return true
	case c.co.on():
		return c.co.wait(d)
	}
	return c.sleep(d)
}

// redial replaces the connection at the workload's request (mysqlslap's
// --detach): not a broken connection, so not counted as a reconnect.
func (c *client) redial() bool {
	if c.co.on() {
		return c.co.handBack(ringRedial, 0, false) // the goroutine redials
	}
	r := c.r
	c.conn.Close()
	conn, err := r.connect(c)
	if err != nil {
		if !r.stopped.Load() {
			r.fail(err)
		}
		return false
	}
	c.conn = conn
	if err := c.wc.Begin(conn); err != nil {
		r.fail(c.fatal("begin", err))
		return false
	}
	return true
}

// failed handles an error from Next: fatal unless Plan.Ignore tolerates
// it; a tolerated error is counted (measured units only) and, when the
// connection broke, the connection re-established and begun again. True
// means restart the unit.
func (c *client) failed(err error, op int, measured bool) bool {
	restart, broken := c.tolerate(err, op, measured)
	if !restart || !broken {
		return restart
	}
	if c.co.on() {
		return c.co.handBack(ringReconnect, op, measured) // the goroutine reconnects
	}
	return c.reestablish(op, measured)
}

// tolerate is failed's verdict without the reconnect, which the ring path
// leaves to the client's goroutine: restart false when the error is fatal
// (the load fails) or the load stopped; broken when the connection must be
// re-established (reestablish) before the unit restarts.
func (c *client) tolerate(err error, op int, measured bool) (restart, broken bool) {
	r := c.r
	if r.stopped.Load() {
		return false, false
	}
	if uint(op) >= uint(len(c.samples)) {
		op = 0
	}
	code, msg, broken := classify(err)
	if !tolerated(r.p.Ignore, code, broken) {
		r.fail(&ClientError{Client: c.gid, Op: r.ops[op], Code: code, Message: msg, Err: err})
		return false, false
	}
	if measured {
		c.countError(op, code, msg)
		c.retries++
		if r.p.ReportInterval > 0 {
			c.iv.error()
		}
	}
	return true, broken
}

// reestablish replaces a broken connection after a tolerated error (with
// back-off, counted as a reconnect of op when measured) and begins it
// again; false ends the client.
func (c *client) reestablish(op int, measured bool) bool {
	r := c.r
	if uint(op) >= uint(len(c.samples)) {
		op = 0
	}
	c.conn.Close()
	conn, err := r.reconnect(c)
	if err != nil {
		if r.stopped.Load() {
			return false
		}
		if r.pastDeadline(time.Now()) {
			r.setReason(&endedByTime)
			return false
		}
		r.fail(err)
		return false
	}
	c.conn = conn
	if measured {
		c.errsFor(op).reconnects++
		if r.p.ReportInterval > 0 {
			c.iv.reconnect()
		}
	}
	if err := c.wc.Begin(conn); err != nil {
		r.fail(c.fatal("begin", err))
		return false
	}
	return true
}

func (c *client) errsFor(op int) *opErrors {
	if c.errs == nil {
		c.errs = make([]opErrors, len(c.samples))
	}
	return &c.errs[op]
}

func (c *client) countError(op int, code uint16, msg string) {
	e := c.errsFor(op)
	if e.counts == nil {
		e.counts = map[uint16]uint64{}
		e.text = map[uint16]string{}
	}
	if e.counts[code] == 0 {
		e.text[code] = msg
	}
	e.counts[code]++
}

// fold adds the client's recording of op to rec.
func (c *client) fold(op int, rec *latency.Recorder) {
	c.samples[op].Fold(rec)
	if c.errs == nil {
		return
	}
	e := &c.errs[op]
	for code, n := range e.counts {
		if rec.Errors == nil {
			rec.Errors = map[uint16]uint64{}
			rec.ErrorText = map[uint16]string{}
		}
		if rec.Errors[code] == 0 {
			rec.ErrorText[code] = e.text[code]
		}
		rec.Errors[code] += n
	}
	rec.Reconnects += e.reconnects
}

// tally is the client's statement counts since the warm-up.
func (c *client) tally() workload.Tally {
	t := c.wc.Tally()
	w := c.warmTally
	return workload.Tally{
		Reads: t.Reads - w.Reads, Writes: t.Writes - w.Writes, Other: t.Other - w.Other,
		Retries: t.Retries - w.Retries, Rollbacks: t.Rollbacks - w.Rollbacks,
	}
}
