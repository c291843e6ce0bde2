package mysqlslap

import (
	"bufio"
	"os"
	"strconv"
	"strings"
	"testing"

	"github.com/goslap/goslap/internal/sandbox/servertest"
)

// suiteExpectation is what goslap must do with one command line of the
// MySQL/MariaDB mysqlslap test suites (spec section 5), where it follows
// mysqlslap, and where spec section 8 makes it do better.
type suiteExpectation struct {
	code      int
	stdout    func(t *testing.T, out string) // nil: must be empty
	stderrHas string                         // "" : stderr must be empty
	before    []string                       // SQL run first (root, no schema)
	after     func(t *testing.T, run func(string) string)
}

func noOutput() suiteExpectation { return suiteExpectation{} }

func lineCount(n int) func(t *testing.T, out string) {
	return func(t *testing.T, out string) {
		t.Helper()
		if got := strings.Count(out, "\n"); got != n {
			t.Errorf("%d lines, want %d:\n%s", got, n, out)
		}
	}
}

func expectSchema(name string, want bool) func(t *testing.T, run func(string) string) {
	return func(t *testing.T, run func(string) string) {
		t.Helper()
		got := run("SELECT COUNT(*) FROM information_schema.SCHEMATA WHERE SCHEMA_NAME = '"+name+"'") == "1"
		if got != want {
			t.Errorf("schema %s exists = %v, want %v", name, got, want)
		}
	}
}

// suiteExpectations is indexed by the line number of testdata/suite/cases.txt
// (a copy of shared/mysqlslap-suite-cases.txt).
var suiteExpectations = map[int]suiteExpectation{
	1: noOutput(), 2: noOutput(),
	3: {stdout: lineCount(121)},
	4: noOutput(),
	5: {stdout: lineCount(20)},
	6: noOutput(), 7: noOutput(), 8: noOutput(),
	9: noOutput(), 10: noOutput(), 11: noOutput(), 12: noOutput(), 13: noOutput(),
	14: noOutput(), 15: noOutput(), 16: noOutput(), 17: noOutput(),
	18: {stdout: lineCount(24)},
	19: {stdout: func(t *testing.T, out string) {
		lineCount(50)(t, out)
		if strings.Count(out, "COMMIT;\n") != 14 || !strings.Contains(out, "Engine = heap;\n") || !strings.Contains(out, "Engine = myisam;\n") {
			t.Errorf("not the listing of spec 4.4(b):\n%s", out)
		}
	}},
	20: noOutput(),
	21: {before: []string{"CREATE DATABASE IF NOT EXISTS test", "CREATE PROCEDURE test.p1() SELECT 1"},
		after: func(t *testing.T, run func(string) string) { run("DROP PROCEDURE test.p1") }},
	22: {after: expectSchema("bug58090", false)},
	23: {after: func(t *testing.T, run func(string) string) {
		expectSchema("bug58090", true)(t, run)
		run("DROP SCHEMA bug58090")
	}},
	// mysqlslap prints a report after its clients failed to connect (exit
	// 0); goslap makes the failure an error (spec 8).
	24: {code: 1, stderrHas: "Error when connecting to server: 1049 Unknown database 'mysqlslap'"},
	25: {before: []string{"CREATE DATABASE IF NOT EXISTS test"},
		after: func(t *testing.T, run func(string) string) {
			if run("SELECT COUNT(*) FROM information_schema.TABLES WHERE TABLE_SCHEMA='test' AND TABLE_NAME='t1'") != "1" {
				t.Error("--init-command did not create test.t1")
			}
			run("DROP TABLE test.t1")
		}},
	26: noOutput(), 27: noOutput(),
	// MySQL-only --sql_mode is honoured as MySQL does.
	28: noOutput(), 29: noOutput(), 30: noOutput(), 31: noOutput(),
	32: noOutput(),
	// --iterations=0 is refused (MySQL clamps it with a warning, MariaDB prints zeros).
	33: {code: 1, stderrHas: "--iterations must be at least 1"},
	34: {code: 1, stderrHas: "Variable 'sql_mode' can't be set to the value of 'abc'"},
	35: {before: []string{
		"CREATE USER IF NOT EXISTS 'user_with_length_32_abcdefghijkl'@'%'",
		"GRANT SELECT ON mysql.* TO 'user_with_length_32_abcdefghijkl'@'%'"},
		after: func(t *testing.T, run func(string) string) {
			run("DROP USER 'user_with_length_32_abcdefghijkl'@'%'")
		}},
	// MySQL 9.3 turns -a on, MariaDB hangs with an existing schema; goslap refuses.
	36: {code: 1, stderrHas: "need statements to execute"},
}

// TestMysqlslapSuites runs every command line of MySQL's and MariaDB's own
// mysqlslap test suites against the test server.
func TestMysqlslapSuites(t *testing.T) {
	s := servertest.Require(t)
	db, err := s.OpenDB("")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	sqlRun := func(q string) string {
		t.Helper()
		var v string
		if strings.HasPrefix(strings.ToUpper(q), "SELECT") {
			if err := db.QueryRow(q).Scan(&v); err != nil {
				t.Fatalf("%s: %v", q, err)
			}
			return v
		}
		if _, err := db.Exec(q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
		return ""
	}

	f, err := os.Open("testdata/suite/cases.txt")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<16), 1<<20)
	for n := 1; sc.Scan(); n++ {
		line := sc.Text()
		want, ok := suiteExpectations[n]
		if !ok {
			t.Errorf("line %d has no expectation: %s", n, line)
			continue
		}
		t.Run(strconv.Itoa(n), func(t *testing.T) {
			line = strings.TrimSpace(line)
			line = strings.TrimSuffix(line, "2>&1")
			line = strings.TrimSuffix(strings.TrimSpace(line), ";") // a shell separator in the suite
			line = strings.ReplaceAll(line, "$MASTER_MYPORT", strconv.Itoa(s.Port))
			words, err := splitShellWords(strings.TrimPrefix(line, "$MYSQL_SLAP"))
			if err != nil {
				t.Fatal(err)
			}
			for _, q := range want.before {
				sqlRun(q)
			}
			code, stdout, stderr := runMain(t, s, words...)
			if code != want.code {
				t.Errorf("exit %d, want %d; stderr %q", code, want.code, stderr)
			}
			if want.stdout == nil {
				if stdout != "" {
					t.Errorf("stdout %q, want nothing", stdout)
				}
			} else {
				want.stdout(t, stdout)
			}
			if want.stderrHas == "" && stderr != "" {
				t.Errorf("stderr %q, want nothing", stderr)
			}
			if want.stderrHas != "" && !strings.Contains(stderr, want.stderrHas) {
				t.Errorf("stderr %q, want it to contain %q", stderr, want.stderrHas)
			}
			if want.after != nil {
				want.after(t, sqlRun)
			}
		})
	}
	if len(suiteExpectations) != 36 {
		t.Errorf("%d expectations for 36 suite lines", len(suiteExpectations))
	}
}
