package mysqlconn

import (
	"syscall"
	"unsafe"
)

// rawIO is the state of the netpoller path's raw read and write (rawRead,
// rawWrite): the buffer, the result and the functions handed to the
// RawConn, bound once per socket. A closure per call escaped to the heap
// with every variable it captured: four allocations per statement, ~160
// of TPC-C's ~426 per transaction on the netpoller path.
type rawIO struct {
	rb    []byte
	rn    int
	rerr  syscall.Errno
	wb    []byte
	wdone int
	werr  syscall.Errno
	read  func(fd uintptr) bool
	write func(fd uintptr) bool
}

// setRaw gives the socket its raw descriptor and the rawIO that goes with
// it, made here rather than at first use: a net.Conn's Read and Write may
// run at once (its contract; TestTrackedConnRawIO), and a rawIO made by
// whichever came first raced with the other (go test -race). Reads and
// writes use disjoint fields.
func (t *socket) setRaw(raw syscall.RawConn) {
	o := &rawIO{}
	o.read, o.write = o.readFD, o.writeFD
	t.raw, t.io = raw, o
}

// readFD is one non-blocking read(2) into rb: false (park in the
// netpoller until readable) on EAGAIN.
func (o *rawIO) readFD(fd uintptr) bool {
	b := o.rb
	for {
		r, _, e := syscall.RawSyscall(syscall.SYS_READ, fd, uintptr(unsafe.Pointer(&b[0])), uintptr(len(b)))
		switch e {
		case 0:
			o.rn = int(r)
			return true
		case syscall.EINTR:
			continue
		case syscall.EAGAIN:
			return false
		default:
			o.rerr = e
			return true
		}
	}
}

// writeFD writes wb[wdone:] with non-blocking write(2) calls: false (park
// in the netpoller until writable) on EAGAIN.
func (o *rawIO) writeFD(fd uintptr) bool {
	b := o.wb
	for o.wdone < len(b) {
		r, _, e := syscall.RawSyscall(syscall.SYS_WRITE, fd, uintptr(unsafe.Pointer(&b[o.wdone])), uintptr(len(b)-o.wdone))
		switch e {
		case 0:
			o.wdone += int(r)
		case syscall.EINTR:
		case syscall.EAGAIN:
			return false
		default:
			o.werr = e
			return true
		}
	}
	return true
}
