package sysbench

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"sort"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/goslap/goslap/internal/engine"
	"github.com/goslap/goslap/internal/getopt"
	"github.com/goslap/goslap/internal/interrupt"
	"github.com/goslap/goslap/internal/mysqlconn"
	"github.com/goslap/goslap/internal/orchestrator"
	"github.com/goslap/goslap/internal/results"
	"github.com/goslap/goslap/internal/target"
	"github.com/goslap/goslap/internal/workload"
	"github.com/goslap/goslap/internal/workload/oltp"
)

// Version is goslap's version, printed where sysbench prints its own; the
// caller (package main) sets it from goslap's.
var Version = "dev"

// Env is where Main writes and what it may wait on.
type Env struct {
	Stdout, Stderr io.Writer
	// Context ends the run early (Ctrl-C); nil means goslap's signal
	// policy (internal/interrupt).
	Context context.Context
}

// Main runs `goslap sysbench ARGS…` (args without the word "sysbench") and
// returns the exit status: 0, or 1 after any error, as sysbench does. A
// FATAL line is never followed by a report.
func Main(args []string, env Env) int {
	out, errw := env.Stdout, env.Stderr
	c, err := Parse(args)
	if err != nil {
		return fail(out, errw, err)
	}
	if c.Extras.JSONSet && c.Extras.JSON == "" && !c.Help && !c.Version {
		// The document is all stdout holds: sysbench's log and FATAL
		// lines go to stderr, the report nowhere.
		c.Extras.jsonOut, out = out, errw
	}
	for _, w := range c.Warnings {
		fmt.Fprintln(out, w)
	}
	for _, n := range c.Notes {
		fmt.Fprintln(errw, n)
	}
	if c.Version {
		fmt.Fprintf(out, "goslap %s (sysbench 1.0.20, 0.5 and 0.4 command lines)\n", Version)
		return 0
	}
	if c.Help || c.Test == "" {
		usage(out)
		if c.Help {
			return 0
		}
		return 1
	}
	if c.Command == "" && c.Dialect != Dialect10 {
		// sysbench 0.4 and 0.5 say so on stderr before anything else,
		// then print their usage.
		fmt.Fprintln(errw, "Missing required command argument.")
		usage(out)
		return 1
	}
	fmt.Fprint(out, VersionLine(Version, c.Dialect))
	fmt.Fprintln(out)
	c.out = out
	meta, settings, err := Resolve(c)
	if err != nil {
		return fail(out, errw, err)
	}
	if c.Command == "help" && c.Script != "" {
		if err := scriptHelp(context.Background(), c, settings, out); err != nil {
			return fail(out, errw, err)
		}
		return 0
	}
	if c.Command == "help" {
		workloadHelp(out, meta, settings, c.Dialect)
		return 0
	}
	if c.Command == "" && c.Script != "" {
		fmt.Fprintln(out, scriptCommandRequired(c, settings))
		return 1
	}
	if c.Command == "" {
		// sysbench 1.0.20 also lists prewarm, which goslap refuses.
		fmt.Fprintln(out, "FATAL: Command is required. Supported commands: prepare, run, cleanup, help")
		return 1
	}
	if c.Dialect == Dialect04 && !c.DBDriverSet {
		fmt.Fprintln(out, "No DB drivers specified, using mysql")
	}
	ctx := env.Context
	var watch *interrupt.Watch
	if ctx == nil {
		watch = interrupt.Start(progName, errw)
		defer watch.Stop()
		watchCommand(watch, c)
		ctx = watch.Context()
	}
	if err := execute(ctx, c, settings, out, errw); err != nil {
		if interrupt.Is(ctx, err) {
			if c.Command == "cleanup" && watch != nil && watch.Left() != "" {
				fmt.Fprintf(errw, "%s: %s\n", progName, watch.Left())
			}
			return interrupt.End(errw, progName)
		}
		return fail(out, errw, err)
	}
	return 0
}

// progName prefixes goslap's own messages (not sysbench's FATAL lines).
const progName = "goslap"

