package mysqlslap

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
)

const onlyPrintDir = "testdata/onlyprint"

// onlyPrintCase is one line of testdata/onlyprint/cases.txt.
type onlyPrintCase struct {
	name string
	args []string
}

// handWritten cases have golden files goslap's authors wrote, because goslap
// deliberately differs from mariadb-slap there (valid SQL instead of the
// comma bugs); they are not compared with the real binary.
func (c onlyPrintCase) handWritten() bool { return strings.HasPrefix(c.name, "fixed-") }

// orderFree: lines are compared as a sorted multiset when several clients
// print (mysqlslap interleaves them at random) or a system command runs
// (goslap flushes before it; a piped mysqlslap prints the command's output
// before all its buffered statements).
func (c onlyPrintCase) orderFree() bool {
	for i, a := range c.args {
		if strings.HasPrefix(a, "--pre-system") || strings.HasPrefix(a, "--post-system") {
			return true
		}
		value := ""
		switch {
		case a == "-c" && i+1 < len(c.args):
			value = c.args[i+1]
		case strings.HasPrefix(a, "-c") && a != "-c":
			value = a[2:]
		case strings.HasPrefix(a, "--concurrency="):
			value = strings.TrimPrefix(a, "--concurrency=")
		}
		for v := range strings.SplitSeq(value, ",") {
			if n, _ := strconv.Atoi(strings.TrimSpace(v)); n > 1 {
				return true
			}
		}
	}
	return false
}

func readOnlyPrintCases(t *testing.T) []onlyPrintCase {
	t.Helper()
	f, err := os.Open(filepath.Join(onlyPrintDir, "cases.txt"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var cases []onlyPrintCase
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := sc.Text()
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		name, rest, ok := strings.Cut(line, " | ")
		if !ok {
			t.Fatalf("cases.txt: no \" | \" in %q", line)
		}
		args, err := splitShellWords(rest)
		if err != nil {
			t.Fatalf("cases.txt %s: %v", name, err)
		}
		cases = append(cases, onlyPrintCase{name: name, args: args})
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	if len(cases) < 30 {
		t.Fatalf("cases.txt has %d cases, want at least 30", len(cases))
	}
	return cases
}

// runGoslapOnlyPrint is goslap --only-print <args>: Validate then OnlyPrint.
func runGoslapOnlyPrint(args []string) (stdout, stderr string, err error) {
	o, err := parseOptionsForTest(append([]string{"--only-print"}, args...))
	if err != nil {
		return "", "", err
	}
	var out, errOut bytes.Buffer
	c, err := Validate(o, Env{Stdout: &out})
	if err != nil {
		return "", "", err
	}
	defer c.Close()
	err = OnlyPrint(&out, &errOut, c)
	return out.String(), errOut.String(), err
}

// csvTimings matches the three timing fields of a CSV line: mariadb-slap's
// --only-print times its thread start-up (usually 0.000, sometimes a few ms
// on a busy machine), so they are not part of the comparison.
var csvTimings = regexp.MustCompile(`,[0-9]+\.[0-9]{3},[0-9]+\.[0-9]{3},[0-9]+\.[0-9]{3},`)

func normalise(c onlyPrintCase, s string) string {
	s = csvTimings.ReplaceAllString(s, ",T,T,T,")
	if !c.orderFree() {
		return s
	}
	lines := strings.SplitAfter(s, "\n")
	slices.Sort(lines)
	return strings.Join(lines, "")
}

func TestOnlyPrintGolden(t *testing.T) {
	for _, c := range readOnlyPrintCases(t) {
		t.Run(c.name, func(t *testing.T) {
			t.Chdir(onlyPrintDir) // statement files are named relative to it
			stdout, stderr, err := runGoslapOnlyPrint(c.args)
			if err != nil {
				t.Fatalf("goslap: %v", err)
			}
			wantOut, err := os.ReadFile(c.name + ".out")
			if err != nil {
				t.Fatal(err)
			}
			wantErr, err := os.ReadFile(c.name + ".err")
			if err != nil && !errors.Is(err, os.ErrNotExist) {
				t.Fatal(err)
			}
			if got, want := normalise(c, stdout), normalise(c, string(wantOut)); got != want {
				t.Errorf("stdout differs from %s.out:\n%s", c.name, firstDifference(got, want))
			}
			if stderr != string(wantErr) {
				t.Errorf("stderr = %q, want %q", stderr, wantErr)
			}
		})
	}
}

// TestOnlyPrintMatchesMariadbSlap runs the real binary on every case that
// goslap means to match. It is skipped when mariadb-slap is not installed,
// except under CI=true, where the comparison is required.
func TestOnlyPrintMatchesMariadbSlap(t *testing.T) {
	bin, err := exec.LookPath("mariadb-slap")
	if err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatal("CI=true but mariadb-slap is not on PATH")
		}
		t.Skip("mariadb-slap not on PATH")
	}
	for _, c := range readOnlyPrintCases(t) {
		if c.handWritten() {
			continue
		}
		t.Run(c.name, func(t *testing.T) {
			t.Chdir(onlyPrintDir)
			cmd := exec.Command(bin, append([]string{"--no-defaults", "--only-print"}, c.args...)...)
			var realOut, realErr bytes.Buffer
			cmd.Stdout, cmd.Stderr = &realOut, &realErr
			if err := cmd.Run(); err != nil {
				t.Fatalf("mariadb-slap: %v: %s", err, realErr.String())
			}
			stdout, stderr, err := runGoslapOnlyPrint(c.args)
			if err != nil {
				t.Fatalf("goslap: %v", err)
			}
			if got, want := normalise(c, stdout), normalise(c, realOut.String()); got != want {
				t.Errorf("stdout differs from mariadb-slap:\n%s", firstDifference(got, want))
			}
			if stderr != realErr.String() {
				t.Errorf("stderr = %q, mariadb-slap %q", stderr, realErr.String())
			}
		})
	}
}

