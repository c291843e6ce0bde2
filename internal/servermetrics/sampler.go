package servermetrics

import (
	"context"
	"fmt"
	"runtime"
	"sort"
	"sync"
	"time"

	"github.com/go-sql-driver/mysql"

	"github.com/goslap/goslap/internal/mysqlconn"
	"github.com/goslap/goslap/internal/procstat"
	"golang.org/x/sys/unix"
)

// Config says what a Sampler reads.
type Config struct {
	// Driver reaches the server as the run does; the sampler clones it and
	// opens a connection of its own with QueryTimeout on every read and
	// write.
	Driver *mysql.Config
	// Location is the server's process (Locate, or a sandbox's pid); PID 0
	// reads the status counters only.
	Location Location
	// Proc is the /proc tree (the real one when Root is "").
	Proc procstat.Proc
	// Interval between samples of Run; 0 means 1 s.
	Interval time.Duration
	// QueryTimeout bounds each statement of a sample (and the connect);
	// 0 means 5 s. A statement cut by it (a server stalled in a flush
	// still answers SHOW STATUS, but a saturated one may not) makes that
	// sample miss; the next interval spans the gap. A sample slower than
	// Interval delays the next one rather than failing.
	QueryTimeout time.Duration
	// Units, if set, returns the run's completed units so far (an atomic
	// sum the caller keeps); each interval then carries its count.
	Units func() uint64
}

// Interval is one stretch between consecutive samples of Run.
type Interval struct {
	Span
	// Units done in it, when Config.Units is set.
	Units uint64
	// Missed counts samples that failed inside it: it is longer than
	// Config.Interval by that many.
	Missed int
}

// Cost is what sampling cost, for the report and BENCHMARKS.md.
type Cost struct {
	Samples int
	Queries uint64 // statements sent (one or two per sample)
	// CPU is the sampling goroutine's own thread CPU time over all
	// samples: reading the counters and /proc, parsing.
	CPU time.Duration
	// Wall is the time the samples took, connection round trips included.
	Wall time.Duration
}

// PerSample is CPU and Wall divided by Samples.
func (c Cost) PerSample() (cpu, wall time.Duration) {
	if c.Samples == 0 {
		return 0, 0
	}
	return c.CPU / time.Duration(c.Samples), c.Wall / time.Duration(c.Samples)
}

// Sampler reads samples on its own connection: Sample at moments the
// caller chooses (a measured run's start and end), Run at an interval.
// Its methods are safe to call from several goroutines.
type Sampler struct {
	cfg       Config
	connector *mysqlconn.Connector

	mu        sync.Mutex
	conn      *mysqlconn.Conn
	reader    *Reader
	queries   uint64 // of readers before the current one
	warnings  []string
	warned    map[string]bool
	intervals []Interval
	cost      Cost
}

// New prepares a sampler; it connects on the first sample. An error is a
// driver configuration the connector refuses.
func New(cfg Config) (*Sampler, error) {
	if cfg.Interval <= 0 {
		cfg.Interval = time.Second
	}
	if cfg.QueryTimeout <= 0 {
		cfg.QueryTimeout = 5 * time.Second
	}
	dc := cfg.Driver.Clone()
	dc.ReadTimeout, dc.WriteTimeout = cfg.QueryTimeout, cfg.QueryTimeout
	dc.Timeout = cfg.QueryTimeout
	connector, err := mysqlconn.NewConnector(dc, "")
	if err != nil {
		return nil, err
	}
	return &Sampler{cfg: cfg, connector: connector, warned: map[string]bool{}}, nil
}

// warn keeps one warning per distinct line.
func (s *Sampler) warn(lines ...string) {
	for _, l := range lines {
		if !s.warned[l] {
			s.warned[l] = true
			s.warnings = append(s.warnings, l)
		}
	}
}

