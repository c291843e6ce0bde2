package mysqlslap

import (
	"context"
	"errors"
	"fmt"
	"io"
	"sync"
	"sync/atomic"
	"time"

	"github.com/go-sql-driver/mysql"

	"github.com/goslap/goslap/internal/engine"
	"github.com/goslap/goslap/internal/mysqlconn"
	"github.com/goslap/goslap/internal/orchestrator"
	"github.com/goslap/goslap/internal/results"
	"github.com/goslap/goslap/internal/results/jsondoc"
	"github.com/goslap/goslap/internal/shard"
	"github.com/goslap/goslap/internal/workload"
	slapscript "github.com/goslap/goslap/internal/workload/mysqlslap"
	"github.com/goslap/goslap/sqlgen"
)

// Output says where a run writes. Stdout and Stderr must be set; CSV and
// Record are optional.
type Output struct {
	// Stdout receives the Benchmark blocks, the --verbose lines and the -vvv
	// statement echo. If it has a Flush method (bufio.Writer), it is flushed
	// before --pre-system/--post-system run so their output comes after ours.
	Stdout io.Writer
	// Stderr receives warnings (the pre/post-system exit status).
	Stderr io.Writer
	// CSV is the --csv destination (see OpenCSV); nil without --csv.
	CSV io.Writer
	// Record, if set, receives this run's server and results under the
	// label Target (for the --json document of the whole invocation).
	Record *RunRecord
	Target string
	// Shard, if set, makes the run one shard of a run split over several
	// machines (see shardRun); nil runs everything here.
	Shard *shard.Starter
}

// ErrInterrupted is wrapped by the error Run returns when ctx is cancelled.
var ErrInterrupted = errors.New("interrupted")

// errInterruptedExit is how an interrupted run ends: "goslap: interrupted",
// status 130.
func errInterruptedExit() error {
	return &ExitError{Code: 130, Msg: ProgName + ": " + ErrInterrupted.Error(), Err: ErrInterrupted}
}

// Run executes c.Plan against the server (spec section 3): it runs the
// run's mysqlslap script (internal/workload/mysqlslap) through the
// orchestrator's loop: for every engine, every concurrency value and every
// iteration the main connection's steps (schema, create list, hooks) run
// here and the timed load runs on the engine; each concurrency value's Benchmark block (unless silent) and CSV
// line are written from the engine's results as soon as its iterations are
// done. It returns the results in order.
//
// Errors are *ExitError values ready for Main: exit status 1 with
// mysqlslap's wording, naming the statement, the server's error code and
// message. When ctx is cancelled (Ctrl-C, see RunWithSignals) the clients
// stop between statements and Run returns an ExitError with status 130.
// Either way, what this run created is dropped first unless --no-drop.
//
// Run first prints the Plan's BuildLog at --verbose ≥ 2 (mysqlslap prints
// those lines before it connects). --only-print is OnlyPrint's job, not Run's.
func Run(ctx context.Context, c *Config, out Output) (results []BenchmarkResult, err error) {
	var r *runner
	if out.Record != nil {
		defer func() {
			var server *jsondoc.Server
			if r != nil {
				server = r.server
			}
			out.Record.add(out.Target, server, results)
		}()
	}
	if r, err = startRun(ctx, c, out); err != nil {
		return nil, err
	}
	_, err = r.loop().Run(ctx)
	err = r.finish(err)
	return r.results, err
}

