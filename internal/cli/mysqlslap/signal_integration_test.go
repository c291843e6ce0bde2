package mysqlslap

import (
	"bufio"
	"bytes"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/goslap/goslap/internal/sandbox"
	"github.com/goslap/goslap/internal/sandbox/servertest"
)

var (
	binaryOnce sync.Once
	binaryDir  string
	binaryPath string
	binaryErr  error
)

// goslapBinary builds the goslap command once per test run: signal
// handling is only observable in a real process.
func goslapBinary(t *testing.T) string {
	t.Helper()
	binaryOnce.Do(func() {
		goTool, err := exec.LookPath("go")
		if err != nil {
			goTool = filepath.Join(runtime.GOROOT(), "bin", "go")
		}
		dir, err := os.MkdirTemp("", "goslap-bin-")
		if err != nil {
			binaryErr = err
			return
		}
		binaryDir = dir
		binaryPath = filepath.Join(dir, "goslap")
		out, err := exec.Command(goTool, "build", "-o", binaryPath, "github.com/goslap/goslap").CombinedOutput()
		if err != nil {
			binaryErr = errors.New("go build: " + err.Error() + "\n" + string(out))
		}
	})
	if binaryErr != nil {
		t.Fatal(binaryErr)
	}
	return binaryPath
}

// removeBinary deletes the binary goslapBinary built (called by TestMain).
func removeBinary() {
	if binaryDir != "" {
		os.RemoveAll(binaryDir)
	}
}

func TestBinaryInterruptedBySignal(t *testing.T) {
	s := servertest.Require(t)
	t.Parallel()
	db := rootDB(t, s)
	bin := goslapBinary(t)
	tests := []struct {
		name    string
		query   string
		sig     syscall.Signal
		signals int
		within  time.Duration
	}{
		{"SIGINT between statements", "SELECT SLEEP(0.01)", syscall.SIGINT, 1, 5 * time.Second},
		{"SIGTERM inside a long statement", "SELECT SLEEP(60)", syscall.SIGTERM, 1, 5 * time.Second},
		{"second SIGINT exits at once", "SELECT SLEEP(60)", syscall.SIGINT, 2, 2 * time.Second},
		// A closed terminal or ssh session.
		{"SIGHUP inside a long statement", "SELECT SLEEP(60)", syscall.SIGHUP, 1, 5 * time.Second},
		{"SIGQUIT between statements", "SELECT SLEEP(0.01)", syscall.SIGQUIT, 1, 5 * time.Second},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			schema := slapOptions(t, s).CreateSchema
			cmd := exec.Command(bin, "--no-defaults", "-S", s.Socket, "-uroot", "--create-schema="+schema,
				"--create=create table t(a int)", "-q", tc.query, "-c", "4",
				"--auto-generate-sql-execute-number=100000")
			var stderr bytes.Buffer
			cmd.Stderr = &stderr
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			// Wait until the load is running: the schema exists.
			for deadline := time.Now().Add(10 * time.Second); !schemaExists(t, db, schema); {
				if time.Now().After(deadline) {
					cmd.Process.Kill()
					t.Fatalf("run did not start; stderr: %s", stderr.String())
				}
				time.Sleep(20 * time.Millisecond)
			}
			time.Sleep(200 * time.Millisecond)
			start := time.Now()
			for n := 0; n < tc.signals; n++ {
				cmd.Process.Signal(tc.sig)
				time.Sleep(50 * time.Millisecond)
			}
			err := cmd.Wait()
			took := time.Since(start)
			var exitErr *exec.ExitError
			if !errors.As(err, &exitErr) || exitErr.ExitCode() != 130 {
				t.Errorf("exit: %v, want status 130; stderr: %s", err, stderr.String())
			}
			if took > tc.within {
				t.Errorf("exited %v after the signal, want within %v", took, tc.within)
			}
			if tc.signals == 1 && schemaExists(t, db, schema) {
				t.Errorf("schema %s not dropped after the interrupt", schema)
			}
			if strings.Contains(stderr.String(), "goroutine ") {
				t.Errorf("stderr has a goroutine dump: %s", stderr.String())
			}
			dropAfter(t, db, schema)
		})
	}
}

