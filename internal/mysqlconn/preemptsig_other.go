//go:build !linux

package mysqlconn

// blockPreemptSignal is a Linux measure (preemptsig_linux.go).
func blockPreemptSignal(bool) {}
