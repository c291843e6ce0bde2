package orchestrator

import (
	"context"
	"errors"
	"os"
	"time"

	"github.com/goslap/goslap/internal/engine"
	"github.com/goslap/goslap/internal/results/jsondoc"
	"github.com/goslap/goslap/internal/shard"
)

// Sharding makes the study one shard of a run split over several
// processes (package shard): it runs its segment of every iteration's
// clients, events and rate, starts each iteration with the other shards,
// prepares the data only on shard 0 (the others wait for it) and cleans up
// only on shard 0, after every shard has finished.
type Sharding struct {
	Starter   *shard.Starter // DB is set to the target's main connection
	endedOnce bool           // ended ran
}

// checkSharding refuses what a shard cannot honour.
func (c *Config) checkSharding() error {
	sh := c.Shard
	if sh == nil {
		return nil
	}
	spec := sh.Starter.Spec
	for _, n := range c.Clients {
		if err := spec.Check(n); err != nil {
			return err
		}
	}
	switch {
	case len(c.Targets) > 1 || c.Server.Active():
		return errors.New("--shard runs one target: --target lists and --sweep-server-option cannot be split over shards")
	case len(c.Engines) > 1 || len(c.Scales) > 1:
		return errors.New("--shard runs one engine and one size: the shards prepare and clean up once per run")
	case c.Phase == PhaseCleanup && spec.Index != 0:
		return errors.New("--shard: only shard 0 cleans up")
	case c.Phase == PhaseCheck:
		return errors.New("--shard: the check command runs alone, without --shard")
	}
	return nil
}

// plan applies the shard's part of an iteration to p.
func (sh *Sharding) plan(p *engine.Plan) {
	spec := sh.Starter.Spec
	total := p.Clients
	p.FirstClientID, p.Clients = spec.Clients(total)
	p.Events = spec.Events(p.Events)
	p.Rate = spec.Rate(p.Rate, total)
	p.Start = sh.Starter.Start
}

// prepares says whether this process loads the data.
func (sh *Sharding) prepares() bool { return sh == nil || sh.Starter.Spec.Index == 0 }

// prepared is called after the data is ready (shard 0) or waits for it.
func (sh *Sharding) prepared(ctx context.Context) error {
	if sh == nil {
		return nil
	}
	if sh.prepares() {
		return sh.Starter.Prepared()
	}
	return sh.Starter.WaitPrepared(ctx)
}

// finished records this shard's end; shard 0 waits for every other shard
// before it cleans up.
func (sh *Sharding) finished(ctx context.Context) error {
	if sh == nil {
		return nil
	}
	if err := sh.Starter.Finished(); err != nil {
		return err
	}
	if sh.prepares() {
		return sh.Starter.WaitFinished(ctx)
	}
	return nil
}

// reset drops what an earlier run with the same id left (shard 0, before
// it prepares: the other shards only wait until then), keeping the abort
// rows of this run's shards.
func (sh *Sharding) reset() error {
	if sh == nil {
		return nil
	}
	return sh.Starter.Reset()
}

// forget removes the run's barrier rows (shard 0, after its cleanup).
func (sh *Sharding) forget() error {
	if sh == nil || !sh.prepares() {
		return nil
	}
	return sh.Starter.Forget()
}

// ended is called once the shard's run ends with err (twice is once):
// it returns the error to report (shard.Starter.Ended: another shard's
// abort when one came first) and has this shard's abort written.
func (sh *Sharding) ended(ctx context.Context, err error, log func(string, ...any)) error {
	if sh == nil || err == nil || sh.endedOnce {
		return err
	}
	sh.endedOnce = true
	firstBy, werr := sh.Starter.Ended(ctx, err)
	if werr != nil {
		log("%v", werr)
	}
	if firstBy != nil {
		return firstBy
	}
	return err
}

// ShardDocument is a shard's result document (JSON v2 with its shard
// section) of a finished study: base has the invocation's front end,
// options and seed; the benchmarks are the cells' (cellBenchmark, as in
// Document), with the shard's own clients as concurrency and its part of
// the rate (merge adds them up).
func ShardDocument(base *jsondoc.Document, cfg *Config, res *Result, runErr error) (*jsondoc.Document, error) {
	d := *base
	d.FinishedAt = time.Now().UTC()
	st := cfg.Shard.Starter
	host, _ := os.Hostname()
	d.Shard = &jsondoc.Shard{Index: st.Spec.Index, Count: st.Spec.Count, RunID: st.RunID, Host: host,
		ClockOffsetMicros: st.Offset.Microseconds(), StartLateMicros: []int64{}}
	for _, l := range st.Late {
		d.Shard.StartLateMicros = append(d.Shard.StartLateMicros, l.Microseconds())
	}
	d.Shard.PlanHash = jsondoc.PlanHash(&d)
	d.Targets = []jsondoc.Target{{Label: "server", Kind: "server", Server: &jsondoc.Server{Variables: map[string]string{}}}}
	d.Benchmarks = []jsondoc.Benchmark{}
	for _, c := range res.Cells {
		// The shard's clients, paced at its share of --rate: merge adds
		// both up.
		_, clients := st.Spec.Clients(c.Clients)
		b, err := cellBenchmark(cfg, c, clients, st.Spec.Rate(cfg.Rate, c.Clients))
		if err != nil {
			return nil, err
		}
		d.Benchmarks = append(d.Benchmarks, b)
	}
	if runErr != nil {
		d.Error = runErr.Error()
	}
	return &d, nil
}
