package footprint

import (
	"os"
	"strconv"
	"strings"
	"testing"
)

func TestReadOnlyMapping(t *testing.T) {
	const exe = "/usr/local/bin/goslap"
	for _, tc := range []struct {
		line       string
		start, end uintptr
		ok         bool
	}{
		{"00400000-009ea000 r-xp 00000000 fd:01 123 /usr/local/bin/goslap", 0x400000, 0x9ea000, true},
		{"009ea000-0107a000 r--p 005ea000 fd:01 123 /usr/local/bin/goslap", 0x9ea000, 0x107a000, true},
		{"0107a000-015a0000 rw-p 00c7a000 fd:01 123 /usr/local/bin/goslap", 0, 0, false}, // writable data
		{"015a0000-035ea000 rw-p 00000000 00:00 0", 0, 0, false},                         // anonymous
		{"7f0000000000-7f0000001000 r--p 00000000 fd:01 9 /usr/lib/x.so", 0, 0, false},   // another file
		{"7f0000000000-7f0000001000 r--p 00000000 fd:01 9 /usr/local/bin/goslap (deleted)", 0, 0, false},
		{"zz-009ea000 r-xp 00000000 fd:01 123 /usr/local/bin/goslap", 0, 0, false},
		{"", 0, 0, false},
	} {
		start, end, ok := readOnlyMapping(tc.line, exe)
		if start != tc.start || end != tc.end || ok != tc.ok {
			t.Errorf("readOnlyMapping(%q) = %#x, %#x, %v; want %#x, %#x, %v", tc.line, start, end, ok, tc.start, tc.end, tc.ok)
		}
	}
}

// TestReleaseExecutablePages releases the test binary's own pages: the
// resident part of its read-only mappings must shrink, and the process
// must go on running code and reading tables afterwards.
func TestReleaseExecutablePages(t *testing.T) {
	exe, err := os.Readlink("/proc/self/exe")
	if err != nil {
		t.Fatal(err)
	}
	before := residentKB(t, exe)
	ReleaseExecutablePages()
	after := residentKB(t, exe)
	t.Logf("read-only pages of %s resident: %d KB before, %d KB after", exe, before, after)
	if before == 0 || after > before*3/4 {
		t.Fatalf("resident read-only pages: %d KB before the release, %d KB after; want at most three quarters", before, after)
	}
}

// residentKB sums the Rss of exe's read-only mappings in /proc/self/smaps.
func residentKB(t *testing.T, exe string) int {
	b, err := os.ReadFile("/proc/self/smaps")
	if err != nil {
		t.Fatal(err)
	}
	total, counting := 0, false
	for _, line := range strings.Split(string(b), "\n") {
		if f := strings.Fields(line); len(f) > 0 && strings.Contains(f[0], "-") && !strings.HasSuffix(f[0], ":") {
			_, _, counting = readOnlyMapping(line, exe)
			continue
		}
		if kb, ok := strings.CutPrefix(line, "Rss:"); ok && counting {
			n, err := strconv.Atoi(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(kb), "kB")))
			if err != nil {
				t.Fatalf("smaps line %q: %v", line, err)
			}
			total += n
		}
	}
	return total
}
