package workload

import (
	"context"
	"strconv"
	"sync"
	"time"

	"github.com/goslap/goslap/internal/mysqlconn"
)

// cutGrace is how long after ctx ends Interruptible waits for the
// statements to end by themselves (a loop checking ctx between short
// statements returns within a statement's time) before it cuts them: a
// short statement's result is then seen, so a CREATE TABLE is known to
// have happened or not.
const cutGrace = 250 * time.Millisecond

// killWait bounds how long Interruptible's stop waits for the KILLs of
// the statements it cut: the server normally answers in milliseconds.
const killWait = 2 * time.Second

// Interruptible returns a copy of s whose statements end when ctx ends:
// unless stop comes within cutGrace, the statement in flight on s.Main and
// on every connection opened through the copy's Connect is cut off (its socket shut down, so the caller's
// goroutine wakes at once) and KILLed on the server from a side connection,
// so that a long CREATE INDEX or LOAD DATA neither holds the exit nor keeps
// its table locked against the clean-up's DROP. Loops must still check ctx
// between statements. stop ends the watch and, after an interrupt, waits
// (at most killWait) for the KILLs; call it before anything else uses the
// server. After an interrupt s.Main may be unusable: clean up on a fresh
// connection.
func Interruptible(ctx context.Context, s *Session) (_ *Session, stop func()) {
	if ctx.Done() == nil {
		return s, func() {}
	}
	var (
		mu    sync.Mutex
		conns = []*mysqlconn.Conn{s.Main}
		cut   bool
	)
	out := *s
	if s.Connect != nil {
		connect := s.Connect
		out.Connect = func() (*mysqlconn.Conn, error) {
			c, err := connect()
			if err != nil {
				return nil, err
			}
			mu.Lock()
			defer mu.Unlock()
			if cut {
				c.Close()
				return nil, context.Cause(ctx)
			}
			conns = append(conns, c)
			return c, nil
		}
	}
	stopped := make(chan struct{})
	killed := make(chan struct{})
	go func() {
		defer close(killed)
		select {
		case <-stopped:
			return
		case <-ctx.Done():
		}
		select {
		case <-stopped:
			return
		case <-time.After(cutGrace):
		}
		mu.Lock()
		cut = true
		var ids []uint32
		for _, c := range conns {
			if id := c.Cut(); id != 0 {
				ids = append(ids, id)
			}
		}
		mu.Unlock()
		if len(ids) == 0 || s.Connect == nil {
			return
		}
		killer, err := s.Connect()
		if err != nil {
			return
		}
		defer killer.Close()
		for _, id := range ids {
			// KILL, not KILL QUERY: the connection is already given up.
			// A connection that has ended is "Unknown thread id": fine.
			_ = killer.Exec("KILL " + strconv.FormatUint(uint64(id), 10))
		}
	}()
	var once sync.Once
	return &out, func() {
		once.Do(func() {
			close(stopped)
			select {
			case <-killed:
			case <-time.After(killWait):
			}
		})
	}
}
