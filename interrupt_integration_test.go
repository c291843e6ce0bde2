package main

// Interrupts of every front end, observed on the real goslap binary: a
// signal during a long prepare or load ends it within 5 s, exit 130,
// stderr ending "goslap: interrupted", no Go stack trace.

import (
	"bytes"
	"database/sql"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/goslap/goslap/internal/sandbox"
	"github.com/goslap/goslap/internal/sandbox/servertest"
)

var binary string // built by TestMain

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "goslap-bin-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	code := servertest.Run(m, sandbox.Config{}, func(*sandbox.Server) error {
		goTool, err := exec.LookPath("go")
		if err != nil {
			goTool = filepath.Join(runtime.GOROOT(), "bin", "go")
		}
		binary = filepath.Join(dir, "goslap")
		if out, err := exec.Command(goTool, "build", "-o", binary, ".").CombinedOutput(); err != nil {
			return fmt.Errorf("go build: %v\n%s", err, out)
		}
		return nil
	})
	os.RemoveAll(dir)
	os.Exit(code)
}

// TestInterruptEndsEveryPrepare: SIGINT and SIGTERM during a prepare of
// each front end (20000 small tables, or a 2-warehouse TPC-C load), and
// SIGHUP and SIGQUIT for goslap sysbench.
func TestInterruptEndsEveryPrepare(t *testing.T) {
	s := servertest.Require(t)
	db, err := s.OpenDB("")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	type frontEnd struct {
		name string
		args func(schema string) []string
		// started: the table whose existence says the work is under way.
		started string
	}
	fronts := []frontEnd{
		{"--workload=oltp_read_only prepare", func(schema string) []string {
			return []string{"--no-defaults", "-S", s.Socket, "-uroot", "--create-schema=" + schema,
				"--workload=oltp_read_only", "--tables=20000", "--table-size=1", "prepare"}
		}, "sbtest1"},
		{"sysbench oltp_read_only prepare", func(schema string) []string {
			return []string{"sysbench", "oltp_read_only", "--mysql-socket=" + s.Socket, "--mysql-user=root",
				"--mysql-db=" + schema, "--tables=20000", "--table-size=1", "prepare"}
		}, "sbtest1"},
		{"tpcc-load -w 2", func(schema string) []string {
			return []string{"tpcc-load", "-S", s.Socket, "-u", "root", "-d", schema, "-w", "2"}
		}, "stock"},
		{"--workload=tpcc prepare", func(schema string) []string {
			return []string{"--no-defaults", "-S", s.Socket, "-uroot", "--create-schema=" + schema,
				"--workload=tpcc", "--warehouses=2", "prepare"}
		}, "stock"},
	}
	n := 0
	for _, f := range fronts {
		sigs := []syscall.Signal{syscall.SIGINT, syscall.SIGTERM}
		if strings.HasPrefix(f.name, "sysbench") {
			// A closed terminal, and Ctrl-\ (a goroutine dump before).
			sigs = append(sigs, syscall.SIGHUP, syscall.SIGQUIT)
		}
		for _, sig := range sigs {
			n++
			schema := fmt.Sprintf("goslap_int%d", n)
			t.Run(f.name+" "+sig.String(), func(t *testing.T) {
				t.Parallel()
				if _, err := db.Exec("CREATE DATABASE " + schema); err != nil {
					t.Fatal(err)
				}
				defer db.Exec("DROP DATABASE IF EXISTS " + schema)
				cmd := exec.Command(binary, f.args(schema)...)
				var stdout, stderr lockedBuffer
				cmd.Stdout, cmd.Stderr = &stdout, &stderr
				if err := cmd.Start(); err != nil {
					t.Fatal(err)
				}
				defer cmd.Process.Kill()
				for deadline := time.Now().Add(30 * time.Second); !tableExists(t, db, schema, f.started); time.Sleep(20 * time.Millisecond) {
					if time.Now().After(deadline) {
						t.Fatalf("the prepare did not start; stderr: %s", stderr.String())
					}
				}
				time.Sleep(700 * time.Millisecond)
				start := time.Now()
				cmd.Process.Signal(sig)
				err := cmd.Wait()
				took := time.Since(start)
				var exitErr *exec.ExitError
				if !errors.As(err, &exitErr) || exitErr.ExitCode() != 130 {
					t.Errorf("exit: %v, want status 130; stderr: %s", err, stderr.String())
				}
				if took > 5*time.Second {
					t.Errorf("exited %v after %v, want within 5 s", took.Round(time.Millisecond), sig)
				}
				errText := stderr.String()
				if !strings.HasSuffix(errText, "goslap: interrupted\n") {
					t.Errorf("stderr does not end with 'goslap: interrupted': %q", tail(errText))
				}
				if strings.Contains(errText, "goroutine ") || strings.Contains(stdout.String(), "goroutine ") {
					t.Errorf("a Go stack trace: %s", errText)
				}
				if strings.Contains(errText+stdout.String(), "context canceled") {
					t.Errorf("'context canceled' printed: %s", errText)
				}
				// What was created is dropped, or the output says what is left.
				if left := tableCount(t, db, schema); left > 0 && !strings.Contains(errText, "left") {
					t.Errorf("%d tables left in %s and stderr does not say so: %q", left, schema, tail(errText))
				}
				t.Logf("exit after %v; tables left: %d; stderr tail: %q", took.Round(time.Millisecond), tableCount(t, db, schema), tail(errText))
			})
		}
	}
}

