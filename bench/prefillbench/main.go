// Command prefillbench times goslap's OLTP prepare (internal/prefill)
// against `sysbench oltp_read_write prepare` on one throw-away server:
// runs alternated, medians, the ratio goslap/sysbench. Progress on stderr,
// the Markdown result on stdout.
//
//	go run ./bench/prefillbench -rows 1000000 -runs 5 -conns 1,4
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/goslap/goslap/internal/getopt"
	"github.com/goslap/goslap/internal/mysqlconn"
	"github.com/goslap/goslap/internal/sandbox"
	"github.com/goslap/goslap/internal/workload"
	"github.com/goslap/goslap/internal/workload/oltp"
)

func main() {
	rows := flag.Int("rows", 1000000, "rows of each table")
	tables := flag.Int("tables", 1, "tables (sysbench's and goslap's --tables)")
	runs := flag.Int("runs", 5, "runs of each program (alternated)")
	method := flag.String("method", "auto", "goslap --prefill-method")
	conns := flag.String("conns", "4", "goslap --prefill-connections; a comma-separated list compares them (each alternated with sysbench)")
	only := flag.String("only", "", "run only this side: goslap or sysbench (profiling)")
	small := flag.Bool("test-server-sizes", false, "keep the test server's 64M buffer pool and 16M redo log instead of MariaDB's defaults (128M, 96M)")
	status := flag.Bool("status", false, "sample the server's InnoDB flushing status during every prepare and log it (stderr)")
	goslapArgs := flag.String("goslap-args", "", "space-separated goslap workload options added to goslap's prepare (a diagnosis, e.g. --auto-inc=off)")
	extra := flag.String("server-options", "", "comma-separated server options added after the defaults (a diagnosis, e.g. innodb-log-file-size=512M: the issue's figures use MariaDB's defaults)")
	flag.Parse()
	var opts []string
	if *extra != "" {
		opts = strings.Split(*extra, ",")
	}
	if err := run(*rows, *tables, *runs, *method, strings.Split(*conns, ","), *only, *small, *status, opts, strings.Fields(*goslapArgs)); err != nil {
		fmt.Fprintln(os.Stderr, "prefillbench:", err)
		os.Exit(1)
	}
}

