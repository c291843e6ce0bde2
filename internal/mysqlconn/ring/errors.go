package ring

import (
	"errors"
	"io"
)

// MaxConns is the most connections one Loop drives: the ring holds two
// SQEs per connection, and io_uring's largest SQ is 32768 entries.
const MaxConns = 16384

// ErrUnavailable is io_uring missing or refused on this system (not Linux,
// an old kernel, kernel.io_uring_disabled, a seccomp filter, a kernel
// without the bounded wait this package needs). A caller falls back to
// another client path.
var ErrUnavailable = errors.New("io_uring unavailable")

// ErrCanceled is the error of an exchange ended by Cancel or Close.
var ErrCanceled = errors.New("ring: exchange canceled")

// ConnError is an exchange that broke its connection: the server closed it
// (Err is io.ErrUnexpectedEOF), a send or receive failed (a syscall.Errno),
// the reply could not be followed (a *ProtocolError), or it was canceled
// (ErrCanceled). The connection cannot be used again; see Conn.Rebind.
type ConnError struct {
	Op  string // "send", "recv" or "reply"
	Err error
}

func (e *ConnError) Error() string {
	if e.Err == io.ErrUnexpectedEOF {
		return "ring: " + e.Op + ": the server closed the connection"
	}
	return "ring: " + e.Op + ": " + e.Err.Error()
}

func (e *ConnError) Unwrap() error { return e.Err }

// Result is one finished exchange. Err is nil (Rows or Affected tell what
// the statement did), a *mysql.MySQLError (the server's ERR reply; the
// connection is usable) or a *ConnError (the connection is broken).
//
// N is a raw exchange's (Conn.StartRaw) byte count.
type Result struct {
	N        int
	Rows     uint64
	Affected uint64
	Err      error
}
