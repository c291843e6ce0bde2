// Command oltpbench runs `goslap sysbench TEST … run` and sysbench 1.0.20's
// `sysbench TEST … run` side by side on one throw-away MariaDB server and
// the same tables (prepared once, by sysbench), and prints a Markdown table
// of medians and ratios goslap / sysbench per workload: oltp_point_select
// (ps-N), oltp_read_only (ro-N) and oltp_read_write (rw-N) at every -threads
// count, prepared statements for both (--db-ps-mode=auto), and
// oltp_read_only at 1000 threads.
//
// With -tpcc-mysql DIR (a tpcc-mysql build: DIR/tpcc_start) it also runs
// `goslap tpcc-start` against tpcc-mysql's tpcc_start at each
// -tpcc-connections count on one TPC-C schema loaded by `goslap tpcc-load`
// (tpcc-N rows: tpmC and client CPU per transaction, the New-Orders and
// the other four of <Raw Results> counted alike). Without it those rows
// are skipped with one line saying how to build tpcc-mysql. tpcc-mysql's
// own tpcc_load does not prepare the schema: it has no socket option and
// connects to "localhost", i.e. the client library's default socket — a
// real server's, not the throw-away one.
//
// After each server's tables comes issue 28's: every row's ratios beside
// their goals (bench/target) and pass or miss.
//
// The two tools alternate (the order flips every round) so the noise of a
// shared machine hits both alike. Throughput is what each tool reports
// ("transactions: N (X per sec.)"); client CPU (user+sys) and max RSS come
// from the child's rusage (wait4), i.e. the whole process, connects and
// statement preparation included; the server's CPU is its /proc/<pid>/stat
// difference over the run.
//
// -server default is MariaDB's default configuration (sandbox's smaller
// buffer pool and redo log put back to MariaDB's 128M and 96M) with only
// max_connections and the open-files limit raised; -server tuned is the
// server bench/slapbench uses (256M buffer pool, flush at commit 2, thread
// cache, back_log).
//
//	go run ./bench/oltpbench -goslap ./goslap -server default,tuned -runs 5
//	go run ./bench/oltpbench -goslap ./goslap -tpcc-mysql /tmp/tpcc-mysql -only tpcc-4,tpcc-16
//
// A -goslap variant can carry its own environment, NAME=PATH@VAR=VALUE,
// e.g. one binary on its two client paths:
//
//	go run ./bench/oltpbench -goslap 'ring=./goslap@GOSLAP_RING=1,net=./goslap@GOSLAP_RING=0' -only ps-16,ro-16
//	go run ./bench/oltpbench -threads 4,8 -only ro-4,ro-8 \
//	  -goslap 'thr=./goslap@GOSLAP_THREAD_PER_CLIENT_BELOW=100000,net=./goslap@GOSLAP_THREAD_PER_CLIENT_BELOW=0'
//
// With -interpret a goslap variant runs sysbench's stock script of each
// test through goslap's Lua interpreter (issue 27's table):
//
//	go run ./bench/oltpbench -goslap builtin=./goslap,lua=./goslap -interpret lua -only ps-16,rw-16
package main

import (
	"bytes"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/goslap/goslap/bench/host"
	"github.com/goslap/goslap/bench/target"
	"github.com/goslap/goslap/internal/mysqlconn"
	"github.com/goslap/goslap/internal/sandbox"
	"github.com/goslap/goslap/internal/servermetrics"
	"github.com/goslap/goslap/internal/verdict"
)

// quiesceLimit bounds the wait for the server to settle before each run.
const quiesceLimit = 60 * time.Second

// workload is one row of the table.
type workload struct {
	name    string
	test    string // sysbench test; "" for a TPC-C row
	threads int    // threads, or TPC-C connections
	events  int    // 0: time-limited (-time)
}

func (w workload) tpcc() bool { return w.test == "" }

type sample struct {
	rate   float64 // tps, or tpmC for TPC-C
	events float64 // transactions the tool reports
	cpu    float64 // client user+sys seconds
	rssKB  int64
	server float64 // server CPU seconds during the run
}

// kind says how a tool is run and read.
type kind int

