package slap

import (
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strings"
	"syscall"
)

// runSystemHook runs a --pre-system / --post-system command through
// /bin/sh -c as system(3) does, after flushing stdout (when it buffers) so
// that the command's output comes after what goslap printed before it. A
// non-zero status is mysqlslap's warning with the raw wait status (exit 3
// prints 768); a shell that cannot be started is an error.
func runSystemHook(which, command string, stdout, stderr io.Writer) error {
	if command == "" {
		return nil
	}
	if f, ok := stdout.(interface{ Flush() error }); ok {
		if err := f.Flush(); err != nil {
			return fmt.Errorf("writing to stdout: %w", err)
		}
	}
	cmd := exec.Command("/bin/sh", "-c", command)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = os.Stdin, stdout, stderr
	err := cmd.Run()
	var exitErr *exec.ExitError
	if err != nil && !errors.As(err, &exitErr) {
		return fmt.Errorf("--%s: %w", strings.ReplaceAll(which, "_", "-"), err)
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
