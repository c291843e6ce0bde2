package mysqlslap

import (
	"context"
	"fmt"
	"io"
	"strconv"
	"testing"
	"time"

	"github.com/goslap/goslap/internal/mysqlconn"

	"github.com/goslap/goslap/internal/sandbox"
	"github.com/goslap/goslap/internal/sandbox/servertest"
)

// Benchmarks of the per-query hot path against the package's test server
// (they skip without one). They run only under -bench:
//
//	go test ./slap -run '^$' -bench . -benchmem
//	go test ./slap -run '^$' -bench Load -benchtime 200000x -cpuprofile cpu.out -memprofile mem.out
//
// allocs/op is per executed query throughout.

const benchSchema = "goslap_bench"

// benchTable creates goslap_bench.t1 as -a --auto-generate-sql-add-autoincrement
// does, with 100 rows, and returns the key list.
func benchTable(b *testing.B, s *sandbox.Server) []string {
	b.Helper()
	db, err := s.OpenDB("")
	if err != nil {
		b.Fatal(err)
	}
	defer db.Close()
	stmts := []string{
		"DROP SCHEMA IF EXISTS " + benchSchema,
		"CREATE SCHEMA " + benchSchema,
		"CREATE TABLE " + benchSchema + ".t1 (id serial,intcol1 INT(32) ,charcol1 VARCHAR(128)) ENGINE=InnoDB",
	}
	for _, st := range stmts {
		if _, err := db.Exec(st); err != nil {
			b.Fatal(err)
		}
	}
	keys := make([]string, 100)
	for i := range keys {
		if _, err := db.Exec("INSERT INTO "+benchSchema+".t1 VALUES (NULL,?,?)", i*7919, fmt.Sprintf("%0126d", i)); err != nil {
			b.Fatal(err)
		}
		keys[i] = strconv.Itoa(i + 1)
	}
	b.Cleanup(func() {
		if db, err := s.OpenDB(""); err == nil {
			db.Exec("DROP SCHEMA IF EXISTS " + benchSchema)
			db.Close()
		}
	})
	return keys
}

// benchOptions are mysqlslap's defaults pointed at the test server.
func benchOptions(s *sandbox.Server) *Options { return serverOptions(s, benchSchema) }

func benchConn(b *testing.B, s *sandbox.Server) *mysqlconn.Conn {
	b.Helper()
	cfg, err := connectionOf(benchOptions(s)).Driver(benchSchema)
	if err != nil {
		b.Fatal(err)
	}
	cn, err := mysqlconn.NewConnector(cfg, "")
	if err != nil {
		b.Fatal(err)
	}
	c, err := cn.Connect(nil)
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(c.Close)
	return c
}

// BenchmarkExec is dbConn.exec, one statement with its results drained:
// the driver's share of a query (one round trip on one connection).
func BenchmarkExec(b *testing.B) {
	s := servertest.Require(b)
	benchTable(b, s)
	c := benchConn(b, s)
	for _, tc := range []struct{ name, stmt string }{
		{"key", "SELECT intcol1,charcol1 FROM t1 WHERE id =  '42'"},
		{"read-100rows", "SELECT intcol1,charcol1 FROM t1"},
		{"update", "UPDATE t1 SET intcol1 = 5 WHERE id =  '42'"},
		{"do", "DO 1"},
	} {
		b.Run(tc.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if err := c.Exec(tc.stmt); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkLoad is a whole goslap run of b.N auto-generated queries
// (-a --auto-generate-sql-add-autoincrement, innodb) at several
// concurrencies; ns/op and allocs/op are per query, create phase and
// connections included (amortised over b.N).
func BenchmarkLoad(b *testing.B) {
	s := servertest.Require(b)
	for _, tc := range []struct {
		load    string
		clients int
	}{{"key", 1}, {"key", 16}, {"key", 256}, {"read", 16}, {"write", 16}, {"mixed", 16}} {
		b.Run(fmt.Sprintf("%s-c%d", tc.load, tc.clients), func(b *testing.B) {
			o := benchOptions(s)
			o.AutoGenerateSQL = true
			o.AddAutoIncrement = true
			o.LoadType = tc.load
			o.Engine, o.EngineSet = "innodb", true
			o.Concurrency = strconv.Itoa(tc.clients)
			o.NumberOfQueries = uint64(max(b.N, tc.clients))
			o.Silent = true
			c, err := Validate(o, Env{Stdout: io.Discard})
			if err != nil {
				b.Fatal(err)
			}
			b.ReportAllocs()
			b.ResetTimer()
			start := time.Now()
			if _, err := Run(context.Background(), c, Output{Stdout: io.Discard, Stderr: io.Discard}); err != nil {
				b.Fatal(err)
			}
			b.ReportMetric(float64(o.NumberOfQueries)/time.Since(start).Seconds(), "queries/s")
		})
	}
}
