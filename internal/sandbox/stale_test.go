package sandbox

import (
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"syscall"
	"testing"
	"time"
)

func TestSweepStale(t *testing.T) {
	parent := t.TempDir()
	gone := exec.Command("true")
	if err := gone.Run(); err != nil {
		t.Fatal(err)
	}
	self := os.Getpid()
	tests := []struct {
		name    string
		dir     string
		owner   string // "" = no owner file
		server  bool   // a process posing as the directory's server runs
		removed bool
	}{
		{name: "owner gone", dir: dirPrefix + "gone", owner: strconv.Itoa(gone.Process.Pid) + " 1", removed: true},
		{name: "owner gone, its server still running", dir: dirPrefix + "orphan", owner: strconv.Itoa(gone.Process.Pid) + " 1", server: true, removed: true},
		{name: "owner's pid reused by another process", dir: dirPrefix + "reused", owner: strconv.Itoa(self) + " 1", removed: true},
		{name: "owner running", dir: dirPrefix + "live", owner: strconv.Itoa(self) + " " + processStart(self)},
		{name: "owner running, start time unknown", dir: dirPrefix + "old", owner: strconv.Itoa(self)},
		{name: "no owner file (being created, or kept)", dir: dirPrefix + "new"},
		{name: "unreadable owner", dir: dirPrefix + "junk", owner: "junk"},
		{name: "not a server directory", dir: "other-gone", owner: strconv.Itoa(gone.Process.Pid) + " 1"},
	}
	servers := map[string]*exec.Cmd{}
	for _, tc := range tests {
		dir := filepath.Join(parent, tc.dir)
		if err := os.MkdirAll(filepath.Join(dir, "data"), 0o700); err != nil {
			t.Fatal(err)
		}
		if tc.owner != "" {
			if err := os.WriteFile(filepath.Join(dir, ownerFile), []byte(tc.owner+"\n"), 0o600); err != nil {
				t.Fatal(err)
			}
		}
		if tc.server {
			// argv[0] carries the --datadir the sweep looks for.
			cmd := exec.Command("bash", "-c", `exec -a "mariadbd --datadir=$0/data" sleep 60`, dir)
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			go cmd.Wait() // reap it, or it lingers as a zombie
			t.Cleanup(func() { cmd.Process.Kill() })
			time.Sleep(100 * time.Millisecond) // until exec -a has happened
			if err := os.WriteFile(filepath.Join(dir, "mysqld.pid"), []byte(strconv.Itoa(cmd.Process.Pid)+"\n"), 0o600); err != nil {
				t.Fatal(err)
			}
			servers[tc.name] = cmd
		}
	}
	removed := map[string]bool{}
	for _, d := range SweepStale(parent) {
		removed[filepath.Base(d)] = true
	}
	for _, tc := range tests {
		_, err := os.Stat(filepath.Join(parent, tc.dir))
		if exists := err == nil; exists == tc.removed || removed[tc.dir] != tc.removed {
			t.Errorf("%s: exists %v, reported removed %v; want removed %v", tc.name, exists, removed[tc.dir], tc.removed)
		}
		if cmd := servers[tc.name]; cmd != nil {
			if err := syscall.Kill(cmd.Process.Pid, 0); err == nil {
				t.Errorf("%s: the server still runs", tc.name)
			}
		}
	}
}
