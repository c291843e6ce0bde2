package mysqlconn

import (
	"io"
	"os"
	"runtime"
	"syscall"
	"unsafe"
)

// pollIn is poll(2)'s POLLIN.
const pollIn = 0x1

// pollFd is struct pollfd.
type pollFd struct {
	fd      int32
	events  int16
	revents int16
}

// blockingRead reads a reply on the threaded path's blocking socket much as
// the C client library does: a non-blocking recv(2), and when it finds
// nothing, a wait in poll(2) for POLLIN, then the recv again (the first
// read after a request polls first: see below). The calls keep the P
// (RawSyscall).
//
// Why not one blocking read(2): a reader asleep in a Unix socket's read
// sleeps on the socket's one wait queue, which is also woken (EPOLLOUT)
// each time the server takes a request of ours off the socket and frees
// its send buffer. The read wakes up, finds no data and sleeps again: one
// context switch more in a third of TPC-C's statements (perf, sched_switch
// at 4 connections: 1.33 sleeps per read, 52 per transaction in the read
// against tpcc_start's 32 in poll). poll(2)'s wait filters wake-ups by event, so a
// client waiting for POLLIN sleeps once per reply (BENCHMARKS.md, "TPC-C
// client cost (issue 28)").
//
// The poll's time-out is readTimeout (the one SO_RCVTIMEO gives the read
// as well): a client blocked here holds its P, so a stop-the-world waits
// for it; on expiry, and after a signal (EINTR: mostly the runtime's
// preemption request), it yields to reach a safe point, then waits again.
//
// The first read after a request waits in poll(2) before its recv: the
// reply is never there yet (the server has to wake up and run the
// statement; perf: 33.5 polls per TPC-C transaction for 33.5 requests),
// so the C client's first recv is a system call that always fails.
//
// A load of one threaded client keeps one blocking read(2) per reply
// (readBlocking): there the poll's extra system calls cost more than the
// wake-ups they save. Measured on a quiet machine, 5 alternated runs, the
// poll wait against the blocking read (BENCHMARKS.md, "The poll wait by
// client count"): 1 client: oltp_point_select 0.80-0.82x the tps at 1.09-1.12x
// the CPU per transaction, the key load 1.33-1.46x the wall; 2 clients:
// oltp_point_select 1.12-1.15x the tps at 0.79-0.85x the CPU; 4 clients:
// oltp_read_only 1.12-1.47x the tps, TPC-C 0.88-0.89x the CPU.
func (t *socket) blockingRead(b []byte) (int, error) {
	if !t.pollWait {
		return t.readBlocking(b)
	}
	if t.replyDue {
		t.replyDue = false
		if err := t.pollIn(); err != nil {
			return 0, err
		}
	}
	for {
		r, _, e := syscall.RawSyscall6(sysRecvfrom, uintptr(t.fd), uintptr(unsafe.Pointer(&b[0])), uintptr(len(b)),
			syscall.MSG_DONTWAIT, 0, 0)
		switch e {
		case 0:
			if r == 0 {
				return 0, io.EOF
			}
			return int(r), nil
		case syscall.EAGAIN:
			if err := t.pollIn(); err != nil {
				return 0, err
			}
		case syscall.EINTR:
			runtime.Gosched()
		default:
			return 0, t.opErr("read", os.NewSyscallError("read", e))
		}
	}
}

// PollWaitFrom is the number of threaded clients from which a load's
// sockets wait for replies in poll(2) (see blockingRead).
const PollWaitFrom = 2

// readBlocking is one read(2) on the blocking socket. The call keeps the P
// (RawSyscall); SO_RCVTIMEO (readTimeout) ends a long wait with EAGAIN, a
// preemption signal with EINTR, and the read yields before it waits
// again, so a stop-the-world never waits on it for longer than
// readTimeout.
func (t *socket) readBlocking(b []byte) (int, error) {
	for {
		r, _, e := syscall.RawSyscall(syscall.SYS_READ, uintptr(t.fd), uintptr(unsafe.Pointer(&b[0])), uintptr(len(b)))
		switch e {
		case 0:
			if r == 0 {
				return 0, io.EOF
			}
			return int(r), nil
		case syscall.EINTR, syscall.EAGAIN:
			// EINTR is mostly the runtime's preemption signal: a
			// stop-the-world resends it every few µs, each one cuts the
			// blocking call short (SO_RCVTIMEO disables SA_RESTART), and a
			// loop that only retried would never reach a safe point, so
			// the whole process froze until the statement ended (a lock
			// wait: 50 s).
			runtime.Gosched()
		default:
			return 0, t.opErr("read", os.NewSyscallError("read", e))
		}
	}
}

// pollIn waits in poll(2) until the socket is readable, for at most
// readTimeout; after a time-out or a signal it yields (see blockingRead).
// Readable includes end of stream and errors, which the recv then reports.
func (t *socket) pollIn() error {
	pfd := pollFd{fd: int32(t.fd), events: pollIn}
	n, e := pollWait(&pfd, readTimeout/1000)
	if e != 0 && e != syscall.EINTR {
		return t.opErr("read", os.NewSyscallError("poll", e))
	}
	if e == syscall.EINTR || n == 0 {
		runtime.Gosched()
	}
	return nil
}
