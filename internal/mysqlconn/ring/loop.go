//go:build linux

package ring

import (
	"errors"
	"fmt"
	"io"
	"sync"
	"syscall"
	"time"
	"unsafe"

	"github.com/go-sql-driver/mysql"
)

// bufSize is a connection's first receive buffer: one key lookup's reply
// fits many times.
//
// It grows on demand and keeps its size (Conn.grow): doubled, up to
// grownBuf, each time a receive filled it before the reply was complete,
// and to a packet's length when one packet does not fit. A read-only
// event's range selects return ~13 KB each, which the first 4 KB took in
// four receives, each a completion and a Poll round; grown to 16 KB they
// take one. A connection that only sees small replies (key lookups,
// writes) keeps its 4 KB (the 19000-client figure allows about 20 KB per
// client in all).
const bufSize = 4096

// grownBuf bounds the growth of a receive buffer that replies filled:
// libmariadb's net_buffer_length, the socket read-ahead's size
// (mysqlconn).
const grownBuf = 16 << 10

// Loop drives many connections' statement exchanges on one io_uring from
// one OS thread: each exchange is a linked SEND of the statement's packet
// and RECV of its reply, submitted with every other exchange prepared since
// the last Poll in one io_uring_enter, which also waits, for a bounded
// time, for the next batch of completions.
//
// A Loop belongs to the OS thread that called New (the ring is
// IORING_SETUP_SINGLE_ISSUER where the kernel allows it): call every method
// from that thread, with the goroutine locked to it (runtime.LockOSThread).
// The connections' descriptors stay the caller's; the Loop never closes
// them, but Cancel and Close shut one down (shutdown(2)) to end an
// exchange in flight.
type Loop struct {
	u       *uring
	conns   []*Conn
	busy    int // exchanges in flight
	bufSize int
	done    func(*Conn, Result) // Poll's callback while it reaps
}

// Conn is one connection in a Loop.
type Conn struct {
	l      *Loop
	id     int
	fd     int
	parser Parser
	buf    []byte
	have   int    // received bytes not yet consumed by the parser
	out    []byte // the packet of the exchange in flight (the kernel reads it)
	in     []byte // a raw exchange's receive buffer (the kernel writes it)
	raw    bool   // the exchange in flight is a raw one (raw.go)

	recvs    uint64 // RECV completions that brought data (tests count them)
	gen      uint32 // the exchange's number, in its completions' user data
	busy     bool   // an exchange is in flight
	canceled bool   // Cancel or Close ended the exchange
	broken   error  // the connection's stream is unusable
}

// New sets a Loop up for at most conns connections on the calling OS
// thread. Where io_uring is unavailable the error wraps ErrUnavailable:
// the caller falls back to another client path.
func New(conns int) (*Loop, error) {
	if conns < 1 || conns > MaxConns {
		return nil, fmt.Errorf("ring: %d connections (1 to %d per loop)", conns, MaxConns)
	}
	entries := uint32(8)
	for entries < uint32(2*conns) {
		entries *= 2
	}
	u, err := newURing(entries)
	if err != nil {
		return nil, err
	}
	return &Loop{u: u, conns: make([]*Conn, 0, conns), bufSize: bufSize}, nil
}

// Mode names the io_uring setup flags the kernel accepted.
func (l *Loop) Mode() string { return l.u.mode }

// Busy is the number of exchanges in flight.
func (l *Loop) Busy() int { return l.busy }

// Add takes a connected, logged-in socket (blocking or not: the ring does
// not care) whose next bytes are a reply to a statement the Loop sends.
// deprecateEOF says whether the handshake agreed CLIENT_DEPRECATE_EOF.
func (l *Loop) Add(fd int, deprecateEOF bool) (*Conn, error) {
	if len(l.conns) == cap(l.conns) {
		return nil, fmt.Errorf("ring: the loop has its %d connections", cap(l.conns))
	}
	c := &Conn{l: l, id: len(l.conns), fd: fd, buf: make([]byte, l.bufSize)}
	c.parser.DeprecateEOF = deprecateEOF
	l.conns = append(l.conns, c)
	return c, nil
}

// ID is the connection's index in its Loop, in the order of Add.
func (c *Conn) ID() int { return c.id }

// FD is the connection's descriptor.
func (c *Conn) FD() int { return c.fd }

// Rebind gives the connection a new descriptor (a reconnect after a
// broken exchange); it must not have an exchange in flight.
func (c *Conn) Rebind(fd int, deprecateEOF bool) error {
	if c.busy {
		return errors.New("ring: rebinding a connection with an exchange in flight")
	}
	c.fd, c.have, c.broken, c.canceled = fd, 0, nil, false
	c.parser = Parser{DeprecateEOF: deprecateEOF}
	return nil
}

