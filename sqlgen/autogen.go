package sqlgen

import (
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"
)

// Alphabet is mysqlslap's ALPHANUMERICS: 60 characters, without 'U' and 'V'.
const Alphabet = "0123456789ABCDEFGHIJKLMNOPQRSTWXYZabcdefghijklmnopqrstuvwxyz"

// randomStringLength is mysqlslap's RAND_STRING_SIZE.
const randomStringLength = 126

type loadType int

const (
	loadMixed loadType = iota
	loadRead
	loadKey
	loadWrite
	loadUpdate
)

// loadTypeOf classifies --auto-generate-sql-load-type by its first byte,
// case-sensitively, as mysqlslap does: "READ" or "foo" are mixed.
func loadTypeOf(value string) loadType {
	if value == "" {
		return loadMixed
	}
	switch value[0] {
	case 'r':
		return loadRead
	case 'k':
		return loadKey
	case 'w':
		return loadWrite
	case 'u':
		return loadUpdate
	}
	return loadMixed
}

// Table is the shape of the auto-generated table t1 (spec 2.1).
type Table struct {
	AutoIncrement    bool // id serial
	GUIDPrimary      bool // id varchar(36) primary key
	SecondaryIndexes int  // id0..idN-1 varchar(36) unique key
	Ints, Chars      Columns
}

// HasPrimaryKey: key SELECTs and UPDATEs get "WHERE id = " and a key.
func (t Table) HasPrimaryKey() bool { return t.AutoIncrement || t.GUIDPrimary }

// mysqlslap builds each statement by appending items and a comma "if more
// follows", with three places where it forgets the comma (or adds one too
// many) when there are no int or char columns (spec 2.2, 2.3). Joining the
// item list with "," gives its text byte for byte everywhere else, and
// valid SQL in those three places (spec 8).

// CreateTable is the auto-generated CREATE TABLE.
func (t Table) CreateTable() string {
	var items []string
	if t.AutoIncrement {
		items = append(items, "id serial")
	}
	if t.GUIDPrimary {
		items = append(items, "id varchar(36) primary key")
	}
	for k := range t.SecondaryIndexes {
		items = append(items, "id"+strconv.Itoa(k)+" varchar(36) unique key")
	}
	for i := 1; i <= t.Ints.Count; i++ {
		n := strconv.Itoa(i)
		if t.Ints.Indexed {
			items = append(items, "intcol"+n+" INT(32), INDEX(intcol"+n+")")
		} else {
			items = append(items, "intcol"+n+" INT(32) ")
		}
	}
	for j := 1; j <= t.Chars.Count; j++ {
		n := strconv.Itoa(j)
		if t.Chars.Indexed {
			items = append(items, "charcol"+n+" VARCHAR(128), INDEX(charcol"+n+") ")
		} else {
			items = append(items, "charcol"+n+" VARCHAR(128)")
		}
	}
	return "CREATE TABLE `t1` (" + strings.Join(items, ",") + ")"
}

// Insert is one auto-generated INSERT; it draws ints, then strings.
func (t Table) Insert(rng *GlibcRandom) string {
	return string(t.AppendInsert(nil, rng))
}

// AppendInsert appends Insert's text to dst (the lazily generated lists
// render into a reused buffer).
func (t Table) AppendInsert(dst []byte, rng *GlibcRandom) []byte {
	dst = append(dst, "INSERT INTO t1 VALUES ("...)
	sep := false
	item := func() {
		if sep {
			dst = append(dst, ',')
		}
		sep = true
	}
	if t.AutoIncrement {
		item()
		dst = append(dst, "NULL"...)
	}
	if t.GUIDPrimary {
		item()
		dst = append(dst, "uuid()"...)
	}
	for range t.SecondaryIndexes {
		item()
		dst = append(dst, "uuid()"...)
	}
	for range t.Ints.Count {
		item()
		dst = strconv.AppendUint(dst, uint64(rng.Next()), 10)
	}
	for range t.Chars.Count {
		item()
		dst = append(dst, '\'')
		dst = appendRandomString(dst, rng)
		dst = append(dst, '\'')
	}
	return append(dst, ')')
}

