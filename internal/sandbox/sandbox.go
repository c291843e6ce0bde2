// Package sandbox starts a private, throw-away MariaDB or MySQL server: a
// fresh data directory in a temporary directory, its own Unix socket and a
// free loopback TCP port, root without a password. goslap's integration tests
// use one per test package (see Main); the same code backs a user-facing
// sandbox, so nothing here depends on package testing except main.go.
package sandbox

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/go-sql-driver/mysql"
	"github.com/goslap/goslap/internal/mysqld"
)

// ErrNoServerBinary reports that neither mariadbd nor mysqld could be found.
var ErrNoServerBinary = mysqld.ErrNoServer

// InstallHint tells a person how to get a server on Debian/Ubuntu.
const InstallHint = mysqld.InstallHint

// Config says how to start a server. The zero value is usable.
type Config struct {
	// Binary is the server executable (mariadbd or mysqld) or a directory
	// holding one (see mysqld.Find); empty means search $PATH and the usual
	// directories (FindServer).
	Binary string
	// MaxConnections is the server's --max-connections (default 1200, enough
	// for tests that run hundreds of clients).
	MaxConnections int
	// Options are extra server options as "name=value" or "name" (with or
	// without the leading "--"), passed after goslap's defaults so they win.
	Options []string
	// StartTimeout bounds initialisation plus start-up (default 60 s).
	StartTimeout time.Duration
	// TempDir is the parent of the server's private directory (default
	// os.TempDir()). Unix socket paths are limited to ~107 bytes, so keep it short.
	TempDir string
	// KeepDir leaves the directory (data and error log) behind on Stop, for
	// debugging a failed run.
	KeepDir bool
	// Describe, if set, is given one line per file the server was found to
	// need and where it came from (mysqld.Layout.Describe), before the data
	// directory is initialised.
	Describe func(line string)
}

// Server is a running server. All fields are read-only.
type Server struct {
	Binary  string // the server executable
	MariaDB bool   // MariaDB (true) or MySQL (false)
	Version string // first line of `<binary> --version`
	Dir     string // private temporary directory holding everything below
	DataDir string
	Socket  string // Unix socket path
	Port    int    // TCP port on 127.0.0.1
	LogFile string // the server's error log
	Layout  *mysqld.Layout

	cmd      *exec.Cmd
	exited   chan struct{} // closed when the server process has exited
	waitErr  error         // valid after exited is closed
	keepDir  bool
	stopOnce sync.Once
	stopErr  error
}

// FindServer returns the path of mariadbd or mysqld, looking in $PATH first
// and then in the directories distributions and tarballs install them to.
func FindServer() (string, error) { return mysqld.Find("") }

// DefaultStartTimeout bounds a server's start when Config.StartTimeout is
// not set: the version check, initialising the data directory and waiting
// for the server to accept connections, together.
const DefaultStartTimeout = 60 * time.Second

// Start is StartContext without a context: only the time limit ends it.
func Start(cfg Config) (*Server, error) { return StartContext(context.Background(), cfg) }

