package target

import (
	"context"
	"database/sql"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/go-sql-driver/mysql"
	"github.com/goslap/goslap/internal/sandbox"
)

// requireServer skips (fails under CI=true) when no server binary exists.
func requireServer(t *testing.T) string {
	t.Helper()
	bin, err := sandbox.FindServer()
	if err != nil {
		if sandbox.InCI() {
			t.Fatal(err)
		}
		t.Skip(err)
	}
	return bin
}

// shortTempDir is a private parent directory for sandboxes, short enough for
// their Unix socket paths.
func shortTempDir(t *testing.T) string {
	t.Helper()
	dir, err := os.MkdirTemp("", "gsc")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	return dir
}

// ProcessesUsing lists the processes whose command line mentions dir (a
// sandbox's server or its mariadb-install-db), by scanning /proc.
func ProcessesUsing(dir string) []string {
	var found []string
	ents, _ := os.ReadDir("/proc")
	for _, e := range ents {
		if e.Name()[0] < '0' || e.Name()[0] > '9' {
			continue
		}
		b, err := os.ReadFile(filepath.Join("/proc", e.Name(), "cmdline"))
		if err != nil {
			continue
		}
		cmd := strings.ReplaceAll(string(b), "\x00", " ")
		if strings.Contains(cmd, dir) {
			found = append(found, e.Name()+": "+cmd)
		}
	}
	return found
}

// AssertClean fails t if a process still uses dir or dir is not empty.
func AssertClean(t *testing.T, dir string) {
	t.Helper()
	// A killed process can linger in /proc for a moment as a zombie of its parent.
	deadline := time.Now().Add(5 * time.Second)
	for len(ProcessesUsing(dir)) > 0 && time.Now().Before(deadline) {
		time.Sleep(50 * time.Millisecond)
	}
	if ps := ProcessesUsing(dir); len(ps) > 0 {
		t.Errorf("processes left behind:\n%s", strings.Join(ps, "\n"))
	}
	ents, err := os.ReadDir(dir)
	if err != nil {
		t.Errorf("reading %s: %v", dir, err)
	}
	for _, e := range ents {
		t.Errorf("left behind in %s: %s", dir, e.Name())
	}
}

func TestShortVersion(t *testing.T) {
	tests := []struct{ bin, line, want string }{
		{"/usr/sbin/mariadbd", "/usr/sbin/mariadbd  Ver 10.11.19-MariaDB-0+deb12u1 for debian-linux-gnu on x86_64 (Debian 12)", "mariadbd 10.11.19-MariaDB-0+deb12u1"},
		{"/opt/mysql/bin/mysqld", "/opt/mysql/bin/mysqld  Ver 8.0.36 for Linux on x86_64 (MySQL Community Server - GPL)", "mysqld 8.0.36"},
		{"/x/mysqld", "something else", "something else"},
	}
	for _, tt := range tests {
		if got := ShortVersion(tt.bin, tt.line); got != tt.want {
			t.Errorf("ShortVersion(%q) = %q, want %q", tt.line, got, tt.want)
		}
	}
}

func TestStartSandboxReal(t *testing.T) {
	bin := requireServer(t)
	dir := shortTempDir(t)
	started := time.Now()
	sb, err := StartSandbox(context.Background(), bin, []string{"innodb_buffer_pool_size=48M"}, dir)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("sandbox %s up in %v", sb.Version, time.Since(started))
	if !strings.HasPrefix(sb.Dir, dir) || !strings.HasPrefix(sb.Endpoint.Socket, sb.Dir) || sb.Endpoint.Port == 0 {
		t.Errorf("sandbox outside its directory: %+v in %s", sb.Endpoint, sb.Dir)
	}
	if len(ProcessesUsing(dir)) == 0 {
		t.Error("no server process found under the sandbox directory")
	}
	// The server option reached the server.
	cfg := mysql.NewConfig()
	cfg.User, cfg.Net, cfg.Addr = sb.Endpoint.User, "unix", sb.Endpoint.Socket
	conn, err := mysql.NewConnector(cfg)
	if err != nil {
		t.Fatal(err)
	}
	db := sql.OpenDB(conn)
	var size int64
	if err := db.QueryRow("SELECT @@innodb_buffer_pool_size").Scan(&size); err != nil {
		t.Fatal(err)
	}
	db.Close()
	if size != 48<<20 {
		t.Errorf("innodb_buffer_pool_size = %d, want %d", size, 48<<20)
	}
	if err := sb.Stop(); err != nil {
		t.Fatal(err)
	}
	AssertClean(t, dir)
}

func TestStartSandboxFailuresLeaveNothing(t *testing.T) {
	bin := requireServer(t)
	tests := []struct {
		name    string
		binary  string
		opts    []string
		cancel  bool
		wantErr string
	}{
		// The server's own reason in one line, not "exit status 7" and a log.
		{name: "bad server option", binary: bin, opts: []string{"no_such_server_option=1"},
			wantErr: "sandbox " + bin + " did not start: " + bin + ": unknown variable 'no_such_server_option=1'"},
		{name: "bad server option value", binary: bin, opts: []string{"innodb_buffer_pool_size=abc"},
			wantErr: "sandbox " + bin + " did not start: Unknown suffix 'a' used for variable 'innodb-buffer-pool-size' (value 'abc')."},
		{name: "cancelled during start-up", binary: bin, cancel: true, wantErr: "context canceled"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := shortTempDir(t)
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			if tt.cancel {
				go func() {
					// Cancel once the sandbox directory exists (initialisation under way).
					for {
						if ents, _ := os.ReadDir(dir); len(ents) > 0 {
							cancel()
							return
						}
						time.Sleep(10 * time.Millisecond)
					}
				}()
			}
			sb, err := StartSandbox(ctx, tt.binary, tt.opts, dir)
			if err == nil {
				sb.Stop()
				t.Fatal("sandbox started")
			}
			if !strings.Contains(err.Error(), tt.wantErr) || strings.Contains(err.Error(), "\n") {
				t.Errorf("error = %q, want one line with %q", err, tt.wantErr)
			}
			if tt.cancel && !errors.Is(err, context.Canceled) {
				t.Errorf("error %v is not context.Canceled", err)
			}
			AssertClean(t, dir)
		})
	}
}
