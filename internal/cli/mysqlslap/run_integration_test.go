package mysqlslap

import (
	"bytes"
	"context"
	"database/sql"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/goslap/goslap/internal/sandbox"
	"github.com/goslap/goslap/internal/sandbox/servertest"
)

// schemaSeq makes every test's schema name unique, so tests can run in
// parallel against the one server.
var schemaSeq atomic.Int64

// slapOptions are mysqlslap's defaults (spec 1.1) pointed at the test
// server's socket as root, with a fresh schema name.
func slapOptions(t *testing.T, s *sandbox.Server) *Options {
	t.Helper()
	return serverOptions(s, fmt.Sprintf("goslap_t%d", schemaSeq.Add(1)))
}

// serverOptions are the parser's defaults, including those it applies after
// parsing, pointed at the test server's socket as root and at schema.
func serverOptions(s *sandbox.Server, schema string) *Options {
	o := newOptions()
	o.Concurrency, o.NumberCharCols, o.NumberIntCols = "1", "1", "1"
	o.CreateSchema = schema
	o.Socket = s.Socket
	o.User = "root"
	return o
}

// slapRun is one goslap run: its stdout, stderr, results and error.
type slapRun struct {
	stdout, stderr bytes.Buffer
	results        []BenchmarkResult
	err            error
	elapsed        time.Duration
}

// runSlap validates o and runs it; a validation error is the run's error.
func runSlap(t *testing.T, ctx context.Context, o *Options) *slapRun {
	t.Helper()
	r := &slapRun{}
	c, err := Validate(o, Env{Stdout: &r.stdout})
	if err != nil {
		r.err = err
		return r
	}
	defer c.Close()
	start := time.Now()
	r.results, r.err = Run(ctx, c, Output{Stdout: &r.stdout, Stderr: &r.stderr, CSV: c.CSV})
	r.elapsed = time.Since(start)
	return r
}

// mustRun runs goslap and fails the test on any error.
func mustRun(t *testing.T, o *Options) *slapRun {
	t.Helper()
	r := runSlap(t, context.Background(), o)
	if r.err != nil {
		t.Fatalf("Run: %v\nstderr: %s", r.err, r.stderr.String())
	}
	return r
}

// wantExitError checks that err is an ExitError with the code whose message
// matches the pattern.
func wantExitError(t *testing.T, err error, code int, pattern string) {
	t.Helper()
	var ee *ExitError
	if !errors.As(err, &ee) {
		t.Fatalf("error = %v (%T), want an *ExitError", err, err)
	}
	if ee.Code != code {
		t.Errorf("exit code = %d, want %d (%s)", ee.Code, code, ee.Msg)
	}
	if !regexp.MustCompile(pattern).MatchString(ee.Msg) {
		t.Errorf("message %q does not match %q", ee.Msg, pattern)
	}
}

// rootDB is a root handle on the test server for checking side effects.
func rootDB(t *testing.T, s *sandbox.Server) *sql.DB {
	t.Helper()
	db, err := s.OpenDB("")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return db
}

func schemaExists(t *testing.T, db *sql.DB, schema string) bool {
	t.Helper()
	var n int
	if err := db.QueryRow("SELECT COUNT(*) FROM information_schema.SCHEMATA WHERE SCHEMA_NAME = ?", schema).Scan(&n); err != nil {
		t.Fatal(err)
	}
	return n == 1
}

func countRows(t *testing.T, db *sql.DB, table string) int {
	t.Helper()
	var n int
	if err := db.QueryRow("SELECT COUNT(*) FROM " + table).Scan(&n); err != nil {
		t.Fatal(err)
	}
	return n
}

// dropAfter removes a schema the test leaves behind on purpose (--no-drop).
func dropAfter(t *testing.T, db *sql.DB, schema string) {
	t.Cleanup(func() { db.Exec("DROP SCHEMA IF EXISTS `" + schema + "`") })
}

