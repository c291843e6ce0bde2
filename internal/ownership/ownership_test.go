package ownership

import (
	"errors"
	"strings"
	"testing"
)

func TestNormalType(t *testing.T) {
	for in, want := range map[string]string{
		"int(11)":               "int",
		"INT(10) UNSIGNED":      "int unsigned",
		"int unsigned":          "int unsigned",
		"integer":               "int",
		"smallint(6)":           "smallint",
		"tinyint(4)":            "tinyint",
		"bigint(20)":            "bigint",
		"decimal(12,2)":         "decimal(12,2)",
		"char(120)":             "char(120)",
		"varchar(24)":           "varchar(24)",
		"  DATETIME ":           "datetime",
		"int(10)  unsigned  ":   "int unsigned",
		"mediumint(9) zerofill": "mediumint zerofill",
	} {
		if got := NormalType(in); got != want {
			t.Errorf("NormalType(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestSpan(t *testing.T) {
	many := make([]string, 20)
	for i := range many {
		many[i] = "t" + string(rune('a'+i))
	}
	for _, tc := range []struct {
		in   []string
		want string
	}{
		{nil, ""},
		{[]string{"sbtest1"}, "sbtest1"},
		{[]string{"sbtest1", "sbtest2"}, "sbtest1, sbtest2"},
		{[]string{"sbtest1", "sbtest2", "sbtest3"}, "sbtest1..sbtest3"},
		{[]string{"sbtest1", "sbtest2", "sbtest4"}, "sbtest1, sbtest2, sbtest4"},
		{[]string{"warehouse", "district", "customer"}, "warehouse, district, customer"},
		{many, "ta, tb, tc, td, te, tf, tg, th, ti, tj, ... (20 tables)"},
	} {
		if got := Span(tc.in); got != tc.want {
			t.Errorf("Span(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

func TestLedger(t *testing.T) {
	var l Ledger
	var nilLedger *Ledger
	if l.Has("a") || nilLedger.Has("a") || nilLedger.Len() != 0 {
		t.Fatal("an empty ledger holds a table")
	}
	l.Add("b")
	l.Add("a")
	l.Add("b")
	if got := strings.Join(l.Names(), ","); got != "b,a" || !l.Has("a") || l.Len() != 2 {
		t.Fatalf("ledger %q", got)
	}
	l.Forget("b")
	if l.Has("b") || strings.Join(l.Names(), ",") != "a" {
		t.Fatalf("after Forget: %q", l.Names())
	}
}

// sbtest is sysbench 1.0's layout as the checks in package oltp use it.
var sbtest = Layout{
	What:       "sysbench 1.0's table",
	Columns:    []Column{{Name: "id", Type: "int"}, {Name: "k", Type: "int"}, {Name: "c", Type: "char(120)"}, {Name: "pad", Type: "char(60)"}},
	NotNull:    true,
	PrimaryKey: []string{"id"},
	KeyInstead: true,
	OtherIndex: func(ix Index) bool { return !ix.Unique && len(ix.Columns) == 1 && ix.Columns[0] == "k" },
}

func sbtable(mod func(t *Table)) *Table {
	t := &Table{Schema: "s", Name: "sbtest1", Kind: "BASE TABLE", Engine: "InnoDB",
		Columns: []Column{{"id", "int", false}, {"k", "int", false}, {"c", "char(120)", false}, {"pad", "char(60)", false}},
		Indexes: []Index{{Name: "PRIMARY", Unique: true, Columns: []string{"id"}}, {Name: "k_1", Columns: []string{"k"}}}}
	if mod != nil {
		mod(t)
	}
	return t
}

func TestLayoutMismatch(t *testing.T) {
	for _, tc := range []struct {
		name string
		mod  func(t *Table)
		want string
	}{
		{"exact", nil, ""},
		{"no index on k (prepare stopped before it)", func(t *Table) { t.Indexes = t.Indexes[:1] }, ""},
		{"plain key on id (--secondary)", func(t *Table) { t.Indexes[0] = Index{Name: "xid", Columns: []string{"id"}} }, ""},
		{"other columns", func(t *Table) { t.Columns = []Column{{"id", "int", false}, {"payroll", "int", true}} },
			"has columns (id, payroll), not sysbench 1.0's table (id, k, c, pad)"},
		{"other type", func(t *Table) { t.Columns[3].Type = "varchar(60)" }, "has column pad varchar(60) where sysbench 1.0's table has char(60)"},
		{"nullable", func(t *Table) { t.Columns[1].Nullable = true }, "has column k NULL where sysbench 1.0's table has NOT NULL"},
		{"no key", func(t *Table) { t.Indexes = nil }, "has no key on (id) where sysbench 1.0's table has one"},
		{"other primary key", func(t *Table) { t.Indexes[0].Columns = []string{"id", "k"} },
			"has primary key (id, k) where sysbench 1.0's table has (id)"},
		{"extra index", func(t *Table) { t.Indexes = append(t.Indexes, Index{Name: "by_pad", Columns: []string{"pad"}}) },
			"has index by_pad (pad), which sysbench 1.0's table lacks"},
		{"unique k", func(t *Table) { t.Indexes[1].Unique = true }, "has index k_1 (k), which sysbench 1.0's table lacks"},
	} {
		if got := sbtest.Mismatch(sbtable(tc.mod)); got != tc.want {
			t.Errorf("%s: %q, want %q", tc.name, got, tc.want)
		}
	}
	// A long column list is not spelt out.
	tpcc := Layout{What: "TPC-C's customer", Columns: []Column{{Name: "c_id"}, {Name: "c_d_id"}, {Name: "c_w_id"}, {Name: "c_first"}, {Name: "c_last"}}}
	tab := &Table{Columns: []Column{{Name: "id"}, {Name: "name"}}}
	if got, want := tpcc.Mismatch(tab), "has columns (id, name), not TPC-C's customer"; got != want {
		t.Errorf("%q, want %q", got, want)
	}
}

// fakeServer answers Inspect's information_schema queries (the tables
// joined with their columns, or alone; the indexes) from fixed rows of
// schema "s": tables (name, type, engine), columns (table, name, type,
// nullable), stats (table, index, non_unique, column).
type fakeServer struct {
	tables, columns, stats [][]string
	execs                  []string
	queries                int
	failDrop               string
}

func rows(in [][]string) [][][]byte {
	out := make([][][]byte, len(in))
	for i, r := range in {
		for _, v := range r {
			out[i] = append(out[i], []byte(v))
		}
	}
	return out
}

func (f *fakeServer) Query(q string) ([][][]byte, error) {
	f.queries++
	switch {
	case strings.Contains(q, "information_schema.TABLES t LEFT JOIN information_schema.COLUMNS"):
		var out [][]string
		for _, t := range f.tables {
			for _, c := range f.columns {
				if c[0] == t[0] {
					out = append(out, append([]string{"s"}, append(t, c[1:]...)...))
				}
			}
		}
		return rows(out), nil
	case strings.Contains(q, "information_schema.TABLES"):
		var out [][]string
		for _, t := range f.tables {
			out = append(out, append([]string{"s"}, t...))
		}
		return rows(out), nil
	case strings.Contains(q, "information_schema.STATISTICS"):
		return rows(f.stats), nil
	}
	return nil, errors.New("unexpected query " + q)
}

func (f *fakeServer) Exec(q string) error {
	f.execs = append(f.execs, q)
	if f.failDrop != "" && strings.Contains(q, f.failDrop) {
		return errors.New("lost")
	}
	return nil
}

func sbtestServer() *fakeServer {
	f := &fakeServer{}
	for _, n := range []string{"sbtest1", "sbtest2"} {
		f.tables = append(f.tables, []string{n, "BASE TABLE", "InnoDB"})
		f.columns = append(f.columns, []string{n, "id", "int(11)", "NO"}, []string{n, "k", "int(11)", "NO"},
			[]string{n, "c", "char(120)", "NO"}, []string{n, "pad", "char(60)", "NO"})
		f.stats = append(f.stats, []string{n, "PRIMARY", "0", "id"}, []string{n, "k_" + n[6:], "1", "k"})
	}
	return f
}

func TestClaimRefusesBeforeDropping(t *testing.T) {
	f := sbtestServer()
	// sbtest2 becomes a user's table.
	f.columns[5][1], f.columns[5][2] = "payroll", "decimal(10,2)"
	v, err := Claim(f, "s", []string{"sbtest1", "sbtest2", "sbtest3"}, nil, sbtest.Shape(), "not dropped")
	var re *RefusedError
	if !errors.As(err, &re) || err.Error() != "table s.sbtest2 has columns (id, payroll, c, pad), not sysbench 1.0's table (id, k, c, pad): not dropped" {
		t.Fatalf("Claim = %v", err)
	}
	if strings.Join(v.Present, ",") != "sbtest1,sbtest2" || strings.Join(v.Missing, ",") != "sbtest3" || len(f.execs) != 0 {
		t.Fatalf("verdict %+v, statements %q", v, f.execs)
	}
	// Two queries: a run's statements are compared with sysbench's by the
	// server's counters, so goslap's own checks stay few.
	if f.queries != 2 {
		t.Errorf("Claim sent %d queries, want 2", f.queries)
	}
	if err := v.CheckEngine("myisam"); err == nil || f.queries != 2 {
		t.Errorf("the verdict's CheckEngine = %v after %d queries; want a refusal and no query", err, f.queries)
	}
	// What this run created needs no layout.
	var l Ledger
	l.Add("sbtest2")
	if _, err := Claim(f, "s", []string{"sbtest1", "sbtest2"}, l.Has, sbtest.Shape(), "not dropped"); err != nil {
		t.Fatalf("Claim with sbtest2 in the ledger: %v", err)
	}
}

func TestDropSaysEachTable(t *testing.T) {
	f := sbtestServer()
	f.failDrop = "sbtest2"
	var said []string
	dropped, err := Drop(f, "s", []string{"sbtest1", "sbtest2", "sbtest3"}, func(format string, a ...any) {
		said = append(said, strings.ReplaceAll(format, "%s", a[0].(string)))
	})
	if err == nil || strings.Join(dropped, ",") != "sbtest1" {
		t.Fatalf("Drop = %q, %v", dropped, err)
	}
	if got := strings.Join(said, "|"); got != "Dropping table 'sbtest1'...|Dropping table 'sbtest2'..." {
		t.Errorf("said %q", got)
	}
	if got := strings.Join(f.execs, "|"); got != "SET SESSION foreign_key_checks = 0|DROP TABLE `s`.`sbtest1`|DROP TABLE `s`.`sbtest2`|SET SESSION foreign_key_checks = 1" {
		t.Errorf("statements %q", got)
	}
}

func TestCheckEngine(t *testing.T) {
	f := sbtestServer()
	for _, tc := range []struct{ asked, err string }{
		{"", ""}, {"innodb", ""}, {"InnoDB", ""},
		{"myisam", "engine myisam was asked for, but table s.sbtest1 is InnoDB: prepare the tables with that engine (cleanup, then prepare -e myisam), or leave the engine out to run on them as they are"},
	} {
		err := CheckEngine(f, "s", []string{"sbtest1", "sbtest2"}, tc.asked)
		if (err == nil) != (tc.err == "") || err != nil && err.Error() != tc.err {
			t.Errorf("CheckEngine(%q) = %v, want %q", tc.asked, err, tc.err)
		}
	}
	if !SameEngine("heap", "MEMORY") || !SameEngine("maria", "Aria") || SameEngine("myisam", "Aria") {
		t.Error("engine aliases")
	}
}
