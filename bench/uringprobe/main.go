//go:build linux

// Command uringprobe measures whether an event loop that drives many MySQL
// connections from one OS thread, on io_uring or on epoll, reaches issue
// 28's key-16 goal (client CPU <= 0.75x mariadb-slap's, wall <= 0.85x),
// which goroutine-per-client and thread-per-client designs miss.
//
// It is Linux only: io_uring and epoll are.
//
// It starts a throwaway MariaDB server (internal/sandbox, in a temporary
// directory, Unix socket only), creates a 1000-row table shaped like
// mysqlslap's -a table and runs one fixed primary-key SELECT through every
// arm at each client count, each run a separate process so that its rusage
// is its own:
//
//	slap     mariadb-slap --query=... -c N --number-of-queries=Q
//	goslap   goslap with the same command line (its default client path)
//	uringT   this program's io_uring loop on T locked OS threads
//	epollT   the same loop on epoll, a control that separates "many
//	         connections per thread" from "io_uring"
//
// Every connection runs floor(Q/N) statements, as mysqlslap's clients do;
// the loops check that every reply is one row and no error, and fail
// otherwise. Wall time is what the mysqlslaps report, and for the loops
// connect to last reply measured by the child; CPU is the child's user+sys
// from wait4. The arms alternate (verdict.Order: rotated every other
// round, flipped every odd one), medians of -runs.
//
//	go run ./bench/uringprobe -goslap ./goslap -runs 5
package main

import (
	"bytes"
	"context"
	"errors"
	"flag"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/goslap/goslap/bench/host"
	"github.com/goslap/goslap/internal/mysqlconn/ring"
	"github.com/goslap/goslap/internal/sandbox"
	"github.com/goslap/goslap/internal/verdict"
)

const (
	schema    = "uringprobe"
	tableRows = 1000
	probeKey  = 500
)

// query is the statement every arm runs: mysqlslap's key load's shape (its
// -a table's int and char column by primary key), one fixed key.
var query = fmt.Sprintf("SELECT intcol1,charcol1 FROM t1 WHERE id=%d", probeKey)

func main() {
	var (
		child    = flag.String("child", "", "internal: run one event-loop arm (uring or epoll) and print its result")
		socket   = flag.String("socket", "", "internal: the server's socket (child mode)")
		threads  = flag.Int("threads", 1, "internal: OS threads of the loop (child mode)")
		clients  = flag.String("clients", "4,16,64,1000", "client counts (child mode: one)")
		queries  = flag.Int("queries", 100000, "--number-of-queries (each client runs floor(Q/N))")
		deprEOF  = flag.Bool("deprecate-eof", true, "loops: ask for CLIENT_DEPRECATE_EOF (an OK packet ends a result set)")
		minComp  = flag.Int("min-complete", 1, "io_uring loop: completions each io_uring_enter waits for (capped at the connections in flight)")
		goslap   = flag.String("goslap", "./goslap", "goslap binary")
		baseline = flag.String("baseline", "mariadb-slap", "mysqlslap binary to compare with")
		armsFlag = flag.String("arms", "slap,goslap,uring1,uring1w8,uring2,epoll1,epoll2", "arms to run: slap, goslap, uringT, epollT (T threads), uringTwK (io_uring_enter waits for K completions)")
		runs     = flag.Int("runs", 5, "runs per arm and client count (medians are taken)")
		servers  = flag.String("servers", "default", "servers: default (MariaDB's settings, only max_connections and open files raised), tuned (bench/slapbench's)")
		timeout  = flag.Duration("timeout", 2*time.Minute, "limit for one run (the probe stops the server and fails past it)")
		tmp      = flag.String("tmpdir", "", "parent of the server directory (default $TMPDIR)")
		verbose  = flag.Bool("v", false, "print every run on stderr")
	)
	flag.Parse()
	if *child != "" {
		n, err := strconv.Atoi(*clients)
		check(err)
		os.Exit(runChild(loopConfig{kind: *child, socket: *socket, db: schema, clients: n, threads: *threads,
			perClient: *queries / n, query: ring.AppendQuery(nil, query), deprecateEOF: *deprEOF, minComplete: *minComp}, *timeout))
	}

	var counts []int
	for _, s := range strings.Split(*clients, ",") {
		n, err := strconv.Atoi(s)
		if err != nil || n < 1 {
			check(fmt.Errorf("-clients: %q is not a client count", s))
		}
		counts = append(counts, n)
	}
	arms, err := parseArms(*armsFlag, *goslap, *baseline, *minComp, *deprEOF)
	check(err)
	maxConn := slices.Max(counts) + 1000
	host.RaiseNofile(uint64(2*maxConn + 2000))
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	for _, kind := range strings.Split(*servers, ",") {
		if err := probeServer(ctx, kind, maxConn, counts, arms, *queries, *runs, *timeout, *tmp, *verbose); err != nil {
			if ctx.Err() != nil {
				fmt.Fprintln(os.Stderr, "uringprobe: interrupted")
				os.Exit(130)
			}
			check(err)
		}
	}
}

