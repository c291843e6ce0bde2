package mysqld

import (
	"bytes"
	"context"
	"fmt"
	"strconv"
	"strings"
	"time"
)

// Version is what a server's `--version` line says about it.
type Version struct {
	Line    string // the whole first line
	Number  string // "10.11.19-MariaDB-0+deb12u1", "8.0.36"
	Major   int
	Minor   int
	Patch   int
	MariaDB bool
}

// ParseVersion reads a `--version` line ("/usr/sbin/mariadbd  Ver
// 10.11.19-MariaDB-0+deb12u1 for debian-linux-gnu on x86_64 (Debian 12)",
// "mysqld  Ver 8.0.36 for Linux on x86_64 (MySQL Community Server - GPL)").
func ParseVersion(line string) (Version, error) {
	v := Version{Line: strings.TrimSpace(line), MariaDB: strings.Contains(strings.ToLower(line), "mariadb")}
	_, rest, ok := strings.Cut(line, " Ver ")
	if !ok {
		return v, fmt.Errorf("no version in %q", v.Line)
	}
	v.Number, _, _ = strings.Cut(strings.TrimSpace(rest), " ")
	digits := v.Number
	if i := strings.IndexFunc(digits, func(r rune) bool { return r != '.' && (r < '0' || r > '9') }); i >= 0 {
		digits = digits[:i]
	}
	parts := strings.Split(digits, ".")
	nums := []*int{&v.Major, &v.Minor, &v.Patch}
	for i := range nums {
		if i >= len(parts) {
			break
		}
		n, err := strconv.Atoi(parts[i])
		if err != nil {
			return v, fmt.Errorf("no version number in %q", v.Line)
		}
		*nums[i] = n
	}
	if len(parts) < 2 {
		return v, fmt.Errorf("no version number in %q", v.Line)
	}
	return v, nil
}

// Series is the release series, "10.11" or "8.0": files of one series are
// compatible with each other's servers, files of another are not.
func (v Version) Series() string { return strconv.Itoa(v.Major) + "." + strconv.Itoa(v.Minor) }

// atLeast reports v >= major.minor.patch.
func (v Version) atLeast(major, minor, patch int) bool {
	if v.Major != major {
		return v.Major > major
	}
	if v.Minor != minor {
		return v.Minor > minor
	}
	return v.Patch >= patch
}

// Method is how a data directory is initialised.
type Method int

const (
	// Bootstrap feeds the system-table SQL to `--bootstrap` (MariaDB, and
	// MySQL before 5.7.6).
	Bootstrap Method = iota
	// InitializeInsecure is `mysqld --initialize-insecure` (MySQL 5.7.6 and
	// later, which carry their system tables inside the binary).
	InitializeInsecure
)

func (m Method) String() string {
	if m == InitializeInsecure {
		return "--initialize-insecure"
	}
	return "--bootstrap"
}

// Method is how this version's data directory is initialised.
func (v Version) Method() Method {
	if !v.MariaDB && v.atLeast(5, 7, 6) {
		return InitializeInsecure
	}
	return Bootstrap
}

// VersionTimeout bounds `BINARY --version`: a server answers at once, so a
// binary still silent after it is not one (or is hung), and is killed.
var VersionTimeout = 10 * time.Second

// ReadVersion runs `binary --no-defaults --version`, killing it (and what
// it started) when ctx ends or after VersionTimeout. When ctx ended, the
// error wraps ctx.Err().
func ReadVersion(ctx context.Context, binary string) (Version, error) {
	vctx, cancel := context.WithTimeout(ctx, VersionTimeout)
	defer cancel()
	out, err := runLocked(groupCommand(vctx, binary, "--no-defaults", "--version"))
	switch {
	case ctx.Err() != nil:
		return Version{}, fmt.Errorf("%s --version: %w", binary, ctx.Err())
	case vctx.Err() != nil:
		return Version{}, fmt.Errorf("%s --version did not answer within %v: not a working server binary; killed", binary, VersionTimeout)
	case err != nil:
		return Version{}, fmt.Errorf("%s --version: %v: %s", binary, err, bytes.TrimSpace(out))
	}
	line, _, _ := strings.Cut(string(out), "\n")
	v, err := ParseVersion(line)
	if err != nil {
		return v, fmt.Errorf("%s --version: %w", binary, err)
	}
	return v, nil
}
