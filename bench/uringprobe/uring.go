package main

import (
	"errors"
	"fmt"
	"os"
	"slices"
	"sync/atomic"
	"syscall"
	"unsafe"
)

// A minimal io_uring over raw system calls: setup, the three mmaps, SQE
// preparation for SEND and RECV, submit-and-wait, and reaping the
// completion queue. The ring's head and tail words are shared with the
// kernel; sync/atomic's loads and stores give the acquire/release order the
// io_uring ABI asks for (liburing uses the same barriers).
//
// Why raw calls rather than a library from the module proxy
// (pawelgaczynski/giouring, iceber/iouring-go): the probe needs six
// operations, a library would be a new module in go.mod for a benchmark
// tool, and the raw code shows exactly what each reply costs.

const (
	sysIOUringSetup = 425
	sysIOUringEnter = 426

	ioringOffSQRing = 0
	ioringOffCQRing = 0x8000000
	ioringOffSQEs   = 0x10000000

	ioringEnterGetEvents = 1 << 0

	ioringSetupCoopTaskrun  = 1 << 8
	ioringSetupSingleIssuer = 1 << 12
	ioringSetupDeferTaskrun = 1 << 13

	ioringOpSend = 26
	ioringOpRecv = 27
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

type ring struct {
	fd int

	sqHead, sqTail *uint32
	sqMask         uint32
	sqArray        []uint32
	sqes           []sqe
	sqLocalTail    uint32 // SQEs prepared, not yet published

	cqHead, cqTail *uint32
	cqMask         uint32
	cqes           []cqe

	maps [][]byte
	mode string // the setup flags the kernel accepted
}

// newRing sets a ring of entries SQEs up. It asks for single-issuer with
// deferred task work (completions are run only inside io_uring_enter, on the
// submitting thread: no interrupts of the loop), then cooperative task
// work, then no flags, taking the first the kernel accepts.
func newRing(entries uint32) (*ring, error) {
	var p uringParams
	var fd uintptr
	var errno syscall.Errno
	modes := []setupMode{
		{ioringSetupSingleIssuer | ioringSetupDeferTaskrun, "single-issuer+defer-taskrun"},
		{ioringSetupCoopTaskrun, "coop-taskrun"},
		{0, "plain"},
	}
	if m := os.Getenv("URINGPROBE_SETUP"); m != "" { // for experiments: plain, coop-taskrun
		modes = slices.DeleteFunc(modes, func(s setupMode) bool { return s.name != m })
	}
	var mode string
	for _, m := range modes {
		p = uringParams{flags: m.flags}
		fd, _, errno = syscall.Syscall(sysIOUringSetup, uintptr(entries), uintptr(unsafe.Pointer(&p)), 0)
		if errno == 0 {
			mode = m.name
			break
		}
	}
	if errno != 0 {
		return nil, fmt.Errorf("io_uring_setup: %w", errno)
	}
	r := &ring{fd: int(fd), mode: mode}
	sqSize := int(p.sqOff.array + p.sqEntries*4)
	cqSize := int(p.cqOff.cqes + p.cqEntries*uint32(unsafe.Sizeof(cqe{})))
	sq, err := syscall.Mmap(r.fd, ioringOffSQRing, sqSize, syscall.PROT_READ|syscall.PROT_WRITE, syscall.MAP_SHARED|syscall.MAP_POPULATE)
	if err != nil {
		r.close()
		return nil, fmt.Errorf("mmap SQ ring: %w", err)
	}
	r.maps = append(r.maps, sq)
	cq, err := syscall.Mmap(r.fd, ioringOffCQRing, cqSize, syscall.PROT_READ|syscall.PROT_WRITE, syscall.MAP_SHARED|syscall.MAP_POPULATE)
	if err != nil {
		r.close()
		return nil, fmt.Errorf("mmap CQ ring: %w", err)
	}
	r.maps = append(r.maps, cq)
	sqesMem, err := syscall.Mmap(r.fd, ioringOffSQEs, int(p.sqEntries)*int(unsafe.Sizeof(sqe{})), syscall.PROT_READ|syscall.PROT_WRITE, syscall.MAP_SHARED|syscall.MAP_POPULATE)
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
	return r, nil
}

// setupMode is a set of io_uring_setup flags and its name.
type setupMode struct {
	flags uint32
	name  string
}

func (r *ring) close() {
	for _, m := range r.maps {
		_ = syscall.Munmap(m)
	}
	syscall.Close(r.fd)
}

// prep fills the next SQE; the caller must not prepare more SQEs than the
// ring holds between two submits (the loops keep at most two per
// connection in flight, and size the ring for it).
func (r *ring) prep(op uint8, fd int, buf []byte, userData uint64) {
	idx := r.sqLocalTail & r.sqMask
	e := &r.sqes[idx]
	*e = sqe{opcode: op, fd: int32(fd), addr: uint64(uintptr(unsafe.Pointer(&buf[0]))), len: uint32(len(buf)), userData: userData}
	r.sqArray[idx] = idx
	r.sqLocalTail++
}

// submitAndWait publishes the prepared SQEs and enters the kernel once:
// it submits them and waits until at least minComplete completions are
// ready.
func (r *ring) submitAndWait(minComplete uint32) error {
	toSubmit := r.sqLocalTail - atomic.LoadUint32(r.sqTail)
	atomic.StoreUint32(r.sqTail, r.sqLocalTail)
	for {
		n, _, errno := syscall.Syscall6(sysIOUringEnter, uintptr(r.fd), uintptr(toSubmit), uintptr(minComplete), ioringEnterGetEvents, 0, 0)
		switch errno {
		case 0:
			if uint32(n) != toSubmit {
				return fmt.Errorf("io_uring_enter submitted %d of %d", n, toSubmit)
			}
			return nil
		case syscall.EINTR:
			// Submission happened (or not) as n says; retry waiting only.
			if int(n) >= 0 {
				toSubmit -= uint32(n)
			}
			continue
		case syscall.EAGAIN, syscall.EBUSY:
			return errors.New("io_uring_enter: completion queue full")
		default:
			return fmt.Errorf("io_uring_enter: %w", errno)
		}
	}
}

// reap calls f on every ready completion and frees their slots.
func (r *ring) reap(f func(c cqe) error) error {
	head := atomic.LoadUint32(r.cqHead)
	tail := atomic.LoadUint32(r.cqTail)
	for ; head != tail; head++ {
		c := r.cqes[head&r.cqMask]
		if err := f(c); err != nil {
			atomic.StoreUint32(r.cqHead, head+1)
			return err
		}
	}
	atomic.StoreUint32(r.cqHead, head)
	return nil
}
