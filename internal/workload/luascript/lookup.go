package luascript

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"
)

// SearchDirs are the directories a script name is looked up in after the
// current directory, in sysbench 1.0's order (its package.path without the
// luarocks entries under $HOME, which follow "./src/lua" there and are added
// by Search when HOME is set): the Lua module directories, then sysbench's
// own script directory. Tests replace it.
var SearchDirs = []string{"/usr/local/share/lua/5.1", "/usr/share/lua/5.1", "/usr/share/sysbench"}

// searchPath lists the file patterns ("?" is the module name) that a name
// is looked up with, in order: sysbench's package.path, with the directory
// of the script being run (dir, "" for none) after the current directory's
// entries so that a script's siblings (sysbench-tpcc's tpcc_common) are
// found wherever the script is started from.
func searchPath(dir string) []string {
	p := []string{"./?.lua", "./?/init.lua"}
	if dir != "" && dir != "." {
		p = append(p, filepath.Join(dir, "?.lua"), filepath.Join(dir, "?", "init.lua"))
	}
	p = append(p, "./src/lua/?.lua")
	if home := os.Getenv("HOME"); home != "" {
		p = append(p, home+"/.luarocks/share/lua/5.1/?.lua", home+"/.luarocks/share/lua/5.1/?/init.lua",
			home+"/.luarocks/share/lua/?.lua", home+"/.luarocks/share/lua/?/init.lua")
	}
	for _, d := range SearchDirs {
		p = append(p, filepath.Join(d, "?.lua"))
	}
	return p
}

// LuaPath is package.path for a script in dir.
func LuaPath(dir string) string { return strings.Join(searchPath(dir), ";") }

// isFile reports whether path names an existing regular file (or a link to
// one).
func isFile(path string) bool {
	st, err := os.Stat(path)
	return err == nil && st.Mode().IsRegular()
}

// ErrNotFound is Find's error when nothing of that name exists.
var ErrNotFound = errors.New("no such file or module")

// Find looks a test up as sysbench 1.0 does: the name as a file path first,
// then as a module name (with or without ".lua") along the search path.
// It returns the path of the file found.
func Find(name string) (string, error) {
	if name == "" {
		return "", ErrNotFound
	}
	if isFile(name) {
		return name, nil
	}
	if st, err := os.Stat(name); err == nil && st.IsDir() {
		return "", &fs.PathError{Op: "open", Path: name, Err: errors.New("is a directory")}
	}
	if strings.ContainsRune(name, '/') {
		return "", ErrNotFound
	}
	mod := strings.TrimSuffix(name, ".lua")
	for _, pat := range searchPath("") {
		p := strings.ReplaceAll(pat, "?", mod)
		if isFile(p) {
			return p, nil
		}
	}
	return "", ErrNotFound
}

// FindModule looks a require'd module up from a script in dir (its
// siblings included), as the interpreter's package.path does.
func FindModule(mod, dir string) (string, bool) {
	mod = strings.ReplaceAll(mod, ".", "/")
	for _, pat := range searchPath(dir) {
		p := strings.ReplaceAll(pat, "?", mod)
		if isFile(p) {
			return p, true
		}
	}
	return "", false
}

