package target_test

// Integration tests: the real runner (mysqlslap.Run through mysqlslap.RunTargets) on
// real sandboxes started from the installed server binary. They live here,
// not in package mysqlslap (internal/cli/mysqlslap), so that they start only their own sandboxes (slap's
// TestMain starts a shared server and exits on SIGINT, which the Ctrl-C
// test must not inherit).

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/goslap/goslap/internal/chart"
	"github.com/goslap/goslap/internal/cli/mysqlslap"
	"github.com/goslap/goslap/internal/sandbox"
	"github.com/goslap/goslap/internal/target"
)

func requireServer(t *testing.T) {
	t.Helper()
	if _, err := sandbox.FindServer(); err != nil {
		if sandbox.InCI() {
			t.Fatal(err)
		}
		t.Skip(err)
	}
}

func tempDir(t *testing.T) string {
	t.Helper()
	dir, err := os.MkdirTemp("", "gsi") // short: sandbox sockets live below it
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	return dir
}

// parse resolves goslap's mysqlslap options as the command line would,
// without reading option files.
func parse(t *testing.T, args ...string) *mysqlslap.Options {
	t.Helper()
	o, err := mysqlslap.ParseCommandLine(append([]string{"--no-defaults"}, args...), mysqlslap.Env{
		Getenv: func(string) string { return "" }, UserName: "root", Stdout: io.Discard, Stderr: io.Discard,
	})
	if err != nil {
		t.Fatalf("parse %q: %v", args, err)
	}
	return o
}

type run struct {
	outcomes       []target.Outcome
	err            error
	stdout, stderr string
}

func runTargets(t *testing.T, dir string, sb mysqlslap.SandboxOptions, args ...string) run {
	t.Helper()
	o := parse(t, args...)
	o.Ext.Sandbox = sb
	c, err := mysqlslap.Validate(o, mysqlslap.Env{Stdout: io.Discard})
	if err != nil {
		t.Fatal(err)
	}
	var stdout, stderr bytes.Buffer
	outs, err := mysqlslap.RunTargetsContext(context.Background(), c, mysqlslap.Output{Stdout: &stdout, Stderr: &stderr}, dir)
	return run{outs, err, stdout.String(), stderr.String()}
}

func TestComparisonTwoSandboxes(t *testing.T) {
	requireServer(t)
	dir := tempDir(t)
	chartPath := filepath.Join(t.TempDir(), "bp.svg")
	r := runTargets(t, dir, mysqlslap.SandboxOptions{
		Targets: []string{"bp32M:sandbox,innodb_buffer_pool_size=32M", "bp128M:sandbox,innodb_buffer_pool_size=128M"},
		Plot:    chartPath,
	}, "-a", "-e", "innodb,myisam", "-c", "1,4", "-i", "2", "--number-of-queries=200")
	if r.err != nil {
		t.Fatalf("%v\nstderr:\n%s", r.err, r.stderr)
	}
	t.Logf("stdout:\n%s\nstderr:\n%s", r.stdout, r.stderr)
	target.AssertClean(t, dir)

	if len(r.outcomes) != 2 {
		t.Fatalf("%d outcomes, want 2", len(r.outcomes))
	}
	for _, o := range r.outcomes {
		if len(o.Points) != 4 {
			t.Errorf("%s: %d points, want 4 (2 engines × 2 concurrency levels)", o.Target.Label, len(o.Points))
		}
		for _, p := range o.Points {
			if p.Iterations != 2 || p.QPS <= 0 {
				t.Errorf("%s: point %+v: want 2 iterations and queries/s > 0", o.Target.Label, p)
			}
		}
	}
	// Each target's mysqlslap report, then the table.
	for _, want := range []string{"Target: bp32M\n", "Target: bp128M\n", "Running for engine innodb\n", "Running for engine myisam\n",
		"Comparison: 2 targets; seconds = average per iteration, q/s = queries per second, ratio = q/s against bp32M\n",
		"(innodb_buffer_pool_size=32M)\n", "(innodb_buffer_pool_size=128M)\n"} {
		if !strings.Contains(r.stdout, want) {
			t.Errorf("stdout lacks %q", want)
		}
	}
	if n := strings.Count(r.stdout, "Benchmark\n"); n != 8 {
		t.Errorf("%d Benchmark blocks, want 8", n)
	}
	table := r.stdout[strings.Index(r.stdout, "Comparison:"):]
	if !regexp.MustCompile(`(?m)^\s+bp32M\s+bp128M\s*$`).MatchString(table) ||
		!regexp.MustCompile(`(?m)^engine\s+clients\s+seconds\s+q/s\s+seconds\s+q/s\s+ratio\s*$`).MatchString(table) {
		t.Errorf("table headings wrong:\n%s", table)
	}
	row := regexp.MustCompile(`(?m)^(innodb|myisam)\s+(1|4)\s+\d+\.\d{3}\s+\d+\.\d\s+\d+\.\d{3}\s+\d+\.\d\s+\d+\.\d\dx\s*$`)
	if n := len(row.FindAllString(table, -1)); n != 4 {
		t.Errorf("%d table rows, want 4:\n%s", n, table)
	}
	if !strings.Contains(r.stderr, "target bp128M: sandbox stopped and removed") {
		t.Errorf("stderr lacks the stop line:\n%s", r.stderr)
	}

	svg, err := os.ReadFile(chartPath)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{">bp32M innodb<", ">bp32M myisam<", ">bp128M innodb<", ">bp128M myisam<",
		">" + chart.XLabel + "<", ">" + chart.QPSLabel + "<", ">" + chart.ChartTitle + "<",
		// The runner measures every query, so the p99 panel is drawn too.
		">" + chart.LatencyTitle + "<", ">" + chart.LatencyLabel + "<"} {
		if !bytes.Contains(svg, []byte(want)) {
			t.Errorf("chart lacks text %q", want)
		}
	}
	if keep := os.Getenv("GOSLAP_CHART_DIR"); keep != "" {
		// Look at it: GOSLAP_CHART_DIR=/tmp go test ./internal/target -run TwoSandboxes
		if err := chart.WriteFile(filepath.Join(keep, "compare-sandboxes.png"), target.Columns(r.outcomes)); err != nil {
			t.Error(err)
		}
		os.WriteFile(filepath.Join(keep, "compare-sandboxes.txt"), []byte(r.stdout), 0o644)
	}
}

