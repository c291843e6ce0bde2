package mysqlfake_test

import (
	"database/sql/driver"
	"errors"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/go-sql-driver/mysql"

	"github.com/goslap/goslap/internal/mysqlconn"
	"github.com/goslap/goslap/internal/mysqlconn/mysqlfake"
)

func connect(t *testing.T, s *mysqlfake.Server) *mysqlconn.Conn {
	t.Helper()
	cn, err := mysqlconn.NewConnector(s.Config(), "")
	if err != nil {
		t.Fatal(err)
	}
	c, err := cn.Connect(nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(c.Close)
	return c
}

// script answers by statement text.
func script(replies map[string]mysqlfake.Reply) mysqlfake.Handler {
	return func(q mysqlfake.Query) mysqlfake.Reply { return replies[q.SQL] }
}

func args(vs ...any) []driver.NamedValue {
	out := make([]driver.NamedValue, len(vs))
	for i, v := range vs {
		out[i] = driver.NamedValue{Ordinal: i + 1, Value: v}
	}
	return out
}

// TestTextProtocol: goslap's client sees the scripted OK, rows and error
// replies of COM_QUERY, over TCP and a Unix socket.
func TestTextProtocol(t *testing.T) {
	replies := map[string]mysqlfake.Reply{
		"UPDATE t SET a=1": mysqlfake.OK{Affected: 7},
		"SELECT a, b FROM t": mysqlfake.Rows{Columns: []string{"a", "b"},
			Values: [][]any{{1, "x"}, {nil, "y"}}},
		"SELECT nope": mysqlfake.Err{Code: 1054, State: "42S22", Message: "Unknown column 'nope' in 'field list'"},
	}
	for _, unix := range []bool{false, true} {
		s := mysqlfake.Start(t, script(replies), mysqlfake.Options{Unix: unix})
		c := connect(t, s)
		if n, err := c.ExecResult("UPDATE t SET a=1"); err != nil || n != 7 {
			t.Errorf("unix %v: affected %d, %v; want 7", unix, n, err)
		}
		rows, err := c.Query("SELECT a, b FROM t")
		want := [][][]byte{{[]byte("1"), []byte("x")}, {nil, []byte("y")}}
		if err != nil || !reflect.DeepEqual(rows, want) {
			t.Errorf("unix %v: rows %q, %v; want %q", unix, rows, err, want)
		}
		err = c.Exec("SELECT nope")
		var me *mysql.MySQLError
		if !errors.As(err, &me) || me.Number != 1054 || string(me.SQLState[:]) != "42S22" || !strings.Contains(me.Message, "nope") {
			t.Errorf("unix %v: error %v, want 1054", unix, err)
		}
		if err := c.Exec("SELECT 1"); err != nil {
			t.Errorf("unix %v: after an error: %v", unix, err)
		}
	}
}

// TestPreparedStatements: parameters are decoded, including executes that
// leave the types out (goslap sends them once), and binary rows reach the
// client.
func TestPreparedStatements(t *testing.T) {
	const sel = "SELECT c FROM t WHERE id = ? AND k BETWEEN ? AND ? /* '?' */"
	s := mysqlfake.Start(t, func(q mysqlfake.Query) mysqlfake.Reply {
		if q.Kind == mysqlfake.KindExecute && strings.HasPrefix(q.SQL, "SELECT") {
			return mysqlfake.Rows{Columns: []string{"c", "d"}, Values: [][]any{{q.Args[0], nil}, {"two", 2.5}}}
		}
		return mysqlfake.OK{Affected: 1}
	}, mysqlfake.Options{})
	c := connect(t, s)
	st, err := c.Prepare(sel)
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		args      []any
		want      []any
		typesSent bool
	}{
		{[]any{int64(5), int64(-1), "abc"}, []any{int64(5), int64(-1), "abc"}, true},
		{[]any{int64(6), int64(7), "de"}, []any{int64(6), int64(7), "de"}, false}, // same types: elided
		{[]any{uint64(1 << 63), 1.5, nil}, []any{uint64(1 << 63), 1.5, nil}, true},
		{[]any{uint64(3), 2.5, nil}, []any{uint64(3), 2.5, nil}, false},
		{[]any{[]byte("b"), true, "x"}, []any{"b", int64(1), "x"}, true},
	}
	for i, tc := range tests {
		s.ResetLog()
		rows, err := st.Query(args(tc.args...))
		if err != nil {
			t.Fatalf("execute %d: %v", i, err)
		}
		log := s.Log()
		if len(log) != 1 || log[0].Kind != mysqlfake.KindExecute || log[0].SQL != sel {
			t.Fatalf("execute %d: log %+v", i, log)
		}
		if !reflect.DeepEqual(log[0].Args, tc.want) || log[0].TypesSent != tc.typesSent {
			t.Errorf("execute %d: args %#v types sent %v, want %#v %v", i, log[0].Args, log[0].TypesSent, tc.want, tc.typesSent)
		}
		if len(rows) != 2 || rows[0][1] != nil || string(rows[1][0]) != "two" || string(rows[1][1]) != "2.5" {
			t.Errorf("execute %d: rows %q", i, rows)
		}
	}
	if err := st.Drain(args(int64(1), int64(2), "z")); err != nil {
		t.Errorf("drain: %v", err)
	}
	upd, err := c.Prepare("UPDATE t SET k = k + 1 WHERE id = ?")
	if err != nil {
		t.Fatal(err)
	}
	if n, err := upd.ExecAffected(args(int64(3))); err != nil || n != 1 {
		t.Errorf("update: %d, %v", n, err)
	}
	if err := upd.Close(); err != nil {
		t.Fatal(err)
	}
	if err := c.Exec("SELECT 1"); err != nil { // COM_STMT_CLOSE has no reply: the stream stays in step
		t.Fatal(err)
	}
	log := s.Log()
	if k := log[len(log)-2]; k.Kind != mysqlfake.KindClose || !strings.HasPrefix(k.SQL, "UPDATE") {
		t.Errorf("close logged as %+v", k)
	}
}

