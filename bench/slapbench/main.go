// Command slapbench runs goslap and mariadb-slap side by side against
// throwaway MariaDB servers (internal/sandbox) and prints a Markdown table
// of medians and ratios goslap / mariadb-slap per server: one with MariaDB's
// default settings (only max_connections and the open-files limit raised to
// hold the clients), so that the table cannot flatter goslap, and the tuned
// one (table cache instances, no per-commit log flush, large thread cache).
//
// Each workload runs -runs times per tool, the two tools alternating (and the
// order flipping every round) so that the noise of a shared machine hits both
// alike. Wall time is what each tool reports ("Average number of seconds to
// run all queries"); client CPU (user+sys) and max RSS come from the child's
// rusage (wait4), i.e. the whole process, create phase included. The server's
// CPU during each run is read from /proc/<pid>/stat.
//
//	go run ./bench/slapbench -goslap ./goslap -runs 5
//
// After each server's table, the key rows issue 28 sets goals for (16 and
// 1000 clients: wall time and client CPU against mariadb-slap) are printed
// again beside their goals (bench/target) with pass or miss.
//
// The key rows also run sysbench 1.0's oltp_point_select at the same thread
// count on an equivalent table (100 rows, as mysqlslap's -a inserts, one
// point select per event), once with the text protocol and once with
// server-side prepared statements: the best C client we know, so the table
// shows where goslap stands against it, not only against mariadb-slap
// (-sysbench "" leaves them out). sysbench connects its threads before its
// clock starts while both mysqlslaps connect inside theirs, which flatters
// sysbench's wall time at high thread counts.
//
// A goslap variant can carry its own environment, NAME=PATH@VAR=VALUE, e.g.
// the two client paths of one binary for the concurrency sweep:
//
//	go run ./bench/slapbench -servers default -rows key-1,key-4,key-16,key-64 \
//	  -goslap 'threaded=./goslap@GOSLAP_THREAD_PER_CLIENT_BELOW=100000,netpoller=./goslap@GOSLAP_THREAD_PER_CLIENT_BELOW=0'
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
	"github.com/goslap/goslap/internal/sandbox"
	"github.com/goslap/goslap/internal/verdict"
)

// workload is one row of the table.
type workload struct {
	name    string
	load    string // --auto-generate-sql-load-type
	clients int
	solo    bool // goslap only unless -baseline-solo (the -c 10000 row)
}

type sample struct {
	wall   float64 // seconds, as the tool reports it
	cpu    float64 // client user+sys seconds
	user   float64
	sys    float64
	rssKB  int64
	server float64 // server CPU seconds during the run
}

type tool struct {
	name string
	path string
	env  []string // extra environment (variant@VAR=VALUE)
	// psMode is sysbench's --db-ps-mode for the sysbench rows ("disable" =
	// text protocol, "auto" = prepared); empty for the mysqlslaps.
	psMode string
}

// sysbenchTable is the sbtest table the sysbench rows read: as many rows as
// mysqlslap's -a inserts (--auto-generate-sql-write-number's default), so
// both look up ids in a 100-row table.
const sysbenchTable = 100

