package engine

import "syscall"

// raiseThreadPriority lowers the calling OS thread's nice value by steps
// (to at least -20), relative to the nice it has (the process's, unless
// the thread was changed): a user who started goslap under nice(1) keeps
// the ring that far below the rest of the machine too. Only the calling
// thread changes (a Linux thread has its own nice); lowering it needs
// CAP_SYS_NICE or an RLIMIT_NICE that allows it, and fails otherwise.
// The caller locks its goroutine to the thread for the thread's life.
func raiseThreadPriority(steps int) error {
	tid := syscall.Gettid()
	nice, err := threadNice(tid)
	if err != nil {
		return err
	}
	return syscall.Setpriority(syscall.PRIO_PROCESS, tid, max(nice-steps, -20))
}

// threadNice is a thread's nice value. The raw getpriority(2) that Go's
// syscall package calls returns 20 - nice (1 to 40), not the nice itself
// as the C library's wrapper does.
func threadNice(tid int) (int, error) {
	prio, err := syscall.Getpriority(syscall.PRIO_PROCESS, tid)
	if err != nil {
		return 0, err
	}
	return 20 - prio, nil
}
