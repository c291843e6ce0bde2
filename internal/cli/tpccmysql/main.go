// Package tpccmysql takes tpcc-mysql's command lines — `goslap tpcc-load
// -h -P -d -u -p -w` and `goslap tpcc-start -h -P -d -u -p -w -c -r -l -i`
// — and runs them with goslap's TPC-C workload (internal/workload/tpcc)
// through internal/engine: ramp-up is the engine's warm-up, -l its
// measured time (truncated to whole -i intervals, as tpcc-mysql counts),
// -i its report interval. It prints tpcc-mysql's interval lines and its
// <Raw Results>, <Constraint Check> and <TpmC> sections, plus the elapsed
// time percentiles per transaction that tpcc-mysql does not measure.
// tpcc-check and tpcc-cleanup (goslap's) run the consistency check and
// drop the nine tables.
package tpccmysql

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"runtime"
	"strconv"
	"strings"
	"time"

	"github.com/go-sql-driver/mysql"

	"github.com/goslap/goslap/internal/engine"
	"github.com/goslap/goslap/internal/interrupt"
	"github.com/goslap/goslap/internal/mysqlconn"
	"github.com/goslap/goslap/internal/orchestrator"
	"github.com/goslap/goslap/internal/results"
	"github.com/goslap/goslap/internal/workload"
	"github.com/goslap/goslap/internal/workload/tpcc"
)

// Env is where Main writes and what it may wait on.
type Env struct {
	Stdout, Stderr io.Writer
	// Context ends the command early; nil means goslap's signal policy
	// (internal/interrupt).
	Context context.Context
}

// IsCommand says whether word is one of this front end's commands.
func IsCommand(word string) bool {
	_, ok := letters[word]
	return ok
}

// DefaultSocket is the client library's default socket on Debian/Ubuntu's
// MariaDB, which host "localhost" means.
const DefaultSocket = mysqlconn.DefaultSocket

// Main runs `goslap COMMAND ARGS…` and returns the exit status: 0, or 1
// after an error, which is one line on stderr.
func Main(command string, args []string, env Env) int {
	c, err := Parse(command, args)
	if err != nil {
		return fail(env.Stderr, command, err)
	}
	if c.Help {
		usage(env.Stdout, command)
		return 0
	}
	ctx := env.Context
	var w *interrupt.Watch
	if ctx == nil {
		w = interrupt.Start(progName, env.Stderr)
		defer w.Stop()
		switch command {
		case "tpcc-load":
			w.Leaving(fmt.Sprintf("TPC-C tables this load created in schema '%s' may be left: goslap tpcc-cleanup -d %s drops them", c.DB, c.DB))
		case "tpcc-cleanup":
			w.Leaving(fmt.Sprintf("TPC-C tables of schema '%s' not dropped yet are left: run goslap tpcc-cleanup again", c.DB))
		}
		ctx = w.Context()
	}
	if err := execute(ctx, c, env); err != nil {
		if interrupt.Is(ctx, err) {
			if command == "tpcc-cleanup" && w != nil && w.Left() != "" {
				fmt.Fprintf(env.Stderr, "%s: %s\n", progName, w.Left())
			}
			return interrupt.End(env.Stderr, progName)
		}
		return fail(env.Stderr, command, err)
	}
	return 0
}

// progName prefixes the messages.
const progName = "goslap"

func fail(w io.Writer, command string, err error) int {
	fmt.Fprintf(w, "goslap %s: %v\n", command, err)
	return 1
}

// driverConfig maps -h -P -S -u -p -d onto the driver: a socket wins, and
// host "localhost" means the default socket (the client library's rule).
func driverConfig(c *Config) (*mysql.Config, error) {
	o := mysqlconn.Options{User: c.User, Password: c.Password, Schema: c.DB,
		Program: "goslap-" + c.Command, Timeout: 10 * time.Second}
	switch {
	case c.Socket != "":
		o.Net, o.Addr = "unix", c.Socket
	case c.Host == "localhost":
		o.Net, o.Addr = "unix", DefaultSocket
	default:
		o.Net, o.Addr = "tcp", net.JoinHostPort(c.Host, strconv.Itoa(c.Port))
	}
	return mysqlconn.Config(o)
}

