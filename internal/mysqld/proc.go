package mysqld

import (
	"context"
	"errors"
	"os/exec"
	"runtime"
	"syscall"
	"time"
)

// waitDelay bounds how long a killed command's Wait waits for its output
// pipes to close: a child the command started (a shell script's sleep)
// may hold them after the command itself is gone.
const waitDelay = 2 * time.Second

// groupCommand is a command that runs in its own process group and dies
// with it: when ctx ends the whole group is killed (SIGKILL), so a
// wrapper script's children go too, and Wait returns within waitDelay
// after that whatever still holds its output. Its parent-death signal (on
// Linux; GroupAttr) kills it should goslap die without the chance to
// (SIGKILL); run it with runLocked so that signal is tied to a thread that
// outlives it.
func groupCommand(ctx context.Context, name string, args ...string) *exec.Cmd {
	cmd := exec.CommandContext(ctx, name, args...)
	cmd.SysProcAttr = GroupAttr()
	cmd.Cancel = func() error {
		if err := syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL); err != nil && !errors.Is(err, syscall.ESRCH) {
			return cmd.Process.Kill()
		}
		return nil
	}
	cmd.WaitDelay = waitDelay
	return cmd
}

// runLocked runs cmd to its end and returns its combined output. The
// kernel sends the parent-death signal when the thread that forked the
// child ends, not the process, so the forking goroutine keeps its thread
// until the child has exited.
func runLocked(cmd *exec.Cmd) ([]byte, error) {
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	return cmd.CombinedOutput()
}