func TestRunEnginesConcurrencyIterations(t *testing.T) {
	s := servertest.Require(t)
	t.Parallel()
	db := rootDB(t, s)
	o := slapOptions(t, s)
	o.AutoGenerateSQL = true
	o.Engine, o.EngineSet = "innodb,myisam:CHECKSUM=1", true
	o.Concurrency = "1,3"
	o.Iterations = 2
	o.WriteNumber = 10
	r := mustRun(t, o)

	want := []struct {
		engine  string
		clients int
	}{{"innodb", 1}, {"innodb", 3}, {"myisam", 1}, {"myisam", 3}}
	if len(r.results) != len(want) {
		t.Fatalf("%d results, want %d", len(r.results), len(want))
	}
	for i, w := range want {
		got := r.results[i]
		if got.Engine != w.engine || !got.HasEngine || got.Concurrency != w.clients || len(got.IterationMillis) != 2 || got.LoadType != "mixed" {
			t.Errorf("result %d = %+v, want engine %s, %d clients, 2 iterations", i, got, w.engine, w.clients)
		}
	}
	block := regexp.MustCompile(`Benchmark\n\tRunning for engine (\w+)\n` +
		`\tAverage number of seconds to run all queries: \d+\.\d{3} seconds\n` +
		`\tMinimum number of seconds to run all queries: \d+\.\d{3} seconds\n` +
		`\tMaximum number of seconds to run all queries: \d+\.\d{3} seconds\n` +
		`\tNumber of clients running queries: (\d+)\n` +
		`\tAverage number of queries per client: 0\n\n`)
	blocks := block.FindAllStringSubmatch(r.stdout.String(), -1)
	if len(blocks) != 4 || block.ReplaceAllString(r.stdout.String(), "") != "" {
		t.Errorf("stdout is not four Benchmark blocks:\n%s", r.stdout.String())
	}
	if schemaExists(t, db, o.CreateSchema) {
		t.Errorf("schema %s left behind", o.CreateSchema)
	}
}

func TestRunVerboseAndCommitSequence(t *testing.T) {
	s := servertest.Require(t)
	t.Parallel()
	db := rootDB(t, s)
	o := slapOptions(t, s)
	o.Verbose = 3
	o.Delimiter = ";"
	o.Create, o.CreateSet = "create table t(a int) engine=innodb", true
	o.Query, o.QuerySet = "insert into t values (1);select count(*) from t", true
	o.NumberOfQueries = 3
	o.Commit = 2
	o.NoDrop = true
	dropAfter(t, db, o.CreateSchema)
	r := mustRun(t, o)
	schema := "`" + o.CreateSchema + "`"
	wantStdout := strings.Join([]string{
		"Parsing engines to use.",
		"Starting Concurrency Test",
		"Loading Pre-data",
		"CREATE SCHEMA " + schema + ";",
		"CREATE SCHEMA " + schema + ";",
		"create table t(a int) engine=innodb;",
		"Generating primary key list",
		"SET AUTOCOMMIT=0;",
		"connected!",
		"SET AUTOCOMMIT=0;",
		"insert into t values (1);",
		"select count(*) from t;",
		"COMMIT;",
		"insert into t values (1);",
		"COMMIT;",
		"Generating stats",
		"Benchmark",
	}, "\n")
	if !strings.HasPrefix(r.stdout.String(), wantStdout) {
		t.Errorf("stdout:\n%s\nwant prefix:\n%s", r.stdout.String(), wantStdout)
	}
	if n := countRows(t, db, schema+".t"); n != 2 {
		t.Errorf("t has %d rows, want 2 (committed inserts)", n)
	}
}

