package mysqlconn

import (
	"os"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"syscall"
)

// DefaultThreadBelow is the number of clients below which a load runs on
// the thread-per-client path (see Threads). It was 3, then 5 (measured
// before the poll wait, on a loaded machine); re-measured with the poll
// wait on both servers at 4, 6, 8, 12, 16 and 32 clients (BENCHMARKS.md,
// "Client paths by client count"): at 4 and 6 clients the threaded path
// gave the higher tps in every row (oltp_point_select, oltp_read_only,
// oltp_read_write, TPC-C at 4 connections; both servers), at 4 also the
// lower CPU per transaction in every row, at 6 in half of them; at 8 the
// netpoller's CPU per transaction was the lower in 7 rows of 8 (TPC-C's
// tpmC too), and from 12 in every row. 7 was not measured: it stays with
// its lower neighbour. From this count on, loads whose clients give plain
// statements take the engine's ring path (engine.RingFrom,
// internal/engine/ringchoice.go) rather than the netpoller.
const DefaultThreadBelow = 7

// ThreadBelowEnv names the environment variable that overrides
// DefaultThreadBelow (a whole number; 0 keeps every load on the netpoller
// path). It is how the test suites run once on each path, and the only
// switch `goslap sysbench` has (sysbench's command line has no room for it).
const ThreadBelowEnv = "GOSLAP_THREAD_PER_CLIENT_BELOW"

// defaultThreadBelow is DefaultThreadBelow unless ThreadBelowEnv says
// otherwise.
func defaultThreadBelow() int {
	if v, err := strconv.Atoi(strings.TrimSpace(os.Getenv(ThreadBelowEnv))); err == nil && v >= 0 {
		return v
	}
	return DefaultThreadBelow
}

// Threads is one load's choice of client path.
//
// Below the threshold every client's goroutine keeps an OS thread and a P
// to itself, and its connections become blocking sockets, out of the
// runtime's epoll set (socket.block), read and written with raw
// read(2)/write(2) (syscall.RawSyscall): the runtime never enters its
// syscall state, so the P is never handed off, no netpoller wake-up sits
// between a reply and the client, and the client's thread sleeps in the
// kernel as a C client's does. GOMAXPROCS is raised to the threaded
// clients + 1 for the load (the one spare P runs the main goroutine,
// signals and timers), since a client blocked in a raw read keeps its P.
//
// One client alone is not locked to its thread (runtime.LockOSThread),
// though it stays there while it runs. Why: sysmon takes any goroutine
// that has run 10 ms without a reschedule off its P at its next function
// call, and a client that never parks is one every 10 ms. A locked
// goroutine's yield is a hand-off through two threads (its thread gives
// the P to an idle M, which finds the goroutine locked and wakes its
// thread again: perf, 1083 such wake-ups in 2 s at 8 oltp_read_only
// clients), and with those hand-offs the server's replies woke clients on
// the other core and preempted what ran there 2.3 times per transaction,
// against 0.3 with the idle Ms pinned to a core. An unlocked goroutine's
// yield puts it back on the run queue, and its own thread (or another with
// a free P) picks it up again, with no hand-off. Unlocked against locked,
// alternated 20-second runs: oltp_read_only at 8 threads 3025-3156 tps
// against 2702-2789 (sysbench 2953-3187), oltp_point_select at 1 thread
// 15.7-16.2k against 13.2-13.9k (sysbench 12.5-13.0k) (BENCHMARKS.md,
// "The threaded client unlocked from its thread"). Without the lock, a
// per-thread signal mask cannot follow the goroutine, so the runtime's
// preemption signal is not blocked: it ends a wait in poll(2) with EINTR,
// and the client yields (readwait.go), which is now cheap.
//
// That holds for one client alone. A load of two or more threaded clients
// keeps its goroutines locked to their threads, with the preemption signal
// blocked on them (blockPreemptSignal), as before: there unlocked was the
// lower, measured against locked on both servers, medians of 5 alternated
// runs (same section): at 4 threads sysbench's rows had 0.95-1.10x
// sysbench's tps unlocked against 0.98-1.18x locked (5 of 6 row-server
// cells lower), TPC-C at 16 connections 1.04x and 0.97x tpcc_start's tpmC
// against 1.14x and 1.12x. At 1 thread unlocked had the higher tps in 5 of
// 6 cells and was level in the sixth: oltp_point_select 1.29x and 1.20x
// against 0.98x and 1.04x. Why the lock costs one client and helps several
// was not established; 2, 3, 5 and 6 clients were not measured.
//
// At and above the threshold, with compression or driver time-outs, the
// load keeps the netpoller path (non-blocking sockets, goroutines parked in
// the netpoller): thousands of Ps cost more in scheduling than the system
// calls save, and compression is not worth a second I/O path (its own CPU
// dwarfs what it saves). A connection that runs TLS (required, or
// preferred and offered by the server) keeps a netpoller socket too, its
// client still on its locked thread; with preferred TLS and a server
// without it (mysqlslap's default) the connection is plaintext and
// threaded.
//
// The netpoller path keeps GOMAXPROCS as it is. One P (one M collecting
// every ready connection from one epoll_pwait, no second P spinning) takes
// 4-20 % off its CPU per transaction at 8-64 clients but no time: tps level
// at best, the key load's wall longer, and on a loaded machine a one-thread
// client gets one thread's share of the cores. A controller that starts on
// one P and adds Ps when goslap's own CPU use saturates them was measured
// and reverted: a client starved by the machine uses less CPU, not more
// (BENCHMARKS.md, "Netpoller path: Ps and the threshold (issue 28)").
// GOMAXPROCS=1 in the environment makes that trade by hand.
//
// Both paths send the same statements through the same driver; only the
// socket's system calls differ. A nil *Threads is the netpoller path.
type Threads struct {
	on      bool
	locked  bool // clients locked to their threads, preemption signal blocked
	clients int
}