// Start queues an exchange: send packet (one complete client packet,
// sequence 0, e.g. from AppendQuery), then receive one complete reply. It
// is submitted by the next Poll, whose callback reports its Result. The
// caller must leave packet unchanged until then: the kernel reads it.
func (c *Conn) Start(packet []byte) error {
	switch {
	case c.busy:
		return errors.New("ring: an exchange is already in flight on this connection")
	case c.broken != nil:
		return c.broken
	case len(packet) < 5 || len(packet) > 4+maxPayload-1 ||
		int(packet[0])|int(packet[1])<<8|int(packet[2])<<16 != len(packet)-4:
		return fmt.Errorf("ring: not one complete packet of less than 16 MB (%d bytes)", len(packet))
	}
	u := c.l.u
	if err := u.reserve(2); err != nil { // the linked pair must not be split between two submissions
		return err
	}
	c.out = packet
	c.gen++
	send := u.next()
	send.opcode, send.fd = ioringOpSend, int32(c.fd)
	send.addr, send.len = uint64(uintptr(unsafe.Pointer(&packet[0]))), uint32(len(packet))
	// MSG_WAITALL turns a short send into a failure, which ends the link
	// (the RECV is then canceled) and is always posted; a successful SEND
	// posts nothing. MSG_NOSIGNAL: a peer that closed is EPIPE, not SIGPIPE.
	send.opFlags = msgWaitAll | msgNoSignal
	send.flags = iosqeIOLink | iosqeCQESkipSuccess
	send.userData = c.userData(0)
	c.prepRecv(u.pollFirst)
	c.busy, c.canceled = true, false
	c.l.busy++
	return nil
}

// prepRecv queues a RECV into the free part of the buffer; the caller made
// room in the SQ. pollFirst: the RECV waits for the socket to be readable
// before it tries (uring.pollFirst; a reply to a statement just sent).
func (c *Conn) prepRecv(pollFirst bool) {
	if c.have == len(c.buf) { // one packet longer than the buffer
		c.buf = append(c.buf, make([]byte, len(c.buf))...)
		c.buf = c.buf[:cap(c.buf)]
	}
	free := c.buf[c.have:]
	e := c.l.u.next()
	e.opcode, e.fd = ioringOpRecv, int32(c.fd)
	e.addr, e.len = uint64(uintptr(unsafe.Pointer(&free[0]))), uint32(len(free))
	e.userData = c.userData(1)
	if pollFirst {
		e.ioprio = ioringRecvsendPollFirst
	}
}

// grow doubles the receive buffer, up to grownBuf, keeping its unparsed
// bytes: a receive filled it before the reply was complete, so the rest of
// this reply and the later ones come in fewer receives. Not called with a
// RECV in flight (the kernel writes into the buffer).
func (c *Conn) grow() {
	if len(c.buf) >= grownBuf {
		return
	}
	b := make([]byte, min(2*len(c.buf), grownBuf))
	copy(b, c.buf[:c.have])
	c.buf = b
}

// userData names a completion: the connection, the exchange (so that a
// completion of an earlier exchange can never be taken for one of the
// current one) and the operation (0 SEND, 1 RECV).
func (c *Conn) userData(op uint64) uint64 {
	return uint64(c.id)<<33 | uint64(c.gen)<<1 | op
}

// Cancel ends c's exchange in flight, if any, by shutting its socket down;
// Poll then reports it with ErrCanceled. The connection is unusable
// afterwards (a statement's reply may be half read): close and Rebind it.
func (l *Loop) Cancel(c *Conn) {
	if c.busy && !c.canceled {
		c.canceled = true
		_ = syscall.Shutdown(c.fd, syscall.SHUT_RDWR)
	}
}

// Poll submits the exchanges started since the last Poll and waits until
// minComplete completions (at most the exchanges in flight) are ready or
// wait has passed, whichever comes first; then it calls done for every
// exchange that finished, in the order their last completion arrived. done
// may Start the connection's next exchange (submitted by the next Poll).
// A non-nil error is the ring's own failure: the Loop is unusable then
// (Close it).
func (l *Loop) Poll(minComplete int, wait time.Duration, done func(*Conn, Result)) error {
	want := uint32(max(1, min(minComplete, l.busy)))
	if l.busy == 0 {
		want = 0 // nothing can complete: submit only
	}
	if err := l.u.enter(want, wait); err != nil {
		return err
	}
	l.done = done
	l.u.reap(l.handle)
	l.done = nil
	return nil
}

