package mysqlconn

import (
	"bytes"
	"encoding/binary"
	"io"
	"net"
	"os"
	"runtime"
	"strconv"
	"sync/atomic"
	"syscall"
	"unsafe"

	"github.com/go-sql-driver/mysql"
)

// socket is the client's socket. It remembers the connection id the
// server announced in its handshake (the first packet it sends), so an abort
// can KILL a statement that is still running on the server.
//
// It also reads ahead for results larger than the driver's 4 KB buffer: the
// driver asks for at most 4 KB per read, so a 14 KB result set (the read
// load's 100 rows) took four read system calls where mysqlslap's 16 KB net
// buffer takes one. Once a read fills the driver's whole request, the
// connection gets a readAhead buffer and serves the driver from it; a
// connection that only ever sees small results (key lookups, writes) never
// allocates one.
//
// Reads and writes go through the socket's RawConn as raw read(2)/write(2)
// calls, waiting in the netpoller on EAGAIN as net.Conn does (see Write);
// on the thread-per-client path they are blocking calls on a descriptor of
// the socket's own, outside the netpoller (block, in threads.go).
type socket struct {
	net.Conn
	id atomic.Uint32

	// greeting is the server's handshake packet, read and checked by
	// readGreeting before the driver sees anything; Read serves it first.
	greeting []byte

	// The last failure of a read or write, and after a failed write the
	// error packet the server sent before closing (nil if none): the driver
	// reports both as "invalid connection", Conn words them as the client
	// library does. Only touched by the connection's own goroutine.
	failedOp  string // "read" or "write"
	failure   error
	serverErr *mysql.MySQLError

	rbuf []byte // read-ahead buffer, nil until a result outgrew a read
	r, w int    // unread bytes are rbuf[r:w]

	raw syscall.RawConn // the socket's raw descriptor (Write); nil: Conn's Read and Write
	io  *rawIO          // raw reads' and writes' state (rawio.go), made with raw (setRaw)

	// blocking: the threaded path (threads.go) made the socket blocking;
	// reads and writes are raw system calls on fd, outside the netpoller.
	// Set once by the owner before it uses the socket for statements. fd
	// is then a duplicate of the net.Conn's descriptor, held by own, and
	// the net.Conn is closed (out of the runtime's epoll set). own is
	// atomic for shutdown, which other goroutines call.
	blocking bool
	fd       int
	replyDue bool // a request was written since the last read (readwait.go)
	own      atomic.Pointer[os.File]

	// offersTLS: the server's greeting announced TLS (CLIENT_SSL), so a
	// TLS-enabled configuration runs this connection over TLS.
	offersTLS bool
	// offersDeprecateEOF: the greeting announced CLIENT_DEPRECATE_EOF,
	// which the driver always asks for, so the handshake agreed it
	// (handover.go).
	offersDeprecateEOF bool

	// plain: the driver's packets reach Write as they are (no TLS, no
	// compression), so Write may rewrite an execute (bound.go). bound: the
	// statement whose execute the driver is writing (Stmt.begin), nil
	// otherwise.
	plain bool
	bound *boundTypes

	// The lean execute path (lean.go). leanOK: the connection may use it
	// (plain, with a descriptor, a driver configuration whose results it
	// reproduces), set by Connect. cacheMetadata: the handshake agreed
	// MariaDB's metadata cache, which the driver always asks for (a result
	// set's column count then says whether column definitions follow).
	// capturing: Read copies what it returns to captured (a prepare's
	// reply, read by the driver). dead: the lean path lost the connection
	// and closed it, as the driver does after a failure; the driver's
	// later reads and writes fail without replacing the failure recorded.
	leanOK        bool
	cacheMetadata bool
	lean          *leanIO
	capturing     bool
	captured      []byte
	dead          bool
	maxPacket     int // the driver's max_allowed_packet setting (0: the server's)

	// The exchanger mode (exchange.go): ex carries the reads and writes,
	// pending holds the writes not yet sent.
	ex      Exchanger
	pending []byte
}

// readAhead is the read-ahead buffer size, libmariadb's net_buffer_length.
const readAhead = 16 << 10

func (t *socket) Read(b []byte) (int, error) {
	if t.dead {
		return 0, net.ErrClosed
	}
	n, err := t.read(b)
	if t.capturing && n > 0 {
		t.captured = append(t.captured, b[:n]...)
	}
	return n, err
}