func execute(ctx context.Context, c *Config, env Env) error {
	out := env.Stdout
	cfg, err := driverConfig(c)
	if err != nil {
		return err
	}
	conn, err := mysqlconn.NewConnector(cfg, "")
	if err != nil {
		return err
	}
	connect := func() (*mysqlconn.Conn, error) {
		cn, err := conn.Connect(nil)
		if err != nil {
			code, msg := mysqlconn.ConnectError(err, cfg.Net, cfg.Addr)
			return nil, fmt.Errorf("Error when connecting to server: %d %s", code, msg)
		}
		return cn, nil
	}
	main, err := connect()
	if err != nil {
		return err
	}
	defer main.Close()
	settings := tpcc.NewSettings()
	settings.Warehouses = uint32(max(c.Warehouses, 1))
	if c.Command == "tpcc-load" {
		settings.LoadConnections = uint32(c.Connections)
	}
	wl, err := settings.Build(tpcc.Name, workload.Common{Schema: c.DB, Seed: uint64(time.Now().UnixNano())})
	if err != nil {
		return err
	}
	w := wl.(*tpcc.Workload)
	s := &workload.Session{Main: main, Connect: connect,
		Log:      func(string, ...any) {},
		Say:      func(format string, args ...any) { fmt.Fprintf(out, format+"\n", args...) },
		Progress: progress(out)}
	// An interrupt cuts a long statement on the main connection (a
	// consistency check's scan, a DROP): the command then ends at once.
	s, stop := workload.Interruptible(ctx, s)
	defer stop()

	switch c.Command {
	case "tpcc-load":
		return load(ctx, c, w, s, connect, out, env.Stderr)
	case "tpcc-check":
		return check(main, out)
	case "tpcc-cleanup":
		// The one ownership rule (package ownership): each of the nine
		// tables is dropped only if it has tpcc-mysql's layout, and each
		// drop is said.
		return w.Teardown(ctx, s, workload.Point{})
	}
	return start(ctx, c, w, cfg, conn, s, out, env.Stderr)
}

// cleanUpAfterLoad runs Teardown after a failed or interrupted load, so
// that what the load created is dropped (the workload decides what and
// says so, on errw): on a fresh connection (an interrupted Setup cut its
// own) and with interrupt.Cleanup's time limit. What it cannot drop it
// names.
func cleanUpAfterLoad(ctx context.Context, w *tpcc.Workload, connect func() (*mysqlconn.Conn, error), schema string, errw io.Writer) {
	cctx, cancel := interrupt.Cleanup(ctx)
	defer cancel()
	m, err := connect()
	if err == nil {
		defer m.Close()
		s := &workload.Session{Main: m, Connect: connect,
			Log:      func(format string, args ...any) { fmt.Fprintf(errw, progName+": "+format+"\n", args...) },
			Say:      func(format string, args ...any) { fmt.Fprintf(errw, format+"\n", args...) },
			Progress: func(string, int64, int64) {}}
		// The time limit cuts a DROP in flight.
		s, stop := workload.Interruptible(cctx, s)
		err = w.Teardown(cctx, s, workload.Point{})
		stop()
	}
	left := fmt.Sprintf("TPC-C tables this load created in schema '%s' may be left: goslap tpcc-cleanup -d %s drops them", schema, schema)
	switch {
	case err != nil && cctx.Err() != nil:
		fmt.Fprintf(errw, "%s: the clean-up after the interrupt ran out of time; %s\n", progName, left)
	case err != nil:
		fmt.Fprintf(errw, "%s: dropping what the failed load created: %v; %s\n", progName, err, left)
	}
}

// progress prints the load's advance at each tenth.
func progress(out io.Writer) func(string, int64, int64) {
	last := int64(0)
	return func(_ string, done, total int64) {
		if total <= 0 || done >= total {
			return
		}
		if tenth := done * 10 / total; tenth > last {
			last = tenth
			fmt.Fprintf(out, "  %3d %% (%d rows)\n", tenth*10, done)
		}
	}
}

func writeParameters(out io.Writer, c *Config) {
	fmt.Fprintf(out, "<Parameters>\n")
	if c.Socket != "" {
		fmt.Fprintf(out, "     [socket]: %s\n", c.Socket)
	} else {
		fmt.Fprintf(out, "     [server]: %s\n", c.Host)
		fmt.Fprintf(out, "     [port]: %d\n", c.Port)
	}
	fmt.Fprintf(out, "     [DBname]: %s\n", c.DB)
	fmt.Fprintf(out, "       [user]: %s\n", c.User)
	fmt.Fprintf(out, "  [warehouse]: %d\n", c.Warehouses)
	if c.Command == "tpcc-start" {
		fmt.Fprintf(out, " [connection]: %d\n", c.Connections)
		fmt.Fprintf(out, "     [rampup]: %d (sec.)\n", c.Rampup)
		fmt.Fprintf(out, "    [measure]: %d (sec.)\n", c.Measure)
	}
}