func tableExists(t *testing.T, db *sql.DB, schema, table string) bool {
	t.Helper()
	var n int
	if err := db.QueryRow("SELECT COUNT(*) FROM information_schema.TABLES WHERE TABLE_SCHEMA = ? AND TABLE_NAME = ?", schema, table).Scan(&n); err != nil {
		t.Fatal(err)
	}
	return n == 1
}

func tableCount(t *testing.T, db *sql.DB, schema string) int {
	t.Helper()
	var n int
	if err := db.QueryRow("SELECT COUNT(*) FROM information_schema.TABLES WHERE TABLE_SCHEMA = ?", schema).Scan(&n); err != nil {
		t.Fatal(err)
	}
	return n
}

// tail is the last lines of a command's output, for messages.
func tail(s string) string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	if len(lines) > 4 {
		lines = lines[len(lines)-4:]
	}
	return strings.Join(lines, "\n")
}

// TestInterruptDuringBlockedCleanup: the clean-up after an interrupted
// prepare waits on a table another session holds; a second signal ends
// goslap at once, and without one the clean-up's time limit does; both
// say what may be left. (The forced exit at interrupt.HardDeadline, for a
// clean-up that ignores its limit, is internal/interrupt's test.)
func TestInterruptDuringBlockedCleanup(t *testing.T) {
	s := servertest.Require(t)
	db, err := s.OpenDB("")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	for i, tc := range []struct {
		name    string
		second  bool
		within  time.Duration
		message string
	}{
		{"second SIGINT", true, 1500 * time.Millisecond, "goslap: interrupted again: exiting without finishing the clean-up; tables this prepare created in schema %s may be left: run cleanup\n"},
		// The clean-up's time limit (3.5 s after the signal) cuts the
		// waiting DROP: goslap ends by itself, before the forced exit.
		{"clean-up past its time", false, 4 * time.Second, "goslap: the clean-up after the interrupt ran out of time; tables this prepare created in schema %s may be left: run cleanup\n"},
	} {
		schema := fmt.Sprintf("goslap_blocked%d", i)
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			if _, err := db.Exec("CREATE DATABASE " + schema); err != nil {
				t.Fatal(err)
			}
			defer db.Exec("DROP DATABASE IF EXISTS " + schema)
			cmd := exec.Command(binary, "sysbench", "oltp_read_only", "--mysql-socket="+s.Socket, "--mysql-user=root",
				"--mysql-db="+schema, "--tables=20000", "--table-size=1", "prepare")
			var stderr lockedBuffer
			cmd.Stderr = &stderr
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			defer cmd.Process.Kill()
			for deadline := time.Now().Add(30 * time.Second); !tableExists(t, db, schema, "sbtest1"); time.Sleep(20 * time.Millisecond) {
				if time.Now().After(deadline) {
					t.Fatalf("the prepare did not start; stderr: %s", stderr.String())
				}
			}
			// An open transaction that read sbtest1 holds its metadata
			// lock: DROP TABLE sbtest1 waits for it.
			ctx := t.Context()
			holder, err := db.Conn(ctx)
			if err != nil {
				t.Fatal(err)
			}
			defer holder.Close()
			if _, err := holder.ExecContext(ctx, "BEGIN"); err != nil {
				t.Fatal(err)
			}
			defer holder.ExecContext(ctx, "ROLLBACK")
			var n int
			if err := holder.QueryRowContext(ctx, "SELECT COUNT(*) FROM "+schema+".sbtest1").Scan(&n); err != nil {
				t.Fatal(err)
			}
			time.Sleep(300 * time.Millisecond)
			cmd.Process.Signal(syscall.SIGINT)
			start := time.Now()
			if tc.second {
				time.Sleep(500 * time.Millisecond)
				start = time.Now()
				cmd.Process.Signal(syscall.SIGINT)
			}
			err = cmd.Wait()
			took := time.Since(start)
			var exitErr *exec.ExitError
			if !errors.As(err, &exitErr) || exitErr.ExitCode() != 130 {
				t.Errorf("exit: %v, want status 130; stderr: %s", err, stderr.String())
			}
			if took > tc.within {
				t.Errorf("exited %v after the last signal, want within %v", took.Round(time.Millisecond), tc.within)
			}
			want := fmt.Sprintf(tc.message, schema) + "goslap: interrupted\n"
			if !strings.HasSuffix(stderr.String(), want) {
				t.Errorf("stderr ends %q, want %q", tail(stderr.String()), want)
			}
		})
	}
}

