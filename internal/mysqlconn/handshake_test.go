package mysqlconn

import (
	"net"
	"strings"
	"testing"
	"time"

	"github.com/go-sql-driver/mysql"
)

// listen serves every connection on a loopback port with serve and returns
// the address.
func listen(t *testing.T, serve func(net.Conn)) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	var conns []net.Conn
	done := make(chan struct{})
	go func() {
		defer close(done)
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			conns = append(conns, c)
			go serve(c)
		}
	}()
	t.Cleanup(func() {
		l.Close()
		<-done
		for _, c := range conns {
			c.Close()
		}
	})
	return l.Addr().String()
}

func connectTo(t *testing.T, network, addr string, timeout time.Duration) error {
	t.Helper()
	cfg := mysql.NewConfig()
	cfg.Net, cfg.Addr, cfg.User = network, addr, "root"
	cfg.Logger = &mysql.NopLogger{}
	c, err := NewConnector(cfg, "")
	if err != nil {
		t.Fatal(err)
	}
	c.handshakeTimeout = timeout
	conn, err := c.Connect(nil)
	if err == nil {
		conn.Close()
	}
	return err
}

// TestHandshakeNotMySQL: a port where something else listens ends the
// connect with libmariadb's error instead of waiting for a packet length
// read from foreign bytes; a listener that never speaks (or stops half-way
// through a packet) ends at the handshake time limit. The wordings are
// what mariadb-slap 10.11 prints against the same listeners (its system
// error is whatever errno its non-blocking read left: 11).
func TestHandshakeNotMySQL(t *testing.T) {
	const lost = "Lost connection to server at 'handshake: reading initial communication packet', system error: "
	tests := []struct {
		name     string
		greeting string // sent on accept; the listener then keeps quiet
		close    bool   // close after sending
		wantCode int
		wantMsg  string
	}{
		{"ssh banner", "SSH-2.0-OpenSSH_9.6\r\n", false, 2013, lost + "11"},
		{"http reply", "HTTP/1.1 400 Bad Request\r\nContent-Length: 0\r\n\r\n", false, 2013, lost + "11"},
		{"protocol 9", "\x05\x00\x00\x00\x09abcd", false, 2007, "Protocol mismatch. Server Version = 9 Client Version = 10"},
		{"length 0xffffff", "\xff\xff\xff\x00A", false, 2013, lost + "11"},
		{"closes at once", "", true, 2013, lost + "11"},
		{"never speaks", "", false, 2013, lost + "110"},
		{"half a packet", "\x40\x00\x00\x00\x0a5.5", false, 2013, lost + "110"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			addr := listen(t, func(c net.Conn) {
				c.Write([]byte(tc.greeting))
				if tc.close {
					c.Close()
				}
			})
			start := time.Now()
			err := connectTo(t, "tcp", addr, 300*time.Millisecond)
			if took := time.Since(start); took > 3*time.Second {
				t.Fatalf("connect took %v", took)
			}
			if err == nil {
				t.Fatal("connected to a listener that is not a MySQL server")
			}
			code, msg := ConnectError(err, "tcp", addr)
			if code != tc.wantCode || msg != tc.wantMsg {
				t.Errorf("got %d %q, want %d %q", code, msg, tc.wantCode, tc.wantMsg)
			}
		})
	}
}

// TestHandshakeAuthTimeout: a server that greets and then never answers
// the authentication ends at the time limit too.
func TestHandshakeAuthTimeout(t *testing.T) {
	greeting := handshakeV10()
	addr := listen(t, func(c net.Conn) { c.Write(greeting) })
	err := connectTo(t, "tcp", addr, 300*time.Millisecond)
	code, msg := ConnectError(err, "tcp", addr)
	if want := "Lost connection to server at 'reading authorization packet', system error: 110"; code != 2013 || msg != want {
		t.Errorf("got %d %q, want 2013 %q", code, msg, want)
	}
}

// handshakeV10 is a minimal protocol-10 greeting offering
// mysql_native_password.
func handshakeV10() []byte {
	var b []byte
	b = append(b, 10)
	b = append(b, "10.11.19-MariaDB\x00"...)
	b = append(b, 1, 0, 0, 0)            // connection id
	b = append(b, "12345678\x00"...)     // scramble part 1, filler
	b = append(b, 0xff, 0xf7)            // capabilities (low)
	b = append(b, 8, 0x02, 0)            // charset, status
	b = append(b, 0xff, 0x81, 21)        // capabilities (high), scramble length
	b = append(b, make([]byte, 10)...)   // reserved
	b = append(b, "123456789012\x00"...) // scramble part 2
	b = append(b, "mysql_native_password\x00"...)
	return append([]byte{byte(len(b)), byte(len(b) >> 8), 0, 0}, b...)
}

// TestBracketedHost: -h '[::1]' is a host name libmariadb cannot resolve
// ("Unknown server host '[::1]' (-2)"), not an address with the port
// appended a second time.
func TestBracketedHost(t *testing.T) {
	for _, host := range []string{"[::1]", "[127.0.0.1]", "a]b", "[::1]:3306"} {
		addr := net.JoinHostPort(host, "3306")
		err := connectTo(t, "tcp", addr, time.Second)
		code, msg := ConnectError(err, "tcp", addr)
		if want := "Unknown server host '" + host + "' (-2)"; code != 2005 || msg != want {
			t.Errorf("-h %s: got %d %q, want 2005 %q", host, code, msg, want)
		}
		if strings.Count(msg, "3306") != strings.Count(host, "3306") {
			t.Errorf("-h %s: port appended: : %q", host, msg)
		}
	}
}
