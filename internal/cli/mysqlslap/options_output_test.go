package mysqlslap

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestOutputFilesCheckedUpFront: --json and --plot paths are checked before
// anything connects (a typo must not cost the benchmark), and --only-print
// refuses --json as it refuses --plot. run stops before connecting in every
// case, so no server is needed: the error line is the proof.
func TestOutputFilesCheckedUpFront(t *testing.T) {
	dir := t.TempDir()
	existing := filepath.Join(dir, "old.json")
	if err := os.WriteFile(existing, []byte("keep"), 0o644); err != nil {
		t.Fatal(err)
	}
	readOnly := filepath.Join(dir, "ro")
	if err := os.Mkdir(readOnly, 0o555); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		args []string
		want string
	}{
		{[]string{"--json=" + dir + "/no-such-dir/out.json"}, "goslap: --json=" + dir + "/no-such-dir/out.json: cannot write the file: " + dir + "/no-such-dir: no such file or directory"},
		{[]string{"--json=" + dir}, "goslap: --json=" + dir + ": cannot write the file: it is a directory"},
		{[]string{"--plot=" + dir + "/chart.txt"}, "goslap: --plot=" + dir + "/chart.txt: the file name must end in .svg, .png or .pdf"},
		{[]string{"--plot=" + dir + "/none/chart.svg"}, "goslap: --plot=" + dir + "/none/chart.svg: cannot write the file: " + dir + "/none: no such file or directory"},
		{[]string{"--only-print", "--json"}, "goslap: --only-print runs nothing: it cannot be combined with --json"},
		{[]string{"--only-print", "--json=" + dir + "/x.json"}, "goslap: --only-print runs nothing: it cannot be combined with --json"},
	}
	if os.Geteuid() != 0 { // root writes anywhere
		tests = append(tests, struct {
			args []string
			want string
		}{[]string{"--json=" + readOnly + "/out.json"}, "goslap: --json=" + readOnly + "/out.json: cannot write the file: " + readOnly + ": permission denied"})
	}
	for _, tc := range tests {
		t.Run(strings.Join(tc.args, " "), func(t *testing.T) {
			env, stdout, stderr := testEnv(dir, nil)
			code := run(append([]string{"--no-defaults", "-a", "--host=127.0.0.1", "--port=1"}, tc.args...), env)
			if code != 1 || stderr.String() != tc.want+"\n" || stdout.Len() != 0 {
				t.Errorf("rc %d stderr %q stdout %q, want rc 1 and %q", code, stderr, stdout, tc.want)
			}
		})
	}
	// Paths that can be written pass and leave nothing behind; an existing
	// file keeps its content.
	o := newOptions()
	o.Ext.JSON, o.Ext.JSONSet = existing, true
	o.Ext.Sandbox.Plot = filepath.Join(dir, "chart.svg")
	if err := checkOutputFiles(o); err != nil {
		t.Fatal(err)
	}
	entries, _ := os.ReadDir(dir)
	if data, _ := os.ReadFile(existing); string(data) != "keep" || len(entries) != 2 {
		t.Errorf("the check changed the directory: %d entries, old.json %q", len(entries), data)
	}
}

// TestOneFileForTwoOutputsRefused: two outputs naming one file (by path,
// cleaned path or link), or --json/--plot over a statement file the run
// reads, are refused in one line before anything connects; --csv over a
// statement file stays as mysqlslap runs it (it appends).
func TestOneFileForTwoOutputsRefused(t *testing.T) {
	dir := t.TempDir()
	query := filepath.Join(dir, "q.sql")
	if err := os.WriteFile(query, []byte("SELECT 1"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(filepath.Join(dir, "o.svg"), filepath.Join(dir, "link.svg")); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "o.svg"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"-a", "--json=o.svg", "--plot=o.svg"}, "--json=o.svg and --plot=o.svg name the same file: give each output its own"},
		{[]string{"-a", "--csv=o.csv", "--json=./o.csv"}, "--json=./o.csv and --csv=o.csv name the same file: give each output its own"},
		{[]string{"-a", "--csv=" + dir + "/o.svg", "--plot=o.svg"}, "--plot=o.svg and --csv=" + dir + "/o.svg name the same file: give each output its own"},
		{[]string{"-a", "--json=link.svg", "--plot=o.svg"}, "--json=link.svg and --plot=o.svg name the same file: give each output its own"},
		{[]string{"--query=q.sql", "--json=q.sql"}, "--json=q.sql would overwrite the file that --query=q.sql reads: give the output another name"},
		{[]string{"--workload=oltp_point_select", "--json=r.svg", "--plot=r.svg", "run"}, "--json=r.svg and --plot=r.svg name the same file: give each output its own"},
	} {
		t.Run(strings.Join(tc.args, " "), func(t *testing.T) {
			t.Chdir(dir)
			env, stdout, stderr := testEnv(dir, nil)
			code := run(append([]string{"--no-defaults", "--host=127.0.0.1", "--port=1"}, tc.args...), env)
			if code != 1 || stderr.String() != "goslap: "+tc.want+"\n" || stdout.Len() != 0 {
				t.Errorf("rc %d stderr %q stdout %q, want rc 1 and %q", code, stderr, stdout, tc.want)
			}
		})
	}
	if data, _ := os.ReadFile(query); string(data) != "SELECT 1" {
		t.Errorf("the statement file was changed: %q", data)
	}
}
