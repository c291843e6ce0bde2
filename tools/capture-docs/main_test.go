package main

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strings"
	"sync"
	"testing"
)

func TestParseAndRewrite(t *testing.T) {
	doc := strings.Join([]string{
		"text",
		"<!-- capture: two fails -->",
		"```",
		"$ goslap --a \\",
		"    --b",
		"old output",
		"$ goslap --c",
		"old 2",
		"```",
		"<!-- /capture -->",
		"after",
	}, "\n")
	lines := strings.Split(doc, "\n")
	blocks, err := parseBlocks("x.md", lines)
	if err != nil {
		t.Fatal(err)
	}
	if len(blocks) != 1 || blocks[0].name != "two" || !blocks[0].fails || len(blocks[0].commands) != 2 {
		t.Fatalf("blocks = %+v", blocks)
	}
	if got := blocks[0].commands[0].text; got != "goslap --a  --b" {
		t.Errorf("continued command = %q", got)
	}
	got := strings.Join(rewrite(lines, blocks[0], []string{"new\n", ""}), "\n")
	want := strings.Join([]string{
		"text", "<!-- capture: two fails -->", "```", "$ goslap --a \\", "    --b", "new",
		"$ goslap --c", "```", "<!-- /capture -->", "after",
	}, "\n")
	if got != want {
		t.Errorf("rewrite:\n%s\nwant:\n%s", got, want)
	}
}

// TestFrom: from=PREFIX keeps the output from its first line with the
// prefix, says what was left out, and refuses an output without it.
func TestFrom(t *testing.T) {
	blocks, err := parseBlocks("x.md", strings.Split("<!-- capture: v from=Verdicts: -->\n```\n$ goslap -V\n```\n<!-- /capture -->", "\n"))
	if err != nil || len(blocks) != 1 || blocks[0].from != "Verdicts:" {
		t.Fatalf("blocks %+v, err %v", blocks, err)
	}
	for _, tc := range []struct{ in, want string }{
		{"Benchmark\n\tx\nVerdicts: each\n  a\n", "…\nVerdicts: each\n  a\n"},
		{"Verdicts: each\n", "Verdicts: each\n"},
		{"Benchmark\n", ""},
	} {
		got, err := fromLine(tc.in, "Verdicts:")
		if got != tc.want || (tc.want == "") != (err != nil) {
			t.Errorf("fromLine(%q) = %q, %v; want %q", tc.in, got, err, tc.want)
		}
	}
}

func TestParseBlocksRefusesMalformed(t *testing.T) {
	for name, doc := range map[string]string{
		"no fence":         "<!-- capture: a -->\n$ goslap -V\n<!-- /capture -->",
		"no close marker":  "<!-- capture: a -->\n```\n$ goslap -V\n```\n",
		"no command":       "<!-- capture: a -->\n```\noutput\n```\n<!-- /capture -->",
		"stray close":      "```\n```\n<!-- /capture -->",
		"unknown attr":     "<!-- capture: a sometimes -->\n```\n$ goslap -V\n```\n<!-- /capture -->",
		"empty from":       "<!-- capture: a from= -->\n```\n$ goslap -V\n```\n<!-- /capture -->",
		"unnamed":          "<!-- capture: -->\n```\n$ goslap -V\n```\n<!-- /capture -->",
		"unclosed comment": "<!-- capture: a\n```\n$ goslap -V\n```\n<!-- /capture -->",
	} {
		if _, err := parseBlocks("x.md", strings.Split(doc, "\n")); err == nil {
			t.Errorf("%s: accepted", name)
		}
	}
}

func TestSplitWords(t *testing.T) {
	env := map[string]string{"SOCK": "/s.sock"}
	for in, want := range map[string][]string{
		`goslap -S $SOCK -a`:                         {"goslap", "-S", "/s.sock", "-a"},
		`goslap --fail-if='qps<0.97,p95>1.10' a b`:   {"goslap", "--fail-if=qps<0.97,p95>1.10", "a", "b"},
		`goslap -e "innodb,innodb:ROW_FORMAT=X K=8"`: {"goslap", "-e", "innodb,innodb:ROW_FORMAT=X K=8"},
		`goslap --create="CREATE TABLE t (id INT)"`:  {"goslap", "--create=CREATE TABLE t (id INT)"},
		`goslap -q "x \"y\" $SOCK"`:                  {"goslap", "-q", `x "y" /s.sock`},
	} {
		got, err := splitWords(in, env)
		if err != nil || !reflect.DeepEqual(got, want) {
			t.Errorf("splitWords(%q) = %q, %v; want %q", in, got, err, want)
		}
	}
	for _, in := range []string{`goslap a | b`, `goslap a; b`, `goslap $(x)`, `goslap $NOPE`, `goslap 'x`, `goslap shard-*.json`} {
		if _, err := splitWords(in, env); err == nil {
			t.Errorf("splitWords(%q) accepted", in)
		}
	}
}

var (
	buildOnce sync.Once
	builtDir  string // goslapBinary's temporary directory, removed by TestMain
	builtBin  string
	buildErr  error
)

