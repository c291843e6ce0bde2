package orchestrator

import (
	"context"
	"time"

	"github.com/goslap/goslap/internal/engine"
	"github.com/goslap/goslap/internal/mysqlconn"
	"github.com/goslap/goslap/internal/results"
	"github.com/goslap/goslap/internal/workload"
	"github.com/goslap/goslap/internal/workload/report"
)

// Loop is the one loop of every load goslap runs on a connected target:
// engines × scales × concurrency × iterations, each iteration's
// BeginIteration, Load, engine.Run and EndIteration, with the observers
// told as it goes. Run (the full matrix over targets and server-option
// values) runs one Loop per target; the front ends that connect to their
// one server themselves (mysqlslap's load, `goslap sysbench`, tpcc-start)
// run one Loop directly. No other code calls engine.Run.
//
// A front end's own knobs are hooks: Point prepares an engine × scale
// (and says whether its runs happen), Plan adjusts each iteration's engine
// plan, Word turns the engine's error into the front end's wording.
type Loop struct {
	// Target labels the results ("" leaves Benchmark.Target empty);
	// Setting is the server-option value of a sweep ("" without).
	Target  string
	Setting string
	// Round and Rounds label the cells of one round of several (Run's
	// interleaved rounds); 0 without rounds.
	Round, Rounds int
	// Name is the workload's registered name, recorded in each Benchmark
	// ("" leaves it empty).
	Name     string
	Workload workload.Workload
	// Session is the target's main connection and helpers; Clients the
	// connector of the clients' connections.
	Session *workload.Session
	Clients *mysqlconn.Connector

	Engines     []Engine // nil: one point with the default engine
	Scales      []int64  // nil: one point with the workload's own size
	Concurrency []int    // at least one
	Iterations  int      // at least one

	Limits Limits

	// Point, if set, runs before the runs of one engine × scale. It says
	// whether they run (a prepare or cleanup phase runs none) and returns
	// finish (nil: none), which is called after them with their error and
	// returns the error that ends the point. When Point fails it has
	// cleaned up itself.
	Point func(ctx context.Context, p workload.Point, e Engine) (run bool, finish func(error) error, err error)
	// Plan, if set, adjusts an iteration's engine plan before it runs; the
	// after function it returns (may be nil) is called right after the load
	// (before EndIteration) with its result and returns the error to go on
	// with.
	Plan func(it workload.Iteration, p *engine.Plan) (after func(*results.Benchmark, error) error, err error)
	// Word, if set, words an error of the engine (engine.ConnectError,
	// engine.ClientError, engine.ErrInterrupted, ...) for the front end; it
	// is applied after Plan's after function.
	Word func(error) error
	// Summaries asks a workload with its own cell report (report.CellSummariser)
	// for it, in Cell.Summary.
	Summaries bool

	// Observer: Begin, Interval, Iteration and Cell are used.
	Observer Observer

	// Metrics, if set, samples the server around every measured
	// iteration (metrics.go); the cells keep what it saw in Servers.
	Metrics  *Metrics
	sampling *sampling
	last     *IterationServer // the iteration's, for series
}

// Limits are what stops and paces every iteration of a Loop (engine.Plan).
type Limits struct {
	Events   uint64
	Duration time.Duration
	Warmup   time.Duration
	Rate     float64
	Ignore   func(code uint16) bool
	Seed     uint64
	// ReportInterval, with Observer.Interval, gives live snapshots.
	ReportInterval time.Duration
}

// Run runs the loop and returns its cells in order, the failed one last.
func (l *Loop) Run(ctx context.Context) (cells []*Cell, err error) {
	defer l.end()
	engines := l.Engines
	if len(engines) == 0 {
		engines = []Engine{{}}
	}
	scales := l.Scales
	if len(scales) == 0 {
		scales = []int64{0}
	}
	for _, e := range engines {
		for _, scale := range scales {
			p := workload.Point{Engine: e.Name, EngineOptions: e.Options, Clients: l.Concurrency[0], Scale: scale}
			got, err := l.point(ctx, p, e)
			cells = append(cells, got...)
			if err != nil {
				return cells, err
			}
		}
	}
	return cells, nil
}

