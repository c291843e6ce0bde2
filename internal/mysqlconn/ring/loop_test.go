//go:build linux

package ring

import (
	"errors"
	"fmt"
	"io"
	"os"
	"runtime"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/go-sql-driver/mysql"
)

// onThread runs f on a goroutine locked to its OS thread (a Loop's
// methods must all run on the thread that made it) and fails the test if
// f has not returned within limit: a loop must never hang.
func onThread(t *testing.T, limit time.Duration, f func()) {
	t.Helper()
	done := make(chan struct{})
	go func() {
		defer close(done)
		runtime.LockOSThread()
		defer runtime.UnlockOSThread()
		f()
	}()
	select {
	case <-done:
	case <-time.After(limit):
		t.Fatalf("no end after %v", limit)
	}
}

// requireRing skips the test where io_uring is unavailable, except under
// CI, where it fails.
func requireRing(t *testing.T) {
	t.Helper()
	l, err := New(1)
	if errors.Is(err, ErrUnavailable) && os.Getenv("CI") == "" {
		t.Skip(err)
	}
	if err != nil {
		t.Fatal(err)
	}
	if err := l.Close(); err != nil {
		t.Fatal(err)
	}
}

// withLoop runs f on a locked thread (onThread, within limit) with a new
// Loop for conns connections, and closes the loop after f, failing the
// test if Close does.
func withLoop(t *testing.T, limit time.Duration, conns int, f func(l *Loop)) {
	t.Helper()
	onThread(t, limit, func() {
		l := newLoop(t, conns)
		if l == nil {
			return
		}
		defer func() {
			if err := l.Close(); err != nil {
				t.Error(err)
			}
		}()
		f(l)
	})
}

// newLoop is New on the calling (locked) thread; nil after reporting a
// failure.
func newLoop(t *testing.T, conns int) *Loop {
	l, err := New(conns)
	if err != nil {
		t.Error(err)
		return nil
	}
	return l
}

// reply is what the fake server does with one statement.
type reply struct {
	bytes  []byte
	chunk  int  // write the reply this many bytes at a time (0: at once)
	close  bool // close the connection after writing bytes
	silent bool // never reply (until the loop's end is shut down or closed)
}

// fakeServer serves COM_QUERY packets on the far end of a socket pair:
// statement n (from 0) gets script(n). It returns the client's end.
func fakeServer(t *testing.T, script func(n int) reply) int {
	t.Helper()
	fds, err := syscall.Socketpair(syscall.AF_UNIX, syscall.SOCK_STREAM|syscall.SOCK_CLOEXEC, 0)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { syscall.Close(fds[0]) })
	f := os.NewFile(uintptr(fds[1]), "fake server")
	go func() {
		defer f.Close()
		hdr := make([]byte, 4)
		for n := 0; ; n++ {
			if _, err := io.ReadFull(f, hdr); err != nil {
				return // the loop's end is closed or shut down
			}
			body := make([]byte, int(hdr[0])|int(hdr[1])<<8|int(hdr[2])<<16)
			if _, err := io.ReadFull(f, body); err != nil || body[0] != comQuery || hdr[3] != 0 {
				t.Errorf("fake server: bad query packet % x % x (%v)", hdr, body, err)
				return
			}
			r := script(n)
			if r.silent {
				_, _ = io.Copy(io.Discard, f)
				return
			}
			chunk := r.chunk
			if chunk == 0 {
				chunk = len(r.bytes)
			}
			for b := r.bytes; len(b) > 0; b = b[min(chunk, len(b)):] {
				if _, err := f.Write(b[:min(chunk, len(b))]); err != nil {
					return
				}
				if chunk < len(r.bytes) {
					time.Sleep(200 * time.Microsecond) // let the loop see a partial reply
				}
			}
			if r.close {
				return
			}
		}
	}()
	return fds[0]
}

var query = AppendQuery(nil, "SELECT intcol1,charcol1 FROM t1 WHERE id=500")

