package mysqlslap

import (
	"errors"
	"fmt"
	"net"

	"github.com/go-sql-driver/mysql"

	"github.com/goslap/goslap/internal/mysqlconn"
	"github.com/goslap/goslap/internal/target"
)

// DefaultSocket is the client library's compiled-in socket path on Debian,
// used when neither --socket nor MYSQL_UNIX_PORT gives one (spec 1.7).
const DefaultSocket = mysqlconn.DefaultSocket

// Connection is the command line's connection as Validate resolves it
// (Config.Connection): where the server is, as whom, with which TLS,
// compression and authentication, and what every connection runs first.
// Nothing after Validate reads the connection options themselves.
type Connection struct {
	// Protocol is --protocol, normalised to "", "TCP", "SOCKET" or "PIPE".
	Protocol     string
	Host, Socket string
	Port         uint32
	User         string
	// Password is the password given, from MYSQL_PWD or typed at the
	// prompt of a bare -p; PasswordSet says one was.
	Password    string
	PasswordSet bool
	// TLS is --ssl*, --tls-version and --ssl-mode resolved to a mode and
	// its material (tlsOptions).
	TLS                   mysqlconn.TLS
	Compress              bool
	CompressionAlgorithms string
	Auth                  mysqlconn.Auth
	// InitCommand runs on every worker (re)connect (MariaDB's rule).
	InitCommand string
	// SQLMode, when SQLModeSet, is set on the main connection (MySQL's
	// --sql-mode).
	SQLMode    string
	SQLModeSet bool
}

// connectionOf resolves o's connection options (Validate, after the
// password prompt).
func connectionOf(o *Options) Connection {
	return Connection{Protocol: o.Protocol, Host: o.Host, Socket: o.Socket, Port: o.Port,
		User: o.User, Password: o.Password, PasswordSet: o.PasswordSet, TLS: tlsOptions(o),
		Compress: o.Compress, CompressionAlgorithms: o.CompressionAlgorithms,
		Auth:        mysqlconn.Auth{Plugin: o.DefaultAuth, Cleartext: o.EnableCleartextPlugin, ServerPublicKeyPath: o.ServerPublicKeyPath},
		InitCommand: o.InitCommand, SQLMode: o.SQLMode, SQLModeSet: o.SQLModeSet}
}

// Driver is the driver configuration of the connection (mysqlconn.Config;
// spec 1.7): transport, credentials, TLS, compression, authentication.
// database is the default schema ("" for none). Options the driver cannot
// honour are errors that name the option.
//
// Statements are always sent as literal text (no placeholders, so no
// prepare round trips) with multi-statements enabled, as mysqlslap does.
func (c Connection) Driver(database string) (*mysql.Config, error) {
	if c.Protocol == "PIPE" {
		return nil, errors.New("--protocol=PIPE cannot be honoured: named pipes exist only on Windows")
	}
	network, addr := c.transport()
	return mysqlconn.Config(mysqlconn.Options{Net: network, Addr: addr, User: c.User, Password: c.Password,
		Schema: database, Program: ProgName, MysqlslapSession: true, TLS: c.TLS,
		Compress: c.Compress, CompressionAlgorithms: c.CompressionAlgorithms, Auth: c.Auth})
}

// transport resolves host, socket, port and --protocol (spec 1.7): no host
// or "localhost" means the Unix socket unless TCP is forced; any other host
// is TCP even with --protocol=socket (libmariadb does the same).
func (c Connection) transport() (network, addr string) {
	local := c.Host == "" || c.Host == "localhost"
	if local && c.Protocol != "TCP" {
		sock := c.Socket
		if sock == "" {
			sock = DefaultSocket
		}
		return "unix", sock
	}
	host := c.Host
	if host == "" {
		host = "localhost"
	}
	port := c.Port
	if port == 0 {
		port = 3306
	}
	return "tcp", net.JoinHostPort(host, fmt.Sprint(port))
}

// label names the server of a plain run (no sandbox, no targets) in
// charts and the JSON document: its address, "localhost" for a socket.
func (c Connection) label() string {
	network, addr := c.transport()
	if network == "unix" {
		return "localhost"
	}
	return addr
}

// endpoint is the command line's connection, the base of server targets.
func (c Connection) endpoint() target.Endpoint {
	return target.Endpoint{Host: c.Host, Port: int(c.Port), Socket: c.Socket,
		User: c.User, Password: c.Password, PasswordSet: c.PasswordSet}
}

// to is the connection to ep. For a sandbox every connection and TLS
// option of the command line (and option files) is replaced: the
// benchmark can only reach the sandbox's socket, as root without a
// password and without TLS (a sandbox has no certificates).
func (c Connection) to(ep target.Endpoint) Connection {
	c.Host, c.Port, c.Socket = ep.Host, uint32(ep.Port), ep.Socket
	c.User, c.Password, c.PasswordSet = ep.User, ep.Password, ep.PasswordSet
	if !ep.Sandbox {
		return c
	}
	c.Host, c.Protocol = "", "SOCKET"
	c.TLS = mysqlconn.TLS{Mode: "DISABLED"} // what tlsOptions makes of no TLS option
	c.Auth = mysqlconn.Auth{}
	return c
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
