package tpcc

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/goslap/goslap/internal/ownership"
	"github.com/goslap/goslap/internal/workload"
)

// said captures what a workload says (Session.Say).
func said(s *workload.Session) *strings.Builder {
	var b strings.Builder
	s.Say = func(f string, a ...any) { fmt.Fprintf(&b, f+"\n", a...) }
	return &b
}

// fullRunKeeps runs on a schema loaded before (e, by another workload
// value): Setup reuses it, the check phase passes, a run labelled with
// another engine is refused, and Teardown — a full run's end — drops
// nothing, since this run created nothing.
func fullRunKeeps(t *testing.T, e *env, p workload.Point) {
	ctx := context.Background()
	w := build(t, 1, e.schema)
	if err := w.Setup(ctx, e.sess, p); err != nil {
		t.Fatal(err)
	}
	if err := w.BeginIteration(ctx, e.sess, workload.Iteration{Point: p, Number: 1}); err != nil {
		t.Fatal(err)
	}
	report, err := w.ConsistencyCheck(ctx, e.sess)
	if err != nil || strings.Count(report, "[OK]\n") != 4 {
		t.Fatalf("check phase after prepare: %v\n%s", err, report)
	}
	myisam := p
	myisam.Engine = "myisam"
	wantEngine := fmt.Sprintf("engine myisam was asked for, but table %s.warehouse is InnoDB: prepare the tables with that engine (cleanup, then prepare -e myisam), or leave the engine out to run on them as they are", e.schema)
	if err := build(t, 1, e.schema).Setup(ctx, e.sess, myisam); err == nil || err.Error() != wantEngine {
		t.Errorf("prepare -e myisam over InnoDB tables: %v", err)
	}
	if err := w.BeginIteration(ctx, e.sess, workload.Iteration{Point: myisam, Number: 1}); err == nil || err.Error() != wantEngine {
		t.Errorf("run -e myisam on InnoDB tables: %v", err)
	}
	out := said(e.sess)
	defer func() { e.sess.Say = nil }()
	if err := w.Teardown(ctx, e.sess, p); err != nil {
		t.Fatal(err)
	}
	if n := e.count("SELECT COUNT(*) FROM information_schema.tables WHERE table_schema = DATABASE()"); n != 9 || out.Len() != 0 {
		t.Fatalf("%d tables after the full run's teardown, want the 9 it reused; said %q", n, out)
	}

	// The check phase names the condition a corrupted district fails.
	if err := e.main.Exec("UPDATE district SET d_next_o_id = d_next_o_id + 1 WHERE d_w_id = 1 AND d_id = 4; COMMIT"); err != nil {
		t.Fatal(err)
	}
	defer e.main.Exec("UPDATE district SET d_next_o_id = d_next_o_id - 1 WHERE d_w_id = 1 AND d_id = 4; COMMIT")
	report, err = w.ConsistencyCheck(ctx, e.sess)
	var ce *ConditionError
	if !errors.As(err, &ce) || ce.Condition != 2 || !strings.Contains(report, "   2: D_NEXT_O_ID - 1 = max(O_ID) = max(NO_O_ID) per district [NG]\n") {
		t.Fatalf("check phase on a corrupted district: %v\n%s", err, report)
	}
}

