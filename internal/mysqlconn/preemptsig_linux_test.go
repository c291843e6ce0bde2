package mysqlconn

import (
	"os"
	"runtime"
	"strconv"
	"strings"
	"testing"
)

// threadBlocks reports whether the calling thread blocks signal sig
// (/proc/thread-self/status, SigBlk).
func threadBlocks(t *testing.T, sig int) bool {
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

// A threaded client's thread blocks the runtime's preemption signal
// between Enter and Leave, and only there: a netpoller-path client's
// thread and the thread after Leave keep it.
func TestThreadedClientBlocksPreemptSignal(t *testing.T) {
	for _, threaded := range []bool{true, false} {
		th := &Threads{on: threaded, clients: 1}
		var before, in, after bool
		done := make(chan struct{})
		go func() {
			defer close(done)
			// An outer lock keeps the goroutine on this thread after
			// Leave's unlock, so that "after" reads the same thread.
			runtime.LockOSThread()
			defer runtime.UnlockOSThread()
			before = threadBlocks(t, int(sigPreempt))
			var slot Slot
			th.Enter(&slot)
			in = threadBlocks(t, int(sigPreempt))
			th.Leave(&slot)
			after = threadBlocks(t, int(sigPreempt))
		}()
		<-done
		if before || in != threaded || after {
			t.Errorf("threaded %v: preemption signal blocked before Enter %v, inside %v (want %v), after Leave %v",
				threaded, before, in, threaded, after)
		}
	}
}
