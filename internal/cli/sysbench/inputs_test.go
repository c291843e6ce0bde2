package sysbench

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// parseAndResolve runs the command line through everything that happens
// before a connection: Parse, then the workload's options (Resolve).
func parseAndResolve(args []string) error {
	c, err := Parse(args)
	if err != nil {
		return err
	}
	_, _, err = Resolve(c)
	return err
}

// TestConfigFileLinesNotEchoed: an error on a --config-file line names the
// file and the line number, never the line's text (the file may hold a
// password), whichever stage refuses it.
func TestConfigFileLinesNotEchoed(t *testing.T) {
	dir := t.TempDir()
	for _, tc := range []struct {
		name, file, test string
		want             string
	}{
		{"unknown option", "threads=2\nhunter2secret\n", "oltp_read_write",
			"line 2: not an option goslap sysbench knows, or a value it cannot take"},
		{"general option's value", "threads=hunter2secret\n", "oltp_read_write", "line 1: invalid value for --threads"},
		{"deprecated alias", "num-threads=hunter2secret\n", "oltp_read_write", "line 1: invalid value for --threads"},
		{"workload option's number", "# comment\ntables=hunter2secret\n", "oltp_read_write", "line 2: invalid value for --tables"},
		{"value the workload checks", "table-size=hunter2secret\n", "oltp_read_write", "line 1: invalid value for --table-size"},
		{"workload option's word", "rand-type=hunter2secret\n", "oltp_read_write", "line 1: invalid value for --rand-type"},
		{"engine", "mysql-storage-engine=hunter2secret,x\n", "oltp_read_write", "line 1: invalid value for --mysql-storage-engine"},
		{"0.4 name in 1.0", "oltp-table-size=hunter2secret\n", "oltp_read_write", "line 1: not an option"},
		{"0.4 table name", "oltp-table-name=hunter2secret;\n", "--test=oltp", "line 1: invalid value for --oltp-table-name"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			path := filepath.Join(dir, "sb.cfg")
			if err := os.WriteFile(path, []byte(tc.file), 0o600); err != nil {
				t.Fatal(err)
			}
			err := parseAndResolve([]string{"--config-file=" + path, tc.test, "run"})
			if err == nil || strings.Contains(err.Error(), "hunter2") ||
				!strings.Contains(err.Error(), "--config-file '"+path+"', "+tc.want) {
				t.Errorf("got %v; want the file, %q, and no secret", err, tc.want)
			}
		})
	}
}

// TestNamesCheckedBeforeSQL: the engine and the 0.4 table name reach SQL
// unquoted, so a bad one is refused up front saying what is allowed.
func TestNamesCheckedBeforeSQL(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string // "" when accepted
	}{
		{[]string{"--test=oltp", "--mysql-table-engine=myisam,innodb", "prepare"},
			"FATAL: invalid value 'myisam,innodb' for --mysql-table-engine: one storage engine name (letters, digits and '_', such as innodb or myisam); lists are not supported"},
		{[]string{"oltp_read_write", "--mysql-storage-engine=innodb;drop", "prepare"}, "invalid value 'innodb;drop' for --mysql-storage-engine: one storage engine name"},
		{[]string{"oltp_read_write", "--mysql-storage-engine=", "prepare"}, "invalid value '' for --mysql-storage-engine"},
		{[]string{"oltp_read_write", "--mysql-storage-engine=MyISAM", "prepare"}, ""},
		{[]string{"--test=oltp", "--mysql-table-engine=innodb", "prepare"}, ""},
		{[]string{"--test=oltp", "--oltp-table-name=a b", "prepare"},
			"FATAL: invalid value 'a b' for --oltp-table-name: a table name is 1 to 64 letters, digits, '_' or '$', and not digits alone"},
		{[]string{"--test=oltp", "--oltp-table-name=", "prepare"}, "invalid value '' for --oltp-table-name: a table name is"},
		{[]string{"--test=oltp", "--oltp-table-name=123", "prepare"}, "invalid value '123' for --oltp-table-name"},
		{[]string{"--test=oltp", "--oltp-table-name=" + strings.Repeat("t", 65), "prepare"}, "for --oltp-table-name: a table name is"},
		{[]string{"--test=oltp", "--oltp-table-name=orders_2$", "prepare"}, ""},
		// 0.5 ignores the 0.4 table name, so its value is not checked.
		{[]string{"--test=no-such-dir/oltp.lua", "--oltp-table-name=a b", "prepare"}, ""},
	} {
		t.Run(strings.Join(tc.args, " "), func(t *testing.T) {
			err := parseAndResolve(tc.args)
			switch {
			case tc.want == "" && err != nil:
				t.Errorf("refused: %v", err)
			case tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want)):
				t.Errorf("got %v; want %q", err, tc.want)
			}
		})
	}
}