// run drives a Loop of the connections fds, each running up to stmts
// statements (one exchange after the other, going on after an ERR reply,
// stopping at a broken connection), closes it, and returns every
// connection's results. bufSize > 0 sets the receive buffers' first size.
func run(t *testing.T, fds []int, deprecateEOF bool, stmts, bufSize int) [][]Result {
	t.Helper()
	requireRing(t)
	results := make([][]Result, len(fds))
	withLoop(t, 10*time.Second, len(fds), func(l *Loop) {
		if bufSize > 0 {
			l.bufSize = bufSize
		}
		for _, fd := range fds {
			c, err := l.Add(fd, deprecateEOF)
			if err != nil {
				t.Error(err)
				return
			}
			if err := c.Start(query); err != nil {
				t.Error(err)
				return
			}
		}
		done := func(c *Conn, r Result) {
			results[c.ID()] = append(results[c.ID()], r)
			var ce *ConnError
			if len(results[c.ID()]) < stmts && !errors.As(r.Err, &ce) {
				if err := c.Start(query); err != nil {
					t.Errorf("conn %d: Start: %v", c.ID(), err)
				}
			}
		}
		for l.Busy() > 0 {
			if err := l.Poll(2, 50*time.Millisecond, done); err != nil {
				t.Error(err)
				return
			}
		}
	})
	return results
}

func TestLoop(t *testing.T) {
	oneRowEOF := cat(colCount2, colDef, colDef, eofPkt, row, rowNull, eofPkt)
	tests := []struct {
		name         string
		conns, stmts int
		deprecateEOF bool
		bufSize      int
		script       func(n int) reply
		// want is connection i's result of statement n (Err compared by
		// its text, "" for none).
		want func(i, n int) (rows uint64, err string)
		// count is the number of results connection i reports.
		count func(i int) int
	}{
		{
			name: "result sets", conns: 5, stmts: 40, deprecateEOF: true,
			script: func(int) reply { return reply{bytes: oneRow} },
			want:   func(int, int) (uint64, string) { return 1, "" },
		},
		{
			name: "result sets with EOF packets, in pieces, into a small buffer", conns: 3, stmts: 10, bufSize: 8,
			script: func(n int) reply { return reply{bytes: oneRowEOF, chunk: 1 + n%5} },
			want:   func(int, int) (uint64, string) { return 2, "" },
		},
		{
			name: "OK replies", conns: 2, stmts: 5,
			script: func(int) reply { return reply{bytes: okAffected3} },
			want:   func(int, int) (uint64, string) { return 0, "" },
		},
		{
			name: "ERR replies leave the connection usable", conns: 2, stmts: 6, deprecateEOF: true,
			script: func(n int) reply {
				if n%2 == 1 {
					return reply{bytes: errPkt, chunk: 3}
				}
				return reply{bytes: oneRow}
			},
			want: func(_, n int) (uint64, string) {
				if n%2 == 1 {
					return 0, "Error 1146 (42S02): Table 'x.t1' doesn't exist"
				}
				return 1, ""
			},
		},
		{
			name: "the server closes the connection", conns: 2, stmts: 10, deprecateEOF: true,
			script: func(n int) reply {
				if n == 3 {
					return reply{close: true}
				}
				return reply{bytes: oneRow}
			},
			want: func(_, n int) (uint64, string) {
				if n == 3 {
					return 0, "ring: recv: the server closed the connection"
				}
				return 1, ""
			},
			count: func(int) int { return 4 },
		},
		{
			name: "the server closes in the middle of a reply", conns: 1, stmts: 10, deprecateEOF: true,
			script: func(n int) reply {
				if n == 2 {
					return reply{bytes: oneRow[:9], close: true}
				}
				return reply{bytes: oneRow}
			},
			want: func(_, n int) (uint64, string) {
				if n == 2 {
					return 0, "ring: recv: the server closed the connection"
				}
				return 1, ""
			},
			count: func(int) int { return 3 },
		},
		{
			name: "bytes after the reply", conns: 1, stmts: 3, deprecateEOF: true,
			script: func(int) reply { return reply{bytes: cat(okPkt, okPkt)} },
			want: func(int, int) (uint64, string) {
				return 0, "ring: reply: 11 bytes after the reply"
			},
			count: func(int) int { return 1 },
		},
		{
			name: "a reply the parser refuses", conns: 1, stmts: 3,
			script: func(int) reply { return reply{bytes: pkt(1, 0xfb, 'f')} },
			want: func(int, int) (uint64, string) {
				return 0, "ring: reply: LOCAL INFILE request (not supported)"
			},
			count: func(int) int { return 1 },
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			fds := make([]int, tt.conns)
			for i := range fds {
				fds[i] = fakeServer(t, tt.script)
			}
			results := run(t, fds, tt.deprecateEOF, tt.stmts, tt.bufSize)
			for i, rs := range results {
				want := tt.stmts
				if tt.count != nil {
					want = tt.count(i)
				}
				if len(rs) != want {
					t.Errorf("conn %d: %d results, want %d", i, len(rs), want)
				}
				for n, r := range rs {
					rows, errText := tt.want(i, n)
					got := ""
					if r.Err != nil {
						got = r.Err.Error()
					}
					if r.Rows != rows || got != errText {
						t.Errorf("conn %d statement %d: rows %d, error %q; want %d, %q", i, n, r.Rows, got, rows, errText)
					}
				}
			}
		})
	}
}

