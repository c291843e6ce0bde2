package mysqlconn

import (
	"bytes"
	"errors"
	"io"
	"math/rand/v2"
	"net"
	"path/filepath"
	"syscall"
	"testing"
	"time"
)

// unixPair returns both ends of a connected Unix stream socket, the client
// end wrapped as dial wraps it (raw read/write through its RawConn).
func unixPair(t *testing.T) (*socket, net.Conn) {
	t.Helper()
	l, err := net.Listen("unix", filepath.Join(t.TempDir(), "s"))
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	c, err := net.Dial("unix", l.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	s, err := l.Accept()
	if err != nil {
		t.Fatal(err)
	}
	raw, err := c.(syscall.Conn).SyscallConn()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close(); s.Close() })
	tc := &socket{Conn: c}
	tc.setRaw(raw)
	return tc, s
}

// TestTrackedConnRawIO: bytes written and read with raw system calls are
// the bytes sent, in both directions, through full socket buffers (EAGAIN,
// netpoller wait) and the read-ahead buffer; end of stream is io.EOF.
func TestTrackedConnRawIO(t *testing.T) {
	tc, s := unixPair(t)
	rng := rand.New(rand.NewPCG(5, 6))
	want := make([]byte, 3<<20) // far beyond a socket buffer: writes hit EAGAIN
	for i := range want {
		want[i] = byte(rng.Uint32())
	}
	echoed := make(chan error, 1)
	go func() {
		// Echo everything back, then close.
		_, err := io.Copy(s, io.LimitReader(s, int64(len(want))))
		s.Close()
		echoed <- err
	}()
	wrote := make(chan error, 1)
	go func() {
		rest := want
		for len(rest) > 0 {
			n := min(len(rest), 1+rng.IntN(200000))
			if m, err := tc.Write(rest[:n]); err != nil || m != n {
				wrote <- errors.Join(err, io.ErrShortWrite)
				return
			}
			rest = rest[n:]
		}
		wrote <- nil
	}()
	got := readInMixedSizes(t, tc)
	if err := <-wrote; err != nil {
		t.Fatal(err)
	}
	if err := <-echoed; err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want) {
		t.Fatalf("read %d bytes, differing from the %d sent", len(got), len(want))
	}
}

// TestTrackedConnRawAbort: closing the socket from another goroutine (an
// aborted load) ends a read waiting for a reply, and later writes fail.
func TestTrackedConnRawAbort(t *testing.T) {
	tc, _ := unixPair(t)
	done := make(chan error, 1)
	go func() {
		_, err := tc.Read(make([]byte, 4096))
		done <- err
	}()
	time.Sleep(50 * time.Millisecond)
	tc.Conn.Close()
	select {
	case err := <-done:
		if err == nil {
			t.Fatal("read on a closed socket returned no error")
		}
	case <-time.After(5 * time.Second):
		t.Fatal("closing the socket did not end the read")
	}
	if _, err := tc.Write([]byte("x")); err == nil {
		t.Fatal("write on a closed socket returned no error")
	}
}
