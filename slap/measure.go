package slap

import (
	"fmt"
	"io"
	mrand "math/rand"
	"sync/atomic"
	"time"

	"github.com/goslap/goslap/internal/latency"
	"github.com/goslap/goslap/internal/pacer"
)

// clientState is what a client of a load phase keeps beside mysqlslap's
// loop: its latency recorder, its progress count and its --templates
// rendering state. Only its client writes it during the load; done is read
// by the progress line.
type clientState struct {
	rec  *latency.Recorder
	done atomic.Uint64 // queries finished, warm-up included (progress)
	rand *mrand.Rand   // --templates source
	buf  []byte        // rendered statement, reused
	_    [64]byte      // keep neighbouring clients' counters off this cache line
}

// benchTotals accumulates one benchmark's measurements over its
// iterations.
type benchTotals struct {
	rec     *latency.Recorder
	seconds float64
}

func newBenchTotals(o *Options) *benchTotals {
	return &benchTotals{rec: latency.NewRecorder(o.Ext.Rate > 0)}
}

// add merges one load phase's client recorders.
func (bt *benchTotals) add(cs []clientState, measured time.Duration) {
	for i := range cs {
		if cs[i].rec != nil {
			bt.rec.Merge(cs[i].rec)
		}
	}
	bt.seconds += measured.Seconds()
}

// finish fills res's Measurements and warns on stderr when a --rate was
// not held or errors were ignored.
func (bt *benchTotals) finish(res *BenchmarkResult, o *Options, stderr io.Writer) {
	res.finishMeasurements(bt.rec, bt.seconds)
	if timeBound(o) && res.Concurrency > 0 {
		// "Average number of queries per client" of a time-bound run is
		// what the clients executed, not a configured limit.
		iters := uint64(max(len(res.IterationMillis), 1))
		res.QueriesPerClient = res.Executed / uint64(res.Concurrency) / iters
	}
	if o.Ext.Rate > 0 {
		res.TargetRate = o.Ext.Rate
		p := pacer.Pacer{Rate: o.Ext.Rate, Clients: res.Concurrency}
		res.RateKept = p.Kept(res.QPS)
		if !res.RateKept {
			fmt.Fprintf(stderr, "%s: warning: the clients could not keep --rate=%g: achieved %.1f queries per second (%d clients, largest start delay %v)\n",
				ProgName, o.Ext.Rate, res.QPS, res.Concurrency, res.MaxLag.Round(time.Millisecond))
		}
	}
	if res.Errors > 0 && !o.Ext.Latency && !o.Silent {
		// Ignored errors are always worth a word, even without --latency.
		for _, e := range res.ErrorsByCode {
			fmt.Fprintf(stderr, "%s: ignored error %d %d times (%s)\n", ProgName, e.Code, e.Count, e.Message)
		}
	}
}
