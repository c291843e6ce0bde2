package mysqlconn

import (
	"errors"
	"net"
	"os"
	"syscall"
	"testing"

	"github.com/go-sql-driver/mysql"
)

func TestConnectErrorWording(t *testing.T) {
	tests := []struct {
		err           error
		network, addr string
		wantCode      int
		wantMsg       string
	}{
		{&mysql.MySQLError{Number: 1045, Message: "Access denied for user 'u'@'localhost' (using password: YES)"}, "unix", "/s",
			1045, "Access denied for user 'u'@'localhost' (using password: YES)"},
		{&net.OpError{Op: "dial", Net: "unix", Err: os.NewSyscallError("connect", syscall.ENOENT)}, "unix", "/x",
			2002, "Can't connect to local server through socket '/x' (2)"},
		{&net.OpError{Op: "dial", Net: "tcp", Err: os.NewSyscallError("connect", syscall.ECONNREFUSED)}, "tcp", "127.0.0.1:1",
			2003, "Can't connect to server on '127.0.0.1' (111)"},
		{&net.OpError{Op: "dial", Net: "tcp", Err: &net.DNSError{Name: "nohost", Err: "no such host"}}, "tcp", "nohost:3306",
			2005, "Unknown server host 'nohost' (-2)"},
		{mysql.ErrNoTLS, "tcp", "h:1", 2026, "TLS/SSL error: SSL is required, but the server does not support it"},
		{errors.New("something else"), "tcp", "h:1", 2013, "something else"},
	}
	for _, tc := range tests {
		code, msg := ConnectError(tc.err, tc.network, tc.addr)
		if code != tc.wantCode || msg != tc.wantMsg {
			t.Errorf("ConnectError(%v) = %d %q, want %d %q", tc.err, code, msg, tc.wantCode, tc.wantMsg)
		}
	}
}

func TestHandshakeConnID(t *testing.T) {
	packet := []byte{0x20, 0, 0, 0, 10}
	packet = append(packet, "10.11.19-MariaDB\x00"...)
	packet = append(packet, 0x39, 0x30, 0, 0, 'x') // id 12345
	if got := handshakeConnID(packet); got != 12345 {
		t.Errorf("id = %d, want 12345", got)
	}
	for _, bad := range [][]byte{nil, {1, 0, 0, 0, 0xff}, {5, 0, 0, 0, 10, 'v'}} {
		if got := handshakeConnID(bad); got != 0 {
			t.Errorf("handshakeConnID(%q) = %d, want 0", bad, got)
		}
	}
}
