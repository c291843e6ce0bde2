package mysqlconn

import (
	"errors"
	"syscall"
	"testing"
	"time"

	"github.com/go-sql-driver/mysql"

	"github.com/goslap/goslap/internal/sandbox/servertest"
)

// TestThreadedNoWakeupsWithTimer: a pending runtime timer adds no context
// switch per statement on the thread-per-client path. While a timer is
// pending an idle M waits for it in the netpoller's epoll_pwait; with the
// client's socket registered there (edge-triggered), every reply woke that
// M for nothing, one more switch per statement (BENCHMARKS.md, "Client
// cost: thread-per-client sockets off the netpoller"). The measurement
// runs in a child test binary started with -test.timeout=0: the test
// binary's own time-out is a runtime timer pending all along, which would
// hide the difference.
func TestThreadedNoWakeupsWithTimer(t *testing.T) {
	dsn := servertest.UntimedChild(t, "switches per statement")
	if dsn == "" {
		return // the child measured
	}
	cfg, err := mysql.ParseDSN(dsn)
	if err != nil {
		t.Fatal(err)
	}
	c, err := NewConnector(cfg, "")
	if err != nil {
		t.Fatal(err)
	}
	th := c.StartThreads(1, 64)
	left := leaveWait()
	defer stopAfterLeave(th, left)
	type result struct {
		off, on float64
		err     error
	}
	res := make(chan result, 1)
	go func() {
		var slot Slot
		th.Enter(&slot)
		defer left.Done()
		defer th.Leave(&slot)
		conn, err := c.Connect(&slot)
		if err != nil {
			res <- result{err: err}
			return
		}
		defer conn.Close()
		// Alternated, the smallest of five each: other processes' load
		// only adds switches.
		r := result{off: 1e9, on: 1e9}
		for range 5 {
			off, err := switchesPerStatement(conn, false)
			if err != nil {
				res <- result{err: err}
				return
			}
			on, err := switchesPerStatement(conn, true)
			if err != nil {
				res <- result{err: err}
				return
			}
			r.off, r.on = min(r.off, off), min(r.on, on)
		}
		res <- r
	}()
	r := <-res
	if r.err != nil {
		t.Fatal(r.err)
	}
	t.Logf("thread per client: voluntary context switches per statement: %.2f without a pending timer, %.2f with", r.off, r.on)
	if r.on > r.off+0.15 {
		t.Errorf("a pending timer adds %.2f context switches per statement (%.2f against %.2f)", r.on-r.off, r.on, r.off)
	}
}

// switchesPerStatement runs statements on conn for 400 ms, with a runtime
// timer pending or not, and returns the process's voluntary context
// switches per statement: a wake-up in the netpoller ends in one (the M
// goes back to epoll_pwait), while the involuntary ones are the other
// processes' load on a shared machine.
func switchesPerStatement(conn *Conn, timer bool) (float64, error) {
	if timer {
		tm := time.AfterFunc(time.Hour, func() {})
		defer tm.Stop()
	}
	var r0, r1 syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &r0); err != nil {
		return 0, err
	}
	n := 0
	for end := time.Now().Add(400 * time.Millisecond); time.Now().Before(end); n++ {
		if err := conn.Exec("DO 1"); err != nil {
			return 0, err
		}
	}
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &r1); err != nil {
		return 0, err
	}
	if n == 0 {
		return 0, errors.New("no statement ran")
	}
	sw := r1.Nvcsw - r0.Nvcsw
	return float64(sw) / float64(n), nil
}
