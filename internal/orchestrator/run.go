package orchestrator

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/go-sql-driver/mysql"

	"github.com/goslap/goslap/internal/engine"
	"github.com/goslap/goslap/internal/interrupt"
	"github.com/goslap/goslap/internal/mysqlconn"
	"github.com/goslap/goslap/internal/results"
	"github.com/goslap/goslap/internal/results/jsondoc"
	"github.com/goslap/goslap/internal/results/matrix"
	"github.com/goslap/goslap/internal/target"
	"github.com/goslap/goslap/internal/workload"
)

// Cell is one engine × size × concurrency point of one target, measured
// over the iterations.
type Cell struct {
	Target  string
	Engine  Engine
	Scale   int64  // 0: the workload's own size
	Setting string // "NAME=VALUE" of the server-option sweep, "" without
	Clients int
	// Round is the cell's round (1..Rounds) when the study ran several
	// interleaved rounds (Config.Rounds); 0 without.
	Round, Rounds int
	// TableEngine is the engine the server gave the tables when none was
	// asked for (Engine.Name ""), as the prepare found it; "" unknown.
	TableEngine string
	Benchmarks  []*results.Benchmark // one per iteration
	// Servers are what the server sampling saw in each iteration (nil
	// entries: not sampled); see Metrics.
	Servers []*IterationServer
	// Summary is the workload's own report of the cell (TPC-C's tpmC
	// sections), nil for workloads without one (see report.CellSummariser).
	Summary any

	workload workload.Workload // the target's, for the JSON document
	states   []any             // report.CellSummariser's, one per iteration
}

// Observer is told what a study does, for reports. Every field may be nil.
type Observer struct {
	// Target: a target's runs start.
	Target func(label string)
	// Prepared: Setup loaded a point's tables; sizes are what the server
	// (and, for a sandbox, its data directory) says they take.
	// setting is the server-option value of the sweep ("" without).
	Prepared func(target, setting string, p workload.Point, sizes []TableSize)
	// Begin: one iteration is about to run (after its tables were checked).
	Begin func(target string, it workload.Iteration)
	// Interval: a live snapshot (Config.ReportInterval).
	Interval func(results.Interval)
	// Iteration: one iteration ended.
	Iteration func(target string, b *results.Benchmark) error
	// Cell: all iterations of a cell ended.
	Cell func(c *Cell) error
	// Log: a progress or warning line (CREATE TABLE warnings, phases).
	Log func(format string, args ...any)
	// Say: what the workload does to the server's tables beyond loading
	// them (each drop, what an interrupted prepare left), for the main
	// output; nil sends it to Log.
	Say func(format string, args ...any)
	// Checked: the check phase's report (TPC-C's <Consistency Check>
	// section), passed or not.
	Checked func(target, report string)
}

// consistencyChecker is the optional capability of a workload whose data
// can be verified: the check phase runs it (TPC-C's consistency
// conditions). It returns the report to print and, when the data fails,
// an error naming the condition.
type consistencyChecker interface {
	ConsistencyCheck(ctx context.Context, s *workload.Session) (string, error)
}

// Result is what a study measured, for the front end's own reports.
type Result struct {
	Outcomes []target.Outcome
	Cells    []*Cell
	// Servers are what each target's server reported before the load
	// (Config.ReadServers), by target label.
	Servers map[string]*jsondoc.Server
	// Mode says how the sides ran: "" for each target in turn, once;
	// with Config.Rounds, the rounds' mode and order.
	Mode string
}

