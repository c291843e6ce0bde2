package tpcc

// The TPC-C client on the wire, against the in-process fake server
// (mysqlfake): the session and prepares of Begin, one New-Order's executes
// exactly as the recorder-based tests (client_test.go) expect them, the
// 1 % rollback, a retried deadlock and a lost connection, without mariadbd.

import (
	"database/sql/driver"
	"errors"
	"fmt"
	"reflect"
	"slices"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/go-sql-driver/mysql"

	"github.com/goslap/goslap/internal/mysqlconn"
	"github.com/goslap/goslap/internal/mysqlconn/mysqlfake"
)

// statementID maps a prepared statement's SQL to its id.
var statementID = func() map[string]int {
	m := map[string]int{}
	for i, s := range Statements {
		m[s.SQL] = i
	}
	return m
}()

// tpccServer answers the run's statements as the recorder does: queries
// from answers, one row changed by every other statement; fail, when set,
// may replace a reply.
func tpccServer(answer func(int, []driver.NamedValue) ([][][]byte, error), fail func(q mysqlfake.Query) mysqlfake.Reply) mysqlfake.Handler {
	return func(q mysqlfake.Query) mysqlfake.Reply {
		if fail != nil {
			if r := fail(q); r != nil {
				return r
			}
		}
		id, ok := statementID[q.SQL]
		if q.Kind != mysqlfake.KindExecute || !ok {
			return mysqlfake.OK{}
		}
		if !strings.HasPrefix(q.SQL, "SELECT") {
			return mysqlfake.OK{Affected: 1}
		}
		args := make([]driver.NamedValue, len(q.Args))
		for i, a := range q.Args {
			args[i] = driver.NamedValue{Ordinal: i + 1, Value: a}
		}
		rows, err := answer(id, args)
		if err != nil {
			panic(err)
		}
		r := mysqlfake.Rows{Columns: []string{"c1"}}
		if len(rows) > 0 {
			r.Columns = make([]string, len(rows[0]))
			for i := range r.Columns {
				r.Columns[i] = fmt.Sprint("c", i+1)
			}
		}
		for _, row := range rows {
			vs := make([]any, len(row))
			for i, v := range row {
				if v != nil {
					vs[i] = string(v)
				}
			}
			r.Values = append(r.Values, vs)
		}
		return r
	}
}

// wireLog renders the server's log of a transaction in the recorder's
// notation: statement(args), COMMIT, ROLLBACK.
func wireLog(log []mysqlfake.Query) []string {
	var out []string
	for _, q := range log {
		switch q.Kind {
		case mysqlfake.KindExecute:
			parts := make([]string, len(q.Args))
			for i, a := range q.Args {
				parts[i] = fmt.Sprint(a)
			}
			out = append(out, Statements[statementID[q.SQL]].Name+"("+strings.Join(parts, ",")+")")
		case mysqlfake.KindQuery:
			out = append(out, q.SQL)
		default:
			out = append(out, q.Kind.String()+" "+q.SQL)
		}
	}
	return out
}