// TestOneFileForTwoOutputs: --json and --plot naming one file, or either
// naming the --config-file, is refused before anything runs.
func TestOneFileForTwoOutputs(t *testing.T) {
	dir := t.TempDir()
	cfg := filepath.Join(dir, "sb.cfg")
	if err := os.WriteFile(cfg, []byte("threads=2\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--json=" + dir + "/r.svg", "--plot=" + dir + "/./r.svg"},
			"FATAL: --json=" + dir + "/r.svg and --plot=" + dir + "/./r.svg name the same file: give each output its own"},
		{[]string{"--config-file=" + cfg, "--json=" + cfg},
			"FATAL: --json=" + cfg + " would overwrite the file that --config-file=" + cfg + " reads: give the output another name"},
	} {
		t.Run(strings.Join(tc.args, " "), func(t *testing.T) {
			_, err := Parse(append(tc.args, "oltp_read_write", "run"))
			if err == nil || err.Error() != tc.want {
				t.Errorf("got %v; want %q", err, tc.want)
			}
		})
	}
}

// TestHelpListsWhatRuns: --help's tests are the workloads this front end
// runs (not mysqlslap's load), and a test's help lists the options of its
// own dialect and test.
func TestHelpListsWhatRuns(t *testing.T) {
	help := func(args ...string) string {
		var out, errw strings.Builder
		Main(args, Env{Stdout: &out, Stderr: &errw})
		return out.String()
	}
	if h := help("--help"); !strings.Contains(h, "Tests: oltp, ") || strings.Contains(h, "mysqlslap,") {
		t.Errorf("--help's tests: %q", h[strings.LastIndex(h, "Tests:"):])
	}
	for _, tc := range []struct {
		args          []string
		want, notWant []string
	}{
		{[]string{"oltp_read_write", "help"}, []string{"--tables=N", "--table_size=N", "--skip_trx"},
			[]string{"--oltp_table_name", "--oltp_read_only", "--myisam_max_rows", "--mysql_engine_trx", "--delta", "--random_points"}},
		{[]string{"--test=oltp", "help"}, []string{"--oltp_table_name", "--oltp_read_only", "--myisam_max_rows"}, []string{"--delta"}},
		{[]string{"select_random_ranges", "help"}, []string{"--delta", "--number_of_ranges"}, []string{"--random_points", "--oltp_table_name"}},
	} {
		h := help(tc.args...)
		for _, w := range tc.want {
			if !strings.Contains(h, "  "+w) {
				t.Errorf("%v: %s missing:\n%s", tc.args, w, h)
			}
		}
		for _, w := range tc.notWant {
			if strings.Contains(h, "  "+w) {
				t.Errorf("%v lists %s:\n%s", tc.args, w, h)
			}
		}
	}
	if err := parseAndResolve([]string{"mysqlslap", "run"}); err == nil || !strings.Contains(err.Error(), "Cannot find benchmark 'mysqlslap'") {
		t.Errorf("goslap sysbench mysqlslap run: %v", err)
	}
}
