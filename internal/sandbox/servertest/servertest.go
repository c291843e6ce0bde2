// Package servertest gives a test package one private server (see package
// sandbox) for all its tests: start it in TestMain, fetch it with Require.
// It is separate from sandbox so that goslap's binary, which uses
// sandbox for --sandbox, does not link package testing.
package servertest

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"os/signal"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/goslap/goslap/internal/sandbox"
)

// shared is the package's server, set by Main; nil when none could be started.
var (
	shared    *sandbox.Server
	sharedErr error // why shared is nil
)

// Main is for a test package's TestMain: it starts one server for the whole
// package, calls setup (if not nil) with it, runs the tests and stops the
// server. If no server binary exists, tests run anyway and each test that
// calls Require skips — except under CI=true, where Main fails at once.
// Main does not return.
//
//	func TestMain(m *testing.M) { servertest.Main(m, sandbox.Config{}, nil) }
func Main(m *testing.M, cfg sandbox.Config, setup func(*sandbox.Server) error) {
	os.Exit(Run(m, cfg, setup))
}

// Run is Main without the os.Exit, for a TestMain with its own clean-up: it
// returns the exit status for the test binary.
func Run(m *testing.M, cfg sandbox.Config, setup func(*sandbox.Server) error) int {
	if os.Getenv(childDSN) != "" {
		// An UntimedChild: its test uses the parent's server.
		return m.Run()
	}
	s, err := sandbox.Start(cfg)
	switch {
	case err == nil:
	case errors.Is(err, sandbox.ErrNoServerBinary) && !sandbox.InCI():
		sharedErr = fmt.Errorf("%w; tests that need a server are skipped (install one with: %s)", err, sandbox.InstallHint)
		fmt.Fprintln(os.Stderr, "sandbox:", sharedErr)
		return m.Run()
	default:
		fmt.Fprintf(os.Stderr, "sandbox: cannot start a test server: %v\n", err)
		if errors.Is(err, sandbox.ErrNoServerBinary) {
			fmt.Fprintf(os.Stderr, "sandbox: install one with: %s\n", sandbox.InstallHint)
		}
		return 1
	}
	// An interrupted `go test` must not leave a server and its data behind.
	sigs := make(chan os.Signal, 1)
	signal.Notify(sigs, os.Interrupt, syscall.SIGTERM)
	go func() {
		if _, ok := <-sigs; ok {
			_ = s.Stop()
			os.Exit(130)
		}
	}()
	defer func() {
		signal.Stop(sigs)
		close(sigs)
		if err := s.Stop(); err != nil {
			fmt.Fprintln(os.Stderr, "sandbox:", err)
		}
	}()
	if setup != nil {
		if err := setup(s); err != nil {
			fmt.Fprintf(os.Stderr, "sandbox: setup failed: %v\n", err)
			return 1
		}
	}
	shared = s
	return m.Run()
}

// Require returns the package's server started by Main. Without one it skips
// the test, or fails it under CI=true.
func Require(tb testing.TB) *sandbox.Server {
	tb.Helper()
	if shared != nil {
		return shared
	}
	msg := "no test server: TestMain did not call servertest.Main"
	if sharedErr != nil {
		msg = sharedErr.Error()
	}
	if sandbox.InCI() {
		tb.Fatal(msg)
	}
	tb.Skip(msg)
	return nil
}

// childDSN hands the package server's DSN to an UntimedChild.
const childDSN = "GOSLAP_TEST_UNTIMED_CHILD_DSN"

// UntimedChild runs the calling test again in a child test binary started
// with -test.timeout=0, handing it the package server's DSN: the test
// binary's own time-out is a runtime timer pending all along, which a
// measurement of wake-ups per reply must not have. In the child it returns
// the DSN; in the parent it waits for the child (2 minutes at most), fails
// the test when the child failed, logs the child's lines that contain
// logMatch and returns "".
func UntimedChild(t *testing.T, logMatch string) string {
	t.Helper()
	if dsn := os.Getenv(childDSN); dsn != "" {
		return dsn
	}
	s := Require(t)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, os.Args[0], "-test.run=^"+regexp.QuoteMeta(t.Name())+"$",
		"-test.timeout=0", "-test.count=1", "-test.v")
	cmd.Env = append(os.Environ(), childDSN+"="+s.RootConfig("").FormatDSN())
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("the measuring child: %v\n%s", err, out)
	}
	for _, l := range strings.Split(string(out), "\n") {
		if strings.Contains(l, logMatch) {
			t.Log(strings.TrimSpace(l))
		}
	}
	return ""
}