// TestInterruptDuringCleanupCommand: a cleanup whose DROP waits on a
// table another session holds ends soon after SIGINT (the DROP in flight
// is cut), exit 130, for the sysbench and --workload front ends.
func TestInterruptDuringCleanupCommand(t *testing.T) {
	s := servertest.Require(t)
	db, err := s.OpenDB("")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	for i, tc := range []struct {
		name string
		args func(schema, phase string) []string
	}{
		{"sysbench cleanup", func(schema, phase string) []string {
			return []string{"sysbench", "oltp_read_only", "--mysql-socket=" + s.Socket, "--mysql-user=root",
				"--mysql-db=" + schema, "--tables=3", "--table-size=1", phase}
		}},
		{"--workload cleanup", func(schema, phase string) []string {
			return []string{"--no-defaults", "-S", s.Socket, "-uroot", "--create-schema=" + schema,
				"--workload=oltp_read_only", "--tables=3", "--table-size=1", phase}
		}},
	} {
		schema := fmt.Sprintf("goslap_cleanup%d", i)
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			if _, err := db.Exec("CREATE DATABASE " + schema); err != nil {
				t.Fatal(err)
			}
			defer db.Exec("DROP DATABASE IF EXISTS " + schema)
			if out, err := exec.Command(binary, tc.args(schema, "prepare")...).CombinedOutput(); err != nil {
				t.Fatalf("prepare: %v\n%s", err, out)
			}
			ctx := t.Context()
			holder, err := db.Conn(ctx)
			if err != nil {
				t.Fatal(err)
			}
			defer holder.Close()
			if _, err := holder.ExecContext(ctx, "BEGIN"); err != nil {
				t.Fatal(err)
			}
			defer holder.ExecContext(ctx, "ROLLBACK")
			var n int
			if err := holder.QueryRowContext(ctx, "SELECT COUNT(*) FROM "+schema+".sbtest1").Scan(&n); err != nil {
				t.Fatal(err)
			}
			cmd := exec.Command(binary, tc.args(schema, "cleanup")...)
			var stderr lockedBuffer
			cmd.Stderr = &stderr
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			defer cmd.Process.Kill()
			// Until the DROP waits for the metadata lock.
			for deadline := time.Now().Add(20 * time.Second); ; time.Sleep(20 * time.Millisecond) {
				var waiting int
				if err := db.QueryRow("SELECT COUNT(*) FROM information_schema.PROCESSLIST WHERE DB = ? AND INFO LIKE 'DROP TABLE%'", schema).Scan(&waiting); err != nil {
					t.Fatal(err)
				}
				if waiting > 0 {
					break
				}
				if time.Now().After(deadline) {
					t.Fatalf("the cleanup's DROP never waited; stderr: %s", stderr.String())
				}
			}
			start := time.Now()
			cmd.Process.Signal(syscall.SIGINT)
			err = cmd.Wait()
			took := time.Since(start)
			var exitErr *exec.ExitError
			if !errors.As(err, &exitErr) || exitErr.ExitCode() != 130 {
				t.Errorf("exit: %v, want status 130; stderr: %s", err, stderr.String())
			}
			if took > 2*time.Second {
				t.Errorf("exited %v after SIGINT, want within 2 s", took.Round(time.Millisecond))
			}
			want := "goslap: tables of schema " + schema + " not dropped yet are left: run cleanup again\ngoslap: interrupted\n"
			if !strings.HasSuffix(stderr.String(), want) {
				t.Errorf("stderr ends %q, want %q", tail(stderr.String()), want)
			}
		})
	}
}

