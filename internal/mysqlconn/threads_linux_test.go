package mysqlconn

import (
	"os"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"testing"
)

// threadBlocks reports whether the calling thread blocks signal sig
// (/proc/thread-self/status, SigBlk).
func threadBlocks(t *testing.T, sig syscall.Signal) bool {
	t.Helper()
	b, err := os.ReadFile("/proc/thread-self/status")
	if err != nil {
		t.Fatal(err)
	}
	for line := range strings.SplitSeq(string(b), "\n") {
		if v, ok := strings.CutPrefix(line, "SigBlk:"); ok {
			m, err := strconv.ParseUint(strings.TrimSpace(v), 16, 64)
			if err != nil {
				t.Fatal(line, err)
			}
			return m&(1<<(sig-1)) != 0
		}
	}
	t.Fatal("no SigBlk in /proc/thread-self/status")
	return false
}

// TestThreadedClientKeepsPreemptSignal: Enter leaves the thread's signal
// mask alone on both paths. A threaded client's goroutine is not locked to
// its thread (Threads), so a mask set on one thread would stay with a
// thread the runtime then gives other goroutines: the runtime's preemption
// signal (SIGURG) blocked there, one pending signal never delivered.
func TestThreadedClientKeepsPreemptSignal(t *testing.T) {
	for _, threaded := range []bool{true, false} {
		th := &Threads{on: threaded, clients: 1}
		var in bool
		done := make(chan struct{})
		go func() {
			defer close(done)
			// The test's own lock keeps the goroutine on one thread, so
			// the mask read is the thread Enter ran on.
			runtime.LockOSThread()
			defer runtime.UnlockOSThread()
			var slot Slot
			th.Enter(&slot)
			in = threadBlocks(t, syscall.SIGURG)
			if slot.blocking != threaded {
				t.Errorf("threaded %v: the slot's connections blocking: %v", threaded, slot.blocking)
			}
			th.Leave(&slot)
		}()
		<-done
		if in {
			t.Errorf("threaded %v: the preemption signal is blocked between Enter and Leave", threaded)
		}
	}
}
