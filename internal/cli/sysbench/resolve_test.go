package sysbench

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/goslap/goslap/internal/workload/luascript"
)

// stockDir is where Debian's sysbench 1.0.20 installs its stock scripts;
// the tests read them (never write) to make copies in temporary
// directories.
const stockDir = "/usr/share/sysbench"

func readStock(t *testing.T, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(stockDir, name))
	if err != nil {
		t.Fatalf("the stock scripts of sysbench 1.0.20 are needed (apt-get install sysbench): %v", err)
	}
	return b
}

func writeFile(t *testing.T, path string, b []byte) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, b, 0o644); err != nil {
		t.Fatal(err)
	}
}

// TestResolveTestPath is issue 23 item 4: a path picks a built-in test only
// when the file is missing (said on stderr) or is the unmodified stock
// script; any other file is the user's script.
func TestResolveTestPath(t *testing.T) {
	dir := t.TempDir()
	t.Chdir(dir)
	saved := luascript.SearchDirs
	luascript.SearchDirs = []string{filepath.Join(dir, "share")}
	t.Cleanup(func() { luascript.SearchDirs = saved })

	rw, common := readStock(t, "oltp_read_write.lua"), readStock(t, "oltp_common.lua")
	writeFile(t, dir+"/stock/oltp_read_write.lua", rw)
	writeFile(t, dir+"/stock/oltp_common.lua", common)
	writeFile(t, dir+"/mine/oltp_read_write.lua", append(append([]byte(nil), rw...), "\n-- our change\n"...))
	writeFile(t, dir+"/mine/oltp_common.lua", common)
	writeFile(t, dir+"/commonmod/oltp_read_write.lua", rw)
	writeFile(t, dir+"/commonmod/oltp_common.lua", append(append([]byte(nil), common...), "\n-- our change\n"...))
	writeFile(t, dir+"/v05/oltp.lua", []byte("function event()\n  rs = db_query(\"BEGIN\")\nend\n"))
	writeFile(t, dir+"/v05/mine.lua", []byte("-- db_query( in a comment is no use\nfunction event()\n  db_query(\"SELECT 1\")\nend\n"))
	writeFile(t, dir+"/v10/mine.lua", []byte("-- db_query() in a comment is no use\nfunction event() end\n"))
	writeFile(t, dir+"/share/custom_test.lua", []byte("function event() end\n"))
	writeFile(t, dir+"/share/oltp_delete.lua", []byte("function event() end\n"))

	cases := []struct {
		name      string
		args      []string
		workload  string
		script    string
		dialect   Dialect
		note      string // a substring of the last note; "" = no note but the deprecation
		errSubstr string
	}{
		{"missing path naming a stock 1.0 script", []string{"/no/such/dir/oltp_read_write.lua", "run"},
			"oltp_read_write", "", Dialect10, "/no/such/dir/oltp_read_write.lua does not exist: running goslap's built-in oltp_read_write", ""},
		{"missing --test path naming a stock 0.5 script", []string{"--test=/no/such/tests/db/oltp.lua", "run"},
			"oltp", "", Dialect05, "/no/such/tests/db/oltp.lua does not exist: running goslap's built-in oltp", ""},
		{"unmodified stock script", []string{dir + "/stock/oltp_read_write.lua", "run"},
			"oltp_read_write", "", Dialect10, "unmodified oltp_read_write.lua: running goslap's built-in oltp_read_write", ""},
		{"unmodified stock script, --lua-interpreter", []string{"--lua-interpreter", dir + "/stock/oltp_read_write.lua", "run"},
			luascript.Name, dir + "/stock/oltp_read_write.lua", Dialect10, "", ""},
		{"unmodified stock script, prewarm: the file has it", []string{dir + "/stock/oltp_read_write.lua", "prewarm"},
			luascript.Name, dir + "/stock/oltp_read_write.lua", Dialect10, "", ""},
		{"--lua-interpreter with no file", []string{"--lua-interpreter", "/no/such/dir/oltp_read_write.lua", "run"},
			"", "", "", "", "--lua-interpreter cannot be honoured: '/no/such/dir/oltp_read_write.lua' finds no Lua script to interpret"},
		{"user's modified copy", []string{"--test=" + dir + "/mine/oltp_read_write.lua", "run"},
			luascript.Name, dir + "/mine/oltp_read_write.lua", Dialect10, "", ""},
		{"stock script beside a modified oltp_common", []string{dir + "/commonmod/oltp_read_write.lua", "run"},
			luascript.Name, dir + "/commonmod/oltp_read_write.lua", Dialect10, "", ""},
		{"stock 0.5 script by name", []string{"--test=" + dir + "/v05/oltp.lua", "run"},
			"oltp", "", Dialect05, "written for sysbench 0.5's Lua API (db_query): running goslap's built-in oltp", ""},
		{"other 0.5 script refused", []string{"--test=" + dir + "/v05/mine.lua", "run"},
			"", "", "", "", "is written for sysbench 0.5's Lua API (db_query, ...), which goslap does not interpret"},
		{"1.0 script mentioning the 0.5 API in a comment", []string{dir + "/v10/mine.lua", "run"},
			luascript.Name, dir + "/v10/mine.lua", Dialect10, "", ""},
		{"a name found in sysbench's script directories", []string{"custom_test", "run"},
			luascript.Name, dir + "/share/custom_test.lua", Dialect10, "", ""},
		{"a built-in test's name finds a user's file", []string{"oltp_delete", "run"},
			luascript.Name, dir + "/share/oltp_delete.lua", Dialect10, "oltp_delete is " + dir + "/share/oltp_delete.lua, not sysbench 1.0.20's stock script: the Lua interpreter runs it", ""},
		{"a name in the current directory, .lua given", []string{"stock/oltp_common.lua", "run"},
			luascript.Name, "stock/oltp_common.lua", Dialect10, "", ""},
		{"nothing of that name", []string{"no_such_test.lua", "run"},
			"", "", "", "", "FATAL: Cannot find benchmark 'no_such_test.lua': no such built-in test, file or module"},
		{"a directory", []string{dir + "/stock", "run"},
			"", "", "", "", "is a directory"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			c, err := Parse(tc.args)
			if tc.errSubstr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.errSubstr) {
					t.Fatalf("err %v, want one containing %q", err, tc.errSubstr)
				}
				if strings.Contains(err.Error(), "\n") {
					t.Errorf("error is not one line: %q", err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if c.Workload != tc.workload || c.Script != tc.script || c.Dialect != tc.dialect {
				t.Errorf("workload %q script %q dialect %s; want %q %q %s", c.Workload, c.Script, c.Dialect, tc.workload, tc.script, tc.dialect)
			}
			var own []string
			for _, n := range c.Notes {
				if !strings.HasPrefix(n, "WARNING: the --test option is deprecated") {
					own = append(own, n)
				}
			}
			switch {
			case tc.note == "" && len(own) > 0:
				t.Errorf("notes %q, want none", own)
			case tc.note != "" && (len(own) != 1 || !strings.Contains(own[0], tc.note)):
				t.Errorf("notes %q, want one containing %q", own, tc.note)
			}
		})
	}
}
