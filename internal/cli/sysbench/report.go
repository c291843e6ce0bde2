package sysbench

import (
	"fmt"
	"io"
	"math"
	"time"

	hdrhistogram "github.com/HdrHistogram/hdrhistogram-go"

	"github.com/goslap/goslap/internal/results"
	"github.com/goslap/goslap/internal/workload/oltp"
)

// Report holds the figures of sysbench's final report, already in the units
// it prints (seconds, milliseconds). The layouts below were measured on the
// output of sysbench 1.0.20 (testdata/capture.sh) and of 0.4.12 and 0.5
// built from source (tools/sysbench-legacy, testdata/legacy).
type Report struct {
	Dialect    Dialect
	Percentile int // 0 = disabled

	Reads, Writes, Other uint64
	Transactions         uint64
	IgnoredErrors        uint64
	Reconnects           uint64

	Seconds float64 // total time
	Events  uint64

	// Latency of one event, milliseconds.
	Min, Avg, Max, Pct, Sum float64

	EventsAvg, EventsStddev float64
	ExecAvg, ExecStddev     float64 // seconds
}

// FromBenchmark reads the figures of b. Latency comes from goslap's HDR
// histograms (1 µs resolution, 3 significant digits), which are finer than
// sysbench's buckets, so percentiles may differ from sysbench's by the
// width of its bucket (≈1.8 % in 1.0).
func FromBenchmark(b *results.Benchmark, d Dialect, percentile int) Report {
	r := Report{Dialect: d, Percentile: percentile,
		Reads: b.Tally.Reads, Writes: b.Tally.Writes, Other: b.Tally.Other,
		Events: b.Events, Transactions: b.Events, Seconds: b.Elapsed.Seconds()}
	if d == Dialect05 && b.Tally.Other == 0 {
		// 0.5 counts COMMIT/UNLOCK TABLES statements as transactions: none
		// with skip-trx or for single-statement scripts; otherwise one per
		// completed event.
		r.Transactions = 0
	}
	all := b.Total()
	r.IgnoredErrors = 0
	for _, n := range all.Errors {
		r.IgnoredErrors += n
	}
	r.Reconnects = all.Reconnects
	h := all.Service
	if all.Intended != nil && all.Intended.TotalCount() > 0 {
		// With --rate, sysbench's event time includes the queue wait.
		h = all.Intended
	}
	if h.TotalCount() > 0 {
		r.Min, r.Max, r.Pct = lowEnds(h, percentile)
		r.Sum = h.Mean() * float64(h.TotalCount()) / 1000
		r.Avg = h.Mean() / 1000
	}
	var busy time.Duration
	if n := len(b.Clients); n > 0 {
		ev := make([]float64, n)
		ex := make([]float64, n)
		for i, c := range b.Clients {
			ev[i] = float64(c.Events)
			ex[i] = c.Busy.Seconds()
			busy += c.Busy
		}
		r.EventsAvg, r.EventsStddev = meanStddev(ev)
		r.ExecAvg, r.ExecStddev = meanStddev(ex)
	}
	if all.Intended == nil && busy > 0 && r.Events > 0 {
		// The clients' own clocks give the exact sum (the histogram's is
		// rounded to its buckets).
		r.Sum = float64(busy) / float64(time.Millisecond)
		r.Avg = r.Sum / float64(r.Events)
	}
	return r
}

// lowEnds returns min, max and the percentile pct of h in milliseconds,
// each the middle of its HDR bucket (buckets are 1 µs wide up to 2 ms, so
// those values print as recorded; sysbench prints its buckets' centres too,
// and HDR's own mean uses the same point). The
// percentile's rank is sysbench's: floor(count × pct/100 + 0.5), the first
// bucket whose cumulative count reaches it.
func lowEnds(h *hdrhistogram.Histogram, pct int) (lo, hi, p float64) {
	rank := int64(math.Floor(float64(h.TotalCount())*float64(pct)/100 + 0.5))
	var cum int64
	found := pct == 0
	first := true
	for _, bar := range h.Distribution() {
		if bar.Count == 0 {
			continue
		}
		mid := float64(bar.From+(bar.To-bar.From+1)/2) / 1000
		if first {
			lo, first = mid, false
		}
		hi = mid
		cum += bar.Count
		if !found && cum >= rank {
			p, found = mid, true
		}
	}
	return lo, hi, p
}

// meanStddev is the mean and population standard deviation (sysbench's
// "Threads fairness": 104 and 96 events give 100.0000/4.00).
func meanStddev(v []float64) (float64, float64) {
	var sum float64
	for _, x := range v {
		sum += x
	}
	mean := sum / float64(len(v))
	var sq float64
	for _, x := range v {
		sq += (x - mean) * (x - mean)
	}
	return mean, math.Sqrt(sq / float64(len(v)))
}

func perSec(n uint64, secs float64) float64 {
	if secs <= 0 {
		return 0
	}
	return float64(n) / secs
}

// Write prints the report in the dialect's layout.
func (r *Report) Write(w io.Writer) error {
	if r.Dialect == Dialect10 {
		return r.write10(w)
	}
	return r.write04(w)
}

