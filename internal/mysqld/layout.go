package mysqld

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// Layout is where a server binary's companion files are.
type Layout struct {
	Binary      string
	Version     Version
	BaseDir     string   // --basedir: the installation the binary belongs to
	LangDir     string   // --lc-messages-dir: holds english/errmsg.sys
	CharsetsDir string   // --character-sets-dir; "" leaves the server's built-in default
	PluginDir   string   // --plugin-dir; "" leaves the server's built-in default
	SQL         []string // the bootstrap scripts, in the order they are fed (Bootstrap only)
	Sources     []Source // where each of the above came from, for -v
	Missing     []string // optional files found nowhere, with what their absence means
}

// Source says where one file or directory of a Layout came from.
type Source struct {
	What string // "mysql_system_tables.sql", "error messages", "plugins"
	Path string
	From string // "beside the binary" or the installed server it was borrowed from
}

func (s Source) String() string { return s.What + ": " + s.Path + " (" + s.From + ")" }

// sqlFile is one bootstrap script, in the order mariadb-install-db feeds them.
type sqlFile struct {
	name     string
	required bool
	without  string // what is lost when an optional script is missing
}

var bootstrapSQL = []sqlFile{
	{name: "mysql_system_tables.sql", required: true},
	{name: "mysql_performance_tables.sql", without: "no performance_schema tables"},
	{name: "mysql_system_tables_data.sql", required: true},
	{name: "fill_help_tables.sql", without: "the help tables stay empty"},
	{name: "maria_add_gis_sp_bootstrap.sql", without: "no AddGeometryColumn procedures"},
	{name: "mysql_sys_schema.sql", without: "no sys schema"},
}

const (
	errmsgFile   = "english/errmsg.sys"
	charsetsFile = "charsets/Index.xml"
	fromBinary   = "beside the binary"
)

// shareSubdirs are where, below an installation root, the SQL scripts,
// english/errmsg.sys and charsets/ are looked for: an install prefix or
// extracted package (share/mariadb, share/mysql), a tarball (share), a build
// directory (scripts for the SQL, sql/share for the messages and charsets).
var shareSubdirs = []string{"share/mariadb", "share/mysql", "share", "scripts", "sql/share"}

// pluginSubdirs are where, below an installation root, the plugins are.
var pluginSubdirs = []string{"lib/mysql/plugin", "lib/mariadb/plugin", "lib/plugin", "lib64/mysql/plugin", "lib64/mariadb/plugin", "lib64/plugin"}

// MissingError is a data directory that cannot be initialised because
// required files are found nowhere.
type MissingError struct {
	Binary string
	Files  []string // what is missing
	Looked []string // the directories searched
	Note   string   // why the installed server's files were not used, if there is one
}

func (e *MissingError) Error() string {
	msg := fmt.Sprintf("cannot initialise a data directory for %s: %s not found in %s", e.Binary,
		strings.Join(e.Files, ", "), strings.Join(e.Looked, ", "))
	if e.Note != "" {
		msg += "; " + e.Note
	}
	return msg + "; they ship with the server (Debian: the package mariadb-server-core or mysql-server-core; a tarball: its share/ directory): extract the whole package or tarball, not the binary alone, and give its directory or the binary inside it"
}

// roots are the installation directories a binary may belong to, most
// likely first: the parent of its directory (usr for usr/sbin/mariadbd, the
// tarball for bin/mysqld, the build directory for sql/mariadbd), the same
// for the file a symbolic link points to, a build directory's source tree
// (named in its CMakeCache.txt), and the binary's own directory.
func roots(binary string) []string {
	var out []string
	add := func(d string) {
		for _, o := range out {
			if o == d {
				return
			}
		}
		out = append(out, d)
	}
	bins := []string{binary}
	if real, err := filepath.EvalSymlinks(binary); err == nil && real != binary {
		bins = append(bins, real)
	}
	for _, b := range bins {
		root := filepath.Dir(filepath.Dir(b))
		add(root)
		if src := cmakeSource(root); src != "" {
			add(src)
		}
	}
	for _, b := range bins {
		add(filepath.Dir(b))
	}
	return out
}

// cmakeSource is the source directory of a CMake build directory, "" when
// root is none.
func cmakeSource(root string) string {
	f, err := os.Open(filepath.Join(root, "CMakeCache.txt"))
	if err != nil {
		return ""
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if v, ok := strings.CutPrefix(sc.Text(), "CMAKE_HOME_DIRECTORY:INTERNAL="); ok {
			return v
		}
	}
	return ""
}

