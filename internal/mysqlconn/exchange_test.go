//go:build linux

package mysqlconn

import (
	"database/sql/driver"
	"errors"
	"iter"
	"net"
	"os"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/goslap/goslap/internal/mysqlconn/ring"
)

// ringExchanger carries a Conn's exchanges on a ring.Loop from a
// coroutine, as the engine's coroutine mode does: Exchange suspends the
// coroutine, the driving loop runs the raw exchange and resumes it.
type ringExchanger struct {
	yield   func(struct{}) bool
	out, in []byte
	res     ring.Result
	reads   int // exchanges with a receive
	flushes int // send-only exchanges
}

func (x *ringExchanger) Exchange(out, in []byte) (int, error) {
	x.out, x.in = out, in
	if in == nil {
		x.flushes++
	} else {
		x.reads++
	}
	if !x.yield(struct{}{}) {
		return 0, errors.New("the coroutine was stopped")
	}
	return x.res.N, x.res.Err
}

// onRingCoroutine hands conn over, runs f as a coroutine on a locked
// thread with conn in the exchanger mode on a ring, and takes conn out of
// the mode again; the ring's exchanges counted in x.
func onRingCoroutine(t *testing.T, conn *Conn, f func() error) (x *ringExchanger, err error) {
	t.Helper()
	x = &ringExchanger{}
	done := make(chan struct{})
	go func() {
		defer close(done)
		runtime.LockOSThread()
		defer runtime.UnlockOSThread()
		fd, deprecateEOF, herr := conn.Handover()
		if herr != nil {
			err = herr
			return
		}
		l, rerr := ring.New(1)
		if rerr != nil {
			err = rerr
			return
		}
		defer l.Close()
		rc, _ := l.Add(fd, deprecateEOF)
		if err = conn.SetExchanger(x); err != nil {
			return
		}
		next, stop := iter.Pull(func(yield func(struct{}) bool) {
			x.yield = yield
			err = f()
		})
		defer stop()
		for {
			if _, ok := next(); !ok {
				break
			}
			if serr := rc.StartRaw(x.out, x.in); serr != nil {
				x.res = ring.Result{Err: serr}
				continue
			}
			for deadline := time.Now().Add(10 * time.Second); l.Busy() > 0; {
				if time.Now().After(deadline) {
					l.Cancel(rc)
				}
				if perr := l.Poll(1, 100*time.Millisecond, func(_ *ring.Conn, r ring.Result) { x.res = r }); perr != nil {
					x.res = ring.Result{Err: perr}
					break
				}
			}
		}
		if cerr := conn.ClearExchanger(); cerr != nil && err == nil {
			err = cerr
		}
	}()
	select {
	case <-done:
	case <-time.After(30 * time.Second):
		t.Fatal("the coroutine did not end")
	}
	return x, err
}

// TestExchangerMode: a Conn in the exchanger mode, its I/O carried by a
// ring from a coroutine, runs text statements, a result set bigger than
// one receive, prepared executes (on the lean path where the connector
// takes it), and a COM_STMT_CLOSE with no read after it, which the flush
// sends; the Conn then works on its own system calls again.
func TestExchangerMode(t *testing.T) {
	if !ring.Available() {
		if os.Getenv("CI") != "" {
			t.Fatal("io_uring unavailable under CI")
		}
		t.Skip("io_uring unavailable here")
	}
	for name, cn := range serverConnectors(t) {
		t.Run(name, func(t *testing.T) {
			conn, err := cn.Connect(nil)
			if err != nil {
				t.Fatal(err)
			}
			defer conn.Close()
			var big [][][]byte
			var sum [][][]byte
			var lean bool
			x, err := onRingCoroutine(t, conn, func() error {
				if err := conn.Exec("SET @a = 41"); err != nil {
					return err
				}
				var err error
				if big, err = conn.Query("SELECT REPEAT('x', 100000), @a + 1"); err != nil {
					return err
				}
				st, err := conn.Prepare("SELECT ? + 1")
				if err != nil {
					return err
				}
				lean = st.Lean()
				for i := range 3 {
					if sum, err = st.Query([]driver.NamedValue{{Ordinal: 1, Value: int64(i)}}); err != nil {
						return err
					}
				}
				if err := st.Close(); err != nil {
					return err
				}
				return conn.FlushExchange()
			})
			if err != nil {
				t.Fatal(err)
			}
			if len(big) != 1 || len(big[0][0]) != 100000 || strings.Trim(string(big[0][0]), "x") != "" || string(big[0][1]) != "42" {
				t.Errorf("the big row: %d rows, want one of 100000 x and 42", len(big))
			}
			if len(sum) != 1 || string(sum[0][0]) != "3" {
				t.Errorf("the last execute: %q, want 3", sum)
			}
			if !lean && !cn.driverExecute {
				t.Error("the prepared statement did not take the lean path")
			}
			// SET, the big query (more than one receive), the prepare,
			// three executes, each at least one read; the close one flush.
			if x.reads < 7 || x.flushes != 1 {
				t.Errorf("%d reads and %d flushes through the exchanger, want more than 6 and 1", x.reads, x.flushes)
			}
			got, err := conn.Query("SHOW SESSION STATUS LIKE 'Com_stmt_close'")
			if err != nil || len(got) != 1 || string(got[0][1]) != "1" {
				t.Errorf("after the mode: Com_stmt_close %q (%v), want 1: the flush did not send it", got, err)
			}
		})
	}
}

// countingExchanger fails the test if it is ever used.
type countingExchanger struct{ calls int }

func (x *countingExchanger) Exchange(out, in []byte) (int, error) {
	x.calls++
	return 0, errors.New("unexpected exchange")
}

// TestExchangerClosedSocket: once the socket is closed (the driver closes
// it after a failure) the exchanger mode sends nothing through its
// exchanger: the descriptor number may belong to another connection by
// then. Pending writes are dropped, reads fail.
func TestExchangerClosedSocket(t *testing.T) {
	c, _ := fakeConn(t)
	if _, _, err := c.Handover(); err != nil {
		t.Fatal(err)
	}
	x := &countingExchanger{}
	if err := c.SetExchanger(x); err != nil {
		t.Fatal(err)
	}
	if _, err := c.sock.Write([]byte{1, 0, 0, 0, 1}); err != nil { // a COM_QUIT, pending
		t.Fatal(err)
	}
	_ = c.sock.Close()
	if err := c.FlushExchange(); !errors.Is(err, net.ErrClosed) {
		t.Errorf("flush after close: %v, want net.ErrClosed", err)
	}
	var b [16]byte
	if _, err := c.sock.rawRead(b[:]); err == nil {
		t.Error("read after close: no error")
	}
	if x.calls != 0 {
		t.Errorf("%d exchanges after the socket closed", x.calls)
	}
}
