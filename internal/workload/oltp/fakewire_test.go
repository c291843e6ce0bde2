package oltp

// The OLTP client on the wire, against the in-process fake server
// (mysqlfake): what sysbench 1.0's oltp_read_write sends per event
// (oltp-spec.md §6.1, §6.4), how its statements are counted from the
// server's replies (§7.2), and what a deadlock does (§9), without mariadbd.
// The recorded sequences (sequence_test.go) bypass the connection; these
// go through Begin's prepares, the executes and the replies.

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/goslap/goslap/internal/engine"
	"github.com/goslap/goslap/internal/mysqlconn"
	"github.com/goslap/goslap/internal/mysqlconn/mysqlfake"
	"github.com/goslap/goslap/internal/workload"
)

// The statement templates of sysbench 1.0 (oltp-spec.md §6.1) for table 1.
const (
	sqlPoint    = "SELECT c FROM sbtest1 WHERE id=?"
	sqlSimple   = "SELECT c FROM sbtest1 WHERE id BETWEEN ? AND ?"
	sqlSum      = "SELECT SUM(k) FROM sbtest1 WHERE id BETWEEN ? AND ?"
	sqlOrder    = "SELECT c FROM sbtest1 WHERE id BETWEEN ? AND ? ORDER BY c"
	sqlDistinct = "SELECT DISTINCT c FROM sbtest1 WHERE id BETWEEN ? AND ? ORDER BY c"
	sqlIndex    = "UPDATE sbtest1 SET k=k+1 WHERE id=?"
	sqlNonIndex = "UPDATE sbtest1 SET c=? WHERE id=?"
	sqlDelete   = "DELETE FROM sbtest1 WHERE id=?"
	sqlInsert   = "INSERT INTO sbtest1 (id, k, c, pad) VALUES (?, ?, ?, ?)"
)

// readWrite10 is one default oltp_read_write event: BEGIN, 10 point
// selects, one of each range kind, an index and a non-index update, a
// delete and an insert, COMMIT (20 statements).
func readWrite10(points int, trx bool) []string {
	var s []string
	if trx {
		s = append(s, "BEGIN")
	}
	for range points {
		s = append(s, sqlPoint)
	}
	s = append(s, sqlSimple, sqlSum, sqlOrder, sqlDistinct, sqlIndex, sqlNonIndex, sqlDelete, sqlInsert)
	if trx {
		s = append(s, "COMMIT")
	}
	return s
}

// sysbenchServer answers as a server holding the tables would: a row for
// a SELECT, one row changed by a DML statement (none when noChange), OK
// to the rest; fail, when set, may replace the reply.
func sysbenchServer(noChange bool, fail func(q mysqlfake.Query) mysqlfake.Reply) mysqlfake.Handler {
	return func(q mysqlfake.Query) mysqlfake.Reply {
		if fail != nil {
			if r := fail(q); r != nil {
				return r
			}
		}
		if q.Kind == mysqlfake.KindPrepare {
			return nil
		}
		switch verb, _, _ := strings.Cut(q.SQL, " "); verb {
		case "SELECT":
			return mysqlfake.Rows{Columns: []string{"c"}, Values: [][]any{{"12345678901-"}}}
		case "UPDATE", "DELETE", "INSERT":
			if noChange {
				return mysqlfake.OK{}
			}
			return mysqlfake.OK{Affected: 1}
		}
		return mysqlfake.OK{}
	}
}

