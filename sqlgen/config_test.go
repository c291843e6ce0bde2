package sqlgen

import (
	"errors"
	"slices"
	"strings"
	"testing"
)

// defaults is mysqlslap's configuration without any option.
func defaults() Config {
	return Config{
		IntCols: "1", CharCols: "1", LoadType: "mixed",
		UniqueQueryNumber: 10, UniqueWriteNumber: 10, WriteNumber: 100,
		Delimiter: "\n", Concurrency: "1", Iterations: 1, Schema: "mysqlslap",
	}
}

func auto(edit func(*Config)) Config {
	c := defaults()
	c.AutoGenerate = true
	if edit != nil {
		edit(&c)
	}
	return c
}

// createTexts is the create list as executed.
func createTexts(p *Plan) []string {
	var out []string
	for list := p.CreateList(); ; {
		s, _, ok := list.Next()
		if !ok {
			return out
		}
		out = append(out, s.Text)
	}
}

func texts(list []Statement) []string {
	var out []string
	for _, s := range list {
		out = append(out, s.Text)
	}
	return out
}

func TestBuildAutoCounts(t *testing.T) {
	cases := []struct {
		name             string
		cfg              Config
		create, queries  int
		inserts, selects int // in the query list
		firstCreateIsCT  bool
		limitC1, limitC3 uint64
	}{
		{"defaults", auto(nil), 100, 11, 6, 5, true, 0, 0},
		{"write-number 0", auto(func(c *Config) { c.WriteNumber = 0 }), 0, 11, 6, 5, false, 0, 0},
		{"write-number 1", auto(func(c *Config) { c.WriteNumber = 1 }), 1, 11, 6, 5, true, 0, 0},
		{"unique-write 0, write 1", auto(func(c *Config) { c.WriteNumber, c.UniqueWriteNumber = 1, 0 }), 1, 11, 6, 5, true, 0, 0},
		{"read", auto(func(c *Config) { c.LoadType = "read" }), 100, 11, 0, 11, true, 0, 0},
		{"READ is mixed", auto(func(c *Config) { c.LoadType = "READ" }), 100, 11, 6, 5, true, 0, 0},
		{"write", auto(func(c *Config) { c.LoadType = "w" }), 100, 11, 11, 0, true, 0, 0},
		{"unique-query 0", auto(func(c *Config) { c.UniqueQueryNumber = 0 }), 100, 1, 1, 0, true, 0, 0},
		{"execute-number", auto(func(c *Config) { c.ExecuteNumber = 7 }), 100, 11, 6, 5, true, 7, 7},
		{"number-of-queries", auto(func(c *Config) { c.NumberOfQueries = 10 }), 100, 11, 6, 5, true, 10, 3},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			p, err := Build(c.cfg)
			if err != nil {
				t.Fatal(err)
			}
			if p.CreateLen() != uint64(c.create) || len(p.Query) != c.queries {
				t.Fatalf("create %d, queries %d; want %d, %d", p.CreateLen(), len(p.Query), c.create, c.queries)
			}
			var inserts, selects int
			for _, s := range p.Query {
				switch {
				case strings.HasPrefix(s.Text, "INSERT"):
					inserts++
				case strings.HasPrefix(s.Text, "SELECT"):
					selects++
				}
			}
			if inserts != c.inserts || selects != c.selects {
				t.Errorf("query list has %d INSERTs, %d SELECTs; want %d, %d", inserts, selects, c.inserts, c.selects)
			}
			if len(p.Create) > 0 && p.Create[0].CreateTable != c.firstCreateIsCT {
				t.Errorf("first create statement CreateTable = %v", p.Create[0].CreateTable)
			}
			if !p.HasCreate || !p.OwnsSchema {
				t.Errorf("-a must create and own the schema")
			}
			if got := p.PerClientLimit(1); got != c.limitC1 {
				t.Errorf("limit(1) = %d, want %d", got, c.limitC1)
			}
			if got := p.PerClientLimit(3); got != c.limitC3 {
				t.Errorf("limit(3) = %d, want %d", got, c.limitC3)
			}
		})
	}
}