func TestRunDetachReconnects(t *testing.T) {
	s := servertest.Require(t)
	// Not parallel: it counts the server's connections.
	db := rootDB(t, s)
	conn, err := db.Conn(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	connections := func() int {
		var name string
		var n int
		if err := conn.QueryRowContext(context.Background(), "SHOW GLOBAL STATUS LIKE 'Connections'").Scan(&name, &n); err != nil {
			t.Fatal(err)
		}
		return n
	}
	o := slapOptions(t, s)
	o.Delimiter = ";"
	o.Create, o.CreateSet = "create table t(a int)", true
	o.Query, o.QuerySet = "select 1;select 2;select 3", true
	o.Concurrency = "2"
	o.Detach = 2
	o.NumberOfQueries = 10
	o.InitCommand = "SET @x = 1"
	before := connections()
	mustRun(t, o)
	// mysqlslap: 5 statements per client over a 3-statement list with
	// --detach=2 → 4 connections per client (spec 3.5), plus the main one.
	if got := connections() - before; got != 2*4+1 {
		t.Errorf("%d new connections, want 9", got)
	}
}

func TestRunPreAndPostHooks(t *testing.T) {
	s := servertest.Require(t)
	t.Parallel()
	db := rootDB(t, s)
	o := slapOptions(t, s)
	o.Delimiter = ";"
	o.Create, o.CreateSet = "create table t(a int)", true
	o.Query, o.QuerySet = "select * from t", true
	o.PreQuery, o.PreQuerySet = "insert into t values (1);insert into t values (2)", true
	o.PostQuery, o.PostQuerySet = "insert into t values (3)", true
	o.PreSystem = "echo PRESYS"
	o.PostSystem = "echo POSTSYS; exit 3"
	o.Iterations = 2
	o.NoDrop = false
	r := mustRun(t, o)
	if got := strings.Count(r.stdout.String(), "PRESYS\n"); got != 2 {
		t.Errorf("PRESYS printed %d times, want 2:\n%s", got, r.stdout.String())
	}
	if !strings.HasPrefix(r.stdout.String(), "PRESYS\nPOSTSYS\nPRESYS\nPOSTSYS\nBenchmark\n") {
		t.Errorf("stdout order:\n%s", r.stdout.String())
	}
	want := "Warning: Execution of post_system option returned 768.\n"
	if r.stderr.String() != want+want {
		t.Errorf("stderr = %q, want the raw wait status warning twice", r.stderr.String())
	}
	// The post-query saw the pre-query rows: check with --no-drop.
	o2 := slapOptions(t, s)
	o2.Delimiter = ";"
	o2.Create, o2.CreateSet = o.Create, true
	o2.Query, o2.QuerySet = o.Query, true
	o2.PreQuery, o2.PreQuerySet = o.PreQuery, true
	o2.PostQuery, o2.PostQuerySet = o.PostQuery, true
	o2.NoDrop = true
	dropAfter(t, db, o2.CreateSchema)
	mustRun(t, o2)
	if n := countRows(t, db, "`"+o2.CreateSchema+"`.t"); n != 3 {
		t.Errorf("t has %d rows after pre and post queries, want 3", n)
	}
}

func TestRunStatementsFromFiles(t *testing.T) {
	s := servertest.Require(t)
	t.Parallel()
	db := rootDB(t, s)
	dir := t.TempDir()
	createFile := filepath.Join(dir, "create.sql")
	queryFile := filepath.Join(dir, "query.sql")
	os.WriteFile(createFile, []byte("CREATE TABLE t1 (id int, name varchar(64))\nINSERT INTO t1 VALUES (1, 'x')\n"), 0o644)
	os.WriteFile(queryFile, []byte("select * from t1\ninsert into t1 values (2, 'y')\n"), 0o644)
	o := slapOptions(t, s)
	o.Create, o.CreateSet = createFile, true
	o.Query, o.QuerySet = queryFile, true
	o.Concurrency = "4"
	o.NoDrop = true
	dropAfter(t, db, o.CreateSchema)
	r := mustRun(t, o)
	if r.results[0].QueriesPerClient != 2 {
		t.Errorf("queries per client = %d, want 2 (statements in the file)", r.results[0].QueriesPerClient)
	}
	if n := countRows(t, db, "`"+o.CreateSchema+"`.t1"); n != 1+4 {
		t.Errorf("t1 has %d rows, want 5", n)
	}
}

func TestRunAutoGeneratedLoads(t *testing.T) {
	s := servertest.Require(t)
	t.Parallel()
	db := rootDB(t, s)
	tests := []struct {
		name     string
		loadType string
		autoinc  bool
		guid     bool
		indexes  uint32
		wantRows int // rows in t1 after the run (--no-drop), -1 = don't check
	}{
		{"write-autoinc", "write", true, false, 0, 9 + 2*11},
		{"write-guid-indexes", "write", false, true, 2, 9 + 2*11},
		{"key-autoinc", "key", true, false, 0, 9},
		{"key-guid", "key", false, true, 0, 9},
		{"update-autoinc", "update", true, false, 0, 9},
		{"update-guid", "update", false, true, 0, 9},
		{"read", "read", false, false, 0, 9},
		{"mixed-guid", "mixed", false, true, 0, 9 + 2*6},
		{"mixed-plain", "mixed", false, false, 0, 9 + 2*6},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			o := slapOptions(t, s)
			o.AutoGenerateSQL = true
			o.LoadType = tc.loadType
			o.AddAutoIncrement = tc.autoinc
			o.GUIDPrimary = tc.guid
			o.SecondaryIndexes = tc.indexes
			o.WriteNumber = 10
			o.NumberIntCols, o.NumberCharCols = "2", "3"
			o.Concurrency = "2"
			o.NoDrop = true
			dropAfter(t, db, o.CreateSchema)
			r := mustRun(t, o)
			if r.results[0].QueriesPerClient != 0 {
				t.Errorf("queries per client = %d, want 0 (one pass)", r.results[0].QueriesPerClient)
			}
			if n := countRows(t, db, "`"+o.CreateSchema+"`.t1"); n != tc.wantRows {
				t.Errorf("t1 has %d rows, want %d", n, tc.wantRows)
			}
		})
	}
}

