package outpath

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestCheck(t *testing.T) {
	dir := t.TempDir()
	t.Chdir(dir)
	for _, name := range []string{"q.sql", "old.json"} {
		if err := os.WriteFile(name, []byte("x"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Symlink("old.json", "link.json"); err != nil {
		t.Fatal(err)
	}
	if err := os.Link("q.sql", "hard.sql"); err != nil {
		t.Fatal(err)
	}
	out := func(opt, path string) File { return File{Option: opt, Path: path} }
	in := func(opt, path string) File { return File{Option: opt, Path: path, Input: true} }
	for _, tc := range []struct {
		name  string
		files []File
		want  string // "" for no conflict
	}{
		{"distinct", []File{out("--json", "a.json"), out("--plot", "a.svg"), out("--csv", "a.csv")}, ""},
		{"same name", []File{out("--json", "o.json"), out("--plot", "o.json")},
			"--json=o.json and --plot=o.json name the same file: give each output its own"},
		{"cleaned path", []File{out("--csv", "o.csv"), out("--json", "./sub/../o.csv")},
			"--csv=o.csv and --json=./sub/../o.csv name the same file"},
		{"absolute and relative", []File{out("--csv", filepath.Join(dir, "o.csv")), out("--plot", "o.csv")}, "name the same file"},
		{"symbolic link", []File{out("--json", "old.json"), out("--plot", "link.json")}, "--json=old.json and --plot=link.json"},
		{"output over an input", []File{in("--query", "q.sql"), out("--json", "q.sql")},
			"--json=q.sql would overwrite the file that --query=q.sql reads: give the output another name"},
		{"hard link to an input", []File{out("--json", "hard.sql"), in("--create", "q.sql")}, "--json=hard.sql would overwrite the file that --create=q.sql reads"},
		{"two inputs", []File{in("--query", "q.sql"), in("--create", "q.sql")}, ""},
		{"stdout and unset", []File{out("--json", ""), out("--csv", "")}, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := Check(tc.files...)
			switch {
			case tc.want == "" && err != nil:
				t.Errorf("unexpected refusal: %v", err)
			case tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want)):
				t.Errorf("got %v; want %q", err, tc.want)
			}
		})
	}
}
