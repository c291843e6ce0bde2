//go:build !386

package mysqlconn

import "syscall"

// sysRecvfrom is recvfrom(2)'s system call number (sysno_386.go has 386's).
const sysRecvfrom = syscall.SYS_RECVFROM