// arm is one way of running the load.
type arm struct {
	name string
	path string
	args func(socket string, clients, queries int) []string
	// wallRE finds the wall time in the arm's output.
	wallRE *regexp.Regexp
}

var (
	slapWallRE = regexp.MustCompile(`Average number of seconds to run all queries: ([0-9.]+) seconds`)
	loopWallRE = regexp.MustCompile(`wall=([0-9.]+)`)
	waitsRE    = regexp.MustCompile(`waits=([0-9]+)`)
)

func parseArms(spec, goslap, baseline string, minComplete int, deprecateEOF bool) ([]arm, error) {
	self, err := os.Executable()
	if err != nil {
		return nil, err
	}
	slapArgs := func(socket string, clients, queries int) []string {
		return []string{"--no-defaults", "-S", socket, "-uroot", "--create-schema=" + schema,
			"--query=" + query, "-c", strconv.Itoa(clients), "--number-of-queries=" + strconv.Itoa(queries)}
	}
	var arms []arm
	for _, name := range strings.Split(spec, ",") {
		switch {
		case name == "slap":
			bl, err := exec.LookPath(baseline)
			if err != nil {
				return nil, err
			}
			arms = append(arms, arm{name: "mariadb-slap", path: bl, args: slapArgs, wallRE: slapWallRE})
		case name == "goslap":
			g, err := filepath.Abs(goslap)
			if err != nil {
				return nil, err
			}
			if _, err := os.Stat(g); err != nil {
				return nil, fmt.Errorf("-goslap: %w (build it with: make build)", err)
			}
			arms = append(arms, arm{name: "goslap", path: g, args: slapArgs, wallRE: slapWallRE})
		case strings.HasPrefix(name, "uring") || strings.HasPrefix(name, "epoll"):
			kind := name[:5]
			ts, ws, hasW := strings.Cut(name[5:], "w")
			t, err := strconv.Atoi(ts)
			if err != nil || t < 1 {
				return nil, fmt.Errorf("-arms: %q: want %sT with T threads", name, kind)
			}
			label := fmt.Sprintf("%s loop, %d thread", map[string]string{"uring": "io_uring", "epoll": "epoll"}[kind], t)
			if t > 1 {
				label += "s"
			}
			minComplete := minComplete
			if hasW {
				if minComplete, err = strconv.Atoi(ws); err != nil || minComplete < 1 || kind != "uring" {
					return nil, fmt.Errorf("-arms: %q: want uringTwK (K completions per io_uring_enter)", name)
				}
			}
			if minComplete > 1 {
				label += fmt.Sprintf(", waits for %d", minComplete)
			}
			arms = append(arms, arm{name: label, path: self, wallRE: loopWallRE,
				args: func(socket string, clients, queries int) []string {
					return []string{"-child", kind, "-socket", socket, "-threads", strconv.Itoa(t),
						"-clients", strconv.Itoa(clients), "-queries", strconv.Itoa(queries),
						"-min-complete", strconv.Itoa(minComplete), "-deprecate-eof=" + strconv.FormatBool(deprecateEOF)}
				}})
		default:
			return nil, fmt.Errorf("-arms: unknown arm %q (slap, goslap, uringT, epollT)", name)
		}
	}
	return arms, nil
}