// TestInterruptDuringSysbenchRun: goslap sysbench's run ends as every
// interrupt does (it said "FATAL: interrupted: no report", exit 1).
func TestInterruptDuringSysbenchRun(t *testing.T) {
	s := servertest.Require(t)
	db, err := s.OpenDB("")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	const schema = "goslap_sbrun"
	if _, err := db.Exec("CREATE DATABASE " + schema); err != nil {
		t.Fatal(err)
	}
	defer db.Exec("DROP DATABASE IF EXISTS " + schema)
	args := func(phase string, more ...string) []string {
		return append([]string{"sysbench", "oltp_read_only", "--mysql-socket=" + s.Socket, "--mysql-user=root",
			"--mysql-db=" + schema, "--tables=1", "--table-size=100", phase}, more...)
	}
	if out, err := exec.Command(binary, args("prepare")...).CombinedOutput(); err != nil {
		t.Fatalf("prepare: %v\n%s", err, out)
	}
	cmd := exec.Command(binary, args("run", "--time=60", "--threads=2")...)
	var stdout, stderr lockedBuffer // read while the command writes
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer cmd.Process.Kill()
	for deadline := time.Now().Add(20 * time.Second); !strings.Contains(stdout.String(), "Threads started!"); time.Sleep(20 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("the run did not start; stderr: %s", stderr.String())
		}
	}
	time.Sleep(300 * time.Millisecond)
	start := time.Now()
	cmd.Process.Signal(syscall.SIGTERM)
	err = cmd.Wait()
	took := time.Since(start)
	var exitErr *exec.ExitError
	if !errors.As(err, &exitErr) || exitErr.ExitCode() != 130 {
		t.Errorf("exit: %v, want status 130; stdout: %s\nstderr: %s", err, stdout.String(), stderr.String())
	}
	if took > 5*time.Second {
		t.Errorf("exited %v after SIGTERM", took)
	}
	if stderr.String() != "goslap: interrupted\n" || strings.Contains(stdout.String(), "FATAL") {
		t.Errorf("stderr %q, stdout tail %q", stderr.String(), tail(stdout.String()))
	}
	if tableCount(t, db, schema) != 1 {
		t.Error("the run's interrupt changed the prepared tables")
	}
}

// lockedBuffer is a bytes.Buffer a running command writes and the test
// reads.
type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}