func (r *Report) write10(w io.Writer) error {
	total := r.Reads + r.Writes + r.Other
	s := r.Seconds
	_, err := fmt.Fprintf(w, `SQL statistics:
    queries performed:
        read:                            %d
        write:                           %d
        other:                           %d
        total:                           %d
    transactions:                        %-6d (%.2f per sec.)
    queries:                             %-6d (%.2f per sec.)
    ignored errors:                      %-6d (%.2f per sec.)
    reconnects:                          %-6d (%.2f per sec.)

General statistics:
    total time:                          %.4fs
    total number of events:              %d

Latency (ms):
         min:%40.2f
         avg:%40.2f
         max:%40.2f
%s         sum:%40.2f

Threads fairness:
    events (avg/stddev):           %.4f/%3.2f
    execution time (avg/stddev):   %.4f/%3.2f

`, r.Reads, r.Writes, r.Other, total,
		r.Transactions, perSec(r.Transactions, s),
		total, perSec(total, s),
		r.IgnoredErrors, perSec(r.IgnoredErrors, s),
		r.Reconnects, perSec(r.Reconnects, s),
		s, r.Events,
		r.Min, r.Avg, r.Max, r.pctLine10(), r.Sum,
		r.EventsAvg, r.EventsStddev, r.ExecAvg, r.ExecStddev)
	return err
}

func (r *Report) pctLine10() string {
	if r.Percentile == 0 {
		return "         percentile stats:               disabled\n"
	}
	return fmt.Sprintf("%11dth percentile:%28.2f\n", r.Percentile, r.Pct)
}

// write04 is the 0.4/0.5 layout: "OLTP test statistics", deadlocks (0.4)
// or ignored errors and reconnects (0.5), read/write requests = reads +
// writes; then 0.4.12's "Test execution summary" with "per-request
// statistics" and the execution time without a unit, or 0.5's "General
// statistics" with "response time" and the unit (the 0.4 branch switched
// to 0.5's wording in July 2011, after 0.4.12).
func (r *Report) write04(w io.Writer) error {
	total := r.Reads + r.Writes + r.Other
	s := r.Seconds
	rw := r.Reads + r.Writes
	var errs string
	if r.Dialect == Dialect04 {
		errs = fmt.Sprintf("    deadlocks:                           %-6d (%.2f per sec.)\n", r.IgnoredErrors, perSec(r.IgnoredErrors, s))
	}
	var tail string
	if r.Dialect == Dialect05 {
		tail = fmt.Sprintf("    ignored errors:                      %-6d (%.2f per sec.)\n    reconnects:                          %-6d (%.2f per sec.)\n",
			r.IgnoredErrors, perSec(r.IgnoredErrors, s), r.Reconnects, perSec(r.Reconnects, s))
	}
	summary, heading, unit := "General statistics:", "response time:", "s"
	if r.Dialect == Dialect04 {
		summary, heading, unit = "Test execution summary:", "per-request statistics:", ""
	}
	pct := fmt.Sprintf("         approx. %3d percentile:%19.2fms\n", r.Percentile, r.Pct)
	if r.Percentile == 0 {
		pct = ""
	}
	_, err := fmt.Fprintf(w, `OLTP test statistics:
    queries performed:
        read:                            %d
        write:                           %d
        other:                           %d
        total:                           %d
    transactions:                        %-6d (%.2f per sec.)
%s    read/write requests:                 %-6d (%.2f per sec.)
    other operations:                    %-6d (%.2f per sec.)
%s
%s
    total time:                          %.4fs
    total number of events:              %d
    total time taken by event execution: %.4f%s
    %s
         min:%38.2fms
         avg:%38.2fms
         max:%38.2fms
%s
Threads fairness:
    events (avg/stddev):           %.4f/%3.2f
    execution time (avg/stddev):   %.4f/%3.2f

`, r.Reads, r.Writes, r.Other, total,
		r.Transactions, perSec(r.Transactions, s),
		errs, rw, perSec(rw, s), r.Other, perSec(r.Other, s), tail,
		summary, s, r.Events, r.Sum/1000, unit, heading,
		r.Min, r.Avg, r.Max, pct,
		r.EventsAvg, r.EventsStddev, r.ExecAvg, r.ExecStddev)
	return err
}

// Header is what sysbench prints before the run starts.
type Header struct {
	Dialect        Dialect
	Threads        int
	Rate           uint64
	ReportInterval uint64
	Seed           uint64
	SeedSet        bool
	// Limits is goslap's line naming the stopping rule in force (sysbench
	// prints none; its defaults surprise people, oltp-spec.md §8). Only
	// the 1.0 layout has it; 0.4/0.5 runs print it on stderr.
	Limits string

	// 0.4 and 0.5: InitRNG is --init-rng/--rand-init on, SeedRNG the
	// --seed-rng/--rand-seed given (0: none), Events the request limit
	// and Mode (0.4) what the oltp test says about itself.
	InitRNG bool
	SeedRNG uint64
	Events  uint64
	Mode    *oltp.Mode04
}

// VersionLine is goslap's first line where sysbench prints its version.
func VersionLine(version string, d Dialect) string {
	return fmt.Sprintf("goslap %s (sysbench %s dialect)\n", version, d)
}

