//go:build linux

package ring

import (
	"bytes"
	"errors"
	"syscall"
	"testing"
	"time"
)

// rawPair is a socket pair: the loop's end and the peer's.
func rawPair(t *testing.T) (loopEnd, peer int) {
	t.Helper()
	fds, err := syscall.Socketpair(syscall.AF_UNIX, syscall.SOCK_STREAM|syscall.SOCK_CLOEXEC, 0)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { syscall.Close(fds[0]); syscall.Close(fds[1]) })
	return fds[0], fds[1]
}

// rawWait polls until c's exchange is reported (at most 2 s).
func rawWait(t *testing.T, l *Loop) (Result, bool) {
	t.Helper()
	var got []Result
	for deadline := time.Now().Add(2 * time.Second); len(got) == 0 && time.Now().Before(deadline); {
		if err := l.Poll(1, 50*time.Millisecond, func(_ *Conn, r Result) { got = append(got, r) }); err != nil {
			t.Error(err)
			return Result{}, false
		}
	}
	if len(got) != 1 {
		t.Errorf("%d results, want 1: %v", len(got), got)
		return Result{}, false
	}
	return got[0], true
}

// TestRawExchange: a raw exchange sends its bytes and receives whatever
// arrived into the caller's buffer, a reply in pieces taking one exchange
// each; send-only flushes; the peer's end of stream is N 0; a canceled
// exchange fails with ErrCanceled; a send to a closed peer fails as a
// send.
func TestRawExchange(t *testing.T) {
	requireRing(t)
	withLoop(t, 10*time.Second, 4, func(l *Loop) {

		// A request, then a reply in two pieces read by two exchanges
		// (the second sends nothing), then a send-only flush.
		fd, peer := rawPair(t)
		c, _ := l.Add(fd, true)
		in := make([]byte, 64)
		if err := c.StartRaw([]byte("request"), in); err != nil {
			t.Fatal(err)
		}
		if err := l.Poll(0, 0, nil); err != nil { // submit
			t.Fatal(err)
		}
		req := make([]byte, 16)
		if n, _ := syscall.Read(peer, req); string(req[:n]) != "request" {
			t.Errorf("peer got %q, want request", req[:n])
		}
		syscall.Write(peer, []byte("first"))
		if r, ok := rawWait(t, l); ok && (r.Err != nil || string(in[:r.N]) != "first") {
			t.Errorf("first piece: %+v %q", r, in[:r.N])
		}
		syscall.Write(peer, []byte("second"))
		if err := c.StartRaw(nil, in); err != nil {
			t.Fatal(err)
		}
		if r, ok := rawWait(t, l); ok && (r.Err != nil || string(in[:r.N]) != "second") {
			t.Errorf("second piece: %+v %q", r, in[:r.N])
		}
		big := bytes.Repeat([]byte("x"), 100_000) // more than the socket buffer: sent in parts, read meanwhile
		got := make(chan int)
		go func() {
			n, buf := 0, make([]byte, 8192)
			for n < len(big) {
				k, err := syscall.Read(peer, buf)
				if err != nil || k == 0 {
					break
				}
				n += k
			}
			got <- n
		}()
		if err := c.StartRaw(big, nil); err != nil {
			t.Fatal(err)
		}
		if r, ok := rawWait(t, l); ok && (r.Err != nil || r.N != len(big)) {
			t.Errorf("send-only: %+v, want N %d", r, len(big))
		}
		if n := <-got; n != len(big) {
			t.Errorf("peer received %d bytes, want %d", n, len(big))
		}

		// The peer closes: N 0, no error, as read(2).
		fd2, peer2 := rawPair(t)
		c2, _ := l.Add(fd2, true)
		if err := c2.StartRaw([]byte("q"), in); err != nil {
			t.Fatal(err)
		}
		syscall.Shutdown(peer2, syscall.SHUT_WR)
		if r, ok := rawWait(t, l); ok && (r.Err != nil || r.N != 0) {
			t.Errorf("peer closed: %+v, want N 0", r)
		}

		// Cancel: ErrCanceled, and the connection refuses until rebound.
		fd3, _ := rawPair(t)
		c3, _ := l.Add(fd3, true)
		if err := c3.StartRaw([]byte("q"), in); err != nil {
			t.Fatal(err)
		}
		if err := c3.StartRaw(nil, in); err == nil {
			t.Error("a second raw exchange in flight: no error")
		}
		if err := l.Poll(0, 0, nil); err != nil {
			t.Fatal(err)
		}
		l.Cancel(c3)
		if r, ok := rawWait(t, l); ok && !errors.Is(r.Err, ErrCanceled) {
			t.Errorf("canceled: %+v, want ErrCanceled", r)
		}
		if err := c3.StartRaw(nil, in); err == nil {
			t.Error("a canceled connection took a new exchange")
		}

		// A send to a closed peer fails as a send.
		fd4, peer4 := rawPair(t)
		c4, _ := l.Add(fd4, true)
		syscall.Shutdown(peer4, syscall.SHUT_RDWR)
		if err := c4.StartRaw([]byte("q"), in); err != nil {
			t.Fatal(err)
		}
		var ce *ConnError
		if r, ok := rawWait(t, l); ok && (!errors.As(r.Err, &ce) || ce.Op != "send") {
			t.Errorf("send to a closed peer: %+v, want a send ConnError", r)
		}
		if err := c4.StartRaw(nil, nil); err == nil {
			t.Error("an empty raw exchange: no error")
		}
	})
}