func TestSingleSandboxWithPlot(t *testing.T) {
	requireServer(t)
	dir := tempDir(t)
	chartPath := filepath.Join(t.TempDir(), "one.png")
	r := runTargets(t, dir, mysqlslap.SandboxOptions{SandboxSet: true, Plot: chartPath}, "-a", "-c", "1,2", "-i", "1", "--number-of-queries=20")
	if r.err != nil {
		t.Fatalf("%v\nstderr:\n%s", r.err, r.stderr)
	}
	target.AssertClean(t, dir)
	if strings.Contains(r.stdout, "Comparison") || strings.Contains(r.stdout, "Target:") {
		t.Errorf("a single sandbox prints mysqlslap's report only:\n%s", r.stdout)
	}
	if n := strings.Count(r.stdout, "Benchmark\n"); n != 2 {
		t.Errorf("%d Benchmark blocks, want 2:\n%s", n, r.stdout)
	}
	if b, err := os.ReadFile(chartPath); err != nil || !bytes.HasPrefix(b, []byte("\x89PNG")) {
		t.Errorf("chart not written: %v", err)
	}
}

func TestComparisonFailuresLeaveNothing(t *testing.T) {
	requireServer(t)
	tests := []struct {
		name     string
		sb       mysqlslap.SandboxOptions
		wantErr  []string
		outcomes int
	}{
		{name: "missing binary", sb: mysqlslap.SandboxOptions{Targets: []string{"a:sandbox", "b:sandbox:/nonexistent/mysqld"}},
			wantErr: []string{"goslap: target b: sandbox: server binary not found: /nonexistent/mysqld does not exist"}},
		{name: "missing default binary", sb: mysqlslap.SandboxOptions{SandboxSet: true, Sandbox: "no-such-mysqld"},
			wantErr: []string{`goslap: sandbox: server binary not found: "no-such-mysqld" is not on $PATH`, "apt-get install"}},
		{name: "server fails to start", outcomes: 1,
			sb:      mysqlslap.SandboxOptions{Targets: []string{"ok:sandbox", "bad:sandbox,no_such_server_option=1"}},
			wantErr: []string{"goslap: target bad: sandbox ", " did not start: ", ": unknown variable 'no_such_server_option=1'"}},
		{name: "runner error", sb: mysqlslap.SandboxOptions{Targets: []string{"x:sandbox"}},
			wantErr: []string{"goslap: target x: ", "nosuchengine"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := tempDir(t)
			args := []string{"-a", "-c", "1", "--number-of-queries=5"}
			if tt.name == "runner error" {
				args = append(args, "-e", "nosuchengine") // CREATE TABLE fails: the runner returns an error
			}
			r := runTargets(t, dir, tt.sb, args...)
			var ee *mysqlslap.ExitError
			if !errors.As(r.err, &ee) || ee.Code != 1 {
				t.Fatalf("error = %#v, want an ExitError with status 1\nstdout:\n%s", r.err, r.stdout)
			}
			for _, w := range tt.wantErr {
				if !strings.Contains(ee.Msg, w) {
					t.Errorf("error %q lacks %q", ee.Msg, w)
				}
			}
			if len(r.outcomes) != tt.outcomes {
				t.Errorf("%d outcomes, want %d", len(r.outcomes), tt.outcomes)
			}
			target.AssertClean(t, dir)
		})
	}
}

