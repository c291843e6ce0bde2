package slap

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
