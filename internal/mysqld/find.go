// Package mysqld finds a MariaDB or MySQL server binary and what it needs to
// initialise and run a data directory — the system-table SQL, the error
// messages, the character sets and the plugins — in whatever layout it comes
// in: an install prefix (/usr, /usr/local/mysql), an unpacked tarball, a
// Debian package extracted with dpkg-deb -x, or a build directory. It then
// initialises a data directory without the distribution's install script
// (mariadb-install-db needs my_print_defaults and its own basedir layout,
// which an extracted package or a build tree does not have): MariaDB and old
// MySQL by feeding the SQL to `mariadbd --bootstrap`, MySQL 5.7.6 and later
// with `mysqld --initialize-insecure`.
//
// internal/sandbox (test servers) and internal/target (sandboxes) both
// start servers through it, so a layout that works for one works for both.
package mysqld

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
)

// ErrNoServer reports a server binary that cannot be found.
var ErrNoServer = errors.New("server binary not found")

// InstallHint tells a person how to get a server on Debian/Ubuntu.
const InstallHint = "apt-get install -y mariadb-server mariadb-client"

// serverNames are the server executables, MariaDB's name first: a MariaDB
// directory holds both (mysqld is a link to mariadbd).
var serverNames = []string{"mariadbd", "mysqld"}

// systemDirs are looked at after $PATH: Debian keeps the server in /usr/sbin,
// which is not on a normal user's PATH, and tarball installs use /usr/local/mysql.
var systemDirs = []string{"/usr/sbin", "/usr/local/sbin", "/usr/local/mysql/bin", "/usr/local/mariadb/bin", "/usr/bin"}

// binarySubdirs are where a directory given in place of a binary is searched,
// in order: a tarball or prefix (bin, sbin), an extracted package (usr/sbin),
// a build directory (sql), and the directory itself.
var binarySubdirs = []string{"bin", "sbin", "usr/sbin", "usr/bin", "usr/local/mysql/bin", "usr/local/sbin", "libexec", "sql", "."}

// Find turns a server binary as a person gives it into an executable path:
// "" means mariadbd or mysqld from $PATH or the usual directories; a bare
// name is looked up on $PATH and in those directories; a directory (a
// prefix, an unpacked tarball, an extracted package, a build directory) is
// searched for its mariadbd or mysqld; a file must be executable.
func Find(bin string) (string, error) {
	if bin == "" {
		for _, name := range serverNames {
			if p, err := lookName(name); err == nil {
				return p, nil
			}
		}
		return "", fmt.Errorf("%w: no mariadbd or mysqld on $PATH or in %s (install one with: %s)", ErrNoServer, strings.Join(systemDirs, ", "), InstallHint)
	}
	if !strings.ContainsRune(bin, '/') {
		p, err := lookName(bin)
		if err != nil {
			return "", fmt.Errorf("%w: %q is not on $PATH nor in %s (install it with: %s, or give its full path)", ErrNoServer, bin, strings.Join(systemDirs, ", "), InstallHint)
		}
		return p, nil
	}
	fi, err := os.Stat(bin)
	if err != nil {
		return "", fmt.Errorf("%w: %s does not exist", ErrNoServer, bin)
	}
	if fi.IsDir() {
		for _, sub := range binarySubdirs {
			for _, name := range serverNames {
				if p := filepath.Join(bin, sub, name); isExecutable(p) {
					return p, nil
				}
			}
		}
		return "", fmt.Errorf("%w: directory %s has no bin/mariadbd, bin/mysqld, sbin/mariadbd, usr/sbin/mariadbd or sql/mariadbd", ErrNoServer, bin)
	}
	if !isExecutable(bin) {
		return "", fmt.Errorf("%s is not an executable file", bin)
	}
	return bin, nil
}

func lookName(name string) (string, error) {
	if p, err := exec.LookPath(name); err == nil {
		return p, nil
	}
	for _, dir := range systemDirs {
		if p := filepath.Join(dir, name); isExecutable(p) {
			return p, nil
		}
	}
	return "", ErrNoServer
}

func isExecutable(p string) bool {
	fi, err := os.Stat(p)
	return err == nil && fi.Mode().IsRegular() && fi.Mode()&0o111 != 0
}

func isFile(p string) bool {
	fi, err := os.Stat(p)
	return err == nil && fi.Mode().IsRegular()
}

func isDir(p string) bool {
	fi, err := os.Stat(p)
	return err == nil && fi.IsDir()
}
