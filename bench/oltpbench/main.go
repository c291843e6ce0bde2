// Command oltpbench runs `goslap sysbench TEST … run` and sysbench 1.0.20's
// `sysbench TEST … run` side by side on one throw-away MariaDB server and
// the same tables (prepared once, by sysbench), and prints a Markdown table
// of medians and ratios goslap / sysbench per workload.
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
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"regexp"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/goslap/goslap/internal/sandbox"
)

// workload is one row of the table.
type workload struct {
	name    string
	test    string
	threads int
	events  int // 0: time-limited (-time)
}

type sample struct {
	tps    float64
	events float64 // transactions the tool reports
	cpu    float64 // client user+sys seconds
	rssKB  int64
	server float64 // server CPU seconds during the run
}

type tool struct {
	name string
	path string
	// sysbench is true for the reference (run as `sysbench ARGS`),
	// false for goslap (run as `goslap sysbench ARGS`).
	sysbench bool
	// script: goslap runs sysbench's stock Lua script of the test through
	// its interpreter (--lua-interpreter) instead of its built-in workload.
	script string
}

const base = "sysbench"

func main() {
	var (
		goslap    = flag.String("goslap", "./goslap", "goslap binary, or NAME=PATH,NAME=PATH to compare builds")
		sysbench  = flag.String("sysbench", "sysbench", "sysbench 1.0.20 binary")
		servers   = flag.String("server", "default,tuned", "server configurations to run: default, tuned or both")
		runs      = flag.Int("runs", 5, "runs per tool and workload (medians are taken)")
		secs      = flag.Int("time", 10, "--time of the time-limited workloads (seconds)")
		events    = flag.Int("events", 100000, "--events of oltp_point_select")
		tableSize = flag.Int("table-size", 100000, "--table-size of the one table")
		only      = flag.String("only", "", "comma-separated workload names (default all): ps-16, ro-16, rw-16, ro-1000")
		tmp       = flag.String("tmpdir", "", "parent of the server directory (default $TMPDIR)")
		verbose   = flag.Bool("v", false, "print every run")
		goslapEnv = flag.String("goslap-env", "", "extra environment for goslap only, comma-separated NAME=VALUE (GODEBUG, profiling)")
		interpret = flag.String("interpret", "", "names of -goslap variants that run the stock Lua script of each test (in -scripts) through goslap's interpreter instead of the built-in workload")
		scripts   = flag.String("scripts", "/usr/share/sysbench", "directory of sysbench's stock Lua scripts, for -interpret")
		serve     = flag.String("serve", "", "only start this server configuration (default or tuned), prepare the tables, print its socket and wait for Ctrl-C (profiling by hand)")
	)
	flag.Parse()

	workloads := []workload{
		{"ps-16", "oltp_point_select", 16, *events},
		{"ro-16", "oltp_read_only", 16, 0},
		{"rw-16", "oltp_read_write", 16, 0},
		{"ro-1000", "oltp_read_only", 1000, 0},
	}
	if *only != "" {
		want := strings.Split(*only, ",")
		workloads = slices.DeleteFunc(workloads, func(w workload) bool { return !slices.Contains(want, w.name) })
	}
	var variants []tool
	for _, spec := range strings.Split(*goslap, ",") {
		name, path, ok := strings.Cut(spec, "=")
		if !ok {
			name, path = "goslap", spec
		}
		abs, err := filepath.Abs(path)
		check(err)
		t := tool{name: name, path: abs}
		if slices.Contains(strings.Split(*interpret, ","), name) {
			t.script = *scripts
		}
		variants = append(variants, t)
	}
	sb, err := exec.LookPath(*sysbench)
	check(err)
	tools := append(slices.Clone(variants), tool{name: base, path: sb, sysbench: true})

	if *serve != "" {
		srv, pid, err := startServer(*serve, *tmp, *tableSize, sb)
		check(err)
		defer srv.Stop()
		stopOnSignal(srv)
		fmt.Printf("socket %s pid %d\n", srv.Socket, pid)
		select {}
	}

	fmt.Printf("Machine: %s\n", machine())
	fmt.Printf("Date: %s, load average at start: %s\n", time.Now().UTC().Format("2006-01-02 15:04 UTC"), loadavg())
	fmt.Printf("1 table of %d rows prepared by sysbench; oltp_point_select --events=%d --time=0, the others --time=%d; medians of %d runs, alternated\n",
		*tableSize, *events, *secs, *runs)
	for _, conf := range strings.Split(*servers, ",") {
		srv, serverPID, err := startServer(conf, *tmp, *tableSize, sb)
		check(err)
		stopOnSignal(srv)
		fmt.Printf("\n### Server: %s (%s)\n\n", conf, srv.Version)
		common := []string{"--mysql-socket=" + srv.Socket, "--mysql-user=root", "--mysql-db=sbtest",
			"--tables=1", "--table-size=" + strconv.Itoa(*tableSize)}
		results := map[string]map[string][]sample{}
		for _, w := range workloads {
			args := append(slices.Clone(common), "--threads="+strconv.Itoa(w.threads))
			if w.events > 0 {
				args = append(args, "--events="+strconv.Itoa(w.events), "--time=0")
			} else {
				args = append(args, "--time="+strconv.Itoa(*secs))
			}
			results[w.name] = map[string][]sample{}
			for round := range *runs {
				seq := slices.Clone(tools)
				k := round % len(seq)
				seq = append(seq[k:], seq[:k]...)
				if round%2 == 1 {
					slices.Reverse(seq)
				}
				for _, t := range seq {
					var env []string
					if !t.sysbench && *goslapEnv != "" {
						env = strings.Split(*goslapEnv, ",")
					}
					s, err := runOnce(t, w.test, args, env, serverPID)
					if err != nil {
						srv.Stop()
						fmt.Fprintf(os.Stderr, "oltpbench: %s %s %s: %v\n", conf, w.name, t.name, err)
						os.Exit(1)
					}
					results[w.name][t.name] = append(results[w.name][t.name], s)
					if *verbose {
						fmt.Fprintf(os.Stderr, "%-7s %-7s %-9s tps %9.1f  cpu %6.2f s  %5.1f µs/trx  rss %6.1f MB  server cpu %6.2f s  load %s\n",
							conf, w.name, t.name, s.tps, s.cpu, s.cpu/s.events*1e6, float64(s.rssKB)/1024, s.server, loadavg())
					}
				}
			}
		}
		srv.Stop()
		fmt.Printf("Command of each row: `sysbench|goslap sysbench %s TEST --threads=N (--events=%d --time=0 | --time=%d) run`\n\n",
			strings.Join(common[1:], " "), *events, *secs)
		fmt.Println("| workload | tool | tps | tps ratio | client CPU s | CPU ratio | µs CPU/trx | CPU/trx ratio | max RSS MB | RSS ratio | server CPU s |")
		fmt.Println("|---|---|---|---|---|---|---|---|---|---|---|")
		for _, w := range workloads {
			b := medians(results[w.name][base])
			row := func(name string, m med, ratio func(a, b float64) string) {
				fmt.Printf("| %s | %s | %.0f | %s | %.2f | %s | %.1f | %s | %.1f | %s | %.2f |\n",
					w.name, name, m.tps, ratio(m.tps, b.tps), m.cpu, ratio(m.cpu, b.cpu), m.cpuPer, ratio(m.cpuPer, b.cpuPer),
					m.rss, ratio(m.rss, b.rss), m.server)
			}
			row(base, b, func(float64, float64) string { return "1" })
			for _, v := range variants {
				row(v.name, medians(results[w.name][v.name]), func(a, b float64) string { return fmt.Sprintf("**%.2f**", a/b) })
			}
		}
	}
	fmt.Printf("\nload average at the end: %s\n", loadavg())
}

