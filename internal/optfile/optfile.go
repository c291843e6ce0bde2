// Package optfile reads MySQL/MariaDB option files (my.cnf) the way
// mysys/my_default.c does and turns the options of the wanted groups into
// "--name[=value]" words, in file order then line order.
package optfile

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"syscall"
)

// maxIncludeDepth bounds !include recursion, as my_default.c does, so that a
// file including itself terminates.
const maxIncludeDepth = 10

// loginFileDepth is the depth a login file is parsed at: its '!' lines are
// skipped without a word (MySQL's login files hold no directives).
const loginFileDepth = -1

// Error is a fatal option-file problem. Msg holds complete lines, without the
// final newline, exactly as mariadb-slap prints them; the exit status is 1.
type Error struct{ Msg string }

func (e *Error) Error() string { return e.Msg }

const fatalLine = "Fatal error in defaults handling. Program aborted"

// Reader reads option files for a set of groups.
type Reader struct {
	// Groups are the wanted group names, suffix variants included (see Groups).
	Groups []string
	// Stderr receives warnings (world-writable files), as they happen.
	Stderr io.Writer
	// FS, when set, replaces the real file system (tests, fuzzing).
	FS fs.FS
	// Prog starts the line of an unreadable !includedir, as my_error's
	// program-name prefix does ("goslap" when empty).
	Prog string

	wanted map[string]bool
}

// Groups returns base groups followed by their suffixed variants, the list
// my_load_defaults builds for --defaults-group-suffix.
func Groups(base []string, suffix string) []string {
	out := append([]string(nil), base...)
	if suffix != "" {
		for _, g := range base {
			out = append(out, g+suffix)
		}
	}
	return out
}

func (r *Reader) init() {
	if r.wanted == nil {
		r.wanted = map[string]bool{}
		for _, g := range r.Groups {
			// my_default.c compares group names with find_type, which
			// ignores case: [Client] and [MYSQLSLAP] are read.
			r.wanted[strings.ToLower(g)] = true
		}
	}
}

// ReadFile returns the option words of path. A missing file is an error only
// when required (--defaults-file, --defaults-extra-file).
func (r *Reader) ReadFile(path string, required bool) ([]string, error) {
	r.init()
	var words []string
	found, err := r.read(path, 0, &words)
	if err != nil {
		return nil, err
	}
	if !found && required {
		return nil, &Error{Msg: "Could not open required defaults file: " + path + "\n" + fatalLine}
	}
	return words, nil
}

func (r *Reader) stat(path string) (fs.FileInfo, error) {
	if r.FS != nil {
		return fs.Stat(r.FS, strings.TrimPrefix(path, "/"))
	}
	return os.Stat(path)
}

func (r *Reader) readAll(path string) ([]byte, error) {
	if r.FS != nil {
		return fs.ReadFile(r.FS, strings.TrimPrefix(path, "/"))
	}
	return os.ReadFile(path)
}

func (r *Reader) readDir(dir string) ([]string, error) {
	var entries []fs.DirEntry
	var err error
	if r.FS != nil {
		entries, err = fs.ReadDir(r.FS, strings.TrimPrefix(filepath.Clean(dir), "/"))
	} else {
		entries, err = os.ReadDir(dir)
	}
	if err != nil {
		return nil, err
	}
	var names []string
	for _, e := range entries {
		if !e.IsDir() && strings.HasSuffix(e.Name(), ".cnf") {
			names = append(names, filepath.Join(dir, e.Name()))
		}
	}
	sort.Strings(names)
	return names, nil
}

// read parses one file, appending words; found reports whether it could be read.
func (r *Reader) read(path string, depth int, words *[]string) (found bool, err error) {
	info, err := r.stat(path)
	if err != nil || info.IsDir() {
		return false, nil
	}
	if info.Mode().IsRegular() && info.Mode().Perm()&0o002 != 0 {
		fmt.Fprintf(r.Stderr, "Warning: World-writable config file '%s' is ignored\n", path)
		return true, nil
	}
	data, err := r.readAll(path)
	if err != nil {
		return false, nil
	}
	return true, r.parse(path, data, depth, words)
}

// group states, as my_default.c's found_group.
const (
	noGroupYet = iota
	unwantedGroup
	wantedGroup
)

func (r *Reader) parse(path string, data []byte, depth int, words *[]string) error {
	state := noGroupYet
	line := 0
	for len(data) > 0 {
		// raw keeps the line's newline: the directive checks of my_default.c
		// treat a final line without one differently (see directive).
		raw := data
		if i := bytes.IndexByte(data, '\n'); i >= 0 {
			raw, data = data[:i+1], data[i+1:]
		} else {
			data = nil
		}
		line++
		text := strings.TrimLeft(string(raw), spaceChars)
		if text == "" || text[0] == '#' || text[0] == ';' {
			continue
		}
		if text[0] == '!' {
			if depth == loginFileDepth {
				continue
			}
			if err := r.directive(text, path, line, depth, words); err != nil {
				return err
			}
			continue
		}
		text = strings.TrimRight(text, "\n")
		if text[0] == '[' {
			end := strings.IndexByte(text, ']')
			if end < 0 {
				return &Error{Msg: fmt.Sprintf("error: Wrong group definition in config file: %s at line %d\n%s", path, line, fatalLine)}
			}
			// Trailing blanks are cut ("[client ]" is [client]), leading ones
			// are not: mariadb-slap does not read "[ client ]" as [client].
			name := strings.TrimRight(text[1:end], spaceChars)
			state = unwantedGroup
			if r.wanted[strings.ToLower(name)] {
				state = wantedGroup
			}
			continue
		}
		switch state {
		case noGroupYet:
			return &Error{Msg: fmt.Sprintf("error: Found option without preceding group in config file: %s at line: %d\n%s", path, line, fatalLine)}
		case unwantedGroup:
			continue
		}
		if w, ok := optionWord(text); ok {
			*words = append(*words, w)
		}
	}
	return nil
}

