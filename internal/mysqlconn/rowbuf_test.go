package mysqlconn

import (
	"bytes"
	"database/sql/driver"
	"strconv"
	"testing"
)

// TestStmtQueryRow: QueryRow reads the first row as Query does (same
// bytes for every value), keeps NULL (nil) apart from an empty value, says
// when there is no row, leaves the connection usable, and reuses its
// buffers: once grown, a read allocates no more for a 12-column row than
// for a 1-column one of the same values, nothing per row skipped, and less
// than Query by at least one slice per value.
func TestStmtQueryRow(t *testing.T) {
	const wide = "SELECT seq, seq * 1000, CAST(seq * 1.25 AS DECIMAL(10,2)), REPEAT('s', seq), " +
		"IF(seq % 2 = 0, NULL, 'odd'), '', CAST(seq / 3 AS DOUBLE), 18446744073709551615, " +
		"DATE('2026-12-04'), -seq, CONCAT('x', seq), NULL FROM mysql.seq_1_to_50 WHERE seq > ? ORDER BY seq"
	arg := func(n int64) []driver.NamedValue { return []driver.NamedValue{{Ordinal: 1, Value: n}} }
	for network, c := range serverConnectors(t) {
		t.Run(network, func(t *testing.T) {
			conn, err := c.Connect(nil)
			if err != nil {
				t.Fatal(err)
			}
			defer conn.Close()
			st, err := conn.Prepare(wide)
			if err != nil {
				t.Fatal(err)
			}
			defer st.Close()
			var row Row
			for _, from := range []int64{0, 1, 48, 49, 50, 100, 3} {
				want, err := st.Query(arg(from))
				if err != nil {
					t.Fatal(err)
				}
				found, err := st.QueryRow(arg(from), &row)
				if err != nil {
					t.Fatal(err)
				}
				if found != (len(want) > 0) {
					t.Fatalf("from %d: found %v, Query has %d rows", from, found, len(want))
				}
				if !found {
					continue
				}
				if len(row.Values) != len(want[0]) {
					t.Fatalf("from %d: %d values, Query %d", from, len(row.Values), len(want[0]))
				}
				for i, v := range row.Values {
					if !bytes.Equal(v, want[0][i]) {
						t.Errorf("from %d: value %d = %q, Query %q", from, i, v, want[0][i])
					}
				}
				odd := (from+1)%2 == 1
				if (row.Values[4] == nil) == odd || row.Values[5] == nil || row.Values[11] != nil {
					t.Errorf("from %d: NULL and empty values: %q %q %q", from, row.Values[4], row.Values[5], row.Values[11])
				}
			}
			// The row's columns change with the statement; the connection
			// is usable after a row was read and the rest skipped.
			if v, err := conn.QueryStrings("SELECT 'next'"); err != nil || len(v) != 1 || v[0] != "next" {
				t.Fatalf("statement after QueryRow: %v %v", v, err)
			}
			one, err := conn.Prepare("SELECT CONCAT('x', seq) FROM mysql.seq_1_to_50 WHERE seq > ? ORDER BY seq")
			if err != nil {
				t.Fatal(err)
			}
			defer one.Close()
			if found, err := one.QueryRow(arg(7), &row); err != nil || !found || len(row.Values) != 1 || string(row.Values[0]) != "x8" {
				t.Fatalf("narrower row: %v %v %q", found, err, row.Values)
			}

			var failed error
			allocs := func(f func() error) float64 {
				return testing.AllocsPerRun(50, func() {
					if err := f(); err != nil {
						failed = err
					}
				})
			}
			first := allocs(func() error { _, err := st.QueryRow(arg(49), &row); return err }) // one row
			many := allocs(func() error { _, err := st.QueryRow(arg(1), &row); return err })   // 49 rows, as many NULLs in the first
			query := allocs(func() error { _, err := st.Query(arg(49)); return err })
			if failed != nil {
				t.Fatal(failed)
			}
			if many != first {
				t.Errorf("QueryRow allocates %v for 49 rows, %v for one: the rows after the first cost", many, first)
			}
			if cols := float64(len(row.Values)); query-first < cols+1 {
				t.Errorf("QueryRow allocates %v, Query %v: want at least %v less (a row and a value slice each)", first, query, cols+1)
			}
			t.Logf("allocations per call, 12 columns: QueryRow %v (49 rows: %v), Query %v", first, many, query)
		})
	}
}

