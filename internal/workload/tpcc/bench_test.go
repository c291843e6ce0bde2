package tpcc

import (
	"context"
	"syscall"
	"testing"
	"time"

	"github.com/goslap/goslap/internal/workload"
)

// BenchmarkTransaction runs one client's transactions (the shared deck's
// 10/10/1/1/1 mix) on one connection against the test server, over one
// loaded warehouse: ns/op is one transaction, allocs/op what the workload,
// mysqlconn and the driver allocate per transaction, user-µs/op and
// sys-µs/op this process's CPU per transaction (rusage; the server is
// another process), which waiting on the server does not inflate. The load
// takes tens of seconds before the timer starts.
//
//	CI=true go test ./internal/workload/tpcc -run '^$' -bench Transaction -benchmem -benchtime 3000x
func BenchmarkTransaction(b *testing.B) {
	e := newEnv(b, "tpccbench")
	w := build(b, 1, e.schema)
	p := workload.Point{Clients: 1}
	if err := w.Setup(context.Background(), e.sess, p); err != nil {
		b.Fatal(err)
	}
	l, err := w.Load(workload.Iteration{Point: p, Number: 1})
	if err != nil {
		b.Fatal(err)
	}
	conn, err := e.conn.Connect(nil)
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
	user0, sys0 := cpuTimes(b)
	for range b.N {
		if _, err := c.Next(conn); err != nil {
			b.Fatal(err)
		}
	}
	b.StopTimer()
	user1, sys1 := cpuTimes(b)
	b.ReportMetric(float64((user1-user0).Microseconds())/float64(b.N), "user-µs/op")
	b.ReportMetric(float64((sys1-sys0).Microseconds())/float64(b.N), "sys-µs/op")
	if err := c.End(conn); err != nil {
		b.Fatal(err)
	}
}

// cpuTimes is this process's user and system CPU time so far.
func cpuTimes(b *testing.B) (user, sys time.Duration) {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		b.Fatal(err)
	}
	return time.Duration(ru.Utime.Nano()), time.Duration(ru.Stime.Nano())
}