func main() {
	var (
		goslap    = flag.String("goslap", "./goslap", "goslap binary")
		baseline  = flag.String("baseline", "mariadb-slap", "mysqlslap binary to compare with")
		sysbench  = flag.String("sysbench", "sysbench", `sysbench 1.0 binary for the oltp_point_select rows beside the key rows ("" to leave them out)`)
		runs      = flag.Int("runs", 5, "runs per tool and workload (medians are taken)")
		queries   = flag.Int("queries", 100000, "--number-of-queries")
		only      = flag.String("only", "", "comma-separated workload names to run (default all), e.g. key-16,key-1000")
		rowsFlag  = flag.String("rows", "", "comma-separated LOAD-CLIENTS rows instead of the default list, e.g. key-1,key-2,key-4 (a concurrency sweep)")
		servers   = flag.String("servers", "default,tuned", "servers to run every row on: default (MariaDB's settings, only max_connections and open files raised), tuned")
		bigRuns   = flag.Int("big-runs", 1, "runs of the -c 10000 row")
		bigBase   = flag.Bool("big-baseline", false, "also run the baseline at -c 10000")
		timeout   = flag.Duration("timeout", 5*time.Minute, "limit for one run")
		extra     = flag.String("server-options", "", "extra mariadbd options, comma-separated")
		tmp       = flag.String("tmpdir", "", "parent of the server directory (default $TMPDIR)")
		verbose   = flag.Bool("v", false, "print every run")
		goslapEnv = flag.String("goslap-env", "", "extra environment for goslap only, comma-separated NAME=VALUE (for experiments)")
		serve     = flag.Bool("serve", false, "only start the server, print its socket and wait for Ctrl-C (for profiling by hand)")
	)
	flag.Parse()

	workloads := []workload{
		{"key-16", "key", 16, false},
		{"read-16", "read", 16, false},
		{"write-16", "write", 16, false},
		{"mixed-16", "mixed", 16, false},
		{"key-1", "key", 1, false},
		{"key-4", "key", 4, false},
		{"key-64", "key", 64, false},
		{"key-256", "key", 256, false},
		{"key-1000", "key", 1000, false},
		{"key-10000", "key", 10000, true},
	}
	if *rowsFlag != "" {
		workloads = nil
		for _, r := range strings.Split(*rowsFlag, ",") {
			load, c, ok := strings.Cut(r, "-")
			n, err := strconv.Atoi(c)
			if !ok || err != nil || n < 1 {
				check(fmt.Errorf("-rows: %q is not LOAD-CLIENTS", r))
			}
			workloads = append(workloads, workload{r, load, n, false})
		}
	}
	if *only != "" {
		want := strings.Split(*only, ",")
		workloads = slices.DeleteFunc(workloads, func(w workload) bool { return !slices.Contains(want, w.name) })
	}
	// -goslap is a binary, or NAME=PATH,NAME=PATH to compare variants
	// (each gets its own rows; ratios are always against the baseline).
	var variants []tool
	for _, spec := range strings.Split(*goslap, ",") {
		spec, envs, _ := strings.Cut(spec, "@")
		name, path, ok := strings.Cut(spec, "=")
		if !ok {
			name, path = "goslap", spec
		}
		abs, err := filepath.Abs(path)
		check(err)
		var env []string
		if envs != "" {
			env = strings.Split(envs, "@")
		}
		if *goslapEnv != "" {
			env = append(env, strings.Split(*goslapEnv, ",")...)
		}
		variants = append(variants, tool{name: name, path: abs, env: env})
	}
	bl, err := exec.LookPath(*baseline)
	check(err)
	tools := append(slices.Clone(variants), tool{name: base, path: bl})
	var sysbenches []tool
	if *sysbench != "" {
		sb, err := exec.LookPath(*sysbench)
		check(err)
		sysbenches = []tool{{name: "sysbench text", path: sb, psMode: "disable"}, {name: "sysbench prepared", path: sb, psMode: "auto"}}
	}

	host.RaiseNofile(uint64(2*maxConnections(workloads) + 2000))
	for _, kind := range strings.Split(*servers, ",") {
		benchServer(kind, workloads, variants, tools, sysbenches, *extra, *tmp, *queries, *runs, *bigRuns, *bigBase, *timeout, *verbose, *serve)
	}
}

// base is the reference tool's name in the table.
const base = "mariadb-slap"

func maxConnections(workloads []workload) int {
	maxConn := 1200
	for _, w := range workloads {
		maxConn = max(maxConn, w.clients+1000)
	}
	return maxConn
}

