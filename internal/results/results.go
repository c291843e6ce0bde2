// Package results is what a benchmark produced, independent of how it was
// asked for and of how it will be shown: the engine fills a Benchmark, the
// reporters (mysqlslap's block, sysbench's report, JSON, charts, tables)
// read it. Nothing here refers to a command line or to the engine.
package results

import (
	"time"

	"github.com/goslap/goslap/internal/latency"
	"github.com/goslap/goslap/internal/workload"
)

// Benchmark is one measured iteration of one point of the matrix.
type Benchmark struct {
	Workload string // registered workload name
	Target   string // target label, "" for the single default target
	Point    workload.Iteration

	// Start and End are the wall-clock bounds of the measured phase (after
	// warm-up); Elapsed is End-Start from the monotonic clock.
	Start, End time.Time
	Elapsed    time.Duration

	// Events is the number of completed measured units (Client.Next calls
	// that returned no error) across all clients, warm-up excluded.
	Events uint64
	// Ops holds one recorder per workload op (index = op id, name =
	// workload.Ops()[id]): service time per unit and, for paced runs, the
	// time since its scheduled start. Ignored errors are counted on the op
	// that failed; reconnects on the op that broke the connection.
	Ops []Op
	// Tally sums the clients' statement counts.
	Tally workload.Tally
	// Clients is one entry per client, in client-id order (sysbench's
	// "Threads fairness").
	Clients []Client
	// Intervals are the periodic snapshots taken during the run, in order
	// (empty without a report interval).
	Intervals []Interval
	// StoppedBy says which limit ended the load: "events", "time",
	// "interrupt" or "error".
	StoppedBy string
}

// Op is the measurements of one kind of measured unit.
type Op struct {
	Name string
	*latency.Recorder
}

// Client is one client's share of the work.
type Client struct {
	Events uint64
	// Busy is the time the client spent inside Next (its "execution time").
	Busy time.Duration
}

// Interval is the activity between two snapshots.
type Interval struct {
	// At is the end of the interval, measured from the start of the load.
	At         time.Duration
	Length     time.Duration
	Clients    int // clients running at the snapshot
	Events     uint64
	Tally      workload.Tally
	Errors     uint64 // ignored errors
	Reconnects uint64
	// Latency holds the interval's per-unit service time across all ops;
	// Ops the same per op (index = op id), for reports that show one kind
	// of unit apart (tpcc-mysql's New-Order line).
	Latency latency.Percentiles
	Ops     []latency.Percentiles
}

// Total merges the ops' recorders into one: every measured unit whatever
// its kind (sysbench's per-event latency).
func (b *Benchmark) Total() *latency.Recorder {
	paced := false
	for _, op := range b.Ops {
		if op.Recorder != nil && op.Intended != nil {
			paced = true
		}
	}
	all := latency.NewRecorder(paced)
	for _, op := range b.Ops {
		if op.Recorder != nil {
			all.Merge(op.Recorder)
		}
	}
	return all
}