// The errors say how the engine must take them: an ERR reply is the
// driver's *mysql.MySQLError (the connection goes on); a closed
// connection is io.ErrUnexpectedEOF under a *ConnError (lost: 2013).
func TestResultErrorsClassify(t *testing.T) {
	fds := []int{
		fakeServer(t, func(int) reply { return reply{bytes: errPkt} }),
		fakeServer(t, func(int) reply { return reply{close: true} }),
	}
	results := run(t, fds, true, 1, 0)
	var me *mysql.MySQLError
	if len(results[0]) != 1 || !errors.As(results[0][0].Err, &me) || me.Number != 1146 {
		t.Errorf("ERR reply: %v, want a *mysql.MySQLError 1146", results[0])
	}
	var ce *ConnError
	if len(results[1]) != 1 || !errors.As(results[1][0].Err, &ce) || !errors.Is(results[1][0].Err, io.ErrUnexpectedEOF) {
		t.Errorf("closed connection: %v, want a *ConnError wrapping io.ErrUnexpectedEOF", results[1])
	}
}

// A send to a peer that is gone fails (EPIPE, no SIGPIPE); the linked
// receive is canceled, and the exchange reports the send's error once,
// whichever completion comes first.
func TestSendToClosedPeer(t *testing.T) {
	requireRing(t)
	fds, err := syscall.Socketpair(syscall.AF_UNIX, syscall.SOCK_STREAM|syscall.SOCK_CLOEXEC, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer syscall.Close(fds[0])
	syscall.Close(fds[1])
	withLoop(t, 5*time.Second, 1, func(l *Loop) {
		c, _ := l.Add(fds[0], true)
		if err := c.Start(query); err != nil {
			t.Error(err)
			return
		}
		var got []Result
		for deadline := time.Now().Add(2 * time.Second); l.Busy() > 0 && time.Now().Before(deadline); {
			if err := l.Poll(1, 50*time.Millisecond, func(_ *Conn, r Result) { got = append(got, r) }); err != nil {
				t.Error(err)
				return
			}
		}
		if len(got) != 1 || !errors.Is(got[0].Err, syscall.EPIPE) {
			t.Errorf("results %v, want one EPIPE", got)
		}
		if err := c.Start(query); err == nil {
			t.Error("Start on a broken connection: no error")
		}
	})
}

// A server that does not answer: Poll returns after its wait, the exchange
// still in flight; Cancel ends it (ErrCanceled) and Close returns at once.
func TestTimeoutAndCancel(t *testing.T) {
	requireRing(t)
	fd := fakeServer(t, func(int) reply { return reply{silent: true} })
	withLoop(t, 5*time.Second, 1, func(l *Loop) {
		c, _ := l.Add(fd, true)
		if err := c.Start(query); err != nil {
			t.Error(err)
			return
		}
		var got []Result
		collect := func(_ *Conn, r Result) { got = append(got, r) }
		// Each Poll waits its 30 ms (a signal may cut one short, so they
		// are counted rather than timed one by one) and never much longer.
		polls := 0
		for t0 := time.Now(); time.Since(t0) < 90*time.Millisecond; polls++ {
			p0 := time.Now()
			if err := l.Poll(1, 30*time.Millisecond, collect); err != nil {
				t.Error(err)
				return
			}
			if d := time.Since(p0); d > time.Second {
				t.Errorf("a Poll of 30 ms took %v", d)
			}
		}
		if polls > 10 {
			t.Errorf("%d Polls of 30 ms in 90 ms: they do not wait", polls)
		}
		if len(got) != 0 || l.Busy() != 1 {
			t.Errorf("after the waits: results %v, %d in flight; want none, 1", got, l.Busy())
		}
		if err := c.Start(query); err == nil {
			t.Error("a second Start while in flight: no error")
		}
		l.Cancel(c)
		for deadline := time.Now().Add(2 * time.Second); l.Busy() > 0 && time.Now().Before(deadline); {
			if err := l.Poll(1, 50*time.Millisecond, collect); err != nil {
				t.Error(err)
				return
			}
		}
		if len(got) != 1 || !errors.Is(got[0].Err, ErrCanceled) {
			t.Errorf("after Cancel: %v, want one ErrCanceled", got)
		}
	})
}

// Close with exchanges in flight cancels them and returns promptly.
func TestCloseInFlight(t *testing.T) {
	requireRing(t)
	fds := []int{
		fakeServer(t, func(int) reply { return reply{silent: true} }),
		fakeServer(t, func(int) reply { return reply{silent: true} }),
	}
	onThread(t, 5*time.Second, func() {
		l := newLoop(t, 2)
		if l == nil {
			return
		}
		for _, fd := range fds {
			c, _ := l.Add(fd, true)
			if err := c.Start(query); err != nil {
				t.Error(err)
			}
		}
		if err := l.Poll(1, 10*time.Millisecond, nil); err != nil {
			t.Error(err)
		}
		t0 := time.Now()
		if err := l.Close(); err != nil {
			t.Error(err)
		}
		if d := time.Since(t0); d > time.Second || l.Busy() != 0 {
			t.Errorf("Close took %v, %d still in flight", d, l.Busy())
		}
	})
}

func TestStartRefuses(t *testing.T) {
	requireRing(t)
	fd := fakeServer(t, func(int) reply { return reply{bytes: okPkt} })
	withLoop(t, 5*time.Second, 1, func(l *Loop) {
		c, _ := l.Add(fd, true)
		for _, p := range [][]byte{nil, {1, 0, 0, 0}, {9, 0, 0, 0, 3, 'x'}} {
			if err := c.Start(p); err == nil || l.Busy() != 0 {
				t.Errorf("Start(% x): error %v, %d in flight; want an error, none", p, err, l.Busy())
			}
		}
		if _, err := l.Add(fd, true); err == nil {
			t.Error("a second Add to a loop of 1: no error")
		}
	})
	for _, n := range []int{0, MaxConns + 1} {
		if _, err := New(n); err == nil {
			t.Errorf("New(%d): no error", n)
		}
	}
}

// Where the kernel refuses io_uring, New says so with ErrUnavailable (the
// caller falls back), never a panic.
func TestUnavailable(t *testing.T) {
	saved := setupSyscall
	defer func() { setupSyscall = saved }()
	for _, tc := range []struct {
		name  string
		errno syscall.Errno
		calls int // setup attempts expected
	}{
		{"ENOSYS", syscall.ENOSYS, 1},
		{"EPERM (io_uring_disabled)", syscall.EPERM, 1},
		{"EINVAL for every mode", syscall.EINVAL, len(setupModes)},
	} {
		calls := 0
		setupSyscall = func(uint32, *uringParams) (int, syscall.Errno) { calls++; return -1, tc.errno }
		l, err := New(4)
		if l != nil || !errors.Is(err, ErrUnavailable) || !strings.Contains(err.Error(), tc.errno.Error()) || calls != tc.calls {
			t.Errorf("%s: New = %v, %v after %d setups; want ErrUnavailable after %d", tc.name, l, err, calls, tc.calls)
		}
	}
	// A ring set up by a kernel without a feature the loop needs.
	for _, tc := range []struct {
		features uint32
		lacks    string
	}{
		{ioringFeatCQESkip, "IORING_FEAT_EXT_ARG"},
		{ioringFeatExtArg, "IORING_FEAT_CQE_SKIP"},
	} {
		var p [2]int
		if err := syscall.Pipe2(p[:], syscall.O_CLOEXEC); err != nil {
			t.Fatal(err)
		}
		syscall.Close(p[1])
		setupSyscall = func(_ uint32, up *uringParams) (int, syscall.Errno) { up.features = tc.features; return p[0], 0 }
		l, err := New(4)
		if l != nil || !errors.Is(err, ErrUnavailable) || !strings.Contains(err.Error(), tc.lacks) {
			t.Errorf("features %#x: New = %v, %v; want ErrUnavailable naming %s", tc.features, l, err, tc.lacks)
		}
		if _, err := syscall.Read(p[0], make([]byte, 1)); err != syscall.EBADF {
			t.Errorf("features %#x: the ring's descriptor was not closed (read: %v)", tc.features, err)
		}
	}
}

// Many connections on one ring, waiting for several completions per
// enter: every exchange is reported once, with its rows.
func TestManyConnections(t *testing.T) {
	const conns, stmts = 200, 25
	fds := make([]int, conns)
	for i := range fds {
		fds[i] = fakeServer(t, func(n int) reply {
			if n%7 == 3 {
				return reply{bytes: errPkt}
			}
			return reply{bytes: oneRow}
		})
	}
	results := run(t, fds, true, stmts, 0)
	for i, rs := range results {
		if len(rs) != stmts {
			t.Fatalf("conn %d: %d results, want %d", i, len(rs), stmts)
		}
		for n, r := range rs {
			var me *mysql.MySQLError
			if n%7 == 3 && !errors.As(r.Err, &me) || n%7 != 3 && (r.Err != nil || r.Rows != 1) {
				t.Fatalf("conn %d statement %d: %+v", i, n, r)
			}
		}
	}
}

// A broken connection takes a new descriptor (a reconnect) and goes on;
// Rebind refuses while an exchange is in flight.
func TestRebind(t *testing.T) {
	requireRing(t)
	closing := fakeServer(t, func(int) reply { return reply{close: true} })
	fresh := fakeServer(t, func(int) reply { return reply{bytes: oneRow} })
	silent := fakeServer(t, func(int) reply { return reply{silent: true} })
	withLoop(t, 5*time.Second, 1, func(l *Loop) {
		c, _ := l.Add(closing, true)
		var got []Result
		collect := func(_ *Conn, r Result) { got = append(got, r) }
		drive := func() {
			for deadline := time.Now().Add(2 * time.Second); l.Busy() > 0 && time.Now().Before(deadline); {
				if err := l.Poll(1, 50*time.Millisecond, collect); err != nil {
					t.Error(err)
					return
				}
			}
		}
		if err := c.Start(query); err != nil {
			t.Fatal(err)
		}
		drive()
		if err := c.Start(query); err == nil {
			t.Error("Start after the server closed: no error")
		}
		if err := c.Rebind(fresh, true); err != nil {
			t.Fatal(err)
		}
		if err := c.Start(query); err != nil {
			t.Fatal(err)
		}
		drive()
		if len(got) != 2 || !errors.Is(got[0].Err, io.ErrUnexpectedEOF) || got[1].Err != nil || got[1].Rows != 1 || c.FD() != fresh {
			t.Errorf("results %+v, want a lost connection then one row on the new descriptor", got)
		}
		if err := c.Rebind(silent, true); err != nil {
			t.Fatal(err)
		}
		if err := c.Start(query); err != nil {
			t.Fatal(err)
		}
		if err := c.Rebind(fresh, true); err == nil {
			t.Error("Rebind in flight: no error")
		}
	})
}

// A completion left from an earlier exchange (or another connection's
// number) is never taken for the exchange in flight.
func TestStaleCompletionIgnored(t *testing.T) {
	requireRing(t)
	fd := fakeServer(t, func(int) reply { return reply{silent: true} })
	withLoop(t, 5*time.Second, 1, func(l *Loop) {
		c, _ := l.Add(fd, true)
		if err := c.Start(query); err != nil {
			t.Fatal(err)
		}
		var got []Result
		l.done = func(_ *Conn, r Result) { got = append(got, r) }
		stale := c.userData(1) - 2 // the previous exchange's RECV
		l.handle(cqe{userData: stale, res: -int32(syscall.ECANCELED)})
		l.handle(cqe{userData: uint64(5)<<33 | 1, res: 0}) // no such connection
		l.done = nil
		if len(got) != 0 || l.Busy() != 1 {
			t.Errorf("stale completions reported %v, %d in flight; want nothing, 1", got, l.Busy())
		}
	})
}

// TestWaitYieldsToTheRuntime: a ring thread waiting for completions (a
// raw io_uring_enter that the runtime does not see as a system call)
// holds up neither a stop-the-world nor, with a single P, the other
// goroutines for long: the runtime's preemption signal ends the wait.
func TestWaitYieldsToTheRuntime(t *testing.T) {
	requireRing(t)
	for _, procs := range []int{runtime.GOMAXPROCS(0), 1} {
		t.Run(fmt.Sprintf("GOMAXPROCS=%d", procs), func(t *testing.T) {
			defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(procs))
			fd := fakeServer(t, func(int) reply { return reply{silent: true} })
			waiting, stop := make(chan struct{}), make(chan struct{})
			var problems []string
			go func() {
				defer close(stop)
				<-waiting
				time.Sleep(50 * time.Millisecond) // the ring thread is in its wait
				for i := range 3 {
					t0 := time.Now()
					runtime.GC()
					slept := time.Now()
					time.Sleep(time.Millisecond)
					gc, sleep := slept.Sub(t0), time.Since(slept)
					t.Logf("round %d: GC %v, 1 ms sleep %v", i, gc, sleep)
					// A waiting ring that held up the world would take its
					// whole 2 s wait; the bar leaves a loaded machine room.
					if gc > 500*time.Millisecond || sleep > 500*time.Millisecond {
						problems = append(problems, fmt.Sprintf("round %d: a GC took %v, a 1 ms sleep %v, while the ring waited", i, gc, sleep))
					}
				}
			}()
			onThread(t, 20*time.Second, func() {
				defer func() {
					select {
					case <-waiting:
					default:
						close(waiting)
					}
				}()
				l := newLoop(t, 1)
				if l == nil {
					return
				}
				defer l.Close()
				c, _ := l.Add(fd, true)
				if err := c.Start(query); err != nil {
					t.Error(err)
					return
				}
				close(waiting)
				for {
					select {
					case <-stop:
						return
					default:
					}
					// Long waits: only a signal ends one early.
					if err := l.Poll(1, 2*time.Second, func(*Conn, Result) {}); err != nil {
						t.Error(err)
						return
					}
				}
			})
			<-stop
			for _, p := range problems {
				t.Error(p)
			}
		})
	}
}

