package mysqlslap

import (
	"strings"

	"github.com/goslap/goslap/internal/getopt"
)

// mysqlOnlyNames are the options that exist only in MySQL's mysqlslap (spec
// 1.2), including those goslap rejects. They are matched by full name only,
// so MariaDB's unique prefixes keep their meaning.
var mysqlOnlyNames = []string{
	"sql-mode", "ssl-mode", "get-server-public-key", "server-public-key-path",
	"compression-algorithms", "zstd-compression-level", "tls-ciphersuites",
	"enable-cleartext-plugin", "ssl-fips-mode", "ssl-session-data",
	"ssl-session-data-continue-on-failed-reuse", "tls-sni-servername",
	"password1", "password2", "password3", "shared-memory-base-name",
	"login-path", "no-login-paths", "tls-kex", "force-pqc", "use-pqc-sign",
}

// unsupported builds the hook of a MySQL option goslap cannot honour: using
// it is an error that says why, never a silent no-op.
func unsupported(name, why string) func(getopt.Setting) error {
	return func(getopt.Setting) error {
		return Exitf(1, "option '--%s' is not supported by goslap: %s", name, why)
	}
}

// mysqlOnlyOptions returns the MySQL-only options bound to o, and those
// among them goslap refuses whenever they are given (bound to scratch
// space: they have no value to record).
func mysqlOnlyOptions(o *Options) (rows []*getopt.Option, refused map[*getopt.Option]bool) {
	var scratch struct {
		s string
		b bool
		n uint32
	}
	refused = map[*getopt.Option]bool{}
	refuse := func(opt *getopt.Option) *getopt.Option { refused[opt] = true; return opt }
	str := func(name string, p *string, help string, hook func(getopt.Setting) error) *getopt.Option {
		return &getopt.Option{Name: name, Arg: getopt.RequiredArg, Var: getopt.VarString, String: p, Help: help, Hook: hook}
	}
	rejectStr := func(name, help, why string) *getopt.Option {
		return refuse(str(name, &scratch.s, help, unsupported(name, why)))
	}
	rejectBool := func(name, help, why string) *getopt.Option {
		return refuse(&getopt.Option{Name: name, Arg: getopt.NoArg, Var: getopt.VarBool, Bool: &scratch.b, Help: help, Hook: unsupported(name, why)})
	}
	return []*getopt.Option{
		str("sql-mode", &o.SQLMode, "Specify sql-mode to run mysqlslap tool.", func(getopt.Setting) error {
			o.SQLModeSet = true
			return nil
		}),
		str("ssl-mode", &o.SSLMode, "SSL connection mode.", func(s getopt.Setting) error {
			mode := strings.ToUpper(s.Value)
			switch mode {
			case "DISABLED", "PREFERRED", "REQUIRED", "VERIFY_CA", "VERIFY_IDENTITY":
				o.SSLMode = mode
				return nil
			}
			return &ExitError{Code: 1, Msg: "Unknown option to ssl-mode: " + s.Value +
				"\nAlternatives are: 'DISABLED','PREFERRED','REQUIRED','VERIFY_CA','VERIFY_IDENTITY'"}
		}),
		{Name: "get-server-public-key", Arg: getopt.NoArg, Var: getopt.VarBool, Bool: &o.GetServerPublicKey,
			Help: "Get server public key"},
		str("server-public-key-path", &o.ServerPublicKeyPath, "File path to the server public RSA key in PEM format.", nil),
		str("compression-algorithms", &o.CompressionAlgorithms, "Use compression algorithm in server/client protocol. Valid values are any combination of 'zstd','zlib','uncompressed'.",
			func(s getopt.Setting) error {
				for _, a := range strings.Split(s.Value, ",") {
					switch strings.ToLower(strings.TrimSpace(a)) {
					case "zlib", "uncompressed":
					case "zstd":
						return Exitf(1, "option '--compression-algorithms' is not supported by goslap: the Go MySQL driver has no zstd compression; use zlib or uncompressed")
					default:
						return Exitf(1, "option '--compression-algorithms': unknown algorithm '%s'; valid values are zstd, zlib and uncompressed", a)
					}
				}
				return nil
			}),
		refuse(&getopt.Option{Name: "zstd-compression-level", Arg: getopt.RequiredArg, Var: getopt.VarUint32, Uint32: &scratch.n,
			Help: "Use this compression level in the client/server protocol, in case --compression-algorithms=zstd.",
			Hook: unsupported("zstd-compression-level", "the Go MySQL driver has no zstd compression")}),
		str("tls-ciphersuites", &o.TLSCipherSuites, "TLS v1.3 cipher to use.", nil),
		{Name: "enable-cleartext-plugin", Arg: getopt.NoArg, Var: getopt.VarBool, Bool: &o.EnableCleartextPlugin,
			Help: "Enable/disable the clear text authentication plugin."},
		rejectStr("ssl-fips-mode", "SSL FIPS mode (applies only for OpenSSL).", "Go's TLS stack has no OpenSSL FIPS mode switch"),
		rejectStr("ssl-session-data", "Session data file to use to enable ssl session reuse.", "the Go MySQL driver cannot resume a saved TLS session"),
		rejectBool("ssl-session-data-continue-on-failed-reuse", "If set to ON, this option will allow connection to succeed even if session data cannot be reused.", "the Go MySQL driver cannot resume a saved TLS session"),
		rejectStr("tls-sni-servername", "The SNI server name to pass to server.", "the Go MySQL driver sets the TLS server name from --host"),
		refuse(&getopt.Option{Name: "password1", Arg: getopt.OptionalArg, Var: getopt.VarString, String: &scratch.s, Help: "Password for first factor authentication plugin.",
			Hook: unsupported("password1", "multi-factor authentication is not available in the Go MySQL driver; use --password")}),
		refuse(&getopt.Option{Name: "password2", Arg: getopt.OptionalArg, Var: getopt.VarString, String: &scratch.s, Help: "Password for second factor authentication plugin.",
			Hook: unsupported("password2", "multi-factor authentication is not available in the Go MySQL driver")}),
		refuse(&getopt.Option{Name: "password3", Arg: getopt.OptionalArg, Var: getopt.VarString, String: &scratch.s, Help: "Password for third factor authentication plugin.",
			Hook: unsupported("password3", "multi-factor authentication is not available in the Go MySQL driver")}),
		rejectStr("shared-memory-base-name", "Base name of shared memory.", "shared memory connections exist only on Windows"),
		rejectStr("tls-kex", "TLS v1.3 key exchange groups.", "the Go MySQL driver does not expose TLS key exchange groups"),
		rejectBool("force-pqc", "Force post-quantum cryptography.", "the Go MySQL driver does not expose TLS key exchange groups"),
		rejectBool("use-pqc-sign", "Use post-quantum signatures.", "the Go MySQL driver does not expose TLS signature schemes"),
	}, refused
}
