package engine

import (
	"errors"
	"iter"
	"sync/atomic"
	"time"

	"github.com/goslap/goslap/internal/mysqlconn/ring"
)

// The ring path's coroutine mode (issue 28; docs/architecture.md, "The
// ring path"): a client whose workload is not a workload.StatementClient
// (TPC-C, whose transactions read values from replies; Lua scripts) runs
// its own unit loop, the same client.loop as on the goroutine path, as a
// coroutine (iter.Pull) on its ring thread. Its connection is in
// mysqlconn's exchanger mode: the driver's writes collect in a buffer and
// each read suspends the coroutine (a direct switch to the ring thread,
// no scheduler, no netpoller) until the ring has sent them and received
// the reply's first bytes into the driver's buffer (ring.Conn.StartRaw).
// The coroutine is created on the ring's locked OS thread and so stays on
// it (the runtime's coroutine switch keeps the thread lock).
//
// As for statement clients, the client's goroutine connects, begins, ends,
// closes and reconnects (a ring thread never dials): a broken connection
// or a workload's request for a new one (Step.Reconnect) ends the
// coroutine, which gives the client back with the unit to restart, and the
// goroutine brings it back on a new connection. A stop or the time limit
// ends the loop as on the goroutine path (the stop shuts the sockets down,
// which ends every exchange in flight); a ring that fails stops its
// coroutines (every read then fails) before giving the clients back.

// routineArrivals counts clients taken onto a ring in the coroutine mode
// (tests: which mode ran).
var routineArrivals atomic.Int64

// routineAlways puts statement clients in the coroutine mode too (tests:
// the fake-wire loads that run on each path run in this mode as well).
var routineAlways bool

// ringRedial gives a client back for the new connection its workload
// asked for (Step.Reconnect, mysqlslap's --detach): redial, then come back.
const ringRedial ringBack = ringReconnect + 1

// errRoutineStopped is a read of a coroutine its ring thread stopped (the
// ring failed): the connection is lost to it.
var errRoutineStopped = errors.New("engine: the ring path stopped the client")

// ringRoutine is a client's coroutine state, shared by its goroutine
// (between rides) and its ring thread (while it is on the ring).
type ringRoutine struct {
	c      *client
	active bool // the coroutine runs client.loop: loop's hand-backs apply

	yield func(struct{}) bool     // the coroutine's suspension
	next  func() (struct{}, bool) // the ring thread's resumption
	stop  func()

	out, in []byte      // the exchange the coroutine waits for
	res     ring.Result // its result, set before the coroutine resumes

	back    ringBack  // why the loop returned
	restart time.Time // the unit to restart after a reconnect: its first attempt's start

	waiting bool      // suspended in wait, not in Exchange
	wake    time.Time // the end of that wait
}

// Exchange is mysqlconn.Exchanger: the coroutine waits, suspended, for the
// ring thread to run the raw exchange.
func (ro *ringRoutine) Exchange(out, in []byte) (int, error) {
	ro.out, ro.in = out, in
	if !ro.yield(struct{}{}) {
		ro.out, ro.in = nil, nil
		return 0, errRoutineStopped
	}
	ro.out, ro.in = nil, nil
	res := ro.res
	ro.res = ring.Result{}
	if res.Err != nil {
		return 0, res.Err
	}
	return res.N, nil
}

// wait is client.wait in the coroutine mode: the coroutine is suspended,
// and its ring thread drives its other clients, until the ring thread
// resumes it at wake or at a stop. False: the load is stopping (or the
// ring stopped the coroutine).
func (ro *ringRoutine) wait(d time.Duration) bool {
	ro.waiting, ro.wake = true, time.Now().Add(d)
	ok := ro.yield(struct{}{})
	ro.waiting = false
	return ok && !ro.c.r.stopped.Load()
}

// body is the coroutine: the client's unit loop, then the writes no read
// carried (the ring sends them before the client leaves it).
func (ro *ringRoutine) body(yield func(struct{}) bool) {
	ro.yield, ro.active, ro.back = yield, true, ringEnd
	ro.c.loop()
	ro.active = false
	_ = ro.c.conn.FlushExchange() // a failure is the connection's: End reports it
}

// on reports whether the calling code runs in the client's coroutine.
func (ro *ringRoutine) on() bool { return ro != nil && ro.active }

// handBack ends the loop to give the client back for why (a reconnect or
// a redial) with the unit op (measured or not) to restart: false, loop's
// "end the client" (on the ring; its goroutine goes on). Past the time
// limit a failing unit is not restarted, as loop does after a reconnect.
func (ro *ringRoutine) handBack(why ringBack, op int, measured bool) bool {
	c := ro.c
	if why == ringReconnect && c.r.pastDeadline(time.Now()) {
		c.r.setReason(&endedByTime)
		return false
	}
	ro.back = why
	c.ru.op, c.ru.measured = op, measured
	return false
}

