package engine

import (
	"database/sql/driver"
	"errors"
	"io"
	"net"

	"github.com/go-sql-driver/mysql"
)

// Error codes of a connection that is gone.
const (
	crServerGoneError  = 2006 // CR_SERVER_GONE_ERROR
	crServerLost       = 2013 // CR_SERVER_LOST
	erConnectionKilled = 1927 // ER_CONNECTION_KILLED (MariaDB)
	erServerShutdown   = 1053 // ER_SERVER_SHUTDOWN

	crTCPConnection      = 2011 // CR_TCP_CONNECTION
	crServerLostExtended = 2055 // CR_SERVER_LOST_EXTENDED
)

// classify returns the code an error counts under, its message, and
// whether the connection can no longer be used. Client-side failures (lost
// socket, the driver's invalid connection) count as 2013, as the client
// library reports them.
func classify(err error) (code uint16, msg string, broken bool) {
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

// tolerated reports whether ignore lets a client go on after an error; a
// broken connection also needs reconnecting, which one of the lost
// connection codes being tolerated allows.
func tolerated(ignore func(uint16) bool, code uint16, broken bool) bool {
	if ignore == nil {
		return false
	}
	if ignore(code) {
		return true
	}
	if !broken {
		return false
	}
	for _, lost := range lostConnection {
		if ignore(lost) {
			return true
		}
	}
	return false
}

// lostConnection are the codes that stand for "the connection is gone";
// tolerating any of them tolerates every broken connection, however the
// break was reported (sysbench's list: 2006, 2013, 2011, 2055).
var lostConnection = []uint16{crServerLost, crServerGoneError, erConnectionKilled, crTCPConnection, crServerLostExtended}