// watchCommand tells w what an interrupted command may leave: on sandboxes
// it waits for their shutdown (a server must not outlive goslap), else a
// forced exit during prepare names the tables.
func watchCommand(w *interrupt.Watch, c *Config) {
	if c.Extras.SandboxSet {
		w.Patient(interrupt.SandboxPatience)
		return
	}
	for _, spec := range c.Extras.Targets {
		if t, err := target.ParseTarget(spec); err == nil && t.Kind == target.Sandbox {
			w.Patient(interrupt.SandboxPatience)
			return
		}
	}
	switch c.Command {
	case "prepare":
		w.Leaving(fmt.Sprintf("tables this prepare created in schema %s may be left: run cleanup", c.MySQL.DB))
	case "cleanup":
		w.Leaving(fmt.Sprintf("tables of schema %s not dropped yet are left: run cleanup again", c.MySQL.DB))
	}
}

// fail prints err as sysbench would (FATAL lines on stdout, option errors
// on stderr) and returns 1.
func fail(out, errw io.Writer, err error) int {
	var pe *ParseError
	if errors.As(err, &pe) {
		if pe.Stdout {
			fmt.Fprintln(out, pe.Msg)
		} else {
			fmt.Fprintln(errw, pe.Msg)
		}
		return 1
	}
	for _, l := range strings.Split(err.Error(), "\n") {
		fmt.Fprintln(out, "FATAL: "+l)
	}
	return 1
}

func fatalf(format string, args ...any) error {
	return &ParseError{Msg: "FATAL: " + fmt.Sprintf(format, args...), Stdout: true}
}

