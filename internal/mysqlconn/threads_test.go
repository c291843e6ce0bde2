package mysqlconn

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"net"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/go-sql-driver/mysql"

	"github.com/goslap/goslap/internal/sandbox/servertest"
)

// socketPair returns both ends of a connected stream socket ("unix" or
// "tcp"), the client end wrapped as dial wraps it; blocking switches the
// client end to the threaded path's blocking socket.
func socketPair(t *testing.T, network string, blocking bool) (*socket, net.Conn) {
	t.Helper()
	addr := "127.0.0.1:0"
	if network == "unix" {
		addr = filepath.Join(t.TempDir(), "s")
	}
	l, err := net.Listen(network, addr)
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	c, err := net.Dial(network, l.Addr().String())
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
	tc := &socket{Conn: c}
	tc.setRaw(raw)
	t.Cleanup(func() { tc.Close(); s.Close() })
	if blocking {
		if err := tc.block(); err != nil {
			t.Fatal(err)
		}
		if !isBlocking(t, tc) {
			t.Fatal("block left the socket non-blocking")
		}
	}
	return tc, s
}

// isBlocking reports whether the socket's descriptor is in blocking mode.
func isBlocking(t *testing.T, tc *socket) bool {
	t.Helper()
	var flags uintptr
	var errno syscall.Errno
	get := func(fd uintptr) { flags, _, errno = syscall.RawSyscall(syscall.SYS_FCNTL, fd, syscall.F_GETFL, 0) }
	if tc.blocking {
		get(uintptr(tc.fd))
	} else if err := tc.raw.Control(get); err != nil {
		t.Fatal(err)
	}
	if errno != 0 {
		t.Fatal(errno)
	}
	return flags&syscall.O_NONBLOCK == 0
}

// inRuntimeEpoll reports whether the open socket fd is registered in an
// epoll set of the process (the runtime's netpoller has the only one): an
// epoll descriptor's fdinfo lists each target's inode ("ino:" in hex).
func inRuntimeEpoll(fd int) (bool, error) {
	var st syscall.Stat_t
	if err := syscall.Fstat(fd, &st); err != nil {
		return false, err
	}
	ents, err := os.ReadDir("/proc/self/fd")
	if err != nil {
		return false, err
	}
	epolls := 0
	for _, e := range ents {
		if l, _ := os.Readlink("/proc/self/fd/" + e.Name()); l != "anon_inode:[eventpoll]" {
			continue
		}
		info, err := os.ReadFile("/proc/self/fdinfo/" + e.Name())
		if err != nil {
			continue // closed meanwhile
		}
		epolls++
		for _, line := range strings.Split(string(info), "\n") {
			if !strings.HasPrefix(line, "tfd:") {
				continue
			}
			for _, f := range strings.Fields(line) {
				if ino, ok := strings.CutPrefix(f, "ino:"); ok {
					if v, err := strconv.ParseUint(ino, 16, 64); err == nil && v == st.Ino {
						return true, nil
					}
				}
			}
		}
	}
	if epolls == 0 {
		return false, errors.New("no epoll descriptor in the process: the runtime's netpoller was not found")
	}
	return false, nil
}

// TestThreadedSocketOffNetpoller: the threaded path's socket is out of
// the runtime's epoll set (each reply woke an M waiting there for a timer:
// BENCHMARKS.md, "Client cost: thread-per-client sockets off the
// netpoller"); the netpoller path's is in it, which shows the check sees
// the set.
func TestThreadedSocketOffNetpoller(t *testing.T) {
	for _, network := range []string{"unix", "tcp"} {
		for _, p := range paths {
			t.Run(network+"/"+p.name, func(t *testing.T) {
				tc, _ := socketPair(t, network, p.blocking)
				fd := tc.fd
				if !p.blocking {
					if err := tc.raw.Control(func(d uintptr) { fd = int(d) }); err != nil {
						t.Fatal(err)
					}
				}
				got, err := inRuntimeEpoll(fd)
				if err != nil {
					t.Fatal(err)
				}
				if got == p.blocking {
					t.Errorf("socket in the runtime's epoll set: %v", got)
				}
			})
		}
	}
}