// onRingRoutine runs the client's loop on its ring thread until it is
// given back for good. A client whose connection cannot be handed over
// leaves the ring and runs loop on its goroutine.
func (c *client) onRingRoutine() {
	if c.co == nil {
		c.co = &ringRoutine{c: c}
	}
	for {
		if !c.conn.CanHandOver() {
			c.ringGone()
			c.loop()
			return
		}
		fd, deprecateEOF, err := c.conn.Handover()
		if err == nil {
			err = c.conn.SetExchanger(c.co)
		}
		if err != nil {
			c.ringGone()
			c.loop()
			return
		}
		c.rt.inbox <- ringMsg{c: c, fd: fd, deprecateEOF: deprecateEOF}
		why := <-c.back
		_ = c.conn.ClearExchanger() // a failure is the connection's: the next use reports it
		var ok bool
		switch why {
		case ringEnd:
			return
		case ringReconnect:
			ok = c.reestablish(c.ringOp, c.ringMeasured)
		case ringRedial:
			ok = c.redial()
		}
		if !ok {
			c.ringGone()
			return
		}
	}
}

// takeRoutine is a coroutine client arriving on the ring (anew, or back
// from a reconnect): its coroutine is made here, on the ring's thread.
func (t *ringThread) takeRoutine(m ringMsg) {
	c := m.c
	u := c.ru
	if u == nil {
		rc, err := t.loop.Add(m.fd, m.deprecateEOF)
		if err != nil {
			t.r.fail(errors.Join(errRingPath, err))
			t.left--
			c.back <- ringEnd
			return
		}
		u = &ringUnit{c: c, rc: rc}
		c.ru = u
		t.units = append(t.units, u)
		ringArrivals.Add(1)
		routineArrivals.Add(1)
	} else if err := u.rc.Rebind(m.fd, m.deprecateEOF); err != nil {
		t.r.fail(errors.Join(errRingPath, err))
		u.on = true
		t.leave(u, ringEnd)
		return
	}
	u.on = true
	ro := c.co
	ro.next, ro.stop = iter.Pull(ro.body)
	t.resume(u)
}

// resume runs u's coroutine until it waits for an exchange, which is
// started, or its loop is over, and the client is given back.
func (t *ringThread) resume(u *ringUnit) {
	ro := u.c.co
	for {
		if _, ok := ro.next(); !ok {
			ro.stop()
			ro.next, ro.stop = nil, nil
			t.leave(u, ro.back)
			return
		}
		if ro.waiting {
			t.waiters = append(t.waiters, u)
			return
		}
		if err := u.rc.StartRaw(ro.out, ro.in); err != nil {
			ro.res = ring.Result{Err: err}
			continue
		}
		return
	}
}

// routineDone is a coroutine client's exchange finishing (Poll's callback).
func (t *ringThread) routineDone(u *ringUnit, res ring.Result) {
	u.c.co.res = res
	t.resume(u)
}

// wakeWaiters resumes the coroutines whose wait is over at now, every one
// of them once the load is stopping. A resumed coroutine may wait again:
// it joins the waiters for a later call.
func (t *ringThread) wakeWaiters(now time.Time) {
	stopping := t.r.stopped.Load()
	due, kept := t.due[:0], 0
	for _, u := range t.waiters {
		if stopping || !u.c.co.wake.After(now) {
			due = append(due, u)
		} else {
			t.waiters[kept] = u
			kept++
		}
	}
	clear(t.waiters[kept:])
	t.waiters = t.waiters[:kept]
	for _, u := range due {
		t.resume(u)
	}
	clear(due)
	t.due = due[:0]
}

// nextWake is the earliest end of a wait; only with waiters.
func (t *ringThread) nextWake() time.Time {
	w := t.waiters[0].c.co.wake
	for _, u := range t.waiters[1:] {
		if u.c.co.wake.Before(w) {
			w = u.c.co.wake
		}
	}
	return w
}

// idle waits, with nothing in flight and clients waiting, for the first
// wait's end, a client arriving or leaving, or the load stopping.
func (t *ringThread) idle(now time.Time) {
	d := t.nextWake().Sub(now)
	if d <= 0 {
		return
	}
	if t.timer == nil {
		t.timer = time.NewTimer(d)
	} else {
		t.timer.Reset(d)
	}
	select {
	case m := <-t.inbox:
		t.timer.Stop()
		t.take(m)
	case <-t.timer.C:
	case <-t.r.stopCh:
		t.timer.Stop()
	}
}

// stopRoutine ends u's coroutine without its ring (broke: the ring failed
// and its exchanges are canceled): every read of the loop fails, the loop
// ends (the load is failing, so no error is tolerated) and its stop
// returns.
func (t *ringThread) stopRoutine(u *ringUnit) {
	if ro := u.c.co; ro != nil && ro.stop != nil {
		ro.stop()
		ro.next, ro.stop = nil, nil
	}
}

// errRingPath prefixes the ring path's own failures.
var errRingPath = errors.New("engine: the ring path")
