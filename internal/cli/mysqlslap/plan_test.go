package mysqlslap

import (
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/goslap/goslap/sqlgen"
)

// baseOptions are mariadb-slap's defaults.
func baseOptions() *Options {
	return &Options{
		LoadType: "mixed", UniqueQueryNum: 10, UniqueWriteNum: 10, WriteNumber: 100,
		NumberCharCols: "1", NumberIntCols: "1", Delimiter: "\n", Concurrency: "1",
		Iterations: 1, CreateSchema: "mysqlslap",
	}
}

func statementTexts(list []sqlgen.Statement) []string {
	var out []string
	for _, s := range list {
		out = append(out, s.Text)
	}
	return out
}

func TestValidateReadsStatementFiles(t *testing.T) {
	dir := t.TempDir()
	write := func(name, text string) string {
		path := filepath.Join(dir, name)
		if err := os.WriteFile(path, []byte(text), 0o444); err != nil { // read-only is enough
			t.Fatal(err)
		}
		return path
	}
	o := baseOptions()
	o.Create, o.CreateSet = write("create.sql", "create table t(a int)\ninsert into t values (1)\n"), true
	o.Query, o.QuerySet = write("q", "select 1\nselect 2"), true
	o.PreQuery, o.PreQuerySet = write("pre", "pre1\n"), true
	o.PostQuery, o.PostQuerySet = "post1", true // not a file: the text itself
	cfg, err := Validate(o, Env{})
	if err != nil {
		t.Fatal(err)
	}
	p := cfg.Plan
	checks := []struct {
		what      string
		got, want []string
	}{
		{"create", statementTexts(p.Create), []string{"create table t(a int)", "insert into t values (1)"}},
		{"query", statementTexts(p.Query), []string{"select 1", "select 2"}},
		{"pre", statementTexts(p.PreQuery), []string{"pre1"}},
		{"post", statementTexts(p.PostQuery), []string{"post1"}},
	}
	for _, c := range checks {
		if !slices.Equal(c.got, c.want) {
			t.Errorf("%s = %q, want %q", c.what, c.got, c.want)
		}
	}
	if got := p.PerClientLimit(1); got != 2 {
		t.Errorf("limit = %d, want 2", got)
	}
}

func TestValidateRejectsStatements(t *testing.T) {
	dir := t.TempDir()
	cases := []struct {
		name string
		edit func(*Options)
		want string // the whole message
	}{
		{"create is a directory", func(o *Options) { o.Create, o.CreateSet = dir, true },
			"goslap: Create file was not a regular file"},
		{"query is a directory", func(o *Options) { o.Query, o.QuerySet = dir, true },
			"goslap: User query supplied file was not a regular file"},
		{"pre-query is a directory", func(o *Options) { o.Query, o.QuerySet, o.PreQuery, o.PreQuerySet = "x", true, dir, true },
			"goslap: User query supplied file was not a regular file"},
		{"missing path with slash", func(o *Options) { o.Query, o.QuerySet = "/nonexistent/file.sql", true },
			`goslap: --query "/nonexistent/file.sql" looks like a file name, but there is no such file (write SQL with a space, or fix the path)`},
		{"missing .sql", func(o *Options) { o.Create, o.CreateSet = "schema.SQL", true },
			`goslap: --create "schema.SQL" looks like a file name, but there is no such file (write SQL with a space, or fix the path)`},
		{"-a checks come first", func(o *Options) {
			o.AutoGenerateSQL, o.Query, o.QuerySet = true, "/nonexistent/file.sql", true
		}, "goslap: Can't use --auto-generate-sql when create and query strings are specified!"},
		{"unique-write 0", func(o *Options) { o.AutoGenerateSQL, o.UniqueWriteNum = true, 0 },
			"goslap: --auto-generate-sql-unique-write-number=0 leaves no INSERT for --auto-generate-sql-write-number ≥ 2 (mysqlslap would loop forever)"},
		{"empty first statement", func(o *Options) { o.Query, o.QuerySet, o.Delimiter = ";", true, ";" },
			`goslap: --query ";" has no statement before its first delimiter; mysqlslap would loop forever or run nothing`},
		{"execute-number without statements", func(o *Options) { o.ExecuteNumber = 3 },
			"goslap: --auto-generate-sql-execute-number and --number-of-queries need statements to execute: give --query or --auto-generate-sql"},
		{"-c 10,,20", func(o *Options) { o.Concurrency = "10,,20" },
			`goslap: invalid --concurrency value "10,,20": element "" is not a positive integer`},
		{"-x abc", func(o *Options) { o.AutoGenerateSQL, o.NumberCharCols = true, "abc" },
			`goslap: invalid --number-char-cols value "abc": want N or N:I with non-negative integers`},
		{"-y -1", func(o *Options) { o.AutoGenerateSQL, o.NumberIntCols = true, "-1" },
			`goslap: invalid --number-int-cols value "-1": want N or N:I with non-negative integers`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			o := baseOptions()
			c.edit(o)
			_, err := Validate(o, Env{})
			var exit *ExitError
			if !errors.As(err, &exit) || exit.Code != 1 {
				t.Fatalf("error %v, want *ExitError with code 1", err)
			}
			if exit.Msg != c.want || strings.Contains(exit.Msg, "\n") {
				t.Errorf("message\n got  %q\n want %q", exit.Msg, c.want)
			}
		})
	}
}

func TestLooksLikePath(t *testing.T) {
	for value, want := range map[string]bool{
		"/tmp/x": true, "x.sql": true, "dir/q": true, "Q.Sql": true,
		"select 1/2 from t": false, "select 1": false, "": false, "t1": false, "select\t1/2": false,
	} {
		if got := looksLikePath(value); got != want {
			t.Errorf("looksLikePath(%q) = %v, want %v", value, got, want)
		}
	}
}

func TestOnlyPrintSystemWarning(t *testing.T) {
	o := baseOptions()
	o.Query, o.QuerySet = "select 1", true
	o.PreSystem, o.PostSystem = "echo pre", "exit 3"
	c, err := Validate(o, Env{})
	if err != nil {
		t.Fatal(err)
	}
	var out, errOut strings.Builder
	if err := OnlyPrint(&out, &errOut, c); err != nil {
		t.Fatal(err)
	}
	if got, want := out.String(), "pre\nselect 1;\n"; got != want {
		t.Errorf("stdout %q, want %q", got, want)
	}
	if got, want := errOut.String(), "Warning: Execution of post_system option returned 768.\n"; got != want {
		t.Errorf("stderr %q, want %q", got, want)
	}
}