// runChild runs one loop arm in this process and prints its result; a
// watchdog ends it past the time limit (a loop blocked in the kernel
// cannot look at a context).
func runChild(cfg loopConfig, limit time.Duration) int {
	time.AfterFunc(limit, func() {
		fmt.Fprintf(os.Stderr, "uringprobe: %s loop: no end after %v\n", cfg.kind, limit)
		os.Exit(1)
	})
	res, err := runLoops(cfg)
	if err != nil {
		fmt.Fprintf(os.Stderr, "uringprobe: %s loop: %v\n", cfg.kind, err)
		return 1
	}
	if want := cfg.clients * cfg.perClient; res.queries != want {
		fmt.Fprintf(os.Stderr, "uringprobe: %s loop: %d replies, want %d\n", cfg.kind, res.queries, want)
		return 1
	}
	fmt.Printf("wall=%.6f queries=%d waits=%d mode=%s\n", res.wall.Seconds(), res.queries, res.waits, res.mode)
	return 0
}

type sample struct{ wall, cpu, user, sys, waits float64 }

// probeServer starts one kind of server, fills the table, runs every arm at
// every client count and prints the table.
func probeServer(ctx context.Context, kind string, maxConn int, counts []int, arms []arm, queries, runs int,
	timeout time.Duration, tmp string, verbose bool) error {
	opts, err := host.ServerOptions(kind, maxConn)
	if err != nil {
		return err
	}
	fmt.Fprintf(os.Stderr, "uringprobe: starting mariadbd, %s settings (max_connections=%d)...\n", kind, maxConn)
	srv, err := sandbox.StartContext(ctx, sandbox.Config{MaxConnections: maxConn, Options: opts, TempDir: tmp})
	if err != nil {
		return err
	}
	defer srv.Stop()
	if err := fillTable(ctx, srv); err != nil {
		return err
	}
	modes := map[string]string{}
	results := map[int]map[string][]sample{}
	loads := map[int]string{}
	for _, n := range counts {
		results[n] = map[string][]sample{}
		loads[n] = host.LoadAverage()
		for round := range runs {
			for _, i := range verdict.Order(len(arms), runs)[round] {
				a := arms[i]
				s, out, err := runOnce(ctx, a, srv.Socket, n, queries, timeout)
				if err != nil {
					return fmt.Errorf("%d clients, %s: %w", n, a.name, err)
				}
				if m := regexp.MustCompile(`mode=(.*)`).FindStringSubmatch(out); m != nil {
					modes[a.name] = m[1]
				}
				results[n][a.name] = append(results[n][a.name], s)
				if verbose {
					fmt.Fprintf(os.Stderr, "%-7s c=%-5d %-24s wall %.3f s  cpu %.3f s (user %.3f sys %.3f) waits %.0f\n", kind, n, a.name, s.wall, s.cpu, s.user, s.sys, s.waits)
				}
			}
		}
	}

	fmt.Printf("\n### %s server\n\n", kind)
	fmt.Printf("Machine: %s\n", host.Machine())
	fmt.Printf("Date: %s\n", time.Now().UTC().Format("2006-01-02 15:04 UTC"))
	fmt.Printf("Server: %s, %s settings (%s); statement `%s` on a %d-row table; --number-of-queries=%d (each client floor(Q/N)); medians of %d alternated runs\n",
		srv.Version, kind, strings.Join(opts, " "), query, tableRows, queries, runs)
	for _, a := range arms {
		if m, ok := modes[a.name]; ok {
			fmt.Printf("%s: %s\n", a.name, m)
		}
	}
	fmt.Println()
	fmt.Println("| clients | arm | wall s | wall ratio | client CPU s (user+sys) | CPU ratio | µs CPU/query | user s | sys s | replies per wait | load avg at start |")
	fmt.Println("|---|---|---|---|---|---|---|---|---|---|---|")
	for _, n := range counts {
		done := n * (queries / n)
		b, haveB := results[n]["mariadb-slap"]
		var bw, bc float64
		if haveB {
			bw, bc = median(b, func(s sample) float64 { return s.wall }), median(b, func(s sample) float64 { return s.cpu })
		}
		for _, a := range arms {
			ss := results[n][a.name]
			w, c := median(ss, func(s sample) float64 { return s.wall }), median(ss, func(s sample) float64 { return s.cpu })
			ratio := func(x, y float64) string {
				if !haveB {
					return "—"
				}
				return fmt.Sprintf("**%.2f**", x/y)
			}
			perWait := "—"
			if wt := median(ss, func(s sample) float64 { return s.waits }); wt > 0 {
				perWait = fmt.Sprintf("%.1f", float64(done)/wt)
			}
			fmt.Printf("| %d | %s | %.3f | %s | %.3f | %s | %.1f | %.3f | %.3f | %s | %s |\n", n, a.name, w, ratio(w, bw), c, ratio(c, bc),
				c/float64(done)*1e6, median(ss, func(s sample) float64 { return s.user }), median(ss, func(s sample) float64 { return s.sys }), perWait, loads[n])
		}
	}
	return nil
}

