package slap

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/goslap/goslap/internal/mysqlconn"
	"github.com/goslap/goslap/internal/results/jsondoc"

	"github.com/goslap/goslap/internal/templates"
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
}

// ErrInterrupted is wrapped by the error Run returns when ctx is cancelled.
var ErrInterrupted = errors.New("interrupted")

// Run executes a Plan against the server (spec section 3): for every engine,
// every concurrency value and every iteration it (re)creates the schema,
// loads the create list, runs the hooks and the timed load, and writes each
// concurrency value's Benchmark block (unless silent) and CSV line as soon as
// its iterations are done. It returns the results in order.
//
// Errors are *ExitError values ready for Main: exit status 1 with
// mysqlslap's wording, naming the statement, the server's error code and
// message. When ctx is cancelled (Ctrl-C, see RunWithSignals) the clients
// stop between statements and Run returns an ExitError with status 130.
// Either way, what this run created is dropped first unless --no-drop.
//
// Run first prints the Plan's BuildLog at --verbose ≥ 2 (mysqlslap prints
// those lines before it connects). --only-print is OnlyPrint's job, not Run's.
func Run(ctx context.Context, o *Options, p *sqlgen.Plan, out Output) (results []BenchmarkResult, err error) {
	if err := o.finishExtensions(); err != nil {
		return nil, err
	}
	seed := runSeed(o)
	var server *jsondoc.Server
	if out.Record != nil {
		seed = out.Record.Seed
		defer func() { out.Record.add(out.Target, server, results) }()
	}
	own, err := newRunRandom(o, p, seed)
	if err != nil {
		return nil, err
	}
	if o.Verbose >= 2 {
		for _, line := range p.BuildLog {
			io.WriteString(out.Stdout, line+"\n")
		}
	}
	r, err := newRunner(ctx, o, p, out)
	if err != nil {
		return nil, err
	}
	defer r.main.Close()
	defer r.closeLedger()
	r.own = own
	if out.Record != nil && o.Ext.JSONSet {
		server = serverInfo(r.main) // before the load changes anything
	}
	results, err = r.run()
	if err == nil {
		err = r.leaveSchema()
	}
	if err != nil {
		note := r.cleanup()
		if ctx.Err() != nil {
			err = &ExitError{Code: 130, Msg: ProgName + ": " + ErrInterrupted.Error()}
		}
		err = withNote(err, note)
	}
	return results, err
}

type runner struct {
	ctx     context.Context
	o       *Options
	p       *sqlgen.Plan
	out     Output
	verbose int

	mainConn *mysqlconn.Connector
	main     *mysqlconn.Conn
	workers  *mysqlconn.Connector
	// createdSchema: this run executed CREATE SCHEMA and has not dropped it
	// since; an aborted run drops it again (if it owns it).
	createdSchema bool
	// ledger writes the ownership marker's inventory (safety.go) when the
	// main connection has autocommit off; opened when first needed.
	ledger *mysqlconn.Conn

	// own is the run's seed, random streams and templates (random.go);
	// worker.go reads it under this name.
	own *runRandom
}

func newRunner(ctx context.Context, o *Options, p *sqlgen.Plan, out Output) (*runner, error) {
	r := &runner{ctx: ctx, o: o, p: p, out: out, verbose: o.Verbose}
	mainCfg, err := DriverConfig(o, "")
	if err != nil {
		return nil, Exitf(1, "%v", err)
	}
	workerCfg, err := DriverConfig(o, p.Schema)
	if err != nil {
		return nil, Exitf(1, "%v", err)
	}
	// MariaDB runs --init-command on worker connections only (spec 1.1).
	if r.mainConn, err = mysqlconn.NewConnector(mainCfg, ""); err != nil {
		return nil, Exitf(1, "%v", err)
	}
	if r.workers, err = mysqlconn.NewConnector(workerCfg, o.InitCommand); err != nil {
		return nil, Exitf(1, "%v", err)
	}
	if r.main, err = r.mainConn.Connect(nil); err != nil {
		_, msg := mysqlconn.ConnectError(err, mainCfg.Net, mainCfg.Addr)
		return nil, Exitf(1, "Error when connecting to server: %s", msg)
	}
	if o.SQLModeSet {
		// MySQL's behaviour: backticks, main connection only, "prog:<error>".
		stmt := "SET sql_mode = `" + o.SQLMode + "`"
		r.echo(stmt)
		if err := r.main.Exec(stmt); err != nil {
			r.main.Close()
			return nil, &ExitError{Code: 1, Msg: ProgName + ":" + mysqlconn.ErrorText(err)}
		}
	}
	if err := checkSchemaSafety(r.main, o, p); err != nil {
		r.main.Close()
		return nil, err
	}
	return r, nil
}

