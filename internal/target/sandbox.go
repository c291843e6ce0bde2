package target

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"strings"

	"github.com/goslap/goslap/internal/mysqld"
	"github.com/goslap/goslap/internal/sandbox"
)

// ErrNoBinary reports a sandbox server binary that cannot be found.
var ErrNoBinary = mysqld.ErrNoServer

// ResolveBinary turns a sandbox binary as given by a person into an
// executable path (mysqld.Find): "" means mariadbd or mysqld from $PATH or
// the usual directories; a bare name is looked up on $PATH and in /usr/sbin
// and the like; a directory (an install prefix, an unpacked tarball, an
// extracted package, a build directory) is searched for its mariadbd or
// mysqld.
func ResolveBinary(bin string) (string, error) {
	p, err := mysqld.Find(bin)
	if err != nil {
		return "", fmt.Errorf("sandbox: %w", err)
	}
	return p, nil
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
// directory ("" for the system default). Every option must pass
// sandbox.CheckOption (the server touches nothing outside its
// directory). If ctx is cancelled while the server starts, the starter
// kills and removes it before returning ctx.Err().
type SandboxStarter func(ctx context.Context, binary string, options []string, tempDir string) (*Running, error)

// StartSandbox is the real SandboxStarter, built on internal/sandbox,
// which initialises the data directory with the binary itself (MariaDB and
// MySQL before 5.7.6 via --bootstrap and the system-table SQL found beside
// the binary, MySQL 5.7.6+ via --initialize-insecure; see internal/mysqld).
// The sandbox listens on its own Unix socket and a free 127.0.0.1 port,
// with root and no password; sandbox's small defaults (64M buffer pool,
// no binary log, no performance_schema) apply unless options override them.
func StartSandbox(ctx context.Context, binary string, options []string, tempDir string) (*Running, error) {
	return startSandbox(ctx, binary, options, tempDir, nil)
}

// DescribingStarter is StartSandbox that first tells describe, for each
// file the server needs (system-table SQL, error messages, character sets,
// plugins), where it was found — beside the binary or borrowed from the
// installed server of the same series (goslap -v).
func DescribingStarter(describe func(binary, line string)) SandboxStarter {
	return func(ctx context.Context, binary string, options []string, tempDir string) (*Running, error) {
		return startSandbox(ctx, binary, options, tempDir, func(line string) { describe(binary, line) })
	}
}

func startSandbox(ctx context.Context, binary string, options []string, tempDir string, describe func(string)) (*Running, error) {
	// The start watches ctx itself: the version check, the initialisation
	// and the server are killed with their process groups when it ends.
	s, err := sandbox.StartContext(ctx, sandbox.Config{Binary: binary, Options: options, TempDir: tempDir, Describe: describe})
	if err != nil {
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		var refused *sandbox.OptionError
		if errors.As(err, &refused) {
			return nil, fmt.Errorf("sandbox server option %w", refused)
		}
		var missing *mysqld.MissingError
		if errors.As(err, &missing) { // names the binary already
			return nil, fmt.Errorf("sandbox: %w", missing)
		}
		// The server's own reason, not "exit status 7" and its log.
		var se *sandbox.StartError
		if errors.As(err, &se) && se.ServerError != "" {
			return nil, fmt.Errorf("sandbox %s did not start: %s", binary, se.ServerError)
		}
		// sandbox's prefix names a package, nothing a person gave; the
		// binary is named once.
		msg := strings.TrimPrefix(err.Error(), "sandbox: ")
		if strings.HasPrefix(msg, binary+" ") {
			return nil, fmt.Errorf("sandbox: %s", msg)
		}
		return nil, fmt.Errorf("sandbox %s: %s", binary, msg)
	}
	if ctx.Err() != nil {
		_ = s.Stop()
		return nil, ctx.Err()
	}
	return &Running{
		Endpoint: Endpoint{Host: "127.0.0.1", Port: s.Port, Socket: s.Socket, User: "root", PasswordSet: true, Sandbox: true, PID: s.PID()},
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

// CheckSandboxOptions applies the sandbox confinement rule
// (sandbox.CheckOption: no option may name a place outside the sandbox's
// directory or change what goslap sets) to the options every sandbox gets
// (--sandbox-option) and to a sandbox target's own, naming the option as
// it was given.
func CheckSandboxOptions(common []string, t Target) error {
	for _, o := range common {
		if err := sandbox.CheckOption(o); err != nil {
			return fmt.Errorf("--sandbox-option=%w", err)
		}
	}
	if t.Kind != Sandbox {
		return nil
	}
	for _, o := range t.ServerOptions {
		if err := sandbox.CheckOption(o); err != nil {
			return fmt.Errorf("server option %w", err)
		}
	}
	return nil
}