// StartThreads decides the path of a load of clients connecting through
// c: thread per client when clients < below (below < 0: the default,
// DefaultThreadBelow or ThreadBelowEnv). Call Stop when the load is over.
func (c *Connector) StartThreads(clients, below int) *Threads {
	if below < 0 {
		below = defaultThreadBelow()
	}
	t := &Threads{on: c.blockingOK && clients < below, clients: clients}
	t.locked = t.on && clients > 1
	if t.on {
		procs.add(clients)
	}
	return t
}

// Threaded reports whether the load runs thread per client.
func (t *Threads) Threaded() bool { return t != nil && t.on }

// Stop ends the load's claim on Ps; GOMAXPROCS returns to its value
// before the first running threaded load.
func (t *Threads) Stop() {
	if t.Threaded() {
		t.on = false
		procs.add(-t.clients)
	}
}

// Enter starts a client of the load on the calling goroutine: on the
// threaded path, connections opened through slot become blocking, and in
// a load of two or more clients the goroutine is locked to its OS thread
// and the runtime's preemption signal blocked on that thread
// (blockPreemptSignal). Call Leave when the client ends.
func (t *Threads) Enter(slot *Slot) {
	if t.Threaded() {
		if t.locked {
			runtime.LockOSThread()
			blockPreemptSignal(true)
		}
		slot.blocking = true
	}
}

// Leave ends a client started with Enter (its connections closed).
func (t *Threads) Leave(slot *Slot) {
	if t.Threaded() {
		slot.blocking = false
		if t.locked {
			blockPreemptSignal(false)
			runtime.UnlockOSThread()
		}
	}
}

// HoldPs claims Ps for n more (n < 0: gives back -n) goroutines that keep
// their P while they wait in raw system calls, as threaded clients do: the
// engine's ring threads, whose io_uring_enter is one. GOMAXPROCS is raised
// with the threaded clients' claims, so the rest of the process keeps a P
// (with GOMAXPROCS=1, a waiting ring thread would otherwise leave the
// other goroutines only sysmon's preemption, every 10-20 ms).
func HoldPs(n int) { procs.add(n) }

// procs is GOMAXPROCS across the threaded loads running at once (sharded
// runs start several engines in one process): raised to their clients + 1,
// restored when the last one stops.
var procs procCount

type procCount struct {
	sync.Mutex
	clients int // threaded clients of the running loads, and HoldPs's claims
	base    int // GOMAXPROCS before the first of them
}

func (p *procCount) add(n int) {
	p.Lock()
	defer p.Unlock()
	if p.clients == 0 {
		p.base = runtime.GOMAXPROCS(0)
	}
	p.clients += n
	switch want := p.clients + 1; {
	case p.clients == 0:
		runtime.GOMAXPROCS(p.base)
	case want > runtime.GOMAXPROCS(0):
		runtime.GOMAXPROCS(want)
	}
}

// readTimeout bounds one blocking wait: for a reply, the poll(2) in
// blockingRead (and SO_RCVTIMEO any blocking receive on the descriptor);
// for a write, SO_SNDTIMEO. A client blocked in a raw call holds its P, and a
// stop-the-world (GC, GOMAXPROCS) waits for every P: without a bound it
// would wait for the slowest statement to return, freezing the whole
// process (signal handling, the abort timer) meanwhile, or for good when
// the peer draining a full socket buffer is in this process and stopped.
// On expiry the call yields and is retried.
const readTimeout = 10 * 1000 // µs