// benchServer starts one kind of server, runs every row on it and prints
// its table.
func benchServer(kind string, workloads []workload, variants, tools, sysbenches []tool, extra, tmp string,
	queries, runs, bigRuns int, bigBase bool, timeout time.Duration, verbose, serve bool) {
	maxConn := maxConnections(workloads)
	opts, err := host.ServerOptions(kind, maxConn)
	check(err)
	if extra != "" {
		opts = append(opts, strings.Split(extra, ",")...)
	}
	fmt.Fprintf(os.Stderr, "slapbench: starting mariadbd, %s settings (max_connections=%d)...\n", kind, maxConn)
	srv, err := sandbox.Start(sandbox.Config{MaxConnections: maxConn, Options: opts, TempDir: tmp})
	check(err)
	defer srv.Stop()
	stopOnSignal(srv)
	serverPID := readPID(srv)
	if serve {
		fmt.Printf("socket %s pid %d\n", srv.Socket, serverPID)
		select {}
	}

	if len(sysbenches) > 0 && slices.ContainsFunc(workloads, func(w workload) bool { return w.load == "key" && !w.solo }) {
		check(prepareSysbench(sysbenches[0].path, srv.Socket))
	}

	common := []string{"--no-defaults", "--socket=" + srv.Socket, "--user=root",
		"-a", "--auto-generate-sql-add-autoincrement", "--engine=innodb",
		"--number-of-queries=" + strconv.Itoa(queries)}

	results := map[string]map[string][]sample{}
	loads := map[string]string{}
	var order []string
	for _, w := range workloads {
		n := runs
		ts := tools
		if w.solo {
			n = bigRuns
			if !bigBase {
				ts = variants
			}
		}
		args := append(slices.Clone(common), "--auto-generate-sql-load-type="+w.load, "-c", strconv.Itoa(w.clients))
		if w.load == "key" && !w.solo {
			ts = append(slices.Clone(ts), sysbenches...)
		}
		results[w.name] = map[string][]sample{}
		order = append(order, w.name)
		loads[w.name] = host.LoadAverage()
		for round := range n {
			// The order changes every round so no tool always runs first
			// (verdict.Order: A B, B A, B A, A B for two).
			for _, i := range verdict.Order(len(ts), n)[round] {
				t := ts[i]
				targs, wallRE := args, avgRE
				if t.psMode != "" {
					targs, wallRE = sysbenchArgs(srv.Socket, t.psMode, w.clients, queries), sysbenchWallRE
				}
				s, err := runOnce(t.path, targs, t.env, wallRE, serverPID, timeout)
				if err != nil {
					fmt.Fprintf(os.Stderr, "slapbench: %s %s: %v\n", w.name, t.name, err)
					os.Exit(1)
				}
				results[w.name][t.name] = append(results[w.name][t.name], s)
				if verbose {
					fmt.Fprintf(os.Stderr, "%-8s %-10s %-13s wall %.3f s  cpu %.3f s (u %.3f s %.3f)  rss %d MB  server cpu %.3f s\n",
						kind, w.name, t.name, s.wall, s.cpu, s.user, s.sys, s.rssKB/1024, s.server)
				}
			}
		}
	}

	fmt.Printf("\n### %s server\n\n", kind)
	fmt.Printf("Machine: %s\n", host.Machine())
	fmt.Printf("Date: %s\n", time.Now().UTC().Format("2006-01-02 15:04 UTC"))
	fmt.Printf("Server: %s, %s settings (%s), %d queries per run (%s), medians of %d runs (-c 10000: %d)\n\n",
		srv.Version, kind, strings.Join(opts, " "), queries, "innodb, --auto-generate-sql-add-autoincrement", runs, bigRuns)
	fmt.Println("| workload | tool | wall s | wall ratio | client CPU s (user+sys) | CPU ratio | µs CPU/query | max RSS MB | RSS ratio | server CPU s | load avg at start |")
	fmt.Println("|---|---|---|---|---|---|---|---|---|---|---|")
	for _, name := range order {
		b, haveB := results[name][base]
		var m median
		if haveB {
			m = medians(b)
			fmt.Printf("| %s | %s | %.3f | 1 | %.2f | 1 | %.1f | %.1f | 1 | %.2f | %s |\n",
				name, base, m.wall, m.cpu, m.cpu/float64(queries)*1e6, m.rss, m.server, loads[name])
		}
		for _, v := range append(slices.Clone(variants), sysbenches...) {
			ss, ok := results[name][v.name]
			if !ok {
				continue
			}
			g := medians(ss)
			ratio := func(a, b float64) string {
				if !haveB {
					return "—"
				}
				return fmt.Sprintf("**%.2f**", a/b)
			}
			fmt.Printf("| %s | %s | %.3f | %s | %.2f | %s | %.1f | %.1f | %s | %.2f | %s |\n",
				name, v.name, g.wall, ratio(g.wall, m.wall), g.cpu, ratio(g.cpu, m.cpu),
				g.cpu/float64(queries)*1e6, g.rss, ratio(g.rss, m.rss), g.server, loads[name])
		}
	}
	printGoals(os.Stdout, workloads, variants, results, loads)
}

