package oltp

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/goslap/goslap/internal/ownership"
	"github.com/goslap/goslap/internal/workload"
)

// said captures what a workload says (Session.Say) during one test.
func said(s *workload.Session) *strings.Builder {
	var b strings.Builder
	s.Say = func(f string, a ...any) { fmt.Fprintf(&b, f+"\n", a...) }
	return &b
}

// sbtestDDL is a table with sysbench 1.0's layout, as sysbench creates it.
const sbtestDDL = "CREATE TABLE %s (id INTEGER NOT NULL AUTO_INCREMENT, k INTEGER DEFAULT '0' NOT NULL, " +
	"c CHAR(120) DEFAULT '' NOT NULL, pad CHAR(60) DEFAULT '' NOT NULL, PRIMARY KEY (id)); CREATE INDEX k_1 ON %[1]s (k)"

// TestCleanupRefusesUserTables: a cleanup (Teardown without Setup in this
// process) drops a table only if it has sysbench's layout; a user's table
// that merely has the name is refused, by name, before anything is dropped,
// and keeps its rows. A run phase refuses to work on it the same way.
func TestCleanupRefusesUserTables(t *testing.T) {
	s, _, _ := session(t)
	ctx := context.Background()
	for _, tc := range []struct {
		name  string
		ddl   string // creates sbtest1, the user's table
		words []string
		want  string
	}{
		{"other columns", "CREATE TABLE sbtest1 (id INT PRIMARY KEY, payroll INT)", nil,
			"table sbtest.sbtest1 has columns (id, payroll), not sysbench 1.0's table (id, k, c, pad): not dropped"},
		{"other type", strings.Replace(fmt.Sprintf(sbtestDDL, "sbtest1"), "k INTEGER", "k BIGINT", 1), nil,
			"table sbtest.sbtest1 has column k bigint where sysbench 1.0's table has int: not dropped"},
		{"nullable", strings.Replace(fmt.Sprintf(sbtestDDL, "sbtest1"), "CHAR(120) DEFAULT '' NOT NULL", "CHAR(120)", 1), nil,
			"table sbtest.sbtest1 has column c NULL where sysbench 1.0's table has NOT NULL: not dropped"},
		{"other key", "CREATE TABLE sbtest1 (id INT NOT NULL, k INT NOT NULL DEFAULT 0, c CHAR(120) NOT NULL DEFAULT '', pad CHAR(60) NOT NULL DEFAULT '', PRIMARY KEY (k))", nil,
			"table sbtest.sbtest1 has primary key (k) where sysbench 1.0's table has (id): not dropped"},
		{"extra index", fmt.Sprintf(sbtestDDL, "sbtest1") + "; CREATE UNIQUE INDEX by_c ON sbtest1 (c)", nil,
			"table sbtest.sbtest1 has index by_c (c), which sysbench 1.0's table lacks: not dropped"},
		{"a view", "CREATE VIEW sbtest1 AS SELECT 1 AS id", nil,
			"table sbtest.sbtest1 is a view, not a table: not dropped"},
		{"0.5 dialect", "CREATE TABLE sbtest1 (id INT PRIMARY KEY, payroll INT)", []string{"--sysbench-compat=0.5"},
			"table sbtest.sbtest1 has columns (id, payroll), not sysbench 0.5's table (id, k, c, pad): not dropped"},
		{"0.4 --oltp-table-name", "CREATE TABLE invoices (id INT PRIMARY KEY, total INT); CREATE TABLE sbtest1 (a INT)",
			[]string{"--sysbench-compat=0.4", "--oltp-table-name=invoices"},
			"table sbtest.invoices has columns (id, total), not sysbench 0.4's table (id, k, c, pad): not dropped"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			// sbtest2 has sysbench's layout: refused with sbtest1 all the
			// same, since nothing is dropped unless every table is proven.
			setup := tc.ddl + "; " + fmt.Sprintf(sbtestDDL, "sbtest2")
			if err := s.Main.Exec(setup); err != nil {
				t.Fatal(err)
			}
			defer s.Main.Exec("DROP VIEW IF EXISTS sbtest1; DROP TABLE IF EXISTS sbtest1, sbtest2, invoices")
			user := "sbtest1"
			if strings.Contains(tc.ddl, "invoices") {
				user = "invoices"
			} else if !strings.Contains(tc.ddl, "VIEW") {
				if err := s.Main.Exec("INSERT INTO sbtest1 (id) VALUES (7)"); err != nil {
					t.Fatal(err)
				}
			}
			before := tableCount(t, s)
			w := build(t, "oltp_read_write", append([]string{"--tables=2"}, tc.words...)...)
			out := said(s)
			err := w.Teardown(ctx, s, workload.Point{})
			var re *ownership.RefusedError
			if !errors.As(err, &re) || err.Error() != tc.want {
				t.Fatalf("cleanup = %v\nwant %s", err, tc.want)
			}
			// Nor does a run phase work on them (its writes would change them).
			err = build(t, "oltp_delete", append([]string{"--tables=2"}, tc.words...)...).BeginIteration(ctx, s, workload.Iteration{Number: 1})
			if want := strings.ReplaceAll(tc.want, "not dropped", "not used"); err == nil || err.Error() != want {
				t.Errorf("run = %v\nwant %s", err, want)
			}
			if tableCount(t, s) != before || out.Len() != 0 {
				t.Fatalf("%d tables left of %d; said %q", tableCount(t, s), before, out)
			}
			if !strings.Contains(tc.ddl, "VIEW") {
				if v, err := s.Main.QueryStrings("SELECT COUNT(*) FROM " + user); err != nil || (user == "sbtest1" && v[0] != "1") {
					t.Fatalf("%s after the refused cleanup: %v %v", user, v, err)
				}
			}
		})
	}
}