func TestRunExecuteNumberAndCSV(t *testing.T) {
	s := servertest.Require(t)
	t.Parallel()
	o := slapOptions(t, s)
	o.AutoGenerateSQL = true
	o.AddAutoIncrement = true
	o.LoadType = "key"
	o.ExecuteNumber = 25
	o.WriteNumber = 5
	o.Concurrency = "2,1"
	o.CSVSet = true
	o.CSV = filepath.Join(t.TempDir(), "out.csv")
	mustRun(t, o)
	mustRun(t, o) // appends
	data, err := os.ReadFile(o.CSV)
	if err != nil {
		t.Fatal(err)
	}
	line := regexp.MustCompile(`^,key,\d+\.\d{3},\d+\.\d{3},\d+\.\d{3},(2|1),25$`)
	lines := strings.Split(strings.TrimSuffix(string(data), "\n"), "\n")
	if len(lines) != 4 {
		t.Fatalf("CSV file has %d lines, want 4:\n%s", len(lines), data)
	}
	for _, l := range lines {
		if !line.MatchString(l) {
			t.Errorf("CSV line %q does not match %s", l, line)
		}
	}
}

func TestRunStoredProcedureResultSets(t *testing.T) {
	s := servertest.Require(t)
	t.Parallel()
	db := rootDB(t, s)
	o := slapOptions(t, s)
	if err := execAll(db, "CREATE SCHEMA `"+o.CreateSchema+"`",
		"CREATE PROCEDURE `"+o.CreateSchema+"`.p1() BEGIN SELECT 1; SELECT 2, 3; END"); err != nil {
		t.Fatal(err)
	}
	dropAfter(t, db, o.CreateSchema)
	o.Delimiter = ";"
	o.Query, o.QuerySet = "CALL p1; SELECT 1;", true
	o.Concurrency = "3"
	o.NumberOfQueries = 30
	o.Silent = true
	r := mustRun(t, o)
	if r.stdout.Len() != 0 || r.stderr.Len() != 0 {
		t.Errorf("silent run printed stdout %q stderr %q", r.stdout.String(), r.stderr.String())
	}
	if !schemaExists(t, db, o.CreateSchema) {
		t.Error("a -q run dropped a schema it did not create")
	}
}

func TestRunInitCommandOnWorkers(t *testing.T) {
	s := servertest.Require(t)
	t.Parallel()
	db := rootDB(t, s)
	o := slapOptions(t, s)
	if err := execAll(db, "CREATE SCHEMA `"+o.CreateSchema+"`"); err != nil {
		t.Fatal(err)
	}
	dropAfter(t, db, o.CreateSchema)
	o.InitCommand = "CREATE TABLE IF NOT EXISTS init_t(a INT)"
	o.Query, o.QuerySet = "INSERT INTO init_t VALUES (1)", true
	o.Concurrency = "2"
	mustRun(t, o)
	if n := countRows(t, db, "`"+o.CreateSchema+"`.init_t"); n != 2 {
		t.Errorf("init_t has %d rows, want 2", n)
	}
}

func TestRunOverTCPWithPassword(t *testing.T) {
	s := servertest.Require(t)
	t.Parallel()
	o := slapOptions(t, s)
	o.Host, o.Port, o.Protocol = "127.0.0.1", uint32(s.Port), ""
	o.User, o.Password, o.PasswordSet = testUser, testPassword, true
	o.Compress = true
	o.AutoGenerateSQL = true
	o.WriteNumber = 5
	o.Concurrency = "2"
	mustRun(t, o)
}

