//go:build linux

package main

import (
	"errors"
	"fmt"
	"runtime"
	"sync"
	"syscall"
	"time"

	"github.com/goslap/goslap/internal/mysqlconn/ring"
)

// The probe's event loops: T locked OS threads, each driving its share of
// the connections with no goroutine per connection and no wake-up per
// reply. One loop runs on io_uring (sends and receives submitted and
// reaped in batches, one io_uring_enter per batch), the other, a control,
// on epoll with non-blocking sockets (one epoll_wait per batch, but a read
// and a write system call per statement).

// conn is one connection's state in a loop. The io_uring loop keeps its
// receive buffer and parser in the ring package's Conn; the epoll loop
// uses buf, have and parser.
type conn struct {
	fd     int
	parser ring.Parser
	buf    []byte
	have   int // bytes in buf not yet consumed by the parser
	left   int // statements still to send
}

// onData takes n more bytes received into buf[have:]; it reports whether
// the statement's reply is complete and checks it (one row, nothing after).
func (c *conn) onData(n int) (bool, error) {
	c.have += n
	used, done, err := c.parser.Feed(c.buf[:c.have])
	if err != nil {
		return false, err
	}
	if used > 0 {
		copy(c.buf, c.buf[used:c.have])
		c.have -= used
	}
	if !done {
		if c.have == len(c.buf) { // one packet longer than the buffer
			c.buf = append(c.buf, make([]byte, len(c.buf))...)
		}
		return false, nil
	}
	if c.parser.Rows() != 1 {
		return false, fmt.Errorf("a reply had %d rows, want 1", c.parser.Rows())
	}
	if c.have != 0 {
		return false, fmt.Errorf("%d unexpected bytes after a reply", c.have)
	}
	c.parser.Reset()
	return true, nil
}

// loopConfig is one event-loop arm's run.
type loopConfig struct {
	kind         string // "uring" or "epoll"
	socket, db   string
	clients      int
	threads      int
	perClient    int // statements per connection
	query        []byte
	deprecateEOF bool
	minComplete  int // io_uring_enter's min_complete (capped at the connections in flight)
}

type loopResult struct {
	wall    time.Duration
	queries int
	waits   int // io_uring_enter or epoll_wait calls
	mode    string
}

// runLoops runs the arm: every thread connects its connections (a blocking
// handshake each), then drives them to the end.
func runLoops(cfg loopConfig) (loopResult, error) {
	start := time.Now()
	var (
		wg      sync.WaitGroup
		mu      sync.Mutex
		total   int
		waits   int
		mode    string
		firstEr error
	)
	for t := range cfg.threads {
		n := cfg.clients / cfg.threads
		if t < cfg.clients%cfg.threads {
			n++
		}
		if n == 0 {
			continue
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			runtime.LockOSThread() // the ring is single-issuer: this thread only
			q, w, m, err := runThread(cfg, n)
			mu.Lock()
			defer mu.Unlock()
			total += q
			waits += w
			if m != "" {
				mode = m
			}
			if err != nil && firstEr == nil {
				firstEr = err
			}
		}()
	}
	wg.Wait()
	return loopResult{wall: time.Since(start), queries: total, waits: waits, mode: mode}, firstEr
}

func runThread(cfg loopConfig, n int) (queries, waits int, mode string, err error) {
	conns := make([]*conn, n)
	defer func() {
		for _, c := range conns {
			if c != nil {
				syscall.Close(c.fd)
			}
		}
	}()
	for i := range conns {
		fd, err := dialUnix(cfg.socket)
		if err != nil {
			return 0, 0, "", fmt.Errorf("connecting: %w", err)
		}
		c := &conn{fd: fd, buf: make([]byte, 4096), left: cfg.perClient}
		conns[i] = c
		deprecate, err := handshake(fd, cfg.db, cfg.deprecateEOF)
		if err != nil {
			return 0, 0, "", err
		}
		c.parser.DeprecateEOF = deprecate
	}
	if cfg.perClient == 0 {
		return 0, 0, "", nil
	}
	switch cfg.kind {
	case "uring":
		return uringLoop(cfg, conns)
	case "epoll":
		q, w, err := epollLoop(cfg, conns)
		return q, w, "epoll", err
	}
	return 0, 0, "", fmt.Errorf("unknown loop %q", cfg.kind)
}

