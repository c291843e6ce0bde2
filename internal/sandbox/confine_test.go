package sandbox_test

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	. "github.com/goslap/goslap/internal/sandbox"
	"github.com/goslap/goslap/internal/sandbox/servertest"
)

func TestCheckOption(t *testing.T) {
	tests := []struct {
		opt  string
		want string // "" accepted, else a part of the refusal
	}{
		// Accepted: settings, bare switches, relative file names.
		{"innodb_buffer_pool_size=1G", ""},
		{"--skip-innodb-adaptive-hash-index", ""},
		{"skip-name-resolve", ""},
		{"sql_mode=STRICT_ALL_TABLES,NO_ZERO_DATE", ""},
		{"optimizer_switch=index_merge=off,mrr=on", ""},
		{"default_time_zone=+00:00", ""},
		{"log_error=x.err", ""},
		{"log_bin", ""},
		{"log-bin=binlogs/bin", ""},
		{"general_log_file=logs/g..log", ""},
		{"innodb_data_file_path=ibdata1:12M:autoextend", ""},
		{"port_open_timeout=5", ""},
		{"hot_cache.key_buffer_size=1M", ""},
		{"x=b c", ""},
		{"a=1", "sandbox's admin_address"}, // ambiguous to the server; refused all the same

		// goslap's own settings, in every spelling the server takes.
		{"datadir=d", "sandbox's datadir"},
		{"--datadir=/srv/x", "sandbox's datadir"},
		{"socket=s.sock", "sandbox's socket"},
		{"pid_file=p", "sandbox's pid_file"},
		{"pid-file=p", "sandbox's pid_file"},
		{"PID_FILE=p", "sandbox's pid_file"},
		{"loose-pid-file=p", "sandbox's pid_file"},
		{"--loose_pid_file=p", "sandbox's pid_file"},
		{"pid=p", "sandbox's pid_file"}, // a unique prefix
		{"port=3306", "sandbox's port"},
		{"maximum-port=1", "sandbox's port"},
		{"basedir=b", "sandbox's basedir"},
		{"bind-address=0.0.0.0", "sandbox's bind_address"},
		{"skip-bind-address", "sandbox's bind_address"},
		{"mysqlx=ON", "sandbox's mysqlx"},
		{"cache.datadir=x", "sandbox's datadir"},
		{"plugin_dir=lib/plugin", "sandbox's plugin_dir"}, // relative to basedir, not inside
		{"plugin-d=x", "sandbox's plugin_dir"},
		{"lc-messages-dir=share", "sandbox's lc_messages_dir"},
		{"character_sets_dir=charsets", "sandbox's character_sets_dir"},
		{"lc_messages=de_DE", ""}, // the language, an option of its own
		{"plugin_load_add=ha_rocksdb", ""},

		// Values that reach out, whatever the option.
		{"log_error=/x/F", "/x/F is outside"},
		{"log-error=../F", "../F is outside"},
		{"log_bin=/x", "/x is outside"},
		{"log_bin_index=a/../../i", "a/../../i is outside"},
		{"relay_log=/r", "/r is outside"},
		{"general_log_file=..", ".. is outside"},
		{"slow_query_log_file=~/s", "~/s is outside"},
		{"tmpdir=/t", "/t is outside"},
		{"innodb_undo_directory=../u", "../u is outside"},
		{"innodb_data_home_dir=/d", "/d is outside"},
		{"innodb_data_file_path=ibdata1:12M;/x/ibdata2:12M:autoextend", "/x/ibdata2 is outside"},
		{"aria_log_dir_path=/a", "/a is outside"},
		{"plugin_maturity=/p", "/p is outside"},
		{"plugin_load_add=x=../../lib.so", "../../lib.so is outside"},
		{"init_file=/i.sql", "/i.sql is outside"},
		{"secure_file_priv=/", "/ is outside"},
		{"character_set_filesystem=/c", "/c is outside"},
		{"ssl_cert=/c.pem", "/c.pem is outside"},
		{"log_tc=/tc.log", "/tc.log is outside"},
		{"loose-log-error='/q'", "/q is outside"},
		{"some_future_file_option=x,/y", "/y is outside"},

		// Not an option at all.
		{"/x", "not a server option"},
		{"=1", "not a server option"},
		{"", "not a server option"},
	}
	for _, tc := range tests {
		err := CheckOption(tc.opt)
		switch {
		case tc.want == "" && err != nil:
			t.Errorf("CheckOption(%q) = %v, want accepted", tc.opt, err)
		case tc.want != "" && err == nil:
			t.Errorf("CheckOption(%q) accepted, want refused (%s)", tc.opt, tc.want)
		case tc.want != "":
			var oe *OptionError
			if !errors.As(err, &oe) || oe.Option != tc.opt {
				t.Errorf("CheckOption(%q) = %#v, want an *OptionError naming the option", tc.opt, err)
			}
			if msg := err.Error(); !strings.Contains(msg, tc.want) || !strings.HasPrefix(msg, tc.opt+": ") || strings.Contains(msg, "\n") {
				t.Errorf("CheckOption(%q) = %q, want one line starting with the option and containing %q", tc.opt, msg, tc.want)
			}
		}
	}
}

