package mysqlconn

import (
	"io"
	"runtime"
	"syscall"
	"testing"
	"time"
)

// threadSwitches is the calling thread's voluntary context switches so far.
func threadSwitches(t *testing.T) int64 {
	t.Helper()
	const rusageThread = 1 // RUSAGE_THREAD
	var ru syscall.Rusage
	if err := syscall.Getrusage(rusageThread, &ru); err != nil {
		t.Fatal(err)
	}
	return int64(ru.Nvcsw)
}

// TestThreadedReadSleepsOncePerReply: a threaded client waiting for a reply
// on a Unix socket sleeps once per reply, not also when the server takes
// its request off the socket (that frees the client's send buffer, which
// wakes every sleeper on the socket's wait queue: a blocking read(2) woke
// and slept again, one context switch more in a third of TPC-C's
// statements). Each round: the request is written, the client waits in
// its read, the peer reads the request a while later and replies a while
// after that.
func TestThreadedReadSleepsOncePerReply(t *testing.T) {
	procs.add(1)
	defer procs.add(-1)
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	tc, s := socketPair(t, "unix", true)
	const rounds = 30
	served := make(chan error, 1)
	go func() {
		req := make([]byte, 64)
		for range rounds {
			time.Sleep(2 * time.Millisecond) // the client is asleep in its read
			if _, err := io.ReadFull(s, req); err != nil {
				served <- err
				return
			}
			time.Sleep(2 * time.Millisecond) // the client is asleep again, if it woke
			if _, err := s.Write(req[:16]); err != nil {
				served <- err
				return
			}
		}
		served <- nil
	}()
	req := make([]byte, 64)
	reply := make([]byte, 16)
	var sleeps int64
	for range rounds {
		if _, err := tc.Write(req); err != nil {
			t.Fatal(err)
		}
		before := threadSwitches(t)
		for got := 0; got < len(reply); {
			n, err := tc.Read(reply[got:])
			if err != nil {
				t.Fatal(err)
			}
			got += n
		}
		sleeps += threadSwitches(t) - before
	}
	if err := <-served; err != nil {
		t.Fatal(err)
	}
	// One sleep per reply, and some for the runtime's preemption signals
	// (measured at load 85 on 2 cores:
	// 1.2-1.35 per reply; with a blocking read(2) 2.2-2.45).
	if sleeps >= 2*rounds {
		t.Errorf("%d voluntary context switches waiting for %d replies, want about one per reply", sleeps, rounds)
	}
}
