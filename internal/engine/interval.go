package engine

import (
	"fmt"
	"sync"
	"time"

	hdrhistogram "github.com/HdrHistogram/hdrhistogram-go"

	"github.com/goslap/goslap/internal/latency"
	"github.com/goslap/goslap/internal/results"
	"github.com/goslap/goslap/internal/workload"
)

// snapshot is what one client did since the reporter last looked. The
// client takes the lock once per measured unit; only the reporter ever
// contends for it, once per interval, so it costs an uncontended
// lock/unlock (a few ns against a unit's round trip of tens of µs). A
// pair of atomics would not do: the interval's latencies are a buffer,
// swapped for an empty one (double buffering) under the lock.
type snapshot struct {
	mu         sync.Mutex
	events     uint64
	errors     uint64
	reconnects uint64
	tally      workload.Tally // the client's running tally at its last unit
	micros     []uint32       // service times since the last snapshot
	ops        []uint16       // the op of each of micros
}

func (s *snapshot) unit(d time.Duration, op int, t workload.Tally) {
	s.mu.Lock()
	s.events++
	s.tally = t
	s.micros = append(s.micros, uint32(latency.Micros(d)))
	s.ops = append(s.ops, uint16(op))
	s.mu.Unlock()
}

func (s *snapshot) error() {
	s.mu.Lock()
	s.errors++
	s.mu.Unlock()
}

func (s *snapshot) reconnect() {
	s.mu.Lock()
	s.reconnects++
	s.mu.Unlock()
}

// reporter takes a snapshot of every client each ReportInterval of the
// measured load and hands it to Plan.OnInterval.
type reporter struct {
	r         *run
	tick      *ticker // what the loop waits on (no runtime timer: see ticker)
	done      chan struct{}
	intervals []results.Interval

	spare    []([]uint32)     // per client: the buffer to swap in next
	spareOps [][]uint16       // per client: the same for the op ids
	tally    []workload.Tally // per client: tally at the previous snapshot
	hist     *hdrhistogram.Histogram
	opHist   []*hdrhistogram.Histogram
}

// newReporter prepares the reporter before the load starts (its ticker
// needs descriptors, which may be lacking); start runs it.
func newReporter(r *run) (*reporter, error) {
	tick, err := newTicker()
	if err != nil {
		return nil, fmt.Errorf("engine: the interval reporter's wake-up pipe: %w", err)
	}
	rep := &reporter{
		r:        r,
		tick:     tick,
		done:     make(chan struct{}),
		spare:    make([][]uint32, len(r.clients)),
		spareOps: make([][]uint16, len(r.clients)),
		tally:    make([]workload.Tally, len(r.clients)),
		hist:     latency.NewHistogram(),
		opHist:   make([]*hdrhistogram.Histogram, len(r.ops)),
	}
	for i := range rep.opHist {
		rep.opHist[i] = latency.NewHistogram()
	}
	return rep, nil
}

// start runs the reporter from r.measureFrom on; a nil reporter is a no-op.
func (rep *reporter) start() {
	if rep != nil {
		go rep.loop()
	}
}

// stop ends the reporter and waits for it; a nil reporter is a no-op. No
// partial last interval is reported.
func (rep *reporter) stop() {
	if rep == nil {
		return
	}
	rep.tick.wake()
	<-rep.done
}

// close releases the ticker (after stop, or when the load never started);
// a nil reporter is a no-op.
func (rep *reporter) close() {
	if rep != nil {
		rep.tick.close()
	}
}

func (rep *reporter) loop() {
	defer close(rep.done)
	r := rep.r
	every := r.p.ReportInterval
	// Ticks fall at measureFrom + n×every, from the monotonic clock, so
	// late wake-ups do not drift the intervals.
	prev := r.measureFrom
	for n := 1; ; n++ {
		due := r.measureFrom.Add(time.Duration(n) * every)
		// A wake-up at or after the tick still reports the interval: the
		// load ended once it was whole (a run of 6 s at 3 s intervals
		// ends at its 6 s tick, and which of the two the reporter sees
		// first is a matter of scheduling). A stop stays woken, so the
		// next wait returns at once.
		woken := rep.tick.until(due)
		now := time.Now()
		if woken && now.Before(due) {
			return
		}
		iv := rep.take(now.Sub(r.measureFrom), now.Sub(prev))
		prev = now
		rep.intervals = append(rep.intervals, iv)
		if r.p.OnInterval != nil {
			r.p.OnInterval(iv)
		}
	}
}

// take collects and resets every client's snapshot.
func (rep *reporter) take(at, length time.Duration) results.Interval {
	iv := results.Interval{At: at, Length: length, Clients: int(rep.r.running.Load())}
	rep.hist.Reset()
	for _, h := range rep.opHist {
		h.Reset()
	}
	for i := range rep.r.clients {
		s := &rep.r.clients[i].iv
		s.mu.Lock()
		buf, ops := s.micros, s.ops
		s.micros, s.ops = rep.spare[i][:0], rep.spareOps[i][:0]
		events, errs, reconn, tally := s.events, s.errors, s.reconnects, s.tally
		s.events, s.errors, s.reconnects = 0, 0, 0
		s.mu.Unlock()
		rep.spare[i], rep.spareOps[i] = buf, ops

		for j, us := range buf {
			_ = rep.hist.RecordValue(int64(us))
			_ = rep.opHist[ops[j]].RecordValue(int64(us))
		}
		iv.Events += events
		iv.Errors += errs
		iv.Reconnects += reconn
		if events > 0 {
			prev := rep.tally[i]
			iv.Tally.Add(workload.Tally{
				Reads:     tally.Reads - prev.Reads,
				Writes:    tally.Writes - prev.Writes,
				Other:     tally.Other - prev.Other,
				Retries:   errs,
				Rollbacks: tally.Rollbacks - prev.Rollbacks,
			})
			rep.tally[i] = tally
		}
	}
	iv.Latency = latency.Figures(rep.hist)
	iv.Ops = make([]latency.Percentiles, len(rep.opHist))
	for i, h := range rep.opHist {
		iv.Ops[i] = latency.Figures(h)
	}
	return iv
}