// printGoals prints issue 28's goals for the key rows that have them (wall
// time and client CPU against mariadb-slap) beside each goslap variant's
// ratios, with pass or miss; nothing when no such row ran.
func printGoals(out io.Writer, workloads []workload, variants []tool, results map[string]map[string][]sample, loads map[string]string) {
	header := false
	for _, w := range workloads {
		goals, ok := target.SlapKey[w.clients]
		b, haveB := results[w.name][base]
		if w.load != "key" || !ok || !haveB {
			continue
		}
		m := medians(b)
		for _, v := range variants {
			ss, ok := results[w.name][v.name]
			if !ok {
				continue
			}
			if !header {
				fmt.Fprintf(out, "\nIssue 28's goals (goslap / %s; ratios of the medians, judged; beside each, the 95 %% confidence\ninterval of the ratio over the rounds, paired by round):\n\n", base)
				fmt.Fprintln(out, "| workload | tool | wall ratio | 95 % CI | goal | CPU ratio | 95 % CI | goal | verdict | load avg at start |")
				fmt.Fprintln(out, "|---|---|---|---|---|---|---|---|---|---|")
				header = true
			}
			g := medians(ss)
			checks := []target.Check{{Bound: goals[0], Ratio: g.wall / m.wall}, {Bound: goals[1], Ratio: g.cpu / m.cpu}}
			fmt.Fprintf(out, "| %s | %s | %s | %s | %s | %s | %s | %s | %s | %s |\n", w.name, v.name,
				checks[0].Cell(), target.Interval(pluck(b, sample.wallOf), pluck(ss, sample.wallOf)), checks[0].Bound,
				checks[1].Cell(), target.Interval(pluck(b, sample.cpuOf), pluck(ss, sample.cpuOf)), checks[1].Bound,
				target.Verdict(checks), loads[w.name])
		}
	}
}

func (s sample) wallOf() float64 { return s.wall }
func (s sample) cpuOf() float64  { return s.cpu }

// pluck is one figure of every sample, in round order.
func pluck(ss []sample, f func(sample) float64) []float64 {
	v := make([]float64, len(ss))
	for i, s := range ss {
		v[i] = f(s)
	}
	return v
}

type median struct{ wall, cpu, rss, server float64 }

func medians(ss []sample) median {
	pick := func(f func(sample) float64) float64 {
		v := pluck(ss, f)
		slices.Sort(v)
		if len(v)%2 == 1 {
			return v[len(v)/2]
		}
		return (v[len(v)/2-1] + v[len(v)/2]) / 2
	}
	return median{
		wall:   pick(func(s sample) float64 { return s.wall }),
		cpu:    pick(func(s sample) float64 { return s.cpu }),
		rss:    pick(func(s sample) float64 { return float64(s.rssKB) / 1024 }),
		server: pick(func(s sample) float64 { return s.server }),
	}
}

