package shard

import (
	"context"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/goslap/goslap/internal/mysqlconn"
	"github.com/goslap/goslap/internal/testserver"
	"github.com/goslap/goslap/internal/testserver/servertest"
)

func TestMain(m *testing.M) { servertest.Main(m, testserver.Config{}, nil) }

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
	s = &Starter{Spec: Spec{0, 2}, At: StartAt{At: time.Now().Add(150 * time.Millisecond)}, RunID: "late", DB: conn(t)}
	t0 := time.Now()
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