func (r *runner) run() ([]BenchmarkResult, error) {
	var results []BenchmarkResult
	for _, engine := range r.p.Engines {
		r.verbosef(2, "Starting Concurrency Test")
		for _, clients := range r.p.Concurrency {
			res, err := r.runConcurrency(clients, engine)
			if err != nil {
				return results, err
			}
			r.verbosef(2, "Generating stats")
			if err := r.report(&res); err != nil {
				return results, err
			}
			results = append(results, res)
		}
		if r.p.OwnsSchema {
			if err := r.dropSchema(); err != nil {
				return results, err
			}
		}
	}
	return results, nil
}

// report writes one result as soon as its concurrency value is done.
func (r *runner) report(res *BenchmarkResult) error {
	writeBlock, writeCSV := WriteBenchmark, WriteCSVLine
	if r.o.Ext.Latency {
		writeBlock, writeCSV = WriteBenchmarkLatency, WriteCSVLineLatency
	}
	if !r.o.Silent && !r.o.CSVSet && !r.o.OnlyPrint {
		if err := writeBlock(r.out.Stdout, res); err != nil {
			return Exitf(1, "writing the report: %v", err)
		}
	}
	if r.out.CSV != nil {
		if err := writeCSV(r.out.CSV, res); err != nil {
			return Exitf(1, "writing the CSV line: %v", err)
		}
	}
	return nil
}

// runConcurrency runs all iterations of one concurrency value (spec 3.2).
func (r *runner) runConcurrency(clients int, engine sqlgen.Engine) (BenchmarkResult, error) {
	limit := r.p.PerClientLimit(clients)
	res := BenchmarkResult{
		Engine:           engine.Name,
		HasEngine:        engine.Named,
		LoadType:         r.p.LoadType,
		Concurrency:      clients,
		QueriesPerClient: limit,
		IterationMillis:  make([]int64, 0, r.p.Iterations),
	}
	totals := newBenchTotals(r.o)
	for it := 0; it < r.p.Iterations; it++ {
		if err := r.ctx.Err(); err != nil {
			return res, err
		}
		r.own.nextLoad()
		if r.p.OwnsSchema {
			if err := r.dropSchema(); err != nil {
				return res, err
			}
		}
		if r.p.HasCreate {
			if err := r.createSchema(engine); err != nil {
				return res, err
			}
		}
		r.verbosef(2, "Generating primary key list")
		keys, err := r.primaryKeys(engine)
		if err != nil {
			return res, err
		}
		if r.p.Commit > 0 {
			if err := r.mainExec("SET AUTOCOMMIT=0"); err != nil {
				return res, err
			}
		}
		if err := r.system("pre_system", r.o.PreSystem); err != nil {
			return res, err
		}
		if err := r.mainList(r.p.PreQuery, r.own.pre); err != nil {
			return res, err
		}
		lp := newLoadPhase(r, clients, limit, keys)
		lp.label = progressLabel(engine, clients, it+1, r.p.Iterations)
		ms, err := lp.run()
		if err != nil {
			return res, err
		}
		res.IterationMillis = append(res.IterationMillis, ms)
		res.IterationBounds = append(res.IterationBounds, measuredBounds(lp))
		totals.add(lp.cs, lp.measured)
		if err := r.mainList(r.p.PostQuery, r.own.post); err != nil {
			return res, err
		}
		if err := r.system("post_system", r.o.PostSystem); err != nil {
			return res, err
		}
	}
	totals.finish(&res, r.o, r.out.Stderr)
	return res, nil
}

// measuredBounds are the wall-clock bounds of lp's measured part: from the
// end of the warm-up for the measured time. A phase that ended within its
// warm-up measured nothing; its bounds are then both its end.
func measuredBounds(lp *loadPhase) Bounds {
	from := lp.base.Add(lp.timing.warmup)
	if now := time.Now(); lp.measured == 0 && now.Before(from) {
		from = now
	}
	return Bounds{Start: from, End: from.Add(lp.measured)}
}

// progressLabel names a load phase on the progress line.
func progressLabel(engine sqlgen.Engine, clients, it, iterations int) string {
	label := fmt.Sprintf("%d clients, iteration %d/%d", clients, it, iterations)
	if engine.Named {
		label = engine.Name + ", " + label
	}
	return label
}

// quoteIdent back-quotes a schema name; a back-quote inside is doubled,
// which leaves every ordinary name exactly as mysqlslap writes it.
func quoteIdent(name string) string {
	return "`" + strings.ReplaceAll(name, "`", "``") + "`"
}

func (r *runner) dropSchema() error {
	stmt := "DROP SCHEMA IF EXISTS " + quoteIdent(r.p.Schema)
	r.echo(stmt)
	if err := r.main.Exec(stmt); err != nil {
		return Exitf(1, "Cannot drop database '%s' ERROR : %s", r.p.Schema, mysqlconn.ErrorText(err))
	}
	r.createdSchema = false
	return nil
}

