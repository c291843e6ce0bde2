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
// against tpcc_start's 32 in poll), and in most statements of one client
// alone (oltp_read_write at 1 thread: 1.7 sleeps per statement, 35 per
// transaction against sysbench's 20). poll(2)'s wait filters wake-ups by
// event, so a client waiting for POLLIN sleeps once per reply (BENCHMARKS.md,
// "TPC-C client cost (issue 28)" and "One client waits in poll(2) too").
//
// One client alone waited in a blocking read(2) until 2026-12-06: measured
// on 2026-12-05, the poll cost it tps and CPU. Measured again with today's
// path (the poll before the first recv, the preemption signal blocked then),
// the read's spurious wake-ups cost one client more CPU per transaction
// than the poll's extra system call: 7-34 % more in 7 of 8 row-server
// cells (oltp_point_select, oltp_read_only, oltp_read_write, the key load;
// 2 % in tuned oltp_point_select), for 4-18 % more tps in the OLTP rows and
// a 3-5 % longer wall in the key load; with it, sysbench's rows at 1 thread
// missed the CPU goal in 5 of 6 cells (BENCHMARKS.md, "One client waits in
// poll(2) too").
//
// The poll's time-out is readTimeout: a client blocked here holds its P,
// so a stop-the-world waits for it; on expiry, and after a signal (EINTR:
// mostly the runtime's preemption request), it yields to reach a safe
// point, then waits again.
//
// The first read after a request waits in poll(2) before its recv: the
// reply is never there yet (the server has to wake up and run the
// statement; perf: 33.5 polls per TPC-C transaction for 33.5 requests),
// so the C client's first recv is a system call that always fails.
func (t *socket) blockingRead(b []byte) (int, error) {
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
