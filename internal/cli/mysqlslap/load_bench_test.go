package mysqlslap

import (
	"context"
	"testing"

	"github.com/goslap/goslap/internal/sandbox/servertest"
)

// BenchmarkLoadSelect1 is the whole per-query cost of a client (round trip
// to the test server included, latency always recorded): compare its
// ns/op with internal/latency's BenchmarkRecord for the share of the
// measurement. go test ./slap -run XXX -bench LoadSelect1
func BenchmarkLoadSelect1(b *testing.B) {
	s := servertest.Require(b)
	for _, tmpl := range []bool{false, true} {
		name := "plain"
		if tmpl {
			name = "templates"
		}
		b.Run(name, func(b *testing.B) {
			o := &Options{LoadType: "mixed", Delimiter: "\n", Concurrency: "1", Iterations: 1, NumberCharCols: "1", NumberIntCols: "1",
				CreateSchema: "goslap_bench", Socket: s.Socket, User: "root", SSL: true}
			withTable(o, "CREATE TABLE t (id INT)")
			o.Query, o.QuerySet = "SELECT 1", true
			if tmpl {
				o.Query = "SELECT {number:1,1000}"
				o.Ext.Templates = true
			}
			o.NumberOfQueries = uint64(max(b.N, 1))
			c, err := Validate(o, Env{Stdout: discard{}})
			if err != nil {
				b.Fatal(err)
			}
			b.ResetTimer()
			res, err := Run(context.Background(), c, Output{Stdout: discard{}, Stderr: discard{}})
			if err != nil {
				b.Fatal(err)
			}
			b.ReportMetric(float64(res[0].Latency.P50), "p50-µs")
		})
	}
}

type discard struct{}

func (discard) Write(p []byte) (int, error) { return len(p), nil }
