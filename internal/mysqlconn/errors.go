package mysqlconn

import (
	"crypto/tls"
	"errors"
	"fmt"
	"net"
	"strings"
	"syscall"

	"github.com/go-sql-driver/mysql"
)

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
	if errors.As(err, &errno) {
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