func firstDifference(got, want string) string {
	g, w := strings.Split(got, "\n"), strings.Split(want, "\n")
	for i := range max(len(g), len(w)) {
		var gl, wl string
		if i < len(g) {
			gl = g[i]
		}
		if i < len(w) {
			wl = w[i]
		}
		if gl != wl {
			return fmt.Sprintf("line %d:\n got  %q\n want %q\n(%d vs %d lines)", i+1, gl, wl, len(g), len(w))
		}
	}
	return "(equal lines; different bytes)"
}

// splitShellWords splits a line as a POSIX shell would for plain words,
// single quotes, double quotes (with \" \\ \$ \` escapes) and backslash
// escapes; no expansions.
func splitShellWords(line string) ([]string, error) {
	var words []string
	var word strings.Builder
	inWord := false
	for i := 0; i < len(line); i++ {
		ch := line[i]
		switch {
		case ch == ' ' || ch == '\t':
			if inWord {
				words = append(words, word.String())
				word.Reset()
				inWord = false
			}
		case ch == '\'':
			end := strings.IndexByte(line[i+1:], '\'')
			if end < 0 {
				return nil, fmt.Errorf("unterminated ' in %q", line)
			}
			word.WriteString(line[i+1 : i+1+end])
			i += end + 1
			inWord = true
		case ch == '"':
			i++
			for ; i < len(line) && line[i] != '"'; i++ {
				if line[i] == '\\' && i+1 < len(line) && strings.IndexByte("\"\\$`", line[i+1]) >= 0 {
					i++
				}
				word.WriteByte(line[i])
			}
			if i >= len(line) {
				return nil, fmt.Errorf("unterminated \" in %q", line)
			}
			inWord = true
		case ch == '\\' && i+1 < len(line):
			i++
			word.WriteByte(line[i])
			inWord = true
		default:
			word.WriteByte(ch)
			inWord = true
		}
	}
	if inWord {
		words = append(words, word.String())
	}
	return words, nil
}

func TestSplitShellWords(t *testing.T) {
	cases := map[string][]string{
		`-a -c 1,2`:                      {"-a", "-c", "1,2"},
		`--query="select * from t1" -x2`: {"--query=select * from t1", "-x2"},
		`-F ';' --delimiter='$$'`:        {"-F", ";", "--delimiter=$$"},
		`"a \"b\" \\ c" d\ e ''`:         {`a "b" \ c`, "d e", ""},
	}
	for in, want := range cases {
		got, err := splitShellWords(in)
		if err != nil || !slices.Equal(got, want) {
			t.Errorf("splitShellWords(%q) = %q, %v; want %q", in, got, err, want)
		}
	}
	if _, err := splitShellWords(`"open`); err == nil {
		t.Error("unterminated quote accepted")
	}
}

// parseOptionsForTest parses a case's arguments as goslap does, without
// option files or environment, like mariadb-slap --no-defaults with an empty
// environment.
func parseOptionsForTest(args []string) (*Options, error) {
	env := Env{Getenv: func(string) string { return "" }, UserName: "goslap-test"}
	return ParseCommandLine(append([]string{"--no-defaults"}, args...), env)
}
