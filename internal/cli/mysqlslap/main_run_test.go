package mysqlslap

import (
	"bytes"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/goslap/goslap/internal/sandbox"
	"github.com/goslap/goslap/internal/sandbox/servertest"
)

// runMain runs the goslap command in-process against the test server.
func runMain(t *testing.T, s *sandbox.Server, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	var out, errOut bytes.Buffer
	env := Env{
		Getenv: func(string) string { return "" },
		Stdout: &out, Stderr: &errOut,
		UserName: "root", DefaultFiles: []string{},
	}
	base := []string{"--no-defaults", "-S", s.Socket, "-uroot"}
	code = run(append(base, args...), env)
	return code, out.String(), errOut.String()
}

// TestMainPlotsAPlainRun checks Main's wiring of --plot for a run without
// sandboxes or targets: one series, one point per concurrency level.
func TestMainPlotsAPlainRun(t *testing.T) {
	s := servertest.Require(t)
	chart := filepath.Join(t.TempDir(), "run.svg")
	code, stdout, stderr := runMain(t, s, "-a", "-c", "1,2,3", "--number-of-queries=60", "--plot="+chart)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	if n := strings.Count(stdout, "Benchmark\n"); n != 3 {
		t.Errorf("%d Benchmark blocks, want 3:\n%s", n, stdout)
	}
	svg, err := os.ReadFile(chart)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"<svg", "queries per second", "concurrency (clients)"} {
		if !bytes.Contains(svg, []byte(want)) {
			t.Errorf("chart lacks %q", want)
		}
	}
}

// TestMainAppendsCSVToAFile checks that --csv=FILE appends one line per
// concurrency level and prints no Benchmark block (spec 4.2).
func TestMainAppendsCSVToAFile(t *testing.T) {
	s := servertest.Require(t)
	csv := filepath.Join(t.TempDir(), "out.csv")
	for range 2 {
		code, stdout, stderr := runMain(t, s, "-a", "-c", "1,2", "--csv="+csv)
		if code != 0 || stdout != "" {
			t.Fatalf("exit %d, stdout %q, stderr %q", code, stdout, stderr)
		}
	}
	data, err := os.ReadFile(csv)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSuffix(string(data), "\n"), "\n")
	if len(lines) != 4 {
		t.Fatalf("%d CSV lines, want 4:\n%s", len(lines), data)
	}
	for i, line := range lines {
		fields := strings.Split(line, ",")
		if len(fields) != 7 || fields[1] != "mixed" || fields[5] != strconv.Itoa(i%2+1) {
			t.Errorf("line %d = %q", i, line)
		}
	}
}

// TestMainHintsAtCreateSchema: a run that creates nothing connects to
// --create-schema as it is; when that schema does not exist the 1049 error
// gets a hint (issue 15 item 16), and only then.
func TestMainHintsAtCreateSchema(t *testing.T) {
	s := servertest.Require(t)
	const hint = "goslap: with only --query nothing is created, so --create-schema must name an existing schema"
	tests := []struct {
		args []string
		want string // the whole stderr
	}{
		{[]string{"--query=call shop.sp(1)"}, "goslap: Error when connecting to server: 1049 Unknown database 'mysqlslap'\n" +
			hint + " (now 'mysqlslap')\n"},
		{[]string{"-q", "select 1", "--create-schema=goslap_hint_none"}, "goslap: Error when connecting to server: 1049 Unknown database 'goslap_hint_none'\n" +
			hint + " (now 'goslap_hint_none')\n"},
	}
	for _, tc := range tests {
		code, stdout, stderr := runMain(t, s, tc.args...)
		if code != 1 || stdout != "" || stderr != tc.want {
			t.Errorf("%q: exit %d, stdout %q, stderr %q; want exit 1 and %q", tc.args, code, stdout, stderr, tc.want)
		}
	}
}