const (
	goslapKind   kind = iota // `goslap sysbench ARGS` or `goslap tpcc-start ARGS`
	sysbenchKind             // `sysbench ARGS`
	tpccKind                 // `DIR/tpcc_start ARGS`
)

type tool struct {
	name string
	path string
	kind kind
	// script: goslap runs sysbench's stock Lua script of the test through
	// its interpreter (--lua-interpreter) instead of its built-in workload
	// (sysbench rows only).
	script string
	env    []string // extra environment (NAME=PATH@VAR=VALUE)
}

// The reference tools' names in the tables.
const (
	base     = "sysbench"
	tpccBase = "tpcc-mysql"
)

func baseOf(w workload) string {
	if w.tpcc() {
		return tpccBase
	}
	return base
}

// tpccHowTo is the one line a skipped TPC-C row prints.
const tpccHowTo = "git clone https://github.com/Percona-Lab/tpcc-mysql; cd tpcc-mysql/src; make " +
	"(needs libmariadb-dev-compat or libmysqlclient-dev; with MariaDB's library: " +
	"make LIBS=\"`mysql_config --libs_r` -lrt -lm\"), then give -tpcc-mysql CLONE " +
	"(make bench-oltp TPCC_MYSQL=CLONE)"

func main() {
	var (
		goslap     = flag.String("goslap", "./goslap", "goslap binary, or NAME=PATH[@VAR=VALUE...],... to compare builds or environments")
		sysbench   = flag.String("sysbench", "sysbench", "sysbench 1.0.20 binary")
		servers    = flag.String("server", "default,tuned", "server configurations to run: default, tuned or both")
		runs       = flag.Int("runs", 5, "runs per tool and workload (medians are taken)")
		secs       = flag.Int("time", 10, "--time of the time-limited workloads, -l of the TPC-C rows (seconds)")
		events     = flag.Int("events", 100000, "--events of oltp_point_select")
		tableSize  = flag.Int("table-size", 100000, "--table-size of the one table")
		threads    = flag.String("threads", "1,4,8,16,64,256", "thread counts of the ps-N, ro-N and rw-N rows")
		only       = flag.String("only", "", "comma-separated workload names (default all): ps-N, ro-N, rw-N for N in -threads, ro-1000, tpcc-N for N in -tpcc-connections")
		tpccDir    = flag.String("tpcc-mysql", "", "directory of a tpcc-mysql build (tpcc_start) for the tpcc-N rows; empty: the rows are skipped")
		tpccConns  = flag.String("tpcc-connections", "4,16", "connection counts of the tpcc-N rows")
		warehouses = flag.Int("tpcc-warehouses", 1, "warehouses of the TPC-C rows (loaded by goslap tpcc-load)")
		tmp        = flag.String("tmpdir", "", "parent of the server directory (default $TMPDIR)")
		verbose    = flag.Bool("v", false, "print every run")
		goslapEnv  = flag.String("goslap-env", "", "extra environment for goslap only, comma-separated NAME=VALUE (GODEBUG, profiling)")
		interpret  = flag.String("interpret", "", "names of -goslap variants that run the stock Lua script of each test (in -scripts) through goslap's interpreter instead of the built-in workload")
		scripts    = flag.String("scripts", "/usr/share/sysbench", "directory of sysbench's stock Lua scripts, for -interpret")
		serve      = flag.String("serve", "", "only start this server configuration (default or tuned), prepare the tables, print its socket and wait for Ctrl-C (profiling by hand)")
	)
	flag.Parse()

	workloads, err := workloadList(*threads, *tpccConns, *events)
	check(err)
	if *only != "" {
		want := strings.Split(*only, ",")
		for _, n := range want {
			if !slices.ContainsFunc(workloads, func(w workload) bool { return w.name == n }) {
				check(fmt.Errorf("-only: no workload %q (see -threads and -tpcc-connections)", n))
			}
		}
		workloads = slices.DeleteFunc(workloads, func(w workload) bool { return !slices.Contains(want, w.name) })
	}
	var variants []tool
	for _, spec := range strings.Split(*goslap, ",") {
		// A variant can carry its own environment, NAME=PATH@VAR=VALUE
		// (as slapbench's): e.g. one binary on two client paths.
		spec, envs, _ := strings.Cut(spec, "@")
		name, path, ok := strings.Cut(spec, "=")
		if !ok {
			name, path = "goslap", spec
		}
		abs, err := filepath.Abs(path)
		check(err)
		t := tool{name: name, path: abs, kind: goslapKind}
		if envs != "" {
			t.env = strings.Split(envs, "@")
		}
		if slices.Contains(strings.Split(*interpret, ","), name) {
			t.script = *scripts
		}
		variants = append(variants, t)
	}
	sb, err := exec.LookPath(*sysbench)
	check(err)
	sysbenchTools := append(slices.Clone(variants), tool{name: base, path: sb, kind: sysbenchKind})
	// The TPC-C rows compare goslap's built-in TPC-C: variants that
	// interpret a sysbench script have no part in them.
	tpccTools := slices.DeleteFunc(slices.Clone(variants), func(t tool) bool { return t.script != "" })
	var skipped []string
	if *tpccDir == "" {
		for _, w := range workloads {
			if w.tpcc() {
				skipped = append(skipped, w.name)
			}
		}
		workloads = slices.DeleteFunc(workloads, workload.tpcc)
	} else {
		start := filepath.Join(*tpccDir, "tpcc_start")
		if _, err := os.Stat(start); err != nil {
			check(fmt.Errorf("-tpcc-mysql %s: %v (build it: %s)", *tpccDir, err, tpccHowTo))
		}
		abs, err := filepath.Abs(start)
		check(err)
		tpccTools = append(tpccTools, tool{name: tpccBase, path: abs, kind: tpccKind})
	}
	withTPCC := slices.ContainsFunc(workloads, workload.tpcc)
	if withTPCC && len(tpccTools) < 2 {
		check(fmt.Errorf("the TPC-C rows need a -goslap variant that is not in -interpret"))
	}
	prep := preparation{tableSize: *tableSize, sysbench: sb}
	if withTPCC {
		prep.goslap, prep.warehouses = tpccTools[0].path, *warehouses
	}

	if *serve != "" {
		srv, pid, err := startServer(*serve, *tmp, prep)
		check(err)
		defer srv.Stop()
		fmt.Printf("socket %s pid %d\n", srv.Socket, pid)
		select {}
	}

	fmt.Printf("Machine: %s\n", host.Machine())
	fmt.Printf("Date: %s, load average at start: %s\n", time.Now().UTC().Format("2006-01-02 15:04 UTC"), loadavg())
	fmt.Printf("1 table of %d rows prepared by sysbench; oltp_point_select --events=%d --time=0, the others --time=%d; --db-ps-mode=auto (prepared statements) for both tools; medians of %d runs, alternated, each on a quiesced server (dirty pages and purge caught up; -v shows how each went)\n",
		*tableSize, *events, *secs, *runs)
	if withTPCC {
		fmt.Printf("TPC-C: %d warehouse(s) loaded by goslap tpcc-load; `goslap tpcc-start` and %s -r 0 -l %d -i %d\n",
			*warehouses, tpccTools[len(tpccTools)-1].path, *secs, *secs)
	}
	if len(skipped) > 0 {
		fmt.Printf("TPC-C rows %s skipped: no -tpcc-mysql DIR; to run them build tpcc-mysql: %s\n", strings.Join(skipped, ", "), tpccHowTo)
	}
	if len(workloads) == 0 {
		return // every row asked for was skipped: no server to start
	}
	for _, conf := range strings.Split(*servers, ",") {
		srv, serverPID, err := startServer(conf, *tmp, prep)
		check(err)
		fmt.Printf("\n### Server: %s (%s)\n\n", conf, srv.Version)
		common := []string{"--mysql-socket=" + srv.Socket, "--mysql-user=root", "--mysql-db=sbtest",
			"--tables=1", "--table-size=" + strconv.Itoa(*tableSize), "--db-ps-mode=auto"}
		tpccCommon := []string{"-h", "localhost", "-S", srv.Socket, "-u", "root", "-d", "tpcc",
			"-w", strconv.Itoa(*warehouses), "-r", "0", "-l", strconv.Itoa(*secs), "-i", strconv.Itoa(*secs)}
		// Every run starts on a settled server: the writes of the run
		// before it (rw-256's above all) flushed and purged, or the next
		// run measures their aftermath (comparison-method.md, "Quiesce").
		cn, err := mysqlconn.NewConnector(srv.RootConfig(""), "")
		check(err)
		mainConn, err := cn.Connect(nil)
		check(err)
		results := map[string]map[string][]sample{}
		loads := map[string]string{}
		for _, w := range workloads {
			var args []string
			tools := sysbenchTools
			switch {
			case w.tpcc():
				args = append(slices.Clone(tpccCommon), "-c", strconv.Itoa(w.threads))
				tools = tpccTools
			case w.events > 0:
				args = append(slices.Clone(common), "--threads="+strconv.Itoa(w.threads), "--events="+strconv.Itoa(w.events), "--time=0")
			default:
				args = append(slices.Clone(common), "--threads="+strconv.Itoa(w.threads), "--time="+strconv.Itoa(*secs))
			}
			results[w.name] = map[string][]sample{}
			loads[w.name] = loadavg1()
			for round := range *runs {
				for _, i := range verdict.Order(len(tools), *runs)[round] {
					t := tools[i]
					env := slices.Clone(t.env)
					if t.kind == goslapKind && *goslapEnv != "" {
						env = append(env, strings.Split(*goslapEnv, ",")...)
					}
					settled := servermetrics.Quiesce(context.Background(), mainConn, true, quiesceLimit)
					s, err := runOnce(t, w, args, env, serverPID)
					if err != nil {
						srv.Stop()
						fmt.Fprintf(os.Stderr, "oltpbench: %s %s %s: %v\n", conf, w.name, t.name, err)
						os.Exit(1)
					}
					results[w.name][t.name] = append(results[w.name][t.name], s)
					if *verbose {
						unit := "tps "
						if w.tpcc() {
							unit = "tpmC"
						}
						fmt.Fprintf(os.Stderr, "%-7s %-8s %-10s %s %9.1f  cpu %6.2f s  %6.1f µs/trx  rss %6.1f MB  server cpu %6.2f s  load %s  (%s)\n",
							conf, w.name, t.name, unit, s.rate, s.cpu, s.cpu/s.events*1e6, float64(s.rssKB)/1024, s.server, loadavg(), settled)
					}
				}
			}
		}
		mainConn.Close()
		srv.Stop()
		printTables(os.Stdout, workloads, variants, tpccTools, results, loads, common[1:], tpccCommon[4:], *events, *secs)
	}
	fmt.Printf("\nload average at the end: %s\n", loadavg())
}