// uringWait bounds one io_uring_enter's wait; the child's watchdog ends a
// run that makes no progress.
const uringWait = time.Second

// uringLoop: every connection has its statement's send and the receive of
// its reply in the ring (internal/mysqlconn/ring); each io_uring_enter
// submits what the last batch of completions prepared and waits for the
// next batch.
func uringLoop(cfg loopConfig, conns []*conn) (queries, waits int, mode string, err error) {
	l, err := ring.New(len(conns))
	if err != nil {
		return 0, 0, "", err
	}
	defer func() {
		if cerr := l.Close(); cerr != nil && err == nil {
			err = cerr
		}
	}()
	mode = "io_uring " + l.Mode()
	for _, c := range conns {
		rc, err := l.Add(c.fd, c.parser.DeprecateEOF)
		if err != nil {
			return 0, 0, mode, err
		}
		c.left--
		if err := rc.Start(cfg.query); err != nil {
			return 0, 0, mode, err
		}
	}
	var failed error
	done := func(rc *ring.Conn, r ring.Result) {
		switch {
		case failed != nil:
			return
		case r.Err != nil:
			failed = r.Err
			return
		case r.Rows != 1:
			failed = fmt.Errorf("a reply had %d rows, want 1", r.Rows)
			return
		}
		queries++
		if c := conns[rc.ID()]; c.left > 0 {
			c.left--
			failed = rc.Start(cfg.query)
		}
	}
	for l.Busy() > 0 && failed == nil {
		waits++
		if err := l.Poll(cfg.minComplete, uringWait, done); err != nil {
			return queries, waits, mode, err
		}
	}
	return queries, waits, mode, failed
}

// epollLoop: non-blocking sockets on one epoll instance per thread; a
// readable connection is read once, and a complete reply is answered with
// the next statement's write.
func epollLoop(cfg loopConfig, conns []*conn) (queries, waits int, err error) {
	epfd, err := syscall.EpollCreate1(syscall.EPOLL_CLOEXEC)
	if err != nil {
		return 0, 0, fmt.Errorf("epoll_create1: %w", err)
	}
	defer syscall.Close(epfd)
	for i, c := range conns {
		if err := syscall.SetNonblock(c.fd, true); err != nil {
			return 0, 0, err
		}
		ev := syscall.EpollEvent{Events: syscall.EPOLLIN, Fd: int32(i)}
		if err := syscall.EpollCtl(epfd, syscall.EPOLL_CTL_ADD, c.fd, &ev); err != nil {
			return 0, 0, fmt.Errorf("epoll_ctl: %w", err)
		}
	}
	write := func(c *conn) error {
		c.left--
		n, err := syscall.Write(c.fd, cfg.query)
		if err != nil {
			return fmt.Errorf("write: %w", err)
		}
		if n != len(cfg.query) {
			return fmt.Errorf("short write: %d of %d bytes", n, len(cfg.query))
		}
		return nil
	}
	for _, c := range conns {
		if err := write(c); err != nil {
			return 0, 0, err
		}
	}
	events := make([]syscall.EpollEvent, min(len(conns), 512))
	inflight := len(conns)
	for inflight > 0 {
		waits++
		k, err := syscall.EpollWait(epfd, events, -1)
		if err == syscall.EINTR {
			continue
		}
		if err != nil {
			return queries, waits, fmt.Errorf("epoll_wait: %w", err)
		}
		for _, ev := range events[:k] {
			c := conns[ev.Fd]
			n, err := syscall.Read(c.fd, c.buf[c.have:])
			if err == syscall.EAGAIN || err == syscall.EINTR {
				continue
			}
			if err != nil {
				return queries, waits, fmt.Errorf("read: %w", err)
			}
			if n == 0 {
				return queries, waits, errors.New("the server closed a connection")
			}
			done, err := c.onData(n)
			if err != nil {
				return queries, waits, err
			}
			if !done {
				continue
			}
			queries++
			if c.left > 0 {
				if err := write(c); err != nil {
					return queries, waits, err
				}
			} else {
				inflight--
			}
		}
	}
	return queries, waits, nil
}