func (t *socket) read(b []byte) (int, error) {
	if len(t.greeting) > 0 {
		n := copy(b, t.greeting)
		t.greeting = t.greeting[n:]
		return n, nil
	}
	if t.r < t.w {
		n := copy(b, t.rbuf[t.r:t.w])
		t.r += n
		return n, nil
	}
	if t.rbuf == nil || len(b) >= len(t.rbuf) {
		n, err := t.sysRead(b)
		if n == len(b) && n >= 4096 && t.rbuf == nil {
			t.rbuf = make([]byte, readAhead)
		}
		return n, err
	}
	n, err := t.sysRead(t.rbuf)
	if n <= 0 {
		return 0, err
	}
	// A read that returned data returns no error from a socket; if one
	// did, the next read reports it again.
	t.r, t.w = 0, n
	c := copy(b, t.rbuf[:n])
	t.r = c
	return c, nil
}

// handshakeConnID extracts the thread id from a protocol-10 handshake
// packet: 4-byte header, version byte 10, NUL-terminated server version,
// then the 4-byte little-endian connection id. 0 if the packet is not one.
func handshakeConnID(p []byte) uint32 {
	if len(p) < 5 || p[4] != 10 {
		return 0
	}
	rest := p[5:]
	nul := bytes.IndexByte(rest, 0)
	if nul < 0 || len(rest) < nul+5 {
		return 0
	}
	return binary.LittleEndian.Uint32(rest[nul+1 : nul+5])
}

// clientSSL is the CLIENT_SSL capability flag.
const clientSSL = 0x0800

// handshakeOffersTLS reports whether a protocol-10 handshake packet
// announces CLIENT_SSL: after the version and the connection id come 8
// bytes of scramble, a filler byte and the low 16 capability bits.
func handshakeOffersTLS(p []byte) bool {
	if len(p) < 5 || p[4] != 10 {
		return false
	}
	rest := p[5:]
	nul := bytes.IndexByte(rest, 0)
	if nul < 0 || len(rest) < nul+1+4+8+1+2 {
		return false
	}
	caps := binary.LittleEndian.Uint16(rest[nul+1+4+8+1:])
	return caps&clientSSL != 0
}

// maxGreeting bounds the handshake packet: a real one is about 100 bytes
// (version string, scramble, plugin name); anything longer is not a MySQL
// server talking, and waiting for megabytes of it would hang.
const maxGreeting = 4096

// readGreeting reads the server's first packet and checks that it is a
// protocol-10 handshake (or an error packet such as "Too many connections",
// which the driver reports), before the driver sees it: the driver trusts
// the first three bytes as a length, so an SSH banner, an HTTP reply or a
// silent listener would make it wait for good. The caller bounds the wait
// with a deadline. Errors are the client library's (see lostAt).
func (t *socket) readGreeting() error {
	const phase = "handshake: reading initial communication packet"
	var hdr [4]byte
	if err := t.readFull(hdr[:]); err != nil {
		return lostAt(phase, err)
	}
	n := int(hdr[0]) | int(hdr[1])<<8 | int(hdr[2])<<16
	if hdr[3] != 0 || n == 0 || n > maxGreeting {
		// libmariadb drops a first packet out of sequence or of absurd size.
		return lostAt(phase, syscall.EAGAIN)
	}
	p := make([]byte, 4+n)
	copy(p, hdr[:])
	if err := t.readFull(p[4:]); err != nil {
		return lostAt(phase, err)
	}
	if v := p[4]; v != 0xff && v != 10 {
		return clientError(crVersionError, "Protocol mismatch. Server Version = "+strconv.Itoa(int(v))+" Client Version = 10")
	}
	t.greeting = p
	t.id.Store(handshakeConnID(p))
	t.offersTLS = handshakeOffersTLS(p)
	t.offersDeprecateEOF = handshakeOffersDeprecateEOF(p)
	t.cacheMetadata = handshakeOffersCacheMetadata(p)
	return nil
}

func (t *socket) readFull(b []byte) error {
	for len(b) > 0 {
		n, err := t.sysRead(b)
		if err != nil {
			return err
		}
		b = b[n:]
	}
	return nil
}

// noteFailure records a failed read or write for Conn's error wording.
// After a failed write it also picks up the error packet the server sent
// before it closed the connection (a statement over max_allowed_packet):
// the driver never reads it once its write failed.
func (t *socket) noteFailure(op string, err error) {
	t.failedOp, t.failure = op, err
	if op != "write" || t.raw == nil {
		return
	}
	var buf [1024]byte
	n := 0
	if t.blocking {
		n, _, _ = syscall.Recvfrom(t.fd, buf[:], syscall.MSG_DONTWAIT)
	} else {
		_ = t.raw.Control(func(fd uintptr) {
			n, _, _ = syscall.Recvfrom(int(fd), buf[:], syscall.MSG_DONTWAIT)
		})
	}
	if n > 0 {
		t.serverErr = parseErrorPacket(buf[:n])
	}
}

