package mysqlconn

import (
	"crypto/tls"
	"database/sql/driver"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"strconv"
	"strings"
	"syscall"

	"github.com/go-sql-driver/mysql"
)

// Client library error numbers (errmsg.h) goslap produces itself.
const (
	crServerGoneError = 2006 // "Server has gone away"
	crVersionError    = 2007 // "Protocol mismatch. ..."
	crServerLost      = 2013 // "Lost connection to server ..."
)

// clientError is a client-side error in the shape of a server error, so
// that every caller reports and classifies it by its code.
func clientError(code uint16, msg string) *mysql.MySQLError {
	return &mysql.MySQLError{Number: code, SQLState: [5]byte{'H', 'Y', '0', '0', '0'}, Message: msg}
}

// lostAt is libmariadb's CR_SERVER_LOST_EXTENDED for a connection lost
// during phase, e.g. "Lost connection to server at 'handshake: reading
// initial communication packet', system error: 110".
func lostAt(phase string, err error) *mysql.MySQLError {
	return clientError(crServerLost, "Lost connection to server at '"+phase+"', system error: "+strconv.Itoa(systemErrno(err)))
}

// systemErrno is the errno libmariadb would report after err: the socket
// error itself, ETIMEDOUT for a deadline, and otherwise (end of stream, a
// packet it refuses) the EAGAIN its non-blocking read left behind.
func systemErrno(err error) int {
	var errno syscall.Errno
	switch {
	case errors.As(err, &errno):
		return int(errno)
	case errors.Is(err, os.ErrDeadlineExceeded):
		return int(syscall.ETIMEDOUT)
	}
	return int(syscall.EAGAIN)
}

// connectionFailure words an error the driver returned for a broken
// connection ("invalid connection", "bad connection", "commands out of
// sync") as the client library does, using what the socket saw: the
// server's own error when it sent one before closing (a statement over
// max_allowed_packet), 2006 when the statement could not be sent, 2013
// when the reply never came. Any other error is returned unchanged.
func connectionFailure(err error, s *socket) error {
	if err == nil {
		// Before me is declared: errors.As(&me) moves it to the heap, an
		// allocation per successful statement otherwise.
		return nil
	}
	var me *mysql.MySQLError
	if errors.As(err, &me) {
		return err
	}
	sawFailure := s != nil && s.failure != nil
	if !sawFailure && !errors.Is(err, mysql.ErrInvalidConn) && !errors.Is(err, driver.ErrBadConn) &&
		!errors.Is(err, mysql.ErrPktSync) && !errors.Is(err, mysql.ErrPktSyncMul) &&
		!errors.Is(err, io.EOF) && !errors.Is(err, io.ErrUnexpectedEOF) {
		return err
	}
	if s != nil && s.serverErr != nil {
		return s.serverErr
	}
	if s != nil && s.failedOp == "write" {
		return clientError(crServerGoneError, "Server has gone away")
	}
	return clientError(crServerLost, "Lost connection to server during query")
}

// ConnectError renders a connection failure as the MariaDB client library
// words it, e.g. "Can't connect to local server through socket '/x' (2)",
// "Can't connect to server on '127.0.0.1' (111)", or the server's own
// message ("Access denied for user ..."), with the client error number.
func ConnectError(err error, network, addr string) (code int, msg string) {
	var me *mysql.MySQLError
	if errors.As(err, &me) {
		return int(me.Number), me.Message
	}
	if errors.Is(err, mysql.ErrNoTLS) {
		return 2026, "TLS/SSL error: SSL is required, but the server does not support it"
	}
	var dnsErr *net.DNSError
	if errors.As(err, &dnsErr) {
		return 2005, fmt.Sprintf("Unknown server host '%s' (-2)", dnsErr.Name)
	}
	var errno syscall.Errno
	if errors.As(err, &errno) || errors.Is(err, os.ErrDeadlineExceeded) {
		if errno == 0 {
			errno = syscall.ETIMEDOUT
		}
		if network == "unix" {
			return 2002, fmt.Sprintf("Can't connect to local server through socket '%s' (%d)", addr, int(errno))
		}
		host, _, _ := net.SplitHostPort(addr)
		return 2003, fmt.Sprintf("Can't connect to server on '%s' (%d)", host, int(errno))
	}
	var tlsErr *tls.CertificateVerificationError
	if errors.As(err, &tlsErr) || strings.Contains(err.Error(), "tls:") {
		return 2026, "TLS/SSL error: " + err.Error()
	}
	return 2013, err.Error()
}

// ErrorText is "<code> <message>" for a server error and the plain text of
// anything else: what mysqlslap prints after "ERROR : ".
func ErrorText(err error) string {
	var me *mysql.MySQLError
	if errors.As(err, &me) {
		return fmt.Sprintf("%d %s", me.Number, me.Message)
	}
	return err.Error()
}

// ServerCode is the server's error number in err, 0 when err is not a
// server error.
func ServerCode(err error) uint16 {
	var me *mysql.MySQLError
	if errors.As(err, &me) {
		return me.Number
	}
	return 0
}

// IsDeadlock reports the server's ER_LOCK_DEADLOCK (1213): the statement's
// whole transaction was rolled back.
func IsDeadlock(err error) bool { return ServerCode(err) == 1213 }
