package mysqlslap

import (
	"errors"
	"fmt"
	"net"

	"github.com/go-sql-driver/mysql"

	"github.com/goslap/goslap/internal/mysqlconn"
)

// DefaultSocket is the client library's compiled-in socket path on Debian,
// used when neither --socket nor MYSQL_UNIX_PORT gives one (spec 1.7).
const DefaultSocket = mysqlconn.DefaultSocket

// DriverConfig turns the connection options into the driver configuration
// (mysqlconn.Config; spec 1.7): transport, credentials, TLS, compression,
// authentication. database is the default schema ("" for none). Options the
// driver cannot honour are errors that name the option.
//
// Statements are always sent as literal text (no placeholders, so no
// prepare round trips) with multi-statements enabled, as mysqlslap does.
func DriverConfig(o *Options, database string) (*mysql.Config, error) {
	if o.Protocol == "PIPE" {
		return nil, errors.New("--protocol=PIPE cannot be honoured: named pipes exist only on Windows")
	}
	network, addr := transport(o)
	return mysqlconn.Config(mysqlconn.Options{Net: network, Addr: addr, User: o.User, Password: o.Password,
		Schema: database, Program: ProgName, MysqlslapSession: true, TLS: tlsOptions(o),
		Compress: o.Compress, CompressionAlgorithms: o.CompressionAlgorithms,
		Auth: mysqlconn.Auth{Plugin: o.DefaultAuth, Cleartext: o.EnableCleartextPlugin, ServerPublicKeyPath: o.ServerPublicKeyPath}})
}

// transport resolves host, socket, port and --protocol (spec 1.7): no host
// or "localhost" means the Unix socket unless TCP is forced; any other host
// is TCP even with --protocol=socket (libmariadb does the same).
func transport(o *Options) (network, addr string) {
	local := o.Host == "" || o.Host == "localhost"
	if local && o.Protocol != "TCP" {
		sock := o.Socket
		if sock == "" {
			sock = DefaultSocket
		}
		return "unix", sock
	}
	host := o.Host
	if host == "" {
		host = "localhost"
	}
	port := o.Port
	if port == 0 {
		port = 3306
	}
	return "tcp", net.JoinHostPort(host, fmt.Sprint(port))
}

// tlsOptions resolves MariaDB's --ssl* options and MySQL's --ssl-mode
// into a mode and its material. MariaDB 10.11's default (--ssl on, nothing
// else) is "use TLS if the server offers it, without verification", which
// is PREFERRED.
func tlsOptions(o *Options) mysqlconn.TLS {
	t := mysqlconn.TLS{Mode: o.SSLMode, CA: o.SSLCA, CAPath: o.SSLCAPath, Cert: o.SSLCert, Key: o.SSLKey,
		Ciphers: o.SSLCipher, Versions: o.TLSVersion, CipherSuites13: o.TLSCipherSuites, CRL: o.SSLCRL, CRLPath: o.SSLCRLPath}
	if t.Mode == "" { // MySQL's spelling wins when given
		switch {
		case o.SSLVerifyServerCert:
			t.Mode = "VERIFY_IDENTITY"
		case o.SSL || t.Material():
			t.Mode = "PREFERRED"
		default:
			t.Mode = "DISABLED"
		}
	}
	return t
}