// workloadList is every row: ps-N, ro-N and rw-N for each of threads,
// ro-1000 (issue 10's row), and tpcc-N for each of tpccConns.
func workloadList(threads, tpccConns string, events int) ([]workload, error) {
	counts := func(flagName, list string) ([]int, error) {
		var ns []int
		for _, f := range strings.Split(list, ",") {
			n, err := strconv.Atoi(f)
			if err != nil || n < 1 {
				return nil, fmt.Errorf("%s: %q is not a count of 1 or more", flagName, f)
			}
			ns = append(ns, n)
		}
		return ns, nil
	}
	ths, err := counts("-threads", threads)
	if err != nil {
		return nil, err
	}
	conns, err := counts("-tpcc-connections", tpccConns)
	if err != nil {
		return nil, err
	}
	var ws []workload
	for _, t := range []struct{ prefix, test string }{{"ps", "oltp_point_select"}, {"ro", "oltp_read_only"}, {"rw", "oltp_read_write"}} {
		for _, n := range ths {
			w := workload{name: fmt.Sprintf("%s-%d", t.prefix, n), test: t.test, threads: n}
			if t.prefix == "ps" {
				w.events = events
			}
			ws = append(ws, w)
		}
	}
	if !slices.Contains(ths, 1000) {
		ws = append(ws, workload{name: "ro-1000", test: "oltp_read_only", threads: 1000})
	}
	for _, n := range conns {
		ws = append(ws, workload{name: fmt.Sprintf("tpcc-%d", n), threads: n})
	}
	return ws, nil
}

