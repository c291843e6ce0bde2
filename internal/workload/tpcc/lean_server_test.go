package tpcc

import (
	"context"
	"database/sql/driver"
	"fmt"
	"reflect"
	"testing"

	"github.com/goslap/goslap/internal/mysqlconn"
	"github.com/goslap/goslap/internal/workload"
)

// twin runs every statement of a client on two connections to two schemas
// loaded alike, one on mysqlconn's lean execute path and one on the
// driver's, compares what each call returns and hands the lean path's
// results to the client. Both schemas see the same statements, so they stay
// alike while the results agree.
type twin struct {
	t      *testing.T
	lean   *connExecutor
	drv    *connExecutor
	rows   [numStatements]mysqlconn.Row
	ints   []int64
	rowBuf []driver.Value
	calls  int
}

func (x *twin) same(id int, what string, lean, drv any) {
	x.t.Helper()
	x.calls++
	if !reflect.DeepEqual(lean, drv) {
		x.t.Fatalf("%s %s: lean path %q, driver %q", Statements[id].Name, what, lean, drv)
	}
}

func errString(err error) string {
	if err == nil {
		return ""
	}
	return fmt.Sprintf("%T %v", err, err)
}

func (x *twin) query(id int, args []driver.NamedValue) ([][][]byte, error) {
	r1, e1 := x.lean.query(id, args)
	r2, e2 := x.drv.query(id, args)
	x.same(id, "query", []any{r1, errString(e1)}, []any{r2, errString(e2)})
	return r1, e1
}

func (x *twin) exec(id int, args []driver.NamedValue) (int64, error) {
	n1, e1 := x.lean.exec(id, args)
	n2, e2 := x.drv.exec(id, args)
	x.same(id, "exec", []any{n1, errString(e1)}, []any{n2, errString(e2)})
	return n1, e1
}

func (x *twin) count(id int, args []driver.NamedValue, buf *[]driver.Value) (int64, error) {
	n1, e1 := x.lean.count(id, args, buf)
	n2, e2 := x.drv.count(id, args, &x.rowBuf)
	x.same(id, "count", []any{n1, errString(e1)}, []any{n2, errString(e2)})
	return n1, e1
}

func (x *twin) drain(id int, args []driver.NamedValue) error {
	e1 := x.lean.drain(id, args)
	e2 := x.drv.drain(id, args)
	x.same(id, "drain", errString(e1), errString(e2))
	return e1
}

func (x *twin) queryRow(id int, args []driver.NamedValue, row *mysqlconn.Row) (bool, error) {
	f1, e1 := x.lean.queryRow(id, args, row)
	f2, e2 := x.drv.queryRow(id, args, &x.rows[id])
	var v1, v2 [][]byte
	if f1 {
		v1 = row.Values
	}
	if f2 {
		v2 = x.rows[id].Values
	}
	x.same(id, "row", []any{f1, v1, errString(e1)}, []any{f2, v2, errString(e2)})
	return f1, e1
}

func (x *twin) queryInts(id int, args []driver.NamedValue, dst []int64, buf *[]driver.Value) ([]int64, error) {
	i1, e1 := x.lean.queryInts(id, args, dst, buf)
	var e2 error
	x.ints, e2 = x.drv.queryInts(id, args, x.ints, &x.rowBuf)
	x.same(id, "ints", []any{i1, errString(e1)}, []any{x.ints, errString(e2)})
	return i1, e1
}

func (x *twin) commit() error {
	e1, e2 := x.lean.commit(), x.drv.commit()
	if e1 != nil || e2 != nil {
		x.t.Fatalf("commit: %v / %v", e1, e2)
	}
	return nil
}

func (x *twin) rollback() error {
	e1, e2 := x.lean.rollback(), x.drv.rollback()
	if e1 != nil || e2 != nil {
		x.t.Fatalf("rollback: %v / %v", e1, e2)
	}
	return nil
}

// TestLeanPathTPCC: the TPC-C transactions read and change the same data
// whether their statements take mysqlconn's lean execute path or the
// driver's: every statement's result compared, two schemas loaded alike,
// the server's clock fixed for both (NOW() in the inserts).
func TestLeanPathTPCC(t *testing.T) {
	var envs [2]*env
	var conns [2]*mysqlconn.Conn
	var ex [2]*connExecutor
	var ld workload.Load
	for i, schema := range []string{"tpcc_lean", "tpcc_driver"} {
		e := newEnv(t, schema)
		w := build(t, 1, schema)
		p := workload.Point{Clients: 1}
		if err := w.Setup(context.Background(), e.sess, p); err != nil {
			t.Fatal(err)
		}
		l, err := w.Load(workload.Iteration{Point: p, Number: 1})
		if err != nil {
			t.Fatal(err)
		}
		ld = l
		cn := e.conn
		if i == 1 {
			cn = cn.DriverExecute()
		}
		conn, err := cn.Connect(nil)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(conn.Close)
		// The load's dates are its clock's: the same for both schemas.
		for _, q := range []string{"UPDATE customer SET c_since = '2020-01-01'", "UPDATE orders SET o_entry_d = '2020-01-01'",
			"UPDATE order_line SET ol_delivery_d = '2020-01-01' WHERE ol_delivery_d IS NOT NULL", "UPDATE history SET h_date = '2020-01-01'",
			"COMMIT", "SET timestamp = 1700000000"} {
			if err := conn.Exec(q); err != nil {
				t.Fatalf("%s: %v", q, err)
			}
		}
		c := l.Client(0).(*client)
		if err := c.Begin(conn); err != nil {
			t.Fatal(err)
		}
		envs[i], conns[i], ex[i] = e, conn, c.ex.(*connExecutor)
	}
	tw := &twin{t: t, lean: ex[0], drv: ex[1]}
	c := ld.Client(0).(*client)
	c.ex, c.skip = tw, tw
	ops := [numTx]int{}
	for range 300 {
		st, err := c.Next(conns[0])
		if err != nil {
			t.Fatal(err)
		}
		ops[st.Op]++
	}
	for op, n := range ops {
		if n == 0 {
			t.Errorf("no transaction %d in 300", op)
		}
	}
	for _, table := range []string{"warehouse", "district", "customer", "history", "orders", "new_orders", "order_line", "stock"} {
		var sums [2]string
		for i, e := range envs {
			rows, err := e.main.Query("CHECKSUM TABLE " + e.schema + "." + table)
			if err != nil || len(rows) != 1 || len(rows[0]) != 2 {
				t.Fatalf("CHECKSUM TABLE %s: %q %v", table, rows, err)
			}
			sums[i] = string(rows[0][1])
		}
		if sums[0] != sums[1] {
			t.Errorf("%s: checksum %s on the lean path's schema, %s on the driver's", table, sums[0], sums[1])
		}
	}
	if tw.calls < 3000 {
		t.Errorf("%d statements compared", tw.calls)
	}
	for id := range numStatements {
		if !ex[0].stmts[id].Lean() || ex[1].stmts[id].Lean() {
			t.Fatalf("%s: lean path %v and %v, want true and false", Statements[id].Name, ex[0].stmts[id].Lean(), ex[1].stmts[id].Lean())
		}
	}
	t.Logf("%d statements compared over %v transactions", tw.calls, ops)
}
