package mysqld

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
)

// bootstrapPreamble is what mariadb-install-db sends before the scripts:
// the scripts expect the mysql database to be current, and
// @auth_root_socket NULL makes root a password-less account (as
// --auth-root-authentication-method=normal) instead of a unix_socket one
// tied to the operating-system user.
const bootstrapPreamble = "CREATE DATABASE IF NOT EXISTS mysql;\nUSE mysql;\nSET @auth_root_socket=NULL;\n"

// initCommand is the server command line that initialises dataDir, and for
// Bootstrap the scripts fed to it on standard input. options are extra
// server options (buffer sizes, --user); logFile receives the server's log
// under --initialize-insecure ("" for standard error).
func (l *Layout) initCommand(dataDir string, options []string, logFile string) (args []string, scripts []string) {
	args = append([]string{"--no-defaults", "--datadir=" + dataDir}, l.ServerArgs()...)
	args = append(args, options...)
	if l.Version.Method() == InitializeInsecure {
		args = append(args, "--initialize-insecure")
		if logFile != "" {
			args = append(args, "--log-error="+logFile)
		}
		return args, nil
	}
	// As mariadb-install-db: no warnings about the bootstrap's own
	// statements, any engine for the system tables whatever the options
	// enforce, room for the help tables' long rows.
	args = append(args, "--bootstrap", "--log-warnings=0")
	if l.Version.MariaDB && l.Version.atLeast(10, 1, 0) {
		args = append(args, "--enforce-storage-engine=")
	}
	args = append(args, "--max-allowed-packet=8M", "--net-buffer-length=16K")
	return args, l.SQL
}

// Initialise creates and initialises dataDir, which must not exist yet or
// be empty, with root@localhost having no password. It gives up when ctx
// ends. The error carries the end of the server's output.
func (l *Layout) Initialise(ctx context.Context, dataDir string, options []string, logFile string) error {
	args, scripts := l.initCommand(dataDir, options, logFile)
	cmd := groupCommand(ctx, l.Binary, args...)
	// Nothing of the initialisation lands outside the directory: the
	// server's working directory is the one dataDir is in.
	cmd.Dir = filepath.Dir(dataDir)
	if l.Version.Method() == Bootstrap {
		// --bootstrap does not create the directory.
		if err := os.MkdirAll(dataDir, 0o700); err != nil {
			return err
		}
		in, closeAll, err := bootstrapInput(scripts)
		if err != nil {
			return err
		}
		defer closeAll()
		cmd.Stdin = in
	}
	out, err := runLocked(cmd)
	if err == nil && l.Version.Method() == Bootstrap {
		if _, serr := os.Stat(filepath.Join(dataDir, "mysql")); serr != nil {
			err = fmt.Errorf("the server exited without creating the mysql database")
		}
	}
	if err != nil {
		if ctx.Err() != nil {
			return fmt.Errorf("initialising %s with %s: %w", dataDir, l.Binary, ctx.Err())
		}
		logTail := ""
		if logFile != "" {
			if b, rerr := os.ReadFile(logFile); rerr == nil {
				logTail = string(Tail(b, 15))
			}
		}
		return fmt.Errorf("initialising %s with %s %s failed: %v\n%s%s", dataDir, l.Binary, l.Version.Method(), err, Tail(out, 20), logTail)
	}
	if l.Version.MariaDB {
		// What mariadb-install-db leaves so that mariadb-upgrade knows the
		// tables are current.
		n := l.Version.Number
		if i := strings.Index(n, "-MariaDB"); i >= 0 {
			n = n[:i+len("-MariaDB")]
		}
		_ = os.WriteFile(filepath.Join(dataDir, "mysql_upgrade_info"), []byte(n), 0o600)
	}
	return nil
}

// bootstrapInput is the preamble followed by the scripts, each ended by a
// newline (a script without a final newline would run into the next).
func bootstrapInput(scripts []string) (io.Reader, func(), error) {
	readers := []io.Reader{strings.NewReader(bootstrapPreamble)}
	var files []*os.File
	closeAll := func() {
		for _, f := range files {
			f.Close()
		}
	}
	for _, p := range scripts {
		f, err := os.Open(p)
		if err != nil {
			closeAll()
			return nil, nil, err
		}
		files = append(files, f)
		readers = append(readers, f, strings.NewReader("\n"))
	}
	return io.MultiReader(readers...), closeAll, nil
}

// Tail is the last lines of b, for error messages.
func Tail(b []byte, lines int) []byte {
	var all [][]byte
	sc := bufio.NewScanner(bytes.NewReader(b))
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		all = append(all, append([]byte(nil), sc.Bytes()...))
	}
	if len(all) > lines {
		all = all[len(all)-lines:]
	}
	if len(all) == 0 {
		return nil
	}
	return append(bytes.Join(all, []byte("\n")), '\n')
}