// startRun readies a run up to its loop: the script, the main connection
// (the schema's safety checked), the shard's part and the server's
// description; finish ends it.
func startRun(ctx context.Context, c *Config, out Output) (r *runner, err error) {
	p, verbose := c.Plan, c.Outputs.Verbose
	cfg := c.Script
	if out.Record != nil {
		cfg.Seed = out.Record.Seed
	}
	r = &runner{ctx: ctx, c: c, p: p, out: out, verbose: verbose, seed: cfg.Seed}
	if verbose >= 2 {
		cfg.Note = func(line string) { io.WriteString(out.Stdout, line+"\n") }
	}
	if verbose >= 3 {
		var mu sync.Mutex // the clients echo concurrently
		cfg.Echo = func(line string) {
			mu.Lock()
			io.WriteString(out.Stdout, line+"\n")
			mu.Unlock()
		}
	}
	cfg.SchemaCreated = func(c *mysqlconn.Conn) error { return createMarker(c, p.Schema) }
	cfg.TablesCreated = func(*mysqlconn.Conn) error {
		return r.ledgerDo(func(c *mysqlconn.Conn) error { return recordInventory(c, p.Schema) })
	}
	cfg.System = func(_ context.Context, name, command string) error { return r.system(name, command) }
	if r.script, err = newScript(cfg); err != nil {
		return nil, err
	}
	if cfg.Note != nil {
		for _, line := range p.BuildLog {
			cfg.Note(line)
		}
	}
	if err := r.connect(); err != nil {
		return nil, err
	}
	if out.Shard != nil {
		if r.shard, err = startShardRun(r, out.Shard); err != nil {
			r.closeLedger()
			r.main.Close()
			return nil, err
		}
	}
	if out.Record != nil && c.Outputs.JSON {
		r.server = serverInfo(r.main) // before the load changes anything
	}
	return r, nil
}

// finish ends a started run whose loop ended with err: the shard's end,
// the kept schema's inventory, or after an error the clean-up (and the
// interrupt's exit status); then it closes the connections. It returns
// the error that ends the run.
func (r *runner) finish(err error) error {
	defer r.main.Close()
	defer r.closeLedger()
	if r.shard != nil {
		defer r.shard.close()
	}
	if err == nil && r.shard != nil {
		err = r.shard.end()
	}
	if err == nil {
		err = r.leaveSchema()
	}
	if err != nil {
		if r.shard != nil {
			err = r.shard.ended(err)
		}
		note := r.cleanup()
		if r.ctx.Err() != nil {
			err = errInterruptedExit()
		}
		err = withNote(err, note)
	}
	return err
}

// runner is one Run: the main connection, the worker connector and the
// orchestrator's loop (see loop).
type runner struct {
	ctx     context.Context
	c       *Config
	p       *sqlgen.Plan // c.Plan
	out     Output
	verbose int
	seed    uint64
	script  *slapscript.Script

	mainConn *mysqlconn.Connector
	main     *mysqlconn.Conn
	workers  *mysqlconn.Connector
	// ledger writes the ownership marker's inventory (safety.go) when the
	// main connection has autocommit off; opened when first needed.
	ledger *mysqlconn.Conn

	// benches are the current benchmark's iterations; results the
	// finished benchmarks.
	benches []*results.Benchmark
	results []BenchmarkResult

	// shard is this process's part of a split run; nil: the whole run.
	shard *shardRun
	// loads counts the loads begun (the script's load numbers).
	loads int
	// engine is the engine whose runs are under way.
	engine sqlgen.Engine
	// serverCfg reaches the server without a schema (its sampling).
	serverCfg *mysql.Config
	// server is what the server reported before the load (--json).
	server *jsondoc.Server
	// rounds are the round of each of results in a run of rounds (nil
	// without).
	rounds []int
}

func (r *runner) connect() error {
	p, conn := r.p, r.c.Connection
	mainCfg, err := conn.Driver("")
	if err != nil {
		return exitWith(err)
	}
	workerCfg, err := conn.Driver(p.Schema)
	if err != nil {
		return exitWith(err)
	}
	r.serverCfg = mainCfg
	// MariaDB runs --init-command on worker connections only (spec 1.1).
	if r.mainConn, err = mysqlconn.NewConnector(mainCfg, ""); err != nil {
		return exitWith(err)
	}
	if r.workers, err = mysqlconn.NewConnector(workerCfg, conn.InitCommand); err != nil {
		return exitWith(err)
	}
	if r.main, err = r.mainConn.Connect(nil); err != nil {
		_, msg := mysqlconn.ConnectError(err, mainCfg.Net, mainCfg.Addr)
		return Exitf(1, "Error when connecting to server: %s", msg)
	}
	if conn.SQLModeSet {
		// MySQL's behaviour: backticks, main connection only, "prog:<error>".
		stmt := "SET sql_mode = `" + conn.SQLMode + "`"
		r.echo(stmt)
		if err := r.main.Exec(stmt); err != nil {
			r.main.Close()
			return &ExitError{Code: 1, Msg: ProgName + ":" + mysqlconn.ErrorText(err), Err: err}
		}
	}
	if r.out.Shard != nil && r.out.Shard.Spec.Index != 0 {
		return nil // shard 0 creates and drops the schema, and checks it is goslap's
	}
	if err := checkSchemaSafety(r.main, r.c.AllowDropExisting, p); err != nil {
		r.main.Close()
		return err
	}
	return nil
}

