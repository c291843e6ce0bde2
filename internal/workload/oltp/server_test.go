package oltp

import (
	"context"
	"os/exec"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/goslap/goslap/internal/mysqlconn"
	"github.com/goslap/goslap/internal/sandbox"
	"github.com/goslap/goslap/internal/sandbox/servertest"
	"github.com/goslap/goslap/internal/workload"
)

func TestMain(m *testing.M) {
	servertest.Main(m, sandbox.Config{}, func(s *sandbox.Server) error {
		db, err := s.OpenDB("")
		if err != nil {
			return err
		}
		defer db.Close()
		_, err = db.Exec("CREATE DATABASE sbtest")
		return err
	})
}

// session opens a workload session on the test server's sbtest schema.
func session(t testing.TB) (*workload.Session, *mysqlconn.Connector, *sandbox.Server) {
	t.Helper()
	srv := servertest.Require(t)
	cn, err := mysqlconn.NewConnector(srv.RootConfig("sbtest"), "")
	if err != nil {
		t.Fatal(err)
	}
	main, err := cn.Connect(nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(main.Close)
	return &workload.Session{
		Main:     main,
		Connect:  func() (*mysqlconn.Conn, error) { return cn.Connect(nil) },
		Log:      func(f string, a ...any) { t.Logf(f, a...) },
		Progress: func(string, int64, int64) {},
	}, cn, srv
}

func tableCount(t *testing.T, s *workload.Session) int {
	t.Helper()
	v, err := s.Main.QueryStrings("SELECT COUNT(*) FROM information_schema.TABLES WHERE TABLE_SCHEMA='sbtest'")
	if err != nil {
		t.Fatal(err)
	}
	n, _ := strconv.Atoi(v[0])
	return n
}

// drive runs clients×events events directly (as the engine would) and
// returns the summed tally and the first error.
func drive(t *testing.T, w *Workload, cn *mysqlconn.Connector, it workload.Iteration, events int) (workload.Tally, error) {
	t.Helper()
	l, err := w.Load(it)
	if err != nil {
		t.Fatal(err)
	}
	var sum workload.Tally
	for id := 0; id < it.Clients; id++ {
		conn, err := cn.Connect(nil)
		if err != nil {
			t.Fatal(err)
		}
		c := l.Client(id)
		if err := c.Begin(conn); err != nil {
			conn.Close()
			return sum, err
		}
		for i := 0; i < events; i++ {
			st, err := c.Next(conn)
			if err != nil {
				conn.Close()
				return sum, err
			}
			if st.Reconnect {
				conn.Close()
				if conn, err = cn.Connect(nil); err != nil {
					t.Fatal(err)
				}
				if err := c.Begin(conn); err != nil {
					t.Fatal(err)
				}
			}
		}
		if err := c.End(conn); err != nil {
			t.Fatal(err)
		}
		sum.Add(c.Tally())
		conn.Close()
	}
	return sum, nil
}

// TestWorkloadsOnServer: prepare small tables, run every workload of every
// dialect with two clients, clean up (§10.1.7).
func TestWorkloadsOnServer(t *testing.T) {
	s, cn, _ := session(t)
	ctx := context.Background()
	for _, tc := range seqCases {
		for _, ps := range []string{"auto", "disable"} {
			if ps == "disable" && tc.dialect == dialect05 {
				continue // 0.5 is text already
			}
			t.Run(tc.file()+"/"+ps, func(t *testing.T) {
				words := append([]string{"--sysbench-compat=" + tc.dialect, "--table-size=500", "--db-ps-mode=" + ps, "--reconnect=7"}, tc.words...)
				w := build(t, tc.name, words...)
				p := workload.Point{Engine: tc.engine, Clients: 2}
				if err := w.Setup(ctx, s, p); err != nil {
					t.Fatal(err)
				}
				defer func() {
					if err := w.Teardown(ctx, s, p); err != nil {
						t.Error(err)
					}
					if n := tableCount(t, s); n != 0 {
						t.Errorf("%d tables left after Teardown", n)
					}
				}()
				it := workload.Iteration{Point: p, Number: 1}
				if err := w.BeginIteration(ctx, s, it); err != nil {
					t.Fatal(err)
				}
				tl, err := drive(t, w, cn, it, 20)
				if tc.dialect == dialect05 && tc.name == "oltp_insert" {
					// 0.5's uniq(1, N) ids collide with the prepared rows:
					// sysbench 0.5 fails the same way.
					if Code(err) != 1062 {
						t.Fatalf("error %v, want 1062 (duplicate key)", err)
					}
					return
				}
				if err != nil {
					t.Fatal(err)
				}
				// Reads and other are exact; 1.0 counts a DML that changed
				// no row (a repeated delete) as other, 0.4/0.5 as a write.
				ev := uint64(40)
				if tl.Reads != ev*tc.r || tl.Writes+tl.Other != ev*(tc.w+tc.o) {
					t.Errorf("r/w/o = %d/%d/%d over %d events, want %d/%d/%d", tl.Reads, tl.Writes, tl.Other, ev, ev*tc.r, ev*tc.w, ev*tc.o)
				}
				if tc.dialect != dialect10 && tl.Other != ev*tc.o {
					t.Errorf("other = %d, want %d", tl.Other, ev*tc.o)
				}
				if tc.w > 0 && tl.Writes == 0 {
					t.Errorf("no writes counted")
				}
				if err := w.EndIteration(ctx, s, it); err != nil {
					t.Fatal(err)
				}
			})
		}
	}
}

var (
	cPattern   = regexp.MustCompile(`^(\d{11}-){9}\d{11}$`)
	padPattern = regexp.MustCompile(`^(\d{11}-){4}\d{11}$`)
)

// TestPreparedRows checks the rows prepare loads (§10.1.2), by every method.
func TestPreparedRows(t *testing.T) {
	s, _, _ := session(t)
	ctx := context.Background()
	for _, tc := range []struct {
		dialect, method string
	}{{"1.0", "insert"}, {"1.0", "load-data"}, {"0.5", "auto"}, {"0.4", "insert"}, {"0.4", "load-data"}} {
		t.Run(tc.dialect+"/"+tc.method, func(t *testing.T) {
			name := "oltp_read_write"
			if tc.dialect != dialect10 {
				name = "oltp"
			}
			w := build(t, name, "--sysbench-compat="+tc.dialect, "--table-size=1000", "--prefill-method="+tc.method, "--prefill-connections=3")
			p := workload.Point{}
			if err := w.Setup(ctx, s, p); err != nil {
				t.Fatal(err)
			}
			defer w.Teardown(ctx, s, p)
			tbl := w.TableNames()[0]
			rows, err := s.Main.Query("SELECT id, k, c, pad FROM " + tbl + " ORDER BY id")
			if err != nil {
				t.Fatal(err)
			}
			if len(rows) != 1000 {
				t.Fatalf("%d rows, want 1000", len(rows))
			}
			ks := map[string]int{}
			for i, r := range rows {
				if string(r[0]) != strconv.Itoa(i+1) {
					t.Fatalf("row %d has id %s", i, r[0])
				}
				if tc.dialect == dialect04 {
					if string(r[1]) != "0" || string(r[2]) != "" && string(r[2]) != " " || string(r[3]) != "qqqqqqqqqqwwwwwwwwwweeeeeeeeeerrrrrrrrrrtttttttttt" {
						t.Fatalf("0.4 row %d = %q", i, r)
					}
					continue
				}
				k, _ := strconv.Atoi(string(r[1]))
				if k < 1 || k > 1000 {
					t.Fatalf("k = %d", k)
				}
				ks[string(r[1])]++
				if !cPattern.Match(r[2]) || !padPattern.Match(r[3]) {
					t.Fatalf("row %d: c %q pad %q", i, r[2], r[3])
				}
			}
			if tc.dialect != dialect04 {
				// k follows the special distribution: 75 % in the hot window.
				lo, hi := 498, 506
				if tc.dialect == dialect05 {
					lo, hi = 496, 505
				}
				hot := 0
				for v := lo; v <= hi; v++ {
					hot += ks[strconv.Itoa(v)]
				}
				if hot < 700 || hot > 820 {
					t.Errorf("%d of 1000 k values in %d-%d", hot, lo, hi)
				}
			}
			// The index on k exists (created after or, in 0.4, before the load).
			idx, err := s.Main.QueryStrings("SELECT INDEX_NAME FROM information_schema.STATISTICS WHERE TABLE_SCHEMA='sbtest' AND TABLE_NAME='" + tbl + "' AND COLUMN_NAME='k'")
			if err != nil || len(idx) != 1 {
				t.Errorf("index on k: %v %v", idx, err)
			}
		})
	}
}

// TestPrepareRefusesExisting: prepare over an existing table is an error,
// and the teardown after it drops nothing it did not create.
func TestPrepareRefusesExisting(t *testing.T) {
	s, _, _ := session(t)
	ctx := context.Background()
	if err := s.Main.Exec("CREATE TABLE sbtest2 (x INT)"); err != nil {
		t.Fatal(err)
	}
	defer s.Main.Exec("DROP TABLE IF EXISTS sbtest2")
	w := build(t, "oltp_read_write", "--tables=3", "--table-size=10")
	err := w.Setup(ctx, s, workload.Point{})
	if err == nil || !strings.Contains(err.Error(), "sbtest2 already exists") {
		t.Fatalf("Setup over an existing table: %v", err)
	}
	if err := w.Teardown(ctx, s, workload.Point{}); err != nil {
		t.Fatal(err)
	}
	if n := tableCount(t, s); n != 1 {
		t.Fatalf("%d tables after the refused prepare's teardown, want sbtest2 only", n)
	}
	// run before prepare
	w2 := build(t, "oltp_read_write", "--tables=1")
	if err := w2.BeginIteration(ctx, s, workload.Iteration{}); err == nil || !strings.Contains(err.Error(), "sbtest1 does not exist: run prepare first") {
		t.Fatalf("run before prepare: %v", err)
	}
}

// TestErrorLeavesConnectionUsable: a lock wait timeout (1205, ignored by
// sysbench by default) aborts the event, the transaction is rolled back and
// the next event runs on the same connection.
func TestErrorLeavesConnectionUsable(t *testing.T) {
	s, cn, _ := session(t)
	ctx := context.Background()
	w := build(t, "oltp_write_only", "--table-size=100", "--rand-type=uniform")
	p := workload.Point{Clients: 1}
	if err := w.Setup(ctx, s, p); err != nil {
		t.Fatal(err)
	}
	defer w.Teardown(ctx, s, p)
	l, _ := w.Load(workload.Iteration{Point: p})
	conn, err := cn.Connect(nil)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	if err := conn.Exec("SET SESSION innodb_lock_wait_timeout=1"); err != nil {
		t.Fatal(err)
	}
	c := l.Client(0)
	if err := c.Begin(conn); err != nil {
		t.Fatal(err)
	}
	locker, _ := cn.Connect(nil)
	defer locker.Close()
	if err := locker.Exec("BEGIN"); err != nil {
		t.Fatal(err)
	}
	if _, err := locker.Query("SELECT id FROM sbtest1 FOR UPDATE"); err != nil {
		t.Fatal(err)
	}
	_, err = c.Next(conn)
	if Code(err) != 1205 {
		t.Fatalf("Next under a lock: %v, want error 1205", err)
	}
	if v, err := conn.QueryStrings("SELECT @@in_transaction"); err != nil || v[0] != "0" {
		t.Fatalf("after the error: in_transaction %v %v", v, err)
	}
	if err := locker.Exec("COMMIT"); err != nil {
		t.Fatal(err)
	}
	if _, err := c.Next(conn); err != nil {
		t.Fatalf("restarted event: %v", err)
	}
	c.End(conn)
}

func sysbench(t *testing.T, srv *sandbox.Server, args ...string) string {
	t.Helper()
	bin, err := exec.LookPath("sysbench")
	if err != nil {
		if sandbox.InCI() {
			t.Fatal("sysbench 1.0.20 is not installed")
		}
		t.Skip("sysbench is not installed")
	}
	all := append([]string{"--mysql-socket=" + srv.Socket, "--mysql-user=root", "--mysql-db=sbtest"}, args...)
	out, err := exec.Command(bin, all...).CombinedOutput()
	if err != nil {
		t.Fatalf("sysbench %v: %v\n%s", args, err, out)
	}
	return string(out)
}

// TestSysbenchCrossCompat: sysbench 1.0.20 runs on tables goslap prepared,
// and goslap runs on tables sysbench prepared.
func TestSysbenchCrossCompat(t *testing.T) {
	s, cn, srv := session(t)
	ctx := context.Background()
	w := build(t, "oltp_read_write", "--tables=2", "--table-size=1000")
	p := workload.Point{Clients: 2}
	if err := w.Setup(ctx, s, p); err != nil {
		t.Fatal(err)
	}
	out := sysbench(t, srv, "oltp_read_write", "--tables=2", "--table-size=1000", "--events=200", "--time=0", "run")
	if !strings.Contains(out, "transactions:                        200") {
		t.Errorf("sysbench run on goslap's tables:\n%s", out)
	}
	if err := w.Teardown(ctx, s, p); err != nil {
		t.Fatal(err)
	}

	sysbench(t, srv, "oltp_read_write", "--tables=2", "--table-size=1000", "prepare")
	defer sysbench(t, srv, "oltp_read_write", "--tables=2", "cleanup")
	for _, name := range []string{"oltp_read_write", "oltp_point_select", "oltp_delete", "oltp_insert"} {
		w := build(t, name, "--tables=2", "--table-size=1000")
		it := workload.Iteration{Point: p, Number: 1}
		if err := w.BeginIteration(ctx, s, it); err != nil {
			t.Fatal(err)
		}
		if _, err := drive(t, w, cn, it, 50); err != nil {
			t.Fatalf("%s on sysbench's tables: %v", name, err)
		}
	}
	// goslap's prepare refuses sysbench's tables.
	if err := w.Setup(ctx, s, p); err == nil {
		t.Fatal("prepare over sysbench's tables succeeded")
	}
	if err := w.Teardown(ctx, s, p); err != nil || tableCount(t, s) != 2 {
		t.Fatalf("teardown after the refused prepare: %v, %d tables", err, tableCount(t, s))
	}
}

// TestSysbenchStatements compares goslap's 1.0 DDL and prepared statement
// texts with what sysbench 1.0.20 sends, read from the server's general log.
func TestSysbenchStatements(t *testing.T) {
	s, _, srv := session(t)
	for _, q := range []string{"SET GLOBAL log_output='TABLE'", "TRUNCATE mysql.general_log", "SET GLOBAL general_log=1"} {
		if err := s.Main.Exec(q); err != nil {
			t.Fatal(err)
		}
	}
	sysbench(t, srv, "oltp_read_write", "--tables=2", "--table-size=100", "prepare")
	sysbench(t, srv, "oltp_read_write", "--tables=2", "--table-size=100", "--events=1", "--time=0", "run")
	sysbench(t, srv, "oltp_read_write", "--tables=2", "cleanup")
	if err := s.Main.Exec("SET GLOBAL general_log=0"); err != nil {
		t.Fatal(err)
	}
	logged, err := s.Main.Query("SELECT command_type, CONVERT(argument USING utf8mb4) FROM mysql.general_log WHERE command_type IN ('Query', 'Prepare') ORDER BY event_time")
	if err != nil {
		t.Fatal(err)
	}
	var creates, prepares []string
	for _, r := range logged {
		a := string(r[1])
		switch {
		case string(r[0]) == "Query" && strings.HasPrefix(a, "CREATE"):
			creates = append(creates, a)
		case string(r[0]) == "Prepare":
			prepares = append(prepares, a)
		}
	}
	w := build(t, "oltp_read_write", "--tables=2", "--table-size=100")
	d := w.def(workload.Point{})
	var want []string
	for i, n := range w.TableNames() {
		want = append(want, d.createTable(n), d.createIndex(n, i+1))
	}
	if strings.Join(creates, "\n") != strings.Join(want, "\n") {
		t.Errorf("DDL:\n--- sysbench\n%s\n--- goslap\n%s", strings.Join(creates, "\n"), strings.Join(want, "\n"))
	}
	l, _ := w.Load(workload.Iteration{Point: workload.Point{Clients: 1}})
	ld := l.(*load)
	mine := map[string]bool{}
	for k := range ld.stmts {
		if ld.used[k] {
			for _, st := range ld.stmts[k] {
				mine[st.sql] = true
			}
		}
	}
	theirs := map[string]bool{}
	for _, p := range prepares {
		theirs[p] = true
	}
	for q := range theirs {
		if !mine[q] {
			t.Errorf("sysbench prepares %q, goslap does not", q)
		}
	}
	for q := range mine {
		if !theirs[q] {
			t.Errorf("goslap prepares %q, sysbench does not", q)
		}
	}
}