// fakeClient is client 0 of the workload built from words, begun on a
// connection to s.
func fakeClient(t testing.TB, s *mysqlfake.Server, name string, words ...string) *client {
	t.Helper()
	w := build(t, name, words...)
	l, err := w.Load(workload.Iteration{Point: workload.Point{Clients: 1}, Number: 1})
	if err != nil {
		t.Fatal(err)
	}
	cn, err := mysqlconn.NewConnector(s.Config(), "")
	if err != nil {
		t.Fatal(err)
	}
	conn, err := cn.Connect(nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(conn.Close)
	c := l.Client(0).(*client)
	if err := c.Begin(conn); err != nil {
		t.Fatal(err)
	}
	return c
}

// sentSQL is the SQL of the log's commands of kind k (-1: executes and
// queries, the statements an event sends).
func sentSQL(log []mysqlfake.Query, k mysqlfake.Kind) []string {
	var out []string
	for _, q := range log {
		if q.Kind == k || k < 0 && (q.Kind == mysqlfake.KindExecute || q.Kind == mysqlfake.KindQuery) {
			out = append(out, q.SQL)
		}
	}
	return out
}

// TestReadWriteOnTheWire: one oltp_read_write event sends sysbench 1.0's
// statements in its order, prepared once per connection and executed
// (text with --db-ps-mode=disable), and counts them by the server's
// replies: a result set is a read, a changed row a write, the rest other.
func TestReadWriteOnTheWire(t *testing.T) {
	for _, tc := range []struct {
		name     string
		words    []string
		noChange bool // the DML statements change no row
		want     []string
		prepared bool
		r, w, o  uint64
	}{
		{"defaults", nil, false, readWrite10(10, true), true, 14, 4, 2},
		{"no row changed", nil, true, readWrite10(10, true), true, 14, 0, 6},
		{"skip-trx, 3 points", []string{"--skip-trx", "--point-selects=3"}, false, readWrite10(3, false), true, 7, 4, 0},
		{"text protocol", []string{"--db-ps-mode=disable"}, false, readWrite10(10, true), false, 14, 4, 2},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := mysqlfake.Start(t, sysbenchServer(tc.noChange, nil), mysqlfake.Options{})
			words := append([]string{"--tables=1", "--table-size=10000"}, tc.words...)
			c := fakeClient(t, s, "oltp_read_write", words...)
			prepares := sentSQL(s.Log(), mysqlfake.KindPrepare)
			s.ResetLog()
			if _, err := c.Next(nil); err != nil {
				t.Fatal(err)
			}
			log := s.Log()

			// Which statements, in which order, prepared or not.
			var got []string
			for i, q := range log {
				got = append(got, q.SQL)
				want := mysqlfake.KindQuery
				if tc.prepared {
					want = mysqlfake.KindExecute
				}
				if q.Kind != want {
					t.Errorf("statement %d (%s) sent as %v, want %v", i, q.SQL, q.Kind, want)
				}
			}
			if tc.prepared {
				if !slices.Equal(got, tc.want) {
					t.Errorf("event sent\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(tc.want, "\n"))
				}
				// Each statement the event uses prepared once, on Begin.
				uniq := slices.Compact(slices.Sorted(slices.Values(tc.want)))
				if p := slices.Sorted(slices.Values(prepares)); !slices.Equal(p, uniq) {
					t.Errorf("prepared\n%s\nwant\n%s", strings.Join(p, "\n"), strings.Join(uniq, "\n"))
				}
			} else {
				if len(prepares) != 0 {
					t.Errorf("prepared %q with --db-ps-mode=disable", prepares)
				}
				if len(got) != len(tc.want) {
					t.Fatalf("event sent %d statements, want %d:\n%s", len(got), len(tc.want), strings.Join(got, "\n"))
				}
				for i, sql := range got {
					// The template with the values inlined: same words up to the first value.
					stem, _, _ := strings.Cut(tc.want[i], "?")
					if !strings.HasPrefix(sql, stem) || strings.Contains(sql, "?") {
						t.Errorf("statement %d: %q, want %q with values inlined", i, sql, tc.want[i])
					}
				}
			}

			if tc.prepared {
				checkArgs(t, log)
			}
			if tl := c.Tally(); tl.Reads != tc.r || tl.Writes != tc.w || tl.Other != tc.o {
				t.Errorf("r/w/o = %d/%d/%d, want %d/%d/%d", tl.Reads, tl.Writes, tl.Other, tc.r, tc.w, tc.o)
			}
		})
	}
}

