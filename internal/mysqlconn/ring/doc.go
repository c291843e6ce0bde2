// Package ring drives many MySQL connections' statement exchanges from one
// OS thread on io_uring: no goroutine per connection, no wake-up per reply,
// one io_uring_enter per batch of sends, receives and completions.
//
// It is the exchange layer of the engine's ring path (issue 28; the design
// is in docs/architecture.md, "The ring path"), taken out of
// bench/uringprobe, which measured a single ring at a median 0.62x
// mariadb-slap's client CPU for mysqlslap's key load at 16 clients, where
// the netpoller path spends 0.90x (BENCHMARKS.md, "io_uring probe").
//
//	l, err := ring.New(conns)            // on a locked OS thread; ErrUnavailable: fall back
//	c, err := l.Add(fd, deprecateEOF)    // a logged-in socket, taken over after the handshake
//	err = c.Start(ring.AppendQuery(buf, "SELECT 1"))
//	for l.Busy() > 0 {
//		err = l.Poll(1, 100*time.Millisecond, func(c *ring.Conn, r ring.Result) { ... c.Start(next) ... })
//	}
//	err = l.Close()                      // cancels what is in flight; the caller closes the fds
//
// An exchange is "send this packet, read one complete reply": a SEND linked
// to a RECV (IOSQE_IO_LINK), the SEND's completion skipped on success, the
// reply parsed across partial receives (Parser) into OK (Affected), rows
// (Rows) or the server's ERR (a *mysql.MySQLError, as the driver reports
// it, so the engine classifies both paths' errors alike). Anything else —
// the server closing, a failed system call, a reply the parser cannot
// follow, Cancel — is a *ConnError and the connection is broken.
//
// Waits are bounded (IORING_ENTER_EXT_ARG's time limit), so the caller's
// loop looks at its stop flag, deadline and interval clock between Polls.
// The kernel never holds a buffer the Go heap may free: an exchange's
// packet and receive buffer stay referenced by its Conn until its Result,
// and Close waits for canceled exchanges to be reported.
//
// io_uring may be missing or refused (old kernels, io_uring_disabled,
// seccomp in containers, no IORING_FEAT_EXT_ARG or IORING_FEAT_CQE_SKIP):
// New returns an error wrapping ErrUnavailable, never panics, and the
// caller keeps another path.
package ring
