package mysqlconn

import (
	"crypto/rsa"
	"crypto/sha256"
	"crypto/tls"
	"crypto/x509"
	"encoding/hex"
	"encoding/pem"
	"errors"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/go-sql-driver/mysql"
)

// DefaultSocket is the client library's compiled-in socket path on Debian
// and Ubuntu's MariaDB, which host "localhost" means to every front end.
const DefaultSocket = "/run/mysqld/mysqld.sock"

// Options are a client's connection settings, whatever front end spelled
// them: the one driver configuration of goslap (Config). Each front end
// resolves where to connect by its own program's rule (mysqlslap's
// --protocol, sysbench's host and port lists, tpcc-mysql's -S) and fills
// the rest from its options; the errors name mysqlslap's options, which
// are the only ones that reach the TLS material and authentication.
type Options struct {
	Net, Addr string // "unix" or "tcp", and the socket or host:port
	User      string
	Password  string
	Schema    string // the default schema, "" for none
	// Program is the program_name connection attribute ("goslap",
	// "goslap-sysbench", ...), which the server's processlist shows.
	Program string
	// Timeout limits the connect and handshake (0: the driver's default).
	Timeout time.Duration
	// MysqlslapSession is the session of mysqlslap's client library:
	// multi-statements, latin1 (set in the handshake) and libmariadb's
	// 1 GiB statement limit. Without it, the driver's defaults (utf8mb4),
	// as sysbench's and tpcc-mysql's sessions compare best with.
	MysqlslapSession bool
	TLS              TLS
	// Compress asks for zlib compression; CompressionAlgorithms is
	// MySQL's --compression-algorithms list ("" = none given).
	Compress              bool
	CompressionAlgorithms string
	Auth                  Auth
}

// TLS is the connection's encryption: a mode (MySQL's --ssl-mode names)
// and its material.
type TLS struct {
	// Mode is DISABLED (or ""), PREFERRED, REQUIRED, VERIFY_CA or
	// VERIFY_IDENTITY.
	Mode           string
	CA, CAPath     string
	Cert, Key      string
	Ciphers        string // a TLS 1.2 cipher list, OpenSSL or Go names
	Versions       string // TLSv1.2,TLSv1.3
	CipherSuites13 string // TLS 1.3 suites
	CRL, CRLPath   string // refused: no revocation lists
}

// Material reports whether any certificate, cipher or version is given.
func (t TLS) Material() bool {
	return t.CA != "" || t.CAPath != "" || t.Cert != "" || t.Key != "" ||
		t.Ciphers != "" || t.Versions != "" || t.CipherSuites13 != ""
}

// Auth is the authentication: a client plugin and its settings.
type Auth struct {
	Plugin              string // --default-auth ("" = the server's choice)
	Cleartext           bool   // --enable-cleartext-plugin
	ServerPublicKeyPath string // --server-public-key-path
}

// Config is the driver configuration of o. Statements are always sent as
// literal text (no placeholders, so no prepare round trips). Options the
// driver cannot honour are errors that name the option.
func Config(o Options) (*mysql.Config, error) {
	c := mysql.NewConfig()
	c.User, c.Passwd, c.DBName = o.User, o.Password, o.Schema
	c.Net, c.Addr = o.Net, o.Addr
	if o.MysqlslapSession {
		c.MultiStatements = true
		// mariadb-slap 10.11 connects with its client library's default
		// character set, latin1 (observed: @@character_set_client and
		// @@collation_connection are latin1/latin1_swedish_ci whatever the
		// locale, and mysqlslap has no option to change it). The driver's own
		// default, utf8mb4, would make the server convert every latin1 result
		// and literal: measurably more server CPU per query than mysqlslap
		// causes (read load: +10% wall time). Set in the handshake, no SET NAMES.
		c.Collation = "latin1_swedish_ci"
		// libmariadb's client limit (1 GiB): a statement over the server's
		// max_allowed_packet is sent and the server's own error reported, not
		// refused by the driver's smaller default with a wording of its own.
		c.MaxAllowedPacket = 1 << 30
	}
	c.Logger = &mysql.NopLogger{} // errors are reported by goslap, not logged by the driver
	c.ConnectionAttributes = "program_name:" + o.Program
	if o.Timeout > 0 {
		c.Timeout = o.Timeout
	}
	if err := applyTLS(c, o.TLS); err != nil {
		return nil, err
	}
	if err := applyCompression(c, o); err != nil {
		return nil, err
	}
	if err := applyAuth(c, o.Auth); err != nil {
		return nil, err
	}
	return c, nil
}

