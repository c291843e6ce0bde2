package mysqld

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// hungBinary writes a "server" whose --version never answers: a shell
// script that starts a child holding its output and waits for it. It
// returns the script and the file the child's pid is written to.
func hungBinary(t *testing.T) (bin, childPid string) {
	t.Helper()
	dir := t.TempDir()
	bin, childPid = filepath.Join(dir, "mariadbd"), filepath.Join(dir, "child.pid")
	// The pid file appears whole (written, then renamed): a test that
	// cancels as soon as it exists read it empty once, the shell having
	// been killed between creating it and writing the pid.
	script := "#!/bin/sh\nsleep 1000 &\necho $! > '" + childPid + ".tmp'\nmv '" + childPid + ".tmp' '" + childPid + "'\nwait\n"
	if err := os.WriteFile(bin, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	return bin, childPid
}

// processGone waits (up to 2 s) until the process in pidFile has ended.
func processGone(t *testing.T, pidFile string) bool {
	t.Helper()
	b, err := os.ReadFile(pidFile)
	if err != nil {
		t.Fatalf("the child's pid was never written: %v", err)
	}
	pid, err := strconv.Atoi(strings.TrimSpace(string(b)))
	if err != nil {
		t.Fatal(err)
	}
	for deadline := time.Now().Add(2 * time.Second); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		stat, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
		// A zombie has ended; only its parent (or init) has not read its status.
		if err != nil || strings.Contains(string(stat), ") Z ") {
			return true
		}
	}
	_ = syscall.Kill(pid, syscall.SIGKILL) // ours: the script started it for this test
	return false
}

func TestReadVersionOfAHungBinary(t *testing.T) {
	defer func(d time.Duration) { VersionTimeout = d }(VersionTimeout)
	VersionTimeout = time.Second
	tests := []struct {
		name    string
		cancel  bool // cancel the caller's context once the binary runs
		wantErr string
		wantIs  error
	}{
		{name: "time limit", wantErr: "--version did not answer within 1s"},
		{name: "cancelled", cancel: true, wantIs: context.Canceled},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			bin, childPid := hungBinary(t)
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			if tc.cancel {
				go func() {
					for ctx.Err() == nil {
						if _, err := os.Stat(childPid); err == nil {
							cancel()
						}
						time.Sleep(10 * time.Millisecond)
					}
				}()
			}
			start := time.Now()
			_, err := ReadVersion(ctx, bin)
			took := time.Since(start)
			if err == nil {
				t.Fatal("ReadVersion of a hung binary succeeded")
			}
			if tc.wantErr != "" && (!strings.Contains(err.Error(), tc.wantErr) || strings.Contains(err.Error(), "\n")) {
				t.Errorf("error %q, want one line containing %q", err, tc.wantErr)
			}
			if tc.wantIs != nil && !errors.Is(err, tc.wantIs) {
				t.Errorf("error %v, want it to wrap %v", err, tc.wantIs)
			}
			// The child holds the output pipe: without killing the
			// process group, Wait would wait for it (or for waitDelay).
			if took > VersionTimeout+time.Second {
				t.Errorf("ReadVersion took %v", took)
			}
			if !processGone(t, childPid) {
				t.Error("the binary's child outlived the version check")
			}
		})
	}
}
