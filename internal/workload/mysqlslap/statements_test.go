package mysqlslap

import (
	"strings"
	"testing"

	"github.com/go-sql-driver/mysql"
	"github.com/goslap/goslap/internal/mysqlconn"
	"github.com/goslap/goslap/internal/mysqlconn/mysqlfake"
	"github.com/goslap/goslap/internal/workload"
	"github.com/goslap/goslap/sqlgen"
)

// TestStatementClient: the statements Statement hands over are, unit for
// unit, those Next sends (same seed, same client id: the same keys and the
// same choice of statement), with the same ops and tally; Again repeats
// the last; a failure's reply reads as Next's error; and the clients that
// need Next say so.
func TestStatementClient(t *testing.T) {
	plain := sqlgen.Config{Query: sqlgen.Source{Text: "SELECT 1;SELECT 2;INSERT INTO t VALUES (3)", Set: true}, Delimiter: ";"}
	key := sqlgen.Config{AutoGenerate: true, LoadType: "key", AddAutoIncrement: true, Delimiter: ";"}
	mixed := sqlgen.Config{AutoGenerate: true, LoadType: "mixed", AddAutoIncrement: true, Delimiter: ";"}
	for _, tc := range []struct {
		name       string
		plan       sqlgen.Config
		keys       []string
		statements bool // Statements() wants
	}{
		{name: "a query list", plan: plain, statements: true},
		{name: "key load", plan: key, keys: []string{"k1", "k2", "k3", "k4"}, statements: true},
		{name: "key load without keys (units that send nothing)", plan: key, statements: true},
		{name: "mixed load", plan: mixed, keys: []string{"k1", "k2"}, statements: true},
		{name: "--commit", plan: func() sqlgen.Config { c := plain; c.Commit = 2; return c }()},
		{name: "--detach", plan: func() sqlgen.Config { c := plain; c.Detach = 2; return c }()},
		// The server asks the client for the file: only the driver answers.
		{name: "LOAD DATA LOCAL INFILE", plan: sqlgen.Config{Query: sqlgen.Source{Text: "SELECT 1;load data Local infile 'rows.tsv' INTO TABLE t", Set: true}, Delimiter: ";"}},
		{name: "LOAD DATA INFILE (the server's file)", plan: sqlgen.Config{Query: sqlgen.Source{Text: "LOAD DATA INFILE 'rows.tsv' INTO TABLE t", Set: true}, Delimiter: ";"}, statements: true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			const id, units = 1, 40
			load := func() *Load {
				pc := tc.plan
				pc.Concurrency, pc.Iterations, pc.Schema, pc.NumberOfQueries = "2", 1, "mysqlslap", 100
				if pc.IntCols == "" {
					pc.IntCols, pc.CharCols = "1", "1"
				}
				p, err := sqlgen.Build(pc)
				if err != nil {
					t.Fatal(err)
				}
				s, err := New(Config{Plan: p, Seed: 7})
				if err != nil {
					t.Fatal(err)
				}
				s.keys = tc.keys
				return s.NewLoad(2)
			}
			sc, ok := load().Client(id).(workload.StatementClient)
			if !ok {
				t.Fatal("mysqlslap's client is not a workload.StatementClient")
			}
			if got := sc.Statements(); got != tc.statements {
				t.Fatalf("Statements() = %v, want %v", got, tc.statements)
			}
			if !tc.statements {
				return
			}

			srv := mysqlfake.Start(t, nil, mysqlfake.Options{Unix: true})
			cn, err := mysqlconn.NewConnector(srv.Config(), "")
			if err != nil {
				t.Fatal(err)
			}
			conn, err := cn.Connect(nil)
			if err != nil {
				t.Fatal(err)
			}
			defer conn.Close()
			viaNext := load().Client(id)
			if err := viaNext.Begin(conn); err != nil {
				t.Fatal(err)
			}
			var wantOps []int
			for range units {
				step, err := viaNext.Next(conn)
				if err != nil {
					t.Fatal(err)
				}
				wantOps = append(wantOps, step.Op)
			}
			var wantTexts []string
			for _, q := range srv.Log() {
				if q.Kind == mysqlfake.KindQuery {
					wantTexts = append(wantTexts, q.SQL)
				}
			}

			var gotTexts []string
			var buf []byte
			for n := range units {
				// The engine puts the packet header first; the reply is
				// the previous statement's (none the first time).
				out, step := sc.Statement(append(buf[:0], "head"...), workload.Reply{Rows: 1})
				buf = out
				if !step.Ended || step.Err != nil {
					t.Fatalf("unit %d: %+v after a successful one-statement unit", n, step)
				}
				if step.Op != wantOps[n] || step.Skip != (step.Op == OpNone) {
					t.Fatalf("unit %d: op %d skip %v, Next's op %d", n, step.Op, step.Skip, wantOps[n])
				}
				if !strings.HasPrefix(string(out), "head") {
					t.Fatalf("unit %d: %q does not keep what dst held", n, out)
				}
				if step.Skip {
					if len(out) != len("head") {
						t.Fatalf("unit %d: skipped, but appended %q", n, out)
					}
					continue
				}
				if out[4] != 0x03 {
					t.Fatalf("unit %d: command byte %#x, want COM_QUERY", n, out[4])
				}
				gotTexts = append(gotTexts, string(out[5:]))
				// Again gives the same packet, in place or in a new buffer.
				if again := sc.Again(nil); string(again) != string(out[4:]) {
					t.Fatalf("unit %d: Again %q, Statement %q", n, again, out[4:])
				}
				if again := sc.Again(out[:4]); string(again) != string(out) {
					t.Fatalf("unit %d: Again in place %q, Statement %q", n, again, out)
				}
			}
			// The last unit's reply.
			sc.Statement(nil, workload.Reply{})
			if len(wantTexts) == 0 && (tc.keys != nil || tc.plan.Query.Set) {
				t.Fatal("Next sent nothing: the comparison would prove nothing")
			}
			if strings.Join(gotTexts, "\n") != strings.Join(wantTexts, "\n") {
				t.Errorf("Statement's texts:\n%s\nNext sent:\n%s", strings.Join(gotTexts, "\n"), strings.Join(wantTexts, "\n"))
			}
			if got, want := sc.Tally(), viaNext.Tally(); got != want {
				t.Errorf("tally %+v, Next's %+v", got, want)
			}

			// A failure reads as Next's does.
			failing := mysqlfake.Start(t, func(mysqlfake.Query) mysqlfake.Reply {
				return mysqlfake.Err{Code: 1146, State: "42S02", Message: "Table 'mysqlslap.t' doesn't exist"}
			}, mysqlfake.Options{Unix: true})
			fcn, err := mysqlconn.NewConnector(failing.Config(), "")
			if err != nil {
				t.Fatal(err)
			}
			fconn, err := fcn.Connect(nil)
			if err != nil {
				t.Fatal(err)
			}
			defer fconn.Close()
			a, b := load().Client(id), load().Client(id).(workload.StatementClient)
			_, step := b.Statement(nil, workload.Reply{})
			fail := workload.Reply{Err: &mysql.MySQLError{Number: 1146, SQLState: [5]byte{'4', '2', 'S', '0', '2'}, Message: "Table 'mysqlslap.t' doesn't exist"}}
			for n := 0; n < units; n++ {
				_, nextErr := a.Next(fconn)
				skip := step.Skip
				_, step = b.Statement(nil, fail)
				if skip {
					if nextErr != nil || step.Err != nil {
						t.Fatalf("unit %d: skipped, Next failed: %v, Statement: %v", n, nextErr, step.Err)
					}
					continue
				}
				if nextErr == nil || step.Err == nil || nextErr.Error() != step.Err.Error() || !step.Ended {
					t.Fatalf("unit %d: Statement's error %v, Next's %v", n, step.Err, nextErr)
				}
				break
			}
		})
	}
}