// printTables prints one server's tables: the sysbench rows, the TPC-C
// rows, then issue 28's goals beside every row's ratios.
func printTables(out io.Writer, workloads []workload, variants, tpccTools []tool, results map[string]map[string][]sample,
	loads map[string]string, common, tpccCommon []string, events, secs int) {
	ratio := func(a, b float64) string { return fmt.Sprintf("**%.2f**", a/b) }
	one := func(float64, float64) string { return "1" }
	if slices.ContainsFunc(workloads, func(w workload) bool { return !w.tpcc() }) {
		fmt.Fprintf(out, "Command of each row: `sysbench|goslap sysbench %s TEST --threads=N (--events=%d --time=0 | --time=%d) run`\n\n",
			strings.Join(common, " "), events, secs)
		fmt.Fprintln(out, "| workload | tool | tps | tps ratio | client CPU s | CPU ratio | µs CPU/trx | CPU/trx ratio | max RSS MB | RSS ratio | server CPU s |")
		fmt.Fprintln(out, "|---|---|---|---|---|---|---|---|---|---|---|")
		for _, w := range workloads {
			if w.tpcc() {
				continue
			}
			b := medians(results[w.name][base])
			row := func(name string, m med, ratio func(a, b float64) string) {
				fmt.Fprintf(out, "| %s | %s | %.0f | %s | %.2f | %s | %.1f | %s | %.1f | %s | %.2f |\n",
					w.name, name, m.rate, ratio(m.rate, b.rate), m.cpu, ratio(m.cpu, b.cpu), m.cpuPer, ratio(m.cpuPer, b.cpuPer),
					m.rss, ratio(m.rss, b.rss), m.server)
			}
			row(base, b, one)
			for _, v := range variants {
				row(v.name, medians(results[w.name][v.name]), ratio)
			}
		}
	}
	if slices.ContainsFunc(workloads, workload.tpcc) {
		fmt.Fprintf(out, "\nCommand of each TPC-C row: `goslap tpcc-start|tpcc_start %s -c N`; transactions = every type's sc+lt in <Raw Results>\n\n",
			strings.Join(tpccCommon, " "))
		fmt.Fprintln(out, "| workload | tool | tpmC | tpmC ratio | transactions | client CPU s | µs CPU/trx | CPU/trx ratio | max RSS MB | RSS ratio | server CPU s |")
		fmt.Fprintln(out, "|---|---|---|---|---|---|---|---|---|---|---|")
		for _, w := range workloads {
			if !w.tpcc() {
				continue
			}
			b := medians(results[w.name][tpccBase])
			row := func(name string, m med, ratio func(a, b float64) string) {
				fmt.Fprintf(out, "| %s | %s | %.0f | %s | %.0f | %.2f | %.1f | %s | %.1f | %s | %.2f |\n",
					w.name, name, m.rate, ratio(m.rate, b.rate), m.events, m.cpu, m.cpuPer, ratio(m.cpuPer, b.cpuPer),
					m.rss, ratio(m.rss, b.rss), m.server)
			}
			row(tpccBase, b, one)
			for _, v := range tpccTools {
				if v.kind == goslapKind {
					row(v.name, medians(results[w.name][v.name]), ratio)
				}
			}
		}
	}
	fmt.Fprintln(out, "\nIssue 28's goals (goslap / the C tool: sysbench 1.0.20, tpcc-mysql; ratios of the medians, judged;")
	fmt.Fprintln(out, "beside each, the 95 % confidence interval of the ratio over the rounds, paired by round):")
	fmt.Fprintln(out)
	fmt.Fprintln(out, "| workload | tool | tps/tpmC ratio | 95 % CI | goal | CPU/trx ratio | 95 % CI | goal | verdict | load avg at start |")
	fmt.Fprintln(out, "|---|---|---|---|---|---|---|---|---|---|")
	for _, w := range workloads {
		rate, cpu := target.SysbenchTPS, target.SysbenchCPU
		tools := variants
		if w.tpcc() {
			rate, cpu = target.TPCCRate, target.TPCCCPU
			tools = tpccTools
		}
		bs := results[w.name][baseOf(w)]
		b := medians(bs)
		for _, v := range tools {
			if v.kind != goslapKind {
				continue
			}
			vs := results[w.name][v.name]
			m := medians(vs)
			checks := []target.Check{{Bound: rate, Ratio: m.rate / b.rate}, {Bound: cpu, Ratio: m.cpuPer / b.cpuPer}}
			fmt.Fprintf(out, "| %s | %s | %s | %s | %s | %s | %s | %s | %s | %s |\n", w.name, v.name,
				checks[0].Cell(), target.Interval(pluck(bs, sample.rateOf), pluck(vs, sample.rateOf)), checks[0].Bound,
				checks[1].Cell(), target.Interval(pluck(bs, sample.cpuPerTrx), pluck(vs, sample.cpuPerTrx)), checks[1].Bound,
				target.Verdict(checks), loads[w.name])
		}
	}
}