// Sample reads everything now. Whatever cannot be read is left out and
// said once in Warnings; Sample never fails. ctx ending cuts a statement
// in flight.
func (s *Sampler) Sample(ctx context.Context) Sample {
	s.mu.Lock()
	defer s.mu.Unlock()
	out, _ := s.sampleLocked(ctx)
	return out
}

// sampleLocked is Sample; failed says the server's counters could not be
// read this time although the server was reachable before (a lost
// connection, a statement cut by its time limit).
func (s *Sampler) sampleLocked(ctx context.Context) (out Sample, failed bool) {
	if s.conn == nil && ctx.Err() == nil {
		conn, err := s.connect(ctx)
		switch {
		case ctx.Err() != nil:
		case err != nil:
			_, msg := s.connector.ConnectError(err)
			s.warn("server counters: cannot connect (" + msg + "); samples go on without them")
		default:
			s.conn = conn
			if s.reader != nil {
				s.queries += s.reader.Queries
			}
			prev := s.reader
			s.reader = NewReader(conn)
			if prev != nil { // a refused source stays refused
				s.reader.statusOff, s.reader.metricsOff, s.reader.source = prev.statusOff, prev.metricsOff, prev.source
				s.reader.own = prev.own // Own keeps growing across connections
			}
		}
	}
	if s.conn != nil {
		stop := context.AfterFunc(ctx, func() { s.conn.Cut() })
		snap, warnings, err := s.reader.Snapshot()
		stop()
		s.warn(warnings...)
		if err != nil {
			failed = true
			s.conn.Close()
			s.conn = nil
			if ctx.Err() == nil {
				s.warn("server counters: a sample failed (" + mysqlconn.ErrorText(err) + "); the next sample reconnects")
			}
		} else {
			out.Server = snap
		}
	}
	if pid := s.cfg.Location.PID; pid != 0 {
		p, err := s.cfg.Proc.Process(pid)
		if err != nil {
			s.warn(fmt.Sprintf("server process %d: %v; its CPU and IO are left out", pid, err))
		} else {
			if p.IOErr != nil {
				s.warn(fmt.Sprintf("server process %d: %v; its storage bytes are left out", pid, p.IOErr))
			}
			out.Process = &p
		}
	}
	if h, err := s.cfg.Proc.HostCPU(); err != nil {
		s.warn("host CPU: " + err.Error())
	} else {
		out.Host = &h
	}
	u, sys, err := procstat.SelfCPU()
	if err != nil {
		s.warn("goslap's own CPU: " + err.Error())
	}
	out.Client = u + sys
	out.At = time.Now()
	if out.Server.At.IsZero() {
		out.Server.At = out.At
	}
	return out, failed
}

// Locate finds the server's process on the sampler's connection (see the
// function Locate) and samples it from now on; it returns where it was
// found or why not. For a sandbox, set Config.Location with Given instead.
func (s *Sampler) Locate(ctx context.Context) Location {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.conn == nil {
		s.sampleLocked(ctx) // connects (and calibrates) or says why not
	}
	if s.conn == nil {
		s.cfg.Location = Location{Why: "no connection to ask the server for its pid file"}
		if s.cfg.Driver.Net == "unix" || s.cfg.Driver.Net == "tcp" {
			if loc := Locate(nil, s.cfg.Driver, s.cfg.Proc); loc.PID != 0 {
				s.cfg.Location = loc
			}
		}
		return s.cfg.Location
	}
	s.cfg.Location = Locate(s.conn, s.cfg.Driver, s.cfg.Proc)
	return s.cfg.Location
}

// Location is where the sampler reads the server's process.
func (s *Sampler) Location() Location {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.cfg.Location
}

// connect opens the sampler's connection. The handshake has its own time
// limit (mysqlconn.HandshakeTimeout) but no context: when ctx ends first,
// connect returns at once and the connection, if it still comes, is
// closed in the background.
func (s *Sampler) connect(ctx context.Context) (*mysqlconn.Conn, error) {
	type result struct {
		conn *mysqlconn.Conn
		err  error
	}
	ch := make(chan result, 1)
	go func() {
		c, err := s.connector.Connect(nil)
		ch <- result{c, err}
	}()
	select {
	case r := <-ch:
		return r.conn, r.err
	case <-ctx.Done():
		go func() { (<-ch).conn.Close() }()
		return nil, ctx.Err()
	}
}

