package tpcc

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"testing"
	"time"

	"github.com/goslap/goslap/internal/engine"
	"github.com/goslap/goslap/internal/mysqlconn"
	"github.com/goslap/goslap/internal/ownership"
	"github.com/goslap/goslap/internal/sandbox"
	"github.com/goslap/goslap/internal/sandbox/servertest"
	"github.com/goslap/goslap/internal/workload"
)

// The load writes ~100 MB per warehouse: a buffer pool and redo log that
// hold it keep the test's load in seconds.
var serverConfig = sandbox.Config{Options: []string{
	"innodb-buffer-pool-size=256M", "innodb-log-file-size=256M", "innodb-flush-log-at-trx-commit=2",
}}

func TestMain(m *testing.M) { servertest.Main(m, serverConfig, nil) }

// env is a schema on the test server and a Session over it.
type env struct {
	t      testing.TB
	srv    *sandbox.Server
	schema string
	conn   *mysqlconn.Connector
	main   *mysqlconn.Conn
	sess   *workload.Session
}

func newEnv(t testing.TB, schema string) *env {
	t.Helper()
	srv := servertest.Require(t)
	root, err := mysqlconn.NewConnector(srv.RootConfig(""), "")
	if err != nil {
		t.Fatal(err)
	}
	rc, err := root.Connect(nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := rc.Exec("DROP DATABASE IF EXISTS " + schema + "; CREATE DATABASE " + schema); err != nil {
		t.Fatal(err)
	}
	rc.Close()
	cn, err := mysqlconn.NewConnector(srv.RootConfig(schema), "")
	if err != nil {
		t.Fatal(err)
	}
	main, err := cn.Connect(nil)
	if err != nil {
		t.Fatal(err)
	}
	e := &env{t: t, srv: srv, schema: schema, conn: cn, main: main}
	e.sess = &workload.Session{
		Main:     main,
		Connect:  func() (*mysqlconn.Conn, error) { return cn.Connect(nil) },
		Log:      func(f string, a ...any) { t.Logf(f, a...) },
		Progress: func(string, int64, int64) {},
	}
	t.Cleanup(func() {
		_ = main.Exec("DROP DATABASE IF EXISTS " + schema)
		main.Close()
	})
	return e
}

func (e *env) count(q string) int {
	e.t.Helper()
	v, err := e.main.QueryStrings(q)
	if err != nil {
		e.t.Fatalf("%s: %v", q, err)
	}
	n, err := strconv.Atoi(v[0])
	if err != nil {
		e.t.Fatalf("%s: %q", q, v[0])
	}
	return n
}

func build(t testing.TB, warehouses uint32, schema string) *Workload {
	t.Helper()
	s := NewSettings()
	s.Warehouses = warehouses
	w, err := s.Build(Name, workload.Common{Schema: schema, Seed: 42})
	if err != nil {
		t.Fatal(err)
	}
	return w.(*Workload)
}

// drive runs n transactions on each of clients connections through the
// workload contract, as the engine does.
func drive(t *testing.T, e *env, w *Workload, clients, n int) (ops [numTx]int, tally workload.Tally) {
	t.Helper()
	l, err := w.Load(workload.Iteration{Point: workload.Point{Clients: clients}, Number: 1})
	if err != nil {
		t.Fatal(err)
	}
	type result struct {
		ops   [numTx]int
		tally workload.Tally
		err   error
	}
	res := make(chan result, clients)
	for i := 0; i < clients; i++ {
		go func(id int) {
			var r result
			conn, err := e.conn.Connect(nil)
			if err != nil {
				r.err = err
				res <- r
				return
			}
			defer conn.Close()
			c := l.Client(id)
			if r.err = c.Begin(conn); r.err != nil {
				res <- r
				return
			}
			for j := 0; j < n; j++ {
				st, err := c.Next(conn)
				if err != nil {
					r.err = err
					break
				}
				r.ops[st.Op]++
			}
			if err := c.End(conn); err != nil && r.err == nil {
				r.err = err
			}
			r.tally = c.Tally()
			res <- r
		}(i)
	}
	for i := 0; i < clients; i++ {
		r := <-res
		if r.err != nil {
			t.Fatalf("client: %v", r.err)
		}
		for k := range ops {
			ops[k] += r.ops[k]
		}
		tally.Add(r.tally)
	}
	return ops, tally
}

// TestPrepareRunCheck is the life cycle on 1 and 2 warehouses: load
// (cardinalities), check, transactions from several clients, a timed run
// through the engine (mix), check, a corrupted row per condition, cleanup.
// One test per scale, because the load is the expensive part.
func TestPrepareRunCheck(t *testing.T) {
	for _, wh := range []int{1, 2} {
		t.Run(fmt.Sprintf("%d warehouses", wh), func(t *testing.T) { lifeCycle(t, wh) })
	}
}

func lifeCycle(t *testing.T, wh int) {
	e := newEnv(t, fmt.Sprintf("tpcc%d", wh))
	w := build(t, uint32(wh), e.schema)
	p := workload.Point{Clients: 4}
	start := time.Now()
	if err := w.Setup(context.Background(), e.sess, p); err != nil {
		t.Fatal(err)
	}
	t.Logf("loaded %d warehouse(s) in %s (%d rows)", wh, time.Since(start).Round(time.Millisecond), w.LastLoad().Rows)

	t.Run("cardinalities", func(t *testing.T) {
		for _, c := range []struct {
			q    string
			want int
		}{
			{"SELECT COUNT(*) FROM item", 100000},
			{"SELECT COUNT(*) FROM warehouse", wh},
			{"SELECT COUNT(*) FROM stock", 100000 * wh},
			{"SELECT COUNT(*) FROM district", 10 * wh},
			{"SELECT COUNT(*) FROM customer", 30000 * wh},
			{"SELECT COUNT(*) FROM history", 30000 * wh},
			{"SELECT COUNT(*) FROM orders", 30000 * wh},
			{"SELECT COUNT(*) FROM new_orders", 9000 * wh},
			{"SELECT COUNT(*) FROM orders WHERE o_carrier_id IS NULL", 9000 * wh},
			{"SELECT COUNT(*) FROM order_line WHERE ol_delivery_d IS NULL", e.count("SELECT SUM(o_ol_cnt) FROM orders WHERE o_id > 2100")},
			{"SELECT MIN(no_o_id) FROM new_orders", 2101},
			{"SELECT COUNT(DISTINCT o_c_id) FROM orders WHERE o_d_id = 3", 3000},
			{"SELECT COUNT(*) FROM order_line", e.count("SELECT SUM(o_ol_cnt) FROM orders")},
			{"SELECT MIN(o_ol_cnt) >= 5 AND MAX(o_ol_cnt) <= 15 FROM orders", 1},
			{"SELECT COUNT(DISTINCT c_last) FROM customer WHERE c_id <= 1000 AND c_d_id = 1", 1000},
			{"SELECT COUNT(*) FROM customer WHERE c_id = 1 AND c_last = 'BARBARBAR'", 10 * wh},
			{"SELECT COUNT(*) FROM information_schema.statistics WHERE table_schema = DATABASE() AND index_name = 'idx_customer'", 4},
			{"SELECT COUNT(*) FROM information_schema.referential_constraints WHERE constraint_schema = DATABASE()", 10},
		} {
			if got := e.count(c.q); got != c.want {
				t.Errorf("%s = %d, want %d", c.q, got, c.want)
			}
		}
		// Ratios with a tolerance: 10 % "original", 50 % bad credit
		// (tpcc-mysql's rule).
		for _, c := range []struct {
			q      string
			lo, hi int
		}{
			{"SELECT COUNT(*) FROM item WHERE i_data LIKE '%original%'", 9000, 11000},
			{"SELECT COUNT(*) FROM stock WHERE s_data LIKE '%original%'", 9000 * wh, 11000 * wh},
			{"SELECT COUNT(*) FROM customer WHERE c_credit = 'BC'", 14000 * wh, 16000 * wh},
		} {
			if got := e.count(c.q); got < c.lo || got > c.hi {
				t.Errorf("%s = %d, want %d..%d", c.q, got, c.lo, c.hi)
			}
		}
	})
	t.Run("check after prepare", func(t *testing.T) {
		if err := Check(e.main); err != nil {
			t.Fatal(err)
		}
	})
	t.Run("setup again reuses the data", func(t *testing.T) {
		if err := w.Setup(context.Background(), e.sess, p); err != nil {
			t.Fatal(err)
		}
		if err := build(t, uint32(wh+1), e.schema).Setup(context.Background(), e.sess, p); err == nil {
			t.Fatalf("Setup for %d warehouses on a %d-warehouse schema succeeded", wh+1, wh)
		}
	})
	if wh == 1 {
		t.Run("a full run over the loaded schema leaves it", func(t *testing.T) { fullRunKeeps(t, e, p) })
	}
	t.Run("transactions then check", func(t *testing.T) {
		ops, tally := drive(t, e, w, 4, 100)
		t.Logf("ops %v tally %+v", ops, tally)
		total := 0
		for _, n := range ops {
			total += n
		}
		if total != 400 {
			t.Fatalf("%d transactions, want 400", total)
		}
		// The deck deals exactly 10/10/1/1/1 of every 23: 400 deals hold
		// 17 full decks and 9 cards of the 18th.
		for op, n := range ops {
			want := 17 * []int{10, 10, 1, 1, 1}[op]
			if n < want || n > want+9 {
				t.Errorf("%s: %d, want %d..%d", OpNames[op], n, want, want+9)
			}
		}
		if err := Check(e.main); err != nil {
			t.Fatal(err)
		}
		if got := e.count("SELECT COUNT(*) FROM orders"); got <= 30000*wh {
			t.Errorf("orders %d: no New-Order committed", got)
		}
	})
	t.Run("timed run then check", func(t *testing.T) {
		const clients = 4
		it := workload.Iteration{Point: p, Number: 1}
		l, err := w.Load(it)
		if err != nil {
			t.Fatal(err)
		}
		b, err := engine.Run(context.Background(), engine.Plan{Connector: e.conn, Workload: w, Load: l, Iteration: it,
			Clients: clients, Warmup: time.Second, Duration: 5 * time.Second, Seed: 42})
		if err != nil {
			t.Fatal(err)
		}
		r, err := FromBenchmark(b, w.Counts(), b.Elapsed)
		if err != nil {
			t.Fatal(err)
		}
		var all uint64
		for _, tx := range r.Tx {
			all += tx.Completed()
		}
		if all != b.Events || all < 100 {
			t.Fatalf("%d transactions completed, engine counted %d (want >= 100)", all, b.Events)
		}
		// The shared deck deals 10/10/1/1/1 of every 23 cards: what the
		// measured window holds differs from the exact shares by at most a
		// deck at each end and the transactions in flight.
		slack := float64(2*deckSize + 2*clients)
		for i, share := range []float64{10, 10, 1, 1, 1} {
			got, want := float64(r.Tx[i].Completed()), float64(all)*share/23
			if got < want-slack || got > want+slack {
				t.Errorf("%s: %v of %d, want %.0f ± %.0f (%.2f %%)", OpNames[i], got, all, want, slack, share*100/23)
			}
		}
		if r.TpmC() <= 0 || b.Tally.Rollbacks == 0 && r.Tx[NewOrder].Completed() > 1000 {
			t.Errorf("tpmC %.1f, %d rollbacks of %d New-Orders", r.TpmC(), b.Tally.Rollbacks, r.Tx[NewOrder].Completed())
		}
		t.Logf("%d transactions in %s, %.0f tpmC, tally %+v", all, b.Elapsed.Round(time.Millisecond), r.TpmC(), b.Tally)
		if err := Check(e.main); err != nil {
			t.Fatal(err)
		}
	})
	t.Run("corrupted rows fail their condition", func(t *testing.T) {
		// An undelivered order inside the district's range, whatever the
		// runs delivered.
		mid := e.count("SELECT (MIN(no_o_id) + MAX(no_o_id)) DIV 2 FROM new_orders WHERE no_w_id = 1 AND no_d_id = 2")
		for _, c := range []struct {
			cond        int
			break_, fix string
		}{
			{1, "UPDATE warehouse SET w_ytd = w_ytd + 1 WHERE w_id = 1", "UPDATE warehouse SET w_ytd = w_ytd - 1 WHERE w_id = 1"},
			{2, "UPDATE district SET d_next_o_id = d_next_o_id + 1 WHERE d_id = 5 AND d_w_id = 1", "UPDATE district SET d_next_o_id = d_next_o_id - 1 WHERE d_id = 5 AND d_w_id = 1"},
			{3, fmt.Sprintf("DELETE FROM new_orders WHERE no_w_id = 1 AND no_d_id = 2 AND no_o_id = %d", mid), fmt.Sprintf("INSERT INTO new_orders VALUES (%d, 2, 1)", mid)},
			{4, "UPDATE orders SET o_ol_cnt = o_ol_cnt + 1 WHERE o_w_id = 1 AND o_d_id = 7 AND o_id = 10", "UPDATE orders SET o_ol_cnt = o_ol_cnt - 1 WHERE o_w_id = 1 AND o_d_id = 7 AND o_id = 10"},
		} {
			if err := e.main.Exec("SET foreign_key_checks = 0; " + c.break_ + "; COMMIT"); err != nil {
				t.Fatal(err)
			}
			err := Check(e.main)
			var ce *ConditionError
			if !errors.As(err, &ce) || ce.Condition != c.cond {
				t.Errorf("after %q: Check = %v, want condition %d", c.break_, err, c.cond)
			} else {
				t.Logf("%v", err)
			}
			if err := e.main.Exec(c.fix + "; COMMIT; SET foreign_key_checks = 1"); err != nil {
				t.Fatal(err)
			}
		}
		if err := Check(e.main); err != nil {
			t.Fatal(err)
		}
	})
	t.Run("teardown drops only its tables", func(t *testing.T) {
		if err := e.main.Exec("CREATE TABLE keep_me (a int)"); err != nil {
			t.Fatal(err)
		}
		if err := w.Teardown(context.Background(), e.sess, p); err != nil {
			t.Fatal(err)
		}
		if got := e.count("SELECT COUNT(*) FROM information_schema.tables WHERE table_schema = DATABASE()"); got != 1 {
			t.Fatalf("%d tables left, want keep_me only", got)
		}
	})
}

// TestSetupRefusesForeignTables: a schema with a table TPC-C did not create
// is refused with one error naming it, and nothing is created or dropped.
func TestSetupRefusesForeignTables(t *testing.T) {
	e := newEnv(t, "tpcc_foreign")
	if err := e.main.Exec("CREATE TABLE customer (x int); CREATE TABLE mine (a int); INSERT INTO mine VALUES (1)"); err != nil {
		t.Fatal(err)
	}
	w := build(t, 1, e.schema)
	err := w.Setup(context.Background(), e.sess, workload.Point{})
	if err == nil || err.Error() != "schema 'tpcc_foreign' holds tables TPC-C did not create (mine): use an empty schema" {
		t.Fatalf("Setup = %v", err)
	}
	if got := e.count("SELECT COUNT(*) FROM information_schema.tables WHERE table_schema = DATABASE()"); got != 2 {
		t.Fatalf("%d tables, want 2", got)
	}
	if got := e.count("SELECT COUNT(*) FROM mine"); got != 1 {
		t.Fatalf("mine has %d rows", got)
	}
	// Only customer exists: an incomplete schema is refused too.
	if err := e.main.Exec("DROP TABLE mine"); err != nil {
		t.Fatal(err)
	}
	if err := w.Setup(context.Background(), e.sess, workload.Point{}); err == nil {
		t.Fatal("Setup on an incomplete TPC-C schema succeeded")
	}
}

// TestRunWithoutPrepare: Begin on an empty schema says to prepare first.
func TestRunWithoutPrepare(t *testing.T) {
	e := newEnv(t, "tpcc_empty")
	w := build(t, 1, e.schema)
	l, _ := w.Load(workload.Iteration{Number: 1})
	err := l.Client(0).Begin(e.main)
	if err == nil || !contains(err.Error(), "run prepare first") {
		t.Fatalf("Begin = %v", err)
	}
}

func contains(s, sub string) bool {
	for i := 0; i+len(sub) <= len(s); i++ {
		if s[i:i+len(sub)] == sub {
			return true
		}
	}
	return false
}

// TestSingleRowLoadSameData: the baseline method and LOAD DATA write the
// same rows as the batched load (same seed), so the loader benchmark
// compares methods, not data. A slice of the tasks keeps the
// one-row-per-statement side short.
func TestSingleRowLoadSameData(t *testing.T) {
	tasks := []loadTask{
		{kind: taskItems, lo: 1, hi: 2000},
		{kind: taskWarehouse, w: 1},
		{kind: taskStock, w: 1, lo: 1, hi: 2000},
		{kind: taskCustomers, w: 1, d: 3},
		{kind: taskOrders, w: 1, d: 3},
	}
	sums := map[LoadMethod][]string{}
	methods := []LoadMethod{Batched, SingleRow, LoadData}
	for _, m := range methods {
		e := newEnv(t, fmt.Sprintf("tpcc_method_%d", m))
		w := build(t, 1, e.schema)
		if err := createTables(e.sess, workload.Point{}, &w.created); err != nil {
			t.Fatal(err)
		}
		st, err := w.runLoad(context.Background(), e.sess, tasks, 2, m, 0)
		if err != nil {
			t.Fatal(err)
		}
		if want := int64(2000 + 1 + 10 + 2000 + 6000 + 3000 + 900 + e.count("SELECT COUNT(*) FROM order_line")); st.Rows != want {
			t.Errorf("method %d: %d rows counted, want %d", m, st.Rows, want)
		}
		// The load's timestamp is the only difference allowed.
		if err := e.main.Exec("UPDATE customer SET c_since = '2000-01-01'; UPDATE history SET h_date = '2000-01-01';" +
			" UPDATE orders SET o_entry_d = '2000-01-01'; UPDATE order_line SET ol_delivery_d = '2000-01-01' WHERE ol_delivery_d IS NOT NULL; COMMIT"); err != nil {
			t.Fatal(err)
		}
		for _, tb := range Tables {
			rows, err := e.main.Query("CHECKSUM TABLE " + tb)
			if err != nil {
				t.Fatal(err)
			}
			sums[m] = append(sums[m], tb+"="+string(rows[0][1]))
		}
	}
	for _, m := range methods[1:] {
		for i := range sums[Batched] {
			if sums[Batched][i] != sums[m][i] {
				t.Errorf("batched %s, method %d %s", sums[Batched][i], m, sums[m][i])
			}
		}
	}
}

// TestLoadMethodFollowsLocalInfile: the load streams LOAD DATA LOCAL
// INFILE where the server accepts it and falls back to multi-row INSERTs
// where it refuses it (local_infile=OFF), without leaving a row behind.
func TestLoadMethodFollowsLocalInfile(t *testing.T) {
	for _, tc := range []struct {
		localInfile string
		want        LoadMethod
	}{
		{"1", LoadData},
		{"0", Batched},
	} {
		t.Run("local_infile="+tc.localInfile, func(t *testing.T) {
			e := newEnv(t, "tpcc_method_probe")
			if err := createTables(e.sess, workload.Point{}, new(ownership.Ledger)); err != nil {
				t.Fatal(err)
			}
			if err := e.main.Exec("SET GLOBAL local_infile=" + tc.localInfile); err != nil {
				t.Fatal(err)
			}
			defer e.main.Exec("SET GLOBAL local_infile=1")
			got, err := loadMethod(e.main)
			if err != nil {
				t.Fatal(err)
			}
			if got != tc.want {
				t.Errorf("load method %d, want %d", got, tc.want)
			}
			if n := e.count("SELECT COUNT(*) FROM warehouse"); n != 0 {
				t.Errorf("the probe left %d warehouse rows", n)
			}
		})
	}
}
