package mysqlslap

import (
	"strconv"
	"strings"

	"github.com/goslap/goslap/internal/getopt"
)

// optSection says where an option is listed by --help and how it is matched.
type optSection int

const (
	sectionMariaDB optSection = iota // mysqlslap's own table: prefixes allowed, order matters
	sectionMySQL                     // MySQL-only options: full names only
	sectionGoslap                    // goslap's own options: full names only
)

// optSpec is one row of goslap's option table.
type optSpec struct {
	*getopt.Option
	Section optSection
	// Variable returns the text shown in --help's variables table, or nil when
	// the option is not listed there (help, version, password, csv, ...).
	Variable func() string
	// Recorded says, where the table is built, that the option's variable
	// is a field of the Options it fills, which the --json document
	// records as it is (recordOptions) unless optionValue gives the value;
	// options bound to scratch space (refused whenever given, or kept
	// through a Hook) are not recorded by their variable.
	Recorded bool
}

// parseState is the scratch space of one parse: the Options being filled plus
// what mysqlslap tracks beside its variables.
type parseState struct {
	opts *Options
	env  *Env

	strSet map[string]bool // string options given at least once (else "(No default value)")
	help   func() error
}

// optionTable returns every option goslap knows, bound to st.opts, in
// mariadb-slap's table order followed by the MySQL-only and goslap options.
func optionTable(st *parseState) []*optSpec {
	o := st.opts
	var t []*optSpec
	add := func(sec optSection, opt *getopt.Option, show func() string) *optSpec {
		if sec != sectionMariaDB {
			opt.ExactOnly = true
		}
		spec := &optSpec{Option: opt, Section: sec, Variable: show}
		t = append(t, spec)
		return spec
	}
	boolOpt := func(name string, short byte, p *bool, help string) {
		add(sectionMariaDB, &getopt.Option{Name: name, Short: short, Arg: getopt.NoArg, Var: getopt.VarBool, Bool: p, Help: help},
			func() string { return boolText(*p) }).Recorded = true
	}
	u32 := func(name string, short byte, p *uint32, help string) {
		add(sectionMariaDB, &getopt.Option{Name: name, Short: short, Arg: getopt.RequiredArg, Var: getopt.VarUint32, Uint32: p, Help: help},
			func() string { return uintText(uint64(*p)) }).Recorded = true
	}
	u64 := func(name string, short byte, p *uint64, help string) {
		add(sectionMariaDB, &getopt.Option{Name: name, Short: short, Arg: getopt.RequiredArg, Var: getopt.VarUint64, Uint64: p, Help: help},
			func() string { return uintText(*p) }).Recorded = true
	}
	// str registers a string option; hook may be nil. Strings that mysqlslap
	// initialises (delimiter, create-schema, load-type) always show their value.
	str := func(name string, short byte, p *string, initialised bool, help string, hook func(getopt.Setting) error) {
		add(sectionMariaDB, &getopt.Option{Name: name, Short: short, Arg: getopt.RequiredArg, Var: getopt.VarString, String: p, Help: help,
			Hook: func(s getopt.Setting) error {
				st.strSet[name] = true
				if hook != nil {
					return hook(s)
				}
				return nil
			}},
			func() string {
				if !initialised && !st.strSet[name] {
					return "(No default value)"
				}
				return *p
			}).Recorded = true
	}
	setFlag := func(flag *bool) func(getopt.Setting) error {
		return func(getopt.Setting) error { *flag = true; return nil }
	}
	impliesSSL := func(getopt.Setting) error { o.SSL = true; return nil }

	add(sectionMariaDB, &getopt.Option{Name: "help", Short: '?', Arg: getopt.NoArg,
		Help: "Display this help and exit.", Hook: func(getopt.Setting) error { return st.help() }}, nil)
	boolOpt("auto-generate-sql", 'a', &o.AutoGenerateSQL, "Generate SQL where not supplied by file or command line.")
	boolOpt("auto-generate-sql-add-autoincrement", 0, &o.AddAutoIncrement, "Add an AUTO_INCREMENT column to auto-generated tables.")
	u64("auto-generate-sql-execute-number", 0, &o.ExecuteNumber, "Set this number to generate a set number of queries to run.")
	boolOpt("auto-generate-sql-guid-primary", 0, &o.GUIDPrimary, "Add GUID based primary keys to auto-generated tables.")
	str("auto-generate-sql-load-type", 0, &o.LoadType, true, "Specify test load type: mixed, update, write, key, or read; default is mixed.", nil)
	u32("auto-generate-sql-secondary-indexes", 0, &o.SecondaryIndexes, "Number of secondary indexes to add to auto-generated tables.")
	u64("auto-generate-sql-unique-query-number", 0, &o.UniqueQueryNum, "Number of unique queries to generate for automatic tests.")
	u64("auto-generate-sql-unique-write-number", 0, &o.UniqueWriteNum, "Number of unique queries to generate for auto-generate-sql-write-number.")
	u64("auto-generate-sql-write-number", 0, &o.WriteNumber, "Number of row inserts to perform for each thread (default is 100).")
	str("character-sets-dir", 0, &o.CharacterSetsDir, false, "Directory for character set files.", nil)
	u32("commit", 0, &o.Commit, "Commit records every X number of statements.")
	boolOpt("compress", 'C', &o.Compress, "Use compression in server/client protocol.")
	str("concurrency", 'c', &o.Concurrency, false, "Number of clients to simulate for query to run.", nil)
	str("create", 0, &o.Create, false, "File or string to use create tables.", setFlag(&o.CreateSet))
	str("create-schema", 0, &o.CreateSchema, true, "Schema to run tests in.", nil)
	add(sectionMariaDB, &getopt.Option{Name: "csv", Arg: getopt.OptionalArg, Var: getopt.VarString, String: &o.CSV,
		Help: "Generate CSV output to named file or to stdout if no file is named.",
		Hook: func(s getopt.Setting) error {
			if s.HasValue && s.Value == "" {
				// mysqlslap tries to open a file named "" and fails
				// ("Could not open csv file: n"); say why.
				return Exitf(1, "Could not open csv file: --csv= names no file (--csv alone writes to stdout)")
			}
			o.CSVSet = true
			if strings.HasPrefix(o.CSV, "-") {
				o.CSV = "" // mysqlslap: a value starting with '-' means stdout
			}
			return nil
		}}, nil)
	add(sectionMariaDB, &getopt.Option{Name: "debug", Short: '#', Arg: getopt.OptionalArg, Disabled: true,
		Help: "This is a non-debug version. Catch this and exit."}, nil)
	boolOpt("debug-check", 0, &o.DebugCheck, "Check memory and open file usage at exit.")
	boolOpt("debug-info", 'T', &o.DebugInfo, "Print some debug info at exit.")
	// default_auth and plugin_dir are spelt with '_' in mariadb-slap's table,
	// and its messages (prefix Info line, missing argument) quote it so.
	str("default_auth", 0, &o.DefaultAuth, false, "Default authentication client-side plugin to use.", nil)
	str("delimiter", 'F', &o.Delimiter, true, "Delimiter to use in SQL statements supplied in file or command line.", nil)
	u32("detach", 0, &o.Detach, "Detach (close and reopen) connections after X number of requests.")
	str("engine", 'e', &o.Engine, false, "Comma separated list of storage engines to use for creating the table. The test is run for each engine. You can also specify an option for an engine after a `:', like memory:max_row=2300", setFlag(&o.EngineSet))
	str("host", 'h', &o.Host, false, "Connect to host.", nil)
	str("init-command", 0, &o.InitCommand, false, "SQL Command to execute when connecting to MariaDB server. Will automatically be re-executed when reconnecting.", nil)
	u32("iterations", 'i', &o.Iterations, "Number of times to run the tests.")
	boolOpt("no-drop", 0, &o.NoDrop, "Do not drop the schema after the test.")
	str("number-char-cols", 'x', &o.NumberCharCols, false, "Number of VARCHAR columns to create in table if specifying --auto-generate-sql.", nil)
	str("number-int-cols", 'y', &o.NumberIntCols, false, "Number of INT columns to create in table if specifying --auto-generate-sql.", nil)
	u64("number-of-queries", 0, &o.NumberOfQueries, "Limit each client to this number of queries (this is not exact).")
	boolOpt("only-print", 0, &o.OnlyPrint, "Do not connect to the databases, but instead print out what would have been done.")
	add(sectionMariaDB, &getopt.Option{Name: "password", Short: 'p', Arg: getopt.OptionalArg, Var: getopt.VarString, String: &o.Password,
		Help: "Password to use when connecting to server. If password is not given it's asked from the tty.",
		Hook: func(s getopt.Setting) error {
			o.PasswordSet = s.HasValue
			o.promptPassword = !s.HasValue
			return nil
		}}, nil)
	str("plugin_dir", 0, &o.PluginDir, false, "Directory for client-side plugins.", nil)
	add(sectionMariaDB, &getopt.Option{Name: "port", Short: 'P', Arg: getopt.RequiredArg, Var: getopt.VarUint32, Uint32: &o.Port,
		Help: "Port number to use for connection.",
		Hook: func(s getopt.Setting) error {
			if !s.FromFile { // MariaDB 10.6+: -P on the command line means TCP (spec 1.7)
				o.Protocol = "TCP"
			}
			return nil
		}}, func() string { return uintText(uint64(o.Port)) }).Recorded = true
	str("post-query", 0, &o.PostQuery, false, "Query to run or file containing query to execute after tests have completed.", setFlag(&o.PostQuerySet))
	str("post-system", 0, &o.PostSystem, false, "system() string to execute after tests have completed.", nil)
	str("pre-query", 0, &o.PreQuery, false, "Query to run or file containing query to execute before running tests.", setFlag(&o.PreQuerySet))
	str("pre-system", 0, &o.PreSystem, false, "system() string to execute before running tests.", nil)
	var protocolText string
	add(sectionMariaDB, &getopt.Option{Name: "protocol", Arg: getopt.RequiredArg, Var: getopt.VarString, String: &protocolText,
		Help: "The protocol to use for connection (tcp, socket, pipe).",
		Hook: func(s getopt.Setting) error {
			p, err := parseProtocol(s.Value)
			if err != nil {
				return err
			}
			o.Protocol = p
			return nil
		}}, nil)
	str("query", 'q', &o.Query, false, "Query to run or file containing query to run.", setFlag(&o.QuerySet))
	boolOpt("silent", 's', &o.Silent, "Run program in silent mode - no output.")
	str("socket", 'S', &o.Socket, false, "The socket file to use for connection.", func(s getopt.Setting) error {
		if !s.FromFile {
			o.Protocol = "SOCKET"
		}
		return nil
	})
	add(sectionMariaDB, &getopt.Option{Name: "ssl", Arg: getopt.OptionalArg, Var: getopt.VarBool, Bool: &o.SSL,
		Help: "Enable SSL for connection (automatically enabled with other flags)."},
		func() string { return boolText(o.SSL) }).Recorded = true
	str("ssl-ca", 0, &o.SSLCA, false, "CA file in PEM format (check OpenSSL docs, implies --ssl).", impliesSSL)
	str("ssl-capath", 0, &o.SSLCAPath, false, "CA directory (check OpenSSL docs, implies --ssl).", impliesSSL)
	str("ssl-cert", 0, &o.SSLCert, false, "X509 cert in PEM format (implies --ssl).", impliesSSL)
	str("ssl-cipher", 0, &o.SSLCipher, false, "SSL cipher to use (implies --ssl).", impliesSSL)
	str("ssl-key", 0, &o.SSLKey, false, "X509 key in PEM format (implies --ssl).", impliesSSL)
	str("ssl-crl", 0, &o.SSLCRL, false, "Certificate revocation list (implies --ssl).", impliesSSL)
	str("ssl-crlpath", 0, &o.SSLCRLPath, false, "Certificate revocation list path (implies --ssl).", impliesSSL)
	str("tls-version", 0, &o.TLSVersion, false, "TLS protocol version for secure connection.", impliesSSL)
	boolOpt("ssl-verify-server-cert", 0, &o.SSLVerifyServerCert, "Verify server's certificate to prevent man-in-the-middle attacks")
	str("user", 'u', &o.User, false, "User for login if not current user.", nil)
	add(sectionMariaDB, &getopt.Option{Name: "verbose", Short: 'v', Arg: getopt.NoArg,
		Help: "More verbose output; you can use this multiple times to get even more verbose output.",
		Hook: func(getopt.Setting) error { o.Verbose++; return nil }},
		func() string { return "(No default value)" })
	add(sectionMariaDB, &getopt.Option{Name: "version", Short: 'V', Arg: getopt.NoArg,
		Help: "Output version information and exit.", Hook: func(getopt.Setting) error {
			printVersion(st.env.Stdout)
			return &ExitError{Code: 0}
		}}, nil)

	mysqlOnly, refused := mysqlOnlyOptions(o)
	for _, opt := range mysqlOnly {
		add(sectionMySQL, opt, nil).Recorded = !refused[opt]
	}
	for _, opt := range append(safetyOptions(o), loadOptions(&o.Ext)...) {
		add(sectionGoslap, opt, nil).Recorded = true // bound to o and o.Ext
	}
	// --workload's rows keep their values through hooks (the workload's
	// own are recorded by studyOptionValues, --workload and
	// --sweep-server-option by optionValue).
	for _, opt := range workloadOptions(&o.workload, t) {
		add(sectionGoslap, opt, nil)
	}
	return t
}

func boolText(b bool) string {
	if b {
		return "TRUE"
	}
	return "FALSE"
}

func uintText(n uint64) string { return strconv.FormatUint(n, 10) }

// parseProtocol resolves --protocol like MariaDB's find_type: case-insensitive,
// any unique prefix of TCP, SOCKET, PIPE.
func parseProtocol(v string) (string, error) {
	names := []string{"TCP", "SOCKET", "PIPE"}
	var found []string
	for _, n := range names {
		if v != "" && strings.HasPrefix(n, strings.ToUpper(v)) {
			found = append(found, n)
		}
	}
	if v == "" {
		return "", &ExitError{Code: 1, Msg: "No option given to protocol\nAlternatives are: 'TCP','SOCKET','PIPE'"}
	}
	if len(found) != 1 {
		return "", &ExitError{Code: 1, Msg: "Unknown option to protocol: " + v + "\nAlternatives are: 'TCP','SOCKET','PIPE'"}
	}
	return found[0], nil
}