// checkArgs checks an event's bound values against §6.1: ids in the
// table, ranges of range_size ids, a 119-character c, the insert reusing
// the deleted id with a 59-character pad; and that an execute with the
// types of the statement's previous one leaves them out.
func checkArgs(t *testing.T, log []mysqlfake.Query) {
	t.Helper()
	id := func(v any) int64 {
		n, ok := v.(int64)
		if !ok || n < 1 || n > 10000 {
			t.Errorf("id %#v, want an int64 in 1..10000", v)
		}
		return n
	}
	var deleted int64
	typesSeen := map[string]bool{}
	for _, q := range log {
		if q.Kind != mysqlfake.KindExecute || len(q.Args) == 0 {
			continue
		}
		if q.TypesSent == typesSeen[q.SQL] {
			t.Errorf("%s: types sent %v, after a first execute %v", q.SQL, q.TypesSent, typesSeen[q.SQL])
		}
		typesSeen[q.SQL] = true
		switch q.SQL {
		case sqlPoint, sqlIndex:
			id(q.Args[0])
		case sqlSimple, sqlSum, sqlOrder, sqlDistinct:
			if a, b := id(q.Args[0]), q.Args[1]; b != a+99 {
				t.Errorf("%s: range %d..%v, want 100 ids", q.SQL, a, b)
			}
		case sqlNonIndex:
			if c, ok := q.Args[0].(string); !ok || len(c) != 119 {
				t.Errorf("%s: c %#v, want 119 characters", q.SQL, q.Args[0])
			}
			id(q.Args[1])
		case sqlDelete:
			deleted = id(q.Args[0])
		case sqlInsert:
			c, _ := q.Args[2].(string)
			pad, _ := q.Args[3].(string)
			if q.Args[0] != deleted || len(c) != 119 || len(pad) != 59 {
				t.Errorf("%s: %#v, want the deleted id %d, a k, 119 and 59 characters", q.SQL, q.Args, deleted)
			}
			id(q.Args[1])
		default:
			t.Errorf("unexpected execute %s", q.SQL)
		}
	}
}

// TestDeadlockOnTheWire: a deadlock (1213) in the middle of an event
// ends it with the server's error; the client rolls back the transaction
// it opened (dialect 1.0) and the statements the server executed before
// stay counted, the failing one not (§7.2); the next event starts again
// with BEGIN. In a run whose ignore list holds 1213 (sysbench's default)
// the engine restarts the event with new random values and counts the
// error (§9).
// deadlock is the server's 1213.
var deadlock = mysqlfake.Err{Code: 1213, State: "40001", Message: "Deadlock found when trying to get lock; try restarting transaction"}

func TestDeadlockOnTheWire(t *testing.T) {
	for _, tc := range []struct {
		name    string
		at      string // the statement that deadlocks
		words   []string
		r, w, o uint64 // counted by the failed event
		sent    int    // statements the failed event sent, the failing one included
		cleanup string // what the client sends after the failure ("" nothing)
	}{
		{"index update", sqlIndex, nil, 14, 0, 1, 16, "ROLLBACK"},
		{"insert", sqlInsert, nil, 14, 3, 1, 19, "ROLLBACK"},
		{"commit", "COMMIT", nil, 14, 4, 1, 20, "ROLLBACK"},
		{"skip-trx: nothing to roll back", sqlDelete, []string{"--skip-trx"}, 14, 2, 0, 17, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var armed atomic.Bool
			armed.Store(true)
			s := mysqlfake.Start(t, sysbenchServer(false, func(q mysqlfake.Query) mysqlfake.Reply {
				if q.Kind != mysqlfake.KindPrepare && q.SQL == tc.at && armed.CompareAndSwap(true, false) {
					return deadlock
				}
				return nil
			}), mysqlfake.Options{})
			c := fakeClient(t, s, "oltp_read_write", append([]string{"--tables=1", "--table-size=10000"}, tc.words...)...)
			s.ResetLog()
			_, err := c.Next(nil)
			if Code(err) != 1213 {
				t.Fatalf("error %v, want 1213", err)
			}
			var se *StatementError
			if !errors.As(err, &se) || se.SQL != tc.at {
				t.Errorf("error %v, want it to name %s", err, tc.at)
			}
			if tl := c.Tally(); tl.Reads != tc.r || tl.Writes != tc.w || tl.Other != tc.o {
				t.Errorf("r/w/o = %d/%d/%d, want %d/%d/%d", tl.Reads, tl.Writes, tl.Other, tc.r, tc.w, tc.o)
			}
			log := sentSQL(s.Log(), -1)
			after := log[min(tc.sent, len(log)):]
			if len(log) < tc.sent || log[tc.sent-1] != tc.at {
				t.Fatalf("the failed event sent\n%s\nwant %d statements ending with %s", strings.Join(log, "\n"), tc.sent, tc.at)
			}
			if tc.cleanup != "" && !slices.Equal(after, []string{tc.cleanup}) || tc.cleanup == "" && len(after) != 0 {
				t.Errorf("after the deadlock the client sent %q, want %q", after, tc.cleanup)
			}
			s.ResetLog()
			if _, err := c.Next(nil); err != nil {
				t.Fatal(err)
			}
			want := readWrite10(10, tc.cleanup != "")
			if got := sentSQL(s.Log(), -1); !slices.Equal(got, want) {
				t.Errorf("the next event sent\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
			}
		})
	}

	// Through the engine, on both client paths: 1213 ignored, every 7th
	// index update deadlocks.
	for _, path := range []string{"goroutines", "ring"} {
		t.Run("engine restarts the event on "+path, func(t *testing.T) {
			engineRestartsTheEvent(t, path == "ring")
		})
	}
}

