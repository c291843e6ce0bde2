package mysqlconn

import (
	"bytes"
	"encoding/binary"
	"errors"
	"reflect"
)

// What the engine's ring path (docs/architecture.md, "The ring path") needs
// from a connection: its raw descriptor, out of the netpoller, so that an
// io_uring loop on another OS thread sends its statements and reads their
// replies, and whether the handshake agreed CLIENT_DEPRECATE_EOF, which
// decides how a result set ends. The connection stays a Conn: its owner
// runs the workload's Begin and End on it and closes it as on the other
// paths; while the ring has the descriptor, nobody else uses the Conn.

// clientDeprecateEOF is the CLIENT_DEPRECATE_EOF capability flag (bit 24,
// in the greeting's upper 16 capability bits).
const clientDeprecateEOF = 1 << 24

// handshakeOffersDeprecateEOF reports whether a protocol-10 handshake
// packet announces CLIENT_DEPRECATE_EOF: after the version, the connection
// id, 8 bytes of scramble, a filler byte and the low 16 capability bits
// come the character set (1 byte), the status (2) and the upper 16
// capability bits.
func handshakeOffersDeprecateEOF(p []byte) bool {
	if len(p) < 5 || p[4] != 10 {
		return false
	}
	rest := p[5:]
	nul := bytes.IndexByte(rest, 0)
	at := nul + 1 + 4 + 8 + 1 + 2 + 1 + 2
	if nul < 0 || len(rest) < at+2 {
		return false
	}
	caps := uint32(binary.LittleEndian.Uint16(rest[at:])) << 16
	return caps&clientDeprecateEOF != 0
}

// Plain reports whether the connector's connections may be handed over to
// the ring path as far as its configuration goes: no compression, no
// driver read or write time-outs (the threaded path's condition). A
// connection that negotiated TLS is refused by Handover all the same.
func (c *Connector) Plain() bool { return c.blockingOK }

// CanHandOver reports whether Handover would succeed: the connection is a
// plain socket (no TLS, no compression) with a descriptor, and nothing
// the server sent waits unread in its read-ahead buffer.
func (c *Conn) CanHandOver() bool {
	t := c.sock
	return c.drv != nil && t != nil && t.plain && t.raw != nil && t.r == t.w && len(t.greeting) == 0
}

// errNoHandover is Handover on a connection that cannot be handed over.
var errNoHandover = errors.New("mysqlconn: the connection cannot be handed over (TLS, compression or unread bytes)")

// Handover takes the connection's socket out of the netpoller as the
// threaded path does (a blocking duplicate descriptor, the registered
// net.Conn closed: no netpoller wake-up per reply) and returns that
// descriptor and whether the handshake agreed CLIENT_DEPRECATE_EOF. The
// caller may send statements and read their replies on fd until it gives
// the connection back, a reply boundary; it never closes fd (Close does).
// Slot.Break still shuts the socket down, which ends an exchange in
// flight.
//
// The connection stays usable through the Conn afterwards (Begin, End,
// Close), on raw blocking system calls as on the threaded path.
func (c *Conn) Handover() (fd int, deprecateEOF bool, err error) {
	if !c.CanHandOver() {
		return -1, false, errNoHandover
	}
	t := c.sock
	if !t.blocking {
		if err := t.block(); err != nil {
			return -1, false, err
		}
	}
	return t.fd, t.offersDeprecateEOF, nil
}

// ServerID is the statement's id on the server and its parameter count,
// so that the ring path sends its COM_STMT_EXECUTEs itself on the handed
// over descriptor. ok is false when the driver's statement does not show
// its id (another driver version): the caller keeps the statement on the
// driver. The driver keeps the id in its statement's unexported field
// "id"; reflect reads it once per prepare, off the hot path.
func (s *Stmt) ServerID() (id uint32, params int, ok bool) {
	v := reflect.ValueOf(s.st)
	if v.Kind() != reflect.Pointer || v.IsNil() || v.Elem().Kind() != reflect.Struct {
		return 0, 0, false
	}
	f := v.Elem().FieldByName("id")
	if !f.IsValid() || f.Kind() != reflect.Uint32 {
		return 0, 0, false
	}
	return uint32(f.Uint()), s.st.NumInput(), true
}
