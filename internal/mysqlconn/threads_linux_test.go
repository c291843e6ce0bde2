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

// TestThreadedClientPreemptSignal: Enter blocks the runtime's preemption
// signal only in a threaded load of two or more clients (locked to their
// threads), and only between Enter and Leave. One client alone is not
// locked (Threads) and may change threads, so a mask set on one thread
// would stay with a thread the runtime then gives other goroutines: the
// signal blocked there, one pending signal never delivered.
func TestThreadedClientPreemptSignal(t *testing.T) {
	plain := plainConnector(t)
	for _, tc := range []struct {
		name     string
		clients  int
		threaded bool
		want     bool
	}{
		{"one threaded client", 1, true, false},
		{"two threaded clients", 2, true, true},
		{"six threaded clients", 6, true, true},
		{"netpoller, one client", 1, false, false},
		{"netpoller, two clients", 2, false, false},
	} {
		below := 0
		if tc.threaded {
			below = 64
		}
		th := plain.StartThreads(tc.clients, below)
		var before, in, after bool
		done := make(chan struct{})
		go func() {
			defer close(done)
			// The test's own lock keeps the goroutine on one thread
			// throughout, so every read is of the thread Enter ran on.
			runtime.LockOSThread()
			defer runtime.UnlockOSThread()
			before = threadBlocks(t, syscall.SIGURG)
			var slot Slot
			th.Enter(&slot)
			in = threadBlocks(t, syscall.SIGURG)
			th.Leave(&slot)
			after = threadBlocks(t, syscall.SIGURG)
		}()
		<-done
		th.Stop()
		if before || in != tc.want || after {
			t.Errorf("%s: preemption signal blocked before Enter %v, inside %v (want %v), after Leave %v",
				tc.name, before, in, tc.want, after)
		}
	}
}