// TestBinaryStdoutReaderGone: when the reader of stdout has gone (`goslap |
// tee log` in a closed ssh session), a write must fail as an error that
// cleans up, not kill goslap with SIGPIPE and leave the schema behind.
func TestBinaryStdoutReaderGone(t *testing.T) {
	s := servertest.Require(t)
	t.Parallel()
	db := rootDB(t, s)
	schema := slapOptions(t, s).CreateSchema
	dropAfter(t, db, schema)
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	r.Close()
	defer w.Close()
	// The first Benchmark block is flushed before the second concurrency
	// value's --pre-system runs, while the schema exists.
	cmd := exec.Command(goslapBinary(t), "--no-defaults", "-S", s.Socket, "-uroot", "--create-schema="+schema,
		"--create=create table t(a int)", "-q", "select 1", "-c", "1,1", "--pre-system=true")
	var stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = w, &stderr
	err = cmd.Run()
	var exitErr *exec.ExitError
	if !errors.As(err, &exitErr) || exitErr.ExitCode() != 1 {
		t.Errorf("exit: %v, want status 1; stderr: %s", err, stderr.String())
	}
	if !strings.Contains(stderr.String(), "broken pipe") {
		t.Errorf("stderr %q does not name the broken pipe", stderr.String())
	}
	if schemaExists(t, db, schema) {
		t.Errorf("schema %s left behind", schema)
	}
}

// TestBinarySandboxDoesNotOutliveGoslap: however goslap ends, its sandbox
// server stops; on a signal goslap can catch it also removes the sandbox's
// directory, and after SIGKILL the next sandbox start sweeps it away.
func TestBinarySandboxDoesNotOutliveGoslap(t *testing.T) {
	servertest.Require(t)
	t.Parallel()
	bin := goslapBinary(t)
	for _, sig := range []syscall.Signal{syscall.SIGHUP, syscall.SIGKILL} {
		t.Run(sig.String(), func(t *testing.T) {
			tmp, err := os.MkdirTemp("", "gsb") // short: the socket path is limited
			if err != nil {
				t.Fatal(err)
			}
			defer os.RemoveAll(tmp)
			cmd := exec.Command(bin, "--no-defaults", "--sandbox", "--create=create table t(a int)",
				"-q", "SELECT SLEEP(60)", "-c", "2")
			cmd.Env = append(os.Environ(), "TMPDIR="+tmp)
			stderr, err := cmd.StderrPipe()
			if err != nil {
				t.Fatal(err)
			}
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			defer cmd.Process.Kill()
			up := make(chan struct{})
			var lines bytes.Buffer
			var mu sync.Mutex
			go func() {
				sc := bufio.NewScanner(stderr)
				for sc.Scan() {
					mu.Lock()
					lines.WriteString(sc.Text() + "\n")
					mu.Unlock()
					if strings.Contains(sc.Text(), " up in ") {
						close(up)
					}
				}
			}()
			select {
			case <-up:
			case <-time.After(60 * time.Second):
				t.Fatal("the sandbox did not come up")
			}
			dirs, _ := filepath.Glob(filepath.Join(tmp, "goslap-server-*"))
			if len(dirs) != 1 {
				t.Fatalf("sandbox directories %v, want one", dirs)
			}
			pidText, err := os.ReadFile(filepath.Join(dirs[0], "mysqld.pid"))
			if err != nil {
				t.Fatal(err)
			}
			serverPid, _ := strconv.Atoi(strings.TrimSpace(string(pidText)))
			time.Sleep(300 * time.Millisecond) // into the load
			cmd.Process.Signal(sig)
			err = cmd.Wait()
			mu.Lock()
			out := lines.String()
			mu.Unlock()
			var exitErr *exec.ExitError
			if sig != syscall.SIGKILL && (!errors.As(err, &exitErr) || exitErr.ExitCode() != 130) {
				t.Errorf("exit: %v, want status 130; stderr: %s", err, out)
			}
			// The server is not our child: it is gone once signal 0 fails.
			for deadline := time.Now().Add(10 * time.Second); syscall.Kill(serverPid, 0) == nil; time.Sleep(50 * time.Millisecond) {
				if time.Now().After(deadline) {
					syscall.Kill(serverPid, syscall.SIGKILL)
					t.Fatalf("sandbox server %d still runs 10 s after goslap ended", serverPid)
				}
			}
			if sig == syscall.SIGKILL {
				// What the next sandbox start does first.
				if swept := sandbox.SweepStale(tmp); len(swept) != 1 || swept[0] != dirs[0] {
					t.Errorf("SweepStale removed %v, want %s", swept, dirs[0])
				}
			}
			if _, err := os.Stat(dirs[0]); !os.IsNotExist(err) {
				t.Errorf("sandbox directory %s still exists (%v); stderr: %s", dirs[0], err, out)
			}
		})
	}
}

