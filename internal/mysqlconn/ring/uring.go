//go:build linux

package ring

import (
	"errors"
	"fmt"
	"os"
	"sync/atomic"
	"syscall"
	"time"
	"unsafe"
)

// A minimal io_uring over raw system calls: setup, the three mmaps, SQE
// preparation, submit-and-wait with a bounded wait, and reaping the
// completion queue. The ring's head and tail words are shared with the
// kernel; sync/atomic's loads and stores give the acquire/release order the
// io_uring ABI asks for (liburing uses the same barriers).
//
// Why raw calls rather than a library from the module proxy: the loop needs
// a handful of operations, and the raw code shows what each reply costs
// (bench/uringprobe measured it).

const (
	sysIOUringSetup = 425
	sysIOUringEnter = 426

	ioringOffSQRing = 0
	ioringOffCQRing = 0x8000000
	ioringOffSQEs   = 0x10000000

	ioringEnterGetEvents = 1 << 0
	ioringEnterExtArg    = 1 << 3

	ioringSetupCoopTaskrun  = 1 << 8
	ioringSetupSingleIssuer = 1 << 12
	ioringSetupDeferTaskrun = 1 << 13

	ioringFeatExtArg  = 1 << 8
	ioringFeatCQESkip = 1 << 11

	ioringOpSend = 26
	ioringOpRecv = 27

	ioringRecvsendPollFirst = 1 << 0 // in a RECV's ioprio (Linux 5.19)

	iosqeIOLink         = 1 << 2
	iosqeCQESkipSuccess = 1 << 6
	msgNoSignal         = 0x4000
	msgWaitAll          = 0x100
	disabledSysctl      = "/proc/sys/kernel/io_uring_disabled"
	getEventsArgSize    = 24 // struct io_uring_getevents_arg
)

type sqringOffsets struct {
	head, tail, ringMask, ringEntries, flags, dropped, array, resv1 uint32
	userAddr                                                        uint64
}

type cqringOffsets struct {
	head, tail, ringMask, ringEntries, overflow, cqes, flags, resv1 uint32
	userAddr                                                        uint64
}

type uringParams struct {
	sqEntries, cqEntries, flags, sqThreadCPU, sqThreadIdle, features, wqFD uint32
	resv                                                                   [3]uint32
	sqOff                                                                  sqringOffsets
	cqOff                                                                  cqringOffsets
}

type sqe struct {
	opcode   uint8
	flags    uint8
	ioprio   uint16
	fd       int32
	off      uint64
	addr     uint64
	len      uint32
	opFlags  uint32
	userData uint64
	bufIndex uint16
	pers     uint16
	spliceFD int32
	addr3    uint64
	pad      uint64
}

type cqe struct {
	userData uint64
	res      int32
	flags    uint32
}

// getEventsArg is struct io_uring_getevents_arg (IORING_ENTER_EXT_ARG):
// the wait's time limit without a timeout SQE.
type getEventsArg struct {
	sigmask   uint64
	sigmaskSz uint32
	minWaitUs uint32
	ts        uint64
}

type timespec struct{ sec, nsec int64 }

// uring is one io_uring instance. It is used by one OS thread only: the
// one that created it (IORING_SETUP_SINGLE_ISSUER).
type uring struct {
	fd int

	sqHead, sqTail *uint32
	sqMask         uint32
	sqArray        []uint32
	sqes           []sqe
	sqLocalTail    uint32 // SQEs prepared, not yet published

	cqHead, cqTail *uint32
	cqMask         uint32
	cqes           []cqe

	// The bounded wait's argument, kept here so that entering the kernel
	// allocates nothing.
	arg getEventsArg
	ts  timespec

	maps [][]byte
	mode string // the setup flags the kernel accepted

	// pollFirst: a RECV queued behind its SEND waits for the socket to
	// become readable before it tries to receive (IORING_RECVSEND_POLL_FIRST,
	// Linux 5.19, as old as the coop-taskrun mode; a kernel that took
	// only the plain mode may predate it). The reply to a statement just
	// sent is never there yet, so the receive the kernel would try first
	// always fails with EAGAIN before it arms the poll: key-16 spent
	// 0.64-0.69x mariadb-slap's client CPU with the flag against
	// 0.67-0.77x without, in five sets (BENCHMARKS.md, "A reply's receive
	// waits for the socket first").
	pollFirst bool
}

// setupMode is a set of io_uring_setup flags and its name.
type setupMode struct {
	flags uint32
	name  string
}

