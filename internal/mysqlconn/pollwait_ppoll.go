//go:build linux && (arm64 || riscv64 || loong64)

package mysqlconn

import (
	"syscall"
	"unsafe"
)

// pollWait is poll(2) on one descriptor for at most ms milliseconds. The
// architectures whose system call table has no poll(2) (the generic table
// of arm64, riscv64 and loong64) get it as ppoll(2) with no signal mask,
// which is how their C library implements poll.
func pollWait(pfd *pollFd, ms int64) (uintptr, syscall.Errno) {
	ts := syscall.NsecToTimespec(ms * 1e6)
	n, _, e := syscall.RawSyscall6(syscall.SYS_PPOLL, uintptr(unsafe.Pointer(pfd)), 1, uintptr(unsafe.Pointer(&ts)), 0, 0, 0)
	return n, e
}