// Write prints the lines between the version line and the first interval
// line, as the dialect's sysbench does (1.0: plus the Limits line after the
// options).
func (h *Header) Write(w io.Writer) error {
	if h.Dialect == Dialect04 || h.Dialect == Dialect05 {
		_, err := io.WriteString(w, h.legacy())
		return err
	}
	s := "Running the test with following options:\n"
	s += fmt.Sprintf("Number of threads: %d\n", h.Threads)
	if h.Rate > 0 {
		s += fmt.Sprintf("Target transaction rate: %d/sec\n", h.Rate)
	}
	if h.ReportInterval > 0 {
		s += fmt.Sprintf("Report intermediate results every %d second(s)\n", h.ReportInterval)
	}
	if h.Limits != "" {
		s += h.Limits + "\n"
	}
	if h.SeedSet {
		s += fmt.Sprintf("Initializing random number generator from seed (%d).\n", h.Seed)
	} else {
		s += "Initializing random number generator from current time\n"
	}
	s += "\n\nInitializing worker threads...\n\nThreads started!\n\n"
	_, err := io.WriteString(w, s)
	return err
}

// legacy is the 0.4/0.5 header: the options, the seed, then 0.4's test
// description or 0.5's "Initializing worker threads...".
func (h *Header) legacy() string {
	s := "Running the test with following options:\n"
	s += fmt.Sprintf("Number of threads: %d\n", h.Threads)
	if h.Rate > 0 {
		if h.Dialect == Dialect04 {
			// goslap has no --tx-jitter: its arrivals are Poisson.
			s += fmt.Sprintf("Target transaction rate: %d/sec, with jitter 0 usec\n", h.Rate)
		} else {
			s += fmt.Sprintf("Target transaction rate: %d/sec\n", h.Rate)
		}
	}
	if h.ReportInterval > 0 {
		s += fmt.Sprintf("Report intermediate results every %d second(s)\n", h.ReportInterval)
	}
	if h.InitRNG {
		s += "Initializing random number generator from timer.\n\n"
	}
	if h.SeedRNG != 0 {
		s += fmt.Sprintf("Initializing random number generator from seed (%d).\n\n", h.SeedRNG)
	} else {
		s += "Random number generator seed is 0 and will be ignored\n\n"
	}
	s += "\n"
	if h.Dialect == Dialect05 {
		return s + "Initializing worker threads...\n\nThreads started!\n\n"
	}
	if m := h.Mode; m != nil {
		s += "Doing OLTP test.\n"
		switch m.TestMode {
		case "simple":
			s += "Running simple OLTP test\n"
		case "nontrx":
			s += "Running non-transactional test\n"
		default:
			s += "Running mixed OLTP test\n"
		}
		if m.ReadOnly {
			s += "Doing read-only test\n"
		}
		switch m.Dist {
		case "uniform":
			s += "Using Uniform distribution\n"
		case "gaussian":
			s += fmt.Sprintf("Using Normal distribution (%d iterations)\n", m.Iter)
		case "special":
			s += fmt.Sprintf("Using Special distribution (%d iterations,  %d pct of values are returned in %d pct cases)\n",
				m.Iter, int64(m.Pct), int64(m.Res))
		default:
			s += "Using " + m.Dist + " distribution (goslap)\n"
		}
		if m.SkipTrx {
			s += "Skipping BEGIN/COMMIT\n"
		} else {
			s += fmt.Sprintf("Using \"%s\" for starting transactions\n", m.Start)
		}
		if m.AutoInc {
			s += "Using auto_inc on the id column\n"
		} else {
			s += "Not using auto_inc on the id column\n"
		}
		if h.Events > 0 {
			s += fmt.Sprintf("Maximum number of requests for OLTP test is limited to %d\n", h.Events)
		}
	}
	return s + "Threads started!\n"
}

// Trailer04 is what sysbench 0.4 prints between "Threads started!" and the
// report: each thread's "Time limit exceeded, exiting..." when the time
// limit ended the run (its log folds the repeats), then "Done.".
func Trailer04(threads int, byTime bool) string {
	s := ""
	if byTime {
		s = "Time limit exceeded, exiting...\n"
		if threads > 1 {
			s += fmt.Sprintf("(last message repeated %d times)\n", threads-1)
		}
	}
	return s + "Done.\n\n"
}

// LimitsLine says which limits end the run and which of them are the
// dialect's defaults (0.4/0.5: 10000 events; 1.0: 10 s).
func LimitsLine(c *Config) string {
	ev := "no event limit"
	if c.Events > 0 {
		ev = fmt.Sprintf("%d events", c.Events)
	}
	if !c.EventsSet {
		ev += fmt.Sprintf(" (sysbench %s default)", c.Dialect)
	}
	tm := "no time limit"
	if c.Time > 0 {
		tm = fmt.Sprintf("%d s", c.Time)
	}
	if !c.TimeSet {
		tm += fmt.Sprintf(" (sysbench %s default)", c.Dialect)
	}
	return "Limits: " + tm + ", " + ev + ", whichever comes first"
}