// end closes the loop's server sampling (after its last cell).
func (l *Loop) end() {
	l.sampling.close()
	l.sampling = nil
}

// point runs one engine × scale: Point, then the concurrency × iteration
// runs, then Point's finish.
func (l *Loop) point(ctx context.Context, p workload.Point, e Engine) (cells []*Cell, err error) {
	run := true
	var finish func(error) error
	if l.Point != nil {
		if run, finish, err = l.Point(ctx, p, e); err != nil {
			return nil, err
		}
	}
	if run {
		cells, err = l.series(ctx, p, e)
	}
	if finish != nil {
		err = finish(err)
	}
	return cells, err
}

// series runs the concurrency × iteration runs of one point.
func (l *Loop) series(ctx context.Context, p workload.Point, e Engine) (cells []*Cell, err error) {
	for _, clients := range l.Concurrency {
		c, err := l.cell(ctx, p, e, clients)
		cells = append(cells, c)
		if err != nil {
			return cells, err
		}
	}
	return cells, nil
}

// cell runs the iterations of one point at one concurrency (one side's
// share of a round when Run interleaves rounds).
func (l *Loop) cell(ctx context.Context, p workload.Point, e Engine, clients int) (c *Cell, err error) {
	var summariser report.CellSummariser
	if l.Summaries {
		summariser, _ = l.Workload.(report.CellSummariser)
	}
	c = &Cell{Target: l.Target, Engine: e, Scale: p.Scale, Setting: l.Setting, Clients: clients, Round: l.Round, Rounds: l.Rounds, workload: l.Workload}
	pc := p
	pc.Clients = clients
	for n := 1; n <= l.Iterations; n++ {
		b, err := l.iteration(ctx, workload.Iteration{Point: pc, Number: n})
		if b != nil {
			c.Benchmarks = append(c.Benchmarks, b)
			c.Servers = append(c.Servers, l.last)
			if summariser != nil {
				c.states = append(c.states, summariser.IterationDone(b))
			}
		}
		if err != nil {
			return c, err
		}
	}
	if summariser != nil {
		if c.Summary, err = summariser.CellSummary(pc, c.Benchmarks, c.states); err != nil {
			return c, err
		}
	}
	if l.Observer.Cell != nil {
		if err := l.Observer.Cell(c); err != nil {
			return c, err
		}
	}
	return c, nil
}

// iteration is one run of the load on the engine.
func (l *Loop) iteration(ctx context.Context, it workload.Iteration) (*results.Benchmark, error) {
	s := l.Session
	if err := l.Workload.BeginIteration(ctx, s, it); err != nil {
		return nil, err
	}
	load, err := l.Workload.Load(it)
	if err != nil {
		return nil, err
	}
	if l.Observer.Begin != nil {
		l.Observer.Begin(l.Target, it)
	}
	lim := l.Limits
	plan := engine.Plan{Connector: l.Clients, Workload: l.Workload, Load: load, Iteration: it, Clients: it.Clients,
		Events: lim.Events, Duration: lim.Duration, Warmup: lim.Warmup, Rate: lim.Rate,
		Ignore: lim.Ignore, Seed: lim.Seed}
	l.keepIntervals(&plan)
	var after func(*results.Benchmark, error) error
	if l.Plan != nil {
		if after, err = l.Plan(it, &plan); err != nil {
			return nil, err
		}
	}
	var sampled *iterationSampling
	if s := l.sampler(ctx); s != nil {
		sampled = s.begin(ctx, &plan)
	}
	b, err := engine.Run(ctx, plan)
	l.last = sampled.end(ctx)
	if b != nil {
		if l.Name != "" {
			b.Workload = l.Name
		}
		if l.Target != "" {
			b.Target = l.Target
		}
	}
	if after != nil {
		err = after(b, err)
	}
	if err != nil {
		if l.Word != nil {
			err = l.Word(err)
		}
		return b, err
	}
	if err := l.Workload.EndIteration(ctx, s, it); err != nil {
		return b, err
	}
	if l.Observer.Iteration != nil {
		if err := l.Observer.Iteration(l.Target, b); err != nil {
			return b, err
		}
	}
	return b, nil
}
