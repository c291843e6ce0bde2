package engine

import (
	"errors"
	"os"
	"runtime"
	"syscall"
	"testing"
)

// TestRaiseThreadPriority: the calling thread alone moves raisedRingSteps
// nice steps up; the process's other threads keep theirs. Where the
// process may not raise (no CAP_SYS_NICE, RLIMIT_NICE too low) the call
// fails with EPERM or EACCES and changes nothing, and mayRaise says so.
func TestRaiseThreadPriority(t *testing.T) {
	before, err := threadNice(os.Getpid())
	if err != nil {
		t.Fatal(err)
	}
	type outcome struct {
		err           error
		before, after int
	}
	done := make(chan outcome)
	go func() {
		// Never unlocked: the thread ends with the goroutine, raised or not.
		runtime.LockOSThread()
		tid := syscall.Gettid()
		var o outcome
		o.before, _ = threadNice(tid)
		o.err = raiseThreadPriority(raisedRingSteps)
		o.after, _ = threadNice(tid)
		done <- o
	}()
	o := <-done
	switch {
	case o.err == nil:
		if want := max(o.before-raisedRingSteps, -20); o.after != want {
			t.Errorf("thread nice %d after the raise, want %d (from %d)", o.after, want, o.before)
		}
		if !mayRaise() {
			t.Error("the raise succeeded but mayRaise says it would not")
		}
	case errors.Is(o.err, syscall.EPERM) || errors.Is(o.err, syscall.EACCES):
		if os.Geteuid() == 0 {
			t.Logf("root without CAP_SYS_NICE: %v", o.err)
		}
		if o.after != o.before {
			t.Errorf("a refused raise moved the thread's nice from %d to %d", o.before, o.after)
		}
		if mayRaise() {
			t.Error("the raise was refused but mayRaise says it would not be")
		}
	default:
		t.Fatalf("raiseThreadPriority: %v", o.err)
	}
	if after, err := threadNice(os.Getpid()); err != nil || after != before {
		t.Errorf("the process's main thread's nice went from %d to %d (%v): only the calling thread may change", before, after, err)
	}
}