// Run runs the study. The first error ends it; a full run's tables are
// dropped on every way out (unless NoDrop), the sandboxes stopped and
// removed.
func Run(ctx context.Context, cfg *Config) (*Result, error) {
	if err := cfg.Check(); err != nil {
		return nil, err
	}
	wl, err := cfg.Settings.Build(cfg.Workload, cfg.Common)
	if err != nil {
		return nil, err
	}
	if _, ok := wl.(consistencyChecker); cfg.Phase == PhaseCheck && !ok {
		return nil, fmt.Errorf("the check command verifies a workload's data, and workload %s has no check (tpcc has)", cfg.Workload)
	}
	targets := cfg.Targets
	if len(targets) == 0 {
		targets = []target.Target{{Label: "server", Kind: target.Server}}
	}
	res := &Result{Servers: map[string]*jsondoc.Server{}}
	values := []string{""}
	if cfg.Server.Active() {
		values = cfg.Server.Values
	}
	if cfg.Rounds > 1 {
		return runRounds(ctx, cfg, targets, values, res)
	}
	byLabel := map[string]int{}
	for _, v := range values {
		setting := ""
		ccfg := target.Config{DefaultBinary: cfg.DefaultBinary, Base: cfg.Base, TempDir: cfg.TempDir,
			SandboxOptions: append([]string(nil), cfg.SandboxOptions...)}
		if v != "" {
			setting = cfg.Server.Name + "=" + v
			ccfg.SandboxOptions = append(ccfg.SandboxOptions, setting)
		}
		if cfg.Observer.Log != nil && len(cfg.Targets) > 0 {
			ccfg.Progress = func(label, msg string) { cfg.Observer.Log("target %s: %s", label, msg) }
		}
		ccfg.Bench = func(ctx context.Context, label string, ep target.Endpoint) ([]matrix.Point, error) {
			r := runner{cfg: cfg, label: label, ep: ep, setting: setting, res: res}
			cells, err := r.target(ctx)
			res.Cells = append(res.Cells, cells...)
			return points(cells), err
		}
		outs, err := target.Run(ctx, targets, ccfg)
		// One outcome per target across the sweep: the setting is a
		// dimension of its points.
		for _, o := range outs {
			if i, ok := byLabel[o.Target.Label]; ok {
				res.Outcomes[i].Points = append(res.Outcomes[i].Points, o.Points...)
				continue
			}
			if setting != "" {
				o.Description = strings.TrimSuffix(strings.Replace(o.Description, setting, cfg.Server.Name+" swept", 1), " ()")
			}
			byLabel[o.Target.Label] = len(res.Outcomes)
			res.Outcomes = append(res.Outcomes, o)
		}
		if err != nil {
			var te *target.TargetError
			if len(cfg.Targets) == 0 && errors.As(err, &te) {
				err = te.Err // the one default server: no label to name
			}
			return res, err
		}
	}
	return res, nil
}

// points summarises cells for the comparison table and chart.
func points(cells []*Cell) []matrix.Point {
	var out []matrix.Point
	for _, c := range cells {
		s := Summarise(c.Benchmarks)
		out = append(out, matrix.Point{Engine: c.engineLabel(), Concurrency: c.Clients, Iterations: len(c.Benchmarks),
			AvgSeconds: s.AvgSeconds, QPS: s.QPS, P99Millis: s.P99Millis, Size: c.Scale, Setting: c.Setting})
	}
	return out
}

// engineLabel is the engine as asked for, or else as the server gave it.
func (c *Cell) engineLabel() string {
	if l := c.Engine.Label(); l != "" {
		return l
	}
	return c.TableEngine
}

// runner runs the matrix on one target.
type runner struct {
	cfg     *Config
	label   string
	ep      target.Endpoint
	setting string
	res     *Result
	conn    *mysqlconn.Connector // to the schema
	root    *mysqlconn.Connector // without a schema
	rootCfg *mysql.Config        // root's driver configuration (the server sampling's)
	clients *mysqlconn.Connector // to the schema, with the clients' --init-command
	wl      workload.Workload
	// tableEngine is the engine of the prepared tables (Cell.TableEngine).
	tableEngine string
}

func (r *runner) log(format string, args ...any) {
	if r.cfg.Observer.Log != nil {
		r.cfg.Observer.Log(format, args...)
	}
}

func (r *runner) target(ctx context.Context) (cells []*Cell, err error) {
	cfg := r.cfg
	if err := r.setup(); err != nil {
		return nil, err
	}
	if cfg.Observer.Target != nil {
		cfg.Observer.Target(r.label)
	}
	main, err := r.mainConn()
	if err != nil {
		return nil, err
	}
	defer main.Close()
	if cfg.Shard != nil {
		cfg.Shard.Starter.DB = main
		// Before main closes: the other shards learn of this one's end.
		defer func() { err = cfg.Shard.ended(ctx, err, r.log) }()
	}
	r.readServer(main)
	return r.loop(r.session(main)).Run(ctx)
}

// setup opens the target's connectors and builds its workload.
func (r *runner) setup() error {
	cfg := r.cfg
	schemaCfg, err := cfg.Driver(r.ep, cfg.Common.Schema)
	if err != nil {
		return err
	}
	rootCfg, err := cfg.Driver(r.ep, "")
	if err != nil {
		return err
	}
	r.rootCfg = rootCfg
	if r.conn, err = mysqlconn.NewConnector(schemaCfg, ""); err != nil {
		return err
	}
	if r.root, err = mysqlconn.NewConnector(rootCfg, ""); err != nil {
		return err
	}
	if r.clients, err = mysqlconn.NewConnector(schemaCfg, cfg.InitCommand); err != nil {
		return err
	}
	// A fresh workload per target: its record of what it created is this
	// target's.
	r.wl, err = cfg.Settings.Build(cfg.Workload, cfg.Common)
	return err
}