func run(rows, tables, runs int, method string, conns []string, only string, small, status bool, extra, goslapArgs []string) error {
	var cfg sandbox.Config
	if !small {
		// MariaDB 10.11's defaults, which sandbox shrinks for start-up speed.
		cfg.Options = []string{"innodb-buffer-pool-size=128M", "innodb-log-file-size=96M"}
	}
	cfg.Options = append(cfg.Options, extra...)
	srv, err := sandbox.Start(cfg)
	if err != nil {
		return err
	}
	defer srv.Stop()
	fmt.Fprintf(os.Stderr, "server: %s\n", srv.Version)
	db, err := srv.OpenDB("")
	if err != nil {
		return err
	}
	if _, err := db.Exec("CREATE DATABASE sbtest"); err != nil {
		return err
	}
	db.Close()
	cn, err := mysqlconn.NewConnector(srv.RootConfig("sbtest"), "")
	if err != nil {
		return err
	}
	main, err := cn.Connect(nil)
	if err != nil {
		return err
	}
	defer main.Close()
	sess := &workload.Session{Main: main, Connect: func() (*mysqlconn.Conn, error) { return cn.Connect(nil) },
		Log: func(f string, a ...any) { fmt.Fprintf(os.Stderr, "  "+f+"\n", a...) }}
	size := strconv.Itoa(rows)
	serverPID := childPID("mariadbd")
	// sample watches the server's flushing from its own connection until
	// the returned function is called, which logs what it saw.
	sample := func() func() {
		if !status {
			return func() {}
		}
		c, err := cn.Connect(nil)
		if err != nil {
			fmt.Fprintln(os.Stderr, "  status:", err)
			return func() {}
		}
		stop, done := make(chan struct{}), make(chan struct{})
		var first, last map[string]int64
		var samples, waited, autoWaited int
		peak := map[string]int64{}
		trough := map[string]int64{}
		go func() {
			defer close(done)
			tick := time.NewTicker(200 * time.Millisecond)
			defer tick.Stop()
			for {
				st := innodbStatus(c)
				if first == nil {
					first = st
				}
				last = st
				samples++
				if st["lock_waiting"] > 0 {
					waited++
				}
				if st["autoinc_waiting"] > 0 {
					autoWaited++
				}
				for k, v := range st {
					if v > peak[k] {
						peak[k] = v
					}
					if t, ok := trough[k]; !ok || v < t {
						trough[k] = v
					}
				}
				select {
				case <-stop:
					return
				case <-tick.C:
				}
			}
		}()
		return func() {
			close(stop)
			<-done
			c.Close()
			d := func(k string) int64 { return last[k] - first[k] }
			fmt.Fprintf(os.Stderr, "  locks: %d of %d samples saw a transaction waiting for a lock (%d for AUTO-INC), at most %d at once\n",
				waited, samples, autoWaited, peak["lock_waiting"])
			fmt.Fprintf(os.Stderr, "  status: wait_free +%d, log_waits +%d, pages flushed +%d, dirty pages max %d of %d, free pages min %d, checkpoint age max %.0f MB, data written +%.0f MB\n",
				d("innodb_buffer_pool_wait_free"), d("innodb_log_waits"), d("innodb_buffer_pool_pages_flushed"),
				peak["innodb_buffer_pool_pages_dirty"], peak["innodb_buffer_pool_pages_total"], trough["innodb_buffer_pool_pages_free"],
				float64(peak["innodb_checkpoint_age"])/1e6, float64(d("innodb_data_written"))/1e6)
		}
	}
	sysbench := func(cmd string) (time.Duration, error) {
		start := time.Now()
		cpu0 := procCPU(serverPID)
		if cmd == "prepare" {
			defer sample()()
		}
		defer func() {
			if cmd == "prepare" {
				fmt.Fprintf(os.Stderr, "  server CPU %.2fs\n", (procCPU(serverPID) - cpu0).Seconds())
			}
		}()
		c := exec.Command("sysbench", "--mysql-socket="+srv.Socket, "--mysql-user=root", "--mysql-db=sbtest",
			"oltp_read_write", "--tables="+strconv.Itoa(tables), "--table-size="+size, cmd)
		out, err := c.CombinedOutput()
		if err != nil {
			return 0, fmt.Errorf("sysbench %s: %v\n%s", cmd, err, out)
		}
		d := time.Since(start)
		if cmd == "prepare" {
			fmt.Fprintf(os.Stderr, "  client CPU %.2fs\n", (c.ProcessState.UserTime() + c.ProcessState.SystemTime()).Seconds())
		}
		return d, nil
	}
	goslap := func(conns string) (time.Duration, error) {
		s := oltp.NewSettings()
		p := getopt.NewParser("prefillbench", s.Options(), os.Stderr)
		if err := p.Parse(append([]string{"--tables=" + strconv.Itoa(tables), "--table-size=" + size, "--prefill-method=" + method,
			"--prefill-connections=" + conns}, goslapArgs...), false); err != nil {
			return 0, err
		}
		w, err := s.Build("oltp_read_write", workload.Common{Schema: "sbtest", Seed: 1, Verbose: 1})
		if err != nil {
			return 0, err
		}
		start := time.Now()
		cpu0, self0 := procCPU(serverPID), procCPU(os.Getpid())
		stop := sample()
		err = w.Setup(context.Background(), sess, workload.Point{})
		stop()
		if err != nil {
			return 0, err
		}
		d := time.Since(start)
		fmt.Fprintf(os.Stderr, "  server CPU %.2fs\n  client CPU %.2fs\n", (procCPU(serverPID) - cpu0).Seconds(), (procCPU(os.Getpid()) - self0).Seconds())
		return d, w.Teardown(context.Background(), sess, workload.Point{})
	}
	gs := make([][]time.Duration, len(conns))
	var ss []time.Duration
	for i := 0; i < runs; i++ {
		for j, n := range conns {
			if only == "sysbench" {
				break
			}
			d, err := goslap(n)
			if err != nil {
				return err
			}
			gs[j] = append(gs[j], d)
			fmt.Fprintf(os.Stderr, "run %d goslap --prefill-connections=%s  %.2fs  (load %s)\n", i+1, n, d.Seconds(), loadavg())
		}
		if only != "goslap" {
			d, err := sysbench("prepare")
			if err != nil {
				return err
			}
			if _, err := sysbench("cleanup"); err != nil {
				return err
			}
			ss = append(ss, d)
			fmt.Fprintf(os.Stderr, "run %d sysbench %.2fs  (load %s)\n", i+1, d.Seconds(), loadavg())
		}
	}
	fmt.Printf("| tables | rows | runs | --prefill-connections | goslap median (s) | sysbench median (s) | goslap / sysbench |\n|---|---|---|---|---|---|---|\n")
	s := median(ss)
	for j, n := range conns {
		g := median(gs[j])
		ratio := "-"
		if g > 0 && s > 0 {
			ratio = fmt.Sprintf("%.2f", g.Seconds()/s.Seconds())
		}
		fmt.Printf("| %d | %d | %d | %s | %.2f | %.2f | %s |\n", tables, rows, runs, n, g.Seconds(), s.Seconds(), ratio)
	}
	fmt.Println()
	for j, n := range conns {
		fmt.Printf("goslap --prefill-connections=%s runs: %v\n", n, gs[j])
	}
	fmt.Printf("sysbench runs: %v\nload average at the end: %s\n", ss, loadavg())
	return nil
}