// paths: the netpoller, and the threaded path (raw calls on a blocking
// socket, replies waited for in poll(2)).
var paths = []struct {
	name     string
	blocking bool
}{{"netpoller", false}, {"threaded", true}}

// TestSocketPathsIO: on both paths and both transports, the bytes written
// and read are the bytes sent, in both directions, through full socket
// buffers and the read-ahead buffer; end of stream is io.EOF.
func TestSocketPathsIO(t *testing.T) {
	for _, network := range []string{"unix", "tcp"} {
		for _, p := range paths {
			t.Run(network+"/"+p.name, func(t *testing.T) {
				if p.blocking {
					// As a load of two threaded clients (reader, writer).
					procs.add(2)
					defer procs.add(-2)
					runtime.LockOSThread()
					defer runtime.UnlockOSThread()
				}
				tc, s := socketPair(t, network, p.blocking)
				rng := rand.New(rand.NewPCG(7, 8))
				want := make([]byte, 1<<20) // several socket buffers: writes wait
				for i := range want {
					want[i] = byte(rng.Uint32())
				}
				echoed := make(chan error, 1)
				go func() {
					_, err := io.Copy(s, io.LimitReader(s, int64(len(want))))
					s.Close()
					echoed <- err
				}()
				// As a client talks to a server: a request, then its whole
				// reply, in mixed sizes. The loop does not allocate: with the
				// peer in this process, a stop-the-world GC waits for a raw
				// read to time out (10 ms) while the peer cannot run, so a
				// garbage-making test measured GC, not the path (5-255 s for
				// 1 MiB, allocating per read, both directions at once).
				got := make([]byte, 0, len(want))
				buf := make([]byte, 20000)
				sizes := []int{4, 4096, 100, 4096, 7, 20000, 1}
				for rest, i := want, 0; len(rest) > 0; i++ {
					n := min(len(rest), 1+rng.IntN(60000))
					if m, err := tc.Write(rest[:n]); err != nil || m != n {
						t.Fatal(errors.Join(err, io.ErrShortWrite))
					}
					for end := len(got) + n; len(got) < end; i++ {
						b := buf[:min(sizes[i%len(sizes)], end-len(got))]
						m, err := tc.Read(b)
						if err != nil {
							t.Fatal(err)
						}
						got = append(got, b[:m]...)
					}
					rest = rest[n:]
				}
				if err := <-echoed; err != nil {
					t.Fatal(err)
				}
				if !bytes.Equal(got, want) {
					t.Fatalf("read %d bytes, differing from the %d sent", len(got), len(want))
				}
			})
		}
	}
}

// TestSlotBreakWakesRead: Break ends a read waiting for a reply that never
// comes, on both paths and transports (a raw wait in poll(2) is not woken
// by close(2); shutdown(2) wakes it), and later writes fail.
func TestSlotBreakWakesRead(t *testing.T) {
	for _, network := range []string{"unix", "tcp"} {
		for _, p := range paths {
			t.Run(network+"/"+p.name, func(t *testing.T) {
				tc, _ := socketPair(t, network, p.blocking)
				var slot Slot
				slot.conn.Store(tc)
				done := make(chan error, 1)
				go func() {
					if p.blocking {
						runtime.LockOSThread()
						defer runtime.UnlockOSThread()
					}
					_, err := tc.Read(make([]byte, 4096))
					done <- err
				}()
				time.Sleep(100 * time.Millisecond) // past several SO_RCVTIMEO expiries
				select {
				case err := <-done:
					t.Fatalf("read ended before Break: %v", err)
				default:
				}
				slot.Break()
				select {
				case err := <-done:
					if err == nil {
						t.Fatal("read on a broken socket returned no error")
					}
				case <-time.After(5 * time.Second):
					t.Fatal("Break did not end the read")
				}
				if _, err := tc.Write([]byte("x")); err == nil {
					t.Fatal("write on a broken socket returned no error")
				}
			})
		}
	}
}