// execute runs one command once the options are valid.
func execute(ctx context.Context, c *Config, settings workload.Settings, out, errw io.Writer) error {
	if len(c.Refused) > 0 {
		return errors.New(strings.Join(c.Refused, "\n"))
	}
	if c.Command == "warmup" {
		return fatalf("the %s command cannot be honoured: goslap's OLTP workloads have no warm-up command", c.Command)
	}
	cfgs, err := DriverConfigs(c.MySQL)
	if err != nil {
		return err
	}
	if len(cfgs) != 1 {
		return fatalf("%d server addresses (--mysql-host/--mysql-port/--mysql-socket lists) cannot be honoured: goslap sysbench connects every client to one address", len(cfgs))
	}
	seed := c.Seed
	if !c.SeedSet {
		seed = uint64(time.Now().UnixNano())
	}
	if c.Extras.Active() {
		return runStudy(ctx, c, settings, cfgs[0], seed, out, errw)
	}
	if err := checkSampling(c, 1); err != nil {
		return err
	}
	// Verbose 1: prepare and cleanup describe their phases, as sysbench does.
	wl, err := settings.Build(c.Workload, workload.Common{Schema: c.MySQL.DB, Seed: seed, Verbose: 1})
	if err != nil {
		return err
	}
	conn, err := mysqlconn.NewConnector(cfgs[0], "")
	if err != nil {
		return err
	}
	cfg := cfgs[0]
	connect := func() (*mysqlconn.Conn, error) {
		cn, err := conn.Connect(nil)
		if err != nil {
			return nil, connectError(cfg.Net, cfg.Addr, err)
		}
		return cn, nil
	}
	point := workload.Point{Clients: c.Threads}
	if c.ThreadList != nil {
		point.Clients = slicesMax(c.ThreadList)
	}
	session := func() (*workload.Session, func(), error) {
		m, err := connect()
		if err != nil {
			return nil, nil, err
		}
		s := &workload.Session{Main: m, Connect: connect,
			Log:      func(format string, args ...any) { fmt.Fprintf(out, format+"\n", args...) },
			Progress: func(string, int64, int64) {}}
		return s, func() { m.Close() }, nil
	}

	if scriptCommandWord(c) {
		s, done, err := session()
		if err != nil {
			return err
		}
		defer done()
		return scriptCommand(ctx, c, wl, s, point.Clients)
	}
	switch c.Command {
	case "prepare":
		s, done, err := session()
		if err != nil {
			return err
		}
		defer done()
		if err := wl.Setup(ctx, s, point); err != nil {
			// What this prepare created goes, and Teardown says so.
			cleanUpAfterSetup(ctx, wl, session, point, c.MySQL.DB, errw)
			return err
		}
		return nil
	case "cleanup":
		s, done, err := session()
		if err != nil {
			return err
		}
		defer done()
		// An interrupt cuts the DROP in flight and fails the rest fast.
		s, stop := workload.Interruptible(ctx, s)
		defer stop()
		return wl.Teardown(ctx, s, point)
	}

	// run: once, or once per thread count of a --threads list (a sweep),
	// each with its own header and report, then a summary table.
	if c.Events == 0 && c.Time == 0 {
		return fatalf("--events=0 and --time=0: nothing would end the run")
	}
	pct := c.Percentile
	if c.ReportInterval > 0 && pct != 0 && pct != 50 && pct != 95 && pct != 99 {
		return fatalf("--percentile=%d with --report-interval cannot be honoured: goslap's interval lines show the 50th, 95th or 99th percentile", pct)
	}
	s, done, err := session()
	if err != nil {
		return err
	}
	defer done()
	counts := c.ThreadList
	if counts == nil {
		counts = []int{c.Threads}
	}
	var sweep []Report
	l := &orchestrator.Loop{Workload: wl, Session: s, Clients: conn, Concurrency: counts, Iterations: 1,
		Limits: orchestrator.Limits{Events: c.Events, Duration: time.Duration(c.Time) * time.Second,
			Rate: float64(c.Rate), Ignore: scriptIgnore(c, c.ignore()), Seed: seed, ReportInterval: time.Duration(c.ReportInterval) * time.Second},
		Word: func(err error) error {
			if se, ok := scriptRunError(err); ok {
				return se
			}
			return wording.Word(err)
		}}
	var headerErr error
	l.Observer.Begin = func(_ string, it workload.Iteration) {
		var mode *oltp.Mode04
		// sysbench 0.4's header describes its OLTP test (this front end's
		// own workload), in 0.4's terms.
		if o, ok := wl.(*oltp.Workload); ok && c.Dialect == Dialect04 {
			m := o.Mode04()
			mode = &m
		}
		h := header(c, it.Clients, mode, errw)
		headerErr = h.Write(out)
	}
	l.Observer.Interval = scriptIntervals(wl, pct, out, func(iv results.Interval) { fmt.Fprint(out, oltp.IntervalLine(iv, pct)) })
	l.Plan = func(workload.Iteration, *engine.Plan) (func(*results.Benchmark, error) error, error) {
		return nil, headerErr
	}
	l.Observer.Iteration = func(_ string, b *results.Benchmark) error {
		r, err := report(c, wl, b, out, errw)
		sweep = append(sweep, r)
		if err == nil && len(sweep) < len(counts) {
			fmt.Fprintln(out) // between the reports of a sweep
		}
		return err
	}
	if _, err := l.Run(ctx); err != nil {
		return err
	}
	if len(counts) > 1 {
		return writeSweep(out, counts, sweep)
	}
	return nil
}

// cleanUpAfterSetup runs Teardown after a failed or interrupted prepare, so that
// what the prepare created is dropped (the workload decides what and says
// so): on a fresh connection (the interrupted Setup cut its own) and with
// interrupt.Cleanup's time limit. What it cannot drop it names on errw.
func cleanUpAfterSetup(ctx context.Context, wl workload.Workload, session func() (*workload.Session, func(), error),
	point workload.Point, schema string, errw io.Writer) {
	// A fresh connection (an interrupt cuts the prepare's), under a context
	// an interrupt does not end at once but limits.
	cctx, cancel := interrupt.Cleanup(ctx)
	defer cancel()
	s, done, err := session()
	if err == nil {
		defer done()
		// The time limit cuts a DROP in flight and fails the rest fast.
		s, stop := workload.Interruptible(cctx, s)
		err = wl.Teardown(cctx, s, point)
		stop()
	}
	switch {
	case err != nil && cctx.Err() != nil:
		fmt.Fprintf(errw, "%s: the clean-up after the interrupt ran out of time; tables this prepare created in schema %s may be left: run cleanup\n", progName, schema)
	case err != nil:
		fmt.Fprintf(errw, "%s: dropping what the failed prepare created: %v; tables it created in schema %s may be left: run cleanup\n", progName, err, schema)
	}
}