// childPID finds this process's child named comm (the server sandbox
// started), 0 if none.
func childPID(comm string) int {
	ents, _ := os.ReadDir("/proc")
	for _, e := range ents {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		b, err := os.ReadFile("/proc/" + e.Name() + "/stat")
		if err != nil {
			continue
		}
		f := strings.Fields(string(b[strings.LastIndexByte(string(b), ')')+2:]))
		name := string(b[strings.IndexByte(string(b), '(')+1 : strings.LastIndexByte(string(b), ')')])
		if ppid, _ := strconv.Atoi(f[1]); ppid == os.Getpid() && name == comm {
			return pid
		}
	}
	return 0
}

// procCPU is the user+system CPU time a process used so far.
func procCPU(pid int) time.Duration {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return 0
	}
	f := strings.Fields(string(b[strings.LastIndexByte(string(b), ')')+2:]))
	u, _ := strconv.ParseInt(f[11], 10, 64)
	s, _ := strconv.ParseInt(f[12], 10, 64)
	return time.Duration(u+s) * time.Second / 100 // USER_HZ
}

// innodbStatus reads the status counters the flushing hypothesis needs
// (lower-case names; absent ones are missing from the map).
func innodbStatus(c *mysqlconn.Conn) map[string]int64 {
	rows, err := c.Query("SELECT LOWER(VARIABLE_NAME), VARIABLE_VALUE FROM information_schema.GLOBAL_STATUS WHERE VARIABLE_NAME IN " +
		"('INNODB_BUFFER_POOL_WAIT_FREE', 'INNODB_LOG_WAITS', 'INNODB_BUFFER_POOL_PAGES_FLUSHED', 'INNODB_BUFFER_POOL_PAGES_DIRTY', " +
		"'INNODB_BUFFER_POOL_PAGES_TOTAL', 'INNODB_BUFFER_POOL_PAGES_FREE', 'INNODB_CHECKPOINT_AGE', 'INNODB_DATA_WRITTEN')")
	st := map[string]int64{}
	if err != nil {
		return st
	}
	for _, r := range rows {
		if v, err := strconv.ParseInt(string(r[1]), 10, 64); err == nil {
			st[string(r[0])] = v
		}
	}
	// Loading transactions waiting for a lock right now, and how many of
	// them wait for the table's AUTO-INC lock (held to the end of a LOAD
	// DATA statement under innodb_autoinc_lock_mode=1).
	if v, err := c.QueryStrings("SELECT CONCAT(COUNT(*), ' ', COALESCE(SUM(l.lock_mode = 'AUTO_INC'), 0)) FROM information_schema.INNODB_TRX t" +
		" LEFT JOIN information_schema.INNODB_LOCKS l ON l.lock_id = t.trx_requested_lock_id WHERE t.trx_state = 'LOCK WAIT'"); err == nil && len(v) == 1 {
		var n, auto int64
		if _, err := fmt.Sscan(v[0], &n, &auto); err == nil {
			st["lock_waiting"], st["autoinc_waiting"] = n, auto
		}
	}
	return st
}

func loadavg() string {
	b, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return "?"
	}
	return strings.Join(strings.Fields(string(b))[:3], " ")
}

func median(d []time.Duration) time.Duration {
	if len(d) == 0 {
		return 0
	}
	s := append([]time.Duration(nil), d...)
	sort.Slice(s, func(i, j int) bool { return s[i] < s[j] })
	return s[len(s)/2]
}