// wireClient is client 0 of a load of warehouses, begun on a connection
// to s.
func wireClient(t *testing.T, s *mysqlfake.Server, warehouses int, seed uint64) *client {
	t.Helper()
	cn, err := mysqlconn.NewConnector(s.Config(), "")
	if err != nil {
		t.Fatal(err)
	}
	conn, err := cn.Connect(nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(conn.Close)
	c := newClient(newLoad(warehouses, seed), 0)
	if err := c.Begin(conn); err != nil {
		t.Fatal(err)
	}
	return c
}

// TestBeginOnTheWire: Begin turns autocommit off and prepares every
// statement of the run once; missing tables are named as such.
func TestBeginOnTheWire(t *testing.T) {
	s := mysqlfake.Start(t, nil, mysqlfake.Options{})
	wireClient(t, s, 1, 1)
	log := s.Log()
	want := []string{"SET autocommit = 0"}
	for _, st := range Statements {
		want = append(want, "prepare "+st.SQL)
	}
	if got := wireLog(log); !slices.Equal(got, want) {
		t.Errorf("Begin sent\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}

	s2 := mysqlfake.Start(t, func(q mysqlfake.Query) mysqlfake.Reply {
		if q.Kind == mysqlfake.KindPrepare && strings.Contains(q.SQL, "FROM stock") {
			return mysqlfake.Err{Code: 1146, State: "42S02", Message: "Table 'tpcc.stock' doesn't exist"}
		}
		return nil
	}, mysqlfake.Options{})
	cn, err := mysqlconn.NewConnector(s2.Config(), "")
	if err != nil {
		t.Fatal(err)
	}
	conn, err := cn.Connect(nil)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	err = newClient(newLoad(1, 1), 0).Begin(conn)
	if err == nil || !strings.Contains(err.Error(), "the TPC-C tables are missing") {
		t.Errorf("Begin without the tables: %v", err)
	}
}

// TestNewOrderOnTheWire: for many seeds, a New-Order sends on the wire
// what it hands the recorder (same input, same replies): the executes in
// order with their values, then COMMIT, or ROLLBACK at the unknown item
// of the 1 % (not an error: a completed transaction, counted as a
// rollback).
func TestNewOrderOnTheWire(t *testing.T) {
	answer := answers("GC", func(int64) string { return "2101" }, 3)
	s := mysqlfake.Start(t, tpccServer(answer, nil), mysqlfake.Options{})
	// One connection and its prepared statements for every seed's client.
	ex := wireClient(t, s, 3, 1).ex
	// Seeds whose New-Order is one of the 1 % (the first 3) and seeds
	// whose New-Order commits (the first 30), chosen by drawing the input.
	var seeds []uint64
	var rb, cm int
	for seed := uint64(1); rb < 3 || cm < 30; seed++ {
		c := newClient(newLoad(3, seed), 0)
		c.draw(NewOrder)
		switch {
		case c.in.rollback && rb < 3:
			rb++
			seeds = append(seeds, seed)
		case !c.in.rollback && cm < 30:
			cm++
			seeds = append(seeds, seed)
		}
	}
	var rollbacks, commits int
	for _, seed := range seeds {
		r := &recorder{answer: answer}
		want := testClient(3, seed, r)
		wantErr := runOp(want, NewOrder)

		c := newClient(newLoad(3, seed), 0)
		c.ex = ex
		s.ResetLog()
		err := runOp(c, NewOrder)
		if err != wantErr && !(errors.Is(err, wantErr)) {
			t.Fatalf("seed %d: error %v, the recorder's run %v", seed, err, wantErr)
		}
		got := wireLog(s.Log())
		if !slices.Equal(got, r.log) {
			t.Fatalf("seed %d: on the wire\n%s\nto the recorder\n%s", seed, strings.Join(got, "\n"), strings.Join(r.log, "\n"))
		}
		if c.in.rollback {
			rollbacks++
			if err != errRolledBack || got[len(got)-1] != "ROLLBACK" || !strings.HasPrefix(got[len(got)-2], fmt.Sprintf("new_order.item(%d)", notFoundItem)) {
				t.Errorf("seed %d: rolled-back New-Order ended %v with %q", seed, err, got[len(got)-2:])
			}
		} else {
			commits++
			if err != nil || got[len(got)-1] != "COMMIT" {
				t.Errorf("seed %d: New-Order ended %v with %q", seed, err, got[len(got)-1])
			}
		}
		if c.tally != want.tally {
			t.Errorf("seed %d: tally %+v, the recorder's run %+v", seed, c.tally, want.tally)
		}
	}
	if rollbacks != 3 || commits != 30 {
		t.Errorf("%d rollbacks, %d commits: both paths must be taken", rollbacks, commits)
	}

	// Through Next: a server that knows no item rolls every New-Order
	// back at its first line; that is no error, and counts as a rollback.
	s2 := mysqlfake.Start(t, tpccServer(answer, func(q mysqlfake.Query) mysqlfake.Reply {
		if q.SQL == Statements[sNOItem].SQL && q.Kind == mysqlfake.KindExecute {
			return mysqlfake.Rows{Columns: []string{"i_price", "i_name", "i_data"}}
		}
		return nil
	}), mysqlfake.Options{})
	c := wireClient(t, s2, 3, 5)
	var newOrders uint64
	for range 23 { // one deck
		st, err := c.Next(nil)
		if err != nil {
			t.Fatal(err)
		}
		if st.Op == NewOrder {
			newOrders++
		}
	}
	var items, rolledBack int
	log := wireLog(s2.Log())
	for i, l := range log {
		if strings.HasPrefix(l, "new_order.item(") {
			items++
			if i+1 < len(log) && log[i+1] == "ROLLBACK" {
				rolledBack++
			}
		}
	}
	if newOrders == 0 || c.tally.Rollbacks != newOrders || items != int(newOrders) || rolledBack != items {
		t.Errorf("%d New-Orders, %d rollbacks counted, %d item lookups, %d followed by ROLLBACK", newOrders, c.tally.Rollbacks, items, rolledBack)
	}
}

// TestRetryOnTheWire: an SQL error (a deadlock) rolls the transaction back
// and runs it again with the same input; a lost connection is returned at
// once for the engine to reconnect, with no ROLLBACK and no retry.
func TestRetryOnTheWire(t *testing.T) {
	answer := answers("GC", nil, 0)
	for _, tc := range []struct {
		name  string
		reply mysqlfake.Reply
		times int // how many times the stock update fails
		lost  bool
	}{
		{"deadlock once", mysqlfake.Err{Code: 1213, State: "40001", Message: "Deadlock found"}, 1, false},
		{"lock wait timeout twice", mysqlfake.Err{Code: 1205, Message: "Lock wait timeout exceeded"}, 2, false},
		{"lost connection", mysqlfake.Drop{}, 1, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var left atomic.Int64
			s := mysqlfake.Start(t, tpccServer(answer, func(q mysqlfake.Query) mysqlfake.Reply {
				if q.Kind == mysqlfake.KindExecute && q.SQL == Statements[sNOUpdStock].SQL && left.Add(-1) >= 0 {
					return tc.reply
				}
				return nil
			}), mysqlfake.Options{})
			// A seed whose New-Order commits (no 1 % rollback).
			var c *client
			for seed := uint64(1); ; seed++ {
				c = wireClient(t, s, 2, seed)
				c.draw(NewOrder)
				if !c.in.rollback {
					break
				}
			}
			left.Store(int64(tc.times))
			s.ResetLog()
			in := c.in
			err := c.attempt(NewOrder)
			log := wireLog(s.Log())
			if tc.lost {
				var me *mysql.MySQLError
				if !errors.As(err, &me) || me.Number != 2013 {
					t.Fatalf("error %v, want the lost connection (2013)", err)
				}
				if slices.Contains(log, "ROLLBACK") || c.counts.Retries[NewOrder] != 0 {
					t.Errorf("after a lost connection: log %q, retries %d", log, c.counts.Retries[NewOrder])
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			// Attempts split at each ROLLBACK; each one runs the same
			// input from its first statement.
			var attempts [][]string
			start := 0
			for i, l := range log {
				if l == "ROLLBACK" {
					attempts = append(attempts, log[start:i])
					start = i + 1
				}
			}
			final := log[start:]
			if len(attempts) != tc.times || final[len(final)-1] != "COMMIT" {
				t.Fatalf("%d rolled-back attempts, last ends %q; want %d then COMMIT:\n%s", len(attempts), final[len(final)-1], tc.times, strings.Join(log, "\n"))
			}
			for i, a := range attempts {
				if !slices.Equal(a, final[:len(a)]) {
					t.Errorf("attempt %d is not the same transaction:\n%s\nfinal:\n%s", i+1, strings.Join(a, "\n"), strings.Join(final, "\n"))
				}
			}
			if !reflect.DeepEqual(c.in, in) || c.counts.Retries[NewOrder] != uint64(tc.times) || c.tally.Retries != uint64(tc.times) {
				t.Errorf("retries %d (tally %d), want %d; input kept: %v", c.counts.Retries[NewOrder], c.tally.Retries, tc.times, reflect.DeepEqual(c.in, in))
			}
		})
	}
}
