// Package ownership is goslap's one rule for dropping a workload's tables,
// shared by every front end (--workload, goslap sysbench, goslap tpcc-*):
// a table is dropped only when goslap can show it is the workload's own —
// created by this goslap invocation (a Ledger) or having exactly the
// workload's layout (a Shape: sysbench's id, k, c, pad; tpcc-mysql's nine
// tables) — so tables sysbench or tpcc-mysql prepared still clean up as they
// do there, and a user's table that merely shares a name never does.
// Every table is checked before the first is dropped, and every drop is
// said.
//
// Names are never enough: a shop's customer and orders, or a payroll table
// someone called sbtest1, look exactly like a workload's by name.
package ownership

import (
	"errors"
	"fmt"
	"regexp"
	"sort"
	"strconv"
	"strings"

	"github.com/goslap/goslap/internal/mysqlconn"
)

// Querier is the part of a server connection the checks need
// (*mysqlconn.Conn has it).
type Querier interface {
	Query(stmt string) ([][][]byte, error)
	Exec(stmt string) error
}

// Column is one column as the server describes it.
type Column struct {
	Name     string
	Type     string // NormalType of information_schema.COLUMNS.COLUMN_TYPE
	Nullable bool
}

// Index is one index as the server describes it.
type Index struct {
	Name    string
	Unique  bool
	Columns []string // in key order
}

// Table is what the server says a table is.
type Table struct {
	Schema, Name string
	Kind         string // information_schema.TABLES.TABLE_TYPE: "BASE TABLE", "VIEW", "SEQUENCE", ...
	Engine       string
	Columns      []Column
	Indexes      []Index // PRIMARY first, then by name
}

// Qualified is schema.name, as messages name a table.
func (t *Table) Qualified() string { return t.Schema + "." + t.Name }

// ColumnNames lists the table's columns in order.
func (t *Table) ColumnNames() []string {
	out := make([]string, len(t.Columns))
	for i, c := range t.Columns {
		out[i] = c.Name
	}
	return out
}

// Primary returns the primary key, nil when the table has none.
func (t *Table) Primary() *Index {
	for i := range t.Indexes {
		if t.Indexes[i].Name == "PRIMARY" {
			return &t.Indexes[i]
		}
	}
	return nil
}

var intWidth = regexp.MustCompile(`^(tinyint|smallint|mediumint|int|integer|bigint)\(\d+\)`)

// NormalType is a column type as every server spells it: lower case, single
// spaces, integer display widths dropped (MariaDB and MySQL 5.7 say
// int(11), MySQL 8 says int) and integer for int.
func NormalType(t string) string {
	t = strings.Join(strings.Fields(strings.ToLower(t)), " ")
	t = intWidth.ReplaceAllString(t, "$1")
	if t == "integer" || strings.HasPrefix(t, "integer ") {
		t = "int" + strings.TrimPrefix(t, "integer")
	}
	return t
}

// Shape says whether a table has a workload's layout: "" when it has, else
// why not, worded to follow "table SCHEMA.NAME " ("has columns (id, name),
// not TPC-C's customer").
type Shape func(t *Table) string

// Ledger records the tables this goslap invocation created: those it may
// drop without looking at their layout. The zero value is empty and ready.
type Ledger struct {
	names map[string]bool
	order []string
}

// Add records that this invocation created the table.
func (l *Ledger) Add(name string) {
	if l.names == nil {
		l.names = map[string]bool{}
	}
	if !l.names[name] {
		l.names[name] = true
		l.order = append(l.order, name)
	}
}

// Has says whether this invocation created the table (and has not dropped it).
func (l *Ledger) Has(name string) bool { return l != nil && l.names[name] }

// Forget removes a dropped table from the ledger.
func (l *Ledger) Forget(name string) {
	if l == nil || !l.names[name] {
		return
	}
	delete(l.names, name)
	for i, n := range l.order {
		if n == name {
			l.order = append(l.order[:i], l.order[i+1:]...)
			break
		}
	}
}

// Names lists the recorded tables in the order they were created.
func (l *Ledger) Names() []string {
	if l == nil {
		return nil
	}
	return append([]string(nil), l.order...)
}

// DropCreated drops the tables of the ledger that still exist in schema,
// each drop said through say, and forgets them. finished says whether the
// step that created them (a prepare, a load) completed: when it did not,
// say also reports which of its tables were dropped, or which are left
// for a cleanup command.
func (l *Ledger) DropCreated(q Querier, schema string, finished bool, say func(format string, args ...any)) error {
	mine := l.Names()
	if len(mine) == 0 {
		return nil
	}
	have, err := Inspect(q, schema, mine)
	if err != nil {
		if !finished {
			say("left: tables %s of this prepare: run cleanup", Span(mine))
		}
		return err
	}
	var present []string
	for _, n := range mine {
		if _, ok := have[n]; ok {
			present = append(present, n)
		} else {
			l.Forget(n)
		}
	}
	dropped, err := Drop(q, schema, present, say)
	for _, n := range dropped {
		l.Forget(n)
	}
	if !finished {
		if len(dropped) > 0 {
			say("tables %s of this prepare were dropped", Span(dropped))
		}
		if err != nil {
			say("left: tables %s of this prepare: run cleanup", Span(present[len(dropped):]))
		}
	}
	return err
}

