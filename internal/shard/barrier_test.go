package shard

import (
	"context"
	"errors"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/goslap/goslap/internal/mysqlconn"
	"github.com/goslap/goslap/internal/sandbox"
	"github.com/goslap/goslap/internal/sandbox/servertest"
)

func TestMain(m *testing.M) { servertest.Main(m, sandbox.Config{}, nil) }

func conn(t *testing.T) *mysqlconn.Conn {
	t.Helper()
	s := servertest.Require(t)
	db, err := s.OpenDB("")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := db.Exec("CREATE DATABASE IF NOT EXISTS shardtest"); err != nil {
		t.Fatal(err)
	}
	db.Close()
	c, err := mysqlconn.NewConnector(s.RootConfig("shardtest"), "")
	if err != nil {
		t.Fatal(err)
	}
	cn, err := c.Connect(nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(cn.Close)
	return cn
}

// Three shards arriving 300 ms apart start at one instant: the last
// arrival + the delay, on every shard's clock.
func TestBarrierStartsTogether(t *testing.T) {
	const n = 3
	starters := make([]*Starter, n)
	for i := range starters {
		starters[i] = &Starter{Spec: Spec{i, n}, At: StartAt{Barrier: true, Delay: 200 * time.Millisecond},
			RunID: "barrier-test", DB: conn(t), Timeout: 20 * time.Second}
	}
	var wg sync.WaitGroup
	errs := make([]error, n)
	for i, s := range starters {
		wg.Add(1)
		go func() {
			defer wg.Done()
			time.Sleep(time.Duration(i) * 300 * time.Millisecond)
			errs[i] = s.Start(context.Background())
		}()
	}
	wg.Wait()
	for i, err := range errs {
		if err != nil {
			t.Fatalf("shard %d: %v", i, err)
		}
	}
	lo, hi := starters[0].Starts[0], starters[0].Starts[0]
	for _, s := range starters {
		lo, hi = minTime(lo, s.Starts[0]), maxTime(hi, s.Starts[0])
		if s.Late[0] != 0 {
			t.Errorf("shard %s late by %v", s.Spec, s.Late[0])
		}
		if s.Offset > time.Second || s.Offset < -time.Second {
			t.Errorf("clock offset %v on one machine", s.Offset)
		}
	}
	if hi.Sub(lo) > 20*time.Millisecond {
		t.Errorf("starts %v apart", hi.Sub(lo))
	}
	// Shard 0 cleans up: the run's rows and the empty table go.
	for _, s := range starters {
		if err := s.Finished(); err != nil {
			t.Fatal(err)
		}
	}
	if err := starters[0].WaitFinished(context.Background()); err != nil {
		t.Fatal(err)
	}
	if err := starters[0].Forget(); err != nil {
		t.Fatal(err)
	}
	if _, err := starters[0].DB.Query("SELECT 1 FROM " + BarrierTable); err == nil || !strings.Contains(err.Error(), "1146") {
		t.Errorf("barrier table still there: %v", err)
	}
}

func TestBarrierGivesUp(t *testing.T) {
	s := &Starter{Spec: Spec{1, 2}, At: StartAt{Barrier: true}, RunID: "alone", DB: conn(t), Timeout: 300 * time.Millisecond}
	err := s.WaitPrepared(context.Background())
	if err == nil || !strings.Contains(err.Error(), "waited 300ms for shard 0 to prepare the data") {
		t.Fatalf("WaitPrepared = %v", err)
	}
	err = s.Start(context.Background())
	if err == nil || !strings.Contains(err.Error(), "gave up") {
		t.Fatalf("Start = %v", err)
	}
	_ = s.Forget()
}

func TestLateStart(t *testing.T) {
	past := StartAt{At: time.Now().Add(-2 * time.Second)}
	s := &Starter{Spec: Spec{0, 2}, At: past, LateFail: true, RunID: "late", DB: conn(t)}
	if err := s.Start(context.Background()); err == nil || !strings.Contains(err.Error(), "late (--late-start=fail") {
		t.Fatalf("Start = %v", err)
	}
	s = &Starter{Spec: Spec{0, 2}, At: past, RunID: "late", DB: conn(t)}
	if err := s.Start(context.Background()); err != nil {
		t.Fatal(err)
	}
	if l := s.MaxLate(); l < 2*time.Second || l > 4*time.Second {
		t.Errorf("lateness %v, want about 2s", l)
	}
	// The connection first: opening it on a busy machine took longer than
	// the wait once, so the start looked early against a clock read after it.
	db := conn(t)
	t0 := time.Now()
	s = &Starter{Spec: Spec{0, 2}, At: StartAt{At: t0.Add(150 * time.Millisecond)}, RunID: "late", DB: db}
	if err := s.Start(context.Background()); err != nil || s.MaxLate() != 0 || time.Since(t0) < 100*time.Millisecond {
		t.Fatalf("on-time start: %v late %v after %v", err, s.MaxLate(), time.Since(t0))
	}
}

func minTime(a, b time.Time) time.Time {
	if b.Before(a) {
		return b
	}
	return a
}

func maxTime(a, b time.Time) time.Time {
	if b.After(a) {
		return b
	}
	return a
}

// A shard's abort row ends the other shards' waits at once, whichever
// they wait for; a later run with the same id does not read it.
func TestBarrierAbort(t *testing.T) {
	const n = 3
	starter := func(i int) *Starter {
		return &Starter{Spec: Spec{i, n}, At: StartAt{Barrier: true}, RunID: "abort-test", DB: conn(t), Timeout: 20 * time.Second}
	}
	s0, s1, s2 := starter(0), starter(1), starter(2)
	if err := s0.Reset(); err != nil {
		t.Fatal(err)
	}
	waits := []func() error{
		func() error { return s1.WaitPrepared(context.Background()) },
		func() error { return s2.Start(context.Background()) },
	}
	errs := make([]error, len(waits))
	took := make([]time.Duration, len(waits))
	var wg sync.WaitGroup
	for i, w := range waits {
		wg.Add(1)
		go func() {
			defer wg.Done()
			t0 := time.Now()
			errs[i] = w()
			took[i] = time.Since(t0)
		}()
	}
	time.Sleep(300 * time.Millisecond)
	cause := "goslap: Table 'x.y' doesn't exist — \"é\" `\\` 'q'\nsecond line"
	if err := s0.Abort(cause); err != nil {
		t.Fatal(err)
	}
	wg.Wait()
	want := "shard 0/3 aborted the run: Table 'x.y' doesn't exist — \"é\" `\\` 'q'"
	for i, err := range errs {
		var ab *AbortError
		if !errors.As(err, &ab) || err.Error() != want || took[i] > 2*time.Second {
			t.Errorf("wait %d: %v after %v, want %q at once", i, err, took[i], want)
		}
	}
	if s1.StoppedBy() == nil || s0.StoppedBy() != nil {
		t.Errorf("StoppedBy: shard 1 %v, shard 0 %v", s1.StoppedBy(), s0.StoppedBy())
	}
	if err := s1.CheckAborted(); err == nil || err.Error() != want {
		t.Errorf("CheckAborted = %v", err)
	}
	// A shard begun shortly after the abort still reads it (a shard 0
	// whose prepare fails at once).
	soon := starter(2)
	if err := soon.WaitPrepared(context.Background()); err == nil || err.Error() != want {
		t.Errorf("a shard begun after the abort: %v", err)
	}
	// The next run with the same id, a minute later: shard 0's Reset
	// removes the old abort row, and a shard that began before that does
	// not read it.
	if err := s0.DB.Exec("UPDATE " + BarrierTable + " SET arrived = arrived - INTERVAL 1 MINUTE WHERE run_id = 'abort-test'"); err != nil {
		t.Fatal(err)
	}
	late := starter(1)
	late.Timeout = 300 * time.Millisecond
	if err := late.WaitPrepared(context.Background()); !errors.Is(err, ErrGaveUp) {
		t.Errorf("a new run's wait = %v, want it to give up (the old abort is not its run's)", err)
	}
	// A shard of the new run aborts after its shard 0 began, before it
	// resets: the reset keeps that row.
	next0 := starter(0)
	if err := next0.mark(); err != nil {
		t.Fatal(err)
	}
	if err := late.Abort("connection refused"); err != nil {
		t.Fatal(err)
	}
	if err := next0.Reset(); err != nil {
		t.Fatal(err)
	}
	rows, err := next0.DB.Query("SELECT shard, note FROM " + BarrierTable + " WHERE run_id = 'abort-test' ORDER BY shard")
	if err != nil || len(rows) != 1 || string(rows[0][0]) != "1" || string(rows[0][1]) != "connection refused" {
		t.Errorf("after the reset: %q %v, want only shard 1's abort", rows, err)
	}
	_ = next0.Forget()
}

func TestAbortNote(t *testing.T) {
	long := strings.Repeat("é", 300)
	for _, tc := range []struct{ in, want string }{
		{"goslap: Error when connecting to server: 2002 refused", "Error when connecting to server: 2002 refused"},
		{"  one\ntwo\nthree", "one"},
		{"bad \xff byte", "bad ? byte"},
		{long, strings.Repeat("é", noteLen-3) + "..."},
		{"", ""},
	} {
		if got := AbortNote(tc.in); got != tc.want {
			t.Errorf("AbortNote(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

func TestParseAbort(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want AbortError
	}{
		{"2 interrupted", AbortError{By: Spec{2, 3}, Cause: "interrupted"}},
		{"0 Table 'a b' doesn't exist", AbortError{By: Spec{0, 3}, Cause: "Table 'a b' doesn't exist"}},
		{"1 ", AbortError{By: Spec{1, 3}, Cause: "(no message)"}},
		{"x y", AbortError{By: Spec{-1, 3}, Cause: "x y"}},
	} {
		if got := parseAbort(tc.in, 3); *got != tc.want {
			t.Errorf("parseAbort(%q) = %+v, want %+v", tc.in, *got, tc.want)
		}
	}
	if got := (&AbortError{By: Spec{2, 3}, Cause: "interrupted"}).Error(); got != "shard 2/3 aborted the run: interrupted" {
		t.Errorf("Error() = %q", got)
	}
}