// preparation is what a server gets before the runs: sysbench's table,
// and the TPC-C schema when goslap is set.
type preparation struct {
	tableSize  int
	sysbench   string
	goslap     string // loads the TPC-C schema when not empty
	warehouses int
}

// startServer starts a server in configuration conf and prepares the
// sbtest table with sysbench and, when p.goslap is set, the TPC-C schema
// tpcc with goslap tpcc-load; it returns the server and its pid.
func startServer(conf, tmp string, p preparation) (*sandbox.Server, int, error) {
	const maxConn = 1200
	openFiles := 2*maxConn + 2000
	var opts []string
	switch conf {
	case "default":
		// sandbox shrinks these two for start-up speed; MariaDB
		// 10.11's defaults are 128M and 96M.
		opts = []string{"innodb-buffer-pool-size=128M", "innodb-log-file-size=96M",
			"open-files-limit=" + strconv.Itoa(openFiles)}
	case "tuned":
		// bench/slapbench's server.
		opts = []string{
			"open-files-limit=" + strconv.Itoa(openFiles),
			"thread-cache-size=" + strconv.Itoa(maxConn),
			"back-log=" + strconv.Itoa(maxConn),
			"innodb-flush-log-at-trx-commit=2",
			"innodb-buffer-pool-size=256M",
			"table-open-cache=400",
		}
	default:
		return nil, 0, fmt.Errorf("unknown server configuration %q (default or tuned)", conf)
	}
	host.RaiseNofile(uint64(openFiles))
	fmt.Fprintf(os.Stderr, "oltpbench: starting mariadbd (%s)...\n", conf)
	srv, err := sandbox.Start(sandbox.Config{MaxConnections: maxConn, Options: opts, TempDir: tmp})
	if err != nil {
		return nil, 0, err
	}
	// Ctrl-C during the preparation (a TPC-C load takes a while) stops
	// this server too.
	stopOnSignal(srv)
	db, err := srv.OpenDB("")
	if err == nil {
		_, err = db.Exec("CREATE DATABASE sbtest")
		if err == nil && p.goslap != "" {
			_, err = db.Exec("CREATE DATABASE tpcc")
		}
		db.Close()
	}
	ctx, cancel := context.WithTimeout(context.Background(), 15*time.Minute)
	defer cancel()
	if err == nil {
		err = prepareWith(ctx, "sysbench prepare", p.sysbench, "--mysql-socket="+srv.Socket, "--mysql-user=root", "--mysql-db=sbtest",
			"oltp_read_write", "--tables=1", "--table-size="+strconv.Itoa(p.tableSize), "prepare")
	}
	if err == nil && p.goslap != "" {
		fmt.Fprintf(os.Stderr, "oltpbench: loading %d TPC-C warehouse(s)...\n", p.warehouses)
		err = prepareWith(ctx, "goslap tpcc-load", p.goslap, "tpcc-load", "-S", srv.Socket, "-u", "root", "-d", "tpcc",
			"-w", strconv.Itoa(p.warehouses))
	}
	if err != nil {
		srv.Stop()
		return nil, 0, err
	}
	return srv, readPID(srv), nil
}