func TestBuildWriteNumberCycling(t *testing.T) {
	p, err := Build(auto(func(c *Config) { c.WriteNumber, c.UniqueWriteNumber = 7, 3 }))
	if err != nil {
		t.Fatal(err)
	}
	got := createTexts(p)
	// CREATE, I1, I2, I3, I1, I2, I3.
	if !strings.HasPrefix(got[0], "CREATE TABLE") || got[1] != got[4] || got[2] != got[5] || got[3] != got[6] || got[1] == got[2] {
		t.Fatalf("create list not cycled: %q", got)
	}
	// All unique INSERTs are drawn even when write-number uses fewer of
	// them: the query list's first INSERT comes after the 10th.
	short, _ := Build(auto(func(c *Config) { c.WriteNumber = 2 }))
	full, _ := Build(auto(nil))
	if short.Query[0].Text != full.Query[0].Text {
		t.Errorf("query list depends on write-number: %q vs %q", short.Query[0].Text, full.Query[0].Text)
	}
}

func TestBuildMixedWithKeys(t *testing.T) {
	p, err := Build(auto(func(c *Config) { c.AddAutoIncrement, c.UniqueQueryNumber = true, 3 }))
	if err != nil {
		t.Fatal(err)
	}
	want := []bool{false, true, false, true}
	for i, s := range p.Query {
		if s.NeedsKey != want[i] {
			t.Errorf("statement %d %q NeedsKey = %v", i, s.Text, s.NeedsKey)
		}
	}
	if !p.NeedsKeys {
		t.Error("NeedsKeys false with autoincrement")
	}
	read, _ := Build(auto(func(c *Config) { c.AddAutoIncrement, c.LoadType = true, "read" }))
	if read.Query[0].NeedsKey || strings.Contains(read.Query[0].Text, "WHERE") {
		t.Errorf("read load with PK must not use keys: %+v", read.Query[0])
	}
}

func TestBuildUserLists(t *testing.T) {
	cfg := defaults()
	cfg.Delimiter = ";"
	cfg.Create = Source{Text: "set @a=1;create table t(a int);;never", Set: true}
	cfg.Query = Source{Text: "a;;b", Set: true}
	cfg.PreQuery = Source{Text: "p1; p2", Set: true}
	cfg.PostQuery = Source{Text: "", Set: true}
	cfg.AddAutoIncrement = true // keys are fetched even without -a
	p, err := Build(cfg)
	if err != nil {
		t.Fatal(err)
	}
	if got := texts(p.Create); !slices.Equal(got, []string{"set @a=1", "create table t(a int)"}) {
		t.Errorf("create = %q", got)
	}
	if !p.Create[0].CreateTable || p.Create[1].CreateTable {
		t.Errorf("only the first --create statement gets the engine clause")
	}
	if got := texts(p.Query); !slices.Equal(got, []string{"a"}) {
		t.Errorf("query = %q", got)
	}
	if got := p.PerClientLimit(1); got != 3 {
		t.Errorf("limit = %d, want 3 (empty statements count)", got)
	}
	if got := texts(p.PreQuery); !slices.Equal(got, []string{"p1", "p2"}) {
		t.Errorf("pre = %q", got)
	}
	if len(p.PostQuery) != 0 || !p.NeedsKeys || !p.HasCreate || !p.OwnsSchema {
		t.Errorf("post %q NeedsKeys %v HasCreate %v OwnsSchema %v", texts(p.PostQuery), p.NeedsKeys, p.HasCreate, p.OwnsSchema)
	}

	onlyQuery := defaults()
	onlyQuery.Query = Source{Text: "select 1", Set: true}
	onlyQuery.NoDrop = true
	p, err = Build(onlyQuery)
	if err != nil {
		t.Fatal(err)
	}
	if p.HasCreate || p.OwnsSchema || p.Create != nil {
		t.Errorf("--query alone must not create or drop the schema")
	}
}