// Len is the number of recorded tables.
func (l *Ledger) Len() int {
	if l == nil {
		return 0
	}
	return len(l.order)
}

// RefusedError is a drop (or reuse) refused because tables are not
// provably the workload's. Nothing was dropped.
type RefusedError struct {
	Reasons []string // one per table: "table shop.customer has columns (id, name), not TPC-C's customer: not dropped"
}

func (e *RefusedError) Error() string {
	const shown = 5
	if len(e.Reasons) <= shown {
		return strings.Join(e.Reasons, "; ")
	}
	return strings.Join(e.Reasons[:shown], "; ") + fmt.Sprintf("; and %d more tables", len(e.Reasons)-shown)
}

// Verdict is what Claim found.
type Verdict struct {
	Present []string          // the candidates that exist, in the candidates' order; each may be dropped
	Missing []string          // the candidates that do not exist
	Tables  map[string]*Table // what the server says the present ones are
}

// Claim inspects every candidate table of schema and refuses, naming each
// table and why, unless every one that exists was created by this
// invocation (created, e.g. a Ledger's Has; nil: none) or has the
// workload's shape; what ("not dropped", "not used") ends each reason.
// Nothing is changed.
func Claim(q Querier, schema string, candidates []string, created func(name string) bool, shape Shape, what string) (Verdict, error) {
	tables, err := Inspect(q, schema, candidates)
	if err != nil {
		return Verdict{}, err
	}
	v := Verdict{Tables: tables}
	var refused []string
	for _, name := range candidates {
		t, ok := tables[name]
		if !ok {
			v.Missing = append(v.Missing, name)
			continue
		}
		v.Present = append(v.Present, name)
		if created != nil && created(name) {
			continue
		}
		why := ""
		if t.Kind != "BASE TABLE" {
			why = "is a " + strings.ToLower(t.Kind) + ", not a table"
		} else if shape != nil {
			why = shape(t)
		} else {
			why = "was not created by this goslap run"
		}
		if why != "" {
			refused = append(refused, "table "+t.Qualified()+" "+why+": "+what)
		}
	}
	if len(refused) > 0 {
		return v, &RefusedError{Reasons: refused}
	}
	return v, nil
}

// Drop drops the named tables of schema one by one, saying each as
// sysbench does ("Dropping table 'sbtest1'..."), with foreign-key checks
// off (TPC-C's tables reference each other). It returns the tables
// dropped and the first error, after which it stops. The caller has
// claimed them (Claim) or created them (Ledger), in the same schema.
func Drop(q Querier, schema string, names []string, say func(format string, args ...any)) (dropped []string, err error) {
	if len(names) == 0 {
		return nil, nil
	}
	if err := q.Exec("SET SESSION foreign_key_checks = 0"); err != nil {
		return nil, fmt.Errorf("dropping tables: %w", err)
	}
	defer q.Exec("SET SESSION foreign_key_checks = 1")
	for _, n := range names {
		if say != nil {
			say("Dropping table '%s'...", n)
		}
		if err := q.Exec("DROP TABLE " + mysqlconn.QuoteName(schema) + "." + mysqlconn.QuoteName(n)); err != nil {
			return dropped, fmt.Errorf("dropping table %s: %w", n, err)
		}
		dropped = append(dropped, n)
	}
	return dropped, nil
}

// Inspect reads what the server says about the named tables of schema
// (those that exist): kind, engine, columns and indexes, in two queries
// (a run's own statements are compared with sysbench's by the server's
// counters: goslap's checks must stay few). Schema "" is the connection's
// current schema; each Table names its schema as the server does.
func Inspect(q Querier, schema string, names []string) (map[string]*Table, error) {
	return inspect(q, schema, names, true)
}