// parseErrorPacket decodes a complete ERR packet (header, 0xff, code,
// '#' and SQL state, message), nil if p is not one.
func parseErrorPacket(p []byte) *mysql.MySQLError {
	if len(p) < 7 || p[4] != 0xff {
		return nil
	}
	n := int(p[0]) | int(p[1])<<8 | int(p[2])<<16
	if len(p) < 4+n || n < 3 {
		return nil
	}
	body := p[5 : 4+n]
	e := &mysql.MySQLError{Number: binary.LittleEndian.Uint16(body)}
	msg := body[2:]
	if len(msg) >= 6 && msg[0] == '#' {
		copy(e.SQLState[:], msg[1:6])
		msg = msg[6:]
	}
	e.Message = string(msg)
	return e
}

// sysRead reads from the socket with a raw read(2) when the connection has
// a RawConn: see Write.
func (t *socket) sysRead(b []byte) (int, error) {
	n, err := t.rawRead(b)
	if err != nil {
		t.noteFailure("read", err)
	}
	return n, err
}

func (t *socket) rawRead(b []byte) (int, error) {
	if t.ex != nil {
		return t.exchangeRead(b)
	}
	if t.blocking && len(b) > 0 {
		return t.blockingRead(b)
	}
	if t.raw == nil || len(b) == 0 {
		return t.Conn.Read(b)
	}
	o := t.io
	o.rb, o.rn, o.rerr = b, 0, 0
	err := t.raw.Read(o.read)
	n, errno := o.rn, o.rerr
	o.rb = nil
	if err != nil {
		return 0, t.opErr("read", err)
	}
	if errno != 0 {
		return 0, t.opErr("read", os.NewSyscallError("read", errno))
	}
	if n == 0 {
		return 0, io.EOF
	}
	return n, nil
}

// Write sends b with raw write(2) calls (syscall.RawSyscall, no
// entersyscall/exitsyscall) when the connection has a RawConn; the socket
// is non-blocking, so a call never waits: a full socket buffer returns
// EAGAIN and the goroutine parks in the netpoller as net.Conn's Write does.
//
// Why: through net.Conn every write(2) is a "blocking" system call to the
// runtime. A write that wakes a server thread on a 2-core machine often
// lasts longer than sysmon's 20 µs tick, so sysmon keeps retaking the P
// (hand-off, futex wake of another thread) and never backs off its 20 µs
// polling: 12 % of goslap's CPU under the write load was sysmon alone.
//
// During a prepared statement's execute (t.bound set) the packet may leave
// out the parameter types the server already holds (elideTypes); the
// driver is told the whole of b was written.
func (t *socket) Write(b []byte) (int, error) {
	if t.dead {
		return 0, net.ErrClosed
	}
	p := b
	if t.bound != nil {
		p = elideTypes(b, t.bound)
	}
	n, err := t.rawWrite(p)
	if err != nil {
		t.noteFailure("write", err)
		return n, err
	}
	return len(b), nil
}

func (t *socket) rawWrite(b []byte) (int, error) {
	if t.ex != nil {
		return t.exchangeWrite(b)
	}
	if t.blocking {
		t.replyDue = true
		return t.blockingWrite(b)
	}
	if t.raw == nil {
		return t.Conn.Write(b)
	}
	o := t.io
	o.wb, o.wdone, o.werr = b, 0, 0
	err := t.raw.Write(o.write)
	done, errno := o.wdone, o.werr
	o.wb = nil
	if err != nil {
		return done, t.opErr("write", err)
	}
	if errno != 0 {
		return done, t.opErr("write", os.NewSyscallError("write", errno))
	}
	return done, nil
}

func (t *socket) opErr(op string, err error) error {
	if _, ok := err.(*net.OpError); ok {
		return err
	}
	ra := t.Conn.RemoteAddr()
	return &net.OpError{Op: op, Net: ra.Network(), Source: t.Conn.LocalAddr(), Addr: ra, Err: err}
}

// blockingWrite writes all of b with write(2) calls on the blocking socket,
// yielding like blockingRead when SO_SNDTIMEO ends a wait.
func (t *socket) blockingWrite(b []byte) (int, error) {
	done := 0
	for done < len(b) {
		r, _, e := syscall.RawSyscall(syscall.SYS_WRITE, uintptr(t.fd), uintptr(unsafe.Pointer(&b[done])), uintptr(len(b)-done))
		switch e {
		case 0:
			done += int(r)
		case syscall.EINTR, syscall.EAGAIN:
			// EINTR is mostly the runtime's preemption signal: a
			// stop-the-world resends it every few µs, each one cuts the
			// blocking call short (SO_RCVTIMEO disables SA_RESTART), and a
			// loop that only retried would never reach a safe point, so
			// the whole process froze until the statement ended (a lock
			// wait: 50 s).
			runtime.Gosched()
		default:
			return done, t.opErr("write", os.NewSyscallError("write", e))
		}
	}
	return done, nil
}
