package oltp

import (
	"context"
	"database/sql/driver"
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/goslap/goslap/internal/mysqlconn"
	"github.com/goslap/goslap/internal/workload"
)

// TestLeanPathOLTP: every prepared statement of oltp_read_write (1.0) and
// of 0.4's oltp returns the same through mysqlconn's lean execute path as
// through the driver's: each read's first row, row count and first column
// as integers (or the same error), each write's affected rows (or the same
// error) in a transaction rolled back after it, for 30 argument sets each.
func TestLeanPathOLTP(t *testing.T) {
	s, cn, _ := session(t)
	ctx := context.Background()
	for _, tc := range []struct{ name, compat string }{{"oltp_read_write", "1.0"}, {"oltp", "0.4"}} {
		t.Run(tc.compat, func(t *testing.T) {
			w := build(t, tc.name, "--sysbench-compat="+tc.compat, "--table-size=1000")
			p := workload.Point{}
			if err := w.Setup(ctx, s, p); err != nil {
				t.Fatal(err)
			}
			defer w.Teardown(ctx, s, p)
			it := workload.Iteration{Point: p, Number: 1}
			if err := w.BeginIteration(ctx, s, it); err != nil {
				t.Fatal(err)
			}
			ld, err := w.Load(it)
			if err != nil {
				t.Fatal(err)
			}
			l := ld.(*load)
			var conns [2]*mysqlconn.Conn
			for i, c := range []*mysqlconn.Connector{cn, cn.DriverExecute()} {
				if conns[i], err = c.Connect(nil); err != nil {
					t.Fatal(err)
				}
				defer conns[i].Close()
			}
			rng := rand.New(rand.NewPCG(1, 2))
			pad := make([]byte, 60)
			for i := range pad {
				pad[i] = 'a' + byte(i%26)
			}
			compared := 0
			for k := kind(0); k < numKinds; k++ {
				if !l.used[k] || len(l.stmts[k]) == 0 || l.stmts[k][0].text || l.stmts[k][0].params() == 0 {
					continue
				}
				d := l.stmts[k][0]
				var st [2]*mysqlconn.Stmt
				for i, conn := range conns {
					if st[i], err = conn.Prepare(d.sql); err != nil {
						t.Fatalf("%s: %v", d.sql, err)
					}
					defer st[i].Close()
				}
				if !st[0].Lean() || st[1].Lean() {
					t.Fatalf("%s: lean path %v and %v, want true and false", d.sql, st[0].Lean(), st[1].Lean())
				}
				args := make([]driver.NamedValue, d.params())
				for range 30 {
					for i := range args {
						args[i] = driver.NamedValue{Ordinal: i + 1, Value: int64(rng.IntN(1100))}
					}
					if k == kNonIndexUpdate || k == kInsert {
						// the c and pad strings where the statement has them
						for i := range args {
							if k == kInsert && i >= 2 || k == kNonIndexUpdate && i == 0 {
								args[i].Value = pad[:rng.IntN(60)]
							}
						}
					}
					var got [2]string
					for i := range st {
						got[i] = run(t, conns[i], st[i], d.result, args)
					}
					if got[0] != got[1] {
						t.Fatalf("%s %v:\nlean path %s\ndriver    %s", d.sql, args, got[0], got[1])
					}
					compared++
				}
			}
			if compared < 150 {
				t.Errorf("%d executes compared", compared)
			}
		})
	}
}

// run executes st with args through every Stmt method that fits it and
// returns what they returned, errors as text.
func run(t *testing.T, conn *mysqlconn.Conn, st *mysqlconn.Stmt, result bool, args []driver.NamedValue) string {
	t.Helper()
	if result {
		var row mysqlconn.Row
		found, err := st.QueryRow(args, &row)
		n, err2 := st.Count(args, new([]driver.Value))
		ints, err3 := st.QueryInts(args, nil, new([]driver.Value))
		err4 := st.Drain(args)
		return fmt.Sprintf("%v %q %v | %d %v | %v %v | %v", found, row.Values, err, n, err2, ints, err3, err4)
	}
	if err := conn.Exec("BEGIN"); err != nil {
		t.Fatal(err)
	}
	n, err := st.ExecAffected(args)
	if err := conn.Exec("ROLLBACK"); err != nil {
		t.Fatal(err)
	}
	return fmt.Sprintf("%d %v", n, err)
}