// TestStmtQueryInts: QueryInts reads the first column of every row as
// Query's values parsed, for integer and text columns, refuses a NULL,
// and reuses the caller's slices: reading 200 small integers allocates no
// more than reading 10.
func TestStmtQueryInts(t *testing.T) {
	for network, c := range serverConnectors(t) {
		t.Run(network, func(t *testing.T) {
			conn, err := c.Connect(nil)
			if err != nil {
				t.Fatal(err)
			}
			defer conn.Close()
			tests := []struct {
				name, sql string
				null      bool
			}{
				{"unsigned", "SELECT seq, 'x' FROM mysql.seq_1_to_200 WHERE seq > ?", false},
				{"negative", "SELECT -seq * 100000 FROM mysql.seq_1_to_200 WHERE seq > ?", false},
				{"text", "SELECT CAST(seq * 7919 AS CHAR) FROM mysql.seq_1_to_200 WHERE seq > ?", false},
				{"big text", "SELECT CAST(9223372036854775807 - seq AS CHAR) FROM mysql.seq_1_to_200 WHERE seq > ?", false},
				{"null", "SELECT IF(seq = 150, NULL, seq) FROM mysql.seq_1_to_200 WHERE seq > ?", true},
			}
			var ints []int64
			var buf []driver.Value
			for _, tc := range tests {
				t.Run(tc.name, func(t *testing.T) {
					st, err := conn.Prepare(tc.sql)
					if err != nil {
						t.Fatal(err)
					}
					defer st.Close()
					for _, from := range []int64{0, 190, 300} {
						args := []driver.NamedValue{{Ordinal: 1, Value: from}}
						rows, err := st.Query(args)
						if err != nil {
							t.Fatal(err)
						}
						ints, err = st.QueryInts(args, ints, &buf)
						if tc.null && from == 0 {
							if err == nil {
								t.Fatal("QueryInts took a NULL")
							}
							continue
						}
						if err != nil {
							t.Fatal(err)
						}
						if len(ints) != len(rows) {
							t.Fatalf("from %d: %d ints, Query %d rows", from, len(ints), len(rows))
						}
						for i, r := range rows {
							if want, _ := strconv.ParseInt(string(r[0]), 10, 64); ints[i] != want {
								t.Fatalf("from %d: row %d = %d, Query %q", from, i, ints[i], r[0])
							}
						}
					}
					if v, err := conn.QueryStrings("SELECT 'next'"); err != nil || len(v) != 1 || v[0] != "next" {
						t.Fatalf("statement after QueryInts: %v %v", v, err)
					}
				})
			}
			st, err := conn.Prepare("SELECT seq FROM mysql.seq_1_to_200 WHERE seq > ?")
			if err != nil {
				t.Fatal(err)
			}
			defer st.Close()
			var failed error
			allocs := func(from int64) float64 {
				args := []driver.NamedValue{{Ordinal: 1, Value: from}}
				return testing.AllocsPerRun(50, func() {
					if ints, failed = st.QueryInts(args, ints, &buf); failed == nil && len(ints) != int(200-from) {
						t.Errorf("%d ints from %d", len(ints), from)
					}
				})
			}
			few, all := allocs(190), allocs(0)
			if failed != nil {
				t.Fatal(failed)
			}
			if all != few {
				t.Errorf("QueryInts allocates %v for 200 rows, %v for 10", all, few)
			}
		})
	}
}
