package sandbox

import (
	"fmt"
	"regexp"
	"strings"
)

// A throw-away server may touch nothing outside its own directory: that is
// what makes it throw-away. goslap places its data directory, socket, pid
// file and error log there itself, and the server runs with its working
// directory there (start), so every relative file name an option gives —
// the server resolves them against its data directory or its working
// directory — lands inside it. What is left to refuse is an option that
// moves one of goslap's own settings (OwnedOptions) and a value that
// reaches out: an absolute path, a home-directory path (the server expands
// "~/"), or a ".." component.
//
// The check reads values, not a list of path-valued option names: servers
// gain path options with every release (log_bin_index, relay_log_info_file,
// aria_log_dir_path, innodb_tmpdir, ssl_*, ...) and a list would miss the
// next one. A value is cut into pieces at the separators the server's list
// and path syntaxes use (innodb_data_file_path's "ibdata1:12M;/x:1G",
// plugin_load's "name=library;..."), so a path anywhere inside a value counts.
//
// Symbolic links cannot lead out either: the directory is new (MkdirTemp,
// mode 0700, created exclusively, so a planted name cannot pre-empt it),
// and nothing in it is a link — goslap creates plain files and directories
// and the server creates only what options name, inside it. No one but the
// owner can add an entry, and the owner could write outside it directly.

// OwnedOptions are the server options goslap sets for every server it
// starts, in the server's spelling: a person's value could only move the
// server out of its directory (datadir, socket, pid_file, basedir; the
// installation's directories, which the server resolves a relative name
// against basedir for, not its data directory), onto another server's
// port, or open the password-less root account beyond loopback
// (bind_address; MySQL's X protocol, which goslap turns off, listens on
// every address; admin_address opens MySQL's admin interface).
var OwnedOptions = []string{"datadir", "socket", "pid_file", "port", "basedir",
	"plugin_dir", "lc_messages_dir", "language", "character_sets_dir",
	"bind_address", "mysqlx", "mysqlx_bind_address", "admin_address"}

// exactOptions are whole option names that are also prefixes of an entry
// of OwnedOptions: the server takes an exact name as itself, never as an
// abbreviation (lc_messages=en_US is the language, not lc_messages_dir).
var exactOptions = map[string]bool{"lc_messages": true}

// optionPrefixes are my_getopt's modifiers in front of an option name
// (--loose-pid-file is --pid-file that a server without it ignores).
var optionPrefixes = []string{"loose_", "skip_", "enable_", "disable_", "maximum_", "autoset_"}

// optionName is what a server takes for an option name.
var optionName = regexp.MustCompile(`^[A-Za-z][A-Za-z0-9_.-]*$`)

// OptionError is a server option a confined server refuses.
type OptionError struct {
	Option string // as given
	Reason string
}

func (e *OptionError) Error() string { return e.Option + ": " + e.Reason }

// CheckOption reports whether a server option ("name=value", "name", with
// or without leading dashes) may be given to a server confined to its
// directory: nil, or an *OptionError naming the option and why not.
func CheckOption(opt string) error {
	name, value, hasValue := strings.Cut(strings.TrimLeft(opt, "-"), "=")
	if !optionName.MatchString(name) {
		return &OptionError{opt, "not a server option (want NAME or NAME=VALUE)"}
	}
	if owned := ownedBy(name); owned != "" {
		return &OptionError{opt, "goslap sets the sandbox's " + owned + " itself; a sandbox's options cannot change it"}
	}
	if !hasValue {
		return nil
	}
	if piece := escapingPiece(value); piece != "" {
		return &OptionError{opt, fmt.Sprintf("%s is outside the sandbox's directory: a sandbox's server options may name only files inside it (give a relative name without \"..\")", piece)}
	}
	return nil
}

// CheckOptions is CheckOption for each option, the first refusal.
func CheckOptions(opts []string) error {
	for _, o := range opts {
		if err := CheckOption(o); err != nil {
			return err
		}
	}
	return nil
}

// ownedBy is the entry of OwnedOptions that name sets, "" for none. The
// server treats '-' and '_' alike, ignores case, takes the modifiers of
// optionPrefixes, reads "cache.name" as a named key cache's "name", and
// accepts any unambiguous prefix of a long name (--pid=... is --pid-file=...).
func ownedBy(name string) string {
	n := strings.ToLower(strings.ReplaceAll(name, "-", "_"))
	if i := strings.LastIndexByte(n, '.'); i >= 0 {
		n = n[i+1:]
	}
	for stripped := true; stripped; {
		stripped = false
		for _, p := range optionPrefixes {
			if rest, ok := strings.CutPrefix(n, p); ok && rest != "" {
				n, stripped = rest, true
			}
		}
	}
	if n == "" || exactOptions[n] {
		return ""
	}
	for _, o := range OwnedOptions {
		if strings.HasPrefix(o, n) {
			return o
		}
	}
	return ""
}

// escapingPiece is the first piece of value that names a place outside
// the server's directory, "" if none does.
func escapingPiece(value string) string {
	pieces := strings.FieldsFunc(value, func(r rune) bool {
		return strings.ContainsRune(",;:= \t\r\n\"'`", r)
	})
	for _, p := range pieces {
		if strings.HasPrefix(p, "/") || strings.HasPrefix(p, "~") {
			return p
		}
		for _, c := range strings.Split(p, "/") {
			if c == ".." {
				return p
			}
		}
	}
	return ""
}
