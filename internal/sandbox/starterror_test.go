package sandbox

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestFirstLogError(t *testing.T) {
	tests := []struct {
		name, log, want string
		from            int64
	}{
		{name: "MariaDB", log: "2026-12-03  7:54:03 0 [Note] Plugin 'FEEDBACK' is disabled.\n" +
			"2026-12-03  7:54:03 0 [ERROR] /usr/sbin/mariadbd: unknown variable 'x=1'\n2026-12-03  7:54:03 0 [ERROR] Aborting\n",
			want: "/usr/sbin/mariadbd: unknown variable 'x=1'"},
		{name: "MySQL 8", log: "2026-12-03T07:54:03.1Z 0 [ERROR] [MY-000067] [Server] unknown variable 'x=1'.\n",
			want: "unknown variable 'x=1'."},
		{name: "an earlier attempt's error is skipped", log: "[ERROR] Can't start server: Bind on TCP/IP port: Address already in use\n[ERROR] second\n",
			from: int64(len("[ERROR] Can't start server: Bind on TCP/IP port: Address already in use\n")), want: "second"},
		{name: "no error line", log: "[Note] ready\n", want: ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			s := &Server{LogFile: filepath.Join(t.TempDir(), "error.log")}
			if err := os.WriteFile(s.LogFile, []byte(tc.log), 0o600); err != nil {
				t.Fatal(err)
			}
			if got := s.firstLogError(tc.from); got != tc.want {
				t.Errorf("firstLogError = %q, want %q", got, tc.want)
			}
		})
	}
}

func TestStartFailureIsAStartError(t *testing.T) {
	if _, err := FindServer(); err != nil && !InCI() {
		t.Skip(err)
	}
	parent, err := os.MkdirTemp("", "gse")
	if err != nil {
		t.Fatal(err)
	}
	defer os.RemoveAll(parent)
	_, err = Start(Config{Options: []string{"no-such-option=1"}, TempDir: parent})
	var se *StartError
	if !errors.As(err, &se) {
		t.Fatalf("error %v (%T) is not a *StartError", err, err)
	}
	if !strings.HasSuffix(se.ServerError, ": unknown variable 'no-such-option=1'") {
		t.Errorf("ServerError = %q", se.ServerError)
	}
	if !strings.Contains(err.Error(), "[ERROR] Aborting") {
		t.Errorf("Error() lacks the log tail: %q", err.Error())
	}
	if ents, _ := os.ReadDir(parent); len(ents) != 0 {
		t.Errorf("left behind: %v", ents)
	}
}