// prepareWith runs one preparing command, its output kept for an error.
func prepareWith(ctx context.Context, what, bin string, args ...string) error {
	if out, err := exec.CommandContext(ctx, bin, args...).CombinedOutput(); err != nil {
		return fmt.Errorf("%s: %v\n%s", what, err, tailText(string(out)))
	}
	return nil
}

func (s sample) rateOf() float64    { return s.rate }
func (s sample) cpuPerTrx() float64 { return s.cpu / s.events }

// pluck is one figure of every sample, in round order.
func pluck(ss []sample, f func(sample) float64) []float64 {
	v := make([]float64, len(ss))
	for i, s := range ss {
		v[i] = f(s)
	}
	return v
}

type med struct{ rate, events, cpu, cpuPer, rss, server float64 }

func medians(ss []sample) med {
	pick := func(f func(sample) float64) float64 {
		v := pluck(ss, f)
		slices.Sort(v)
		if len(v) == 0 {
			return 0
		}
		if len(v)%2 == 1 {
			return v[len(v)/2]
		}
		return (v[len(v)/2-1] + v[len(v)/2]) / 2
	}
	return med{
		rate:   pick(func(s sample) float64 { return s.rate }),
		events: pick(func(s sample) float64 { return s.events }),
		cpu:    pick(func(s sample) float64 { return s.cpu }),
		cpuPer: pick(func(s sample) float64 { return s.cpu / s.events * 1e6 }),
		rss:    pick(func(s sample) float64 { return float64(s.rssKB) / 1024 }),
		server: pick(func(s sample) float64 { return s.server }),
	}
}

