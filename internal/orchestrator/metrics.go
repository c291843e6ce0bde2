package orchestrator

import (
	"context"
	"fmt"
	"time"

	"github.com/go-sql-driver/mysql"

	"github.com/goslap/goslap/internal/engine"
	"github.com/goslap/goslap/internal/procstat"
	"github.com/goslap/goslap/internal/results"
	"github.com/goslap/goslap/internal/results/jsondoc"
	"github.com/goslap/goslap/internal/servermetrics"
)

// Metrics is how a Loop samples the server it loads (package
// servermetrics), on a connection and a goroutine of its own: at the
// start and the end of every measured iteration and at every report
// interval, so each benchmark carries the server's figures per unit and
// as a time series. The clients' hot path is not involved: the engine's
// reporter hands each interval over and the sampling goroutine reads
// the server right after.
type Metrics struct {
	// Off turns sampling off (--skip-server-metrics).
	Off bool
	// Driver reaches the server as the clients do (no schema needed); nil
	// samples nothing.
	Driver *mysql.Config
	// PID is the server's process when the caller knows it (a sandbox;
	// --server-pid), Found how ("sandbox", "option"). 0: Locate it.
	PID   int
	Found string
	// Interval is the length of the kept intervals when no report interval
	// is printed; 0 means 1 s.
	Interval time.Duration
	// Unit names what a benchmark's units are: "transaction" (0 value) or
	// "query" (mysqlslap's load).
	Unit string
	// Warn prints one warning line (each distinct one once per Loop); nil
	// prints nothing.
	Warn func(line string)
	// Proc is the /proc tree (tests give a decoy); zero: the real one.
	Proc procstat.Proc
}

// enabled says whether a Loop samples.
func (m *Metrics) enabled() bool { return m != nil && !m.Off && m.Driver != nil }

func (m *Metrics) unit() string {
	if m.Unit == "" {
		return "transaction"
	}
	return m.Unit
}

// IterationServer is what the sampling saw over one iteration.
type IterationServer struct {
	// Whole spans the measured load (HaveWhole: a sample at both ends).
	Whole     servermetrics.Span
	HaveWhole bool
	// Intervals pair the engine's report intervals with the server's
	// counters over the same stretch (HaveSpan false when the sampling
	// fell behind or the load ended first).
	Intervals []SampledInterval
	Location  servermetrics.Location
}

// SampledInterval is one engine interval and the server's span over it.
type SampledInterval struct {
	results.Interval
	Span     servermetrics.Span
	HaveSpan bool
}

// sampling is a Loop's sampler: opened on the first measured iteration,
// closed when the Loop ends.
type sampling struct {
	m      *Metrics
	sm     *servermetrics.Sampler
	loc    servermetrics.Location
	warned int // the sampler's warnings printed so far
}

func (l *Loop) sampler(ctx context.Context) *sampling {
	if l.sampling != nil || !l.Metrics.enabled() {
		return l.sampling
	}
	m := l.Metrics
	var loc servermetrics.Location
	if m.PID != 0 {
		found := m.Found
		if found == "" {
			found = "option"
		}
		loc = servermetrics.Given(m.Proc, m.PID, found)
	}
	sm, err := servermetrics.New(servermetrics.Config{Driver: m.Driver, Location: loc, Proc: m.Proc, Interval: m.interval()})
	if err != nil {
		if m.Warn != nil {
			m.Warn("server metrics: " + err.Error() + "; the run goes on without them")
		}
		m.Off = true
		return nil
	}
	s := &sampling{m: m, sm: sm}
	if m.PID == 0 {
		loc = sm.Locate(ctx)
	} else if loc.PID == 0 && m.Warn != nil {
		m.Warn(fmt.Sprintf("--server-pid=%d: %s; the server's CPU and IO are left out", m.PID, loc.Why))
	}
	s.loc = loc
	l.sampling = s
	return s
}

// keepIntervals makes the engine record every iteration's intervals: the
// printed ones when a report interval is set (handed to the observer),
// else the Metrics' interval (1 s by default), kept for the --json
// document, the timeline and the stall line whether or not the server is
// sampled. Recording them costs nothing measurable (BENCHMARKS.md,
// "Interval recording").
func (l *Loop) keepIntervals(p *engine.Plan) {
	if lim := l.Limits; lim.ReportInterval > 0 {
		p.ReportInterval = lim.ReportInterval
		p.OnInterval = l.Observer.Interval
		return
	}
	p.ReportInterval = l.Metrics.interval()
}

// interval is the length of the kept intervals when none is printed; a
// nil Metrics keeps 1 s.
func (m *Metrics) interval() time.Duration {
	if m != nil && m.Interval > 0 {
		return m.Interval
	}
	return time.Second
}

// close ends the Loop's sampling.
func (s *sampling) close() {
	if s != nil {
		s.sm.Close()
	}
}

// warn prints the sampler's new warnings.
func (s *sampling) warn() {
	w := s.sm.Warnings()
	for _, line := range w[s.warned:] {
		if s.m.Warn != nil {
			s.m.Warn(line)
		}
	}
	s.warned = len(w)
}

// iterationSampling samples one iteration.
type iterationSampling struct {
	s        *sampling
	ctx      context.Context
	ticks    chan results.Interval
	quit     chan struct{} // closed when the load has ended
	done     chan struct{} // closed when the goroutine has ended
	launched bool          // Plan.Start ran: the goroutine runs (set and read on the load's goroutine)
	started  bool          // a start sample was taken (read after done)
	start    servermetrics.Sample
	out      []SampledInterval
}

