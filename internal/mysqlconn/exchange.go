package mysqlconn

import (
	"errors"
	"io"
	"net"
)

// The exchanger mode (issue 28; docs/architecture.md, "The ring path"): a
// connection's socket I/O carried by someone else, the engine's ring thread
// running the client's own unit loop as a coroutine. The driver, the lean
// execute path and the read-ahead run as on the other paths; only the
// system calls change. A write only appends to the pending-out buffer; a
// read hands the pending bytes and the read buffer to the Exchanger, which
// sends the one and receives into the other (on the ring: a SEND linked to
// a RECV, the coroutine suspended meanwhile), so a statement's request and
// the first part of its reply cost the client no system call of its own.
//
// Deadlines: the mode is for handed-over connections (Handover), which
// have none (the handshake's ended with it, and a configuration with
// driver read or write time-outs is not Plain, so never handed over); a
// stop or time limit ends a wait by shutting the socket down (Slot.Break),
// which ends the exchange in flight.

// Exchanger carries a connection's socket I/O in the exchanger mode.
type Exchanger interface {
	// Exchange sends out (possibly empty), then, unless in is nil,
	// receives whatever arrives first into in and returns its length, as
	// read(2) does (0: the peer closed). out and in stay untouched by the
	// caller until Exchange returns. An error means the connection broke.
	Exchange(out, in []byte) (int, error)
}

// errNotHandedOver is SetExchanger on a connection that was not handed
// over.
var errNotHandedOver = errors.New("mysqlconn: the exchanger mode needs a handed-over connection")

// SetExchanger puts the connection in the exchanger mode: every later
// read and write goes through x until ClearExchanger. The connection must
// have been handed over (Handover), with nothing unread.
func (c *Conn) SetExchanger(x Exchanger) error {
	t := c.sock
	if !c.CanHandOver() || !t.blocking {
		return errNotHandedOver
	}
	t.ex = x
	t.pending = t.pending[:0]
	return nil
}

// FlushExchange sends the writes that no read has carried yet (a
// COM_STMT_CLOSE, a COM_QUIT) through the exchanger; nothing when there
// are none or the connection is not in the mode.
func (c *Conn) FlushExchange() error {
	t := c.sock
	if t == nil || t.ex == nil || len(t.pending) == 0 {
		return nil
	}
	if !t.blocking {
		// Closed (the driver closes after a failure): its descriptor
		// number may be another connection's by now.
		t.pending = t.pending[:0]
		return net.ErrClosed
	}
	_, err := t.ex.Exchange(t.pending, nil)
	t.pending = t.pending[:0]
	if err != nil {
		err = t.opErr("write", err)
		t.noteFailure("write", err)
	}
	return err
}

// ClearExchanger ends the exchanger mode: the connection's reads and
// writes are its own system calls again (blocking ones: it was handed
// over), and the writes still pending are written with them first.
func (c *Conn) ClearExchanger() error {
	t := c.sock
	if t == nil || t.ex == nil {
		return nil
	}
	t.ex = nil
	if len(t.pending) == 0 || !t.blocking {
		t.pending = t.pending[:0]
		return nil
	}
	_, err := t.blockingWrite(t.pending)
	t.pending = t.pending[:0]
	if err != nil {
		t.noteFailure("write", err)
	}
	return err
}

// exchangeWrite is rawWrite in the exchanger mode: b waits for the next
// read (or flush).
func (t *socket) exchangeWrite(b []byte) (int, error) {
	t.pending = append(t.pending, b...)
	return len(b), nil
}

// exchangeRead is rawRead in the exchanger mode: the pending writes go out
// and the first bytes of the reply come into b in one exchange.
func (t *socket) exchangeRead(b []byte) (int, error) {
	if len(b) == 0 {
		return 0, nil
	}
	if !t.blocking {
		// Closed: as FlushExchange.
		t.pending = t.pending[:0]
		return 0, t.opErr("read", net.ErrClosed)
	}
	n, err := t.ex.Exchange(t.pending, b)
	t.pending = t.pending[:0]
	if err != nil {
		return 0, t.opErr("read", err)
	}
	if n == 0 {
		return 0, io.EOF
	}
	return n, nil
}