// TestMain removes the binary goslapBinary built: each build is some 26 MB,
// and every run of this package used to leave one behind in the temporary
// directory.
func TestMain(m *testing.M) {
	code := m.Run()
	removeBuild()
	os.Exit(code)
}

// removeBuild removes goslapBinary's directory, the one os.MkdirTemp made
// for it, and nothing else; nothing when no build was made.
func removeBuild() {
	if builtDir != "" {
		os.RemoveAll(builtDir)
		builtDir = ""
	}
}

// TestRemoveBuildTouchesOnlyItsDirectory: the removal takes the build's own
// directory and leaves a decoy beside it, and removes nothing when no build
// was made (builtDir empty: not the working directory, not the temporary
// directory's parent).
func TestRemoveBuildTouchesOnlyItsDirectory(t *testing.T) {
	saved := builtDir
	defer func() { builtDir = saved }()

	parent := t.TempDir()
	decoy := filepath.Join(parent, "decoy")
	if err := os.WriteFile(decoy, []byte("user data"), 0o600); err != nil {
		t.Fatal(err)
	}
	dir, err := os.MkdirTemp(parent, "capdocs-test-")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "goslap"), []byte("binary"), 0o700); err != nil {
		t.Fatal(err)
	}

	builtDir = ""
	removeBuild()
	if _, err := os.Stat(dir); err != nil {
		t.Fatalf("no build made, yet %s is gone: %v", dir, err)
	}

	builtDir = dir
	removeBuild()
	if _, err := os.Stat(dir); !os.IsNotExist(err) {
		t.Errorf("the build's directory survived: %v", err)
	}
	if b, err := os.ReadFile(decoy); err != nil || string(b) != "user data" {
		t.Errorf("the decoy beside it: %q, %v", b, err)
	}
	removeBuild() // again: builtDir was cleared, so nothing more goes
	if b, err := os.ReadFile(decoy); err != nil || string(b) != "user data" {
		t.Errorf("the decoy after a second removal: %q, %v", b, err)
	}
}

// goslapBinary builds the checkout's goslap once for the tests below.
func goslapBinary(t *testing.T) string {
	t.Helper()
	if _, err := exec.LookPath("go"); err != nil {
		t.Skip("no go command to build goslap")
	}
	buildOnce.Do(func() {
		root, err := repoRoot()
		if err != nil {
			buildErr = err
			return
		}
		dir, err := os.MkdirTemp("", "capdocs-test-")
		if err != nil {
			buildErr = err
			return
		}
		builtDir = dir
		builtBin = filepath.Join(dir, "goslap")
		buildErr = build(context.Background(), root, builtBin)
	})
	if buildErr != nil {
		t.Fatal(buildErr)
	}
	return builtBin
}

// TestDocumentedCommandsParse: every command line of a captured block in
// README.md and docs/ is one goslap accepts (parse-only, no server).
func TestDocumentedCommandsParse(t *testing.T) {
	bin := goslapBinary(t)
	root, err := repoRoot()
	if err != nil {
		t.Fatal(err)
	}
	files, err := docFiles(root)
	if err != nil {
		t.Fatal(err)
	}
	if err := checkFiles(context.Background(), bin, files); err != nil {
		t.Fatal(err)
	}
}

// TestCheckCatchesRenamedOptions: the check is not a formality; each front
// end's command with a misspelt option fails it, and the same command
// spelt right passes.
func TestCheckCatchesRenamedOptions(t *testing.T) {
	bin := goslapBinary(t)
	for _, c := range []struct{ good, bad string }{
		{`goslap --sandbox -a -c 4 --latency`, `goslap --sandbox -a -c 4 --latncy`},
		{`goslap -S $SOCK --workload=tpcc --warehouses=1 -c 2 run`, `goslap -S $SOCK --workload=tpcc --warehuses=1 -c 2 run`},
		{`goslap sysbench oltp_read_only --sandbox --table-size=500 run`, `goslap sysbench oltp_read_only --sandbox --table-sze=500 run`},
		{`goslap tpcc-load -S $SOCK -u root -d tpcc -w 1 --check`, `goslap tpcc-load -S $SOCK -u root -d tpcc -w 1 --chek`},
		{`goslap compare --metrics=qps a.json vs b.json`, `goslap compare --metics=qps a.json vs b.json`},
		{`goslap merge --latency shard-0.json`, `goslap merge --latncy shard-0.json`},
	} {
		if err := checkCommand(context.Background(), bin, c.good, false); err != nil {
			t.Errorf("%s: %v", c.good, err)
		}
		if err := checkCommand(context.Background(), bin, c.bad, false); err == nil {
			t.Errorf("%s: accepted", c.bad)
		}
	}
	// Error examples: a real refusal passes, a misspelt option does not,
	// nor a command that succeeds.
	if err := checkCommand(context.Background(), bin, `goslap tpcc-load -S $SOCK -u root -d tpcc -w 0`, true); err != nil {
		t.Error(err)
	}
	for _, bad := range []string{`goslap tpcc-load -S $SOCK -u root -d tpcc -w 1 --chek`, `goslap -V`} {
		if err := checkCommand(context.Background(), bin, bad, true); err == nil {
			t.Errorf("error example %s: accepted", bad)
		}
	}
}
