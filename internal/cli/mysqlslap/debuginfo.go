package mysqlslap

import (
	"fmt"
	"io"
	"syscall"
)

// WriteDebugInfo writes mysqlslap's -T/--debug-info resource summary (spec
// 4.5) from getrusage(RUSAGE_SELF): to stderr, at normal program end only.
func WriteDebugInfo(w io.Writer) error {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return fmt.Errorf("getrusage: %w", err)
	}
	return writeRusage(w, &ru)
}

func writeRusage(w io.Writer, ru *syscall.Rusage) error {
	seconds := func(tv syscall.Timeval) float64 {
		return float64(tv.Sec) + float64(tv.Usec)/1e6
	}
	_, err := fmt.Fprintf(w, "\nUser time %.2f, System time %.2f\n"+
		"Maximum resident set size %d, Integral resident set size %d\n"+
		"Non-physical pagefaults %d, Physical pagefaults %d, Swaps %d\n"+
		"Blocks in %d out %d, Messages in %d out %d, Signals %d\n"+
		"Voluntary context switches %d, Involuntary context switches %d\n",
		seconds(ru.Utime), seconds(ru.Stime),
		ru.Maxrss, ru.Ixrss+ru.Idrss+ru.Isrss,
		ru.Minflt, ru.Majflt, ru.Nswap,
		ru.Inblock, ru.Oublock, ru.Msgsnd, ru.Msgrcv, ru.Nsignals,
		ru.Nvcsw, ru.Nivcsw)
	return err
}