// report prints the report of one run (one thread count) from its
// results, and says which default limit ended it.
func report(c *Config, wl workload.Workload, b *results.Benchmark, out, errw io.Writer) (Report, error) {
	threads := b.Point.Clients
	if c.Dialect == Dialect04 {
		fmt.Fprint(out, Trailer04(threads, b.StoppedBy == "time"))
	}
	r := FromBenchmark(b, c.Dialect, c.Percentile)
	// A script's report_cumulative hook replaces the report, as in sysbench.
	if hooked, err := scriptReport(wl, &r, threads, out); hooked || err != nil {
		if err != nil {
			return r, err
		}
	} else if err := r.Write(out); err != nil {
		return r, err
	}
	if b.StoppedBy == "time" && !c.TimeSet {
		fmt.Fprintf(errw, "goslap: the run ended at sysbench %s's default time limit (%d s); set --time to change it\n", c.Dialect, c.Time)
	}
	if b.StoppedBy == "events" && !c.EventsSet {
		fmt.Fprintf(errw, "goslap: the run ended at sysbench %s's default event limit (%d); set --events (--max-requests) to change it\n", c.Dialect, c.Events)
	}
	return r, nil
}

// header is a run's header. goslap's Limits line is part of the 1.0
// layout; 0.4 and 0.5 runs get it on stderr, marked as goslap's, so their
// stdout is what those versions printed.
func header(c *Config, threads int, mode *oltp.Mode04, errw io.Writer) Header {
	h := Header{Dialect: c.Dialect, Threads: threads, Rate: c.Rate, ReportInterval: c.ReportInterval,
		Seed: c.Seed, SeedSet: c.SeedSet, Limits: LimitsLine(c),
		InitRNG: c.InitRNG, SeedRNG: c.SeedRNG, Events: c.Events, Mode: mode}
	if c.Dialect != Dialect10 {
		fmt.Fprintln(errw, "goslap: "+h.Limits)
		h.Limits = ""
	}
	return h
}

// writeSweep prints one row per thread count of a --threads list: the
// figures scripts take from each report, side by side.
func writeSweep(out io.Writer, counts []int, reps []Report) error {
	fmt.Fprintln(out, "Thread sweep: tps = transactions per second, qps = queries per second, latency in ms")
	tw := tabwriter.NewWriter(out, 0, 0, 2, ' ', 0)
	pctName := "p" + strconv.Itoa(reps[0].Percentile)
	fmt.Fprintf(tw, "threads\ttps\tqps\tavg\t%s\tmax\n", pctName)
	for i, r := range reps {
		q := r.Reads + r.Writes + r.Other
		fmt.Fprintf(tw, "%d\t%.2f\t%.2f\t%.2f\t%.2f\t%.2f\n", counts[i],
			perSec(r.Transactions, r.Seconds), perSec(q, r.Seconds), r.Avg, r.Pct, r.Max)
	}
	return tw.Flush()
}

// ignore is the --mysql-ignore-errors set.
func (c *Config) ignore() func(uint16) bool {
	if c.MySQL.IgnoreAll {
		return func(uint16) bool { return true }
	}
	set := map[uint16]bool{}
	for _, n := range c.MySQL.IgnoreErrors {
		set[n] = true
	}
	if len(set) == 0 {
		return nil
	}
	return func(code uint16) bool { return set[code] }
}