// TestFailures: a scripted error on prepare, a dropped connection, a
// password checked, and the reply delay.
func TestFailures(t *testing.T) {
	s := mysqlfake.Start(t, func(q mysqlfake.Query) mysqlfake.Reply {
		switch {
		case q.Kind == mysqlfake.KindPrepare && strings.Contains(q.SQL, "missing"):
			return mysqlfake.Err{Code: 1146, State: "42S02", Message: "Table 'x.missing' doesn't exist"}
		case q.SQL == "DROP ME":
			return mysqlfake.Drop{}
		}
		return nil
	}, mysqlfake.Options{Password: "secret"})

	cfg := s.Config()
	cfg.Passwd = "wrong"
	cn, err := mysqlconn.NewConnector(cfg, "")
	if err != nil {
		t.Fatal(err)
	}
	var me *mysql.MySQLError
	if _, err := cn.Connect(nil); !errors.As(err, &me) || me.Number != 1045 {
		t.Errorf("wrong password: %v, want 1045", err)
	}

	c := connect(t, s)
	if _, err := c.Prepare("SELECT * FROM missing"); !errors.As(err, &me) || me.Number != 1146 {
		t.Errorf("prepare: %v, want 1146", err)
	}
	// mysqlconn words a lost connection as the client library does.
	if err := c.Exec("DROP ME"); !errors.As(err, &me) || me.Number != 2013 {
		t.Errorf("dropped connection: %v, want 2013", err)
	}

	c2 := connect(t, s)
	s.SetDelay(20 * time.Millisecond)
	start := time.Now()
	if err := c2.Exec("SELECT 1"); err != nil {
		t.Fatal(err)
	}
	if took := time.Since(start); took < 20*time.Millisecond {
		t.Errorf("delayed reply took %v", took)
	}
	s.SetDelay(0)
	s.BreakAll()
	if err := c2.Exec("SELECT 1"); err == nil {
		t.Error("a statement on a broken connection succeeded")
	}
	if got := s.Connects(); got != 2 {
		t.Errorf("%d connects, want 2", got)
	}
}