// TestStartRefusesBeforeRunningAnything: a refused option costs nothing —
// not even the binary's --version.
func TestStartRefusesBeforeRunningAnything(t *testing.T) {
	dir := t.TempDir()
	ran := filepath.Join(dir, "ran")
	bin := filepath.Join(dir, "mariadbd")
	if err := os.WriteFile(bin, []byte("#!/bin/sh\ntouch '"+ran+"'\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	_, err := Start(Config{Binary: bin, TempDir: dir, Options: []string{"innodb_buffer_pool_size=64M", "pid_file=" + filepath.Join(dir, "decoy")}})
	var oe *OptionError
	if !errors.As(err, &oe) {
		t.Fatalf("Start = %v, want an *OptionError", err)
	}
	if _, err := os.Stat(ran); err == nil {
		t.Error("the binary ran although an option was refused")
	}
	if ents, _ := os.ReadDir(dir); len(ents) != 1 {
		t.Errorf("%s holds %d entries, want only the binary", dir, len(ents))
	}
}

// TestRelativeFileNamesStayInside: the file names a confined server may be
// given (relative, no "..") land inside its directory, and nowhere else:
// not in the working directory of the process that started it, not beside
// its directory.
func TestRelativeFileNamesStayInside(t *testing.T) {
	servertest.Require(t)
	parent, err := os.MkdirTemp("", "gsr") // short: the socket path is limited
	if err != nil {
		t.Fatal(err)
	}
	defer os.RemoveAll(parent)
	files := []string{"x.err", "g.log", "s.log", "bin.000001", "bin.index"}
	cwd, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	s, err := Start(Config{TempDir: parent, MaxConnections: 20, Options: []string{
		"log_error=x.err", "general_log=1", "general_log_file=g.log",
		"slow_query_log=1", "slow_query_log_file=s.log", "log_bin=bin", "server_id=1"}})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Stop()
	found := map[string]string{}
	err = filepath.WalkDir(s.Dir, func(p string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			found[d.Name()] = p
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range files {
		if found[f] == "" {
			t.Errorf("%s is not inside the server's directory %s", f, s.Dir)
		}
		if _, err := os.Stat(filepath.Join(cwd, f)); err == nil {
			t.Errorf("%s was created in the working directory %s", f, cwd)
		}
	}
	if ents, _ := os.ReadDir(parent); len(ents) != 1 {
		t.Errorf("%s holds %d entries, want only the server's directory", parent, len(ents))
	}
	// The server resolves some names (pid_file, for one) against its
	// working directory: that is inside too.
	pid, err := os.ReadFile(filepath.Join(s.Dir, "mysqld.pid"))
	if err != nil {
		t.Fatal(err)
	}
	wd, err := os.Readlink("/proc/" + strings.TrimSpace(string(pid)) + "/cwd")
	if err != nil {
		t.Fatal(err)
	}
	if wd != s.DataDir {
		t.Errorf("the server's working directory is %s, want %s", wd, s.DataDir)
	}
}