// stockScripts are the SHA-256 digests of the scripts Debian's sysbench
// 1.0.20 package installs in /usr/share/sysbench (facts, measured with
// sha256sum on that package's files), by base name. A file with one of
// these digests is that stock script, unmodified.
var stockScripts = map[string]string{
	"bulk_insert":           "90ef17c63b8f959fa85f7c459b106b26d44d7f1686bfff467837a4c41d0a84de",
	"oltp_common":           "710c3b38027668c83e46f3c0814dc7cfd67cc8c4012df6cab461e46d62b5996a",
	"oltp_delete":           "11dc20862684615384145641e0114c1ea76b80d7c9ba8c755e0fd9ad0fe62711",
	"oltp_insert":           "46d250ef3be841b1a349b23e6390d6f7adfb2435a239802ef4ceed9873d1cd68",
	"oltp_point_select":     "5002f6d702e1099fff451cfba06b03b77fc6a3110144c9a1102bfdb5de14b83d",
	"oltp_read_only":        "25eeb32f5877c254c7fceb5f0bc23a2da9ed708a9f07df5b95f0a9fdfe4817eb",
	"oltp_read_write":       "d3d68413ecce348242308cf693d5db7a320292e1def93ecc9cb080b2b4f32b45",
	"oltp_update_index":     "b79f401177f44f02dacf88175327e5bfd9410c54c75faf347b9458ae638fd21a",
	"oltp_update_non_index": "5c6c923cc000bb6d4a535dd2dafbd3c4da2003c411ad8e585f146be4d713b984",
	"oltp_write_only":       "fcb462e264097d93c1d8cd0f7b55151c42261a5ab84ce553e41d6bd8bec8d690",
	"select_random_points":  "028832d7ce71e1bd615eaa61149ef1652d828ccfe2dec8d5c39fe35075f06c54",
	"select_random_ranges":  "be269a98a901e1305e69653c5fc977299a97487e5ef673051bcacee3c16dfaa0",
}

// StockName returns the stock script's name (its base name without .lua)
// when the file at path is an unmodified sysbench 1.0.20 stock script
// under its own name, and, for the scripts that require oltp_common, the
// oltp_common.lua the interpreter would load beside it is unmodified too:
// only then do goslap's built-in workloads send what the file would.
func StockName(path string) (string, bool) {
	base := strings.TrimSuffix(filepath.Base(path), ".lua")
	want, ok := stockScripts[base]
	if !ok || base == "oltp_common" || !sameDigest(path, want) {
		return "", false
	}
	if strings.HasPrefix(base, "oltp_") {
		common, found := FindModule("oltp_common", filepath.Dir(path))
		if !found || !sameDigest(common, stockScripts["oltp_common"]) {
			return "", false
		}
	}
	return base, true
}

func sameDigest(path, want string) bool {
	b, err := os.ReadFile(path)
	if err != nil {
		return false
	}
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:]) == want
}

// api05 matches the calls of sysbench 0.5's Lua API that 1.0 dropped or
// kept only as deprecated aliases of removed machinery.
var api05 = regexp.MustCompile(`\b(db_connect|db_query|db_disconnect|db_prepare|db_bind_param|db_bind_result|db_execute|db_store_results|db_free_results|db_close|db_bulk_insert_init|db_bulk_insert_next|db_bulk_insert_done)\s*\(`)

// API05 returns the first sysbench 0.5 API call in a script's source ("" if
// none): such scripts are written for sysbench 0.5's API, which goslap does
// not interpret.
func API05(src []byte) string {
	for _, m := range api05.FindAllSubmatch(stripComments(src), -1) {
		return string(m[1])
	}
	return ""
}

// stripComments removes Lua comments ("--" to the end of the line, and
// "--[[ ... ]]" blocks) so that a call mentioned in a comment is not taken
// for a use. Strings are left alone: a script that builds such a call in a
// string is not calling it.
func stripComments(src []byte) []byte {
	s := string(src)
	var b strings.Builder
	for len(s) > 0 {
		i := strings.Index(s, "--")
		if i < 0 {
			b.WriteString(s)
			break
		}
		b.WriteString(s[:i])
		s = s[i+2:]
		if strings.HasPrefix(s, "[[") {
			if j := strings.Index(s, "]]"); j >= 0 {
				s = s[j+2:]
				continue
			}
			break
		}
		if j := strings.IndexByte(s, '\n'); j >= 0 {
			s = s[j:]
			continue
		}
		break
	}
	return []byte(b.String())
}

// Name is the registered name of the workload that runs a Lua script.
const Name = "lua"
