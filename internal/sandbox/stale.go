package sandbox

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

// A server's directory must not outlive the process that started it, but
// no process can clean up after its own SIGKILL. So each directory records
// its owner (ownerFile: the pid and the kernel's start time of that
// process, which tells a reused pid apart), the server gets a parent-death
// signal (start), and every Start first removes the directories of owners
// that are gone (SweepStale).
const (
	dirPrefix = "goslap-server-"
	ownerFile = "owner"
)

// writeOwner records the current process as the owner of dir.
func writeOwner(dir string) error {
	pid := os.Getpid()
	return os.WriteFile(filepath.Join(dir, ownerFile), []byte(strconv.Itoa(pid)+" "+processStart(pid)+"\n"), 0o600)
}

// processStart is field 22 of /proc/PID/stat (start time in clock ticks
// since boot), or "" if the process does not exist or /proc is missing.
func processStart(pid int) string {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return ""
	}
	// The command name (field 2) is in parentheses and may hold spaces.
	i := bytes.LastIndexByte(b, ')')
	if i < 0 {
		return ""
	}
	fields := strings.Fields(string(b[i+1:]))
	if len(fields) < 20 {
		return ""
	}
	return fields[19] // field 22 overall: fields[0] is field 3
}

// ownerAlive reports whether the process an owner file names still runs.
// Anything unreadable counts as alive: a directory is only ever removed
// when its owner is known to be gone.
func ownerAlive(content string) bool {
	f := strings.Fields(content)
	if len(f) == 0 {
		return true
	}
	pid, err := strconv.Atoi(f[0])
	if err != nil || pid <= 0 {
		return true
	}
	if err := syscall.Kill(pid, 0); errors.Is(err, syscall.ESRCH) {
		return false
	}
	if len(f) < 2 {
		return true
	}
	start := processStart(pid)
	return start == "" || start == f[1]
}

// SweepStale removes the server directories under parent (os.TempDir() if
// "") whose owner process is gone — left by a process that was killed
// (SIGKILL, a crash) before it could stop its server — after killing a
// server still running in one. Directories of other users, without an
// owner file (still being created, or kept with KeepDir) or whose owner
// runs are left alone. It returns the directories removed.
func SweepStale(parent string) []string {
	if parent == "" {
		parent = os.TempDir()
	}
	entries, err := os.ReadDir(parent)
	if err != nil {
		return nil
	}
	var removed []string
	for _, e := range entries {
		if !e.IsDir() || !strings.HasPrefix(e.Name(), dirPrefix) {
			continue
		}
		dir := filepath.Join(parent, e.Name())
		if fi, err := os.Lstat(dir); err != nil || !ownedByUs(fi) {
			continue
		}
		owner, err := os.ReadFile(filepath.Join(dir, ownerFile))
		if err != nil || ownerAlive(string(owner)) {
			continue
		}
		killStaleServer(dir)
		if os.RemoveAll(dir) == nil {
			removed = append(removed, dir)
		}
	}
	return removed
}

func ownedByUs(fi os.FileInfo) bool {
	st, ok := fi.Sys().(*syscall.Stat_t)
	return ok && int(st.Uid) == os.Getuid()
}

// killStaleServer kills the server whose pid file is in dir if it still
// runs on dir's data directory (a server started without a parent-death
// signal, e.g. by an older goslap), and waits for it to go.
func killStaleServer(dir string) {
	b, err := os.ReadFile(filepath.Join(dir, "mysqld.pid"))
	if err != nil {
		return
	}
	pid, err := strconv.Atoi(strings.TrimSpace(string(b)))
	if err != nil || pid <= 0 {
		return
	}
	cmdline, err := os.ReadFile(fmt.Sprintf("/proc/%d/cmdline", pid))
	if err != nil || !bytes.Contains(cmdline, []byte("--datadir="+filepath.Join(dir, "data"))) {
		return
	}
	_ = syscall.Kill(pid, syscall.SIGKILL)
	for deadline := time.Now().Add(5 * time.Second); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		if syscall.Kill(pid, 0) != nil {
			return
		}
	}
}
