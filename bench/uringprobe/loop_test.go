//go:build linux

package main

import (
	"bytes"
	"io"
	"os"
	"runtime"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/goslap/goslap/internal/mysqlconn/ring"
)

// pkt frames a payload as one packet.
func pkt(seq byte, payload ...byte) []byte {
	n := len(payload)
	return append([]byte{byte(n), byte(n >> 8), byte(n >> 16), seq}, payload...)
}

var (
	errPkt = pkt(1, append([]byte{0xff, 0x7a, 0x04, '#', '4', '2', 'S', '0', '2'}, "Table 'x.t1' doesn't exist"...)...)
	oneRow = bytes.Join([][]byte{
		pkt(1, 0x02),                           // two columns
		pkt(2, append([]byte{3}, "def"...)...), // their definitions (skipped)
		pkt(3, append([]byte{3}, "def"...)...),
		pkt(4, append([]byte{0x01, '7', 0x03}, "abc"...)...), // one row
		pkt(5, 0xfe, 0x00, 0x00, 0x02, 0x00, 0x00, 0x00),     // the OK that ends it
	}, nil)
)

// fakeServer answers COM_QUERY packets on the far end of a socket pair
// with reply, or with errPkt from statement failAt on (0: never).
func fakeServer(t *testing.T, fd int, reply []byte, failAt int) {
	f := os.NewFile(uintptr(fd), "fake server")
	go func() {
		defer f.Close()
		hdr := make([]byte, 4)
		for n := 1; ; n++ {
			if _, err := io.ReadFull(f, hdr); err != nil {
				return // the loop closed its end
			}
			body := make([]byte, int(hdr[0])|int(hdr[1])<<8|int(hdr[2])<<16)
			if _, err := io.ReadFull(f, body); err != nil || body[0] != 0x03 {
				t.Errorf("fake server: bad query packet % x (%v)", body, err)
				return
			}
			out := reply
			if failAt > 0 && n >= failAt {
				out = errPkt
			}
			if _, err := f.Write(out); err != nil {
				return
			}
		}
	}()
}

// The event loops on a fake server: every reply parsed and counted, an
// ERR reply fails the loop. Exercises the ring (setup, SEND/RECV, reaping)
// without MariaDB.
func TestLoops(t *testing.T) {
	const conns, perConn = 5, 40
	for _, kind := range []string{"uring", "epoll"} {
		for _, tc := range []struct {
			name   string
			failAt int
			err    string
		}{
			{"replies", 0, ""},
			{"ERR reply", 7, "Error 1146"},
		} {
			var cs []*conn
			for range conns {
				fds, err := syscall.Socketpair(syscall.AF_UNIX, syscall.SOCK_STREAM|syscall.SOCK_CLOEXEC, 0)
				if err != nil {
					t.Fatal(err)
				}
				fakeServer(t, fds[1], oneRow, tc.failAt)
				c := &conn{fd: fds[0], buf: make([]byte, 16), left: perConn} // 16 bytes: replies arrive in pieces
				c.parser.DeprecateEOF = true
				cs = append(cs, c)
			}
			cfg := loopConfig{kind: kind, perClient: perConn, query: ring.AppendQuery(nil, "SELECT 1"), minComplete: 2}
			done := make(chan struct{})
			var (
				q   int
				err error
			)
			go func() {
				defer close(done)
				runtime.LockOSThread() // a single-issuer ring
				defer runtime.UnlockOSThread()
				if kind == "uring" {
					q, _, _, err = uringLoop(cfg, cs)
				} else {
					q, _, err = epollLoop(cfg, cs)
				}
			}()
			select {
			case <-done:
			case <-time.After(10 * time.Second):
				t.Fatalf("%s %s: no end after 10 s", kind, tc.name)
			}
			for _, c := range cs {
				syscall.Close(c.fd)
			}
			switch {
			case tc.err == "" && (err != nil || q != conns*perConn):
				t.Errorf("%s %s: %d replies, error %v; want %d, none", kind, tc.name, q, err, conns*perConn)
			case tc.err != "" && (err == nil || !strings.Contains(err.Error(), tc.err)):
				t.Errorf("%s %s: error %v, want one containing %q", kind, tc.name, err, tc.err)
			}
		}
	}
}