func TestRunConnectionErrors(t *testing.T) {
	s := servertest.Require(t)
	t.Parallel()
	tests := []struct {
		name    string
		edit    func(o *Options)
		pattern string
	}{
		{"wrong password", func(o *Options) {
			o.Host, o.Port = "127.0.0.1", uint32(s.Port)
			o.User, o.Password, o.PasswordSet = testUser, "wrong", true
		}, `^goslap: Error when connecting to server: Access denied for user 'slapper'@'127\.0\.0\.1' \(using password: YES\)$`},
		{"nothing listening", func(o *Options) {
			o.Host, o.Port = "127.0.0.1", 1
		}, `^goslap: Error when connecting to server: Can't connect to server on '127\.0\.0\.1' \(111\)$`},
		{"missing socket", func(o *Options) {
			o.Socket = "/nonexistent/mysqld.sock"
		}, `^goslap: Error when connecting to server: Can't connect to local server through socket '/nonexistent/mysqld\.sock' \(2\)$`},
		{"TLS required", func(o *Options) {
			o.SSLVerifyServerCert = true
		}, `^goslap: Error when connecting to server: TLS/SSL error: SSL is required, but the server does not support it$`},
		{"missing schema", func(o *Options) {
			o.Query, o.QuerySet = "select 1", true
			o.CreateSchema = "goslap_no_such_schema"
		}, `^goslap: Error when connecting to server: 1049 Unknown database 'goslap_no_such_schema'$`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			o := slapOptions(t, s)
			o.Query, o.QuerySet = "select 1", true
			tc.edit(o)
			r := runSlap(t, context.Background(), o)
			wantExitError(t, r.err, 1, tc.pattern)
			if r.stdout.Len() != 0 {
				t.Errorf("a failed run printed %q", r.stdout.String())
			}
		})
	}
}

func TestRunFailingClientStopsAll(t *testing.T) {
	s := servertest.Require(t)
	t.Parallel()
	db := rootDB(t, s)
	o := slapOptions(t, s)
	o.Create, o.CreateSet = "create table t(a int)", true
	// Fails about once in a hundred executions: "Subquery returns more
	// than 1 row" when RAND() < 0.01.
	bad := "SELECT IF(RAND() < 0.01, (SELECT 1 UNION SELECT 2), 1)"
	o.Query, o.QuerySet = bad, true
	o.Concurrency = "50"
	o.ExecuteNumber = 200
	r := runSlap(t, context.Background(), o)
	wantExitError(t, r.err, 1, `^goslap: Cannot run query `+regexp.QuoteMeta(bad)+` ERROR : 1242 Subquery returns more than 1 row$`)
	if r.stdout.Len() != 0 {
		t.Errorf("stdout after a failure: %q", r.stdout.String())
	}
	if r.elapsed > 10*time.Second {
		t.Errorf("run took %v after a client failed", r.elapsed)
	}
	if schemaExists(t, db, o.CreateSchema) {
		t.Error("the schema this run created was not dropped after the failure")
	}
}

func TestRunMainConnectionFailures(t *testing.T) {
	s := servertest.Require(t)
	t.Parallel()
	db := rootDB(t, s)
	tests := []struct {
		name    string
		edit    func(o *Options)
		pattern string
	}{
		{"key test without table", func(o *Options) {
			o.AddAutoIncrement = true
			o.Create, o.CreateSet = "create table other(a int)", true
			o.Query, o.QuerySet = "select 1", true
		}, `^goslap: Cannot select GUID primary keys\. \(1146 Table 'goslap_t\d+\.t1' doesn't exist\)$`},
		{"unknown engine", func(o *Options) {
			o.AutoGenerateSQL = true
			o.Engine, o.EngineSet = "nosuchengine", true
			o.SQLMode, o.SQLModeSet = "NO_ENGINE_SUBSTITUTION", true
		}, `^goslap: Cannot run query CREATE TABLE .* Engine = nosuchengine ERROR : 1286 Unknown storage engine 'nosuchengine'$`},
		{"bad sql mode", func(o *Options) {
			o.AutoGenerateSQL = true
			o.SQLMode, o.SQLModeSet = "abc", true
		}, `^goslap:1231 Variable 'sql_mode' can't be set to the value of 'abc'$`},
		{"failing pre-query", func(o *Options) {
			o.Create, o.CreateSet = "create table t(a int)", true
			o.Query, o.QuerySet = "select 1", true
			o.PreQuery, o.PreQuerySet = "select * from missing", true
		}, `^goslap: Cannot run query select \* from missing ERROR : 1146 Table '.*\.missing' doesn't exist$`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			o := slapOptions(t, s)
			tc.edit(o)
			r := runSlap(t, context.Background(), o)
			wantExitError(t, r.err, 1, tc.pattern)
			if schemaExists(t, db, o.CreateSchema) {
				t.Errorf("schema %s left behind", o.CreateSchema)
			}
		})
	}
}