var trxRE = regexp.MustCompile(`transactions:\s+([0-9]+)\s+\(([0-9.]+) per sec\.\)`)

// parseSysbench reads sysbench's (and goslap sysbench's) "transactions: N
// (X per sec.)" line: the transactions and the tps.
func parseSysbench(out string) (events, tps float64, err error) {
	m := trxRE.FindStringSubmatch(out)
	if m == nil {
		return 0, 0, errors.New("no transactions line in the output")
	}
	events, _ = strconv.ParseFloat(m[1], 64)
	tps, _ = strconv.ParseFloat(m[2], 64)
	return events, tps, nil
}

var (
	rawRE  = regexp.MustCompile(`(?s)<Raw Results>\n(.*?)\n in [0-9]+ sec\.`)
	typeRE = regexp.MustCompile(`\[[0-4]\] sc:([0-9]+) +lt:([0-9]+) `)
	tpmcRE = regexp.MustCompile(`<TpmC>\s+([0-9.]+) TpmC`)
)

// parseTPCC reads tpcc_start's (and goslap tpcc-start's) report: the
// transactions counted in the measured window (sc+lt of the five types in
// <Raw Results>, New-Orders rolled back by design included, as tpcc-mysql
// counts them) and the tpmC.
func parseTPCC(out string) (events, tpmC float64, err error) {
	raw := rawRE.FindStringSubmatch(out)
	if raw == nil {
		return 0, 0, errors.New("no <Raw Results> section in the output")
	}
	types := typeRE.FindAllStringSubmatch(raw[1], -1)
	if len(types) != 5 {
		return 0, 0, fmt.Errorf("<Raw Results> has %d transaction lines, not 5", len(types))
	}
	for _, t := range types {
		sc, _ := strconv.ParseFloat(t[1], 64)
		lt, _ := strconv.ParseFloat(t[2], 64)
		events += sc + lt
	}
	m := tpmcRE.FindStringSubmatch(out)
	if m == nil {
		return 0, 0, errors.New("no <TpmC> line in the output")
	}
	tpmC, _ = strconv.ParseFloat(m[1], 64)
	return events, tpmC, nil
}