// Run samples every Interval until ctx ends and keeps the intervals
// between consecutive samples (read them with Intervals once Run has
// returned). Run it in a goroutine of its own; it returns as soon as ctx
// ends (a statement in flight is cut, a connect in progress abandoned).
func (s *Sampler) Run(ctx context.Context) {
	// The goroutine keeps its thread, so the thread's CPU clock is the
	// sampling's own cost.
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	tick := time.NewTicker(s.cfg.Interval)
	defer tick.Stop()
	prev, _ := s.costedSample(ctx)
	prevUnits, missed := s.units(), 0
	for {
		select {
		case <-ctx.Done():
			return
		case <-tick.C:
		}
		cur, failed := s.costedSample(ctx)
		units := s.units()
		if ctx.Err() != nil {
			return // a sample cut short is no sample
		}
		if failed {
			missed++ // the next interval spans the gap
			continue
		}
		s.mu.Lock()
		s.intervals = append(s.intervals, Interval{Span: Between(prev, cur), Units: units - prevUnits, Missed: missed})
		s.mu.Unlock()
		prev, prevUnits, missed = cur, units, 0
	}
}

func (s *Sampler) units() uint64 {
	if s.cfg.Units == nil {
		return 0
	}
	return s.cfg.Units()
}

// costedSample is Sample measuring its own cost on this (locked) thread.
func (s *Sampler) costedSample(ctx context.Context) (Sample, bool) {
	c0, w0 := threadCPU(), time.Now()
	s.mu.Lock()
	defer s.mu.Unlock()
	out, failed := s.sampleLocked(ctx)
	s.cost.CPU += threadCPU() - c0
	s.cost.Wall += time.Since(w0)
	s.cost.Samples++
	return out, failed
}

// threadCPU is the calling thread's CPU time (CLOCK_THREAD_CPUTIME_ID,
// through x/sys/unix: the clock's number and the call differ by system).
func threadCPU() time.Duration {
	var ts unix.Timespec
	if err := unix.ClockGettime(unix.CLOCK_THREAD_CPUTIME_ID, &ts); err != nil {
		return 0
	}
	return time.Duration(ts.Nano())
}

// Intervals are Run's intervals so far.
func (s *Sampler) Intervals() []Interval {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]Interval(nil), s.intervals...)
}

// Warnings are the distinct problems met so far, one line each, for the
// caller to print once (nothing here prints).
func (s *Sampler) Warnings() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]string(nil), s.warnings...)
}

// Cost is the cost of Run's samples so far.
func (s *Sampler) Cost() Cost {
	s.mu.Lock()
	defer s.mu.Unlock()
	c := s.cost
	c.Queries = s.queries
	if s.reader != nil {
		c.Queries += s.reader.Queries
	}
	return c
}

// Close closes the sampler's connection.
func (s *Sampler) Close() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.conn.Close()
	s.conn = nil
}

// Stalls flags the intervals whose throughput is below half the median
// of all of them: a flushing stall, a lock, a checkpoint. throughput is
// per interval (units per second, or units when the intervals are of one
// length), from the caller's own counts. Fewer than three intervals have
// no meaningful median: none is flagged.
func Stalls(throughput []float64) []bool {
	out := make([]bool, len(throughput))
	if len(throughput) < 3 {
		return out
	}
	m := median(throughput)
	for i, v := range throughput {
		out[i] = v < m/2
	}
	return out
}

func median(v []float64) float64 {
	s := append([]float64(nil), v...)
	sort.Float64s(s)
	n := len(s)
	if n%2 == 1 {
		return s[n/2]
	}
	return (s[n/2-1] + s[n/2]) / 2
}