// connectError words a failed connect as sysbench 1.0.20 does (observed:
// "unable to connect to MySQL server on host '127.0.0.1', port 1,
// aborting..." then "error 2002: Can't connect to server on ..."; goslap
// gives the client library's own number, 2003 for TCP).
func connectError(network, addr string, err error) error {
	where := "on socket '" + addr + "'"
	if network != "unix" {
		host, port, _ := net.SplitHostPort(addr)
		where = fmt.Sprintf("on host '%s', port %s", host, port)
	}
	code, msg := mysqlconn.ConnectError(err, network, addr)
	return fmt.Errorf("unable to connect to MySQL server %s, aborting...\nerror %d: %s", where, code, msg)
}

// wording is how sysbench words the engine's errors: its FATAL lines.
var wording = orchestrator.Wording{
	Connect: func(ce *engine.ConnectError) string {
		return fmt.Sprintf("unable to connect to MySQL server, aborting...\nerror %d: %s", ce.Code, ce.Message)
	},
	Client: func(cl *engine.ClientError) string {
		return fmt.Sprintf("mysql error %d: %s (client %d, %s)", cl.Code, cl.Message, cl.Client, cl.Op)
	},
	Interrupted: errors.New("interrupted: no report"),
}

func slicesMax(v []int) int {
	m := v[0]
	for _, n := range v {
		m = max(m, n)
	}
	return m
}

// workloadHelp prints a test's options as `sysbench TEST help` does:
// "TEST options:", then one line per option, names with sysbench's
// underscores, padded to the longest, default in brackets. Aliases (the
// 0.4/0.5 spellings) are not listed, as sysbench 1.0 lists none.
func workloadHelp(out io.Writer, m workload.Meta, s workload.Settings, d Dialect) {
	type line struct{ name, help string }
	var lines []line
	width := 0
	for _, o := range s.Options() {
		if strings.HasPrefix(o.Help, "Alias of ") || !listedInHelp(o, m.Name, d) {
			continue
		}
		name := "--" + strings.ReplaceAll(o.Name, "-", "_")
		def := ""
		switch o.Var {
		case getopt.VarBool:
			name += "[=on|off]"
			def = "off"
			if o.Bool != nil && *o.Bool {
				def = "on"
			}
		case getopt.VarString:
			// Numbers are kept as strings by the workloads (validated at
			// Build); show them as sysbench does, "=N".
			def = *o.String
			if _, err := strconv.ParseFloat(def, 64); err == nil {
				name += "=N"
			} else {
				name += "=STRING"
			}
		case getopt.VarUint32:
			name += "=N"
			def = fmt.Sprint(*o.Uint32)
		case getopt.VarUint64:
			name += "=N"
			def = fmt.Sprint(*o.Uint64)
		}
		lines = append(lines, line{name, fmt.Sprintf("%s [%s]", o.Help, def)})
		width = max(width, len(name))
	}
	sort.Slice(lines, func(i, j int) bool { return lines[i].name < lines[j].name })
	fmt.Fprintf(out, "%s options:\n", m.Name)
	for _, l := range lines {
		fmt.Fprintf(out, "  %-*s %s\n", width, l.name, l.help)
	}
	fmt.Fprintln(out)
}

