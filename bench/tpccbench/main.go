// Command tpccbench times goslap's TPC-C load (internal/workload/tpcc)
// against a re-statement of tpcc-mysql's tpcc_load method — one-row
// prepared INSERTs over one connection, committed per part — on one
// throw-away server. tpcc-mysql is not packaged here, so the baseline is
// the same row generator sending each row alone; the data of every arm is
// identical (fixed seed). Arms run alternated, the order reversed every
// round; medians, rows/s, MB/s and the speed-up over the baseline.
// Progress on stderr, the Markdown result on stdout.
//
//	go run ./bench/tpccbench -warehouses 1 -runs 5
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"runtime/pprof"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/goslap/goslap/internal/mysqlconn"
	"github.com/goslap/goslap/internal/sandbox"
	"github.com/goslap/goslap/internal/workload"
	"github.com/goslap/goslap/internal/workload/tpcc"
)

type arm struct {
	name   string
	method tpcc.LoadMethod
	conns  int
	runs   []tpcc.LoadStats
	cpu    []cpuUse
}

// cpuUse is the CPU time a run cost the client (this process) and the server.
type cpuUse struct{ client, server time.Duration }

func main() {
	warehouses := flag.Int("warehouses", 1, "warehouses to load")
	runs := flag.Int("runs", 5, "runs of each arm (alternated)")
	conns := flag.Int("conns", 4, "connections of the parallel batched arm")
	arms := flag.String("arms", "single-row,batched-1,batched-N,load-data-1,load-data-N", "arms to run")
	profile := flag.String("cpuprofile", "", "write the client's CPU profile of all runs to this file")
	flag.Parse()
	if *profile != "" {
		f, err := os.Create(*profile)
		if err == nil {
			err = pprof.StartCPUProfile(f)
		}
		if err != nil {
			fmt.Fprintln(os.Stderr, "tpccbench:", err)
			os.Exit(1)
		}
		defer pprof.StopCPUProfile()
	}
	if err := run(*warehouses, *runs, *conns, strings.Split(*arms, ",")); err != nil {
		fmt.Fprintln(os.Stderr, "tpccbench:", err)
		pprof.StopCPUProfile()
		os.Exit(1)
	}
}

