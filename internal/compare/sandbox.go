package compare

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"

	"github.com/goslap/goslap/internal/testserver"
)

// ErrNoBinary reports a sandbox server binary that cannot be found.
var ErrNoBinary = errors.New("server binary not found")

// serverNames are the executables a tarball directory is searched for.
var serverNames = []string{"mariadbd", "mysqld"}

// ResolveBinary turns a sandbox binary as given by a person into an
// executable path: "" means mariadbd or mysqld from $PATH or the usual
// directories; a bare name is looked up on $PATH and in /usr/sbin and
// /usr/local/sbin; a directory (an unpacked MySQL or MariaDB tarball) is
// searched for bin/ or sbin/ mariadbd or mysqld.
func ResolveBinary(bin string) (string, error) {
	if bin == "" {
		p, err := testserver.FindServer()
		if err != nil {
			return "", fmt.Errorf("sandbox: %w: no mariadbd or mysqld on $PATH or in /usr/sbin (install one with: %s, or name one with --sandbox=PATH)", ErrNoBinary, testserver.InstallHint)
		}
		return p, nil
	}
	if !strings.ContainsRune(bin, '/') {
		if p, err := exec.LookPath(bin); err == nil {
			return p, nil
		}
		for _, dir := range []string{"/usr/sbin", "/usr/local/sbin"} {
			if p := filepath.Join(dir, bin); isExecutable(p) {
				return p, nil
			}
		}
		return "", fmt.Errorf("sandbox: %w: %q is not on $PATH nor in /usr/sbin (install it with: %s, or give its full path)", ErrNoBinary, bin, testserver.InstallHint)
	}
	fi, err := os.Stat(bin)
	if err != nil {
		return "", fmt.Errorf("sandbox: %w: %s does not exist", ErrNoBinary, bin)
	}
	if fi.IsDir() {
		for _, sub := range []string{"bin", "sbin", "libexec", "."} {
			for _, name := range serverNames {
				if p := filepath.Join(bin, sub, name); isExecutable(p) {
					return p, nil
				}
			}
		}
		return "", fmt.Errorf("sandbox: %w: directory %s has no bin/mariadbd, bin/mysqld, sbin/mariadbd or sbin/mysqld", ErrNoBinary, bin)
	}
	if !isExecutable(bin) {
		return "", fmt.Errorf("sandbox: %s is not an executable file", bin)
	}
	return bin, nil
}

func isExecutable(p string) bool {
	fi, err := os.Stat(p)
	return err == nil && fi.Mode().IsRegular() && fi.Mode()&0o111 != 0
}

// Running is a started sandbox.
type Running struct {
	Endpoint Endpoint
	Version  string // the server's `--version` line
	Dir      string // private temporary directory, removed by Stop
	stop     func() error
}

// Stop shuts the sandbox down and removes its directory. Safe to call twice.
func (r *Running) Stop() error {
	if r == nil || r.stop == nil {
		return nil
	}
	return r.stop()
}

// SandboxStarter starts a sandbox from a resolved binary with extra server
// options ("name=value"). tempDir is the parent of the sandbox's private
// directory ("" for the system default). If ctx is cancelled while the
// server starts, the starter stops and removes it before returning ctx.Err().
type SandboxStarter func(ctx context.Context, binary string, options []string, tempDir string) (*Running, error)

// StartSandbox is the real SandboxStarter, built on internal/testserver
// (MariaDB via mariadb-install-db, MySQL 5.7+/8 via --initialize-insecure).
// The sandbox listens on its own Unix socket and a free 127.0.0.1 port,
// with root and no password; testserver's small defaults (64M buffer pool,
// no binary log, no performance_schema) apply unless options override them.
func StartSandbox(ctx context.Context, binary string, options []string, tempDir string) (*Running, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	type result struct {
		s   *testserver.Server
		err error
	}
	done := make(chan result, 1)
	go func() {
		s, err := testserver.Start(testserver.Config{Binary: binary, Options: options, TempDir: tempDir})
		done <- result{s, err}
	}()
	var r result
	select {
	case r = <-done:
	case <-ctx.Done():
		// testserver.Start cannot be interrupted; wait for it, then undo it.
		r = <-done
		if r.s != nil {
			_ = r.s.Stop()
		}
		return nil, ctx.Err()
	}
	if r.err != nil {
		// The server's own reason, not "exit status 7" and its log.
		var se *testserver.StartError
		if errors.As(r.err, &se) && se.ServerError != "" {
			return nil, fmt.Errorf("sandbox %s did not start: %s", binary, se.ServerError)
		}
		return nil, fmt.Errorf("sandbox %s: %w", binary, r.err)
	}
	s := r.s
	return &Running{
		Endpoint: Endpoint{Host: "127.0.0.1", Port: s.Port, Socket: s.Socket, User: "root", PasswordSet: true, Sandbox: true},
		Version:  ShortVersion(s.Binary, s.Version),
		Dir:      s.Dir,
		stop:     s.Stop,
	}, nil
}

// ShortVersion shortens a server's --version line ("/usr/sbin/mariadbd  Ver
// 10.11.19-MariaDB-0+deb12u1 for debian-linux-gnu on x86_64 (Debian 12)") to
// "mariadbd 10.11.19-MariaDB-0+deb12u1"; a line of another shape is kept.
func ShortVersion(binary, line string) string {
	_, rest, ok := strings.Cut(line, " Ver ")
	if !ok {
		return line
	}
	v, _, _ := strings.Cut(strings.TrimSpace(rest), " ")
	return filepath.Base(binary) + " " + v
}
