package mysqlconn

import (
	"bytes"
	"database/sql/driver"
	"encoding/binary"
	"strconv"
	"testing"

	"github.com/go-sql-driver/mysql"

	"github.com/goslap/goslap/internal/sandbox/servertest"
)

// executePacket builds a COM_STMT_EXECUTE as the driver writes it for
// statement id with the given 2-byte types and value bytes.
func executePacket(id uint32, params int, flag byte, types, values []byte) []byte {
	p := make([]byte, 4, 64)
	p = append(p, comStmtExecute)
	p = binary.LittleEndian.AppendUint32(p, id)
	p = append(p, 0, 1, 0, 0, 0)
	p = append(p, make([]byte, (params+7)/8)...)
	p = append(p, flag)
	p = append(p, types...)
	p = append(p, values...)
	n := len(p) - 4
	p[0], p[1], p[2] = byte(n), byte(n>>8), byte(n>>16)
	return p
}

// TestElideTypes: an execute leaves its types out only when the server
// holds the same ones for the same statement; anything else is sent as it
// is and (an execute) becomes what the server holds.
func TestElideTypes(t *testing.T) {
	ints := []byte{8, 0, 8, 0}    // two LONGLONGs
	mixed := []byte{254, 0, 8, 0} // STRING, LONGLONG
	vals := []byte{1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16}
	longData := []byte{4, 0, 0, 0, 0x18, 1, 0, 0, 0}
	type step struct {
		in, want []byte
	}
	tests := []struct {
		name  string
		steps []step
	}{
		{"first execute sends its types", []step{
			{executePacket(1, 2, 1, ints, vals), executePacket(1, 2, 1, ints, vals)},
		}},
		{"same types again are left out", []step{
			{executePacket(1, 2, 1, ints, vals), executePacket(1, 2, 1, ints, vals)},
			{executePacket(1, 2, 1, ints, vals), executePacket(1, 2, 0, nil, vals)},
			{executePacket(1, 2, 1, ints, vals[:15]), executePacket(1, 2, 0, nil, vals[:15])},
		}},
		{"changed types are sent and become the server's", []step{
			{executePacket(1, 2, 1, ints, vals), executePacket(1, 2, 1, ints, vals)},
			{executePacket(1, 2, 1, mixed, vals), executePacket(1, 2, 1, mixed, vals)},
			{executePacket(1, 2, 1, mixed, vals), executePacket(1, 2, 0, nil, vals)},
			{executePacket(1, 2, 1, ints, vals), executePacket(1, 2, 1, ints, vals)},
		}},
		{"another statement id sends its types", []step{
			{executePacket(1, 2, 1, ints, vals), executePacket(1, 2, 1, ints, vals)},
			{executePacket(2, 2, 1, ints, vals), executePacket(2, 2, 1, ints, vals)},
		}},
		{"a long-data chunk makes the next execute send its types", []step{
			{executePacket(1, 2, 1, ints, vals), executePacket(1, 2, 1, ints, vals)},
			{longData, longData},
			{executePacket(1, 2, 1, ints, vals), executePacket(1, 2, 1, ints, vals)},
		}},
		{"a packet that does not add up is left alone", []step{
			{executePacket(1, 2, 1, ints, vals), executePacket(1, 2, 1, ints, vals)},
			{executePacket(1, 2, 1, ints, vals)[:20], executePacket(1, 2, 1, ints, vals)[:20]},
			{executePacket(1, 2, 0, ints, vals), executePacket(1, 2, 0, ints, vals)},
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			bt := boundTypes{params: 2}
			for i, s := range tt.steps {
				if got := elideTypes(bytes.Clone(s.in), &bt); !bytes.Equal(got, s.want) {
					t.Fatalf("step %d: got % x, want % x", i, got, s.want)
				}
			}
		})
	}
}

