package interrupt

import (
	"bytes"
	"context"
	"errors"
	"os"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

// syncBuffer is a bytes.Buffer written by the watch's goroutine and read
// by the test.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// watched starts a watch whose forced exit is recorded on exits.
func watched(t *testing.T, budget, hard time.Duration) (*Watch, *syncBuffer, chan int) {
	t.Helper()
	var out syncBuffer
	exits := make(chan int, 2)
	w := start("goslap", &out, func(code int) { exits <- code }, budget, hard)
	t.Cleanup(w.Stop)
	return w, &out, exits
}

func send(t *testing.T, sig syscall.Signal) {
	t.Helper()
	if err := syscall.Kill(os.Getpid(), sig); err != nil {
		t.Fatal(err)
	}
}

func waitDone(t *testing.T, ctx context.Context, within time.Duration) {
	t.Helper()
	select {
	case <-ctx.Done():
	case <-time.After(within):
		t.Fatalf("context not done within %v", within)
	}
}

// The tests send real signals to this process, one test at a time (no
// t.Parallel): each watch's Notify catches them.

func TestEverySignalInterrupts(t *testing.T) {
	for _, sig := range []syscall.Signal{syscall.SIGINT, syscall.SIGTERM, syscall.SIGHUP, syscall.SIGQUIT} {
		t.Run(sig.String(), func(t *testing.T) {
			w, _, exits := watched(t, time.Hour, time.Hour)
			cleanup, cancel := Cleanup(w.Context())
			defer cancel()
			send(t, sig)
			waitDone(t, w.Context(), 2*time.Second)
			if !w.Interrupted() || context.Cause(w.Context()) != ErrInterrupted {
				t.Errorf("cause %v, want ErrInterrupted", context.Cause(w.Context()))
			}
			if !Is(w.Context(), nil) {
				t.Error("Is: false after the signal")
			}
			if cleanup.Err() != nil {
				t.Error("the clean-up context ended with the run's")
			}
			select {
			case code := <-exits:
				t.Errorf("exit(%d) after one signal", code)
			case <-time.After(50 * time.Millisecond):
			}
		})
	}
}

func TestCleanupHasItsTime(t *testing.T) {
	w, out, exits := watched(t, 100*time.Millisecond, time.Hour)
	cleanup, cancel := Cleanup(w.Context())
	defer cancel()
	start := time.Now()
	send(t, syscall.SIGINT)
	waitDone(t, cleanup, 2*time.Second)
	if took := time.Since(start); took < 90*time.Millisecond {
		t.Errorf("the clean-up context ended after %v, before its budget", took)
	}
	if !errors.Is(context.Cause(cleanup), ErrCleanupTime) {
		t.Errorf("cause %v, want ErrCleanupTime", context.Cause(cleanup))
	}
	if len(exits) > 0 || out.String() != "" {
		t.Errorf("forced exit or output within the budget: %q", out.String())
	}
}

func TestSecondSignalExitsSayingWhatIsLeft(t *testing.T) {
	w, out, exits := watched(t, time.Hour, time.Hour)
	w.Leaving("tables this prepare created in schema sbtest may be left: run cleanup")
	send(t, syscall.SIGTERM)
	waitDone(t, w.Context(), 2*time.Second)
	send(t, syscall.SIGINT)
	select {
	case code := <-exits:
		if code != ExitCode {
			t.Errorf("exit(%d), want %d", code, ExitCode)
		}
	case <-time.After(2 * time.Second):
		t.Fatal("no exit after the second signal")
	}
	want := "goslap: interrupted again: exiting without finishing the clean-up; tables this prepare created in schema sbtest may be left: run cleanup\ngoslap: interrupted\n"
	if out.String() != want {
		t.Errorf("stderr %q, want %q", out.String(), want)
	}
}

func TestHardDeadline(t *testing.T) {
	_, out, exits := watched(t, 50*time.Millisecond, 150*time.Millisecond)
	start := time.Now()
	send(t, syscall.SIGINT)
	select {
	case <-exits:
	case <-time.After(3 * time.Second):
		t.Fatal("no exit at the deadline")
	}
	if took := time.Since(start); took < 140*time.Millisecond {
		t.Errorf("exit after %v, before the deadline", took)
	}
	if !strings.HasPrefix(out.String(), "goslap: the clean-up did not finish in time; what this command created may be left behind\n") ||
		!strings.HasSuffix(out.String(), "\ngoslap: interrupted\n") {
		t.Errorf("stderr %q", out.String())
	}
}

func TestPatientWaits(t *testing.T) {
	w, out, exits := watched(t, 10*time.Millisecond, 50*time.Millisecond)
	w.Patient("interrupted; still stopping the sandbox, please wait")
	send(t, syscall.SIGINT)
	waitDone(t, w.Context(), 2*time.Second)
	send(t, syscall.SIGINT)
	time.Sleep(200 * time.Millisecond)
	if len(exits) > 0 {
		t.Error("a patient watch forced the exit")
	}
	if out.String() != "goslap: interrupted; still stopping the sandbox, please wait\n" {
		t.Errorf("stderr %q", out.String())
	}
}

func TestStopWithoutSignal(t *testing.T) {
	w, out, exits := watched(t, time.Hour, time.Hour)
	cleanup, cancel := Cleanup(w.Context())
	defer cancel()
	w.Stop()
	if w.Interrupted() {
		t.Error("interrupted without a signal")
	}
	waitDone(t, cleanup, time.Second)
	if len(exits) > 0 || out.String() != "" {
		t.Errorf("exit or output: %q", out.String())
	}
}

func TestCleanupWithoutWatch(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	c1, cancel1 := Cleanup(ctx)
	defer cancel1()
	if _, ok := c1.Deadline(); ok {
		t.Error("a running context's clean-up has a deadline")
	}
	cancel()
	if c1.Err() != nil {
		t.Error("the clean-up context ended with its parent")
	}
	c2, cancel2 := Cleanup(ctx)
	defer cancel2()
	if d, ok := c2.Deadline(); !ok || time.Until(d) > CleanupBudget {
		t.Errorf("an ended context's clean-up: deadline %v %v, want within %v", d, ok, CleanupBudget)
	}
}

func TestNotifyContext(t *testing.T) {
	ctx, stop := NotifyContext(context.Background())
	defer stop()
	send(t, syscall.SIGHUP)
	waitDone(t, ctx, 2*time.Second)
	if context.Cause(ctx) != ErrInterrupted {
		t.Errorf("cause %v", context.Cause(ctx))
	}
}

func TestEnd(t *testing.T) {
	var b bytes.Buffer
	if code := End(&b, "goslap"); code != 130 || b.String() != "goslap: interrupted\n" {
		t.Errorf("End: %d %q", code, b.String())
	}
}