func TestStatementWithEngine(t *testing.T) {
	ct := Statement{Text: "CREATE TABLE t", CreateTable: true}
	cases := []struct {
		engines string
		want    []string
	}{
		{"innodb", []string{"CREATE TABLE t Engine = innodb"}},
		{"heap,myisam", []string{"CREATE TABLE t Engine = heap", "CREATE TABLE t Engine = myisam"}},
		{"a:, b: c,:x,", []string{"CREATE TABLE t Engine = a ", "CREATE TABLE t Engine = b  c", "CREATE TABLE t Engine =  x", "CREATE TABLE t"}},
		{"innodb,,myisam", []string{"CREATE TABLE t Engine = innodb", "CREATE TABLE t Engine = ", "CREATE TABLE t Engine = myisam"}},
		{"innodb:ROW_FORMAT=COMPRESSED KEY_BLOCK_SIZE=8", []string{"CREATE TABLE t Engine = innodb ROW_FORMAT=COMPRESSED KEY_BLOCK_SIZE=8"}},
		{"", []string{"CREATE TABLE t"}},
		{"a:x,b,c", []string{"CREATE TABLE t Engine = a x", "CREATE TABLE t Engine = b", "CREATE TABLE t Engine = c"}},
	}
	for _, c := range cases {
		var got []string
		for _, e := range ParseEngines(c.engines) {
			got = append(got, ct.WithEngine(e))
		}
		if !slices.Equal(got, c.want) {
			t.Errorf("-e %q: got %q, want %q", c.engines, got, c.want)
		}
	}
	plain := Statement{Text: "INSERT"}
	if got := plain.WithEngine(Engine{Name: "x", Named: true}); got != "INSERT" {
		t.Errorf("non-create statement got an engine clause: %q", got)
	}
	if !(Engine{Name: "myblackhole", Named: true}).UsesFakeKeys() || (Engine{Name: "innodb", Named: true}).UsesFakeKeys() {
		t.Error("UsesFakeKeys must look for blackhole in the engine name")
	}
}

func TestParseConcurrency(t *testing.T) {
	good := map[string][]int{"1": {1}, "1,5,10": {1, 5, 10}, "4, 4": {4, 4}, " 8": {8}}
	for in, want := range good {
		got, err := ParseConcurrency(in)
		if err != nil || !slices.Equal(got, want) {
			t.Errorf("ParseConcurrency(%q) = %v, %v; want %v", in, got, err, want)
		}
	}
	for _, in := range []string{"0", "abc", "", "10,,20", "-1", "2:3", "3,0,5", "1,", "99999999999"} {
		if _, err := ParseConcurrency(in); err == nil {
			t.Errorf("ParseConcurrency(%q) accepted", in)
		}
	}
}

func TestParseColumns(t *testing.T) {
	good := map[string]Columns{"1": {1, false}, "0": {0, false}, "2:1": {2, true}, "3:0": {3, false}, "2:7": {2, true}}
	for in, want := range good {
		got, err := ParseColumns("number-int-cols", in)
		if err != nil || got != want {
			t.Errorf("ParseColumns(%q) = %v, %v; want %v", in, got, err, want)
		}
	}
	for _, in := range []string{"abc", "-1", "", "3,7", "2:x", "1:-1"} {
		if _, err := ParseColumns("number-int-cols", in); err == nil {
			t.Errorf("ParseColumns(%q) accepted", in)
		}
	}
}