// inspect is Inspect; without details it reads only the kind and engine.
func inspect(q Querier, schema string, names []string, details bool) (map[string]*Table, error) {
	out := map[string]*Table{}
	if len(names) == 0 {
		return out, nil
	}
	want := map[string]bool{}
	for _, n := range names {
		want[n] = true
	}
	// A short list is named in the query; a long one (--tables=100000)
	// would make the statement huge, so the schema is read whole and
	// filtered here.
	where := func(alias string) string {
		w := alias + "TABLE_SCHEMA = DATABASE()"
		if schema != "" {
			w = alias + "TABLE_SCHEMA = " + mysqlconn.QuoteString(schema)
		}
		if len(names) <= 500 {
			quoted := make([]string, 0, len(names))
			for n := range want {
				quoted = append(quoted, mysqlconn.QuoteString(n))
			}
			sort.Strings(quoted)
			w += " AND " + alias + "TABLE_NAME IN (" + strings.Join(quoted, ",") + ")"
		}
		return w
	}
	named := schema
	if named == "" {
		named = "(the current one)"
	}
	stmt := "SELECT TABLE_SCHEMA, TABLE_NAME, TABLE_TYPE, IFNULL(ENGINE, '') FROM information_schema.TABLES WHERE " + where("")
	if details {
		stmt = "SELECT t.TABLE_SCHEMA, t.TABLE_NAME, t.TABLE_TYPE, IFNULL(t.ENGINE, ''), c.COLUMN_NAME, c.COLUMN_TYPE, c.IS_NULLABLE" +
			" FROM information_schema.TABLES t LEFT JOIN information_schema.COLUMNS c" +
			" ON c.TABLE_SCHEMA = t.TABLE_SCHEMA AND c.TABLE_NAME = t.TABLE_NAME WHERE " + where("t.") +
			" ORDER BY t.TABLE_NAME, c.ORDINAL_POSITION"
	}
	rows, err := q.Query(stmt)
	if err != nil {
		return nil, fmt.Errorf("reading the tables of schema '%s': %w", named, err)
	}
	for _, r := range rows {
		n := string(r[1])
		if !want[n] {
			continue
		}
		t := out[n]
		if t == nil {
			t = &Table{Schema: string(r[0]), Name: n, Kind: string(r[2]), Engine: string(r[3])}
			out[n] = t
		}
		if details && len(r) >= 7 && r[4] != nil {
			t.Columns = append(t.Columns, Column{Name: string(r[4]), Type: NormalType(string(r[5])), Nullable: string(r[6]) == "YES"})
		}
	}
	if len(out) == 0 || !details {
		return out, nil
	}
	rows, err = q.Query("SELECT TABLE_NAME, INDEX_NAME, NON_UNIQUE, COLUMN_NAME FROM information_schema.STATISTICS WHERE " +
		where("") + " ORDER BY TABLE_NAME, INDEX_NAME = 'PRIMARY' DESC, INDEX_NAME, SEQ_IN_INDEX")
	if err != nil {
		return nil, fmt.Errorf("reading the indexes of schema '%s': %w", named, err)
	}
	for _, r := range rows {
		t := out[string(r[0])]
		if t == nil {
			continue
		}
		name := string(r[1])
		if k := len(t.Indexes); k == 0 || t.Indexes[k-1].Name != name {
			t.Indexes = append(t.Indexes, Index{Name: name, Unique: string(r[2]) == "0"})
		}
		ix := &t.Indexes[len(t.Indexes)-1]
		ix.Columns = append(ix.Columns, string(r[3]))
	}
	return out, nil
}

// CurrentSchema is the connection's current schema; an error when none is
// selected.
func CurrentSchema(q Querier) (string, error) {
	rows, err := q.Query("SELECT DATABASE()")
	if err != nil {
		return "", fmt.Errorf("reading the current schema: %w", err)
	}
	if len(rows) != 1 || rows[0][0] == nil {
		return "", errors.New("no schema selected")
	}
	return string(rows[0][0]), nil
}

// engineAliases are names CREATE TABLE accepts for an engine the server
// reports under another name.
var engineAliases = map[string]string{"heap": "memory", "maria": "aria", "berkeleydb": "bdb", "ndb": "ndbcluster"}

// SameEngine says whether the engine a user named (-e myisam) is the one
// the server reports (MyISAM).
func SameEngine(asked, reported string) bool {
	norm := func(s string) string {
		s = strings.ToLower(strings.TrimSpace(s))
		if a, ok := engineAliases[s]; ok {
			return a
		}
		return s
	}
	return norm(asked) == norm(reported)
}

// CheckEngine refuses, in one line, to label a run with an engine the
// workload's tables do not have: a report that says "engine myisam" above
// InnoDB tables would tell a lie. asked "" (no engine given) is no check.
func CheckEngine(q Querier, schema string, names []string, asked string) error {
	if asked == "" || len(names) == 0 {
		return nil
	}
	tables, err := inspect(q, schema, names, false)
	if err != nil {
		return err
	}
	return engineOf(tables, names, asked)
}

// CheckEngine is the package's CheckEngine on the tables Claim read (no
// query).
func (v Verdict) CheckEngine(asked string) error { return engineOf(v.Tables, v.Present, asked) }