// StartContext initialises a data directory and starts a server on it,
// returning once the server accepts connections as root over its socket.
// Every server option must pass CheckOption (the server is confined to its
// directory); a refused one is an *OptionError before anything runs. When
// ctx ends or cfg.StartTimeout passes, whatever runs — the binary's
// --version, the initialisation, the server — is killed with its process
// group, the directory is removed, and the error wraps ctx.Err() (or says
// what did not finish in time).
func StartContext(ctx context.Context, cfg Config) (*Server, error) {
	if cfg.MaxConnections <= 0 {
		cfg.MaxConnections = 1200
	}
	if cfg.StartTimeout <= 0 {
		cfg.StartTimeout = DefaultStartTimeout
	}
	if err := CheckOptions(cfg.Options); err != nil {
		return nil, err
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	bin, err := mysqld.Find(cfg.Binary)
	if err != nil {
		return nil, fmt.Errorf("sandbox: %w", err)
	}
	parent := ctx
	ctx, cancel := context.WithTimeout(ctx, cfg.StartTimeout)
	defer cancel()
	// ended is err, or when the start's own time limit cut step short, one
	// line saying so: "context deadline exceeded" names nothing.
	ended := func(step string, err error) error {
		if parent.Err() == nil && errors.Is(ctx.Err(), context.DeadlineExceeded) {
			return fmt.Errorf("sandbox: %s %s did not finish within the start's time limit of %v; killed", step, bin, cfg.StartTimeout)
		}
		return err
	}
	layout, err := mysqld.Inspect(ctx, bin)
	if layout != nil && cfg.Describe != nil {
		for _, line := range layout.Describe() {
			cfg.Describe(line)
		}
	}
	if err != nil {
		return nil, ended("reading the version of", fmt.Errorf("sandbox: %w", err))
	}
	SweepStale(cfg.TempDir)
	dir, err := os.MkdirTemp(cfg.TempDir, dirPrefix)
	if err != nil {
		return nil, fmt.Errorf("sandbox: %w", err)
	}
	if err := writeOwner(dir); err != nil {
		_ = os.RemoveAll(dir)
		return nil, fmt.Errorf("sandbox: %w", err)
	}
	s := &Server{
		Binary:  bin,
		MariaDB: layout.Version.MariaDB,
		Version: layout.Version.Line,
		Dir:     dir,
		DataDir: filepath.Join(dir, "data"),
		Socket:  filepath.Join(dir, "mysqld.sock"),
		LogFile: filepath.Join(dir, "error.log"),
		Layout:  layout,
		keepDir: cfg.KeepDir,
	}
	if len(s.Socket) > 100 {
		s.removeDir()
		return nil, fmt.Errorf("sandbox: socket path %q is too long for a Unix socket; use a shorter TempDir", s.Socket)
	}
	if err := s.initDataDir(ctx); err != nil {
		s.removeDir()
		return nil, ended("initialising the data directory with", err)
	}
	// A free port can be taken by someone else between our probe and the
	// server's bind; try a few ports before giving up.
	var logStart int64 // where this attempt's lines begin in the error log
	for attempt := 0; ; attempt++ {
		if s.Port, err = freePort(); err != nil {
			s.removeDir()
			return nil, err
		}
		logStart = fileSize(s.LogFile)
		err = s.start(ctx, cfg)
		if err == nil {
			return s, nil
		}
		_ = s.kill()
		if parent.Err() != nil {
			s.removeDir()
			return nil, err
		}
		if attempt == 2 || !strings.Contains(s.logTail(), "Address already in use") {
			break
		}
	}
	err = &StartError{Err: err, ServerError: s.firstLogError(logStart), LogTail: s.logTail()}
	s.removeDir()
	return nil, err
}

// tuning keeps start-up fast and the footprint small: tests need real users
// and InnoDB, but not a big buffer pool, a binary log or performance_schema.
// The server's temporary files go to a private directory: in the shared
// /tmp, someone else's clean-up once deleted a bootstrap's temporary table
// under it ("Error on delete of '/tmp/#sql-temptable-….MAI'").
func (s *Server) tuning() []string {
	opts := []string{
		"--tmpdir=" + s.TmpDir(),
		"--innodb-buffer-pool-size=64M",
		"--innodb-log-file-size=16M",
		"--skip-log-bin",
		"--performance-schema=OFF",
	}
	if os.Geteuid() == 0 {
		// mysqld refuses to run as root unless told to.
		opts = append(opts, "--user=root")
	}
	return opts
}

// TmpDir is the server's --tmpdir, inside Dir.
func (s *Server) TmpDir() string { return filepath.Join(s.Dir, "tmp") }

// initDataDir initialises the data directory with the server binary itself
// (mysqld.Layout.Initialise), not mariadb-install-db: the install script
// works only in the layout it was installed in.
func (s *Server) initDataDir(ctx context.Context) error {
	if err := os.Mkdir(s.TmpDir(), 0o700); err != nil {
		return fmt.Errorf("sandbox: %w", err)
	}
	if err := s.Layout.Initialise(ctx, s.DataDir, s.tuning(), s.LogFile); err != nil {
		return fmt.Errorf("sandbox: %w", err)
	}
	return nil
}

// start runs the server on the initialised data directory and waits until
// it accepts connections; ctx carries the start's deadline.
func (s *Server) start(ctx context.Context, cfg Config) error {
	args := append([]string{"--no-defaults", "--datadir=" + s.DataDir}, s.Layout.ServerArgs()...)
	args = append(args, s.tuning()...)
	args = append(args,
		"--socket="+s.Socket,
		"--port="+strconv.Itoa(s.Port),
		"--bind-address=127.0.0.1",
		"--pid-file="+filepath.Join(s.Dir, "mysqld.pid"),
		"--log-error="+s.LogFile,
		"--max-connections="+strconv.Itoa(cfg.MaxConnections),
		"--skip-name-resolve",
	)
	if !s.MariaDB {
		args = append(args, "--mysqlx=OFF")
	}
	for _, o := range cfg.Options {
		if !strings.HasPrefix(o, "--") {
			o = "--" + o
		}
		args = append(args, o)
	}
	s.cmd = exec.Command(s.Binary, args...)
	// Relative file names in options resolve inside the server's own
	// directory, whichever base the server uses for them (its data
	// directory, or its working directory for tmpdir): see confine.go.
	s.cmd.Dir = s.DataDir
	// Own process group: a Ctrl-C aimed at the test binary must not kill the
	// server before Stop has had a chance to shut it down cleanly. The
	// parent-death signal (on Linux) kills the server when we die without
	// Stop (SIGKILL, a crash), so no server outlives us.
	s.cmd.SysProcAttr = mysqld.GroupAttr()
	s.exited = make(chan struct{})
	started := make(chan error, 1)
	go func(cmd *exec.Cmd, exited chan struct{}) {
		defer close(exited)
		// The kernel sends the parent-death signal when the thread that
		// forked the child ends, not the process; Go may end an idle thread,
		// so this goroutine keeps the forking thread until the server exits.
		runtime.LockOSThread()
		defer runtime.UnlockOSThread()
		if err := cmd.Start(); err != nil {
			started <- err
			return
		}
		started <- nil
		s.waitErr = cmd.Wait()
	}(s.cmd, s.exited)
	if err := <-started; err != nil {
		return fmt.Errorf("sandbox: starting %s: %w", s.Binary, err)
	}
	return s.waitReady(ctx)
}

// waitReady polls a root connection over the socket until it works, the
// server process dies, or ctx ends (cancelled, or the start's deadline).
func (s *Server) waitReady(ctx context.Context) error {
	db, err := s.OpenDB("")
	if err != nil {
		return err
	}
	defer db.Close()
	var lastErr error
	for {
		select {
		case <-s.exited:
			return fmt.Errorf("sandbox: server exited during start-up: %v", s.waitErr)
		default:
		}
		pctx, cancel := context.WithTimeout(ctx, time.Second)
		lastErr = db.PingContext(pctx)
		cancel()
		if lastErr == nil {
			return nil
		}
		select {
		case <-ctx.Done():
			if errors.Is(ctx.Err(), context.DeadlineExceeded) {
				return fmt.Errorf("sandbox: server did not accept connections in time: %v", lastErr)
			}
			return fmt.Errorf("sandbox: waiting for the server: %w", ctx.Err())
		case <-s.exited:
		case <-time.After(50 * time.Millisecond):
		}
	}
}

// RootConfig is a driver configuration for root over the server's socket,
// with the given default database ("" for none).
func (s *Server) RootConfig(database string) *mysql.Config {
	c := mysql.NewConfig()
	c.User = "root"
	c.Net = "unix"
	c.Addr = s.Socket
	c.DBName = database
	c.MultiStatements = true
	c.Timeout = 5 * time.Second
	return c
}

// OpenDB opens a database/sql handle as root over the socket.
func (s *Server) OpenDB(database string) (*sql.DB, error) {
	conn, err := mysql.NewConnector(s.RootConfig(database))
	if err != nil {
		return nil, fmt.Errorf("sandbox: %w", err)
	}
	return sql.OpenDB(conn), nil
}

// Stop shuts the server down (SIGTERM, then SIGKILL after 30 s) and removes
// its directory unless KeepDir was set. Safe to call more than once and from
// several goroutines; later calls return the first call's result.
func (s *Server) Stop() error {
	s.stopOnce.Do(func() {
		s.stopErr = s.terminate(30 * time.Second)
		s.removeDir()
	})
	return s.stopErr
}

func (s *Server) terminate(grace time.Duration) error {
	if s.cmd == nil || s.cmd.Process == nil {
		return nil
	}
	select {
	case <-s.exited:
		return nil
	default:
	}
	if err := s.cmd.Process.Signal(syscall.SIGTERM); err != nil && !errors.Is(err, os.ErrProcessDone) {
		return s.kill()
	}
	select {
	case <-s.exited:
		return nil
	case <-time.After(grace):
		_ = s.kill()
		return fmt.Errorf("sandbox: server did not stop within %v after SIGTERM; killed", grace)
	}
}

func (s *Server) kill() error {
	if s.cmd == nil || s.cmd.Process == nil {
		return nil
	}
	select {
	case <-s.exited:
		return nil
	default:
	}
	err := s.cmd.Process.Kill()
	<-s.exited
	return err
}

func (s *Server) removeDir() {
	if s.Dir == "" {
		return
	}
	if s.keepDir {
		// Kept for debugging: no longer a candidate for SweepStale.
		_ = os.Remove(filepath.Join(s.Dir, ownerFile))
		return
	}
	_ = os.RemoveAll(s.Dir)
}

// logTail is the end of the server's error log, for error messages.
func (s *Server) logTail() string {
	b, err := os.ReadFile(s.LogFile)
	if err != nil {
		return ""
	}
	return string(mysqld.Tail(b, 15))
}

// freePort asks the kernel for an unused loopback port.
func freePort() (int, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, fmt.Errorf("sandbox: finding a free port: %w", err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port, nil
}

// InCI reports whether we run under CI (CI=true), where a test that needs a
// server must fail rather than skip.
func InCI() bool { return os.Getenv("CI") == "true" }