// fillTable creates the probe's schema and its table shaped like
// mysqlslap's -a table (an auto-increment key, an int, a 128-char string).
func fillTable(ctx context.Context, srv *sandbox.Server) error {
	db, err := srv.OpenDB("")
	if err != nil {
		return err
	}
	defer db.Close()
	stmts := []string{
		"CREATE DATABASE " + schema,
		"CREATE TABLE " + schema + ".t1 (id INT NOT NULL AUTO_INCREMENT PRIMARY KEY, intcol1 INT(32), charcol1 VARCHAR(128)) ENGINE=InnoDB",
	}
	var ins strings.Builder
	ins.WriteString("INSERT INTO " + schema + ".t1 (intcol1, charcol1) VALUES ")
	const alnum = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"
	rng := rand.New(rand.NewPCG(28, 2))
	for i := range tableRows {
		if i > 0 {
			ins.WriteByte(',')
		}
		var s [128]byte
		for j := range s {
			s[j] = alnum[rng.IntN(len(alnum))]
		}
		fmt.Fprintf(&ins, "(%d,'%s')", rng.Int32(), s[:])
	}
	stmts = append(stmts, ins.String())
	for _, s := range stmts {
		if _, err := db.ExecContext(ctx, s); err != nil {
			return fmt.Errorf("creating the table: %w", err)
		}
	}
	return nil
}

// runOnce runs one arm as a child process and measures it.
func runOnce(ctx context.Context, a arm, socket string, clients, queries int, timeout time.Duration) (sample, string, error) {
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, a.path, a.args(socket, clients, queries)...)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	cmd.WaitDelay = 5 * time.Second
	if err := cmd.Run(); err != nil {
		if ctx.Err() == context.DeadlineExceeded {
			err = fmt.Errorf("no end after %v", timeout)
		}
		return sample{}, "", fmt.Errorf("%v\n%s%s", err, out.String(), errb.String())
	}
	if errb.Len() > 0 {
		return sample{}, "", fmt.Errorf("unexpected stderr:\n%s", errb.String())
	}
	m := a.wallRE.FindStringSubmatch(out.String())
	if m == nil {
		return sample{}, "", fmt.Errorf("no wall time in the output:\n%s", out.String())
	}
	wall, _ := strconv.ParseFloat(m[1], 64)
	ru := cmd.ProcessState.SysUsage().(*syscall.Rusage)
	tv := func(t syscall.Timeval) float64 { return float64(t.Sec) + float64(t.Usec)/1e6 }
	s := sample{wall: wall, user: tv(ru.Utime), sys: tv(ru.Stime)}
	s.cpu = s.user + s.sys
	if m := waitsRE.FindStringSubmatch(out.String()); m != nil {
		s.waits, _ = strconv.ParseFloat(m[1], 64)
	}
	return s, out.String(), nil
}

func median(ss []sample, f func(sample) float64) float64 {
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

func check(err error) {
	if err != nil {
		if errors.Is(err, sandbox.ErrNoServerBinary) {
			fmt.Fprintf(os.Stderr, "uringprobe: %v (install with: %s)\n", err, sandbox.InstallHint)
		} else {
			fmt.Fprintln(os.Stderr, "uringprobe:", err)
		}
		os.Exit(1)
	}
}