// engineRestartsTheEvent is TestDeadlockOnTheWire's engine case on the
// goroutine path or the ring path (GOSLAP_RING=1).
func engineRestartsTheEvent(t *testing.T, onRing bool) {
	t.Setenv(engine.RingEnv, map[bool]string{false: "0", true: "1"}[onRing])
	ring0 := engine.RingClients()
	{
		var updates atomic.Int64
		s := mysqlfake.Start(t, sysbenchServer(false, func(q mysqlfake.Query) mysqlfake.Reply {
			if q.Kind == mysqlfake.KindExecute && q.SQL == sqlIndex && updates.Add(1)%7 == 0 {
				return deadlock
			}
			return nil
		}), mysqlfake.Options{})
		w := build(t, "oltp_read_write", "--tables=1", "--table-size=10000")
		it := workload.Iteration{Point: workload.Point{Clients: 2}, Number: 1}
		l, err := w.Load(it)
		if err != nil {
			t.Fatal(err)
		}
		cn, err := mysqlconn.NewConnector(s.Config(), "")
		if err != nil {
			t.Fatal(err)
		}
		const events = 40
		b, err := engine.Run(context.Background(), engine.Plan{Connector: cn, Workload: w, Load: l, Iteration: it,
			Clients: 2, Events: events, Ignore: func(code uint16) bool { return code == 1213 }})
		if err != nil {
			t.Fatal(err)
		}
		deadlocks := uint64(updates.Load() / 7)
		if b.Events != events || b.Ops[0].Errors[1213] != deadlocks || b.Tally.Retries != deadlocks || deadlocks == 0 {
			t.Errorf("events %d, 1213 counted %d, retries %d; %d deadlocks sent", b.Events, b.Ops[0].Errors[1213], b.Tally.Retries, deadlocks)
		}
		// Committed events: 14/4/2 each; each failed attempt: 14 reads and BEGIN.
		if want := (events*14 + deadlocks*14); b.Tally.Reads != want {
			t.Errorf("reads %d, want %d", b.Tally.Reads, want)
		}
		if b.Tally.Writes != events*4 || b.Tally.Other != events*2+deadlocks {
			t.Errorf("writes %d, other %d; want %d, %d", b.Tally.Writes, b.Tally.Other, events*4, events*2+deadlocks)
		}
		// A restarted event draws new values: the attempt after a deadlock
		// does not repeat the failed attempt's point selects.
		byConn := map[uint32][]mysqlfake.Query{}
		for _, q := range s.Log() {
			byConn[q.Conn] = append(byConn[q.Conn], q)
		}
		var restarts int
		for _, qs := range byConn {
			var failed, restarted []string
			phase := 0 // 0 before a deadlock, 1 in the failed attempt's ROLLBACK, 2 in the restart
			var attempt []string
			for _, q := range qs {
				switch {
				case q.SQL == "BEGIN":
					if phase == 1 {
						phase = 2
						restarted = nil
					}
					attempt = nil
				case q.SQL == "ROLLBACK":
					failed, phase = attempt, 1
				case q.SQL == sqlPoint && q.Kind == mysqlfake.KindExecute:
					v := fmt.Sprint(q.Args[0])
					attempt = append(attempt, v)
					if phase == 2 {
						restarted = append(restarted, v)
					}
				case q.SQL == "COMMIT" && phase == 2:
					restarts++
					if slices.Equal(failed, restarted) {
						t.Errorf("the restarted event repeated the failed attempt's ids %v", failed)
					}
					phase = 0
				}
			}
		}
		if restarts == 0 {
			t.Error("no restarted event seen in the log")
		}
		if took := engine.RingClients() - ring0; onRing != (took == 2) {
			t.Errorf("%d clients on the ring", took)
		}
	}
}
