// Package sqlgen builds the statement program of a mysqlslap-compatible run:
// the auto-generated SQL text (byte-identical to mariadb-slap's, drawn from
// glibc random() seeded with 1), the user statement lists split on the
// delimiter, the engine list, the concurrency list and the per-client limit.
//
// Everything here is pure and deterministic: no I/O, no clock, no package
// slap. The runner executes a Plan; --only-print prints it.
package sqlgen

// Statement is one SQL statement of a list, built once before the run.
type Statement struct {
	// Text is sent as is. For a statement with NeedsKey it ends in
	// " WHERE id = " and WithKey appends the quoted key at run time.
	Text string
	// NeedsKey marks an auto-generated key SELECT or UPDATE: each execution
	// appends one primary key chosen at random (spec 2.4, 2.5).
	NeedsKey bool
	// CreateTable marks the statement that receives the engine clause: the
	// auto-generated CREATE TABLE, or the first statement of a user --create
	// list whatever it is (spec 2.2).
	CreateTable bool
}

// FakeKey is the only primary key used when keys are not read from the
// server: in --only-print and for engines whose name contains "blackhole".
const FakeKey = "796c4422-1d94-102a-9d6d-00e0812d"

// WithKey is the text sent for a NeedsKey statement: mysqlslap appends
// " '<key>'" after "WHERE id = " (two spaces before the quote), and quotes
// even the numeric serial ids.
func (s Statement) WithKey(key string) string {
	return s.Text + " '" + key + "'"
}

// WithEngine is the text sent for s while engine e is active. Only a
// CreateTable statement and a Named engine get MariaDB's clause
// "<stmt> Engine = E" or "<stmt> Engine = E OPTS"; everything else is s.Text.
func (s Statement) WithEngine(e Engine) string {
	if !s.CreateTable || !e.Named {
		return s.Text
	}
	if e.HasOptions {
		return s.Text + " Engine = " + e.Name + " " + e.Options
	}
	return s.Text + " Engine = " + e.Name
}

// Engine is one element of the --engine list.
type Engine struct {
	// Name is the text before the first ':' (possibly empty, "-e ,x" keeps an
	// empty engine). It is also the benchmark / CSV label.
	Name string
	// Options is the raw text after the first ':'; HasOptions says a ':' was
	// present, even with nothing after it ("E:" gives "Engine = E ").
	Options    string
	HasOptions bool
	// Named is false for the run without any engine: --engine absent or
	// empty, or the extra run a trailing comma adds. Such a run gets no
	// engine clause and no "Running for engine" line.
	Named bool
}

// UsesFakeKeys reports whether the key list is the single FakeKey instead of
// "SELECT id from t1" (mysqlslap checks the engine name for "blackhole").
func (e Engine) UsesFakeKeys() bool { return e.Named && containsBlackhole(e.Name) }

// Plan is the whole statement program of a run, derived by Build from a
// Config. It is immutable once built and safe to share between goroutines.
//
// Run order (spec 3.2), for every engine, every concurrency value C, every
// iteration:
//
//	if OwnsSchema: DROP SCHEMA IF EXISTS `Schema`
//	if HasCreate:  CREATE SCHEMA `Schema`; use Schema; Create (WithEngine)
//	if NeedsKeys:  key list ("SELECT id from t1", or FakeKey)
//	if Commit > 0: SET AUTOCOMMIT=0 on the main connection
//	pre-system; PreQuery; C clients each run Query up to PerClientLimit(C);
//	PostQuery; post-system
//
// and after each engine's concurrency list: if OwnsSchema, DROP SCHEMA again.
type Plan struct {
	Schema      string   // --create-schema
	Engines     []Engine // never empty: one unnamed Engine when --engine is absent
	Concurrency []int    // validated, each ≥ 1, in the given order
	Iterations  int

	// HasCreate says a create list exists (--create or -a): the schema is
	// created and selected every iteration even when Create is empty
	// (--create="" or -a with write-number 0).
	HasCreate bool
	// Create holds the distinct texts of the create list: a user list
	// truncated at the first empty statement, executed as is; for -a only
	// the CREATE TABLE, whose INSERTs CreateList generates (write-number
	// cycling applied). Execute it with CreateList; CreateLen counts it.
	Create []Statement
	// OwnsSchema: HasCreate and not --no-drop. Drop before each iteration and
	// after each engine.
	OwnsSchema bool
	// NeedsKeys: add-autoincrement or guid-primary (even without -a, as in
	// mysqlslap). The key list is fetched every iteration after Create.
	NeedsKeys bool

	// Query is what every client executes, cycled up to the per-client
	// limit; nil for an auto-generated list too large to hold, which each
	// client generates with NewQueryCursor (QueryLen counts either). Truncated at the first empty statement (mysqlslap stops there);
	// Build rejects a list whose first statement is empty, so Query is empty
	// only when there is no query list at all.
	Query []Statement
	// PreQuery and PostQuery run on the main connection around the load,
	// truncated at the first empty statement.
	PreQuery, PostQuery []Statement

	Commit   int    // --commit: COMMIT every Commit statements and once at the end; 0 = off
	Detach   int    // --detach: reconnect every Detach statements; 0 = off
	LoadType string // --auto-generate-sql-load-type verbatim (CSV label)

	// BuildLog is what mysqlslap prints at --verbose ≥ 2 while building the
	// lists (spec 3.1 step 3), in order, without newlines. Build only
	// records it; the caller prints it when Verbose ≥ 2.
	BuildLog []string

	createLen uint64       // -a: statements of the create list
	inserts   *insertCycle // -a: the create list's INSERTs; nil for a user list
	queries   *queryGen    // -a: the query list when too large for Query

	executeNumber   uint64 // --auto-generate-sql-execute-number
	numberOfQueries uint64 // --number-of-queries
	queryCount      uint64 // statements parsed from --query, empty ones included
}

// PerClientLimit is the number of Query statements each of concurrency
// clients executes (spec 2.6): execute-number if set, else
// number-of-queries / concurrency, else the number of --query statements,
// else 0, which means one pass over Query. It is also the "queries per
// client" the report shows.
func (p *Plan) PerClientLimit(concurrency int) uint64 {
	switch {
	case p.executeNumber != 0:
		return p.executeNumber
	case p.numberOfQueries != 0 && concurrency > 0:
		return p.numberOfQueries / uint64(concurrency)
	default:
		return p.queryCount
	}
}