// handle is one completion.
func (l *Loop) handle(e cqe) {
	id := int(e.userData >> 33)
	if id >= len(l.conns) {
		return
	}
	c := l.conns[id]
	if !c.busy || uint32(e.userData>>1) != c.gen {
		return // not the exchange in flight: nothing to report
	}
	if c.raw {
		l.handleRaw(c, e)
		return
	}
	if e.userData&1 == 0 {
		// A SEND posts a CQE only when it fails (a short send fails, by
		// MSG_WAITALL), and a failed SEND whose own CQE is posted takes
		// its linked RECV down without a CQE (the kernel's
		// REQ_F_SKIP_LINK_CQES): the RECV never ran, the exchange ends
		// here.
		var err error
		switch {
		case e.res < 0:
			err = syscall.Errno(-e.res)
		case int(e.res) < len(c.out):
			err = fmt.Errorf("short send: %d of %d bytes", e.res, len(c.out))
		default:
			return // a success after all: the RECV reports the exchange
		}
		l.finish(c, &ConnError{Op: "send", Err: err})
		return
	}
	switch {
	case e.res < 0:
		l.finish(c, &ConnError{Op: "recv", Err: syscall.Errno(-e.res)})
	case e.res == 0:
		l.finish(c, &ConnError{Op: "recv", Err: io.ErrUnexpectedEOF})
	default:
		c.recvs++
		filled := int(e.res) == len(c.buf)-c.have
		c.have += int(e.res)
		used, complete, err := c.parser.Feed(c.buf[:c.have])
		if used > 0 {
			copy(c.buf, c.buf[used:c.have])
			c.have -= used
		}
		switch {
		case err == nil && !complete:
			// The rest of the reply: the SQ has room, as this
			// connection's linked pair is consumed.
			if rerr := l.u.reserve(1); rerr != nil {
				l.finish(c, &ConnError{Op: "recv", Err: rerr})
				return
			}
			if filled {
				c.grow()
			}
			// The rest of a reply that is arriving: try at once.
			c.prepRecv(false)
		case c.have != 0:
			l.finish(c, &ConnError{Op: "reply", Err: protoErr("%d bytes after the reply", c.have)})
		default:
			l.finish(c, err)
		}
	}
}

// finish ends c's exchange with err (nil: the reply in the parser) and
// reports it.
func (l *Loop) finish(c *Conn, err error) {
	res := Result{Rows: c.parser.Rows(), Affected: c.parser.Affected()}
	var me *mysql.MySQLError
	switch {
	case c.canceled:
		// Whatever arrived, the socket is shut down.
		err = &ConnError{Op: "recv", Err: ErrCanceled}
	case err == nil:
	case errors.As(err, &me):
	default:
		if _, ok := err.(*ConnError); !ok {
			err = &ConnError{Op: "reply", Err: err}
		}
	}
	if err != nil {
		res = Result{Err: err}
		if _, ok := err.(*ConnError); ok {
			c.broken = err
		}
	}
	c.parser.Reset()
	c.busy, c.out = false, nil
	l.busy--
	if l.done != nil {
		l.done(c, res)
	}
}

// drainFor bounds how long Close waits for canceled exchanges to report.
const drainFor = 2 * time.Second

// pinned keeps the buffers of exchanges the kernel never reported after
// Close canceled them: it might still write into them, so they are never
// freed. Not expected to happen (shutdown(2) ends every SEND and RECV).
var pinned struct {
	sync.Mutex
	conns []*Conn
}

// Close cancels the exchanges in flight (shutting their sockets down),
// waits a bounded time for the kernel to report them, and releases the
// ring. The connections' descriptors stay open: the caller closes them.
func (l *Loop) Close() error {
	if l.u == nil {
		return nil
	}
	for _, c := range l.conns {
		l.Cancel(c)
	}
	var err error
	giveUp := time.Now().Add(drainFor)
	for l.busy > 0 && err == nil {
		left := time.Until(giveUp)
		if left <= 0 {
			break
		}
		err = l.Poll(l.busy, min(left, 100*time.Millisecond), nil)
	}
	if l.busy > 0 {
		pinned.Lock()
		for _, c := range l.conns {
			if c.busy {
				pinned.conns = append(pinned.conns, c)
			}
		}
		pinned.Unlock()
		if err == nil {
			err = fmt.Errorf("ring: %d exchanges not reported %v after they were canceled", l.busy, drainFor)
		}
	}
	l.u.close()
	l.u = nil
	return err
}