func load(ctx context.Context, c *Config, w *tpcc.Workload, s *workload.Session,
	connect func() (*mysqlconn.Conn, error), out, errw io.Writer) error {
	conns := c.Connections
	if conns == 0 {
		conns = 2 * runtime.NumCPU()
	}
	// The load uses no more connections than it has tasks: say those.
	conns = tpcc.LoadConnections(c.Warehouses, conns)
	writeParameters(out, c)
	fmt.Fprintf(out, "\nTPCC Data Load Started... (goslap: in parallel over %d connections)\n", conns)
	start := time.Now()
	if err := w.Setup(ctx, s, workload.Point{Clients: conns}); err != nil {
		// What this load created goes (Teardown drops only that), and is
		// said; a failed or interrupted load leaves no half-loaded schema.
		cleanUpAfterLoad(ctx, w, connect, c.DB, errw)
		return err
	}
	st := w.LastLoad()
	if st.Rows == 0 {
		return fmt.Errorf("schema '%s' already holds TPC-C data for %d warehouse(s): nothing loaded (goslap tpcc-cleanup drops it)", c.DB, c.Warehouses)
	}
	sec := st.Elapsed.Seconds()
	fmt.Fprintf(out, "\n...DATA LOADING COMPLETED SUCCESSFULLY.\n")
	fmt.Fprintf(out, "goslap: %d rows, %.1f MB of %s in %.1f s: %.0f rows/s, %.1f MB/s; with indexes and foreign keys %.1f s\n",
		st.Rows, float64(st.SQLBytes)/1e6, st.Method, sec, float64(st.Rows)/sec, float64(st.SQLBytes)/1e6/sec, time.Since(start).Seconds())
	if c.Check {
		return check(s.Main, out)
	}
	return nil
}

// check prints goslap's <Consistency Check> section; a failed condition is
// the returned error.
func check(c *mysqlconn.Conn, out io.Writer) error {
	if _, err := tpcc.Loaded(c); err != nil {
		return notLoaded(c, err)
	}
	section, err := tpcc.CheckSection(c)
	fmt.Fprint(out, section)
	return err
}

func notLoaded(c *mysqlconn.Conn, err error) error {
	if errors.Is(err, tpcc.ErrNotLoaded) {
		schema := ""
		if n, qerr := c.QueryStrings("SELECT DATABASE()"); qerr == nil && len(n) == 1 {
			schema = n[0]
		}
		return fmt.Errorf("schema '%s' %v: load it first (goslap tpcc-load)", schema, err)
	}
	return err
}