// startServer starts a server in configuration conf and prepares the
// sbtest table with sysbench; it returns the server and its pid.
func startServer(conf, tmp string, tableSize int, sb string) (*sandbox.Server, int, error) {
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
	raiseNofile(uint64(openFiles))
	fmt.Fprintf(os.Stderr, "oltpbench: starting mariadbd (%s)...\n", conf)
	srv, err := sandbox.Start(sandbox.Config{MaxConnections: maxConn, Options: opts, TempDir: tmp})
	if err != nil {
		return nil, 0, err
	}
	db, err := srv.OpenDB("")
	if err == nil {
		_, err = db.Exec("CREATE DATABASE sbtest")
		db.Close()
	}
	if err == nil {
		cmd := exec.Command(sb, "--mysql-socket="+srv.Socket, "--mysql-user=root", "--mysql-db=sbtest",
			"oltp_read_write", "--tables=1", "--table-size="+strconv.Itoa(tableSize), "prepare")
		if out, e := cmd.CombinedOutput(); e != nil {
			err = fmt.Errorf("sysbench prepare: %v\n%s", e, out)
		}
	}
	if err != nil {
		srv.Stop()
		return nil, 0, err
	}
	return srv, readPID(srv), nil
}

type med struct{ tps, cpu, cpuPer, rss, server float64 }

