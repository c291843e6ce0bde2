// Package procstat reads what Linux's /proc says about a process and the
// host: a server's CPU seconds, bytes it made the disk read and write, its
// context switches; the host's CPU busy, iowait and steal time; goslap's
// own CPU time. It also finds the pid of a server on this host from its
// Unix socket or its loopback TCP port.
//
// Every reader takes the root of the /proc tree (Proc.Root), so tests use
// fake trees in temporary directories.
package procstat

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// ClockTicks is USER_HZ, the unit of the CPU times in /proc/PID/stat and
// /proc/stat: 100 on every Linux architecture goslap builds for (the
// kernel converts its internal HZ to it for user space; reading it with
// sysconf would need cgo).
const ClockTicks = 100

// Proc reads one /proc tree.
type Proc struct {
	Root string // "/proc" when empty
}

func (p Proc) path(elem ...string) string {
	root := p.Root
	if root == "" {
		root = "/proc"
	}
	return filepath.Join(append([]string{root}, elem...)...)
}

// Process is one reading of a process's figures.
type Process struct {
	At time.Time
	// User and System are CPU time of all its threads (utime, stime).
	User, System time.Duration
	// ReadBytes and WriteBytes are what the process made the storage
	// layer read and write (/proc/PID/io read_bytes, write_bytes); IOErr
	// says why they are missing (another user's process: the file needs
	// the same user or CAP_SYS_PTRACE).
	ReadBytes, WriteBytes int64
	IOErr                 error
	// VoluntarySwitches (waiting: IO, locks) and InvoluntarySwitches
	// (preempted: CPU contention), summed over the process's threads as
	// /proc/PID/status gives them for the whole process.
	VoluntarySwitches, InvoluntarySwitches int64
}

// CPU is User plus System.
func (p Process) CPU() time.Duration { return p.User + p.System }

// Process reads pid's figures. An error means the process is gone or its
// stat file is unreadable; a missing io file is only IOErr.
func (p Proc) Process(pid int) (Process, error) {
	out := Process{At: time.Now()}
	dir := strconv.Itoa(pid)
	stat, err := os.ReadFile(p.path(dir, "stat"))
	if err != nil {
		return out, err
	}
	if out.User, out.System, err = parseStatTimes(stat); err != nil {
		return out, fmt.Errorf("%s: %w", p.path(dir, "stat"), err)
	}
	if status, err := os.ReadFile(p.path(dir, "status")); err == nil {
		out.VoluntarySwitches, _ = field(status, "voluntary_ctxt_switches:")
		out.InvoluntarySwitches, _ = field(status, "nonvoluntary_ctxt_switches:")
	}
	io, err := os.ReadFile(p.path(dir, "io"))
	if err != nil {
		out.IOErr = err
		return out, nil
	}
	var ok1, ok2 bool
	out.ReadBytes, ok1 = field(io, "read_bytes:")
	out.WriteBytes, ok2 = field(io, "write_bytes:")
	if !ok1 || !ok2 {
		out.IOErr = fmt.Errorf("%s: no read_bytes or write_bytes", p.path(dir, "io"))
	}
	return out, nil
}

// parseStatTimes takes utime and stime (fields 14 and 15) from a
// /proc/PID/stat line. The command name (field 2) is in parentheses and
// may hold spaces and parentheses itself, so fields are counted from the
// last ')'.
func parseStatTimes(stat []byte) (user, system time.Duration, err error) {
	i := bytes.LastIndexByte(stat, ')')
	if i < 0 {
		return 0, 0, errors.New("no command name")
	}
	f := strings.Fields(string(stat[i+1:]))
	// f[0] is field 3 (state): utime is field 14, f[11].
	if len(f) < 13 {
		return 0, 0, errors.New("too few fields")
	}
	ut, err1 := strconv.ParseInt(f[11], 10, 64)
	st, err2 := strconv.ParseInt(f[12], 10, 64)
	if err1 != nil || err2 != nil {
		return 0, 0, errors.New("utime or stime is not a number")
	}
	return ticks(ut), ticks(st), nil
}

func ticks(n int64) time.Duration { return time.Duration(n) * (time.Second / ClockTicks) }

// field is the integer after the line starting with name ("read_bytes:").
func field(data []byte, name string) (int64, bool) {
	for _, line := range strings.Split(string(data), "\n") {
		if rest, ok := strings.CutPrefix(line, name); ok {
			v, err := strconv.ParseInt(strings.TrimSpace(rest), 10, 64)
			return v, err == nil
		}
	}
	return 0, false
}

// HostCPU is the first line of /proc/stat: time all CPUs spent in each
// state since boot.
type HostCPU struct {
	At                               time.Time
	User, Nice, System, Idle, IOWait time.Duration
	IRQ, SoftIRQ, Steal              time.Duration
	CPUs                             int // the "cpuN" lines: how many CPUs the times are spread over
}

// Total is all states together.
func (h HostCPU) Total() time.Duration {
	return h.User + h.Nice + h.System + h.Idle + h.IOWait + h.IRQ + h.SoftIRQ + h.Steal
}

// HostCPU reads /proc/stat.
func (p Proc) HostCPU() (HostCPU, error) {
	out := HostCPU{At: time.Now()}
	data, err := os.ReadFile(p.path("stat"))
	if err != nil {
		return out, err
	}
	found := false
	for _, line := range strings.Split(string(data), "\n") {
		f := strings.Fields(line)
		if len(f) == 0 || !strings.HasPrefix(f[0], "cpu") {
			continue
		}
		if f[0] != "cpu" {
			out.CPUs++
			continue
		}
		// Guest time is already inside user and nice: not added again.
		if len(f) < 9 {
			return out, errors.New(p.path("stat") + ": short cpu line")
		}
		vals := make([]time.Duration, 8)
		for i := range vals {
			n, err := strconv.ParseInt(f[i+1], 10, 64)
			if err != nil {
				return out, errors.New(p.path("stat") + ": cpu line is not numbers")
			}
			vals[i] = ticks(n)
		}
		out.User, out.Nice, out.System, out.Idle = vals[0], vals[1], vals[2], vals[3]
		out.IOWait, out.IRQ, out.SoftIRQ, out.Steal = vals[4], vals[5], vals[6], vals[7]
		found = true
	}
	if !found {
		return out, errors.New(p.path("stat") + ": no cpu line")
	}
	return out, nil
}

// HostShare is the host's CPU between two readings, as fractions of all
// CPU time available (0..1).
type HostShare struct {
	Busy, IOWait, Steal float64
	CPUs                int
	Seconds             float64 // wall time between the readings
}

// Between is the host's CPU from a to b (a read first).
func Between(a, b HostCPU) HostShare {
	total := (b.Total() - a.Total()).Seconds()
	out := HostShare{CPUs: b.CPUs, Seconds: b.At.Sub(a.At).Seconds()}
	if total <= 0 {
		return out
	}
	idle := (b.Idle - a.Idle).Seconds()
	iowait := (b.IOWait - a.IOWait).Seconds()
	out.Busy = (total - idle - iowait) / total
	out.IOWait = iowait / total
	out.Steal = (b.Steal - a.Steal).Seconds() / total
	return out
}

// SelfCPU is goslap's own CPU time so far (getrusage(RUSAGE_SELF): all
// its threads).
func SelfCPU() (user, system time.Duration, err error) {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0, 0, err
	}
	return time.Duration(ru.Utime.Nano()), time.Duration(ru.Stime.Nano()), nil
}