func (r *runner) createSchema(engine sqlgen.Engine) error {
	r.verbosef(2, "Loading Pre-data")
	stmt := "CREATE SCHEMA " + quoteIdent(r.p.Schema)
	r.echo(stmt)
	if err := r.main.Exec(stmt); err != nil {
		return Exitf(1, "Cannot create schema %s : %s", r.p.Schema, mysqlconn.ErrorText(err))
	}
	r.createdSchema = true
	// DDL: on the main connection, right after CREATE SCHEMA's implicit commit.
	if err := createMarker(r.main, r.p.Schema); err != nil {
		return Exitf(1, "Cannot create schema %s : %s", r.p.Schema, mysqlconn.ErrorText(err))
	}
	// mysqlslap -vvv prints the CREATE SCHEMA line a second time (spec 4.3).
	r.echo(stmt)
	if err := r.main.Exec("USE " + quoteIdent(r.p.Schema)); err != nil {
		return Exitf(1, "Cannot select schema '%s': %s", r.p.Schema, mysqlconn.ErrorText(err))
	}
	for list := r.p.CreateList(); ; {
		s, i, ok := list.Next()
		if !ok {
			break
		}
		if err := r.ctx.Err(); err != nil {
			return err
		}
		if i >= 0 {
			s.Text = r.own.mainText(r.own.create, i, s.Text)
		}
		if err := r.mainExec(s.WithEngine(engine)); err != nil {
			return err
		}
	}
	if err := r.ledgerDo(func(c *mysqlconn.Conn) error { return recordInventory(c, r.p.Schema) }); err != nil {
		return Exitf(1, "%s", mysqlconn.ErrorText(err))
	}
	return nil
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
	if !r.createdSchema || r.p.OwnsSchema {
		return nil
	}
	if err := r.ledgerDo(func(c *mysqlconn.Conn) error { return recordInventory(c, r.p.Schema) }); err != nil {
		return Exitf(1, "%s", mysqlconn.ErrorText(err))
	}
	return nil
}

// primaryKeys is the key list of spec 2.6: nil without a primary key
// column, the fake key for blackhole engines, else every id in t1.
func (r *runner) primaryKeys(engine sqlgen.Engine) ([]string, error) {
	if !r.p.NeedsKeys {
		return nil, nil
	}
	if engine.UsesFakeKeys() {
		return []string{sqlgen.FakeKey}, nil
	}
	const stmt = "SELECT id from t1"
	r.echo(stmt)
	keys, err := r.main.QueryStrings(stmt)
	if err != nil {
		return nil, Exitf(1, "Cannot select GUID primary keys. (%s)", mysqlconn.ErrorText(err))
	}
	return keys, nil
}

// mainList runs a pre- or post-query list on the main connection,
// rendering its --templates placeholders (tmpl, nil without).
func (r *runner) mainList(list []sqlgen.Statement, tmpl []*templates.Template) error {
	for i, s := range list {
		if err := r.mainExec(r.own.mainText(tmpl, i, s.Text)); err != nil {
			return err
		}
	}
	return nil
}

func (r *runner) mainExec(stmt string) error {
	r.echo(stmt)
	if err := r.main.Exec(stmt); err != nil {
		return Exitf(1, "Cannot run query %s ERROR : %s", stmt, mysqlconn.ErrorText(err))
	}
	return nil
}

// system runs a --pre-system/--post-system hook (see runSystemHook).
func (r *runner) system(name, command string) error {
	if err := runSystemHook(r.ctx, name, command, r.out.Stdout, r.out.Stderr); err != nil {
		if r.ctx.Err() != nil {
			return err // Run turns it into the interrupt's exit status
		}
		return Exitf(1, "%v", err)
	}
	return nil
}

// cleanup drops the schema after a failed or interrupted run when this run
// created it and owns it (never with --no-drop). The main connection may be
// broken by then, so a failure is retried once on a fresh connection. It
// returns the line saying the drop failed ("" if it did not), which
// belongs after the error that ended the run, not before it.
func (r *runner) cleanup() string {
	if r.createdSchema && !r.p.OwnsSchema {
		_ = r.leaveSchema() // best effort: without it the schema is refused later, which is safe
		return ""
	}
	if !r.createdSchema {
		return ""
	}
	stmt := "DROP SCHEMA IF EXISTS " + quoteIdent(r.p.Schema)
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
		return &ExitError{Code: ee.Code, Msg: ee.Msg + "\n" + note}
	}
	return &ExitError{Code: 1, Msg: ProgName + ": " + err.Error() + "\n" + note}
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