// drawsPerRow is how many values Insert (and Update) draw.
func (t Table) drawsPerRow() uint64 {
	return uint64(t.Ints.Count) + randomStringLength*uint64(t.Chars.Count)
}

// Select is the plain SELECT, or with withKey and a primary key the key
// SELECT ending in " WHERE id = " (the key is appended at run time).
func (t Table) Select(withKey bool) Statement {
	var items []string
	for i := 1; i <= t.Ints.Count; i++ {
		items = append(items, "intcol"+strconv.Itoa(i))
	}
	for j := 1; j <= t.Chars.Count; j++ {
		items = append(items, "charcol"+strconv.Itoa(j))
	}
	text := "SELECT " + strings.Join(items, ",") + " FROM t1"
	if withKey && t.HasPrimaryKey() {
		return Statement{Text: text + " WHERE id = ", NeedsKey: true}
	}
	return Statement{Text: text}
}

// Update is one auto-generated UPDATE (ints, then strings); with a primary
// key it updates one row chosen at run time, else every row.
func (t Table) Update(rng *GlibcRandom) Statement {
	return Statement{Text: string(t.AppendUpdate(nil, rng)), NeedsKey: t.HasPrimaryKey()}
}

// AppendUpdate appends Update's text to dst.
func (t Table) AppendUpdate(dst []byte, rng *GlibcRandom) []byte {
	dst = append(dst, "UPDATE t1 SET "...)
	for i := 1; i <= t.Ints.Count; i++ {
		if i > 1 {
			dst = append(dst, ',')
		}
		dst = append(dst, "intcol"...)
		dst = strconv.AppendInt(dst, int64(i), 10)
		dst = append(dst, " = "...)
		dst = strconv.AppendUint(dst, uint64(rng.Next()), 10)
	}
	for j := 1; j <= t.Chars.Count; j++ {
		if j > 1 || t.Ints.Count > 0 {
			dst = append(dst, ',')
		}
		dst = append(dst, "charcol"...)
		dst = strconv.AppendInt(dst, int64(j), 10)
		dst = append(dst, " = '"...)
		dst = appendRandomString(dst, rng)
		dst = append(dst, '\'')
	}
	if t.HasPrimaryKey() {
		dst = append(dst, " WHERE id = "...)
	}
	return dst
}

func appendRandomString(dst []byte, rng *GlibcRandom) []byte {
	for range randomStringLength {
		dst = append(dst, Alphabet[rng.Next()%uint32(len(Alphabet))])
	}
	return dst
}

// checkColumns refuses the tables whose generated SQL no server accepts,
// which mysqlslap sends anyway: a table without any column, and a SELECT
// list or UPDATE SET list without a column ("SELECT  FROM t1",
// "UPDATE t1 SET  WHERE id = ...") when -x and -y are both 0.
func checkColumns(t Table, kind loadType, loadType string) error {
	if t.Ints.Count+t.Chars.Count > 0 {
		return nil
	}
	if !t.HasPrimaryKey() && t.SecondaryIndexes == 0 {
		return errors.New("--number-char-cols=0 and --number-int-cols=0 leave table t1 without any column (mysqlslap would send \"CREATE TABLE `t1` ()\"); give -x or -y at least 1")
	}
	stmt := ""
	switch kind {
	case loadWrite:
		return nil
	case loadUpdate:
		stmt = "UPDATE t1 SET  WHERE id = ..."
		if !t.HasPrimaryKey() {
			stmt = "UPDATE t1 SET "
		}
	default:
		stmt = "SELECT  FROM t1"
	}
	if loadType == "" {
		loadType = "mixed"
	}
	return fmt.Errorf("--number-char-cols=0 and --number-int-cols=0 leave the queries of --auto-generate-sql-load-type=%s without a column (mysqlslap would send %q); give -x or -y at least 1, or use --auto-generate-sql-load-type=write", loadType, stmt)
}

// Limits every MySQL and MariaDB server has (MAX_KEY, MAX_FIELDS): a
// CREATE TABLE beyond them fails whatever the engine, and generating its
// INSERTs first could take gigabytes (-x 100000000).
const (
	maxIndexes = 64
	maxColumns = 4096
)