func medians(ss []sample) med {
	pick := func(f func(sample) float64) float64 {
		v := make([]float64, len(ss))
		for i, s := range ss {
			v[i] = f(s)
		}
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
		tps:    pick(func(s sample) float64 { return s.tps }),
		cpu:    pick(func(s sample) float64 { return s.cpu }),
		cpuPer: pick(func(s sample) float64 { return s.cpu / s.events * 1e6 }),
		rss:    pick(func(s sample) float64 { return float64(s.rssKB) / 1024 }),
		server: pick(func(s sample) float64 { return s.server }),
	}
}

var trxRE = regexp.MustCompile(`transactions:\s+([0-9]+)\s+\(([0-9.]+) per sec\.\)`)

// runOnce runs one benchmark process and measures it.
func runOnce(t tool, test string, args, env []string, serverPID int) (sample, error) {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	argv := append([]string{test}, args...)
	if t.script != "" {
		argv = append([]string{filepath.Join(t.script, test+".lua"), "--lua-interpreter"}, args...)
	}
	argv = append(argv, "run")
	if !t.sysbench {
		argv = append([]string{"sysbench"}, argv...)
	}
	cmd := exec.CommandContext(ctx, t.path, argv...)
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
	m := trxRE.FindStringSubmatch(out.String())
	if m == nil {
		return sample{}, fmt.Errorf("no transactions line in the output:\n%s%s", out.String(), errb.String())
	}
	n, _ := strconv.ParseFloat(m[1], 64)
	tps, _ := strconv.ParseFloat(m[2], 64)
	ru := cmd.ProcessState.SysUsage().(*syscall.Rusage)
	return sample{tps: tps, events: n, cpu: tv(ru.Utime) + tv(ru.Stime), rssKB: ru.Maxrss, server: after - before}, nil
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

// raiseNofile lifts this process's soft (and, as root, hard) open-file
// limit; children (the server, the clients) inherit it.
func raiseNofile(want uint64) {
	var lim syscall.Rlimit
	if syscall.Getrlimit(syscall.RLIMIT_NOFILE, &lim) != nil {
		return
	}
	if lim.Max < want {
		hard := lim
		hard.Max, hard.Cur = want, want
		if syscall.Setrlimit(syscall.RLIMIT_NOFILE, &hard) == nil {
			return
		}
	}
	lim.Cur = min(max(lim.Cur, want), lim.Max)
	_ = syscall.Setrlimit(syscall.RLIMIT_NOFILE, &lim)
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

func stopOnSignal(s *sandbox.Server) {
	ch := make(chan os.Signal, 1)
	signal.Notify(ch, os.Interrupt, syscall.SIGTERM)
	go func() {
		<-ch
		_ = s.Stop()
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

// machine describes the box: CPU model, cores, memory, kernel.
func machine() string {
	model := "unknown CPU"
	if b, err := os.ReadFile("/proc/cpuinfo"); err == nil {
		for _, line := range strings.Split(string(b), "\n") {
			if k, v, ok := strings.Cut(line, ":"); ok && strings.TrimSpace(k) == "model name" {
				model = strings.TrimSpace(v)
				break
			}
		}
	}
	kernel := ""
	if b, err := os.ReadFile("/proc/sys/kernel/osrelease"); err == nil {
		kernel = ", Linux " + strings.TrimSpace(string(b))
	}
	return fmt.Sprintf("%d cores (%s)%s, %s", runtime.NumCPU(), model, kernel, runtime.Version())
}