// applyTLS maps the mode and material onto the driver. PREFERRED without
// material is the driver's "preferred": TLS if the server offers it,
// without verification.
func applyTLS(c *mysql.Config, o TLS) error {
	if o.CRL != "" || o.CRLPath != "" {
		return errors.New("--ssl-crl/--ssl-crlpath cannot be honoured: certificate revocation lists are not supported by goslap's TLS")
	}
	mode := o.Mode
	if mode == "" || mode == "DISABLED" {
		c.TLS = nil
		c.TLSConfig = "false"
		return nil
	}
	if !o.Material() && mode == "PREFERRED" {
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

func loadTLSMaterial(tc *tls.Config, o TLS) error {
	if o.CA != "" || o.CAPath != "" {
		pool := x509.NewCertPool()
		files := []string{}
		if o.CA != "" {
			files = append(files, o.CA)
		}
		if o.CAPath != "" {
			entries, err := os.ReadDir(o.CAPath)
			if err != nil {
				return fmt.Errorf("--ssl-capath: %w", err)
			}
			for _, e := range entries {
				if !e.IsDir() {
					files = append(files, filepath.Join(o.CAPath, e.Name()))
				}
			}
		}
		for _, f := range files {
			pem, err := os.ReadFile(f)
			if err != nil {
				return fmt.Errorf("--ssl-ca: %w", err)
			}
			if !pool.AppendCertsFromPEM(pem) && f == o.CA {
				return fmt.Errorf("--ssl-ca: no PEM certificate in %s", f)
			}
		}
		tc.RootCAs = pool
	}
	if o.Cert != "" || o.Key != "" {
		key := o.Key
		if key == "" {
			key = o.Cert // libmariadb reads the key from the cert file when --ssl-key is absent
		}
		cert, err := tls.LoadX509KeyPair(o.Cert, key)
		if err != nil {
			return fmt.Errorf("--ssl-cert/--ssl-key: %w", err)
		}
		tc.Certificates = []tls.Certificate{cert}
	}
	if o.Versions != "" {
		lo, hi, err := parseTLSVersions(o.Versions)
		if err != nil {
			return err
		}
		tc.MinVersion, tc.MaxVersion = lo, hi
	}
	if o.Ciphers != "" {
		suites, err := parseCiphers(o.Ciphers)
		if err != nil {
			return err
		}
		tc.CipherSuites = suites
		if tc.MaxVersion == 0 {
			// A TLS 1.2 cipher list only restricts anything below TLS 1.3.
			tc.MaxVersion = tls.VersionTLS12
		}
	}
	if o.CipherSuites13 != "" {
		// Go always offers all of its TLS 1.3 suites; a list naming all of
		// them is honoured, anything narrower is not.
		want := map[string]bool{}
		for _, s := range strings.Split(o.CipherSuites13, ":") {
			want[strings.TrimSpace(s)] = true
		}
		for _, id := range []uint16{tls.TLS_AES_128_GCM_SHA256, tls.TLS_AES_256_GCM_SHA384, tls.TLS_CHACHA20_POLY1305_SHA256} {
			if !want[tls.CipherSuiteName(id)] {
				return fmt.Errorf("--tls-ciphersuites=%s cannot be honoured: Go's TLS 1.3 always offers all of its suites", o.CipherSuites13)
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

// supportedAuthPlugins are the client plugins built into the driver.
var supportedAuthPlugins = map[string]bool{
	"mysql_native_password": true, "caching_sha2_password": true, "sha256_password": true,
	"mysql_clear_password": true, "mysql_old_password": true, "client_ed25519": true,
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

func applyCompression(c *mysql.Config, o Options) error {
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

func applyAuth(c *mysql.Config, o Auth) error {
	if o.Plugin != "" && !supportedAuthPlugins[o.Plugin] {
		return fmt.Errorf("--default-auth=%s cannot be honoured: goslap's driver has no such authentication plugin", o.Plugin)
	}
	// The driver answers whatever plugin the server asks for, so a supported
	// --default-auth needs no further setting; --plugin-dir is moot (all
	// plugins are built in). The driver also always asks the server for its
	// RSA key when it needs one, which is --get-server-public-key.
	if o.Plugin == "mysql_clear_password" || o.Cleartext {
		c.AllowCleartextPasswords = true
	}
	if o.Plugin == "mysql_old_password" {
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
