package slap

import (
	"bytes"
	"context"
	"crypto/rsa"
	"crypto/sha256"
	"crypto/tls"
	"crypto/x509"
	"database/sql/driver"
	"encoding/binary"
	"encoding/hex"
	"encoding/pem"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"syscall"
	"unsafe"

	"github.com/go-sql-driver/mysql"
)

// DefaultSocket is the client library's compiled-in socket path on Debian,
// used when neither --socket nor MYSQL_UNIX_PORT gives one (spec 1.7).
const DefaultSocket = "/run/mysqld/mysqld.sock"

// DriverConfig turns the connection options into a go-sql-driver/mysql
// configuration (spec 1.7): transport, credentials, TLS, compression,
// authentication. database is the default schema ("" for none). Options the
// driver cannot honour are errors that name the option.
//
// Statements are always sent as literal text (no placeholders, so no
// prepare round trips) with multi-statements enabled, as mysqlslap does.
func DriverConfig(o *Options, database string) (*mysql.Config, error) {
	c := mysql.NewConfig()
	c.User = o.User
	c.Passwd = o.Password
	c.DBName = database
	c.MultiStatements = true
	// mariadb-slap 10.11 connects with its client library's default
	// character set, latin1 (observed: @@character_set_client and
	// @@collation_connection are latin1/latin1_swedish_ci whatever the
	// locale, and mysqlslap has no option to change it). The driver's own
	// default, utf8mb4, would make the server convert every latin1 result
	// and literal: measurably more server CPU per query than mysqlslap
	// causes (read load: +10% wall time). Set in the handshake, no SET NAMES.
	c.Collation = "latin1_swedish_ci"
	c.Logger = &mysql.NopLogger{} // errors are reported by goslap, not logged by the driver
	c.ConnectionAttributes = "program_name:" + ProgName

	c.Net, c.Addr = transport(o)
	if o.Protocol == "PIPE" {
		return nil, errors.New("--protocol=PIPE cannot be honoured: named pipes exist only on Windows")
	}
	if err := applyTLS(c, o); err != nil {
		return nil, err
	}
	if err := applyCompression(c, o); err != nil {
		return nil, err
	}
	if err := applyAuth(c, o); err != nil {
		return nil, err
	}
	return c, nil
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

// applyTLS maps MariaDB's --ssl* options and MySQL's --ssl-mode onto the
// driver. MariaDB 10.11's default (--ssl on, nothing else) is "use TLS if
// the server offers it, without verification", which is the driver's
// "preferred".
func applyTLS(c *mysql.Config, o *Options) error {
	if o.SSLCRL != "" || o.SSLCRLPath != "" {
		return errors.New("--ssl-crl/--ssl-crlpath cannot be honoured: certificate revocation lists are not supported by goslap's TLS")
	}
	material := o.SSLCA != "" || o.SSLCAPath != "" || o.SSLCert != "" || o.SSLKey != "" ||
		o.SSLCipher != "" || o.TLSVersion != "" || o.TLSCipherSuites != ""

	mode := o.SSLMode // MySQL spelling wins when given
	if mode == "" {
		switch {
		case o.SSLVerifyServerCert:
			mode = "VERIFY_IDENTITY"
		case o.SSL || material:
			mode = "PREFERRED"
		default:
			mode = "DISABLED"
		}
	}
	if mode == "DISABLED" {
		c.TLS = nil
		c.TLSConfig = "false"
		return nil
	}
	if !material && mode == "PREFERRED" {
		c.TLSConfig = "preferred"
		return nil
	}
	tc := &tls.Config{}
	if err := loadTLSMaterial(tc, o); err != nil {
		return err
	}
	switch mode {
	case "PREFERRED":
		tc.InsecureSkipVerify = true
		c.AllowFallbackToPlaintext = true
	case "REQUIRED":
		tc.InsecureSkipVerify = true
	case "VERIFY_CA":
		// Go verifies the chain and the host name together; verify the chain
		// ourselves and skip the name check, which is what VERIFY_CA means.
		tc.InsecureSkipVerify = true
		roots := tc.RootCAs
		tc.VerifyPeerCertificate = func(raw [][]byte, _ [][]*x509.Certificate) error {
			return verifyChain(raw, roots)
		}
	case "VERIFY_IDENTITY":
		if host, _, err := net.SplitHostPort(c.Addr); err == nil {
			tc.ServerName = host
		} else {
			tc.ServerName = "localhost" // Unix socket: libmariadb checks against "localhost"
		}
	default:
		return fmt.Errorf("--ssl-mode=%s is not one of DISABLED, PREFERRED, REQUIRED, VERIFY_CA, VERIFY_IDENTITY", mode)
	}
	c.TLS = tc
	return nil
}

func verifyChain(raw [][]byte, roots *x509.CertPool) error {
	if len(raw) == 0 {
		return errors.New("server sent no certificate")
	}
	certs := make([]*x509.Certificate, len(raw))
	for i, b := range raw {
		cert, err := x509.ParseCertificate(b)
		if err != nil {
			return err
		}
		certs[i] = cert
	}
	inter := x509.NewCertPool()
	for _, cert := range certs[1:] {
		inter.AddCert(cert)
	}
	_, err := certs[0].Verify(x509.VerifyOptions{Roots: roots, Intermediates: inter})
	return err
}

func loadTLSMaterial(tc *tls.Config, o *Options) error {
	if o.SSLCA != "" || o.SSLCAPath != "" {
		pool := x509.NewCertPool()
		files := []string{}
		if o.SSLCA != "" {
			files = append(files, o.SSLCA)
		}
		if o.SSLCAPath != "" {
			entries, err := os.ReadDir(o.SSLCAPath)
			if err != nil {
				return fmt.Errorf("--ssl-capath: %w", err)
			}
			for _, e := range entries {
				if !e.IsDir() {
					files = append(files, filepath.Join(o.SSLCAPath, e.Name()))
				}
			}
		}
		for _, f := range files {
			pem, err := os.ReadFile(f)
			if err != nil {
				return fmt.Errorf("--ssl-ca: %w", err)
			}
			if !pool.AppendCertsFromPEM(pem) && f == o.SSLCA {
				return fmt.Errorf("--ssl-ca: no PEM certificate in %s", f)
			}
		}
		tc.RootCAs = pool
	}
	if o.SSLCert != "" || o.SSLKey != "" {
		key := o.SSLKey
		if key == "" {
			key = o.SSLCert // libmariadb reads the key from the cert file when --ssl-key is absent
		}
		cert, err := tls.LoadX509KeyPair(o.SSLCert, key)
		if err != nil {
			return fmt.Errorf("--ssl-cert/--ssl-key: %w", err)
		}
		tc.Certificates = []tls.Certificate{cert}
	}
	if o.TLSVersion != "" {
		lo, hi, err := parseTLSVersions(o.TLSVersion)
		if err != nil {
			return err
		}
		tc.MinVersion, tc.MaxVersion = lo, hi
	}
	if o.SSLCipher != "" {
		suites, err := parseCiphers(o.SSLCipher)
		if err != nil {
			return err
		}
		tc.CipherSuites = suites
		if tc.MaxVersion == 0 {
			// A TLS 1.2 cipher list only restricts anything below TLS 1.3.
			tc.MaxVersion = tls.VersionTLS12
		}
	}
	if o.TLSCipherSuites != "" {
		// Go always offers all of its TLS 1.3 suites; a list naming all of
		// them is honoured, anything narrower is not.
		want := map[string]bool{}
		for _, s := range strings.Split(o.TLSCipherSuites, ":") {
			want[strings.TrimSpace(s)] = true
		}
		for _, id := range []uint16{tls.TLS_AES_128_GCM_SHA256, tls.TLS_AES_256_GCM_SHA384, tls.TLS_CHACHA20_POLY1305_SHA256} {
			if !want[tls.CipherSuiteName(id)] {
				return fmt.Errorf("--tls-ciphersuites=%s cannot be honoured: Go's TLS 1.3 always offers all of its suites", o.TLSCipherSuites)
			}
		}
	}
	return nil
}

func parseTLSVersions(list string) (lo, hi uint16, err error) {
	versions := map[string]uint16{"tlsv1": tls.VersionTLS10, "tlsv1.0": tls.VersionTLS10,
		"tlsv1.1": tls.VersionTLS11, "tlsv1.2": tls.VersionTLS12, "tlsv1.3": tls.VersionTLS13}
	for _, name := range strings.Split(list, ",") {
		v, ok := versions[strings.ToLower(strings.TrimSpace(name))]
		if !ok {
			return 0, 0, fmt.Errorf("--tls-version: unknown TLS version %q (known: TLSv1.0, TLSv1.1, TLSv1.2, TLSv1.3)", name)
		}
		if lo == 0 || v < lo {
			lo = v
		}
		hi = max(hi, v)
	}
	return lo, hi, nil
}

// openSSLCipherNames maps the OpenSSL spellings a DBA uses with --ssl-cipher
// to Go's suites; Go's own (IANA) names are accepted too.
var openSSLCipherNames = map[string]uint16{
	"ECDHE-RSA-AES128-GCM-SHA256":   tls.TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256,
	"ECDHE-RSA-AES256-GCM-SHA384":   tls.TLS_ECDHE_RSA_WITH_AES_256_GCM_SHA384,
	"ECDHE-ECDSA-AES128-GCM-SHA256": tls.TLS_ECDHE_ECDSA_WITH_AES_128_GCM_SHA256,
	"ECDHE-ECDSA-AES256-GCM-SHA384": tls.TLS_ECDHE_ECDSA_WITH_AES_256_GCM_SHA384,
	"ECDHE-RSA-CHACHA20-POLY1305":   tls.TLS_ECDHE_RSA_WITH_CHACHA20_POLY1305_SHA256,
	"ECDHE-ECDSA-CHACHA20-POLY1305": tls.TLS_ECDHE_ECDSA_WITH_CHACHA20_POLY1305_SHA256,
	"ECDHE-RSA-AES128-SHA":          tls.TLS_ECDHE_RSA_WITH_AES_128_CBC_SHA,
	"ECDHE-RSA-AES256-SHA":          tls.TLS_ECDHE_RSA_WITH_AES_256_CBC_SHA,
	"AES128-GCM-SHA256":             tls.TLS_RSA_WITH_AES_128_GCM_SHA256,
	"AES256-GCM-SHA384":             tls.TLS_RSA_WITH_AES_256_GCM_SHA384,
	"AES128-SHA":                    tls.TLS_RSA_WITH_AES_128_CBC_SHA,
	"AES256-SHA":                    tls.TLS_RSA_WITH_AES_256_CBC_SHA,
}

func parseCiphers(list string) ([]uint16, error) {
	byName := map[string]uint16{}
	for _, s := range append(tls.CipherSuites(), tls.InsecureCipherSuites()...) {
		byName[s.Name] = s.ID
	}
	var ids []uint16
	for _, name := range strings.Split(list, ":") {
		name = strings.TrimSpace(name)
		if id, ok := openSSLCipherNames[name]; ok {
			ids = append(ids, id)
		} else if id, ok := byName[name]; ok {
			ids = append(ids, id)
		} else {
			return nil, fmt.Errorf("--ssl-cipher: cipher %q cannot be honoured: Go's TLS does not implement it", name)
		}
	}
	return ids, nil
}

func applyCompression(c *mysql.Config, o *Options) error {
	compress := o.Compress
	if algs := o.CompressionAlgorithms; algs != "" {
		compress = false
		for _, a := range strings.Split(algs, ",") {
			switch strings.ToLower(strings.TrimSpace(a)) {
			case "zlib":
				compress = true
			case "uncompressed":
			case "zstd":
				// Acceptable only as an alternative to one we can do.
			default:
				return fmt.Errorf("--compression-algorithms: unknown algorithm %q", a)
			}
		}
		if !compress && strings.Contains(strings.ToLower(algs), "zstd") {
			return errors.New("--compression-algorithms=zstd cannot be honoured: the Go driver implements only zlib")
		}
	}
	return c.Apply(mysql.EnableCompression(compress))
}

// supportedAuthPlugins are the client plugins built into the driver.
var supportedAuthPlugins = map[string]bool{
	"mysql_native_password": true, "caching_sha2_password": true, "sha256_password": true,
	"mysql_clear_password": true, "mysql_old_password": true, "client_ed25519": true,
}

func applyAuth(c *mysql.Config, o *Options) error {
	if o.DefaultAuth != "" && !supportedAuthPlugins[o.DefaultAuth] {
		return fmt.Errorf("--default-auth=%s cannot be honoured: goslap's driver has no such authentication plugin", o.DefaultAuth)
	}
	// The driver answers whatever plugin the server asks for, so a supported
	// --default-auth needs no further setting; --plugin-dir is moot (all
	// plugins are built in). The driver also always asks the server for its
	// RSA key when it needs one, which is --get-server-public-key.
	if o.DefaultAuth == "mysql_clear_password" || o.EnableCleartextPlugin {
		c.AllowCleartextPasswords = true
	}
	if o.DefaultAuth == "mysql_old_password" {
		c.AllowOldPasswords = true
	}
	if o.ServerPublicKeyPath != "" {
		key, err := readRSAPublicKey(o.ServerPublicKeyPath)
		if err != nil {
			return fmt.Errorf("--server-public-key-path: %w", err)
		}
		sum := sha256.Sum256([]byte(o.ServerPublicKeyPath))
		name := "goslap-" + hex.EncodeToString(sum[:8])
		mysql.RegisterServerPubKey(name, key)
		c.ServerPubKey = name
	}
	return nil
}

func readRSAPublicKey(path string) (*rsa.PublicKey, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	block, _ := pem.Decode(data)
	if block == nil {
		return nil, fmt.Errorf("no PEM data in %s", path)
	}
	pub, err := x509.ParsePKIXPublicKey(block.Bytes)
	if err != nil {
		return nil, err
	}
	rsaKey, ok := pub.(*rsa.PublicKey)
	if !ok {
		return nil, fmt.Errorf("%s does not hold an RSA public key", path)
	}
	return rsaKey, nil
}

// dbConn is one client connection: the driver's connection used directly,
// without database/sql's pool, so a statement costs one COM_QUERY round trip
// and no per-call context machinery.
type dbConn struct {
	drv     driver.Conn
	queryer driver.Queryer
	execer  driver.Execer
	net     *trackedConn // the socket, for closing it from outside on abort
}

// connector opens dbConns for one driver configuration.
type connector struct {
	cfg         *mysql.Config
	initCommand string // --init-command, run after every (re)connect
}

// dialSlotKey carries a *connSlot through Connect's context into dial.
type dialSlotKey struct{}

// connSlot records the socket of a client's current connection and the
// server's id for it, so an abort can close the socket and KILL the
// server-side thread of a client stuck in a long statement.
type connSlot struct {
	conn atomic.Pointer[trackedConn]
}

func newConnector(cfg *mysql.Config, initCommand string) (*connector, error) {
	cfg = cfg.Clone()
	netw := cfg.Net
	cfg.DialFunc = func(ctx context.Context, network, addr string) (net.Conn, error) {
		var d net.Dialer
		c, err := d.DialContext(ctx, netw, addr)
		if err != nil {
			return nil, err
		}
		tc := &trackedConn{Conn: c}
		if sc, ok := c.(syscall.Conn); ok {
			if raw, err := sc.SyscallConn(); err == nil {
				tc.raw = raw
			}
		}
		if slot, ok := ctx.Value(dialSlotKey{}).(*connSlot); ok {
			slot.conn.Store(tc)
		}
		return tc, nil
	}
	// Validate the configuration now; connect makes a connector per connection.
	if _, err := mysql.NewConnector(cfg); err != nil {
		return nil, err
	}
	return &connector{cfg: cfg, initCommand: initCommand}, nil
}

// connect opens a connection; slot (may be nil) records its socket. With
// an init command, a failing init command is a connect error.
func (c *connector) connect(slot *connSlot) (*dbConn, error) {
	ctx := context.Background()
	if slot != nil {
		ctx = context.WithValue(ctx, dialSlotKey{}, slot)
	}
	// A connector of its own per connection: the driver writes to its
	// connector's Config during the handshake (TLS=nil when "preferred" TLS
	// falls back to plaintext), a data race when clients connect at once.
	own, err := mysql.NewConnector(c.cfg)
	if err != nil {
		return nil, err
	}
	drv, err := own.Connect(ctx)
	if err != nil {
		return nil, err
	}
	q, ok := drv.(driver.Queryer)
	e, ok2 := drv.(driver.Execer)
	if !ok || !ok2 {
		drv.Close()
		return nil, errors.New("the MySQL driver does not implement driver.Queryer and driver.Execer")
	}
	dc := &dbConn{drv: drv, queryer: q, execer: e}
	if slot != nil {
		dc.net = slot.conn.Load()
	}
	if c.initCommand != "" {
		if err := dc.exec(c.initCommand); err != nil {
			dc.close()
			return nil, err
		}
	}
	return dc, nil
}

// exec sends one statement (possibly several with multi-statements) and
// reads every result of it, discarding rows without converting them to Go
// values: all result sets of a CALL must be consumed before the connection
// can be used again (mysqlslap Bug #29985).
//
// The driver's Exec does exactly that: it skips column definitions and row
// packets without parsing them and discards every further result set,
// returning the first error. Query would build column metadata (names as
// Go strings) and a rows object for each statement only for us to throw
// them away: 6 allocations per key SELECT against Exec's one.
func (c *dbConn) exec(stmt string) error {
	_, err := c.execer.Exec(stmt, nil)
	return err
}

// queryStrings runs a query and returns the first column of every row of
// its first result set as strings (the key list, schema inspection).
func (c *dbConn) queryStrings(stmt string) ([]string, error) {
	rows, err := c.queryer.Query(stmt, nil)
	if err != nil {
		return nil, err
	}
	var out []string
	cols := rows.Columns()
	if len(cols) > 0 {
		dest := make([]driver.Value, len(cols))
		for {
			if err := rows.Next(dest); err != nil {
				if err == io.EOF {
					break
				}
				rows.Close()
				return nil, err
			}
			switch v := dest[0].(type) {
			case []byte:
				out = append(out, string(v))
			case nil:
				out = append(out, "")
			default:
				out = append(out, fmt.Sprint(v))
			}
		}
	}
	return out, rows.Close()
}

func (c *dbConn) close() {
	if c != nil && c.drv != nil {
		_ = c.drv.Close()
		c.drv = nil
	}
}

// trackedConn is the client's socket. It remembers the connection id the
// server announced in its handshake (the first packet it sends), so an abort
// can KILL a statement that is still running on the server.
//
// It also reads ahead for results larger than the driver's 4 KB buffer: the
// driver asks for at most 4 KB per read, so a 14 KB result set (the read
// load's 100 rows) took four read system calls where mysqlslap's 16 KB net
// buffer takes one. Once a read fills the driver's whole request, the
// connection gets a readAhead buffer and serves the driver from it; a
// connection that only ever sees small results (key lookups, writes) never
// allocates one.
//
// Reads and writes go through the socket's RawConn as raw read(2)/write(2)
// calls, waiting in the netpoller on EAGAIN as net.Conn does (see Write).
type trackedConn struct {
	net.Conn
	id     atomic.Uint32
	sniffd bool // only touched by the connection's own goroutine

	rbuf []byte // read-ahead buffer, nil until a result outgrew a read
	r, w int    // unread bytes are rbuf[r:w]

	raw syscall.RawConn // the socket's raw descriptor (Write); nil: Conn's Read and Write
}

// readAhead is the read-ahead buffer size, libmariadb's net_buffer_length.
const readAhead = 16 << 10

func (t *trackedConn) Read(b []byte) (int, error) {
	if t.r < t.w {
		n := copy(b, t.rbuf[t.r:t.w])
		t.r += n
		return n, nil
	}
	if t.rbuf == nil || len(b) >= len(t.rbuf) {
		n, err := t.sysRead(b)
		if !t.sniffd && n > 0 {
			t.sniffd = true
			t.id.Store(handshakeConnID(b[:n]))
		}
		if n == len(b) && n >= 4096 && t.rbuf == nil {
			t.rbuf = make([]byte, readAhead)
		}
		return n, err
	}
	n, err := t.sysRead(t.rbuf)
	if n <= 0 {
		return 0, err
	}
	// A read that returned data returns no error from a socket; if one
	// did, the next read reports it again.
	t.r, t.w = 0, n
	c := copy(b, t.rbuf[:n])
	t.r = c
	return c, nil
}

// handshakeConnID extracts the thread id from a protocol-10 handshake
// packet: 4-byte header, version byte 10, NUL-terminated server version,
// then the 4-byte little-endian connection id. 0 if the packet is not one.
func handshakeConnID(p []byte) uint32 {
	if len(p) < 5 || p[4] != 10 {
		return 0
	}
	rest := p[5:]
	nul := bytes.IndexByte(rest, 0)
	if nul < 0 || len(rest) < nul+5 {
		return 0
	}
	return binary.LittleEndian.Uint32(rest[nul+1 : nul+5])
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

// errorText is "<code> <message>" for a server error and the plain text of
// anything else: what mysqlslap prints after "ERROR : ".
func errorText(err error) string {
	var me *mysql.MySQLError
	if errors.As(err, &me) {
		return fmt.Sprintf("%d %s", me.Number, me.Message)
	}
	return err.Error()
}

// sysRead reads from the socket with a raw read(2) when the connection has
// a RawConn: see Write.
func (t *trackedConn) sysRead(b []byte) (int, error) {
	if t.raw == nil || len(b) == 0 {
		return t.Conn.Read(b)
	}
	var n int
	var errno syscall.Errno
	err := t.raw.Read(func(fd uintptr) bool {
		for {
			r, _, e := syscall.RawSyscall(syscall.SYS_READ, fd, uintptr(unsafe.Pointer(&b[0])), uintptr(len(b)))
			switch e {
			case 0:
				n = int(r)
				return true
			case syscall.EINTR:
				continue
			case syscall.EAGAIN:
				return false // park in the netpoller until readable
			default:
				errno = e
				return true
			}
		}
	})
	if err != nil {
		return 0, t.opErr("read", err)
	}
	if errno != 0 {
		return 0, t.opErr("read", os.NewSyscallError("read", errno))
	}
	if n == 0 {
		return 0, io.EOF
	}
	return n, nil
}

// Write sends b with raw write(2) calls (syscall.RawSyscall, no
// entersyscall/exitsyscall) when the connection has a RawConn; the socket
// is non-blocking, so a call never waits: a full socket buffer returns
// EAGAIN and the goroutine parks in the netpoller as net.Conn's Write does.
//
// Why: through net.Conn every write(2) is a "blocking" system call to the
// runtime. A write that wakes a server thread on a 2-core machine often
// lasts longer than sysmon's 20 µs tick, so sysmon keeps retaking the P
// (hand-off, futex wake of another thread) and never backs off its 20 µs
// polling: 12 % of goslap's CPU under the write load was sysmon alone.
func (t *trackedConn) Write(b []byte) (int, error) {
	if t.raw == nil {
		return t.Conn.Write(b)
	}
	done := 0
	var errno syscall.Errno
	err := t.raw.Write(func(fd uintptr) bool {
		for done < len(b) {
			r, _, e := syscall.RawSyscall(syscall.SYS_WRITE, fd, uintptr(unsafe.Pointer(&b[done])), uintptr(len(b)-done))
			switch e {
			case 0:
				done += int(r)
			case syscall.EINTR:
			case syscall.EAGAIN:
				return false
			default:
				errno = e
				return true
			}
		}
		return true
	})
	if err != nil {
		return done, t.opErr("write", err)
	}
	if errno != 0 {
		return done, t.opErr("write", os.NewSyscallError("write", errno))
	}
	return done, nil
}

func (t *trackedConn) opErr(op string, err error) error {
	if _, ok := err.(*net.OpError); ok {
		return err
	}
	ra := t.Conn.RemoteAddr()
	return &net.OpError{Op: op, Net: ra.Network(), Source: t.Conn.LocalAddr(), Addr: ra, Err: err}
}
