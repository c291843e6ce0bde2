package optfile

import (
	"bytes"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"testing/fstest"
)

var clientGroups = []string{"mysqlslap", "mariadb-slap", "client", "client-server", "client-mariadb", "goslap"}

func TestReadFile(t *testing.T) {
	tests := []struct {
		name    string
		files   map[string]string
		want    []string
		wantErr string
		// wantStderr is the exact warning text (mariadb-slap 10.11's).
		wantStderr string
	}{
		{name: "groups and comments", files: map[string]string{"a.cnf": "# c\n; c\n[mysqld]\nx=1\n[client]\n  port = 3307  \nsilent\n[goslap]\nv=1\n"},
			want: []string{"--port=3307", "--silent", "--v=1"}},
		{name: "quotes escapes and inline comments", files: map[string]string{"a.cnf": "[client]\na=/x#y\nb = \"q # r\" # c\nc='a\\nb\\sc\\qd'\nd=\\\"3\n"},
			want: []string{"--a=/x", "--b=q # r", "--c=a\nb c\\qd", `--d="3`}},
		{name: "name with trailing words", files: map[string]string{"a.cnf": "[client]\nverbose junk\n"}, want: []string{"--verbose junk"}},
		{name: "spaced group header is another group", files: map[string]string{"a.cnf": "[ client ]\nx=1\n"}},
		{name: "include and includedir", files: map[string]string{
			"a.cnf":   "[client]\na=1\n!include /inc.cnf\n!includedir /d\n!include /missing.cnf\nb=2\n",
			"inc.cnf": "[client]\ninc=1\n", "d/2.cnf": "[client]\nd2=1\n", "d/1.cnf": "[client]\nd1=1\n", "d/x.txt": "[client]\nno=1\n"},
			want: []string{"--a=1", "--inc=1", "--d1=1", "--d2=1", "--b=2"}},
		{name: "self include terminates with mariadb-slap's warning", files: map[string]string{"a.cnf": "[client]\na=1\n!include  /a.cnf \n"},
			want:       []string{"--a=1", "--a=1", "--a=1", "--a=1", "--a=1", "--a=1", "--a=1", "--a=1", "--a=1", "--a=1", "--a=1"},
			wantStderr: "Warning: skipping '!include  /a.cnf' directive as maximum includerecursion level was reached in file /a.cnf at line 3\n"},
		{name: "includedir loop warns once", files: map[string]string{"a.cnf": "[client]\n!includedir /d\n", "d/x.cnf": "[client]\nx=1\n!includedir /d\n"},
			want:       []string{"--x=1", "--x=1", "--x=1", "--x=1", "--x=1", "--x=1", "--x=1", "--x=1", "--x=1", "--x=1"},
			wantStderr: "Warning: skipping '!includedir /d' directive as maximum includerecursion level was reached in file /d/x.cnf at line 3\n"},
		{name: "group names ignore case and trailing blanks", files: map[string]string{"a.cnf": "[Client]\na=1\n[MYSQLSLAP]\nb=2\n[MariaDB-Slap]\nc=3\n[client \t]\nd=4\n[mysqld]\nno=1\n"},
			want: []string{"--a=1", "--b=2", "--c=3", "--d=4"}},
		{name: "bare include is fatal", files: map[string]string{"a.cnf": "[client]\na=1\n  !include   \n"},
			wantErr: "error: Wrong '!include' directive in config file: /a.cnf at line 3\nFatal error in defaults handling. Program aborted"},
		{name: "bare includedir is fatal", files: map[string]string{"a.cnf": "[client]\n! includedir\n"},
			wantErr: "error: Wrong '!includedir' directive in config file: /a.cnf at line 2\nFatal error in defaults handling. Program aborted"},
		{name: "missing includedir is fatal", files: map[string]string{"a.cnf": "[client]\n!includedir /none\n"},
			wantErr: "\agoslap: Can't read dir of '/none' (Errcode: 2 \"No such file or directory\")\nFatal error in defaults handling. Program aborted"},
		{name: "keyword without blank and unknown directives are ignored", files: map[string]string{"a.cnf": "[client]\n!foo\n!includex /none\na=1\n!include"},
			want: []string{"--a=1"}},
		{name: "final line without newline loses its last byte", files: map[string]string{"a.cnf": "[client]\n!include /inc.cnfX", "inc.cnf": "[client]\ninc=1\n"},
			want: []string{"--inc=1"}},
		{name: "option before group", files: map[string]string{"a.cnf": "x=1\n"},
			wantErr: "error: Found option without preceding group in config file: /a.cnf at line: 1\nFatal error in defaults handling. Program aborted"},
		{name: "bad group", files: map[string]string{"a.cnf": "\n[client\n"},
			wantErr: "error: Wrong group definition in config file: /a.cnf at line 2\nFatal error in defaults handling. Program aborted"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			fsys := fstest.MapFS{}
			for n, text := range tc.files {
				fsys[n] = &fstest.MapFile{Data: []byte(text), Mode: 0o644}
			}
			var stderr bytes.Buffer
			r := &Reader{Groups: clientGroups, Stderr: &stderr, FS: fsys}
			got, err := r.ReadFile("/a.cnf", true)
			if stderr.String() != tc.wantStderr {
				t.Errorf("stderr %q, want %q", stderr.String(), tc.wantStderr)
			}
			if tc.wantErr != "" {
				if err == nil || err.Error() != tc.wantErr {
					t.Fatalf("err %v, want %q", err, tc.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(got, tc.want) {
				t.Errorf("got %q, want %q", got, tc.want)
			}
		})
	}
}

func TestMissingAndWorldWritable(t *testing.T) {
	dir := t.TempDir()
	var stderr bytes.Buffer
	r := &Reader{Groups: clientGroups, Stderr: &stderr}
	missing := filepath.Join(dir, "none.cnf")
	if _, err := r.ReadFile(missing, true); err == nil || err.Error() != "Could not open required defaults file: "+missing+"\nFatal error in defaults handling. Program aborted" {
		t.Errorf("required missing: %v", err)
	}
	if w, err := r.ReadFile(missing, false); err != nil || len(w) != 0 {
		t.Errorf("optional missing: %q %v", w, err)
	}
	ww := filepath.Join(dir, "ww.cnf")
	if err := os.WriteFile(ww, []byte("[client]\nx=1\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(ww, 0o666); err != nil {
		t.Fatal(err)
	}
	if w, err := r.ReadFile(ww, true); err != nil || len(w) != 0 {
		t.Errorf("world-writable: %q %v", w, err)
	}
	if want := "Warning: World-writable config file '" + ww + "' is ignored\n"; stderr.String() != want {
		t.Errorf("stderr %q, want %q", stderr.String(), want)
	}
}

func TestGroupSuffix(t *testing.T) {
	got := strings.Join(Groups([]string{"client", "goslap"}, "_x"), " ")
	if got != "client goslap client_x goslap_x" {
		t.Errorf("got %q", got)
	}
}

func TestRealMyCnf(t *testing.T) {
	if _, err := os.Stat("/etc/mysql/my.cnf"); err != nil {
		t.Skip("no /etc/mysql/my.cnf")
	}
	r := &Reader{Groups: clientGroups, Stderr: &bytes.Buffer{}}
	if _, err := r.ReadFile("/etc/mysql/my.cnf", true); err != nil {
		t.Fatal(err)
	}
}

func FuzzOptionFile(f *testing.F) {
	f.Add("[client]\nport=3306\n")
	f.Add("[client]\na = \"x # y\" # c\nb='\\n\\s\\q'\n!include /a.cnf\n!includedir /\n")
	f.Add("x=1\n")
	f.Add("[client\n")
	f.Fuzz(func(t *testing.T, text string) {
		fsys := fstest.MapFS{"a.cnf": &fstest.MapFile{Data: []byte(text), Mode: 0o644},
			"b.cnf": &fstest.MapFile{Data: []byte(text), Mode: 0o644}}
		r := &Reader{Groups: clientGroups, Stderr: &bytes.Buffer{}, FS: fsys}
		_, _ = DecodeLoginFile([]byte(text)) // must not panic on any input
		words, err := r.ReadFile("/a.cnf", true)
		if err == nil {
			for _, w := range words {
				if !strings.HasPrefix(w, "--") {
					t.Fatalf("word %q does not start with --", w)
				}
			}
		}
	})
}