func TestBuildRejects(t *testing.T) {
	withQuery := func(q string, edit func(*Config)) Config {
		c := defaults()
		c.Delimiter = ";"
		c.Query = Source{Text: q, Set: true}
		if edit != nil {
			edit(&c)
		}
		return c
	}
	cases := []struct {
		name    string
		cfg     Config
		wantErr error  // exact mysqlslap error, or nil
		substr  string // else: part of goslap's message
	}{
		{"-a with --query", auto(func(c *Config) { c.Query = Source{Text: "x", Set: true} }), ErrAutoWithCreateOrQuery, ""},
		{"both primary keys", auto(func(c *Config) { c.AddAutoIncrement, c.GUIDPrimary = true, true }), ErrBothPrimaryKeys, ""},
		{"key without pk", auto(func(c *Config) { c.LoadType = "key" }), ErrKeyTestWithoutPK, ""},
		{"execute and number", auto(func(c *Config) { c.ExecuteNumber, c.NumberOfQueries = 1, 1 }), ErrExecuteAndNumber, ""},
		{"-c 0", auto(func(c *Config) { c.Concurrency = "0" }), nil, "--concurrency"},
		{"-x abc", auto(func(c *Config) { c.CharCols = "abc" }), nil, "--number-char-cols"},
		{"-y -1", auto(func(c *Config) { c.IntCols = "-1" }), nil, "--number-int-cols"},
		{"unique-write 0", auto(func(c *Config) { c.UniqueWriteNumber = 0 }), nil, "unique-write-number"},
		{"empty first query", withQuery(";", nil), nil, "no statement"},
		{"empty query", withQuery("", nil), nil, "no statement"},
		{"execute-number, no statements", func() Config { c := defaults(); c.ExecuteNumber = 5; return c }(), nil, "need statements"},
		{"number-of-queries, no statements", func() Config { c := defaults(); c.NumberOfQueries = 5; return c }(), nil, "need statements"},
		{"iterations 0", withQuery("x", func(c *Config) { c.Iterations = 0 }), nil, "--iterations"},
		{"empty delimiter", withQuery("x", func(c *Config) { c.Delimiter = "" }), nil, "--delimiter"},
		// Zero columns: mysqlslap sends SQL no server accepts.
		{"-x0 -y0 guid mixed", noCols(func(c *Config) { c.GUIDPrimary = true }), nil, `"SELECT  FROM t1"`},
		{"-x0 -y0 autoinc read", noCols(func(c *Config) { c.AddAutoIncrement, c.LoadType = true, "read" }), nil, `"SELECT  FROM t1"`},
		{"-x0 -y0 guid key", noCols(func(c *Config) { c.GUIDPrimary, c.LoadType = true, "key" }), nil, `"SELECT  FROM t1"`},
		{"-x0 -y0 autoinc update", noCols(func(c *Config) { c.AddAutoIncrement, c.LoadType = true, "update" }), nil, `"UPDATE t1 SET  WHERE id = ..."`},
		{"-x0 -y0 secondary update", noCols(func(c *Config) { c.SecondaryIndexes, c.LoadType = 1, "update" }), nil, `"UPDATE t1 SET "`},
		{"-x0 -y0 no key", noCols(nil), nil, "CREATE TABLE `t1` ()"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := Build(c.cfg)
			switch {
			case err == nil:
				t.Fatal("accepted")
			case c.wantErr != nil && !errors.Is(err, c.wantErr):
				t.Fatalf("error %q, want %q", err, c.wantErr)
			case c.wantErr == nil && !strings.Contains(err.Error(), c.substr):
				t.Fatalf("error %q does not mention %q", err, c.substr)
			}
		})
	}
	// Without -a mysqlslap checks none of the -a rules.
	c := defaults()
	c.LoadType, c.AddAutoIncrement, c.GUIDPrimary = "key", true, true
	if _, err := Build(c); err != nil {
		t.Errorf("-a rules applied without -a: %v", err)
	}
}

// noCols is -a -x 0 -y 0 with edit applied.
func noCols(edit func(*Config)) Config {
	return auto(func(c *Config) {
		c.IntCols, c.CharCols = "0", "0"
		if edit != nil {
			edit(c)
		}
	})
}

// TestBuildZeroColumnsWrite: the write load needs no column list, so a
// key-only table is still valid SQL and accepted.
func TestBuildZeroColumnsWrite(t *testing.T) {
	p, err := Build(noCols(func(c *Config) { c.GUIDPrimary, c.LoadType = true, "write" }))
	if err != nil {
		t.Fatal(err)
	}
	if got := p.Query[0].Text; got != "INSERT INTO t1 VALUES (uuid())" {
		t.Errorf("query %q", got)
	}
}

func TestBuildLog(t *testing.T) {
	cases := map[string][]string{
		"read":   {"Building Create Statements for Auto", "Building Query Statements for Auto", "Generating SELECT Statements for Auto", "Parsing engines to use."},
		"update": {"Building Create Statements for Auto", "Building Query Statements for Auto", "Parsing engines to use."},
	}
	for load, want := range cases {
		p, err := Build(auto(func(c *Config) { c.LoadType = load }))
		if err != nil || !slices.Equal(p.BuildLog, want) {
			t.Errorf("%s: BuildLog %q, %v; want %q", load, p.BuildLog, err, want)
		}
	}
}
