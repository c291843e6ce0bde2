package sqlgen

import (
	"errors"
	"fmt"
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
	var items []string
	if t.AutoIncrement {
		items = append(items, "NULL")
	}
	if t.GUIDPrimary {
		items = append(items, "uuid()")
	}
	for range t.SecondaryIndexes {
		items = append(items, "uuid()")
	}
	for range t.Ints.Count {
		items = append(items, strconv.FormatUint(uint64(rng.Next()), 10))
	}
	for range t.Chars.Count {
		items = append(items, "'"+randomString(rng)+"'")
	}
	return "INSERT INTO t1 VALUES (" + strings.Join(items, ",") + ")"
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
	var items []string
	for i := 1; i <= t.Ints.Count; i++ {
		items = append(items, "intcol"+strconv.Itoa(i)+" = "+strconv.FormatUint(uint64(rng.Next()), 10))
	}
	for j := 1; j <= t.Chars.Count; j++ {
		items = append(items, "charcol"+strconv.Itoa(j)+" = '"+randomString(rng)+"'")
	}
	text := "UPDATE t1 SET " + strings.Join(items, ",")
	if t.HasPrimaryKey() {
		return Statement{Text: text + " WHERE id = ", NeedsKey: true}
	}
	return Statement{Text: text}
}

func randomString(rng *GlibcRandom) string {
	var b [randomStringLength]byte
	for i := range b {
		b[i] = Alphabet[rng.Next()%uint32(len(Alphabet))]
	}
	return string(b[:])
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
	rng := NewGlibcRandom(1)

	p.BuildLog = append(p.BuildLog, "Building Create Statements for Auto")
	p.HasCreate = true
	inserts := make([]string, cfg.UniqueWriteNumber)
	for i := range inserts {
		inserts[i] = table.Insert(rng)
	}
	// write-number counts executed statements, CREATE TABLE included; the
	// unique INSERTs are cycled to fill it.
	if cfg.WriteNumber > 0 {
		p.Create = make([]Statement, 0, cfg.WriteNumber)
		p.Create = append(p.Create, Statement{Text: table.CreateTable(), CreateTable: true})
		for i := uint64(0); uint64(len(p.Create)) < cfg.WriteNumber; i++ {
			p.Create = append(p.Create, Statement{Text: inserts[i%uint64(len(inserts))]})
		}
	}

	p.BuildLog = append(p.BuildLog, "Building Query Statements for Auto")
	n := cfg.UniqueQueryNumber + 1
	p.Query = make([]Statement, 0, n)
	kind := loadTypeOf(cfg.LoadType)
	switch kind {
	case loadRead:
		p.BuildLog = append(p.BuildLog, "Generating SELECT Statements for Auto")
	case loadKey:
		p.BuildLog = append(p.BuildLog, "Generating SELECT for keys Statements for Auto")
	case loadWrite:
		p.BuildLog = append(p.BuildLog, "Generating INSERT Statements for Auto")
	}
	for i := range n {
		var s Statement
		switch {
		case kind == loadRead:
			s = table.Select(false)
		case kind == loadKey:
			s = table.Select(true)
		case kind == loadWrite:
			s = Statement{Text: table.Insert(rng)}
		case kind == loadUpdate:
			s = table.Update(rng)
		case i%2 == 0: // mixed: INSERT, SELECT, INSERT, ...
			s = Statement{Text: table.Insert(rng)}
		default:
			s = table.Select(true)
		}
		p.Query = append(p.Query, s)
	}
	return nil
}
