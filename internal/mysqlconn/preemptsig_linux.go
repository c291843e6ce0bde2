package mysqlconn

import (
	"syscall"
	"unsafe"
)

// sigPreempt is the signal the runtime preempts goroutines with (SIGURG,
// whose number differs between architectures).
const sigPreempt = syscall.SIGURG

// rt_sigprocmask(2)'s how.
const (
	sigBlock   = 0 // SIG_BLOCK
	sigUnblock = 1 // SIG_UNBLOCK
)

// blockPreemptSignal blocks (or unblocks) the runtime's preemption signal
// on the calling thread, a threaded client's locked one (a load of two or
// more threaded clients; a mask cannot follow one client's unlocked
// goroutine from thread to thread, so it leaves the mask alone).
//
// Why: the client's raw system calls (threads.go) never leave the
// running state, so sysmon takes every client for a goroutine that has
// run 10 ms without a break and signals its thread (tgkill, ~0.09 per
// oltp_read_only transaction at 4 clients), mostly while it sleeps in
// poll(2) for a reply: the signal wakes the thread, the wait ends in EINTR
// and the client yields (readwait.go), a hand-off of its P through two
// other threads, while the reply it waits for may arrive. With the signal
// blocked the preemption request stays a flag, taken at the client's next
// function call once its reply is in (as with GODEBUG=asyncpreemptoff=1,
// for these threads only). oltp_read_only at 4 clients, 7 alternated runs
// on a loaded machine: 1.48x sysbench's tps against 1.19x with the signal;
// above the build with the signal in 4 of 6 later sets on both servers,
// within a noisy machine's spread (BENCHMARKS.md, "ro-4"). What it gives
// up: a client thread's loop without function calls is no longer
// preempted asynchronously (the clients' code has none that runs long).
//
// A stop-the-world still ends a client's wait within readTimeout: the
// poll's time-out (or SO_RCVTIMEO's) then ends it and the client yields,
// as after the signal. The signal sysmon sent stays pending, one at a time
// (the runtime sends no second before the first is handled), and is
// delivered when Leave unblocks it. Threads the runtime starts later get
// its initial mask, not this one.
func blockPreemptSignal(block bool) {
	how := sigUnblock
	if block {
		how = sigBlock
	}
	set := uint64(1) << (sigPreempt - 1)
	_, _, _ = syscall.RawSyscall6(syscall.SYS_RT_SIGPROCMASK, uintptr(how), uintptr(unsafe.Pointer(&set)), 0, 8, 0, 0)
}