// TestCleanupDropsSysbenchTables: tables real sysbench 1.0.20 prepared have
// sysbench's layout: every dialect's cleanup drops them and says each drop
// as sysbench does.
func TestCleanupDropsSysbenchTables(t *testing.T) {
	s, _, srv := session(t)
	ctx := context.Background()
	for _, compat := range []string{"1.0", "0.5"} {
		sysbench(t, srv, "oltp_read_write", "--tables=2", "--table-size=5", "prepare")
		w := build(t, "oltp_read_write", "--tables=2", "--sysbench-compat="+compat)
		out := said(s)
		if err := w.Teardown(ctx, s, workload.Point{}); err != nil {
			t.Fatalf("%s cleanup of sysbench's tables: %v", compat, err)
		}
		if got, want := out.String(), "Dropping table 'sbtest1'...\nDropping table 'sbtest2'...\n"; got != want {
			t.Errorf("%s cleanup said %q, want %q", compat, got, want)
		}
		if n := tableCount(t, s); n != 0 {
			t.Fatalf("%d tables left", n)
		}
	}
}

// TestCleanupOfMissingTables: sysbench 1.0's cleanup succeeds when the
// tables are not there (goslap says there is nothing to drop); 0.4's and
// 0.5's fail (DROP TABLE: 1051), and so does goslap's, after dropping
// those that are there.
func TestCleanupOfMissingTables(t *testing.T) {
	s, _, _ := session(t)
	ctx := context.Background()
	for _, tc := range []struct {
		words   []string
		err     string
		said    string
		present bool
	}{
		{[]string{"--tables=2"}, "", "Nothing to drop for table sbtest1, sbtest2: not in schema 'sbtest'\n", false},
		{[]string{"--tables=3"}, "", "Dropping table 'sbtest1'...\nNothing to drop for table sbtest2, sbtest3: not in schema 'sbtest'\n", true},
		{[]string{"--sysbench-compat=0.5", "--tables=2"}, "table sbtest2 does not exist in schema 'sbtest': nothing to drop (Error 1051 Unknown table, as sysbench 0.5 stops)",
			"Dropping table 'sbtest1'...\n", true},
		{[]string{"--sysbench-compat=0.4"}, "table sbtest does not exist in schema 'sbtest': nothing to drop (Error 1051 Unknown table, as sysbench 0.4 stops)", "", false},
	} {
		if tc.present {
			if err := s.Main.Exec(fmt.Sprintf(sbtestDDL, "sbtest1")); err != nil {
				t.Fatal(err)
			}
		}
		w := build(t, "oltp_read_write", tc.words...)
		out := said(s)
		err := w.Teardown(ctx, s, workload.Point{})
		if (err == nil) != (tc.err == "") || err != nil && err.Error() != tc.err || out.String() != tc.said {
			t.Errorf("%v: cleanup = %v, said %q; want %q, %q", tc.words, err, out, tc.err, tc.said)
		}
		if n := tableCount(t, s); n != 0 {
			t.Fatalf("%v: %d tables left", tc.words, n)
		}
	}
}