// block turns the connected socket into a blocking one for the threaded
// path (after the handshake, which ran under deadlines in the netpoller),
// and takes it out of the runtime's epoll set.
//
// Why out of the epoll set: the runtime registers every net.Conn
// (edge-triggered) for good. While any runtime timer is pending (--rate's
// pacing, a test binary's time-out, the standard library's own), an idle M
// waits for it in epoll_pwait, and every reply a threaded client received
// woke that M for nothing: one more wake-up and context switch per
// transaction on a machine whose cores the server shares (BENCHMARKS.md,
// "Client cost: thread-per-client sockets off the netpoller"). So the
// connection moves to a duplicate of the descriptor, held by an os.File
// made from it while blocking (not pollable, never registered), and the
// registered net.Conn is closed: the runtime deletes it from its epoll set
// (EPOLL_CTL_DEL) before close(2), while the socket stays open through the
// duplicate. Deadlines are gone with the net.Conn; the threaded path never
// had any after the handshake (driver time-outs keep a load on the
// netpoller path), and Break/Cut end a wait with shutdown(2) as before.
func (t *socket) block() error {
	if t.raw == nil {
		return nil
	}
	var err error
	own := -1
	cerr := t.raw.Control(func(fd uintptr) {
		if err = syscall.SetNonblock(int(fd), false); err != nil {
			err = os.NewSyscallError("fcntl", err)
			return
		}
		tv := syscall.Timeval{Usec: readTimeout}
		for _, opt := range []int{syscall.SO_RCVTIMEO, syscall.SO_SNDTIMEO} {
			if err = syscall.SetsockoptTimeval(int(fd), syscall.SOL_SOCKET, opt, &tv); err != nil {
				err = os.NewSyscallError("setsockopt", err)
				return
			}
		}
		// O_NONBLOCK and the time-outs belong to the open socket, which
		// the duplicate shares.
		r, _, e := syscall.Syscall(syscall.SYS_FCNTL, fd, syscall.F_DUPFD_CLOEXEC, 0)
		if e != 0 {
			err = os.NewSyscallError("dup", e)
			return
		}
		own = int(r)
	})
	if err == nil {
		err = cerr
	}
	if err != nil {
		if own >= 0 {
			_ = syscall.Close(own)
		}
		return t.opErr("set blocking", err)
	}
	// The address stays readable on the closed net.Conn (opErr).
	t.own.Store(os.NewFile(uintptr(own), "mysql socket"))
	t.fd = own
	t.blocking = true
	_ = t.Conn.Close()
	return nil
}

// shutdown wakes whatever waits on the socket (Slot.Break, Conn.Cut): a raw
// wait in poll(2) or write(2) is not woken by close(2) from another thread
// (and closing would free the descriptor number while the owner still uses
// it), shutdown(2) makes it return end of stream; a netpoller wait is woken
// too. The owner closes the socket. Both descriptors are used through their
// reference-counted holders (net.Conn's RawConn, the os.File), so a
// concurrent close by the owner can never make shutdown(2) hit a reused
// descriptor number.
func (t *socket) shutdown() {
	if t.raw == nil {
		_ = t.Conn.Close()
		return
	}
	if t.shutdownOwn() {
		return
	}
	if t.raw.Control(shutdownFD) != nil {
		// Closed: by block, which stored the duplicate first (or by the
		// owner, and then there is nothing to wake).
		t.shutdownOwn()
	}
}

// shutdownOwn shuts down the threaded path's own descriptor; false if the
// socket has none (yet).
func (t *socket) shutdownOwn() bool {
	f := t.own.Load()
	if f == nil {
		return false
	}
	if rc, err := f.SyscallConn(); err == nil {
		_ = rc.Control(shutdownFD)
	}
	return true
}

func shutdownFD(fd uintptr) { _ = syscall.Shutdown(int(fd), syscall.SHUT_RDWR) }

// Close closes the connection's descriptor: on the threaded path its own
// one, after which reads and writes go to the closed net.Conn and fail as
// on the netpoller path. Only the owner closes (the driver, from the
// client's goroutine); other goroutines use shutdown.
func (t *socket) Close() error {
	if f := t.own.Load(); f != nil && t.blocking {
		t.blocking, t.fd = false, -1
		return f.Close()
	}
	return t.Conn.Close()
}
