package prefill

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

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
		_, err = db.Exec("CREATE DATABASE pf")
		return err
	})
}

type progressLog struct {
	mu   sync.Mutex
	last int64
	n    int
	bad  string
}

func session(t *testing.T, pl *progressLog) *workload.Session {
	t.Helper()
	srv := servertest.Require(t)
	cn, err := mysqlconn.NewConnector(srv.RootConfig("pf"), "")
	if err != nil {
		t.Fatal(err)
	}
	main, err := cn.Connect(nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(main.Close)
	return &workload.Session{Main: main,
		Connect: func() (*mysqlconn.Conn, error) { return cn.Connect(nil) },
		Progress: func(phase string, done, total int64) {
			pl.mu.Lock()
			defer pl.mu.Unlock()
			if done < pl.last || done > total || phase != "test" {
				pl.bad = fmt.Sprintf("progress %s %d/%d after %d", phase, done, total, pl.last)
			}
			pl.last = done
			pl.n++
		}}
}

// table has rows whose values can be checked: a = n, b = "r<n>" with
// characters both formats must escape.
func table(name string, rows int64) Table {
	return Table{Name: name, Columns: []string{"a", "b", "c"}, Rows: rows,
		NewRows: func(first int64) RowFunc {
			return func(w *Row, n int64) {
				w.Int(n + 1)
				w.Str([]byte(fmt.Sprintf("r%d'\t\\\n\"", n)))
				if n%7 == 0 {
					w.Null()
				} else {
					w.Int(-n)
				}
			}
		}}
}

func check(t *testing.T, s *workload.Session, name string, rows int64) {
	t.Helper()
	got, err := s.Main.Query("SELECT a, b, c FROM " + name + " ORDER BY a")
	if err != nil {
		t.Fatal(err)
	}
	if int64(len(got)) != rows {
		t.Fatalf("%s: %d rows, want %d", name, len(got), rows)
	}
	for i, r := range got {
		n := int64(i)
		wantC := fmt.Sprint(-n)
		if n%7 == 0 {
			wantC = "<nil>"
		}
		gotC := string(r[2])
		if r[2] == nil {
			gotC = "<nil>"
		}
		if string(r[0]) != fmt.Sprint(n+1) || string(r[1]) != fmt.Sprintf("r%d'\t\\\n\"", n) || gotC != wantC {
			t.Fatalf("%s row %d = %q", name, i, r)
		}
	}
}

func TestLoad(t *testing.T) {
	ctx := context.Background()
	for _, tc := range []struct {
		method      Method
		localInfile bool
		want        Method
		wantErr     string
		trx         bool
	}{
		{Auto, true, LoadData, "", false},
		{Auto, false, Insert, "", false},
		{Insert, true, Insert, "", false},
		{LoadData, true, LoadData, "", false},
		{LoadData, false, LoadData, "local_infile=OFF", false},
		{LoadData, true, LoadData, "", true},
		{Insert, true, Insert, "", true},
	} {
		t.Run(fmt.Sprintf("%s/local_infile=%v/trx=%v", tc.method, tc.localInfile, tc.trx), func(t *testing.T) {
			pl := &progressLog{}
			s := session(t, pl)
			on := map[bool]string{true: "1", false: "0"}[tc.localInfile]
			if err := s.Main.Exec("SET GLOBAL local_infile=" + on); err != nil {
				t.Fatal(err)
			}
			defer s.Main.Exec("SET GLOBAL local_infile=1")
			for _, n := range []string{"t1", "t2"} {
				if err := s.Main.Exec("CREATE TABLE " + n + " (a INT PRIMARY KEY, b VARCHAR(40), c INT)"); err != nil {
					t.Fatal(err)
				}
				defer s.Main.Exec("DROP TABLE " + n)
			}
			// One transaction per connection cannot be retried after a
			// deadlock (the server rolls all of it back), and concurrent
			// ones into one table do deadlock: that mode (off by default)
			// is tested over one connection.
			conns := 3
			if tc.trx {
				conns = 1
			}
			res, err := Load(ctx, s, []Table{table("t1", 25000), table("t2", 3)},
				Options{Method: tc.method, Connections: conns, ChunkRows: 4000, InsertBytes: 20000, Phase: "test",
					Transaction: tc.trx, Session: []string{"SET SESSION unique_checks=0, foreign_key_checks=0"}})
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("error %v, want %q", err, tc.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if res.Method != tc.want || res.Rows != 25003 {
				t.Errorf("result %+v, want method %s and 25003 rows", res, tc.want)
			}
			check(t, s, "t1", 25000)
			check(t, s, "t2", 3)
			if pl.bad != "" || pl.last != 25003 || pl.n < 3 {
				t.Errorf("progress: %s, last %d after %d reports", pl.bad, pl.last, pl.n)
			}
		})
	}
}

// TestInsertSize: INSERT statements stop growing at the limit.
func TestInsertSize(t *testing.T) {
	var sizes []int
	l := loader{limit: 5000}
	sent := 0
	l.conn = nil
	tbl := table("t", 1000)
	// Build statements the way insert does, without a server.
	gen := tbl.NewRows(0)
	l.buf = l.buf[:0]
	for n := int64(0); n < tbl.Rows; n++ {
		if len(l.buf) == 0 {
			l.buf = append(l.buf, "INSERT INTO t(a, b, c) VALUES"...)
		} else {
			l.buf = append(l.buf, ',')
		}
		l.row.buf, l.row.col = append(l.buf, '('), 0
		gen(&l.row, n)
		l.buf = append(l.row.buf, ')')
		if len(l.buf) >= l.limit {
			sizes = append(sizes, len(l.buf))
			sent++
			l.buf = l.buf[:0]
		}
	}
	for _, s := range sizes {
		if s > 5000+40 {
			t.Errorf("statement of %d bytes, limit 5000 + one row", s)
		}
	}
	if sent < 3 {
		t.Errorf("%d statements", sent)
	}
}

// TestCancel: a cancelled context stops the load with its error.
func TestCancel(t *testing.T) {
	pl := &progressLog{}
	s := session(t, pl)
	if err := s.Main.Exec("CREATE TABLE tc (a INT PRIMARY KEY, b VARCHAR(40), c INT)"); err != nil {
		t.Fatal(err)
	}
	defer s.Main.Exec("DROP TABLE tc")
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := Load(ctx, s, []Table{table("tc", 10000)}, Options{Phase: "test"}); err != context.Canceled {
		t.Fatalf("error %v, want context.Canceled", err)
	}
}

// TestPlanDealsTablesInTurn: concurrent connections get chunks of
// different tables (a LOAD DATA holds its table's AUTO-INC lock), one
// connection table after table, and every row of every table is in
// exactly one chunk.
func TestPlanDealsTablesInTurn(t *testing.T) {
	for _, tc := range []struct {
		rows   []int64
		inTurn bool
		want   string
	}{
		{[]int64{5}, true, "a0+2 a2+2 a4+1"},
		{[]int64{5, 3}, true, "a0+2 b0+2 a2+2 b2+1 a4+1"},
		{[]int64{0, 2, 4}, true, "b0+2 c0+2 c2+2"},
		{nil, true, ""},
		{[]int64{5, 3}, false, "a0+2 a2+2 a4+1 b0+2 b2+1"},
	} {
		var tables []Table
		for i, n := range tc.rows {
			tables = append(tables, Table{Name: string(rune('a' + i)), Rows: n})
		}
		var got []string
		for _, c := range plan(tables, 2, tc.inTurn) {
			got = append(got, fmt.Sprintf("%s%d+%d", c.t.Name, c.first, c.count))
		}
		if s := strings.Join(got, " "); s != tc.want {
			t.Errorf("tables %v, in turn %v: %q, want %q", tc.rows, tc.inTurn, s, tc.want)
		}
	}
}

// TestLoadEndsWithContext: a chunk of millions of rows (one long LOAD DATA
// stream, or a long run of INSERTs) stops soon after ctx ends, between
// statements or inside the stream, and Load returns ctx's error.
func TestLoadEndsWithContext(t *testing.T) {
	for _, m := range []Method{Insert, LoadData} {
		t.Run(m.String(), func(t *testing.T) {
			var pl progressLog
			s := session(t, &pl)
			name := "cancelled_" + strings.ReplaceAll(m.String(), "-", "_")
			if err := s.Main.Exec("CREATE TABLE " + name + " (a INT, b VARCHAR(40), c INT)"); err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { s.Main.Exec("DROP TABLE IF EXISTS " + name) })
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			time.AfterFunc(300*time.Millisecond, cancel)
			start := time.Now()
			_, err := Load(ctx, s, []Table{table(name, 20_000_000)}, Options{Connections: 1, ChunkRows: 20_000_000, Method: m, Phase: "test"})
			took := time.Since(start)
			if !errors.Is(err, context.Canceled) {
				t.Errorf("Load: %v, want context.Canceled", err)
			}
			if took > 1500*time.Millisecond {
				t.Errorf("Load returned %v after it started, %v after the cancel", took.Round(time.Millisecond), (took - 300*time.Millisecond).Round(time.Millisecond))
			}
		})
	}
}

// TestLoadDataDeadlockVictimSentAgain: a LOAD DATA the server rolls back
// as a deadlock victim is streamed again, and the rows count once. Another
// connection's transaction, heavier so that InnoDB picks the LOAD DATA as
// the victim, holds the chunk's last key; once the LOAD DATA runs (and
// waits for that key), that transaction inserts a key the LOAD DATA holds
// (the cycle: the server's deadlock count goes up by one), then rolls
// back, and the LOAD DATA sent again goes through.
func TestLoadDataDeadlockVictimSentAgain(t *testing.T) {
	pl := &progressLog{}
	s := session(t, pl)
	if err := s.Main.Exec("SET GLOBAL local_infile=1"); err != nil {
		t.Fatal(err)
	}
	// A committed row keeps dl from being empty: MariaDB's bulk insert
	// into an empty table would lock all of it, not rows.
	for _, q := range []string{"CREATE TABLE dl (a INT PRIMARY KEY, b VARCHAR(40), c INT)", "CREATE TABLE dl_weight (a INT PRIMARY KEY)",
		"INSERT INTO dl VALUES (1000, 'committed', 0)"} {
		if err := s.Main.Exec(q); err != nil {
			t.Fatal(err)
		}
	}
	defer s.Main.Exec("DROP TABLE dl, dl_weight")
	other, err := s.Connect()
	if err != nil {
		t.Fatal(err)
	}
	defer other.Close()
	weight := "INSERT INTO dl_weight VALUES (1)"
	for i := 2; i <= 2000; i++ {
		weight += fmt.Sprintf(",(%d)", i)
	}
	for _, q := range []string{"BEGIN", weight, "INSERT INTO dl VALUES (6, 'other', 0)"} {
		if err := other.Exec(q); err != nil {
			t.Fatal(err)
		}
	}
	watch, err := s.Connect() // s.Main is the load's own
	if err != nil {
		t.Fatal(err)
	}
	defer watch.Close()
	deadlocks := func() string {
		v, err := watch.QueryStrings("SELECT variable_value FROM information_schema.global_status WHERE variable_name = 'INNODB_DEADLOCKS'")
		if err != nil || len(v) != 1 {
			t.Fatalf("Innodb_deadlocks: %q, %v", v, err)
		}
		return v[0]
	}
	before := deadlocks()
	loaded := make(chan error, 1)
	go func() {
		_, err := Load(context.Background(), s, []Table{table("dl", 6)},
			Options{Method: LoadData, Connections: 1, ChunkRows: 100, InsertBytes: 20000, Phase: "test"})
		loaded <- err
	}()
	for deadline := time.Now().Add(20 * time.Second); ; time.Sleep(20 * time.Millisecond) {
		n, err := watch.QueryStrings("SELECT COUNT(*) FROM information_schema.processlist WHERE info LIKE 'LOAD DATA%'")
		if err != nil {
			t.Fatal(err)
		}
		if len(n) == 1 && n[0] == "1" {
			time.Sleep(500 * time.Millisecond) // its rows before the held key
			break
		}
		select {
		case err := <-loaded:
			t.Fatalf("the load ended before waiting for the other transaction's key: %v", err)
		default:
		}
		if time.Now().After(deadline) {
			st, _ := watch.Query("SELECT state, info FROM information_schema.processlist")
			t.Fatalf("the LOAD DATA never waited for the other transaction's key: %q", st)
		}
	}
	// The cycle: the server rolls the lighter LOAD DATA back, and this
	// insert then goes through.
	if err := other.Exec("INSERT INTO dl VALUES (3, 'other', 0)"); err != nil {
		t.Fatalf("the other transaction was the victim: %v", err)
	}
	if err := other.Exec("ROLLBACK"); err != nil {
		t.Fatal(err)
	}
	if after := deadlocks(); after == before {
		t.Fatalf("no deadlock (Innodb_deadlocks still %s): the LOAD DATA had not reached the held key", after)
	}
	select {
	case err := <-loaded:
		if err != nil {
			t.Fatalf("the load: %v", err)
		}
	case <-time.After(30 * time.Second):
		t.Fatal("the load did not end")
	}
	if err := s.Main.Exec("DELETE FROM dl WHERE a = 1000"); err != nil {
		t.Fatal(err)
	}
	check(t, s, "dl", 6)
	if pl.bad != "" || pl.last != 6 {
		t.Errorf("progress: %s, last %d, want 6", pl.bad, pl.last)
	}
}
