package mysqlslap

import (
	"fmt"
	"io"
	"time"

	"github.com/goslap/goslap/internal/latency"
	"github.com/goslap/goslap/internal/pacer"
	"github.com/goslap/goslap/internal/results"
	slapscript "github.com/goslap/goslap/internal/workload/mysqlslap"
	"github.com/goslap/goslap/sqlgen"
)

// benchmarkResult is one mysqlslap benchmark (engine × concurrency value)
// from the engine's results of its iterations: the iteration times in
// mysqlslap's milliseconds and goslap's measurements of the --query
// statements. It warns on stderr when a --rate was not held or errors
// were ignored.
//
// share is what ran here: all of clients and --rate, or a shard's part of
// them (the per-client limit stays that of all clients).
func benchmarkResult(c *Config, e sqlgen.Engine, clients int, share loadShare, benches []*results.Benchmark, stderr io.Writer) BenchmarkResult {
	p := c.Plan
	res := BenchmarkResult{
		Engine:           e.Name,
		HasEngine:        e.Named,
		LoadType:         p.LoadType,
		Concurrency:      share.Clients,
		QueriesPerClient: p.PerClientLimit(clients),
		IterationMillis:  make([]int64, 0, len(benches)),
	}
	rec := latency.NewRecorder(c.Limits.Rate > 0)
	var seconds float64
	for _, b := range benches {
		res.IterationMillis = append(res.IterationMillis, iterationMillis(b.Start, b.End))
		res.IterationBounds = append(res.IterationBounds, Bounds{Start: b.Start, End: b.Start.Add(b.Elapsed)})
		if q := b.Ops[slapscript.OpQuery].Recorder; q != nil {
			rec.Merge(q)
		}
		seconds += b.Elapsed.Seconds()
	}
	res.FinishMeasurements(rec, seconds)
	if c.Limits.TimeBound && res.Concurrency > 0 {
		// "Average number of queries per client" of a time-bound run is
		// what the clients executed, not a configured limit.
		iters := uint64(max(len(res.IterationMillis), 1))
		res.QueriesPerClient = res.Executed / uint64(res.Concurrency) / iters
	}
	if share.Rate > 0 {
		res.TargetRate = share.Rate
		pc := pacer.Pacer{Rate: share.Rate, Clients: res.Concurrency}
		res.RateKept = pc.Kept(res.QPS)
		if !res.RateKept {
			fmt.Fprintf(stderr, "%s: warning: the clients could not keep --rate=%g: achieved %.1f queries per second (%d clients, largest start delay %v)\n",
				ProgName, share.Rate, res.QPS, res.Concurrency, res.MaxLag.Round(time.Millisecond))
		}
	}
	if res.Errors > 0 && !c.Outputs.Latency && !c.Silent {
		// Ignored errors are always worth a word, even without --latency.
		for _, e := range res.ErrorsByCode {
			fmt.Fprintf(stderr, "%s: ignored error %d %d times (%s)\n", ProgName, e.Code, e.Count, e.Message)
		}
	}
	return res
}

// loadShare is the part of a load's clients and --rate that runs here.
type loadShare struct {
	Clients int
	Rate    float64
}
