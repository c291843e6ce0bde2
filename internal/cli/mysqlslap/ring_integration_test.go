package mysqlslap

import (
	"context"
	"database/sql"
	"fmt"
	"os"
	"path/filepath"
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

// TestRingLeavesLocalInfileToTheDriver: a query list with LOAD DATA LOCAL
// INFILE runs on the goroutine path whatever GOSLAP_RING says: the
// server's request for the file (a 0xFB reply) is answered by the driver,
// which the ring cannot do (it would break the connection and report a
// lost connection instead of the driver's outcome). The file is a temp
// file; the outcome (results or error) is the same on both settings, and
// no client goes on the ring.
func TestRingLeavesLocalInfileToTheDriver(t *testing.T) {
	s := servertest.Require(t)
	db := rootDB(t, s)
	file := filepath.Join(t.TempDir(), "rows.tsv")
	if err := os.WriteFile(file, []byte("1\n2\n3\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	run := func(env string) (string, int64) {
		t.Setenv(engine.RingEnv, env)
		o := slapOptions(t, s)
		o.Concurrency = "2"
		o.NumberOfQueries = 4
		withTable(o, "CREATE TABLE t (c INT)")
		o.Query, o.QuerySet = "LOAD DATA LOCAL INFILE '"+file+"' INTO TABLE t", true
		o.NoDrop = true
		dropAfter(t, db, o.CreateSchema)
		ring0 := engine.RingClients()
		r := runSlap(t, context.Background(), o)
		outcome := fmt.Sprintf("error: %v", r.err)
		if r.err == nil {
			outcome = fmt.Sprintf("executed %d, errors %d, rows %d", r.results[0].Executed, r.results[0].Errors,
				countRows(t, db, "`"+o.CreateSchema+"`.t"))
		}
		return outcome, engine.RingClients() - ring0
	}
	onGoroutines, _ := run("0")
	onRing, took := run("1")
	if onRing != onGoroutines || took != 0 {
		t.Errorf("with %s=1: %s, %d clients on the ring; with %s=0: %s (want the same, none on the ring)",
			engine.RingEnv, onRing, took, engine.RingEnv, onGoroutines)
	}
}