func TestCSVFileThatCannotBeOpened(t *testing.T) {
	o := &Options{CSVSet: true, CSV: "/nonexistent/dir/out.csv"}
	_, _, err := OpenCSV(o, nil)
	wantExitError(t, err, 1, `^goslap: Could not open csv file: /nonexistent/dir/out\.csv$`)
}

// TestRunSchemaOwnership: a --create-schema that exists before the run is
// dropped only when it is empty or provably an earlier goslap run's
// leftover (the ownership marker lists everything in it); an object of any
// kind goslap did not make — even one whose name goslap would use — makes
// the run refuse before it touches anything.
func TestRunSchemaOwnership(t *testing.T) {
	s := servertest.Require(t)
	t.Parallel()
	db := rootDB(t, s)
	autoGenerate := func(o *Options) { o.AutoGenerateSQL, o.WriteNumber = true, 5 }
	createOrders := func(o *Options) {
		o.Create, o.CreateSet = "CREATE TABLE orders (id int)", true
		o.Query, o.QuerySet = "select 1", true
	}
	// leftover is what an earlier -a --no-drop goslap run leaves.
	leftover := func(t *testing.T, o *Options) {
		prev := serverOptions(s, o.CreateSchema)
		autoGenerate(prev)
		prev.NoDrop = true
		mustRun(t, prev)
	}
	// loadLeftover is an earlier --no-drop run whose load made a table.
	loadLeftover := func(t *testing.T, o *Options) {
		prev := serverOptions(s, o.CreateSchema)
		prev.Create, prev.CreateSet = "CREATE TABLE t (a int)", true
		prev.Query, prev.QuerySet = "CREATE TABLE IF NOT EXISTS made_by_the_load (a int)", true
		prev.NoDrop = true
		mustRun(t, prev)
	}
	// commitLeftover ends with autocommit off on the main connection, so the
	// last inventory goes through the ledger connection.
	commitLeftover := func(t *testing.T, o *Options) {
		prev := serverOptions(s, o.CreateSchema)
		prev.Create, prev.CreateSet = "CREATE TABLE t (a int)", true
		prev.Query, prev.QuerySet = "CREATE TABLE IF NOT EXISTS made_by_the_load (a int)", true
		prev.Commit, prev.NoDrop = 2, true
		mustRun(t, prev)
	}
	tests := []struct {
		name     string
		leftover func(*testing.T, *Options) // an earlier goslap run; nil: CREATE SCHEMA
		setup    []string                   // then run these in the schema (S is its quoted name)
		edit     func(*Options)
		refused  string // the objects named in the refusal; "" = the run drops the schema and succeeds
		kept     string // a table whose 3 rows must survive
	}{
		{name: "a user's t1 with rows for -a", setup: []string{"CREATE TABLE S.t1 (a int)", "INSERT INTO S.t1 VALUES (1),(2),(3)"},
			edit: autoGenerate, refused: "table t1", kept: "t1"},
		{name: "a user's orders when --create makes orders", setup: []string{"CREATE TABLE S.orders (id int)", "INSERT INTO S.orders VALUES (1),(2),(3)"},
			edit: createOrders, refused: "table orders", kept: "orders"},
		{name: "a table beside goslap's", setup: []string{"CREATE TABLE S.t1 (a int)", "CREATE TABLE S.precious (a int)", "INSERT INTO S.precious VALUES (1),(2),(3)"},
			edit: autoGenerate, refused: "table precious, table t1", kept: "precious"},
		{name: "a view", setup: []string{"CREATE VIEW S.v AS SELECT 1 AS one"}, edit: autoGenerate, refused: "view v"},
		{name: "a procedure", setup: []string{"CREATE PROCEDURE S.p() SELECT 1"}, edit: autoGenerate, refused: "procedure p"},
		{name: "a function", setup: []string{"CREATE FUNCTION S.f() RETURNS int RETURN 1"}, edit: autoGenerate, refused: "function f"},
		{name: "an event", setup: []string{"CREATE EVENT S.e ON SCHEDULE EVERY 1 DAY DISABLE DO SELECT 1"}, edit: autoGenerate, refused: "event e"},
		{name: "a sequence", setup: []string{"CREATE SEQUENCE S.sq"}, edit: autoGenerate, refused: "sequence sq"},
		{name: "a marker goslap did not write", setup: []string{"CREATE TABLE S." + markerTable + " (kind varchar(16), name varchar(64))",
			"INSERT INTO S." + markerTable + " VALUES ('table', 't1')", "CREATE TABLE S.t1 (a int)"},
			edit: autoGenerate, refused: "table " + markerTable + ", table t1"},
		{name: "a table added to goslap's leftover", leftover: leftover,
			setup: []string{"CREATE TABLE S.precious (a int)", "INSERT INTO S.precious VALUES (1),(2),(3)"},
			edit:  autoGenerate, refused: "table precious", kept: "precious"},
		{name: "a trigger added to goslap's leftover", leftover: leftover,
			setup: []string{"CREATE TRIGGER S.tr BEFORE INSERT ON S.t1 FOR EACH ROW SET @x = 1"},
			edit:  autoGenerate, refused: "trigger tr"},
		{name: "goslap's leftover", leftover: leftover, edit: autoGenerate},
		{name: "goslap's leftover with a table its load created", leftover: loadLeftover, edit: autoGenerate},
		{name: "goslap's leftover of a --commit run", leftover: commitLeftover, edit: autoGenerate},
		{name: "an empty schema", edit: autoGenerate},
		{name: "a user's table with --allow-drop-existing-schema", setup: []string{"CREATE TABLE S.precious (a int)"},
			edit: func(o *Options) { autoGenerate(o); o.AllowDropExistingSchema = true }},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			o := slapOptions(t, s)
			quoted := "`" + o.CreateSchema + "`"
			dropAfter(t, db, o.CreateSchema)
			if tc.leftover != nil {
				tc.leftover(t, o)
			} else if err := execAll(db, "CREATE SCHEMA "+quoted); err != nil {
				t.Fatal(err)
			}
			for _, stmt := range tc.setup {
				if err := execAll(db, strings.ReplaceAll(stmt, "S.", quoted+".")); err != nil {
					t.Fatal(err)
				}
			}
			tc.edit(o)
			r := runSlap(t, context.Background(), o)
			if tc.refused == "" {
				if r.err != nil {
					t.Fatalf("Run: %v", r.err)
				}
				if schemaExists(t, db, o.CreateSchema) {
					t.Error("schema not dropped")
				}
				return
			}
			wantExitError(t, r.err, 1, `^goslap: Schema '`+o.CreateSchema+`' already exists and holds objects goslap did not create \(`+
				regexp.QuoteMeta(tc.refused)+`\); refusing to drop it\. Use --allow-drop-existing-schema to drop it anyway, or --create-schema to name another schema\.$`)
			if !schemaExists(t, db, o.CreateSchema) {
				t.Fatal("schema dropped")
			}
			if tc.kept != "" {
				if n := countRows(t, db, quoted+"."+tc.kept); n != 3 {
					t.Errorf("%s has %d rows, want 3", tc.kept, n)
				}
			}
		})
	}
}

func TestRunInterrupted(t *testing.T) {
	s := servertest.Require(t)
	t.Parallel()
	db := rootDB(t, s)
	tests := []struct {
		name  string
		query string
	}{
		{"between statements", "SELECT SLEEP(0.01)"},
		{"inside a long statement", "SELECT SLEEP(60)"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			o := slapOptions(t, s)
			o.Create, o.CreateSet = "create table t(a int)", true
			o.Query, o.QuerySet = tc.query, true
			o.Concurrency = "4"
			o.ExecuteNumber = 100000
			ctx, cancel := context.WithCancel(context.Background())
			time.AfterFunc(500*time.Millisecond, cancel)
			r := runSlap(t, ctx, o)
			wantExitError(t, r.err, 130, `^goslap: interrupted$`)
			if r.elapsed > 5*time.Second {
				t.Errorf("interrupted run took %v, want < 5 s", r.elapsed)
			}
			if schemaExists(t, db, o.CreateSchema) {
				t.Error("schema not dropped after the interrupt")
			}
			if r.stdout.Len() != 0 {
				t.Errorf("interrupted run printed %q", r.stdout.String())
			}
		})
	}
}
