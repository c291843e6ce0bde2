package mysqlslap

import (
	"errors"
	"strings"
	"testing"
)

// FuzzNormalizeArgs feeds arbitrary argument lists (NUL-separated) to
// ParseCommandLine with a fake env: it must never panic, never prompt, and
// every failure must be an *ExitError.
func FuzzNormalizeArgs(f *testing.F) {
	for _, seed := range []string{
		"-avvv\x00--iter=2k", "--skip-auto", "--loose-auto-generate-sql-u=3", "-#d", "-p\x00SECRET",
		"--protocol=t\x00-S\x00/s", "--csv=-\x00-c5", "--enable-create-schema", "--maximum-iterations",
		"--print-defaults", "--defaults-file=/nonexistent", "--\x00--foo", "--ssl-mode=required", "-i\x00-1",
		"--help", "-V", "--iterations=99999999999999999999999", "--only-print=2",
	} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, joined string) {
		args := strings.Split(joined, "\x00")
		env, _, _ := testEnv(t.TempDir(), map[string]string{})
		env.DefaultFiles = []string{}
		_, err := ParseCommandLine(args, env)
		var ee *ExitError
		if err != nil && !errors.As(err, &ee) {
			t.Fatalf("%q: error %T %v is not an ExitError", args, err, err)
		}
	})
}