// bigReply is a result set of rows text rows of a 130-byte value each
// (CLIENT_DEPRECATE_EOF): 100 rows are about a read-only event's range
// select (13.5 KB).
func bigReply(rows int) []byte {
	r := pkt(6, append([]byte{129}, strings.Repeat("v", 129)...)...)
	ps := [][]byte{colCount2, colDef, colDef}
	for range rows {
		ps = append(ps, r)
	}
	return cat(append(ps, okEndOfRows)...)
}

// A receive buffer that a reply filled grows (doubling, up to grownBuf)
// and keeps its size: replies larger than the first buffer, packets that
// span receives, a reply larger than grownBuf, a packet larger than it.
func TestReceiveBufferGrows(t *testing.T) {
	requireRing(t)
	tests := []struct {
		name  string
		first int // the first buffer's size
		reply []byte
		chunk int
		stmts int
		// The buffer's size at the end is within [minBuf, maxBuf].
		minBuf, maxBuf int
		// steadyFrom > 0: every reply from this statement on takes one
		// receive (the server writes it at once and it fits the grown
		// buffer).
		steadyFrom int
		rows       uint64
	}{
		{name: "range-select replies into the default buffer", first: bufSize, reply: bigReply(100), stmts: 6,
			minBuf: grownBuf, maxBuf: grownBuf, steadyFrom: 1, rows: 100},
		{name: "a reply of 2.7 KB into 64 bytes", first: 64, reply: bigReply(20), stmts: 5,
			minBuf: 4096, maxBuf: 4096, steadyFrom: 2, rows: 20},
		{name: "packets spanning receives, written in pieces", first: 64, reply: bigReply(30), chunk: 1000, stmts: 4,
			minBuf: 1024, maxBuf: grownBuf, rows: 30},
		{name: "replies larger than grownBuf", first: bufSize, reply: bigReply(300), stmts: 3,
			minBuf: grownBuf, maxBuf: grownBuf, rows: 300},
		{name: "small replies keep the buffer", first: bufSize, reply: oneRow, stmts: 20,
			minBuf: bufSize, maxBuf: bufSize, steadyFrom: 1, rows: 1},
		{name: "a packet longer than grownBuf", first: bufSize,
			reply: cat(colCount2, colDef, colDef, pkt(6, append([]byte{0xfc, 0x00, 0x50}, strings.Repeat("w", 0x5000)...)...), okEndOfRows),
			stmts: 2, minBuf: 0x5008, maxBuf: 64 << 10, rows: 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			fd := fakeServer(t, func(int) reply { return reply{bytes: tt.reply, chunk: tt.chunk} })
			var results []Result
			var recvs []uint64 // receives per exchange
			var bufLen int
			withLoop(t, 10*time.Second, 1, func(l *Loop) {
				l.bufSize = tt.first
				c, err := l.Add(fd, true)
				if err != nil {
					t.Error(err)
					return
				}
				var before uint64
				done := func(c *Conn, r Result) {
					results = append(results, r)
					recvs = append(recvs, c.recvs-before)
					before = c.recvs
					if len(results) < tt.stmts && r.Err == nil {
						if err := c.Start(query); err != nil {
							t.Error(err)
						}
					}
				}
				if err := c.Start(query); err != nil {
					t.Error(err)
					return
				}
				for l.Busy() > 0 {
					if err := l.Poll(1, 50*time.Millisecond, done); err != nil {
						t.Error(err)
						return
					}
				}
				bufLen = len(c.buf)
			})
			if len(results) != tt.stmts {
				t.Fatalf("%d results, want %d: %+v", len(results), tt.stmts, results)
			}
			for n, r := range results {
				if r.Err != nil || r.Rows != tt.rows {
					t.Errorf("statement %d: %+v, want %d rows", n, r, tt.rows)
				}
			}
			if bufLen < tt.minBuf || bufLen > tt.maxBuf {
				t.Errorf("receive buffer %d bytes at the end, want %d to %d", bufLen, tt.minBuf, tt.maxBuf)
			}
			if tt.steadyFrom > 0 {
				for n, k := range recvs[tt.steadyFrom:] {
					if k != 1 {
						t.Errorf("statement %d took %d receives, want 1 (all: %v)", tt.steadyFrom+n, k, recvs)
					}
				}
			}
		})
	}
}

