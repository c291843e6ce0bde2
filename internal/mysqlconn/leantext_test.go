package mysqlconn

import (
	"bytes"
	"fmt"
	"io"
	"strings"
	"testing"
)

func TestMayReadLocalFile(t *testing.T) {
	tests := []struct {
		stmt string
		want bool
	}{
		{"LOAD DATA LOCAL INFILE 'x' INTO TABLE t", true},
		{"load data local infile 'x' into table t", true},
		{"/* c */ LoAd XmL LoCaL InFiLe 'x' INTO TABLE t", true},
		{"SELECT 1; LOAD DATA LOCAL INFILE 'x' INTO TABLE t", true},
		{"SELECT 'infile'", true}, // declined though harmless: the driver's path takes it
		{"INFILE", true},
		{"SELECT intcol1 FROM t1 WHERE id = 'infil'", false},
		{"SELECT 1", false},
		{"", false},
		{"INFIL", false},
		{"iNFILx", false},
	}
	for _, tc := range tests {
		if got := mayReadLocalFile(tc.stmt); got != tc.want {
			t.Errorf("mayReadLocalFile(%q) = %v, want %v", tc.stmt, got, tc.want)
		}
	}
}

// TestLeanTextMatchesDriver: Exec and ExecResult (its count too) return
// on the lean text path what they return on the driver's, for statements
// without results, result sets
// (empty, many rows, a row longer than the read buffer), errors before and
// among the rows, a procedure's several results, a statement over the
// server's max_allowed_packet (the server hangs up) and a local file's
// LOAD DATA (the driver's path); the connection stays usable after each
// but the hang-up, and an Exec allocates nothing.
func TestLeanTextMatchesDriver(t *testing.T) {
	for name, c := range leanConnectors(t) {
		network := strings.ReplaceAll(name, " ", "_")
		t.Run(name, func(t *testing.T) {
			lean, drv := leanPair(t, c.conn, c.slot)
			if lean.sock.lean != nil {
				t.Fatal("lean state before any statement")
			}
			if err := lean.Exec("CREATE DATABASE IF NOT EXISTS leantext"); err != nil {
				t.Fatal(err)
			}
			if lean.sock.lean == nil {
				t.Fatal("a text statement did not take the lean path")
			}
			if drv.sock.lean != nil || drv.sock.leanOK {
				t.Fatal("the driver's connection is on the lean path")
			}
			file, release := LocalReader(func() io.Reader { return bytes.NewReader([]byte("7\tseven\n8\teight\n")) })
			defer release()
			// Each connection its own table and procedure (the driver's
			// first), so that both see the same state.
			statements := func(side string) []struct{ name, sql string } {
				tbl := "leantext.t" + network + side
				proc := "leantext.p" + network + side
				return []struct{ name, sql string }{
					{"create", "CREATE OR REPLACE TABLE " + tbl + " (id INT PRIMARY KEY, v VARCHAR(100))"},
					{"insert", "INSERT INTO " + tbl + " VALUES (1, 'one'), (2, 'two'), (3, NULL)"},
					{"rows after a write", "SELECT id FROM " + tbl},
					{"duplicate key", "INSERT INTO " + tbl + " VALUES (1, 'again')"},
					{"update", "UPDATE " + tbl + " SET v = CONCAT(v, '') WHERE id > 0"},
					{"select rows", "SELECT * FROM " + tbl + " ORDER BY id"},
					{"select none", "SELECT * FROM " + tbl + " WHERE id < 0"},
					{"many rows", "SELECT seq, REPEAT('x', 200) FROM mysql.seq_1_to_2000"},
					{"a long row", "SELECT REPEAT('y', 100000), 1"},
					{"syntax error", "SELEC 1"},
					{"unknown table", "SELECT * FROM leantext.no_such_table"},
					{"error among rows", "SELECT IF(seq = 3, (SELECT 1 UNION SELECT 2), seq) FROM mysql.seq_1_to_5"},
					{"procedure", "CREATE OR REPLACE PROCEDURE " + proc + "() BEGIN SELECT 1, 'one'; SELECT seq FROM mysql.seq_1_to_3; UPDATE " + tbl + " SET v = v WHERE id = 1; END"},
					{"call", "CALL " + proc + "()"},
					{"call failing", "CALL leantext.no_such_procedure()"},
					{"local file", "LOAD DATA LOCAL INFILE " + file + " REPLACE INTO TABLE " + tbl},
					{"count after it", "SELECT COUNT(*) FROM " + tbl},
					{"set", "SET @a = 1"},
					{"do", "DO 1"},
					{"over max_allowed_packet", "SELECT '" + strings.Repeat("a", 2<<20) + "'"},
				}
			}
			// The statements once through Exec, once through ExecResult
			// (with its count), each time on tables of their own; the
			// statement that ends the connection only at the end.
			var tests, drvTests []struct{ name, sql string }
			var counted []bool
			for _, method := range []string{"_exec", "_result"} {
				l, d := statements("_lean"+method), statements("_driver"+method)
				if method == "_exec" {
					l, d = l[:len(l)-1], d[:len(d)-1]
				}
				tests, drvTests = append(tests, l...), append(drvTests, d...)
				for range l {
					counted = append(counted, method == "_result")
				}
			}
			run := func(conn *Conn, sql string, count bool) string {
				if !count {
					return errText(conn.Exec(sql))
				}
				n, err := conn.ExecResult(sql)
				return fmt.Sprintf("%d %s", n, errText(err))
			}
			for i, tc := range tests {
				want := run(drv, drvTests[i].sql, counted[i])
				got := run(lean, tc.sql, counted[i])
				if got != want {
					t.Errorf("%s (counted %v): lean path %s, driver %s", tc.name, counted[i], got, want)
				}
				for _, conn := range []*Conn{lean, drv} {
					if tc.name == "over max_allowed_packet" {
						if err := conn.Exec("DO 1"); err == nil {
							t.Errorf("%s: the connection still works", tc.name)
						}
						continue
					}
					if v, err := conn.QueryStrings("SELECT 'next'"); err != nil || len(v) != 1 || v[0] != "next" {
						t.Errorf("%s: after it: %v %v", tc.name, v, errText(err))
					}
				}
			}
		})
	}
	for name, c := range leanConnectors(t) {
		t.Run(name+"/allocations", func(t *testing.T) {
			lean, _ := leanPair(t, c.conn, c.slot)
			var failed error
			n := testing.AllocsPerRun(200, func() {
				for _, s := range []string{"DO 1", "SELECT seq FROM mysql.seq_1_to_10"} {
					if err := lean.Exec(s); err != nil {
						failed = err
					}
				}
			})
			if failed != nil {
				t.Fatal(failed)
			}
			if n != 0 {
				t.Errorf("%v allocations per two statements", n)
			}
		})
	}
}
