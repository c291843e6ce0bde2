//go:build !(linux && (arm64 || riscv64 || loong64))

package mysqlconn

import (
	"syscall"
	"unsafe"
)

// pollWait is poll(2) on one descriptor for at most ms milliseconds
// (pollwait_ppoll.go has it where poll(2) is missing).
func pollWait(pfd *pollFd, ms int64) (uintptr, syscall.Errno) {
	n, _, e := syscall.RawSyscall(syscall.SYS_POLL, uintptr(unsafe.Pointer(pfd)), 1, uintptr(ms))
	return n, e
}
