package mysqlslap

import (
	"database/sql"
	"strconv"
	"testing"

	"github.com/goslap/goslap/internal/engine"
	"github.com/goslap/goslap/internal/sandbox/servertest"
)

// TestRingPathMatchesGoroutines: mysqlslap's key load and an insert load
// run on the engine's ring path (GOSLAP_RING=1) as on the goroutine path:
// the same statements counted, the same number reaching the server
// (Com_select, Com_insert), the same rows left behind, and the ring path
// really taken. Not parallel: it sets the environment (the parallel tests
// wait until it is done), and the server's counters are its own meanwhile.
func TestRingPathMatchesGoroutines(t *testing.T) {
	s := servertest.Require(t)
	db := rootDB(t, s)
	type outcome struct {
		executed, errors       uint64
		selects, inserts, rows int64
		ring                   int64
	}
	run := func(t *testing.T, env string, insert bool) outcome {
		t.Setenv(engine.RingEnv, env)
		o := slapOptions(t, s)
		o.Concurrency = "4"
		o.NumberOfQueries = 400
		if insert {
			withTable(o, "CREATE TABLE t (id INT AUTO_INCREMENT PRIMARY KEY, c INT)")
			o.Query, o.QuerySet = "INSERT INTO t (c) VALUES (1)", true
			o.NoDrop = true
			dropAfter(t, db, o.CreateSchema)
		} else {
			o.AutoGenerateSQL = true
			o.LoadType, o.AddAutoIncrement = "key", true
		}
		sel0, ins0 := status(t, db, "Com_select"), status(t, db, "Com_insert")
		ring0 := engine.RingClients()
		r := mustRun(t, o)
		out := outcome{
			executed: r.results[0].Executed, errors: r.results[0].Errors,
			selects: status(t, db, "Com_select") - sel0, inserts: status(t, db, "Com_insert") - ins0,
			ring: engine.RingClients() - ring0,
		}
		if insert {
			out.rows = int64(countRows(t, db, "`"+o.CreateSchema+"`.t"))
		}
		return out
	}
	for _, tc := range []struct {
		name   string
		insert bool
	}{{"key", false}, {"insert", true}} {
		t.Run(tc.name, func(t *testing.T) {
			onGoroutines := run(t, "0", tc.insert)
			onRing := run(t, "1", tc.insert)
			if onGoroutines.ring != 0 || onRing.ring != 4 {
				t.Errorf("clients on the ring: %d with %s=0, %d with %s=1 (want 0 and 4)",
					onGoroutines.ring, engine.RingEnv, onRing.ring, engine.RingEnv)
			}
			onRing.ring, onGoroutines.ring = 0, 0
			if onRing != onGoroutines || onRing.executed != 400 || onRing.errors != 0 {
				t.Errorf("ring path %+v, goroutine path %+v; want the same, 400 executed", onRing, onGoroutines)
			}
			if tc.insert && onRing.rows != 400 {
				t.Errorf("%d rows inserted, want 400", onRing.rows)
			}
		})
	}
}

// status is a global status counter of the server.
func status(t *testing.T, db *sql.DB, name string) int64 {
	t.Helper()
	var n, v string
	if err := db.QueryRow("SHOW GLOBAL STATUS LIKE '"+name+"'").Scan(&n, &v); err != nil {
		t.Fatal(err)
	}
	x, err := strconv.ParseInt(v, 10, 64)
	if err != nil {
		t.Fatal(err)
	}
	return x
}
