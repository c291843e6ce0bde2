package oltp

import (
	"context"
	"io"
	"testing"

	"github.com/goslap/goslap/internal/getopt"
	"github.com/goslap/goslap/internal/workload"
)

// BenchmarkEvent runs one client's events of each workload on one
// connection against the test server (a 10000-row table): ns/op is one
// event (a whole transaction for read_only/read_write), allocs/op what the
// workload and the driver allocate per event.
//
//	go test ./internal/workload/oltp -run '^$' -bench Event -benchmem -cpuprofile /tmp/oltp.prof
func BenchmarkEvent(b *testing.B) {
	for _, tc := range []struct{ name, compat string }{
		{"oltp_point_select", "1.0"}, {"oltp_read_only", "1.0"}, {"oltp_read_write", "1.0"},
		// 0.4's transaction keeps its ids for a restart after a deadlock.
		{"oltp", "0.4"},
	} {
		name := tc.name
		b.Run(name+"/"+tc.compat, func(b *testing.B) {
			s, cn, _ := session(b)
			ctx := context.Background()
			set := NewSettings()
			if err := getopt.NewParser("bench", set.Options(), io.Discard).Parse([]string{"--table-size=10000", "--sysbench-compat=" + tc.compat}, false); err != nil {
				b.Fatal(err)
			}
			wl, err := set.Build(name, workload.Common{Schema: "sbtest", Seed: 42})
			if err != nil {
				b.Fatal(err)
			}
			w := wl.(*Workload)
			p := workload.Point{Engine: "innodb", Clients: 1}
			if err := w.Setup(ctx, s, p); err != nil {
				b.Fatal(err)
			}
			defer func() {
				if err := w.Teardown(ctx, s, p); err != nil {
					b.Error(err)
				}
			}()
			it := workload.Iteration{Point: p, Number: 1}
			if err := w.BeginIteration(ctx, s, it); err != nil {
				b.Fatal(err)
			}
			l, err := w.Load(it)
			if err != nil {
				b.Fatal(err)
			}
			conn, err := cn.Connect(nil)
			if err != nil {
				b.Fatal(err)
			}
			defer conn.Close()
			c := l.Client(0)
			if err := c.Begin(conn); err != nil {
				b.Fatal(err)
			}
			b.ReportAllocs()
			b.ResetTimer()
			for range b.N {
				if _, err := c.Next(conn); err != nil {
					b.Fatal(err)
				}
			}
			b.StopTimer()
			if err := c.End(conn); err != nil {
				b.Fatal(err)
			}
		})
	}
}