var avgRE = regexp.MustCompile(`Average number of seconds to run all queries: ([0-9.]+) seconds`)

// sysbenchWallRE is sysbench's "total time:" line of its General statistics.
var sysbenchWallRE = regexp.MustCompile(`total time:\s+([0-9.]+)s`)

// sysbenchOptions are the connection and table options of every sysbench call.
func sysbenchOptions(socket string) []string {
	return []string{"oltp_point_select", "--db-driver=mysql", "--mysql-socket=" + socket, "--mysql-user=root",
		"--mysql-db=sbtest", "--tables=1", "--table-size=" + strconv.Itoa(sysbenchTable)}
}

// sysbenchArgs is one oltp_point_select run: queries events of one point
// select each (sysbench's default is 10 per event), uniform ids like
// mysqlslap's key load, no time limit.
func sysbenchArgs(socket, psMode string, threads, queries int) []string {
	return append(sysbenchOptions(socket), "--threads="+strconv.Itoa(threads), "--events="+strconv.Itoa(queries),
		"--time=0", "--point-selects=1", "--rand-type=uniform", "--db-ps-mode="+psMode, "run")
}

// prepareSysbench creates the sbtest schema and table the sysbench rows read.
func prepareSysbench(bin, socket string) error {
	if out, err := exec.Command("mariadb", "--no-defaults", "--socket="+socket, "--user=root",
		"-e", "CREATE DATABASE IF NOT EXISTS sbtest").CombinedOutput(); err != nil {
		return fmt.Errorf("creating schema sbtest: %v\n%s", err, out)
	}
	if out, err := exec.Command(bin, append(sysbenchOptions(socket), "prepare")...).CombinedOutput(); err != nil {
		return fmt.Errorf("sysbench prepare: %v\n%s", err, out)
	}
	return nil
}

// runOnce runs one benchmark process and measures it; wallRE finds the wall
// time the tool reports.
func runOnce(bin string, args, env []string, wallRE *regexp.Regexp, serverPID int, timeout time.Duration) (sample, error) {
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin, args...)
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
	m := wallRE.FindStringSubmatch(out.String())
	if m == nil {
		return sample{}, fmt.Errorf("no timing in the output:\n%s%s", out.String(), errb.String())
	}
	if errb.Len() > 0 {
		return sample{}, fmt.Errorf("unexpected stderr:\n%s", tailText(errb.String()))
	}
	wall, _ := strconv.ParseFloat(m[1], 64)
	ru := cmd.ProcessState.SysUsage().(*syscall.Rusage)
	user := tv(ru.Utime)
	sys := tv(ru.Stime)
	return sample{wall: wall, cpu: user + sys, user: user, sys: sys, rssKB: int64(ru.Maxrss), server: after - before}, nil
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
	// Fields after the ")" of the command name: state is field 3, utime 14, stime 15.
	s := string(b)
	s = s[strings.LastIndexByte(s, ')')+2:]
	f := strings.Fields(s)
	if len(f) < 13 {
		return 0
	}
	ut, _ := strconv.ParseFloat(f[11], 64)
	st, _ := strconv.ParseFloat(f[12], 64)
	return (ut + st) / 100 // USER_HZ is 100 on Linux
}

func readPID(s *sandbox.Server) int {
	b, err := os.ReadFile(filepath.Join(s.Dir, "mysqld.pid"))
	if err != nil {
		return 0
	}
	pid, _ := strconv.Atoi(strings.TrimSpace(string(b)))
	return pid
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

// running is the server being benchmarked, stopped on Ctrl-C.
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
			fmt.Fprintf(os.Stderr, "slapbench: %v (install with: %s)\n", err, sandbox.InstallHint)
		} else {
			fmt.Fprintln(os.Stderr, "slapbench:", err)
		}
		os.Exit(1)
	}
}
