package engine

import (
	"syscall"
	"time"
	"unsafe"
)

// ticker is what the reporter waits on between intervals: until a time, or
// until stop wakes it. On Linux it waits in ppoll(2) on a pipe of its own,
// an ordinary blocking system call, and never arms a runtime timer.
//
// Why not a time.Timer: while any runtime timer is pending, an idle M
// waits for it in the netpoller (epoll_pwait with the timer's delay)
// instead of sleeping on a futex, and the thread-per-client path's
// sockets, blocking but still registered in the runtime's epoll set
// (edge-triggered), wake that M on every reply a client receives. With
// the reporter's 1 s timer always pending, that was one extra wake-up and
// context switch per transaction: 0.62× the throughput of 2 clients on
// 2 cores (BENCHMARKS.md, "Interval recording"). A thread blocked in
// ppoll is no runtime timer: the idle Ms sleep on their futex as in a run
// without intervals.
type ticker struct {
	rfd, wfd int
}

func newTicker() (*ticker, error) {
	var p [2]int
	if err := syscall.Pipe2(p[:], syscall.O_CLOEXEC|syscall.O_NONBLOCK); err != nil {
		return nil, err
	}
	return &ticker{rfd: p[0], wfd: p[1]}, nil
}

// pollfd is struct pollfd of poll(2).
type pollfd struct {
	fd      int32
	events  int16
	revents int16
}

const pollIn = 0x1 // POLLIN

// until waits until t or until wake; true when woken.
func (k *ticker) until(t time.Time) bool {
	for {
		d := time.Until(t)
		if d <= 0 {
			return false
		}
		ts := syscall.NsecToTimespec(int64(d))
		pfd := pollfd{fd: int32(k.rfd), events: pollIn}
		n, _, errno := syscall.Syscall6(syscall.SYS_PPOLL, uintptr(unsafe.Pointer(&pfd)), 1,
			uintptr(unsafe.Pointer(&ts)), 0, 0, 0)
		switch {
		case errno == syscall.EINTR:
			continue // a signal: wait out the rest
		case errno != 0:
			// Cannot happen with a valid pipe; a busy loop must not
			// follow if it did.
			return true
		case n > 0:
			return true
		}
	}
}

// wake ends the current or next until at once.
func (k *ticker) wake() { _, _ = syscall.Write(k.wfd, []byte{0}) }

func (k *ticker) close() {
	_ = syscall.Close(k.rfd)
	_ = syscall.Close(k.wfd)
}
