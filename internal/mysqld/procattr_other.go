//go:build !linux

package mysqld

import "syscall"

// GroupAttr returns the process attributes of a server or tool goslap starts:
// its own process group. Outside Linux there is no parent-death signal, so
// a goslap killed without the chance to stop its server (SIGKILL) leaves
// the server running; every other ending stops it as on Linux.
func GroupAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Setpgid: true}
}
