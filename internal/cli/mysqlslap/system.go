package mysqlslap

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strings"
	"syscall"
	"time"

	"golang.org/x/term"
)

// hookGrace is how long an interrupted --pre-system/--post-system command
// has between SIGTERM and SIGKILL: well inside interruptDeadline, so the
// schema is still dropped afterwards.
const hookGrace = time.Second

// runSystemHook runs a --pre-system / --post-system command through
// /bin/sh -c as system(3) does, after flushing stdout (when it buffers) so
// that the command's output comes after what goslap printed before it. A
// non-zero status is mysqlslap's warning with the raw wait status (exit 3
// prints 768); a shell that cannot be started is an error.
//
// Unlike system(3), the shell runs in its own process group, so that when
// ctx is cancelled (an interrupt) the whole command — the shell and what it
// started — is ended (SIGTERM, SIGKILL after hookGrace) and ctx.Err() is
// returned; the run then cleans up as after any interrupt. A process group
// other than the terminal's foreground one is stopped if it reads the
// terminal, so the command's stdin is goslap's only when that is not a
// terminal (else the command reads end-of-file instead of hanging).
func runSystemHook(ctx context.Context, which, command string, stdout, stderr io.Writer) error {
	if command == "" {
		return nil
	}
	if f, ok := stdout.(interface{ Flush() error }); ok {
		if err := f.Flush(); err != nil {
			return fmt.Errorf("writing to stdout: %w", err)
		}
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	cmd := exec.Command("/bin/sh", "-c", command)
	cmd.Stdout, cmd.Stderr = stdout, stderr
	if !term.IsTerminal(int(os.Stdin.Fd())) {
		cmd.Stdin = os.Stdin
	}
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	// A descendant that left the group may hold our output pipes open.
	cmd.WaitDelay = hookGrace
	name := "--" + strings.ReplaceAll(which, "_", "-")
	if err := cmd.Start(); err != nil {
		return fmt.Errorf("%s: %w", name, err)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	var err error
	select {
	case err = <-done:
	case <-ctx.Done():
		endGroup(cmd.Process.Pid, done)
		return ctx.Err()
	}
	var exitErr *exec.ExitError
	if err != nil && !errors.As(err, &exitErr) {
		return fmt.Errorf("%s: %w", name, err)
	}
	status := cmd.ProcessState.ExitCode() << 8
	if ws, ok := cmd.ProcessState.Sys().(syscall.WaitStatus); ok {
		status = int(ws)
	}
	if status != 0 {
		fmt.Fprintf(stderr, "Warning: Execution of %s option returned %d.\n", which, status)
	}
	return nil
}

// endGroup ends the process group pgid (SIGTERM, then SIGKILL after
// hookGrace) and waits for its leader's Wait to return on done.
func endGroup(pgid int, done <-chan error) {
	_ = syscall.Kill(-pgid, syscall.SIGTERM)
	select {
	case <-done:
		// The shell is gone; what it started in the background may not be.
		_ = syscall.Kill(-pgid, syscall.SIGKILL)
		return
	case <-time.After(hookGrace):
	}
	_ = syscall.Kill(-pgid, syscall.SIGKILL)
	<-done
}