// TestInterruptChild is the goslap process of TestInterrupt (a re-executed
// test binary); it does nothing in a normal test run.
func TestInterruptChild(t *testing.T) {
	if os.Getenv("GOSLAP_INTERRUPT_CHILD") != "1" {
		t.Skip("helper process for TestInterrupt")
	}
	args := strings.Split(os.Getenv("GOSLAP_ARGS"), "\x1f")
	o, err := mysqlslap.ParseCommandLine(append([]string{"--no-defaults"}, args...), mysqlslap.Env{Getenv: func(string) string { return "" }, UserName: "root"})
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(2)
	}
	o.Ext.Sandbox = mysqlslap.SandboxOptions{Targets: strings.Split(os.Getenv("GOSLAP_TARGETS"), "\x1f")}
	c, err := mysqlslap.Validate(o, mysqlslap.Env{Stdout: os.Stdout})
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(2)
	}
	_, err = mysqlslap.RunTargets(c, mysqlslap.Output{Stdout: os.Stdout, Stderr: os.Stderr})
	var ee *mysqlslap.ExitError
	if errors.As(err, &ee) {
		fmt.Fprintln(os.Stderr, ee.Msg)
		os.Exit(ee.Code)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	os.Exit(0)
}

// TestInterrupt sends SIGINT to a goslap comparison (a child process) at
// different moments and checks that it exits with status 130 leaving no
// server process and no sandbox directory.
func TestInterrupt(t *testing.T) {
	requireServer(t)
	tests := []struct {
		name   string
		stream string // where the trigger line appears
		when   string // SIGINT when a line contains this
		delay  time.Duration
	}{
		{name: "during the benchmark", stream: "stdout", when: "Target: a", delay: 700 * time.Millisecond},
		{name: "during sandbox start-up", stream: "stderr", when: "starting sandbox", delay: 300 * time.Millisecond},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := tempDir(t)
			cmd := exec.Command(os.Args[0], "-test.run=^TestInterruptChild$", "-test.v")
			cmd.Env = append(os.Environ(), "GOSLAP_INTERRUPT_CHILD=1", "TMPDIR="+dir,
				"GOSLAP_ARGS="+strings.Join([]string{"-a", "--auto-generate-sql-load-type=write", "-c", "4", "-i", "3", "--number-of-queries=4000000"}, "\x1f"),
				"GOSLAP_TARGETS="+strings.Join([]string{"a:sandbox", "b:sandbox"}, "\x1f"))
			stdout, _ := cmd.StdoutPipe()
			stderr, _ := cmd.StderrPipe()
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			lines := make(chan string, 100)
			var logs [2]bytes.Buffer
			scan := func(r io.Reader, name string, buf *bytes.Buffer) {
				sc := bufio.NewScanner(r)
				for sc.Scan() {
					buf.WriteString(sc.Text() + "\n")
					if name == tt.stream {
						select {
						case lines <- sc.Text():
						default:
						}
					}
				}
			}
			done := make(chan struct{}, 2)
			go func() { scan(stdout, "stdout", &logs[0]); done <- struct{}{} }()
			go func() { scan(stderr, "stderr", &logs[1]); done <- struct{}{} }()

			timeout := time.After(60 * time.Second)
		wait:
			for {
				select {
				case l := <-lines:
					if strings.Contains(l, tt.when) {
						break wait
					}
				case <-timeout:
					cmd.Process.Kill()
					t.Fatal("the trigger line never came")
				}
			}
			time.Sleep(tt.delay)
			if err := cmd.Process.Signal(syscall.SIGINT); err != nil {
				t.Fatal(err)
			}
			sent := time.Now()
			<-done
			<-done
			err := cmd.Wait()
			if d := time.Since(sent); d > 15*time.Second {
				t.Errorf("goslap took %v to exit after SIGINT", d)
			}
			t.Logf("exited %v after SIGINT in %v\nstdout:\n%s\nstderr:\n%s", err, time.Since(sent), &logs[0], &logs[1])
			var xe *exec.ExitError
			if !errors.As(err, &xe) || xe.ExitCode() != 130 {
				t.Errorf("exit = %v, want status 130", err)
			}
			if !strings.Contains(logs[1].String(), "goslap: interrupted") {
				t.Error("stderr lacks 'goslap: interrupted'")
			}
			if strings.Contains(logs[1].String(), "target b:") {
				t.Error("the second target was started after the interrupt")
			}
			target.AssertClean(t, dir)
		})
	}
}
