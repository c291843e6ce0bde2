package mysqlconn

import (
	"database/sql/driver"
	"errors"
	"testing"

	"github.com/go-sql-driver/mysql"
)

// TestStmtDrain: Drain reads a whole result without decoding it, so the
// connection is usable afterwards, and an error the server sends after
// some rows (here a subquery that returns two rows on the third row) is
// returned, not lost in the skipped packets.
func TestStmtDrain(t *testing.T) {
	for network, c := range serverConnectors(t) {
		t.Run(network, func(t *testing.T) {
			conn, err := c.Connect(nil)
			if err != nil {
				t.Fatal(err)
			}
			defer conn.Close()
			tests := []struct {
				name, sql string
				args      []driver.NamedValue
				code      uint16 // 0: no error
			}{
				{"rows", "SELECT seq, REPEAT('x', 200) FROM mysql.seq_1_to_1000 WHERE seq > ?", []driver.NamedValue{{Ordinal: 1, Value: int64(10)}}, 0},
				{"empty", "SELECT seq FROM mysql.seq_1_to_10 WHERE seq > ?", []driver.NamedValue{{Ordinal: 1, Value: int64(100)}}, 0},
				{"error in the result", "SELECT IF(seq = 3, (SELECT 1 UNION SELECT 2), seq) FROM mysql.seq_1_to_5 WHERE seq > ?", []driver.NamedValue{{Ordinal: 1, Value: int64(0)}}, 1242},
			}
			for _, tc := range tests {
				t.Run(tc.name, func(t *testing.T) {
					st, err := conn.Prepare(tc.sql)
					if err != nil {
						t.Fatal(err)
					}
					defer st.Close()
					for range 2 { // the statement and the connection stay usable
						err := st.Drain(tc.args)
						var me *mysql.MySQLError
						switch {
						case tc.code == 0 && err != nil:
							t.Fatalf("Drain: %v", err)
						case tc.code != 0 && (!errors.As(err, &me) || me.Number != tc.code):
							t.Fatalf("Drain: %v, want server error %d", err, tc.code)
						}
						v, err := conn.QueryStrings("SELECT 'next'")
						if err != nil || len(v) != 1 || v[0] != "next" {
							t.Fatalf("statement after Drain: %v %v", v, err)
						}
					}
				})
			}
		})
	}
}