// begin hooks the sampling into an iteration's plan: the start sample
// where the measured load starts (after Plan.Start and the warm-up),
// one after each of the engine's report intervals. It is applied after
// the front end's own Plan hook, so it wraps what that set.
func (s *sampling) begin(ctx context.Context, p *engine.Plan) *iterationSampling {
	is := &iterationSampling{s: s, ctx: ctx, ticks: make(chan results.Interval, 256),
		quit: make(chan struct{}), done: make(chan struct{})}
	if p.ReportInterval == 0 {
		p.ReportInterval = s.m.interval()
	}
	printed := p.OnInterval
	p.OnInterval = func(iv results.Interval) {
		if printed != nil {
			printed(iv)
		}
		select { // never hold up the engine's reporter
		case is.ticks <- iv:
		default:
		}
	}
	gate, warmup := p.Start, p.Warmup
	p.Start = func(ctx context.Context) error {
		if gate != nil {
			if err := gate(ctx); err != nil {
				return err
			}
		}
		is.launched = true
		if warmup == 0 {
			// The clock starts right after: sample before releasing it.
			is.start, is.started = s.sm.Sample(ctx), true
			go is.run(time.Time{})
		} else {
			go is.run(time.Now().Add(warmup))
		}
		return nil
	}
	return is
}

// run takes the start sample at from (unless taken already) and one after
// each interval the engine hands over, until the load ends.
func (is *iterationSampling) run(from time.Time) {
	defer close(is.done)
	sm := is.s.sm
	if !from.IsZero() {
		t := time.NewTimer(time.Until(from))
		select {
		case <-t.C:
		case <-is.quit:
			t.Stop()
			return
		case <-is.ctx.Done():
			t.Stop()
			return
		}
		is.start, is.started = sm.Sample(is.ctx), true
	}
	prev := is.start
	for {
		select {
		case iv := <-is.ticks:
			cur := sm.Sample(is.ctx)
			is.out = append(is.out, SampledInterval{Interval: iv, Span: servermetrics.Between(prev, cur), HaveSpan: true})
			prev = cur
		case <-is.quit:
			return
		case <-is.ctx.Done():
			return
		}
	}
}

// end takes the end sample once the load is over and returns what the
// iteration saw (nil when the load never reached its measured part).
func (is *iterationSampling) end(ctx context.Context) *IterationServer {
	if is == nil {
		return nil
	}
	if !is.launched {
		return nil // the load ended before its clock started
	}
	close(is.quit)
	<-is.done
	defer is.s.warn()
	if !is.started {
		return nil
	}
	var end servermetrics.Sample
	if ctx.Err() == nil {
		end = is.s.sm.Sample(ctx)
	}
	out := &IterationServer{Location: is.s.sm.Location(), Intervals: is.out}
	if !end.At.IsZero() {
		out.Whole, out.HaveWhole = servermetrics.Between(is.start, end), true
	}
	// Intervals the goroutine had no time to sample keep the engine's
	// figures without the server's.
	for len(is.ticks) > 0 {
		out.Intervals = append(out.Intervals, SampledInterval{Interval: <-is.ticks})
	}
	return out
}

// serverJSON fills a benchmark's intervals (every iteration's, in order,
// stalls flagged) and, from its iterations' sampling, its server figures
// and each interval's server span; units are the benchmark's measured
// units. An iteration that was not sampled keeps its intervals without
// server figures.
func serverJSON(jb *jsondoc.Benchmark, bs []*results.Benchmark, its []*IterationServer, unit string) {
	var whole servermetrics.Span
	var units uint64
	have := false
	var loc servermetrics.Location
	var tput []float64
	for i, b := range bs {
		var is *IterationServer
		if i < len(its) {
			is = its[i]
		}
		ivs := b.Intervals
		spans := map[time.Duration]servermetrics.Span{}
		if is != nil {
			loc = is.Location
			if is.HaveWhole {
				whole = whole.Add(is.Whole)
				units += b.Events
				have = true
			}
			for _, s := range is.Intervals {
				if s.HaveSpan {
					spans[s.At] = s.Span
				}
			}
			if len(ivs) == 0 {
				// A benchmark rebuilt without the engine's intervals
				// keeps the ones the sampling saw.
				for _, s := range is.Intervals {
					ivs = append(ivs, s.Interval)
				}
			}
		}
		for _, iv := range ivs {
			ji := jsondoc.Interval{Iteration: b.Point.Number, AtSeconds: iv.At.Seconds(), Seconds: iv.Length.Seconds(),
				Transactions: iv.Events, Queries: iv.Tally.Reads + iv.Tally.Writes + iv.Tally.Other,
				Errors: iv.Errors, Latency: iv.Latency}
			if span, ok := spans[iv.At]; ok {
				f := servermetrics.Figures(span, iv.Events, unit, loc)
				ji.Server = &f
			}
			jb.Intervals = append(jb.Intervals, ji)
			tput = append(tput, float64(iv.Events)/max(iv.Length.Seconds(), 1e-9))
		}
	}
	for i, stall := range servermetrics.Stalls(tput) {
		jb.Intervals[i].Stall = stall
	}
	if have {
		f := servermetrics.Figures(whole, units, unit, loc)
		jb.Server = &f
	}
}

// metrics is the target's sampling: the study's settings, the target's
// driver configuration and the kept interval.
func (r *runner) metrics(driver *mysql.Config) *Metrics {
	m := r.cfg.ServerMetrics
	m.Driver = driver
	if r.ep.Sandbox && r.ep.PID != 0 {
		m.PID, m.Found = r.ep.PID, "sandbox"
	}
	if m.Interval == 0 {
		m.Interval = r.cfg.ReportInterval
	}
	if m.Warn == nil && r.cfg.Observer.Log != nil {
		m.Warn = func(line string) { r.cfg.Observer.Log("%s", line) }
	}
	return &m
}