func run(warehouses, runs, conns int, names []string) error {
	var all []*arm
	for _, n := range names {
		switch n {
		case "single-row":
			all = append(all, &arm{name: "single-row prepared INSERT (tpcc_load's method)", method: tpcc.SingleRow, conns: 1})
		case "batched-1":
			all = append(all, &arm{name: "batched multi-row INSERT", method: tpcc.Batched, conns: 1})
		case "batched-N":
			all = append(all, &arm{name: "batched multi-row INSERT, parallel", method: tpcc.Batched, conns: conns})
		case "load-data-1":
			all = append(all, &arm{name: "LOAD DATA LOCAL INFILE", method: tpcc.LoadData, conns: 1})
		case "load-data-N":
			all = append(all, &arm{name: "LOAD DATA LOCAL INFILE, parallel", method: tpcc.LoadData, conns: conns})
		default:
			return fmt.Errorf("unknown arm %q (single-row, batched-1, batched-N, load-data-1, load-data-N)", n)
		}
	}
	// The load must measure the client's method, not fsync or a buffer pool
	// too small for the data: a pool and redo log that hold it, and the
	// redo log flushed once a second.
	cfg := sandbox.Config{Options: []string{"innodb-buffer-pool-size=512M", "innodb-log-file-size=512M",
		"innodb-flush-log-at-trx-commit=2"}}
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
	if _, err := db.Exec("CREATE DATABASE tpcc"); err != nil {
		return err
	}
	db.Close()
	cn, err := mysqlconn.NewConnector(srv.RootConfig("tpcc"), "")
	if err != nil {
		return err
	}
	main, err := cn.Connect(nil)
	if err != nil {
		return err
	}
	defer main.Close()
	sess := &workload.Session{Main: main, Connect: func() (*mysqlconn.Conn, error) { return cn.Connect(nil) },
		Log: func(string, ...any) {}, Progress: func(string, int64, int64) {}}
	s := tpcc.NewSettings()
	s.Warehouses = uint32(warehouses)
	wl, err := s.Build(tpcc.Name, workload.Common{Schema: "tpcc", Seed: 1})
	if err != nil {
		return err
	}
	w := wl.(*tpcc.Workload)
	p := workload.Point{}
	serverPID := childPID("mariadbd")
	ctx := context.Background()
	var sqlBytes int64
	for i := 0; i < runs; i++ {
		order := append([]*arm(nil), all...)
		if i%2 == 1 {
			for l, r := 0, len(order)-1; l < r; l, r = l+1, r-1 {
				order[l], order[r] = order[r], order[l]
			}
		}
		for _, a := range order {
			c0, s0 := procCPU(os.Getpid()), procCPU(serverPID)
			st, err := w.Fill(ctx, sess, p, a.method, a.conns)
			use := cpuUse{procCPU(os.Getpid()) - c0, procCPU(serverPID) - s0}
			if err != nil {
				return fmt.Errorf("%s: %w", a.name, err)
			}
			if err := w.Teardown(ctx, sess, p); err != nil {
				return err
			}
			if a.method == tpcc.Batched {
				sqlBytes = st.SQLBytes
			}
			a.runs = append(a.runs, st)
			a.cpu = append(a.cpu, use)
			fmt.Fprintf(os.Stderr, "run %d  %-50s %2d conn  %8d rows  %7.2f s  client CPU %.2f s  server CPU %.2f s\n",
				i+1, a.name, a.conns, st.Rows, st.Elapsed.Seconds(), use.client.Seconds(), use.server.Seconds())
		}
	}
	fmt.Printf("| method | connections | runs | median s | rows/s | MB/s | speed-up | client CPU s | server CPU s |\n|---|---|---|---|---|---|---|---|---|\n")
	var base float64
	for _, a := range all {
		m := median(a.runs)
		sec := m.Elapsed.Seconds()
		speed := "-"
		if a.method == tpcc.SingleRow && base == 0 {
			base = sec
		}
		if base > 0 {
			speed = fmt.Sprintf("%.1f×", base/sec)
		}
		fmt.Printf("| %s | %d | %d | %.2f | %.0f | %.2f | %s | %.2f | %.2f |\n", a.name, a.conns, len(a.runs), sec,
			float64(m.Rows)/sec, float64(sqlBytes)/1e6/sec, speed, medianOf(a.cpu, true).Seconds(), medianOf(a.cpu, false).Seconds())
	}
	fmt.Printf("\nMB = the rows as multi-row INSERT text (%.1f MB for %d warehouse(s)), the same for every arm.\n", float64(sqlBytes)/1e6, warehouses)
	for _, a := range all {
		var ds []string
		for _, r := range a.runs {
			ds = append(ds, fmt.Sprintf("%.2f", r.Elapsed.Seconds()))
		}
		fmt.Printf("%s, %d conn: %s s\n", a.name, a.conns, strings.Join(ds, " "))
	}
	return nil
}

func median(rs []tpcc.LoadStats) tpcc.LoadStats {
	s := append([]tpcc.LoadStats(nil), rs...)
	sort.Slice(s, func(i, j int) bool { return s[i].Elapsed < s[j].Elapsed })
	return s[len(s)/2]
}

func medianOf(us []cpuUse, client bool) time.Duration {
	var d []time.Duration
	for _, u := range us {
		if client {
			d = append(d, u.client)
		} else {
			d = append(d, u.server)
		}
	}
	sort.Slice(d, func(i, j int) bool { return d[i] < d[j] })
	return d[len(d)/2]
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
		st := string(b)
		name := st[strings.IndexByte(st, '(')+1 : strings.LastIndexByte(st, ')')]
		f := strings.Fields(st[strings.LastIndexByte(st, ')')+2:])
		if ppid, _ := strconv.Atoi(f[1]); ppid == os.Getpid() && name == comm {
			return pid
		}
	}
	return 0
}

// procCPU is the user+system CPU time a process used so far (0 for pid 0).
func procCPU(pid int) time.Duration {
	if pid == 0 {
		return 0
	}
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return 0
	}
	st := string(b)
	f := strings.Fields(st[strings.LastIndexByte(st, ')')+2:])
	u, _ := strconv.ParseInt(f[11], 10, 64)
	sy, _ := strconv.ParseInt(f[12], 10, 64)
	return time.Duration(u+sy) * time.Second / 100 // USER_HZ
}
