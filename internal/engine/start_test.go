package engine

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/goslap/goslap/internal/mysqlconn"
	"github.com/goslap/goslap/internal/sandbox/servertest"
)

func TestStartHoldsTheClock(t *testing.T) {
	w := &scripted{next: selectOne}
	p := scriptedPlan(t, w, 4)
	p.Events = 40
	var begunAtStart int64
	var released time.Time
	p.Start = func(ctx context.Context) error {
		begunAtStart = w.begins.Load()
		if w.calls.Load() != 0 {
			t.Error("a client ran a unit before the start")
		}
		time.Sleep(100 * time.Millisecond)
		released = time.Now()
		return nil
	}
	b, err := Run(context.Background(), p)
	if err != nil {
		t.Fatal(err)
	}
	if begunAtStart != 4 {
		t.Errorf("%d of 4 clients begun when Start was called", begunAtStart)
	}
	if b.Start.Before(released) || b.Events != 40 {
		t.Errorf("measured from %v, start returned %v; %d events", b.Start, released, b.Events)
	}
}

func TestStartFailureMeasuresNothing(t *testing.T) {
	refused := errors.New("late for the shared start")
	for _, tc := range []struct {
		name   string
		start  StartFunc
		cancel bool
		want   error
	}{
		{"error", func(context.Context) error { return refused }, false, refused},
		{"interrupt", func(ctx context.Context) error { <-ctx.Done(); return ctx.Err() }, true, ErrInterrupted},
	} {
		t.Run(tc.name, func(t *testing.T) {
			w := &scripted{next: selectOne}
			p := scriptedPlan(t, w, 3)
			p.Events = 10
			p.Start = tc.start
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			if tc.cancel {
				time.AfterFunc(100*time.Millisecond, cancel)
			}
			b, err := Run(ctx, p)
			if !errors.Is(err, tc.want) || b != nil {
				t.Fatalf("Run = %v, %v; want nil, %v", b, err, tc.want)
			}
			if w.calls.Load() != 0 || w.ends.Load() != 3 {
				t.Errorf("%d units ran, %d of 3 clients ended", w.calls.Load(), w.ends.Load())
			}
		})
	}
}

// TestServerFullEndsTheConnectPhase: when the server has no connection to
// spare (1226 for an account's MAX_USER_CONNECTIONS, as 1040 for the
// server's max_connections), the first refusal ends the connect phase at
// once and every connection opened is released, instead of each failing
// client retrying for a second while the others hold theirs.
func TestServerFullEndsTheConnectPhase(t *testing.T) {
	s := servertest.Require(t)
	db, err := s.OpenDB("")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	for _, q := range []string{
		"DROP USER IF EXISTS 'limited'@'localhost'",
		"CREATE USER 'limited'@'localhost' WITH MAX_USER_CONNECTIONS 3",
		"GRANT SELECT ON *.* TO 'limited'@'localhost'",
	} {
		if _, err := db.Exec(q); err != nil {
			t.Fatal(err)
		}
	}
	defer db.Exec("DROP USER IF EXISTS 'limited'@'localhost'")
	cfg := s.RootConfig("")
	cfg.User = "limited"
	conn, err := mysqlconn.NewConnector(cfg, "")
	if err != nil {
		t.Fatal(err)
	}
	p := selectPlan(t, 40)
	p.Connector = conn
	p.Events = 100
	began := time.Now()
	b, err := Run(context.Background(), p)
	took := time.Since(began)
	var ce *ConnectError
	if !errors.As(err, &ce) || ce.Code != 1226 || b != nil {
		t.Fatalf("got %v, %v; want a 1226 connect error", b, err)
	}
	// One failing client's retries alone take connectAttempts *
	// connectBackoff (1 s).
	if took >= connectAttempts*connectBackoff/2 {
		t.Errorf("the connect phase took %v after the first refusal", took)
	}
	// Run has closed its connections; the server ends their threads a
	// moment later (it reads the close asynchronously), so a thread still
	// listed then is given half a second — a connection held open would
	// stay listed.
	var held int
	for deadline := time.Now().Add(500 * time.Millisecond); ; time.Sleep(10 * time.Millisecond) {
		if err := db.QueryRow("SELECT COUNT(*) FROM information_schema.PROCESSLIST WHERE USER = 'limited'").Scan(&held); err != nil {
			t.Fatal(err)
		}
		if held == 0 || time.Now().After(deadline) {
			break
		}
	}
	if held != 0 {
		t.Errorf("%d connections still held 0.5 s after Run returned", held)
	}
}