// readServer records what the target's server reports (Config.ReadServers).
func (r *runner) readServer(main *mysqlconn.Conn) {
	if r.cfg.ReadServers {
		if _, seen := r.res.Servers[r.label]; !seen {
			r.res.Servers[r.label] = jsondoc.ReadServer(main.QueryStrings, mysqlconn.ErrorText)
		}
	}
}

func (r *runner) session(main *mysqlconn.Conn) *workload.Session {
	return &workload.Session{Main: main, Connect: r.connect, Log: r.log, Say: r.cfg.Observer.Say, Progress: func(string, int64, int64) {}}
}

// loop is the target's Loop over the configured matrix.
func (r *runner) loop(s *workload.Session) *Loop {
	cfg := r.cfg
	l := &Loop{Target: r.label, Setting: r.setting, Name: cfg.Workload, Workload: r.wl, Session: s, Clients: r.clients,
		Engines: cfg.Engines, Scales: cfg.Scales, Concurrency: cfg.Clients, Iterations: cfg.Iterations,
		Limits: Limits{Events: cfg.Events, Duration: cfg.Duration, Warmup: cfg.Warmup, Rate: cfg.Rate,
			Ignore: cfg.Ignore, Seed: cfg.Common.Seed, ReportInterval: cfg.ReportInterval},
		Point: func(ctx context.Context, p workload.Point, _ Engine) (bool, func(error) error, error) {
			return r.prepare(ctx, s, p)
		},
		Word: studyWording.Word, Summaries: true,
		Observer: Observer{Begin: cfg.Observer.Begin, Interval: cfg.Observer.Interval,
			Iteration: cfg.Observer.Iteration, Cell: func(c *Cell) error {
				if c.Engine.Name == "" {
					c.TableEngine = r.tableEngine
				}
				if cfg.Observer.Cell != nil {
					return cfg.Observer.Cell(c)
				}
				return nil
			}}}
	l.Metrics = r.metrics(r.rootCfg)
	if cfg.Shard != nil {
		l.Plan = func(_ workload.Iteration, p *engine.Plan) (func(*results.Benchmark, error) error, error) {
			cfg.Shard.plan(p)
			return nil, nil
		}
	}
	return l
}

// mainConn opens the main connection and selects the schema; a full run
// or prepare creates the schema when it is missing (and never drops it).
func (r *runner) mainConn() (*mysqlconn.Conn, error) {
	m, err := r.root.Connect(nil)
	if err != nil {
		return nil, connectError(r.root, err)
	}
	schema := r.cfg.Common.Schema
	q := "`" + strings.ReplaceAll(schema, "`", "``") + "`"
	if r.cfg.Phase == PhaseAll || r.cfg.Phase == PhasePrepare {
		if err := m.Exec("CREATE DATABASE IF NOT EXISTS " + q); err != nil {
			m.Close()
			return nil, fmt.Errorf("creating schema %s: %w", schema, err)
		}
	}
	if err := m.Exec("USE " + q); err != nil {
		m.Close()
		return nil, fmt.Errorf("schema %s: %w", schema, err)
	}
	return m, nil
}

func (r *runner) connect() (*mysqlconn.Conn, error) {
	c, err := r.conn.Connect(nil)
	if err != nil {
		return nil, connectError(r.conn, err)
	}
	return c, nil
}

func connectError(c *mysqlconn.Connector, err error) error {
	code, msg := c.ConnectError(err)
	return fmt.Errorf("Error when connecting to server: %d %s", code, msg)
}