// argv is the command line of tool t for workload w (args: the row's
// options).
func argv(t tool, w workload, args []string) []string {
	switch {
	case w.tpcc() && t.kind == goslapKind:
		return append([]string{"tpcc-start"}, args...)
	case w.tpcc():
		return slices.Clone(args)
	}
	a := append([]string{w.test}, args...)
	if t.script != "" {
		a = append([]string{filepath.Join(t.script, w.test+".lua"), "--lua-interpreter"}, args...)
	}
	a = append(a, "run")
	if t.kind == goslapKind {
		a = append([]string{"sysbench"}, a...)
	}
	return a
}

// runOnce runs one benchmark process and measures it.
func runOnce(t tool, w workload, args, env []string, serverPID int) (sample, error) {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, t.path, argv(t, w, args)...)
	cmd.Env = append(os.Environ(), env...)
	var out, errb bytes.Buffer
	cmd.Stdout = &out
	cmd.Stderr = &errb
	before := procCPU(serverPID)
	err := cmd.Run()
	after := procCPU(serverPID)
	if err != nil {
		return sample{}, fmt.Errorf("%v\n%s%s", err, tailText(out.String()), tailText(errb.String()))
	}
	parse := parseSysbench
	if w.tpcc() {
		parse = parseTPCC
	}
	n, rate, err := parse(out.String())
	if err != nil {
		return sample{}, fmt.Errorf("%v:\n%s%s", err, tailText(out.String()), tailText(errb.String()))
	}
	if n == 0 {
		return sample{}, fmt.Errorf("no transactions counted:\n%s%s", tailText(out.String()), tailText(errb.String()))
	}
	ru := cmd.ProcessState.SysUsage().(*syscall.Rusage)
	return sample{rate: rate, events: n, cpu: tv(ru.Utime) + tv(ru.Stime), rssKB: int64(ru.Maxrss), server: after - before}, nil
}

func tv(t syscall.Timeval) float64 { return float64(t.Sec) + float64(t.Usec)/1e6 }

// procCPU is a process's user+sys CPU seconds from /proc/<pid>/stat.
func procCPU(pid int) float64 {
	if pid == 0 {
		return 0
	}
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return 0
	}
	s := string(b)
	f := strings.Fields(s[strings.LastIndexByte(s, ')')+2:])
	if len(f) < 13 {
		return 0
	}
	ut, _ := strconv.ParseFloat(f[11], 64)
	st, _ := strconv.ParseFloat(f[12], 64)
	return (ut + st) / 100 // USER_HZ
}

func readPID(s *sandbox.Server) int {
	b, err := os.ReadFile(filepath.Join(s.Dir, "mysqld.pid"))
	if err != nil {
		return 0
	}
	pid, _ := strconv.Atoi(strings.TrimSpace(string(b)))
	return pid
}

// loadavg1 is the 1-minute load average (the table's column).
func loadavg1() string { return strings.Fields(loadavg() + " ?")[0] }

func loadavg() string {
	b, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return "?"
	}
	f := strings.Fields(string(b))
	if len(f) < 3 {
		return "?"
	}
	return strings.Join(f[:3], " ")
}

func tailText(s string) string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	if len(lines) > 10 {
		lines = lines[len(lines)-10:]
	}
	if len(lines) == 1 && lines[0] == "" {
		return ""
	}
	return strings.Join(lines, "\n") + "\n"
}

// running is the server being benchmarked, stopped on Ctrl-C. One handler
// for all servers: a handler per server would race the first server's
// (already stopped) to os.Exit and leave the current one running.
var running atomic.Pointer[sandbox.Server]

func stopOnSignal(s *sandbox.Server) {
	if running.Swap(s) != nil {
		return // the handler below is already installed
	}
	ch := make(chan os.Signal, 1)
	signal.Notify(ch, os.Interrupt, syscall.SIGTERM)
	go func() {
		<-ch
		_ = running.Load().Stop()
		os.Exit(130)
	}()
}

func check(err error) {
	if err != nil {
		if errors.Is(err, sandbox.ErrNoServerBinary) {
			fmt.Fprintf(os.Stderr, "oltpbench: %v (install with: %s)\n", err, sandbox.InstallHint)
		} else {
			fmt.Fprintln(os.Stderr, "oltpbench:", err)
		}
		os.Exit(1)
	}
}