// TestCleanupRefusesAShop: a shop's own customer and orders are not
// TPC-C's: cleanup refuses both by name before dropping anything (a table
// with TPC-C's layout beside them included), and the rows stay.
func TestCleanupRefusesAShop(t *testing.T) {
	e := newEnv(t, "shop")
	if err := e.main.Exec("CREATE TABLE customer (id INT PRIMARY KEY, name VARCHAR(20)); INSERT INTO customer VALUES (1, 'Ann');" +
		" CREATE TABLE orders (id INT PRIMARY KEY, total DECIMAL(8,2)); INSERT INTO orders VALUES (1, 9.5);" +
		CreateTableSQL("item", "", "")); err != nil {
		t.Fatal(err)
	}
	w := build(t, 1, e.schema)
	out := said(e.sess)
	err := w.Teardown(context.Background(), e.sess, workload.Point{})
	want := "table shop.customer has columns (id, name), not TPC-C's customer: not dropped; " +
		"table shop.orders has columns (id, total), not TPC-C's orders: not dropped"
	var re *ownership.RefusedError
	if !errors.As(err, &re) || err.Error() != want {
		t.Fatalf("cleanup = %v\nwant %s", err, want)
	}
	if n := e.count("SELECT COUNT(*) FROM information_schema.tables WHERE table_schema = DATABASE()"); n != 3 || out.Len() != 0 {
		t.Fatalf("%d tables after the refused cleanup; said %q", n, out)
	}
	if e.count("SELECT COUNT(*) FROM customer")+e.count("SELECT COUNT(*) FROM orders") != 2 {
		t.Fatal("the shop lost rows")
	}
	// Other differences are named too.
	if err := e.main.Exec("DROP TABLE customer, orders; " + CreateTableSQL("orders", "", "") + "; ALTER TABLE orders MODIFY o_ol_cnt INT"); err != nil {
		t.Fatal(err)
	}
	if err := w.Teardown(context.Background(), e.sess, workload.Point{}); err == nil ||
		err.Error() != "table shop.orders has column o_ol_cnt int where TPC-C's orders has tinyint: not dropped" {
		t.Fatalf("cleanup = %v", err)
	}
}

// TestCleanupDropsTPCCTables: tables with tpcc-mysql's layout clean up
// (here: created as create_table.sql does, empty), each drop said, and the
// schema's other tables stay.
func TestCleanupDropsTPCCTables(t *testing.T) {
	e := newEnv(t, "tpcc_layout")
	for _, tb := range Tables {
		if err := e.main.Exec(CreateTableSQL(tb, "", "")); err != nil {
			t.Fatal(err)
		}
	}
	if err := e.main.Exec("CREATE TABLE keep_me (a INT)"); err != nil {
		t.Fatal(err)
	}
	out := said(e.sess)
	if err := build(t, 1, e.schema).Teardown(context.Background(), e.sess, workload.Point{}); err != nil {
		t.Fatal(err)
	}
	var want strings.Builder
	for _, tb := range Tables {
		fmt.Fprintf(&want, "Dropping table '%s'...\n", tb)
	}
	if out.String() != want.String() {
		t.Errorf("said %q, want %q", out, want.String())
	}
	if n := e.count("SELECT COUNT(*) FROM information_schema.tables WHERE table_schema = DATABASE()"); n != 1 {
		t.Fatalf("%d tables left, want keep_me", n)
	}
	out.Reset()
	if err := build(t, 1, e.schema).Teardown(context.Background(), e.sess, workload.Point{}); err != nil ||
		out.String() != "schema 'tpcc_layout' holds no TPC-C tables: nothing to drop\n" {
		t.Fatalf("cleanup of nothing: %v, said %q", err, out)
	}
}

// TestInterruptedLoadDropsItsOwn: a prepare ended during its load drops
// the tables it created and says so.
func TestInterruptedLoadDropsItsOwn(t *testing.T) {
	e := newEnv(t, "tpcc_interrupted")
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	e.sess.Progress = func(string, int64, int64) { cancel() }
	w := build(t, 1, e.schema)
	err := w.Setup(ctx, e.sess, workload.Point{Clients: 2})
	if err == nil {
		t.Fatal("the interrupted load succeeded")
	}
	out := said(e.sess)
	// The interrupt may have cut the main connection mid-statement (its
	// socket is broken to end the statement): the front ends tear down on
	// a fresh connection, and so does this test.
	fresh, err := e.conn.Connect(nil)
	if err != nil {
		t.Fatal(err)
	}
	defer fresh.Close()
	s := *e.sess
	s.Main = fresh
	if err := w.Teardown(context.Background(), &s, workload.Point{}); err != nil {
		t.Fatal(err)
	}
	if !strings.HasSuffix(out.String(), "Dropping table 'stock'...\ntables warehouse, district, customer, history, new_orders, orders, order_line, item, stock of this prepare were dropped\n") {
		t.Errorf("said %q (load: %v)", out, err)
	}
	if n := e.count("SELECT COUNT(*) FROM information_schema.tables WHERE table_schema = DATABASE()"); n != 0 {
		t.Fatalf("%d tables left", n)
	}
}
