package mysqld

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

var (
	mariadb1011 = mustVersion("/x/mariadbd  Ver 10.11.18-MariaDB-0+deb12u1 for debian-linux-gnu on x86_64 (Debian 12)")
	mysql80     = mustVersion("/x/mysqld  Ver 8.0.36 for Linux on x86_64 (MySQL Community Server - GPL)")
	mysql55     = mustVersion("/x/mysqld  Ver 5.5.62 for linux-glibc2.12 on x86_64 (MySQL Community Server (GPL))")
)

func mustVersion(line string) Version {
	v, err := ParseVersion(line)
	if err != nil {
		panic(err)
	}
	return v
}

// tree creates files below root: a name ending in "/" is a directory, a
// name under bin/, sbin/ or sql/ or named *d is an executable.
func tree(t *testing.T, root string, names ...string) {
	t.Helper()
	for _, n := range names {
		p := filepath.Join(root, n)
		if strings.HasSuffix(n, "/") {
			if err := os.MkdirAll(p, 0o755); err != nil {
				t.Fatal(err)
			}
			continue
		}
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		mode := os.FileMode(0o644)
		if base := filepath.Base(n); base == "mariadbd" || base == "mysqld" {
			mode = 0o755
		}
		if err := os.WriteFile(p, []byte("-- "+n+"\n"), mode); err != nil {
			t.Fatal(err)
		}
	}
}

// allSQL are the bootstrap scripts below dir, in feeding order.
func allSQL(dir string) []string {
	var out []string
	for _, f := range bootstrapSQL {
		out = append(out, filepath.Join(dir, f.name))
	}
	return out
}

func sqlNames(dir string) []string {
	var out []string
	for _, f := range bootstrapSQL {
		out = append(out, dir+f.name)
	}
	return out
}