func engineOf(tables map[string]*Table, names []string, asked string) error {
	if asked == "" {
		return nil
	}
	for _, n := range names {
		t, ok := tables[n]
		if ok && !SameEngine(asked, t.Engine) {
			return fmt.Errorf("engine %s was asked for, but table %s is %s: prepare the tables with that engine (cleanup, then prepare -e %s), or leave the engine out to run on them as they are",
				asked, t.Qualified(), t.Engine, asked)
		}
	}
	return nil
}

// Span words a list of table names briefly: "sbtest1..sbtest37" for a run
// of numbered names, else the names joined by ", ".
func Span(names []string) string {
	if len(names) == 0 {
		return ""
	}
	if len(names) > 2 {
		prefix, first, ok := splitNumber(names[0])
		run := ok
		for i := 1; run && i < len(names); i++ {
			p, n, ok := splitNumber(names[i])
			run = ok && p == prefix && n == first+i
		}
		if run {
			return names[0] + ".." + names[len(names)-1]
		}
	}
	if len(names) > 12 {
		return strings.Join(names[:10], ", ") + fmt.Sprintf(", ... (%d tables)", len(names))
	}
	return strings.Join(names, ", ")
}

func splitNumber(s string) (string, int, bool) {
	i := len(s)
	for i > 0 && s[i-1] >= '0' && s[i-1] <= '9' {
		i--
	}
	if i == len(s) {
		return "", 0, false
	}
	n, err := strconv.Atoi(s[i:])
	return s[:i], n, err == nil
}

// Layout is the layout a workload gives one of its tables; Shape returns
// its check.
type Layout struct {
	// What names the layout in messages: "TPC-C's customer",
	// "sysbench 1.0's sbtest table".
	What string
	// Columns are the names and NormalTypes in order; NotNull also checks
	// that every column the layout declares NOT NULL is NOT NULL.
	Columns []Column
	NotNull bool
	// PrimaryKey are the primary key's columns (nil: none expected).
	// KeyInstead accepts a plain index on them in place of the primary
	// key (sysbench's --secondary).
	PrimaryKey []string
	KeyInstead bool
	// OtherIndex says whether an index besides the key belongs to the
	// layout; nil accepts any (indexes and foreign keys added after a
	// load vary between tools and versions; columns and keys do not).
	OtherIndex func(ix Index) bool
}

// Shape is the check of l.
func (l Layout) Shape() Shape { return l.Mismatch }

// Mismatch says how t differs from l ("" when it does not).
func (l Layout) Mismatch(t *Table) string {
	got, want := t.ColumnNames(), make([]string, len(l.Columns))
	for i, c := range l.Columns {
		want[i] = c.Name
	}
	if !sameStrings(got, want) {
		what := l.What
		if len(want) <= 4 {
			what += " (" + strings.Join(want, ", ") + ")"
		}
		return "has columns (" + strings.Join(got, ", ") + "), not " + what
	}
	for i, c := range l.Columns {
		g := t.Columns[i]
		if g.Type != c.Type {
			return fmt.Sprintf("has column %s %s where %s has %s", g.Name, g.Type, l.What, c.Type)
		}
		if l.NotNull && !c.Nullable && g.Nullable {
			return fmt.Sprintf("has column %s NULL where %s has NOT NULL", g.Name, l.What)
		}
	}
	key := ""
	if l.PrimaryKey != nil {
		pk := t.Primary()
		switch {
		case pk != nil && sameStrings(pk.Columns, l.PrimaryKey):
			key = pk.Name
		case pk == nil && l.KeyInstead:
			for _, ix := range t.Indexes {
				if sameStrings(ix.Columns, l.PrimaryKey) {
					key = ix.Name
					break
				}
			}
			if key == "" {
				return fmt.Sprintf("has no key on (%s) where %s has one", strings.Join(l.PrimaryKey, ", "), l.What)
			}
		case pk == nil:
			return fmt.Sprintf("has no primary key where %s has (%s)", l.What, strings.Join(l.PrimaryKey, ", "))
		default:
			return fmt.Sprintf("has primary key (%s) where %s has (%s)", strings.Join(pk.Columns, ", "), l.What, strings.Join(l.PrimaryKey, ", "))
		}
	}
	if l.OtherIndex != nil {
		for _, ix := range t.Indexes {
			if ix.Name != key && !l.OtherIndex(ix) {
				return fmt.Sprintf("has index %s (%s), which %s lacks", ix.Name, strings.Join(ix.Columns, ", "), l.What)
			}
		}
	}
	return ""
}

func sameStrings(a, b []string) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if !strings.EqualFold(a[i], b[i]) {
			return false
		}
	}
	return true
}
