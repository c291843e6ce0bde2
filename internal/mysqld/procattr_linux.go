package mysqld

import "syscall"

// GroupAttr returns the process attributes of a server or tool goslap starts:
// its own process group (a Ctrl-C aimed at goslap's group does not reach
// it before goslap has shut it down), and a parent-death signal (SIGKILL)
// so that it does not outlive a goslap that dies without the chance to
// stop it. The kernel sends that signal when the thread that forked the
// child ends, so the caller forks from a locked thread that outlives it.
func GroupAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
}
