// Package optfile reads MySQL/MariaDB option files (my.cnf) the way
// mysys/my_default.c does and turns the options of the wanted groups into
// "--name[=value]" words, in file order then line order.
package optfile

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
)

// maxIncludeDepth bounds !include recursion, as my_default.c does, so that a
// file including itself terminates.
const maxIncludeDepth = 10

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
			r.wanted[g] = true
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
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(make([]byte, 64*1024), 16*1024*1024)
	line := 0
	for sc.Scan() {
		line++
		text := strings.TrimLeft(sc.Text(), " \t\r\n\v\f")
		if text == "" || text[0] == '#' || text[0] == ';' {
			continue
		}
		if text[0] == '!' {
			if err := r.directive(text, depth, words); err != nil {
				return err
			}
			continue
		}
		if text[0] == '[' {
			end := strings.IndexByte(text, ']')
			if end < 0 {
				return &Error{Msg: fmt.Sprintf("error: Wrong group definition in config file: %s at line %d\n%s", path, line, fatalLine)}
			}
			// Not trimmed: mariadb-slap does not read "[ client ]" as [client].
			name := text[1:end]
			state = unwantedGroup
			if r.wanted[name] {
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

// directive handles !include FILE and !includedir DIR; anything else is ignored.
func (r *Reader) directive(text string, depth int, words *[]string) error {
	if depth >= maxIncludeDepth {
		return nil
	}
	keyword, arg, _ := strings.Cut(text[1:], " ")
	if k, a, ok := strings.Cut(text[1:], "\t"); ok && len(k) < len(keyword) {
		keyword, arg = k, a
	}
	arg = strings.TrimSpace(arg)
	if arg == "" {
		return nil
	}
	switch keyword {
	case "include":
		_, err := r.read(arg, depth+1, words)
		return err
	case "includedir":
		files, err := r.readDir(arg)
		if err != nil {
			return nil // an unreadable directory is skipped, as by my_default.c
		}
		for _, f := range files {
			if _, err := r.read(f, depth+1, words); err != nil {
				return err
			}
		}
	}
	return nil
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