// TestInterruptedPrepareDropsItsOwn: a prepare ended by its context drops
// the tables it created, says so, and leaves the schema's other tables.
func TestInterruptedPrepareDropsItsOwn(t *testing.T) {
	s, _, _ := session(t)
	if err := s.Main.Exec("CREATE TABLE payroll (id INT); INSERT INTO payroll VALUES (1)"); err != nil {
		t.Fatal(err)
	}
	defer s.Main.Exec("DROP TABLE IF EXISTS payroll")
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	// Interrupted once the load has begun: every table exists by then.
	s.Progress = func(string, int64, int64) { cancel() }
	defer func() { s.Progress = func(string, int64, int64) {} }()
	w := build(t, "oltp_read_write", "--tables=3", "--table-size=20000", "--prefill-connections=1")
	err := w.Setup(ctx, s, workload.Point{})
	if err == nil {
		t.Fatal("the interrupted prepare succeeded")
	}
	out := said(s)
	if err := w.Teardown(context.Background(), s, workload.Point{}); err != nil {
		t.Fatal(err)
	}
	want := "Dropping table 'sbtest1'...\nDropping table 'sbtest2'...\nDropping table 'sbtest3'...\ntables sbtest1..sbtest3 of this prepare were dropped\n"
	if out.String() != want {
		t.Errorf("said %q, want %q (prepare: %v)", out, want, err)
	}
	if n := tableCount(t, s); n != 1 {
		t.Fatalf("%d tables left, want payroll", n)
	}
}

// TestRunLabelIsTheTablesEngine: a run labelled with an engine (-e) runs on
// tables of that engine, or is refused in one line: a report saying
// "Running for engine myisam" above InnoDB tables would be false.
func TestRunLabelIsTheTablesEngine(t *testing.T) {
	s, _, _ := session(t)
	ctx := context.Background()
	w := build(t, "oltp_point_select", "--tables=1", "--table-size=10")
	if err := w.Setup(ctx, s, workload.Point{Engine: "InnoDB"}); err != nil {
		t.Fatal(err)
	}
	defer w.Teardown(ctx, s, workload.Point{})
	run := build(t, "oltp_point_select", "--tables=1", "--table-size=10")
	for _, tc := range []struct{ engine, err string }{
		{"", ""},
		{"innodb", ""},
		{"myisam", "engine myisam was asked for, but table sbtest.sbtest1 is InnoDB: prepare the tables with that engine (cleanup, then prepare -e myisam), or leave the engine out to run on them as they are"},
	} {
		err := run.BeginIteration(ctx, s, workload.Iteration{Point: workload.Point{Engine: tc.engine}, Number: 1})
		if (err == nil) != (tc.err == "") || err != nil && err.Error() != tc.err {
			t.Errorf("-e %q: %v, want %q", tc.engine, err, tc.err)
		}
	}
}