// Note prints a --verbose line of the script's walk.
func (r *runner) Note(line string) { r.verbosef(2, line) }

// Main performs one main-connection step of the script.
func (r *runner) Main(st slapscript.Step) error {
	if r.shard != nil {
		if run, err := r.shard.step(st.Kind, r.loads+1); !run || err != nil {
			return err
		}
	}
	err := r.script.Exec(r.ctx, r.main, st)
	var se *slapscript.Error
	if errors.As(err, &se) {
		return Exitf(1, "%s", se)
	}
	return err
}

// loop is the run's loop in the orchestrator, mysqlslap's outer loop
// (spec 3.2): for every engine, every concurrency value and every
// iteration, the main connection's steps (schema, create list, hooks) run
// here, before and after the timed load on the engine; each concurrency
// value's results are reported as soon as its iterations are done.
func (r *runner) loop() *orchestrator.Loop {
	lim := r.c.Limits
	l := &orchestrator.Loop{Workload: scriptSteps{r.script, r}, Session: &workload.Session{Main: r.main}, Clients: r.workers,
		Concurrency: r.p.Concurrency, Iterations: r.p.Iterations,
		Limits: orchestrator.Limits{Duration: lim.Duration, Warmup: lim.Warmup, Rate: lim.Rate, Seed: r.seed, Ignore: lim.Ignore},
		Plan:   r.plan, Metrics: r.metrics()}
	for _, e := range r.p.Engines {
		l.Engines = append(l.Engines, orchestrator.Engine{Name: e.Name, Options: e.Options})
	}
	engine := -1
	l.Point = func(context.Context, workload.Point, orchestrator.Engine) (bool, func(error) error, error) {
		engine++
		r.engine = r.p.Engines[engine]
		r.Note("Starting Concurrency Test")
		return true, func(err error) error {
			if err == nil && r.p.OwnsSchema {
				err = r.Main(r.script.DropSchema())
			}
			return err
		}, nil
	}
	l.Observer.Cell = func(c *orchestrator.Cell) error {
		r.Note("Generating stats")
		return r.done(r.engine, c)
	}
	return l
}

// scriptSteps is the run's script as the orchestrator's workload: the main
// connection's steps of an iteration go through the runner (shards, error
// wording).
type scriptSteps struct {
	*slapscript.Script
	r *runner
}

func (w scriptSteps) BeginIteration(context.Context, *workload.Session, workload.Iteration) error {
	return w.Before(w.r.engine, w.r.Main)
}

func (w scriptSteps) EndIteration(context.Context, *workload.Session, workload.Iteration) error {
	return w.After(w.r.Main)
}