// Locate finds the companion files of binary (whose version is v) relative
// to it. What is not found there is taken from fallback when fallback is
// not nil (the installed server of the same series, see Inspect). Missing
// required files are a *MissingError; missing optional ones are listed in
// Layout.Missing.
func Locate(binary string, v Version, fallback *Layout) (*Layout, error) {
	rs := roots(binary)
	l := &Layout{Binary: binary, Version: v, BaseDir: rs[0]}
	var shares []string
	for _, r := range rs {
		for _, s := range shareSubdirs {
			shares = append(shares, filepath.Join(r, s))
		}
	}
	find := func(rel string) string {
		for _, d := range shares {
			if isFile(filepath.Join(d, rel)) {
				return d
			}
		}
		return ""
	}
	borrowed := ""
	if fallback != nil {
		borrowed = "borrowed from the installed " + fallback.Binary + " " + fallback.Version.Number + ", same series " + v.Series()
	}
	var missing []string
	source := func(what, path string) {
		l.Sources = append(l.Sources, Source{What: what, Path: path, From: fromBinary})
	}

	if d := find(errmsgFile); d != "" {
		l.LangDir = d
		source("error messages", filepath.Join(d, errmsgFile))
	} else if fallback != nil && fallback.LangDir != "" {
		l.LangDir = fallback.LangDir
		l.Sources = append(l.Sources, Source{"error messages", filepath.Join(l.LangDir, errmsgFile), borrowed})
	} else {
		missing = append(missing, errmsgFile)
	}

	if d := find(charsetsFile); d != "" {
		l.CharsetsDir = filepath.Join(d, "charsets")
		source("character sets", l.CharsetsDir)
	} else if fallback != nil && fallback.CharsetsDir != "" {
		l.CharsetsDir = fallback.CharsetsDir
		l.Sources = append(l.Sources, Source{"character sets", l.CharsetsDir, borrowed})
	} else {
		l.Missing = append(l.Missing, "charsets/ (the server's built-in character sets only)")
	}

	for _, r := range rs {
		for _, s := range pluginSubdirs {
			if p := filepath.Join(r, s); l.PluginDir == "" && isDir(p) {
				l.PluginDir = p
				source("plugins", p)
			}
		}
	}
	if l.PluginDir == "" {
		if fallback != nil && fallback.PluginDir != "" {
			l.PluginDir = fallback.PluginDir
			l.Sources = append(l.Sources, Source{"plugins", l.PluginDir, borrowed})
		} else {
			l.Missing = append(l.Missing, "plugin directory (the server's built-in default)")
		}
	}

	if v.Method() == Bootstrap {
		var fromFallback map[string]string
		if fallback != nil {
			fromFallback = map[string]string{}
			for _, p := range fallback.SQL {
				fromFallback[filepath.Base(p)] = p
			}
		}
		for _, f := range bootstrapSQL {
			if d := find(f.name); d != "" {
				p := filepath.Join(d, f.name)
				l.SQL = append(l.SQL, p)
				source(f.name, p)
			} else if p := fromFallback[f.name]; p != "" {
				l.SQL = append(l.SQL, p)
				l.Sources = append(l.Sources, Source{f.name, p, borrowed})
			} else if f.required {
				missing = append(missing, f.name)
			} else {
				l.Missing = append(l.Missing, f.name+" ("+f.without+")")
			}
		}
	}
	if len(missing) > 0 {
		looked := make([]string, 0, len(shares))
		for _, d := range shares {
			if isDir(d) {
				looked = append(looked, d)
			}
		}
		if len(looked) == 0 {
			looked = []string{filepath.Join(rs[0], "share")}
		}
		return l, &MissingError{Binary: binary, Files: missing, Looked: looked}
	}
	return l, nil
}

// Inspect reads binary's version and locates its files. What is not beside
// the binary is borrowed from the installed server (Find("")) when that is
// of the same series — files of another series do not fit (error message
// counts, system-table definitions differ) and are never used. ctx bounds
// the version checks (ReadVersion).
func Inspect(ctx context.Context, binary string) (*Layout, error) {
	v, err := ReadVersion(ctx, binary)
	if err != nil {
		return nil, err
	}
	l, err := Locate(binary, v, nil)
	if err == nil && len(l.Missing) == 0 {
		return l, nil
	}
	note := ""
	if inst, ferr := Find(""); ferr == nil && !sameFile(inst, binary) {
		iv, verr := ReadVersion(ctx, inst)
		switch {
		case verr != nil:
		case iv.Series() != v.Series() || iv.MariaDB != v.MariaDB:
			note = fmt.Sprintf("the installed %s is %s, another series, so its files are not used", inst, iv.Number)
		default:
			if il, ierr := Locate(inst, iv, nil); ierr == nil {
				if l2, err2 := Locate(binary, v, il); err2 == nil || len(l2.Sources) > len(l.Sources) {
					l, err = l2, err2
				}
			}
		}
	}
	var me *MissingError
	if errors.As(err, &me) && note != "" {
		me.Note = note
	}
	return l, err
}

func sameFile(a, b string) bool {
	fa, err := os.Stat(a)
	if err != nil {
		return false
	}
	fb, err := os.Stat(b)
	return err == nil && os.SameFile(fa, fb)
}

// ServerArgs are the options that point the server at its files, for
// initialisation and for every start.
func (l *Layout) ServerArgs() []string {
	args := []string{"--basedir=" + l.BaseDir}
	if l.LangDir != "" {
		args = append(args, "--lc-messages-dir="+l.LangDir)
	}
	if l.CharsetsDir != "" {
		args = append(args, "--character-sets-dir="+l.CharsetsDir)
	}
	if l.PluginDir != "" {
		args = append(args, "--plugin-dir="+l.PluginDir)
	}
	return args
}

// Describe is one line per source and per missing optional file, for -v.
func (l *Layout) Describe() []string {
	lines := []string{fmt.Sprintf("%s %s: initialised with %s, basedir %s", l.Binary, l.Version.Number, l.Version.Method(), l.BaseDir)}
	for _, s := range l.Sources {
		lines = append(lines, s.String())
	}
	for _, m := range l.Missing {
		lines = append(lines, "not found: "+m)
	}
	return lines
}