// setupModes are tried in order: single-issuer with deferred task work
// (completions run only inside io_uring_enter, on the loop's thread: no
// interrupt of the loop; Linux 6.1), then cooperative task work (5.19),
// then none.
var setupModes = []setupMode{
	{ioringSetupSingleIssuer | ioringSetupDeferTaskrun, "single-issuer+defer-taskrun"},
	{ioringSetupCoopTaskrun, "coop-taskrun"},
	{0, "plain"},
}

// setupSyscall is io_uring_setup; a test replaces it to see the refusals.
var setupSyscall = func(entries uint32, p *uringParams) (int, syscall.Errno) {
	fd, _, errno := syscall.Syscall(sysIOUringSetup, uintptr(entries), uintptr(unsafe.Pointer(p)), 0)
	return int(fd), errno
}

// newURing sets a ring of at least entries SQEs up, on the calling
// thread. Every failure that means "no io_uring here" wraps ErrUnavailable.
func newURing(entries uint32) (*uring, error) {
	var (
		p     uringParams
		fd    int
		errno syscall.Errno
		mode  string
	)
	for _, m := range setupModes {
		p = uringParams{flags: m.flags}
		fd, errno = setupSyscall(entries, &p)
		if errno == 0 {
			mode = m.name
			break
		}
		if errno != syscall.EINVAL {
			break // EINVAL: flags this kernel lacks; anything else is final
		}
	}
	if errno != 0 {
		switch errno {
		case syscall.ENOSYS, syscall.EPERM, syscall.EACCES, syscall.EINVAL:
			why := ""
			if b, err := os.ReadFile(disabledSysctl); err == nil && len(b) > 0 && b[0] != '0' {
				why = " (kernel.io_uring_disabled=" + string(b[:1]) + ")"
			}
			return nil, fmt.Errorf("%w: io_uring_setup: %v%s", ErrUnavailable, errno, why)
		}
		return nil, fmt.Errorf("io_uring_setup: %w", errno)
	}
	r := &uring{fd: fd, mode: mode, pollFirst: mode != "plain"}
	// The loop needs bounded waits (EXT_ARG, Linux 5.11) and SENDs whose
	// success posts nothing (CQE_SKIP, 5.17): without the latter every
	// exchange would fail with EINVAL, which would read as a broken
	// connection instead of a path to fall back from.
	for _, f := range []struct {
		bit  uint32
		name string
	}{{ioringFeatExtArg, "IORING_FEAT_EXT_ARG"}, {ioringFeatCQESkip, "IORING_FEAT_CQE_SKIP"}} {
		if p.features&f.bit == 0 {
			r.close()
			return nil, fmt.Errorf("%w: the kernel lacks %s", ErrUnavailable, f.name)
		}
	}
	sqSize := int(p.sqOff.array + p.sqEntries*4)
	cqSize := int(p.cqOff.cqes + p.cqEntries*uint32(unsafe.Sizeof(cqe{})))
	prot, flags := syscall.PROT_READ|syscall.PROT_WRITE, syscall.MAP_SHARED|syscall.MAP_POPULATE
	sq, err := syscall.Mmap(r.fd, ioringOffSQRing, sqSize, prot, flags)
	if err != nil {
		r.close()
		return nil, fmt.Errorf("mmap SQ ring: %w", err)
	}
	r.maps = append(r.maps, sq)
	cq, err := syscall.Mmap(r.fd, ioringOffCQRing, cqSize, prot, flags)
	if err != nil {
		r.close()
		return nil, fmt.Errorf("mmap CQ ring: %w", err)
	}
	r.maps = append(r.maps, cq)
	sqesMem, err := syscall.Mmap(r.fd, ioringOffSQEs, int(p.sqEntries)*int(unsafe.Sizeof(sqe{})), prot, flags)
	if err != nil {
		r.close()
		return nil, fmt.Errorf("mmap SQEs: %w", err)
	}
	r.maps = append(r.maps, sqesMem)

	r.sqHead = (*uint32)(unsafe.Pointer(&sq[p.sqOff.head]))
	r.sqTail = (*uint32)(unsafe.Pointer(&sq[p.sqOff.tail]))
	r.sqMask = *(*uint32)(unsafe.Pointer(&sq[p.sqOff.ringMask]))
	r.sqArray = unsafe.Slice((*uint32)(unsafe.Pointer(&sq[p.sqOff.array])), p.sqEntries)
	r.sqes = unsafe.Slice((*sqe)(unsafe.Pointer(&sqesMem[0])), p.sqEntries)
	r.sqLocalTail = atomic.LoadUint32(r.sqTail)
	r.cqHead = (*uint32)(unsafe.Pointer(&cq[p.cqOff.head]))
	r.cqTail = (*uint32)(unsafe.Pointer(&cq[p.cqOff.tail]))
	r.cqMask = *(*uint32)(unsafe.Pointer(&cq[p.cqOff.ringMask]))
	r.cqes = unsafe.Slice((*cqe)(unsafe.Pointer(&cq[p.cqOff.cqes])), p.cqEntries)
	r.arg.ts = uint64(uintptr(unsafe.Pointer(&r.ts)))
	return r, nil
}