// plan is mysqlslap's part of an iteration's engine plan: its clients'
// limits, the shard's part, the progress line.
func (r *runner) plan(it workload.Iteration, plan *engine.Plan) (func(*results.Benchmark, error) error, error) {
	if err := r.ctx.Err(); err != nil {
		return nil, err
	}
	r.loads++
	load := plan.Load.(*slapscript.Load)
	clients := it.Clients
	plan.PerClientEvents = load.Units
	plan.Uniform = true
	plan.ConnectAfterStart = true // mysqlslap's threads connect on the clock
	if b := r.c.Limits.ThreadBelow; b != nil {
		below := *b
		plan.ThreadPerClientBelow = &below
	}
	if r.shard != nil {
		if err := r.shard.plan(plan, load, r.loads); err != nil {
			return nil, err
		}
	}
	var bar *progressLine
	if f := progressTerminal(r.c, r.out.Stderr); f != nil {
		// The line counts the queries of the engine's snapshots.
		var done atomic.Uint64
		plan.ReportInterval = progressInterval
		plan.OnInterval = func(iv results.Interval) {
			if len(iv.Ops) > slapscript.OpQuery {
				done.Add(uint64(iv.Ops[slapscript.OpQuery].Count))
			}
		}
		var total uint64
		for id := range plan.Clients {
			total += load.Statements(plan.FirstClientID + id)
		}
		bar = startProgress(f, progressLabel(r.engine, clients, it.Number, r.p.Iterations), total, r.c.Limits.Duration, done.Load)
	}
	return func(b *results.Benchmark, err error) error {
		bar.end()
		if err != nil {
			return r.loadError(err)
		}
		r.benches = append(r.benches, b)
		if r.shard != nil {
			return r.shard.loaded(r.loads)
		}
		return nil
	}, nil
}

// loadError is the message of the error that stopped a load, in
// mysqlslap's words.
func (r *runner) loadError(err error) error {
	var stmt *slapscript.StatementError
	var conn *engine.ConnectError
	switch {
	case r.ctx.Err() != nil:
		return r.ctx.Err() // Run turns it into the interrupt's exit status
	case errors.As(err, &stmt):
		return Exitf(1, "%s", stmt)
	case errors.As(err, &conn):
		return Exitf(1, "%s", conn)
	}
	return exitWith(err)
}

// Done reports one benchmark (engine × concurrency value) from its
// iterations' results, as soon as they are done.
func (r *runner) done(e sqlgen.Engine, c *orchestrator.Cell) error {
	clients := c.Clients
	rate := r.c.Limits.Rate
	share := loadShare{Clients: clients, Rate: rate}
	if r.shard != nil {
		share = r.shard.share(clients, rate)
	}
	res := benchmarkResult(r.c, e, clients, share, r.benches, r.out.Stderr)
	r.benches = r.benches[:0]
	res.Server, res.Intervals = orchestrator.CellServer(c, "query")
	if c.Rounds > 1 && !r.c.Silent {
		// Which side and round the block is (rounds.go).
		if r.c.Sandbox.Compare {
			fmt.Fprintf(r.out.Stdout, "Target: %s, round %d of %d\n", r.out.Target, c.Round, c.Rounds)
		} else {
			fmt.Fprintf(r.out.Stdout, "Round %d of %d\n", c.Round, c.Rounds)
		}
	}
	if err := r.report(&res); err != nil {
		return err
	}
	if r.c.Outputs.ServerReport && !r.c.Silent {
		if err := writeServerLines(r.out.Stdout, c); err != nil {
			return err
		}
	}
	r.results = append(r.results, res)
	if c.Rounds > 1 {
		r.rounds = append(r.rounds, c.Round)
	}
	return nil
}

// report writes one result as soon as its concurrency value is done.
func (r *runner) report(res *BenchmarkResult) error {
	return writeResult(r.out.Stdout, r.out.CSV, res, !r.c.Silent, r.c.Outputs.Latency)
}

// progressLabel names a load on the progress line.
func progressLabel(engine sqlgen.Engine, clients, it, iterations int) string {
	label := fmt.Sprintf("%d clients, iteration %d/%d", clients, it, iterations)
	if engine.Named {
		label = engine.Name + ", " + label
	}
	return label
}

// ledgerDo runs f (which writes the ownership marker's inventory) where it
// cannot change the benchmark: on the main connection while it is in
// autocommit mode (no extra connection, as mysqlslap opens none), else on
// the ledger connection, so the marker neither joins nor commits the main
// connection's open transaction (--commit).
func (r *runner) ledgerDo(f func(*mysqlconn.Conn) error) error {
	if on, err := r.main.QueryStrings("SELECT @@autocommit"); err == nil && len(on) == 1 && on[0] == "1" {
		return f(r.main)
	}
	if r.ledger == nil {
		c, err := r.mainConn.Connect(nil)
		if err != nil {
			return err
		}
		if err := c.Exec("SET autocommit = 1"); err != nil {
			c.Close()
			return err
		}
		r.ledger = c
	}
	return f(r.ledger)
}