func start(ctx context.Context, c *Config, w *tpcc.Workload, driver *mysql.Config, conn *mysqlconn.Connector, s *workload.Session, out, errw io.Writer) error {
	main := s.Main
	loaded, err := tpcc.Loaded(main)
	if err != nil {
		return notLoaded(main, err)
	}
	if c.Warehouses > loaded {
		return fmt.Errorf("-w %d: schema '%s' holds %d warehouse(s)", c.Warehouses, c.DB, loaded)
	}
	// The transactions write only into tables that are TPC-C's: the
	// workload's BeginIteration claims them (package ownership).
	measure := time.Duration(c.Measure) * time.Second
	interval := time.Duration(c.Interval) * time.Second
	window := tpcc.Window(measure, interval)
	started := false
	measuring := func() {
		if !started {
			started = true
			fmt.Fprintf(out, "\nMEASURING START.\n\n")
		}
	}
	l := &orchestrator.Loop{Workload: w, Session: s, Clients: conn,
		Scales: []int64{int64(c.Warehouses)}, Concurrency: []int{c.Connections}, Iterations: 1,
		Limits: orchestrator.Limits{Warmup: time.Duration(c.Rampup) * time.Second, Duration: window, Seed: uint64(time.Now().UnixNano())},
		Word:   wording.Word}
	l.Observer.Begin = func(string, workload.Iteration) {
		writeParameters(out, c)
		fmt.Fprintf(out, "\nRAMP-UP TIME.(%d sec.)\n", c.Rampup)
	}
	if interval > 0 && interval <= measure {
		l.Limits.ReportInterval = interval
		l.Observer.Interval = func(iv results.Interval) {
			measuring()
			fmt.Fprint(out, tpcc.IntervalLine(iv, interval))
		}
	}
	l.Observer.Iteration = func(_ string, b *results.Benchmark) error {
		measuring()
		fmt.Fprintf(out, "\nSTOPPING THREADS\n\n")
		r, err := tpcc.FromBenchmark(b, w.CountsBetween(b.Start, b.End), window)
		if err != nil {
			return err
		}
		return r.Write(out)
	}
	if c.ServerReport {
		// Sampled at the end of the ramp-up, at every -i interval (each
		// second without -i) and at the end, on a connection of its own.
		l.Metrics = &orchestrator.Metrics{Driver: driver, PID: c.ServerPID,
			Warn: func(line string) { fmt.Fprintf(errw, "%s: warning: %s\n", progName, line) }}
	}
	cells, err := l.Run(ctx)
	if err != nil {
		return err
	}
	if c.ServerReport && len(cells) > 0 {
		if lines := orchestrator.ServerLines(cells[0], "transaction"); len(lines) > 0 {
			fmt.Fprintf(out, "\n%s\n", strings.Join(lines, "\n"))
		}
	}
	if c.Check {
		return check(s.Main, out)
	}
	return nil
}

// wording is how tpcc-start words the engine's errors: one line.
var wording = orchestrator.Wording{
	Client: func(cl *engine.ClientError) string {
		if cl.Op == "begin" && cl.Code == 0 {
			return fmt.Sprintf("client %d: %s", cl.Client, cl.Message)
		}
		return fmt.Sprintf("client %d, %s: ERROR %d %s", cl.Client, cl.Op, cl.Code, cl.Message)
	},
	Interrupted: errors.New("interrupted: no report"),
}

func usage(out io.Writer, command string) {
	switch command {
	case "tpcc-load":
		fmt.Fprint(out, `Usage: goslap tpcc-load -d DB -w WAREHOUSES [-h HOST] [-P PORT] [-S SOCKET] [-u USER] [-p PASS]
                         [--connections=N] [--check]

Loads TPC-C as tpcc-mysql's tpcc_load does (same tables, rows and rules)
into an empty schema, creating the tables first and adding tpcc-mysql's
indexes and foreign keys after, in parallel over --connections
connections (default: twice the CPUs), as LOAD DATA LOCAL INFILE streams
where the server allows it (local_infile), else multi-row INSERTs. -l/-m/-n (one part,
a warehouse range) are refused: every part is loaded at once. --check runs
the TPC-C consistency conditions 1-4 afterwards.
Defaults: -h localhost (the default socket), -P 3306, -u root, -p "".
`)
	case "tpcc-start":
		fmt.Fprint(out, `Usage: goslap tpcc-start -d DB -w WAREHOUSES -c CONNECTIONS -l MEASURE [-r RAMPUP] [-i INTERVAL]
                          [-h HOST] [-P PORT] [-S SOCKET] [-u USER] [-p PASS] [--check]
                          [--server-report [--server-pid=PID]]

Runs tpcc-mysql's tpcc_start: the five transactions from a shared
10/10/1/1/1 deck, flat out, a random warehouse per transaction. -r seconds
of ramp-up (not counted), then -l seconds measured, counted in whole -i
intervals (default 10; 0: no interval lines) as tpcc-mysql counts. Prints
tpcc-mysql's interval lines, <Raw Results>, <Constraint Check> and <TpmC>,
then elapsed-time percentiles per transaction. Times are elapsed time in ms
at 1 µs resolution. --check runs the consistency check after the run.
--server-report samples the server's status counters, its process's CPU
and IO (found by its socket, its loopback port or its pid file, or named
by --server-pid) and the host's CPU over the measured time, on a
connection of its own, and prints them per transaction after the report.
-f, -t, -m/-o and -0..-4 are refused.
Defaults: -h localhost (the default socket), -P 3306, -u root, -p "", -r 0.
`)
	default:
		fmt.Fprintf(out, "Usage: goslap %s -d DB [-h HOST] [-P PORT] [-S SOCKET] [-u USER] [-p PASS]\n", command)
	}
}
