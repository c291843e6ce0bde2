//go:build !linux

package ring

import "time"

// Loop is not available off Linux: New refuses, so none of its methods is
// ever reached.
type Loop struct{}

// Conn is a connection of a Loop.
type Conn struct{}

// New refuses: io_uring is Linux's.
func New(conns int) (*Loop, error) { return nil, ErrUnavailable }

func (l *Loop) Mode() string                                 { return "" }
func (l *Loop) Busy() int                                    { return 0 }
func (l *Loop) Add(fd int, deprecateEOF bool) (*Conn, error) { return nil, ErrUnavailable }
func (l *Loop) Cancel(c *Conn)                               {}
func (l *Loop) Poll(minComplete int, wait time.Duration, done func(*Conn, Result)) error {
	return ErrUnavailable
}
func (l *Loop) Close() error                           { return nil }
func (c *Conn) ID() int                                { return 0 }
func (c *Conn) FD() int                                { return -1 }
func (c *Conn) Rebind(fd int, deprecateEOF bool) error { return ErrUnavailable }
func (c *Conn) Start(packet []byte) error              { return ErrUnavailable }
func (c *Conn) StartRaw(out, in []byte) error          { return ErrUnavailable }