func usage(out io.Writer) {
	fmt.Fprintf(out, `Usage:
  goslap sysbench [options]... [testname] [command]

Runs sysbench 1.0, 0.5 and 0.4 OLTP command lines with goslap's workloads and
prints sysbench's report. Commands: prepare run cleanup help

The dialect follows the spelling: a 1.0 test name (oltp_read_write, ...) is
sysbench 1.0; --test=oltp is 0.4; --test=.../oltp.lua (and the other 0.5
tests/db scripts) is 0.5. --sysbench-compat=1.0|0.5|0.4 forces it.
Stopping defaults follow the dialect: 1.0 runs 10 s with no event limit;
0.4/0.5 stop after 10000 events with no time limit. The header says which
limits are in force.

General options (deprecated 1.0 aliases in parentheses):
  --threads=N (--num-threads)      clients, one connection each [1]; a list
                                   (1,8,64) runs once per count (a sweep), each
                                   with its report, then a summary table
  --events=N (--max-requests)      limit for the total number of events [1.0: 0, 0.4/0.5: 10000]
  --time=N (--max-time)            limit for the total run time in seconds [1.0: 10, 0.4/0.5: 0]
  --rate=N (--tx-rate)             target events per second, Poisson arrivals [0 = unlimited]
  --report-interval=N              print an interval line every N seconds [0]
  --percentile=N                   percentile in the latency statistics, 0 disables [95]
  --rand-seed=N (--seed-rng)       seed of goslap's random streams; 0 = the time [0]
  --config-file=FILE               name=value lines, applied after the command line
  --sysbench-compat=1.0|0.5|0.4    force the dialect
  --db-ps-mode=auto|disable        server-side prepared statements or text

MySQL options:
  --mysql-host=HOST                server host [localhost = the default socket]
  --mysql-port=N                   server port [3306]
  --mysql-socket=PATH              Unix socket
  --mysql-user=USER                user [sbtest]
  --mysql-password=PW              password []
  --mysql-db=DB                    schema [sbtest]
  --mysql-ssl[=on|off]             TLS, without certificate verification [off]
  --mysql-compression[=on|off]     protocol compression [off]
  --mysql-ignore-errors=LIST|all   errors that restart an event [1213,1020,1205]
  --mysql-storage-engine=E (0.4/0.5: --mysql-table-engine)

Percentiles come from goslap's HDR histograms (1 µs resolution, 3 significant
digits), which are finer than sysbench's buckets (about 1.8 %% wide in 1.0):
expect differences up to about 1 %% from the figures sysbench prints.

goslap's extras (goslap's own options, as in its mysqlslap front end):
  --target=LABEL:sandbox[:BINARY][,NAME=VALUE]... | LABEL:server[:HOST[:PORT]|:/SOCKET]
                                   run on each target in turn, then a side-by-side
                                   table; repeatable
  --sandbox[=BINARY]               run on a throw-away server (on sandboxes, "run"
                                   prepares, runs and cleans up: they start empty)
  --sandbox-option=NAME=VALUE      a server option of every sandbox; repeatable
  --iterations=N                   run each thread count N times
  --rounds=N                       run the whole matrix N times, the targets interleaved
                                   at every point, each quiesced first; a verdict per point
  --sides-in-turn                  with --rounds: start the sandboxes one at a time within
                                   each round (chosen by itself when their buffer pools
                                   would not fit the memory available)
  --compare-metric=tps|qps|rw-qps|tpmc|pNN
                                   what the verdicts compare (default: the workload's own,
                                   and the --percentile latency)
  --latency                        add goslap's p50/p95/p99/p99.9/max line to each report
  --plot=FILE.svg|png|pdf          chart of queries/s and p99 against --threads
  --json[=FILE]                    goslap's JSON result document (v2) in FILE, or
                                   alone on stdout (the report is then left out)
  --server-report                  the server's CPU, disk reads and writes per transaction,
                                   the host's CPU and goslap's share, stalls, under each report
  --server-metrics=off             do not sample the server (on: with --server-report,
                                   --report-interval or several targets, its counters, CPU
                                   and IO go in --json's document, per second and per
                                   transaction)
  --server-pid=N                   the server's process, when goslap cannot find it
  --lua-interpreter                run a stock sysbench script's file in the Lua
                                   interpreter, not the built-in workload of its name

Options goslap cannot honour (--histogram, --report-checkpoints,
--forced-shutdown, --thread-stack-size, --mysql-dry-run, --mysql-debug,
--mysql-ssl-cipher, lists of several hosts/ports/sockets, the warmup command) are
refused with an error naming them.

Lua scripts: any other sysbench 1.0 script (SCRIPT.lua, a path or a name in
sysbench's script directories) runs in goslap's embedded Lua interpreter,
with its own options, commands and report hooks. sysbench 1.0.20's
unmodified stock scripts run goslap's built-in workloads (a path given says
so on stderr); --lua-interpreter runs the file instead.

See 'goslap sysbench <testname> help' for a test's options.
`)
	fmt.Fprintf(out, "Tests: %s\n", Names())
}