// TestBinaryInterruptedInSystemHook: a signal while a --pre-system or
// --post-system command runs ends the command and everything it started,
// then cleans up and exits 130 as any interrupt does.
func TestBinaryInterruptedInSystemHook(t *testing.T) {
	s := servertest.Require(t)
	t.Parallel()
	db := rootDB(t, s)
	bin := goslapBinary(t)
	for _, tc := range []struct {
		name string
		args []string
		sig  syscall.Signal
	}{
		{"SIGTERM in --pre-system", []string{"--pre-system=HOOK"}, syscall.SIGTERM},
		{"SIGINT in --post-system", []string{"--post-system=HOOK"}, syscall.SIGINT},
		{"SIGHUP in --only-print --pre-system", []string{"--only-print", "--pre-system=HOOK"}, syscall.SIGHUP},
	} {
		t.Run(tc.name, func(t *testing.T) {
			schema := slapOptions(t, s).CreateSchema
			dropAfter(t, db, schema)
			pidFile := filepath.Join(t.TempDir(), "hook.pid")
			// The shell records its pid, the id of its process group, and
			// waits on a child of its own.
			hook := "echo $$ > " + pidFile + "; sleep 60; echo done"
			args := []string{"--no-defaults", "-S", s.Socket, "-uroot", "--create-schema=" + schema,
				"--create=create table t(a int)", "-q", "select 1"}
			for _, a := range tc.args {
				args = append(args, strings.ReplaceAll(a, "HOOK", hook))
			}
			cmd := exec.Command(bin, args...)
			var stdout, stderr bytes.Buffer
			cmd.Stdout, cmd.Stderr = &stdout, &stderr
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			defer cmd.Process.Kill()
			var pgid int
			for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(20 * time.Millisecond) {
				if b, err := os.ReadFile(pidFile); err == nil && strings.HasSuffix(string(b), "\n") {
					pgid, _ = strconv.Atoi(strings.TrimSpace(string(b)))
					break
				}
				if time.Now().After(deadline) {
					t.Fatalf("the hook did not start; stderr: %s", stderr.String())
				}
			}
			defer syscall.Kill(-pgid, syscall.SIGKILL)
			time.Sleep(100 * time.Millisecond)
			start := time.Now()
			cmd.Process.Signal(tc.sig)
			err := cmd.Wait()
			took := time.Since(start)
			var exitErr *exec.ExitError
			if !errors.As(err, &exitErr) || exitErr.ExitCode() != 130 {
				t.Errorf("exit: %v, want status 130; stderr: %s", err, stderr.String())
			}
			if took > 3*time.Second {
				t.Errorf("exited %v after the signal, want within 3 s", took)
			}
			if live := groupMembers(pgid); len(live) > 0 {
				t.Errorf("the hook's process group %d still has %v", pgid, live)
			}
			if schemaExists(t, db, schema) {
				t.Errorf("schema %s not dropped after the interrupt", schema)
			}
			if strings.Contains(stdout.String(), "done") {
				t.Errorf("the hook ran to its end: %q", stdout.String())
			}
		})
	}
}

// groupMembers lists the live processes (not zombies, which only wait for
// their reaper) of process group pgid, from /proc.
func groupMembers(pgid int) []string {
	stats, _ := filepath.Glob("/proc/[0-9]*/stat")
	var live []string
	for _, f := range stats {
		b, err := os.ReadFile(f)
		if err != nil {
			continue
		}
		i := bytes.LastIndexByte(b, ')')
		if i < 0 {
			continue
		}
		fields := strings.Fields(string(b[i+1:])) // state, ppid, pgrp, ...
		if len(fields) > 2 && fields[0] != "Z" && fields[2] == strconv.Itoa(pgid) {
			live = append(live, string(b[:i+1]))
		}
	}
	return live
}