func TestLocate(t *testing.T) {
	type want struct {
		base, lang, charsets, plugins string
		sql                           []string // nil: none expected
		missing                       []string // Layout.Missing prefixes
		err                           string   // a *MissingError containing this
		borrowed                      int      // sources taken from the fallback
	}
	tests := []struct {
		name     string
		files    []string
		binary   string
		version  Version
		fallback func(root string) *Layout
		want     func(root string) want
	}{
		{
			name: "extracted Debian package (dpkg-deb -x)",
			files: append([]string{"usr/sbin/mariadbd", "usr/share/mysql/english/errmsg.sys", "usr/share/mysql/charsets/Index.xml"},
				sqlNames("usr/share/mysql/")...),
			binary: "usr/sbin/mariadbd", version: mariadb1011,
			want: func(r string) want {
				u := filepath.Join(r, "usr")
				return want{base: u, lang: u + "/share/mysql", charsets: u + "/share/mysql/charsets",
					sql: allSQL(u + "/share/mysql"), missing: []string{"plugin directory"}}
			},
		},
		{
			name: "share/mariadb wins over share/mysql",
			files: append(append([]string{"usr/sbin/mariadbd", "usr/share/mariadb/english/errmsg.sys", "usr/share/mysql/english/errmsg.sys",
				"usr/share/mariadb/charsets/Index.xml", "usr/lib/mysql/plugin/"}, sqlNames("usr/share/mariadb/")...), sqlNames("usr/share/mysql/")...),
			binary: "usr/sbin/mariadbd", version: mariadb1011,
			want: func(r string) want {
				u := filepath.Join(r, "usr")
				return want{base: u, lang: u + "/share/mariadb", charsets: u + "/share/mariadb/charsets", plugins: u + "/lib/mysql/plugin",
					sql: allSQL(u + "/share/mariadb")}
			},
		},
		{
			name: "MariaDB binary tarball",
			files: append([]string{"bin/mariadbd", "share/english/errmsg.sys", "share/charsets/Index.xml", "lib/plugin/"},
				sqlNames("share/")...),
			binary: "bin/mariadbd", version: mariadb1011,
			want: func(r string) want {
				return want{base: r, lang: r + "/share", charsets: r + "/share/charsets", plugins: r + "/lib/plugin", sql: allSQL(r + "/share")}
			},
		},
		{
			name: "build directory with its source tree in CMakeCache.txt",
			files: []string{"build/sql/mariadbd", "build/sql/share/english/errmsg.sys",
				"build/scripts/maria_add_gis_sp_bootstrap.sql", "build/scripts/mysql_sys_schema.sql",
				"src/scripts/mysql_system_tables.sql", "src/scripts/mysql_performance_tables.sql",
				"src/scripts/mysql_system_tables_data.sql", "src/scripts/fill_help_tables.sql",
				"src/sql/share/charsets/Index.xml"},
			binary: "build/sql/mariadbd", version: mariadb1011,
			want: func(r string) want {
				b, s := r+"/build", r+"/src"
				return want{base: b, lang: b + "/sql/share", charsets: s + "/sql/share/charsets", missing: []string{"plugin directory"},
					sql: []string{s + "/scripts/mysql_system_tables.sql", s + "/scripts/mysql_performance_tables.sql",
						s + "/scripts/mysql_system_tables_data.sql", s + "/scripts/fill_help_tables.sql",
						b + "/scripts/maria_add_gis_sp_bootstrap.sql", b + "/scripts/mysql_sys_schema.sql"}}
			},
		},
		{
			name:   "MySQL 8.0 tarball needs no SQL",
			files:  []string{"bin/mysqld", "share/english/errmsg.sys", "share/charsets/Index.xml", "lib/plugin/"},
			binary: "bin/mysqld", version: mysql80,
			want: func(r string) want {
				return want{base: r, lang: r + "/share", charsets: r + "/share/charsets", plugins: r + "/lib/plugin"}
			},
		},
		{
			name:   "MySQL 5.5 tarball is bootstrapped; optional scripts missing",
			files:  []string{"bin/mysqld", "share/english/errmsg.sys", "share/mysql_system_tables.sql", "share/mysql_system_tables_data.sql", "share/fill_help_tables.sql", "lib/plugin/"},
			binary: "bin/mysqld", version: mysql55,
			want: func(r string) want {
				return want{base: r, lang: r + "/share", plugins: r + "/lib/plugin",
					sql:     []string{r + "/share/mysql_system_tables.sql", r + "/share/mysql_system_tables_data.sql", r + "/share/fill_help_tables.sql"},
					missing: []string{"charsets/", "mysql_performance_tables.sql", "maria_add_gis_sp_bootstrap.sql", "mysql_sys_schema.sql"}}
			},
		},
		{
			name:   "binary alone: what is missing is named",
			files:  []string{"usr/sbin/mariadbd", "usr/share/doc/"},
			binary: "usr/sbin/mariadbd", version: mariadb1011,
			want: func(r string) want {
				return want{err: "english/errmsg.sys, mysql_system_tables.sql, mysql_system_tables_data.sql not found in " + r + "/usr/share"}
			},
		},
		{
			name:   "binary alone, borrowing from the installed server of its series",
			files:  []string{"usr/sbin/mariadbd", "inst/share/mysql/english/errmsg.sys", "inst/lib/mysql/plugin/"},
			binary: "usr/sbin/mariadbd", version: mariadb1011,
			fallback: func(r string) *Layout {
				i := r + "/inst"
				return &Layout{Binary: i + "/sbin/mariadbd", Version: mariadb1011, LangDir: i + "/share/mysql",
					PluginDir: i + "/lib/mysql/plugin", SQL: allSQL(i + "/share/mysql")}
			},
			want: func(r string) want {
				i := r + "/inst"
				return want{base: r + "/usr", lang: i + "/share/mysql", plugins: i + "/lib/mysql/plugin", sql: allSQL(i + "/share/mysql"),
					missing: []string{"charsets/"}, borrowed: 8}
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			root := t.TempDir()
			tree(t, root, tt.files...)
			if strings.HasPrefix(tt.binary, "build/") {
				if err := os.WriteFile(filepath.Join(root, "build/CMakeCache.txt"),
					[]byte("# cache\nCMAKE_BUILD_TYPE:STRING=RelWithDebInfo\nCMAKE_HOME_DIRECTORY:INTERNAL="+root+"/src\n"), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			var fb *Layout
			if tt.fallback != nil {
				fb = tt.fallback(root)
			}
			w := tt.want(root)
			l, err := Locate(filepath.Join(root, tt.binary), tt.version, fb)
			if w.err != "" {
				var me *MissingError
				if !errors.As(err, &me) || !strings.Contains(err.Error(), w.err) {
					t.Fatalf("error = %v, want a MissingError with %q", err, w.err)
				}
				if !strings.Contains(err.Error(), "extract the whole package") || strings.Contains(err.Error(), "\n") {
					t.Errorf("error is not one line saying how to get the files: %v", err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			got := want{base: l.BaseDir, lang: l.LangDir, charsets: l.CharsetsDir, plugins: l.PluginDir, sql: l.SQL}
			for _, m := range l.Missing {
				got.missing = append(got.missing, m)
			}
			for _, s := range l.Sources {
				if strings.HasPrefix(s.From, "borrowed from the installed") {
					got.borrowed++
				} else if s.From != fromBinary {
					t.Errorf("source %v: from %q", s, s.From)
				}
				if !strings.HasPrefix(s.Path, root) {
					t.Errorf("source %v outside the tree", s)
				}
			}
			if len(got.missing) != len(w.missing) {
				t.Errorf("missing = %q, want %q", got.missing, w.missing)
			} else {
				for i := range w.missing {
					if !strings.HasPrefix(got.missing[i], w.missing[i]) {
						t.Errorf("missing = %q, want %q", got.missing, w.missing)
					}
				}
			}
			got.missing, w.missing = nil, nil
			if !reflect.DeepEqual(got, w) {
				t.Errorf("layout\n got %+v\nwant %+v", got, w)
			}
		})
	}
}

func TestLocateFollowsSymlink(t *testing.T) {
	root := t.TempDir()
	tree(t, root, append([]string{"opt/mariadb/bin/mariadbd", "opt/mariadb/share/english/errmsg.sys", "local/bin/"}, sqlNames("opt/mariadb/share/")...)...)
	link := filepath.Join(root, "local/bin/mariadbd")
	if err := os.Symlink(filepath.Join(root, "opt/mariadb/bin/mariadbd"), link); err != nil {
		t.Fatal(err)
	}
	l, err := Locate(link, mariadb1011, nil)
	if err != nil {
		t.Fatal(err)
	}
	if want := filepath.Join(root, "opt/mariadb/share"); l.LangDir != want {
		t.Errorf("LangDir = %s, want %s", l.LangDir, want)
	}
}

func TestFindInDirectories(t *testing.T) {
	root := t.TempDir()
	tree(t, root,
		"extract/usr/sbin/mariadbd", "extract/usr/sbin/mysqld", "extract/usr/share/doc/",
		"tarball/bin/mysqld", "build/sql/mariadbd", "build/sql/share/", "empty/share/", "notexec")
	tests := []struct{ in, want, wantErr string }{
		{in: "extract", want: "extract/usr/sbin/mariadbd"},
		{in: "extract/usr", want: "extract/usr/sbin/mariadbd"},
		{in: "tarball", want: "tarball/bin/mysqld"},
		{in: "tarball/bin/mysqld", want: "tarball/bin/mysqld"},
		{in: "build", want: "build/sql/mariadbd"},
		{in: "empty", wantErr: "has no bin/mariadbd"},
		{in: "nope/mysqld", wantErr: "does not exist"},
		{in: "notexec", wantErr: "not an executable"},
	}
	for _, tt := range tests {
		got, err := Find(filepath.Join(root, tt.in))
		if tt.wantErr != "" {
			if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
				t.Errorf("Find(%s) = %q, %v; want error %q", tt.in, got, err, tt.wantErr)
			}
			continue
		}
		if want := filepath.Join(root, tt.want); err != nil || got != want {
			t.Errorf("Find(%s) = %q, %v; want %s", tt.in, got, err, want)
		}
	}
	if _, err := Find("no-such-server-binary-xyz"); err == nil || !errors.Is(err, ErrNoServer) {
		t.Errorf("Find(bare unknown name) error = %v", err)
	}
}

func TestParseVersion(t *testing.T) {
	tests := []struct {
		line           string
		number, series string
		mariadb        bool
		method         Method
	}{
		{"/usr/sbin/mariadbd  Ver 10.11.19-MariaDB-0+deb12u1 for debian-linux-gnu on x86_64 (Debian 12)", "10.11.19-MariaDB-0+deb12u1", "10.11", true, Bootstrap},
		{"/usr/sbin/mysqld  Ver 10.3.39-MariaDB-0+deb10u1 for debian-linux-gnu on x86_64 (Debian 10)", "10.3.39-MariaDB-0+deb10u1", "10.3", true, Bootstrap},
		{"/opt/mysql/bin/mysqld  Ver 8.0.36 for Linux on x86_64 (MySQL Community Server - GPL)", "8.0.36", "8.0", false, InitializeInsecure},
		{"mysqld  Ver 5.7.44 for linux-glibc2.12 on x86_64 (MySQL Community Server (GPL))", "5.7.44", "5.7", false, InitializeInsecure},
		{"mysqld  Ver 5.7.5-m15 for linux-glibc2.5 on x86_64 (MySQL Community Server (GPL))", "5.7.5-m15", "5.7", false, Bootstrap},
		{"mysqld  Ver 5.5.62 for linux-glibc2.12 on x86_64 (MySQL Community Server (GPL))", "5.5.62", "5.5", false, Bootstrap},
		{"/usr/sbin/mysqld  Ver 8.4.3-3 for Linux on x86_64 (Percona Server (GPL), Release '3', Revision 'x')", "8.4.3-3", "8.4", false, InitializeInsecure},
	}
	for _, tt := range tests {
		v, err := ParseVersion(tt.line)
		if err != nil {
			t.Errorf("ParseVersion(%q): %v", tt.line, err)
			continue
		}
		if v.Number != tt.number || v.Series() != tt.series || v.MariaDB != tt.mariadb || v.Method() != tt.method {
			t.Errorf("ParseVersion(%q) = %s series %s mariadb %v %v; want %s %s %v %v", tt.line,
				v.Number, v.Series(), v.MariaDB, v.Method(), tt.number, tt.series, tt.mariadb, tt.method)
		}
	}
	for _, bad := range []string{"something else", "x  Ver abc for y"} {
		if _, err := ParseVersion(bad); err == nil {
			t.Errorf("ParseVersion(%q) succeeded", bad)
		}
	}
}

func TestInitCommand(t *testing.T) {
	maria := &Layout{Binary: "/m/usr/sbin/mariadbd", Version: mariadb1011, BaseDir: "/m/usr", LangDir: "/m/usr/share/mysql",
		CharsetsDir: "/m/usr/share/mysql/charsets", SQL: []string{"/m/a.sql", "/m/b.sql"}}
	mysql8 := &Layout{Binary: "/t/bin/mysqld", Version: mysql80, BaseDir: "/t", LangDir: "/t/share", PluginDir: "/t/lib/plugin"}
	old := &Layout{Binary: "/o/bin/mysqld", Version: mysql55, BaseDir: "/o", LangDir: "/o/share", SQL: []string{"/o/share/x.sql"}}
	tests := []struct {
		name    string
		l       *Layout
		want    []string
		scripts []string
	}{
		{"MariaDB", maria, []string{"--no-defaults", "--datadir=/d", "--basedir=/m/usr", "--lc-messages-dir=/m/usr/share/mysql",
			"--character-sets-dir=/m/usr/share/mysql/charsets", "--user=root", "--bootstrap", "--log-warnings=0",
			"--enforce-storage-engine=", "--max-allowed-packet=8M", "--net-buffer-length=16K"}, maria.SQL},
		{"MySQL 8.0", mysql8, []string{"--no-defaults", "--datadir=/d", "--basedir=/t", "--lc-messages-dir=/t/share",
			"--plugin-dir=/t/lib/plugin", "--user=root", "--initialize-insecure", "--log-error=/l"}, nil},
		{"MySQL 5.5", old, []string{"--no-defaults", "--datadir=/d", "--basedir=/o", "--lc-messages-dir=/o/share", "--user=root",
			"--bootstrap", "--log-warnings=0", "--max-allowed-packet=8M", "--net-buffer-length=16K"}, old.SQL},
	}
	for _, tt := range tests {
		args, scripts := tt.l.initCommand("/d", []string{"--user=root"}, "/l")
		if !reflect.DeepEqual(args, tt.want) || !reflect.DeepEqual(scripts, tt.scripts) {
			t.Errorf("%s:\n got %q %q\nwant %q %q", tt.name, args, scripts, tt.want, tt.scripts)
		}
	}
}

func TestBootstrapInput(t *testing.T) {
	dir := t.TempDir()
	a, b := filepath.Join(dir, "a.sql"), filepath.Join(dir, "b.sql")
	os.WriteFile(a, []byte("SELECT 1;"), 0o644) // no final newline
	os.WriteFile(b, []byte("SELECT 2;\n"), 0o644)
	in, closeAll, err := bootstrapInput([]string{a, b})
	if err != nil {
		t.Fatal(err)
	}
	defer closeAll()
	got, err := io.ReadAll(in)
	if err != nil {
		t.Fatal(err)
	}
	want := "CREATE DATABASE IF NOT EXISTS mysql;\nUSE mysql;\nSET @auth_root_socket=NULL;\nSELECT 1;\nSELECT 2;\n\n"
	if string(got) != want {
		t.Errorf("input = %q, want %q", got, want)
	}
	if _, _, err := bootstrapInput([]string{filepath.Join(dir, "missing.sql")}); err == nil {
		t.Error("a missing script was not reported")
	}
}

// TestInitialiseMySQLPath runs the --initialize-insecure path end to end
// against a stand-in for mysqld 8.0 (a shell script that answers --version
// and records its arguments): no MySQL binary is served to these machines,
// so the real MySQL path is covered by this and TestInitCommand only.
func TestInitialiseMySQLPath(t *testing.T) {
	root := t.TempDir()
	tree(t, root, "share/english/errmsg.sys", "share/charsets/Index.xml", "lib/plugin/", "bin/")
	bin := filepath.Join(root, "bin/mysqld")
	argsFile := filepath.Join(root, "args")
	script := `#!/bin/sh
case "$*" in *--version*) echo "$0  Ver 8.0.36 for Linux on x86_64 (MySQL Community Server - GPL)"; exit 0;; esac
echo "$@" > ` + argsFile + `
for a in "$@"; do case "$a" in --datadir=*) mkdir -p "${a#--datadir=}/mysql";; esac; done
`
	if err := os.WriteFile(bin, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	l, err := Inspect(context.Background(), bin)
	if err != nil {
		t.Fatal(err)
	}
	if len(l.SQL) != 0 || l.Version.Method() != InitializeInsecure {
		t.Fatalf("layout %+v", l)
	}
	data := filepath.Join(root, "data")
	if err := l.Initialise(context.Background(), data, nil, filepath.Join(root, "error.log")); err != nil {
		t.Fatal(err)
	}
	got, err := os.ReadFile(argsFile)
	if err != nil {
		t.Fatal(err)
	}
	want := "--no-defaults --datadir=" + data + " --basedir=" + root + " --lc-messages-dir=" + root + "/share --character-sets-dir=" +
		root + "/share/charsets --plugin-dir=" + root + "/lib/plugin --initialize-insecure --log-error=" + root + "/error.log\n"
	if string(got) != want {
		t.Errorf("mysqld ran with\n%s want\n%s", got, want)
	}
	if _, err := os.Stat(filepath.Join(data, "mysql_upgrade_info")); err == nil {
		t.Error("mysql_upgrade_info written for MySQL")
	}
}

// TestInitialiseInstalledMariaDB bootstraps a data directory with the
// installed server: the system tables exist and root has no password
// (checked by the tables' files; starting the server is internal/sandbox's
// part).
func TestInitialiseInstalledMariaDB(t *testing.T) {
	bin, err := Find("")
	if err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatal(err)
		}
		t.Skip(err)
	}
	l, err := Inspect(context.Background(), bin)
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range l.Sources {
		if s.From != fromBinary {
			t.Errorf("the installed server borrowed %v", s)
		}
	}
	if !l.Version.MariaDB {
		t.Skipf("%s is not MariaDB", bin)
	}
	data := filepath.Join(t.TempDir(), "data")
	if err := l.Initialise(context.Background(), data, []string{"--innodb-buffer-pool-size=32M", "--user=root"}, ""); err != nil {
		t.Fatal(err)
	}
	for _, f := range []string{"mysql/global_priv.MAI", "mysql/help_topic.MAI", "sys/db.opt", "ibdata1"} {
		if _, err := os.Stat(filepath.Join(data, f)); err != nil {
			t.Errorf("after bootstrap: %v", err)
		}
	}
	info, _ := os.ReadFile(filepath.Join(data, "mysql_upgrade_info"))
	if want := fmt.Sprintf("%d.%d.%d-MariaDB", l.Version.Major, l.Version.Minor, l.Version.Patch); string(info) != want {
		t.Errorf("mysql_upgrade_info = %q, want %q", info, want)
	}
	// A bootstrap that fails says so with the server's own words.
	bad := *l
	bad.SQL = []string{writeFile(t, "bad.sql", "THIS IS NOT SQL;\n")}
	err = bad.Initialise(context.Background(), filepath.Join(t.TempDir(), "data"), []string{"--user=root"}, "")
	if err == nil || !strings.Contains(err.Error(), "--bootstrap failed") || !strings.Contains(err.Error(), "syntax") {
		t.Errorf("bad script: error = %v", err)
	}
}

func writeFile(t *testing.T, name, content string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}