// checkLimits refuses a table no server can create, before anything is
// generated.
func checkLimits(t Table) error {
	keys := uint64(t.SecondaryIndexes)
	cols := uint64(t.SecondaryIndexes) + uint64(t.Ints.Count) + uint64(t.Chars.Count)
	if t.HasPrimaryKey() {
		keys++
		cols++
	}
	if t.Ints.Indexed {
		keys += uint64(t.Ints.Count)
	}
	if t.Chars.Indexed {
		keys += uint64(t.Chars.Count)
	}
	if cols > maxColumns {
		return fmt.Errorf("the generated table t1 would have %d columns (key columns, --auto-generate-sql-secondary-indexes, -y, -x); no server accepts more than %d", cols, maxColumns)
	}
	if keys > maxIndexes {
		return fmt.Errorf("the generated table t1 would have %d indexes (primary key, --auto-generate-sql-secondary-indexes, indexed -y/-x columns); no server accepts more than %d", keys, maxIndexes)
	}
	return nil
}

// buildAuto fills the create and query lists of p for -a, drawing from one
// seed-1 generator in mysqlslap's order: CREATE (no draws), every unique
// INSERT, then the query list in order.
func buildAuto(cfg Config, p *Plan) error {
	ints, err := ParseColumns("number-int-cols", cfg.IntCols)
	if err != nil {
		return err
	}
	chars, err := ParseColumns("number-char-cols", cfg.CharCols)
	if err != nil {
		return err
	}
	if cfg.UniqueWriteNumber == 0 && cfg.WriteNumber >= 2 {
		return errors.New("--auto-generate-sql-unique-write-number=0 leaves no INSERT for --auto-generate-sql-write-number ≥ 2 (mysqlslap would loop forever)")
	}
	table := Table{
		AutoIncrement:    cfg.AddAutoIncrement,
		GUIDPrimary:      cfg.GUIDPrimary,
		SecondaryIndexes: cfg.SecondaryIndexes,
		Ints:             ints,
		Chars:            chars,
	}
	if err := checkColumns(table, loadTypeOf(cfg.LoadType), cfg.LoadType); err != nil {
		return err
	}
	if err := checkLimits(table); err != nil {
		return err
	}
	rng := NewGlibcRandom(1)

	p.BuildLog = append(p.BuildLog, "Building Create Statements for Auto")
	p.HasCreate = true
	// write-number counts executed statements, CREATE TABLE included; the
	// unique INSERTs are cycled to fill it. They are generated while the
	// list is executed (CreateList), not held: write-number=1G would not
	// fit in memory.
	if cfg.WriteNumber > 0 {
		p.Create = []Statement{{Text: table.CreateTable(), CreateTable: true}}
		p.createLen = cfg.WriteNumber
		p.inserts = &insertCycle{table: table, unique: cfg.UniqueWriteNumber}
	}
	// The query list draws after all unique INSERTs, used or not.
	rng.Skip(cfg.UniqueWriteNumber, table.drawsPerRow())

	p.BuildLog = append(p.BuildLog, "Building Query Statements for Auto")
	if cfg.UniqueQueryNumber == math.MaxUint64 {
		return errors.New("--auto-generate-sql-unique-query-number is out of range")
	}
	n := cfg.UniqueQueryNumber + 1
	kind := loadTypeOf(cfg.LoadType)
	switch kind {
	case loadRead:
		p.BuildLog = append(p.BuildLog, "Generating SELECT Statements for Auto")
	case loadKey:
		p.BuildLog = append(p.BuildLog, "Generating SELECT for keys Statements for Auto")
	case loadWrite:
		p.BuildLog = append(p.BuildLog, "Generating INSERT Statements for Auto")
	}
	gen := &queryGen{table: table, kind: kind, n: n, start: *rng}
	if n > materializeLimit || n*table.rowBytes() > materializeLimit {
		// Too large to hold: every client generates the list as it goes.
		p.queries = gen
		return nil
	}
	p.Query = make([]Statement, 0, n)
	var buf []byte
	cur := gen.cursor()
	for range n {
		text, needsKey := cur.Next(buf[:0])
		buf = text
		p.Query = append(p.Query, Statement{Text: string(text), NeedsKey: needsKey})
	}
	return nil
}
