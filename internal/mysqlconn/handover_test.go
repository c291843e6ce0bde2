package mysqlconn

import (
	"database/sql/driver"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/goslap/goslap/internal/mysqlconn/mysqlfake"
	"github.com/goslap/goslap/internal/mysqlconn/ring"
)

// TestHandshakeOffersDeprecateEOF: CLIENT_DEPRECATE_EOF is read from the
// greeting's upper capability bits; a short or foreign packet offers
// nothing.
func TestHandshakeOffersDeprecateEOF(t *testing.T) {
	greeting := func(caps uint32) []byte {
		p := []byte{0, 0, 0, 0, 10}
		p = append(p, "10.11.19-MariaDB\x00"...)
		p = append(p, 1, 0, 0, 0)        // connection id
		p = append(p, "12345678\x00"...) // scramble part 1, filler
		p = append(p, byte(caps), byte(caps>>8))
		p = append(p, 8, 2, 0) // character set, status
		p = append(p, byte(caps>>16), byte(caps>>24))
		return append(p, 21) // length of the scramble
	}
	for _, tt := range []struct {
		name string
		p    []byte
		want bool
	}{
		{"deprecate eof", greeting(0xf7fe | clientDeprecateEOF | 0x81bf<<16), true},
		{"without", greeting((0xf7fe | 0x81bf<<16) &^ clientDeprecateEOF), false},
		{"low bits only", greeting(0xffff), false},
		{"truncated", greeting(0xffffffff)[:36], false},
		{"error packet", []byte{1, 0, 0, 0, 0xff}, false},
	} {
		if got := handshakeOffersDeprecateEOF(tt.p); got != tt.want {
			t.Errorf("%s: %v, want %v", tt.name, got, tt.want)
		}
	}
}

// TestHandover: a connection to the fake server (which does not offer
// CLIENT_DEPRECATE_EOF) hands over a blocking descriptor that carries a
// COM_QUERY and its reply, and the Conn goes on working afterwards; a
// connector with compression is not plain.
func TestHandover(t *testing.T) {
	s := mysqlfake.Start(t, nil, mysqlfake.Options{})
	cn, err := NewConnector(s.Config(), "")
	if err != nil {
		t.Fatal(err)
	}
	if !cn.Plain() {
		t.Fatal("a connector without compression or time-outs is not plain")
	}
	var slot Slot
	c, err := cn.Connect(&slot)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if !c.CanHandOver() {
		t.Fatal("a plain connection cannot be handed over")
	}
	fd, deprecateEOF, err := c.Handover()
	if err != nil {
		t.Fatal(err)
	}
	if deprecateEOF {
		t.Error("CLIENT_DEPRECATE_EOF agreed with a server that does not offer it")
	}
	nb, err := isNonblocking(fd)
	if err != nil || nb {
		t.Errorf("descriptor non-blocking %v (%v): it must be out of the netpoller", nb, err)
	}
	q := []byte{9, 0, 0, 0, 3, 'S', 'E', 'L', 'E', 'C', 'T', ' ', '1'}
	if _, err := syscall.Write(fd, q); err != nil {
		t.Fatal(err)
	}
	readReply(t, fd)
	if err := c.Exec("SELECT 1"); err != nil {
		t.Errorf("the Conn after the handover: %v", err)
	}
	fd2, _, err := c.Handover()
	if err != nil || fd2 != fd {
		t.Errorf("a second Handover: %d, %v; want %d", fd2, err, fd)
	}

	cfg := s.Config()
	cfg.Params = map[string]string{"compress": "true"}
	if zc, err := NewConnector(cfg, ""); err == nil && zc.Plain() {
		t.Error("a connector with compression is plain")
	}
}

// readReply reads a reply of at least one packet's header and first byte
// from a handed-over descriptor, which blocks only up to SO_RCVTIMEO (the
// threaded path's wake-up to look at cancellation): a slow reply is EAGAIN,
// read again, for up to 10 s.
func readReply(t *testing.T, fd int) {
	t.Helper()
	var buf [256]byte
	for deadline := time.Now().Add(10 * time.Second); ; {
		n, err := syscall.Read(fd, buf[:])
		if (err == syscall.EAGAIN || err == syscall.EINTR) && time.Now().Before(deadline) {
			continue
		}
		if err != nil || n < 5 {
			t.Fatalf("reply: %d bytes, %v", n, err)
		}
		return
	}
}

// fakeConn is a connection to a fake server of its own (no handler),
// closed when the test ends.
func fakeConn(t *testing.T) (*Conn, *mysqlfake.Server) {
	t.Helper()
	s := mysqlfake.Start(t, nil, mysqlfake.Options{})
	cn, err := NewConnector(s.Config(), "")
	if err != nil {
		t.Fatal(err)
	}
	c, err := cn.Connect(nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(c.Close)
	return c, s
}

func isNonblocking(fd int) (bool, error) {
	r, _, e := syscall.Syscall(syscall.SYS_FCNTL, uintptr(fd), syscall.F_GETFL, 0)
	if e != 0 {
		return false, e
	}
	return r&syscall.O_NONBLOCK != 0, nil
}

// TestStmtServerID: a prepared statement's id, read from the driver, is
// the one the server gave it: an execute sent on the handed-over
// descriptor with that id runs that statement.
func TestStmtServerID(t *testing.T) {
	c, s := fakeConn(t)
	var ids []uint32
	for _, q := range []string{"SELECT 1", "UPDATE t SET k=k+1 WHERE id=?"} {
		st, err := c.Prepare(q)
		if err != nil {
			t.Fatal(err)
		}
		id, params, ok := st.ServerID()
		if !ok || params != strings.Count(q, "?") {
			t.Fatalf("%s: id %d, %d parameters, ok %v", q, id, params, ok)
		}
		ids = append(ids, id)
	}
	fd, _, err := c.Handover()
	if err != nil {
		t.Fatal(err)
	}
	s.ResetLog()
	p := ring.AppendExecute([]byte{0, 0, 0, 0}, ids[1], []driver.NamedValue{{Ordinal: 1, Value: int64(42)}})
	n := len(p) - 4
	p[0], p[1], p[2] = byte(n), byte(n>>8), byte(n>>16)
	if _, err := syscall.Write(fd, p); err != nil {
		t.Fatal(err)
	}
	readReply(t, fd)
	log := s.Log()
	if len(log) != 1 || log[0].Kind != mysqlfake.KindExecute || log[0].SQL != "UPDATE t SET k=k+1 WHERE id=?" ||
		len(log[0].Args) != 1 || log[0].Args[0] != int64(42) {
		t.Errorf("the server saw %+v", log)
	}
}
