package slap

import (
	"database/sql/driver"
	"errors"
	"io"
	"net"
	"time"

	"github.com/go-sql-driver/mysql"

	"github.com/goslap/goslap/internal/mysqlconn"
)

// Error codes of a connection that is gone.
const (
	crServerGoneError  = 2006 // CR_SERVER_GONE_ERROR
	crServerLost       = 2013 // CR_SERVER_LOST
	erConnectionKilled = 1927 // ER_CONNECTION_KILLED (MariaDB)
	erServerShutdown   = 1053 // ER_SERVER_SHUTDOWN
)

// classifyError returns the error code goslap counts err under, its
// message, and whether the connection can no longer be used. Client-side
// failures (lost socket, driver's invalid connection) count as 2013.
func classifyError(err error) (code uint16, msg string, broken bool) {
	var me *mysql.MySQLError
	if errors.As(err, &me) {
		switch me.Number {
		case crServerGoneError, crServerLost, erConnectionKilled, erServerShutdown:
			broken = true
		}
		return me.Number, me.Message, broken
	}
	var ne net.Error
	if errors.Is(err, driver.ErrBadConn) || errors.Is(err, mysql.ErrInvalidConn) || errors.Is(err, io.EOF) ||
		errors.Is(err, io.ErrUnexpectedEOF) || errors.As(err, &ne) {
		return crServerLost, "Lost connection to server during query (" + err.Error() + ")", true
	}
	return crServerLost, err.Error(), true
}

// tolerates reports whether --ignore-errors lets a client go on after an
// error with code; a broken connection also needs reconnecting, which
// happens when its code, 2013, 2006 or 1927 is listed, or all.
func (ext *Extensions) tolerates(code uint16, broken bool) bool {
	if ext.Tolerates(code) {
		return true
	}
	return broken && (ext.IgnoreCodes[crServerLost] || ext.IgnoreCodes[crServerGoneError] || ext.IgnoreCodes[erConnectionKilled])
}

// Reconnect back-off: 10 ms doubling up to 1 s, for at most reconnectFor.
const (
	reconnectFirst = 10 * time.Millisecond
	reconnectMax   = time.Second
	reconnectFor   = 60 * time.Second
)

// reconnect opens a new connection after one broke, retrying with back-off
// until it succeeds, stop() says the load is over, or reconnectFor passes.
func reconnect(connect func() (*mysqlconn.Conn, error), stop func() bool) (*mysqlconn.Conn, error) {
	wait := reconnectFirst
	deadline := time.Now().Add(reconnectFor)
	for {
		c, err := connect()
		if err == nil {
			return c, nil
		}
		if stop() || time.Now().After(deadline) {
			return nil, err
		}
		time.Sleep(wait)
		wait = min(wait*2, reconnectMax)
	}
}
