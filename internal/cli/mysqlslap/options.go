package mysqlslap

// Options is everything a goslap run needs, resolved from option files, the
// command line and the environment. Field comments name the mysqlslap option.
// The parser (options_parse.go) fills it and captures the --json
// document's record of it; Validate checks it once and hands on a Config
// of the values it resolves to, after which nothing reads it.
type Options struct {
	// Auto-generated SQL (-a and friends).
	AutoGenerateSQL  bool   // --auto-generate-sql, -a
	AddAutoIncrement bool   // --auto-generate-sql-add-autoincrement
	ExecuteNumber    uint64 // --auto-generate-sql-execute-number
	GUIDPrimary      bool   // --auto-generate-sql-guid-primary
	LoadType         string // --auto-generate-sql-load-type, raw text (default "mixed")
	SecondaryIndexes uint32 // --auto-generate-sql-secondary-indexes
	UniqueQueryNum   uint64 // --auto-generate-sql-unique-query-number (default 10)
	UniqueWriteNum   uint64 // --auto-generate-sql-unique-write-number (default 10)
	WriteNumber      uint64 // --auto-generate-sql-write-number (default 100)
	NumberCharCols   string // --number-char-cols, -x, raw "N[:I]" (default "1")
	NumberIntCols    string // --number-int-cols, -y, raw "N[:I]" (default "1")

	// Statement sources (text or file name, see spec 3.6).
	Create       string // --create
	CreateSet    bool   // --create was given
	Query        string // --query, -q
	QuerySet     bool
	PreQuery     string // --pre-query
	PreQuerySet  bool
	PostQuery    string // --post-query
	PostQuerySet bool
	Delimiter    string // --delimiter, -F (default "\n"); only the first byte is used
	PreSystem    string // --pre-system
	PostSystem   string // --post-system

	// Run shape.
	Concurrency     string // --concurrency, -c, raw comma list (default "1")
	Iterations      uint32 // --iterations, -i (default 1)
	NumberOfQueries uint64 // --number-of-queries
	Commit          uint32 // --commit
	Detach          uint32 // --detach
	Engine          string // --engine, -e, raw list; EngineSet says whether it was given
	EngineSet       bool
	CreateSchema    string // --create-schema (default "mysqlslap")
	NoDrop          bool   // --no-drop
	// AllowDropExistingSchema is goslap's own --allow-drop-existing-schema:
	// drop --create-schema even when it holds tables goslap did not create.
	AllowDropExistingSchema bool
	OnlyPrint               bool // --only-print
	// workload is --workload and the registered workloads' options
	// (study.go); unexported, so the JSON options object of mysqlslap runs
	// stays as it was.
	workload WorkloadArgs

	// Output.
	Silent     bool   // --silent, -s
	CSV        string // --csv[=FILE]; "" with CSVSet means stdout
	CSVSet     bool
	Verbose    int  // --verbose, -v (counter)
	DebugInfo  bool // --debug-info, -T
	DebugCheck bool // --debug-check

	// Connection (spec 1.7).
	Host        string // --host, -h
	Port        uint32 // --port, -P (default 3306)
	Socket      string // --socket, -S (or MYSQL_UNIX_PORT)
	Protocol    string // --protocol, normalised to "", "TCP", "SOCKET", "PIPE"
	User        string // --user, -u (default: OS account name)
	Password    string // --password, -p, or MYSQL_PWD
	PasswordSet bool   // a password was given (possibly empty)
	// promptPassword: a bare -p / --password asks on the terminal
	// (Validate, where mysqlslap asks).
	promptPassword   bool
	Compress         bool   // --compress, -C
	InitCommand      string // --init-command (MariaDB; every worker (re)connect)
	DefaultAuth      string // --default-auth
	PluginDir        string // --plugin-dir
	CharacterSetsDir string // --character-sets-dir

	// TLS (MariaDB spelling; --ssl defaults to true in 10.11).
	SSL                 bool // --ssl
	SSLCA, SSLCAPath    string
	SSLCert, SSLKey     string
	SSLCipher           string
	SSLCRL, SSLCRLPath  string
	TLSVersion          string // --tls-version
	SSLVerifyServerCert bool   // --ssl-verify-server-cert

	// MySQL-only options (spec 1.2) goslap honours where the driver can.
	SQLMode               string // --sql-mode / --sql_mode; SQLModeSet says it was given
	SQLModeSet            bool
	SSLMode               string // --ssl-mode, upper-cased; "" when not given
	GetServerPublicKey    bool   // --get-server-public-key
	ServerPublicKeyPath   string // --server-public-key-path
	CompressionAlgorithms string // --compression-algorithms
	TLSCipherSuites       string // --tls-ciphersuites
	EnableCleartextPlugin bool   // --enable-cleartext-plugin

	// goslap's own options (beyond mysqlslap), see options_load.go.
	Ext Extensions

	// Positional words (at most two are allowed and ignored, as in mysqlslap).
	Args []string

	// record is the --json document's record of these options, by option
	// name, captured by ParseCommandLine when parsing ended
	// (recordOptions); nil for Options it did not make.
	record map[string]any
}