// spaceChars are the bytes my_isspace accepts in latin1.
const spaceChars = " \t\r\n\v\f"

func isSpace(c byte) bool { return strings.IndexByte(spaceChars, c) >= 0 }

// cutEnd is my_default.c's trailing-blank cut: it assumes the text ends in
// the newline fgets kept, so it drops the last byte and the blanks before
// it. On a final line without a newline that byte is the last real one
// ("!include /a.cnf" at the end of a file names /a.cn), as in mariadb-slap.
// ok is false when nothing is left.
func cutEnd(s string) (string, bool) {
	k := len(s) - 1
	for k >= 1 && isSpace(s[k-1]) {
		k--
	}
	if k <= 0 {
		return "", false
	}
	return s[:k], true
}

// directive handles a line starting with '!' (text keeps its newline):
// "!include FILE" and "!includedir DIR" (the keyword followed by a blank),
// anything else is ignored. As in my_default.c, a directive in a file at the
// maximum include depth is skipped with a warning (an include loop ends
// there), a keyword without an argument is fatal, and so is a directory
// that cannot be read; a missing !include file is skipped.
func (r *Reader) directive(text, path string, line, depth int, words *[]string) error {
	if depth >= maxIncludeDepth {
		shown, _ := cutEnd(text)
		fmt.Fprintf(r.Stderr, "Warning: skipping '%s' directive as maximum includerecursion level was reached in file %s at line %d\n",
			shown, path, line)
		return nil
	}
	p := strings.TrimLeft(text[1:], spaceChars)
	for _, keyword := range []string{"includedir", "include"} {
		if !strings.HasPrefix(p, keyword) || len(p) == len(keyword) || !isSpace(p[len(keyword)]) {
			continue
		}
		arg, ok := cutEnd(strings.TrimLeft(p[len(keyword):], spaceChars))
		if !ok {
			return &Error{Msg: fmt.Sprintf("error: Wrong '!%s' directive in config file: %s at line %d\n%s", keyword, path, line, fatalLine)}
		}
		if keyword == "include" {
			_, err := r.read(arg, depth+1, words)
			return err
		}
		files, err := r.readDir(arg)
		if err != nil {
			return &Error{Msg: r.dirError(arg, err) + "\n" + fatalLine}
		}
		for _, f := range files {
			if _, err := r.read(f, depth+1, words); err != nil {
				return err
			}
		}
		return nil
	}
	return nil
}

// dirError is my_dir's EE_DIR message with strerror's wording, starting
// with the BEL that my_message_stderr writes for ME_BELL errors.
func (r *Reader) dirError(dir string, err error) string {
	prog := r.Prog
	if prog == "" {
		prog = "goslap"
	}
	var errno syscall.Errno
	if !errors.As(err, &errno) {
		switch {
		case errors.Is(err, fs.ErrNotExist):
			errno = syscall.ENOENT
		case errors.Is(err, fs.ErrPermission):
			errno = syscall.EACCES
		default:
			errno = syscall.EIO
		}
	}
	msg := errno.Error()
	if msg != "" {
		// Go's errno texts are glibc's with a lower-case first letter.
		msg = strings.ToUpper(msg[:1]) + msg[1:]
	}
	return fmt.Sprintf("\a%s: Can't read dir of '%s' (Errcode: %d \"%s\")", prog, dir, int(errno), msg)
}

// optionWord turns "name [= value] [# comment]" into "--name[=value]".
func optionWord(text string) (string, bool) {
	text = removeEndComment(text)
	// As my_default.c: the name runs up to the first '=' (spaces inside it
	// are kept: "verbose junk" becomes "--verbose junk").
	name, rest, hasValue := strings.Cut(text, "=")
	name = strings.TrimRight(name, " \t\r\n\v\f")
	if name == "" {
		return "", false
	}
	if !hasValue {
		return "--" + name, true
	}
	value := strings.Trim(rest, " \t\r\n\v\f")
	if len(value) >= 2 && (value[0] == '"' || value[0] == '\'') && value[len(value)-1] == value[0] {
		value = value[1 : len(value)-1]
	}
	return "--" + name + "=" + unescape(value), true
}

// removeEndComment cuts the line at the first '#' outside quotes.
func removeEndComment(s string) string {
	var quote byte
	escape := false
	for i := 0; i < len(s); i++ {
		c := s[i]
		if (c == '\'' || c == '"') && !escape {
			if quote == 0 {
				quote = c
			} else if quote == c {
				quote = 0
			}
		}
		if quote == 0 && c == '#' {
			return s[:i]
		}
		escape = quote != 0 && c == '\\' && !escape
	}
	return s
}

func unescape(v string) string {
	if !strings.Contains(v, `\`) {
		return v
	}
	var b strings.Builder
	for i := 0; i < len(v); i++ {
		c := v[i]
		if c != '\\' || i == len(v)-1 {
			b.WriteByte(c)
			continue
		}
		i++
		switch v[i] {
		case 'n':
			b.WriteByte('\n')
		case 't':
			b.WriteByte('\t')
		case 'r':
			b.WriteByte('\r')
		case 'b':
			b.WriteByte('\b')
		case 's':
			b.WriteByte(' ')
		case '"', '\'', '\\':
			b.WriteByte(v[i])
		default:
			b.WriteByte('\\')
			b.WriteByte(v[i])
		}
	}
	return b.String()
}