// TestReplyReceiveWaitsForTheSocket: the RECV queued behind a SEND asks the
// kernel to wait for the socket before it tries to receive (the reply is
// never there yet, uring.pollFirst), a RECV of a reply's rest or a raw
// read without a send tries at once, and the exchanges still complete.
func TestReplyReceiveWaitsForTheSocket(t *testing.T) {
	requireRing(t)
	fd := fakeServer(t, func(int) reply { return reply{bytes: oneRow} })
	withLoop(t, 10*time.Second, 1, func(l *Loop) {
		if l.u.mode != "plain" && !l.u.pollFirst {
			t.Errorf("mode %s: RECVs would not wait for the socket", l.u.mode)
		}
		want := uint16(0)
		if l.u.pollFirst {
			want = ioringRecvsendPollFirst
		}
		c, err := l.Add(fd, true)
		if err != nil {
			t.Error(err)
			return
		}
		in := make([]byte, 4096)
		var got int
		tests := []struct {
			name  string
			start func() error
			// The ioprio of the last SQE prepared (the RECV, or the SEND of
			// a send-only exchange).
			ioprio uint16
		}{
			{"a statement's reply", func() error { return c.Start(query) }, want},
			{"a raw exchange's reply", func() error { return c.StartRaw(query, in) }, want},
			{"a raw send without a receive", func() error { return c.StartRaw(query, nil) }, 0},
			{"a raw read without a send", func() error { return c.StartRaw(nil, in) }, 0},
		}
		for _, tt := range tests {
			if err := tt.start(); err != nil {
				t.Errorf("%s: %v", tt.name, err)
				return
			}
			if e := l.u.sqes[(l.u.sqLocalTail-1)&l.u.sqMask]; e.ioprio != tt.ioprio {
				t.Errorf("%s: ioprio %#x, want %#x", tt.name, e.ioprio, tt.ioprio)
			}
			for l.Busy() > 0 {
				if err := l.Poll(1, time.Second, func(_ *Conn, r Result) {
					if r.Err != nil {
						t.Errorf("%s: %v", tt.name, r.Err)
					}
					got++
				}); err != nil {
					t.Error(err)
					return
				}
			}
		}
		if got != len(tests) {
			t.Errorf("%d exchanges completed, want %d", got, len(tests))
		}
	})
}