func (r *uring) close() {
	for _, m := range r.maps {
		_ = syscall.Munmap(m)
	}
	r.maps = nil
	_ = syscall.Close(r.fd)
}

// reserve makes room for n more SQEs, submitting what is prepared
// (without waiting) when the SQ is too full.
func (r *uring) reserve(n uint32) error {
	if r.free() >= n {
		return nil
	}
	if err := r.enter(0, 0); err != nil {
		return err
	}
	if r.free() < n {
		return errors.New("io_uring: submission queue full")
	}
	return nil
}

func (r *uring) free() uint32 {
	return uint32(len(r.sqes)) - (r.sqLocalTail - atomic.LoadUint32(r.sqHead))
}

// next is the next SQE, cleared; the caller reserved room for it.
func (r *uring) next() *sqe {
	idx := r.sqLocalTail & r.sqMask
	e := &r.sqes[idx]
	*e = sqe{}
	r.sqArray[idx] = idx
	r.sqLocalTail++
	return e
}

// ready is the number of completions waiting to be reaped.
func (r *uring) ready() uint32 {
	return atomic.LoadUint32(r.cqTail) - atomic.LoadUint32(r.cqHead)
}

// enter publishes the prepared SQEs, submits them and, when minComplete >
// 0, waits until that many completions are ready or wait has passed (never
// longer: IORING_ENTER_EXT_ARG's time limit). A wait that times out is not
// an error.
func (r *uring) enter(minComplete uint32, wait time.Duration) error {
	atomic.StoreUint32(r.sqTail, r.sqLocalTail)
	flags := uintptr(0)
	var arg, argSize uintptr
	if minComplete > 0 {
		if wait < 0 {
			wait = 0
		}
		r.ts = timespec{sec: int64(wait / time.Second), nsec: int64(wait % time.Second)}
		flags = ioringEnterGetEvents | ioringEnterExtArg
		arg, argSize = uintptr(unsafe.Pointer(&r.arg)), getEventsArgSize
	}
	// Everything published and not yet consumed by the kernel: a partial
	// submission is retried by the next enter.
	//
	// A raw system call: the runtime is not told that the thread may block
	// (no entersyscall/exitsyscall). Through syscall.Syscall6 a wait of
	// more than sysmon's 20 µs tick had its P retaken and handed off, and
	// the return had to get one back (a futex wake-up of another thread,
	// often): 10-30 % of the ring's client CPU at 16-64 clients
	// (BENCHMARKS.md, "The ring's wait as a raw system call"). The thread
	// keeps its P while it waits, which costs nothing here: the ring
	// thread is locked to its goroutine, and the wait ends early on any
	// signal, so the runtime's preemption signal (sysmon after 10 ms, a
	// stop-the-world at once) ends it with EINTR, below, and the caller's
	// next function call yields (TestWaitYieldsToTheRuntime).
	toSubmit := r.sqLocalTail - atomic.LoadUint32(r.sqHead)
	_, _, errno := syscall.RawSyscall6(sysIOUringEnter, uintptr(r.fd), uintptr(toSubmit), uintptr(minComplete),
		flags, arg, argSize)
	switch errno {
	case 0, syscall.ETIME:
		return nil
	case syscall.EINTR:
		// A signal (the Go runtime preempts with SIGURG) cut the wait
		// short: what is ready is reaped and the caller waits again.
		return nil
	case syscall.EAGAIN, syscall.EBUSY:
		if r.ready() > 0 {
			return nil // reap first: the kernel wants CQ room
		}
	}
	return fmt.Errorf("io_uring_enter: %w", errno)
}

// reap calls f on every ready completion and frees their slots.
func (r *uring) reap(f func(c cqe)) int {
	head := atomic.LoadUint32(r.cqHead)
	tail := atomic.LoadUint32(r.cqTail)
	n := 0
	for ; head != tail; head++ {
		f(r.cqes[head&r.cqMask])
		n++
	}
	atomic.StoreUint32(r.cqHead, head)
	return n
}