func (r *runner) closeLedger() {
	if r.ledger != nil {
		r.ledger.Close()
	}
}

// leaveSchema records the final inventory of a schema this run created and
// keeps (--no-drop), so that a later run can prove it is goslap's: the load
// may have created objects since the create list.
func (r *runner) leaveSchema() error {
	if !r.script.CreatedSchema() || r.p.OwnsSchema {
		return nil
	}
	if err := r.ledgerDo(func(c *mysqlconn.Conn) error { return recordInventory(c, r.p.Schema) }); err != nil {
		return Exitf(1, "%s", mysqlconn.ErrorText(err))
	}
	return nil
}

// system runs a --pre-system/--post-system hook (see runSystemHook).
func (r *runner) system(name, command string) error {
	if err := runSystemHook(r.ctx, name, command, r.out.Stdout, r.out.Stderr); err != nil {
		if r.ctx.Err() != nil {
			return err // Run turns it into the interrupt's exit status
		}
		return exitWith(err)
	}
	return nil
}

// cleanup drops the schema after a failed or interrupted run when this run
// created it and owns it (never with --no-drop). The main connection may be
// broken by then, so a failure is retried once on a fresh connection. It
// returns the line saying the drop failed ("" if it did not), which
// belongs after the error that ended the run, not before it.
func (r *runner) cleanup() string {
	created := r.script.CreatedSchema()
	if created && !r.p.OwnsSchema {
		_ = r.leaveSchema() // best effort: without it the schema is refused later, which is safe
		return ""
	}
	if !created {
		return ""
	}
	stmt := "DROP SCHEMA IF EXISTS " + mysqlconn.QuoteName(r.p.Schema)
	if r.main.Exec(stmt) == nil {
		return ""
	}
	fresh, err := r.mainConn.Connect(nil)
	if err != nil {
		code, msg := r.mainConn.ConnectError(err)
		return fmt.Sprintf("%s: could not drop schema '%s' after the error: %d %s", ProgName, r.p.Schema, code, msg)
	}
	defer fresh.Close()
	if err := fresh.Exec(stmt); err != nil {
		return fmt.Sprintf("%s: could not drop schema '%s' after the error: %s", ProgName, r.p.Schema, mysqlconn.ErrorText(err))
	}
	return ""
}

// withNote appends note (a complete line, may be "") to the message of the
// error that ended the run, so the cause is printed first.
func withNote(err error, note string) error {
	if note == "" {
		return err
	}
	var ee *ExitError
	if errors.As(err, &ee) {
		return &ExitError{Code: ee.Code, Msg: ee.Msg + "\n" + note, Err: ee.Err}
	}
	return &ExitError{Code: 1, Msg: ProgName + ": " + err.Error() + "\n" + note, Err: err}
}

// verbosef prints one --verbose line when the level is at least min.
func (r *runner) verbosef(min int, line string) {
	if r.verbose >= min {
		io.WriteString(r.out.Stdout, line+"\n")
	}
}

// echo prints a main-connection statement at -vvv, as mysqlslap does.
func (r *runner) echo(stmt string) {
	if r.verbose >= 3 {
		io.WriteString(r.out.Stdout, stmt+";\n")
	}
}

// iterationMillis is mysqlslap's timer arithmetic (spec 3.4): whole seconds
// times 1000 plus the microsecond difference divided by 1000, each part
// truncated separately (C integer division toward zero).
func iterationMillis(start, end time.Time) int64 {
	sec := end.Unix() - start.Unix()
	usec := int64(end.Nanosecond()/1000) - int64(start.Nanosecond()/1000)
	return sec*1000 + usec/1000
}