// prepare readies one engine × size as the phase says (prepare, or
// cleanup or check alone) and says whether the concurrency × iteration
// runs follow; finish ends the point after them: the shards' end, the
// teardown of a full run.
func (r *runner) prepare(ctx context.Context, s *workload.Session, p workload.Point) (run bool, finish func(error) error, err error) {
	cfg := r.cfg
	// After the runs: shard 0 cleans up (the deferred teardown) once
	// every shard is done.
	finished := func(err error) error {
		if err != nil {
			return err
		}
		if err := cfg.Shard.finished(ctx); err != nil {
			return err
		}
		return cfg.Shard.forget()
	}
	switch cfg.Phase {
	case PhaseCleanup:
		// An interrupt cuts the DROP in flight and fails the rest fast.
		s, stop := workload.Interruptible(ctx, s)
		defer stop()
		return false, nil, r.wl.Teardown(ctx, s, p)
	case PhaseCheck:
		report, err := r.wl.(consistencyChecker).ConsistencyCheck(ctx, s)
		if report != "" && cfg.Observer.Checked != nil {
			cfg.Observer.Checked(r.label, report)
		}
		return false, nil, err
	case PhaseRun:
		return true, finished, nil
	}
	// PhaseAll, PhasePrepare.
	if !cfg.Shard.prepares() {
		// Shard 0 loads the data; the others wait for it.
		if err := cfg.Shard.prepared(ctx); err != nil || cfg.Phase == PhasePrepare {
			return false, nil, err
		}
		return true, finished, nil
	}
	if err := cfg.Shard.reset(); err != nil {
		return false, nil, err
	}
	setupErr := r.wl.Setup(ctx, s, p)
	end := func(err error) error { return err }
	if cfg.Phase == PhaseAll && !cfg.NoDrop {
		end = func(err error) error {
			// Before the teardown drops what the other shards' clients use.
			err = cfg.Shard.ended(ctx, err, r.log)
			// Drop what this run created, also after an error or an
			// interrupt (on a fresh connection if the main one broke).
			if terr := r.teardown(ctx, s, p); terr != nil && err == nil {
				err = terr
			} else if terr != nil {
				r.log("cleaning up: %v", terr)
			}
			return err
		}
	} else if setupErr != nil {
		// A failed prepare leaves nothing half-made behind.
		if terr := r.teardown(ctx, s, p); terr != nil {
			r.log("cleaning up after the failed prepare: %v", terr)
		}
	}
	if setupErr != nil {
		return false, nil, end(setupErr)
	}
	sizes, serr := Sizes(s.Main, r.wl, p, r.ep.Sandbox)
	if serr != nil {
		return false, nil, end(serr)
	}
	if len(sizes) > 0 {
		r.tableEngine = sizes[0].Engine
	}
	if cfg.Observer.Prepared != nil {
		cfg.Observer.Prepared(r.label, r.setting, p, sizes)
	}
	if err := cfg.Shard.prepared(ctx); err != nil {
		return false, nil, end(err)
	}
	if cfg.Phase == PhasePrepare {
		return false, nil, end(nil)
	}
	return true, func(err error) error { return end(finished(err)) }, nil
}

// teardown runs Teardown, on a fresh main connection when the old one
// broke or the run's context ended (an interrupted Setup cuts its
// statements: the main connection is then gone), with a context that
// outlives the interrupt for a limited time (interrupt.Cleanup).
func (r *runner) teardown(run context.Context, s *workload.Session, p workload.Point) error {
	ctx, cancel := interrupt.Cleanup(run)
	defer cancel()
	if run.Err() == nil {
		if err := r.wl.Teardown(ctx, s, p); err == nil {
			return nil
		}
	}
	m, err := r.mainConn()
	if err != nil {
		return err
	}
	defer m.Close()
	fresh := *s
	fresh.Main = m
	// The time limit cuts a DROP in flight and fails the rest fast.
	cut, stop := workload.Interruptible(ctx, &fresh)
	defer stop()
	err = r.wl.Teardown(ctx, cut, p)
	if err != nil && ctx.Err() != nil {
		return fmt.Errorf("the clean-up after the interrupt ran out of time; tables this run created in schema %s may be left: run cleanup", r.cfg.Common.Schema)
	}
	return err
}

// studyWording is how the study words the engine's errors: one line.
var studyWording = Wording{
	Client: func(cl *engine.ClientError) string {
		return fmt.Sprintf("%s: ERROR %d %s (client %d)", cl.Op, cl.Code, cl.Message, cl.Client)
	},
	Interrupted: ErrInterrupted,
}

// ErrInterrupted is a study ended by its context (Ctrl-C).
var ErrInterrupted = errors.New("interrupted")

// Summary is a cell's figures over its iterations.
type Summary struct {
	AvgSeconds, MinSeconds, MaxSeconds float64
	Events, Statements                 uint64 // summed over the iterations
	Elapsed                            time.Duration
	TPS, QPS                           float64
	P99Millis                          float64
}

// Summarise computes a cell's figures.
func Summarise(bs []*results.Benchmark) Summary {
	var s Summary
	if len(bs) == 0 {
		return s
	}
	s.MinSeconds = bs[0].Elapsed.Seconds()
	var all []*results.Benchmark
	for _, b := range bs {
		sec := b.Elapsed.Seconds()
		s.AvgSeconds += sec / float64(len(bs))
		s.MinSeconds, s.MaxSeconds = min(s.MinSeconds, sec), max(s.MaxSeconds, sec)
		s.Events += b.Events
		s.Statements += b.Tally.Reads + b.Tally.Writes + b.Tally.Other
		s.Elapsed += b.Elapsed
		all = append(all, b)
	}
	if sec := s.Elapsed.Seconds(); sec > 0 {
		s.TPS, s.QPS = float64(s.Events)/sec, float64(s.Statements)/sec
	}
	if h := merged(all).Service; h.TotalCount() > 0 {
		s.P99Millis = float64(h.ValueAtQuantile(99)) / 1000
	}
	return s
}
