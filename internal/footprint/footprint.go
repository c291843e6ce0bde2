// Package footprint keeps start-up out of goslap's resident memory.
//
// Package initialisers and the runtime's start touch code and read-only
// data all over the executable (the chart library, the template
// generators, the option tables), and the kernel maps 64 KB around every
// page a fault touches, so a goslap process starts with ~10 MB of its own
// executable resident — more than mariadb-slap's whole footprint — most of
// which a load never uses again. ReleaseExecutablePages hands those pages
// back; the ones the load needs fault in again from the page cache.
package footprint

import (
	"bufio"
	"os"
	"strconv"
	"strings"
	"syscall"
)

// KeepEnv names the environment variable that, when set, keeps the pages
// (for measuring what releasing them saves).
const KeepEnv = "GOSLAP_KEEP_STARTUP_PAGES"

// ReleaseExecutablePages drops the resident pages of the executable's
// read-only mappings (code, read-only data, the runtime's tables) from
// the process's resident set. Those pages are never written, so they are
// clean copies of the file and dropping them loses nothing: the next
// access faults them back in with the same content. Writable mappings are
// left alone: MADV_DONTNEED would discard their modified pages. Failures
// are ignored; they only leave the pages resident.
func ReleaseExecutablePages() {
	if os.Getenv(KeepEnv) != "" {
		return
	}
	exe, err := os.Readlink("/proc/self/exe")
	if err != nil {
		return
	}
	maps, err := os.Open("/proc/self/maps")
	if err != nil {
		return
	}
	defer maps.Close()
	sc := bufio.NewScanner(maps)
	for sc.Scan() {
		start, end, ok := readOnlyMapping(sc.Text(), exe)
		if !ok {
			continue
		}
		// Through the raw system call: the range is an address from
		// /proc, not memory Go allocated.
		_, _, _ = syscall.Syscall(syscall.SYS_MADVISE, start, end-start, syscall.MADV_DONTNEED)
	}
}

// readOnlyMapping parses one line of /proc/self/maps ("START-END PERMS
// OFFSET DEV INODE PATH") and reports a mapping of file that is not
// writable.
func readOnlyMapping(line, file string) (start, end uintptr, ok bool) {
	f := strings.Fields(line)
	if len(f) < 6 || strings.Join(f[5:], " ") != file || len(f[1]) < 2 || f[1][1] == 'w' {
		return 0, 0, false
	}
	lo, hi, found := strings.Cut(f[0], "-")
	a, err1 := strconv.ParseUint(lo, 16, 64)
	b, err2 := strconv.ParseUint(hi, 16, 64)
	if !found || err1 != nil || err2 != nil || b <= a {
		return 0, 0, false
	}
	return uintptr(a), uintptr(b), true
}
