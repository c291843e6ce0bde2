//go:build linux

package ring

import (
	"errors"
	"fmt"
	"syscall"
	"unsafe"
)

// The raw exchange: bytes, not statements. The engine's coroutine mode
// (issue 28) runs a client's own unit loop, driver and all, on the ring
// thread; its connection's writes collect in a buffer and each read hands
// them to the ring with the driver's read buffer: one linked SEND and RECV,
// whose Result.N is what the RECV received, as read(2) would return it.
// Nothing is parsed: the driver does that, as on the other paths.

// StartRaw queues a raw exchange: send out (nil or empty: nothing to
// send), then receive whatever arrives first into in (nil: send only).
// The next Poll submits it and its callback reports the Result: N is the
// bytes received (0 is the peer's end of stream, as read(2)'s 0), or for a
// send-only exchange the bytes sent. A short send fails the exchange (a
// *ConnError, Op "send"); so does a failed receive. The caller leaves out
// and in alone until then: the kernel uses them.
func (c *Conn) StartRaw(out, in []byte) error {
	switch {
	case c.busy:
		return errors.New("ring: an exchange is already in flight on this connection")
	case c.broken != nil:
		return c.broken
	case len(out) == 0 && len(in) == 0:
		return errors.New("ring: a raw exchange with nothing to send or receive")
	case c.have != 0:
		return errors.New("ring: a raw exchange with a parsed reply's bytes unread")
	}
	u := c.l.u
	if err := u.reserve(2); err != nil {
		return err
	}
	c.gen++
	if len(out) > 0 {
		send := u.next()
		send.opcode, send.fd = ioringOpSend, int32(c.fd)
		send.addr, send.len = uint64(uintptr(unsafe.Pointer(&out[0]))), uint32(len(out))
		send.opFlags = msgWaitAll | msgNoSignal
		send.userData = c.userData(0)
		if len(in) > 0 {
			// As Start's: a successful SEND posts nothing, a failed one
			// takes its RECV down with it.
			send.flags = iosqeIOLink | iosqeCQESkipSuccess
		}
	}
	if len(in) > 0 {
		e := u.next()
		e.opcode, e.fd = ioringOpRecv, int32(c.fd)
		e.addr, e.len = uint64(uintptr(unsafe.Pointer(&in[0]))), uint32(len(in))
		e.userData = c.userData(1)
		if len(out) > 0 && u.pollFirst {
			// The reply to what was just sent (uring.pollFirst); a
			// read without a send is the rest of one, tried at once.
			e.ioprio = ioringRecvsendPollFirst
		}
	}
	c.out, c.in, c.raw = out, in, true
	c.busy, c.canceled = true, false
	c.l.busy++
	return nil
}

// handleRaw is one completion of c's raw exchange in flight.
func (l *Loop) handleRaw(c *Conn, e cqe) {
	var res Result
	switch {
	case e.res < 0:
		op := "recv"
		if e.userData&1 == 0 {
			op = "send"
		}
		res.Err = &ConnError{Op: op, Err: syscall.Errno(-e.res)}
	case e.userData&1 == 0:
		if len(c.in) > 0 && int(e.res) == len(c.out) {
			return // a success after all: the RECV reports the exchange
		}
		if int(e.res) < len(c.out) {
			res.Err = &ConnError{Op: "send", Err: fmt.Errorf("short send: %d of %d bytes", e.res, len(c.out))}
		} else {
			res.N = int(e.res)
		}
	default:
		res.N = int(e.res)
	}
	l.finishRaw(c, res)
}

// finishRaw ends c's raw exchange with res and reports it.
func (l *Loop) finishRaw(c *Conn, res Result) {
	if c.canceled {
		// Whatever arrived, the socket is shut down.
		res = Result{Err: &ConnError{Op: "recv", Err: ErrCanceled}}
	}
	if res.Err != nil {
		c.broken = res.Err
	}
	c.busy, c.out, c.in, c.raw = false, nil, nil, false
	l.busy--
	if l.done != nil {
		l.done(c, res)
	}
}