// plainConnector is a connector the threaded path serves, for tests that
// never dial (its socket does not exist).
func plainConnector(t *testing.T) *Connector {
	t.Helper()
	c, err := NewConnector(&mysql.Config{Net: "unix", Addr: "/nonexistent"}, "")
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// TestEnterBlocking: a threaded load's clients get blocking sockets, one
// client alone as well, and Leave clears it (the slot may serve a
// netpoller load next).
func TestEnterBlocking(t *testing.T) {
	plain := plainConnector(t)
	for _, tt := range []struct {
		clients  int
		blocking bool
	}{{1, true}, {2, true}, {4, true}, {100, false}} {
		th := plain.StartThreads(tt.clients, 64)
		var slot Slot
		th.Enter(&slot)
		if slot.blocking != tt.blocking {
			t.Errorf("%d clients: blocking %v; want %v", tt.clients, slot.blocking, tt.blocking)
		}
		th.Leave(&slot)
		th.Stop()
		if slot.blocking {
			t.Errorf("%d clients: Leave left the slot blocking", tt.clients)
		}
	}
}

// TestStartThreads: the threshold picks the path, GOMAXPROCS is raised to
// the threaded clients + 1 across overlapping loads and restored when the
// last one stops, and configurations the threaded path does not serve
// (TLS, compression, driver time-outs) keep the netpoller path.
func TestStartThreads(t *testing.T) {
	plain := plainConnector(t)
	base := runtime.GOMAXPROCS(0)
	for _, tt := range []struct {
		clients, below int
		want           bool
	}{{1, 64, true}, {63, 64, true}, {64, 64, false}, {1000, 64, false}, {1, 0, false}, {5, 1000, true}} {
		th := plain.StartThreads(tt.clients, tt.below)
		if th.Threaded() != tt.want {
			t.Errorf("%d clients below %d: threaded %v", tt.clients, tt.below, th.Threaded())
		}
		if want := max(base, tt.clients+1); tt.want && runtime.GOMAXPROCS(0) != want {
			t.Errorf("%d clients: GOMAXPROCS %d, want %d", tt.clients, runtime.GOMAXPROCS(0), want)
		}
		th.Stop()
		if got := runtime.GOMAXPROCS(0); got != base {
			t.Fatalf("after Stop GOMAXPROCS %d, want %d", got, base)
		}
	}
	a, b := plain.StartThreads(10, 64), plain.StartThreads(20, 64)
	if got, want := runtime.GOMAXPROCS(0), max(base, 31); got != want {
		t.Errorf("two loads: GOMAXPROCS %d, want %d", got, want)
	}
	a.Stop()
	if got := runtime.GOMAXPROCS(0); got < 21 {
		t.Errorf("one load of 20 left: GOMAXPROCS %d", got)
	}
	b.Stop()
	if got := runtime.GOMAXPROCS(0); got != base {
		t.Errorf("after both: GOMAXPROCS %d, want %d", got, base)
	}

	for name, cfg := range map[string]*mysql.Config{
		"compress":     func() *mysql.Config { c := mysql.NewConfig(); c.Apply(mysql.EnableCompression(true)); return c }(),
		"read timeout": {Net: "unix", Addr: "/x", ReadTimeout: time.Second},
	} {
		c, err := NewConnector(cfg, "")
		if err != nil {
			t.Fatal(name, err)
		}
		if th := c.StartThreads(4, 64); th.Threaded() {
			th.Stop()
			t.Errorf("%s: threaded path chosen", name)
		}
	}
}

// TestThreadedConnect: a client entered on the threaded path gets a
// blocking socket after the handshake; statements, results and failure
// wording are the netpoller path's; Break ends a statement the server is
// still running.
func TestThreadedConnect(t *testing.T) {
	for network, c := range serverConnectors(t) {
		t.Run(network, func(t *testing.T) {
			th := c.StartThreads(2, 64)
			left := leaveWait()
			defer stopAfterLeave(th, left)
			if !th.Threaded() {
				t.Fatal("2 clients below 64 not threaded")
			}
			var slot Slot
			errc := make(chan error, 1)
			started := make(chan struct{})
			go func() {
				th.Enter(&slot)
				defer left.Done()
				defer th.Leave(&slot)
				conn, err := c.Connect(&slot)
				if err != nil {
					errc <- err
					return
				}
				defer conn.Close()
				if !conn.sock.blocking || !isBlocking(t, conn.sock) {
					errc <- errors.New("the threaded client's socket is not blocking")
					return
				}
				if in, err := inRuntimeEpoll(conn.sock.fd); in || err != nil {
					errc <- errors.Join(errors.New("the threaded client's socket is in the runtime's epoll set"), err)
					return
				}
				rows, err := conn.Query("SELECT 1, 'x', NULL")
				if err != nil || len(rows) != 1 || string(rows[0][0]) != "1" || string(rows[0][1]) != "x" || rows[0][2] != nil {
					errc <- errors.Join(errors.New("SELECT on the threaded path"), err)
					return
				}
				close(started)
				errc <- conn.Exec("SELECT SLEEP(30)")
			}()
			select {
			case <-started:
			case err := <-errc:
				t.Fatal(err)
			}
			time.Sleep(300 * time.Millisecond)
			t0 := time.Now()
			id := slot.Break()
			if id == 0 {
				t.Error("Break returned no server connection id")
			}
			killer, err := c.Connect(nil)
			if err != nil {
				t.Fatal(err)
			}
			defer killer.Close()
			_ = killer.Exec("KILL " + strings.TrimSpace(uitoa(id)))
			select {
			case err := <-errc:
				if err == nil {
					t.Fatal("a broken statement returned no error")
				}
				if got := ErrorText(err); !strings.HasPrefix(got, "2013 ") && !strings.HasPrefix(got, "2006 ") {
					t.Errorf("broken statement: %q", got)
				}
			case <-time.After(5 * time.Second):
				t.Fatal("Break did not end a threaded client's statement")
			}
			if d := time.Since(t0); d > 2*time.Second {
				t.Errorf("Break took %v", d)
			}
		})
	}
}

// TestThreadedPreferredTLS: with mysqlslap's default (TLS preferred) a
// connection is threaded exactly when the server does not offer TLS.
func TestThreadedPreferredTLS(t *testing.T) {
	s := servertest.Require(t)
	cfg := s.RootConfig("")
	cfg.Logger = &mysql.NopLogger{}
	cfg.TLSConfig = "preferred"
	c, err := NewConnector(cfg, "")
	if err != nil {
		t.Fatal(err)
	}
	th := c.StartThreads(1, 64)
	left := leaveWait()
	defer stopAfterLeave(th, left)
	res := make(chan error, 1)
	go func() {
		var slot Slot
		th.Enter(&slot)
		defer left.Done()
		defer th.Leave(&slot)
		conn, err := c.Connect(&slot)
		if err != nil {
			res <- err
			return
		}
		defer conn.Close()
		if conn.sock.blocking == conn.sock.offersTLS {
			err = fmt.Errorf("server offers TLS %v, socket blocking %v", conn.sock.offersTLS, conn.sock.blocking)
		}
		res <- errors.Join(err, conn.Exec("SELECT 1"))
	}()
	if err := <-res; err != nil {
		t.Fatal(err)
	}
}

// TestThreadedFailureWording: the failure wording of the netpoller path
// (TestConnectionFailureWording) holds on the threaded path.
func TestThreadedFailureWording(t *testing.T) {
	servertest.Require(t)
	big := "SELECT '" + strings.Repeat("a", 3<<20) + "'"
	for network, c := range serverConnectors(t) {
		t.Run(network, func(t *testing.T) {
			th := c.StartThreads(1, 64)
			left := leaveWait()
			defer stopAfterLeave(th, left)
			res := make(chan string, 1)
			go func() {
				var slot Slot
				th.Enter(&slot)
				defer left.Done()
				defer th.Leave(&slot)
				conn, err := c.Connect(&slot)
				if err != nil {
					res <- err.Error()
					return
				}
				defer conn.Close()
				res <- ErrorText(conn.Exec(big))
			}()
			if got, want := <-res, "1153 Got a packet bigger than 'max_allowed_packet' bytes"; got != want {
				t.Errorf("got %q, want %q", got, want)
			}
		})
	}
}

func uitoa(v uint32) string {
	var b [10]byte
	i := len(b)
	for {
		i--
		b[i] = byte('0' + v%10)
		v /= 10
		if v == 0 {
			return string(b[i:])
		}
	}
}

// TestHandshakeOffersTLS: CLIENT_SSL is read from the greeting's low
// capability bits; a short or foreign packet offers nothing.
func TestHandshakeOffersTLS(t *testing.T) {
	greeting := func(caps uint16) []byte {
		p := []byte{0, 0, 0, 0, 10}
		p = append(p, "10.11.19-MariaDB\x00"...)
		p = append(p, 1, 0, 0, 0)        // connection id
		p = append(p, "12345678\x00"...) // scramble part 1, filler
		return append(p, byte(caps), byte(caps>>8))
	}
	for _, tt := range []struct {
		name string
		p    []byte
		want bool
	}{
		{"ssl", greeting(0xf7fe | clientSSL), true},
		{"no ssl", greeting(0xf7fe &^ clientSSL), false},
		{"truncated", greeting(0xffff)[:30], false},
		{"error packet", []byte{1, 0, 0, 0, 0xff}, false},
	} {
		if got := handshakeOffersTLS(tt.p); got != tt.want {
			t.Errorf("%s: %v, want %v", tt.name, got, tt.want)
		}
	}
}

// TestThreadedLockWaitLetsGCRun: a threaded client blocked in a lock wait
// must not hold up a stop-the-world. The runtime's preemption signals cut
// the blocking read short with EINTR over and over; a read that retried
// without yielding froze the process until the lock wait ended (TPC-C at
// -c 2 stalled 50 s a time, one client holding a row lock the other waited
// for while the holder sat stopped).
func TestThreadedLockWaitLetsGCRun(t *testing.T) {
	c := serverConnectors(t)["unix"]
	holder, err := c.Connect(nil)
	if err != nil {
		t.Fatal(err)
	}
	defer holder.Close()
	for _, q := range []string{"CREATE DATABASE IF NOT EXISTS mysqlconn_gc", "CREATE TABLE IF NOT EXISTS mysqlconn_gc.t (id INT PRIMARY KEY, v INT) ENGINE=InnoDB",
		"REPLACE INTO mysqlconn_gc.t VALUES (1, 0)", "BEGIN", "SELECT v FROM mysqlconn_gc.t WHERE id = 1 FOR UPDATE"} {
		if err := holder.Exec(q); err != nil {
			t.Fatal(q, ": ", err)
		}
	}
	defer func() { _ = holder.Exec("DROP DATABASE mysqlconn_gc") }()
	th := c.StartThreads(2, 64)
	left := leaveWait()
	defer stopAfterLeave(th, left)
	waiting := make(chan struct{})
	done := make(chan error, 1)
	go func() {
		var slot Slot
		th.Enter(&slot)
		defer left.Done()
		defer th.Leave(&slot)
		conn, err := c.Connect(&slot)
		if err != nil {
			done <- err
			return
		}
		defer conn.Close()
		if err := conn.Exec("SET SESSION innodb_lock_wait_timeout = 20"); err != nil {
			done <- err
			return
		}
		close(waiting)
		done <- conn.Exec("UPDATE mysqlconn_gc.t SET v = 1 WHERE id = 1")
	}()
	select {
	case <-waiting:
	case err := <-done:
		t.Fatal(err)
	}
	time.Sleep(300 * time.Millisecond) // the UPDATE is in its lock wait
	t0 := time.Now()
	runtime.GC()
	gc := time.Since(t0)
	if err := holder.Exec("COMMIT"); err != nil {
		t.Fatal(err)
	}
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	if gc > 2*time.Second {
		t.Errorf("a GC took %v while a threaded client waited for a row lock", gc)
	}
}

// TestThreadedBreakEndsStatement: on the threaded path (its own descriptor,
// out of the netpoller) Break and Cut from another goroutine end a
// statement the server is still running, without a KILL, promptly; the
// owner's Close after it does not hang.
func TestThreadedBreakEndsStatement(t *testing.T) {
	for network, c := range serverConnectors(t) {
		for _, how := range []string{"Break", "Cut"} {
			t.Run(network+"/"+how, func(t *testing.T) {
				th := c.StartThreads(1, 64)
				left := leaveWait()
				defer stopAfterLeave(th, left)
				var slot Slot
				conns := make(chan *Conn, 1)
				errc := make(chan error, 1)
				go func() {
					th.Enter(&slot)
					defer left.Done()
					defer th.Leave(&slot)
					conn, err := c.Connect(&slot)
					if err != nil {
						errc <- err
						return
					}
					if !conn.sock.blocking {
						conn.Close()
						errc <- errors.New("the threaded client's socket is not blocking")
						return
					}
					conns <- conn
					err = conn.Exec("SELECT SLEEP(30)")
					conn.Close()
					errc <- err
				}()
				var conn *Conn
				select {
				case conn = <-conns:
				case err := <-errc:
					t.Fatal(err)
				}
				time.Sleep(300 * time.Millisecond) // the SLEEP is running
				t0 := time.Now()
				var id uint32
				if how == "Break" {
					id = slot.Break()
				} else {
					id = conn.Cut()
				}
				select {
				case err := <-errc:
					if got := ErrorText(err); !strings.HasPrefix(got, "2013 ") {
						t.Errorf("broken statement: %q", got)
					}
				case <-time.After(5 * time.Second):
					t.Fatalf("%s did not end a threaded client's statement", how)
				}
				if d := time.Since(t0); d > 2*time.Second {
					t.Errorf("%s took %v", how, d)
				}
				if killer, err := c.Connect(nil); err == nil {
					_ = killer.Exec("KILL " + uitoa(id))
					killer.Close()
				}
			})
		}
	}
}

// TestThreadedSocketClose: Close releases the threaded path's own
// descriptor, and reads and writes after it fail at once.
func TestThreadedSocketClose(t *testing.T) {
	tc, _ := socketPair(t, "unix", true)
	fd := tc.fd
	if err := tc.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := unixFcntl(fd); err != syscall.EBADF {
		t.Errorf("descriptor %d after Close: %v, want EBADF", fd, err)
	}
	if _, err := tc.Read(make([]byte, 16)); err == nil {
		t.Error("read after Close returned no error")
	}
	if _, err := tc.Write([]byte("x")); err == nil {
		t.Error("write after Close returned no error")
	}
	tc.shutdown() // must not touch a closed descriptor's number
}

func unixFcntl(fd int) (uintptr, error) {
	r, _, e := syscall.RawSyscall(syscall.SYS_FCNTL, uintptr(fd), syscall.F_GETFD, 0)
	if e != 0 {
		return 0, e
	}
	return r, nil
}

// leaveWait counts the one threaded client of a test's load; the client
// calls Done after Leave.
func leaveWait() *sync.WaitGroup {
	wg := new(sync.WaitGroup)
	wg.Add(1)
	return wg
}

// stopAfterLeave stops a test's load once its client has left (Stop and
// Leave must not overlap, as the engine never lets them), or after 10 s
// when a failed test left the client stuck.
func stopAfterLeave(th *Threads, left *sync.WaitGroup) {
	done := make(chan struct{})
	go func() { left.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(10 * time.Second):
	}
	th.Stop()
}