// TestExecuteTypesOnce runs one prepared statement with parameter types
// changing between executes against the server, on both transports and
// both client paths: every result is the one the values ask for, and the
// server received the types only when they changed (its session
// Bytes_received: an execute of n parameters is 4+10 bytes, the NULL
// bitmap, the flag, 2n bytes of types when sent, and the values), through
// the driver's execute (Query) and the lean path (QueryRow, 32-bit
// integers in 4 bytes).
func TestExecuteTypesOnce(t *testing.T) {
	const status = "SHOW SESSION STATUS LIKE 'Bytes_received'"
	type step struct {
		args      []any
		want      []string // "NULL" for NULL
		withTypes bool
	}
	steps := []step{
		{[]any{int64(7), int64(8)}, []string{"7", "8"}, true},
		{[]any{int64(9), int64(-10)}, []string{"9", "-10"}, false},
		{[]any{"abc", int64(10)}, []string{"abc", "10"}, true},
		{[]any{"xyzw", int64(11)}, []string{"xyzw", "11"}, false},
		{[]any{nil, int64(12)}, []string{"NULL", "12"}, true},
		{[]any{nil, int64(13)}, []string{"NULL", "13"}, false},
		{[]any{int64(5), "6"}, []string{"5", "6"}, true},
		{[]any{int64(5), "6"}, []string{"5", "6"}, false},
	}
	for network, c := range serverConnectors(t) {
		for _, threaded := range []bool{false, true} {
			for _, lean := range []bool{false, true} {
				t.Run(network+"/threaded="+strconv.FormatBool(threaded)+"/lean="+strconv.FormatBool(lean), func(t *testing.T) {
					slot := &Slot{blocking: threaded}
					conn, err := c.Connect(slot)
					if err != nil {
						t.Fatal(err)
					}
					defer conn.Close()
					if conn.sock.blocking != threaded {
						t.Fatalf("blocking socket %v, want %v", conn.sock.blocking, threaded)
					}
					st, err := conn.Prepare("SELECT ?, ?")
					if err != nil {
						t.Fatal(err)
					}
					defer st.Close()
					if lean && !st.Lean() {
						t.Fatal("not on the lean path")
					}
					received := func() int {
						rows, err := conn.Query(status)
						if err != nil || len(rows) != 1 {
							t.Fatal("Bytes_received:", err)
						}
						n, err := strconv.Atoi(string(rows[0][1]))
						if err != nil {
							t.Fatal(err)
						}
						return n
					}
					statusBytes := 4 + 1 + len(status)
					for i, s := range steps {
						args := make([]driver.NamedValue, len(s.args))
						want := 4 + 10 + 1 + 1
						if s.withTypes {
							want += 2 * len(s.args)
						}
						for j, a := range s.args {
							args[j] = driver.NamedValue{Ordinal: j + 1, Value: a}
							switch a := a.(type) {
							case int64:
								want += 8
								if lean {
									want -= 4 // a 32-bit integer goes out as a LONG
								}
							case string:
								want += 1 + len(a)
							}
						}
						before := received()
						var rows [][][]byte
						if lean {
							var row Row
							var found bool
							found, err = st.QueryRow(args, &row)
							if found {
								rows = [][][]byte{row.Values}
							}
						} else {
							rows, err = st.Query(args)
						}
						if err != nil {
							t.Fatalf("step %d: %v", i, err)
						}
						if got := received() - before - statusBytes; got != want {
							t.Errorf("step %d: the execute sent %d bytes, want %d", i, got, want)
						}
						if len(rows) != 1 || len(rows[0]) != len(s.want) {
							t.Fatalf("step %d: got %q", i, rows)
						}
						for j, v := range rows[0] {
							got := string(v)
							if v == nil {
								got = "NULL"
							}
							if got != s.want[j] {
								t.Errorf("step %d column %d: got %q, want %q", i, j, got, s.want[j])
							}
						}
					}
				})
			}
		}
	}
}

// TestExecuteCompressed: over a compressed connection the socket sees
// compressed frames, not the driver's packets, so it leaves them alone
// (plain is false) and prepared statements still run.
func TestExecuteCompressed(t *testing.T) {
	s := servertest.Require(t)
	cfg := s.RootConfig("")
	cfg.Logger = &mysql.NopLogger{}
	if err := cfg.Apply(mysql.EnableCompression(true)); err != nil {
		t.Fatal(err)
	}
	c, err := NewConnector(cfg, "")
	if err != nil {
		t.Fatal(err)
	}
	conn, err := c.Connect(nil)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	if conn.sock.plain {
		t.Fatal("a compressed connection's socket would rewrite executes")
	}
	st, err := conn.Prepare("SELECT ? + 1")
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	for i := int64(0); i < 3; i++ {
		rows, err := st.Query([]driver.NamedValue{{Ordinal: 1, Value: i}})
		if err != nil {
			t.Fatal(err)
		}
		if len(rows) != 1 || string(rows[0][0]) != strconv.FormatInt(i+1, 10) {
			t.Fatalf("execute %d: got %q", i, rows)
		}
	}
}

// TestExecuteTypesAfterReprepare: a table change between executes makes
// the server prepare the statement again behind the client's back; the
// types it holds survive that, so an execute without them still reads its
// values right.
func TestExecuteTypesAfterReprepare(t *testing.T) {
	c := serverConnectors(t)["unix"]
	conn, err := c.Connect(nil)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	for _, stmt := range []string{
		"CREATE DATABASE IF NOT EXISTS bound_reprepare", "DROP TABLE IF EXISTS bound_reprepare.t",
		"CREATE TABLE bound_reprepare.t (a INT PRIMARY KEY, s VARCHAR(10))",
		"INSERT INTO bound_reprepare.t VALUES (1, 'one'), (2, 'two'), (3, 'three')",
	} {
		if err := conn.Exec(stmt); err != nil {
			t.Fatal(err)
		}
	}
	defer conn.Exec("DROP DATABASE bound_reprepare")
	st, err := conn.Prepare("SELECT s FROM bound_reprepare.t WHERE a = ? OR s = ?")
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	reprepares := func() string {
		rows, err := conn.Query("SHOW SESSION STATUS LIKE 'Com_stmt_reprepare'")
		if err != nil || len(rows) != 1 {
			t.Fatal("Com_stmt_reprepare:", err)
		}
		return string(rows[0][1])
	}
	before := reprepares()
	for i, alter := range []string{"", "ALTER TABLE bound_reprepare.t ADD COLUMN b INT", "ALTER TABLE bound_reprepare.t DROP COLUMN b"} {
		if alter != "" {
			if err := conn.Exec(alter); err != nil {
				t.Fatal(err)
			}
		}
		rows, err := st.Query([]driver.NamedValue{{Ordinal: 1, Value: int64(i + 1)}, {Ordinal: 2, Value: "none"}})
		if err != nil {
			t.Fatalf("execute %d: %v", i, err)
		}
		if want := []string{"one", "two", "three"}[i]; len(rows) != 1 || string(rows[0][0]) != want {
			t.Fatalf("execute %d after %q: got %q, want %q", i, alter, rows, want)
		}
		if i > 0 && !st.bound.ok {
			t.Fatalf("execute %d: no types held", i)
		}
	}
	if after := reprepares(); after == before {
		t.Fatalf("the server never prepared the statement again (Com_stmt_reprepare %s)", after)
	}
}
