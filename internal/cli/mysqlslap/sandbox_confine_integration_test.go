package mysqlslap

import (
	"bytes"
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/goslap/goslap/internal/sandbox/servertest"
)

// decoyState is what a file or directory outside the sandbox looked like.
type decoyState struct {
	content string
	mtime   time.Time
	mode    os.FileMode
}

// snapshotTree records every entry under root.
func snapshotTree(t *testing.T, root string) map[string]decoyState {
	t.Helper()
	out := map[string]decoyState{}
	err := filepath.WalkDir(root, func(p string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		fi, err := os.Lstat(p)
		if err != nil {
			return err
		}
		st := decoyState{mtime: fi.ModTime(), mode: fi.Mode()}
		if fi.Mode().IsRegular() {
			b, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			st.content = string(b)
		}
		out[p] = st
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// sameTree reports each entry under root created, changed or removed since before.
func sameTree(t *testing.T, root string, before map[string]decoyState) {
	t.Helper()
	after := snapshotTree(t, root)
	for p, b := range before {
		a, ok := after[p]
		switch {
		case !ok:
			t.Errorf("decoy %s was removed", p)
		case a != b:
			t.Errorf("decoy %s was changed: %+v, was %+v", p, a, b)
		}
	}
	for p := range after {
		if _, ok := before[p]; !ok {
			t.Errorf("%s was created outside the sandbox", p)
		}
	}
}

// confineRoot is a private directory (short: sandbox socket paths are
// limited) holding decoys/ (files a hostile option names), sb/ (the
// parent of sandbox directories, via TMPDIR) and cwd/ (goslap's working
// directory). A sandbox's data directory is sb/goslap-server-*/data, so
// "../../../decoys/F" from there is decoys/F.
func confineRoot(t *testing.T) (root, decoys string) {
	t.Helper()
	root, err := os.MkdirTemp("", "gsd")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(root) })
	decoys = filepath.Join(root, "decoys")
	for _, d := range []string{decoys, filepath.Join(decoys, "realdata"), filepath.Join(decoys, "tmp"), filepath.Join(root, "sb"), filepath.Join(root, "cwd")} {
		if err := os.MkdirAll(d, 0o700); err != nil {
			t.Fatal(err)
		}
	}
	for name, content := range map[string]string{
		"pid": "decoy pid\n", "err": "decoy\n", "err.err": "decoy log\n", "general.log": "decoy\n",
		"binlog": "decoy\n", "ibdata2": "decoy\n", "realdata/ibdata1": "a real server's data\n",
	} {
		if err := os.WriteFile(filepath.Join(decoys, name), []byte(content), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	// Decoys older than anything a run could write, so a rewrite with the
	// same content still shows in the modification time.
	old := time.Now().Add(-time.Hour)
	filepath.WalkDir(decoys, func(p string, _ os.DirEntry, _ error) error { return os.Chtimes(p, old, old) })
	return root, decoys
}

// runConfined runs goslap with args in root's cwd/, sandboxes under sb/,
// bounded by limit; the output is stderr followed by stdout (goslap
// sysbench says FATAL on stdout, as sysbench does).
func runConfined(t *testing.T, root string, limit time.Duration, args ...string) (code int, output string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), limit)
	defer cancel()
	cmd := exec.CommandContext(ctx, goslapBinary(t), args...)
	cmd.Dir = filepath.Join(root, "cwd")
	cmd.Env = append(os.Environ(), "TMPDIR="+filepath.Join(root, "sb"))
	var errb, outb bytes.Buffer
	cmd.Stderr, cmd.Stdout = &errb, &outb
	err := cmd.Run()
	var exitErr *exec.ExitError
	switch {
	case err == nil:
		return 0, errb.String() + outb.String()
	case errors.As(err, &exitErr):
		return exitErr.ExitCode(), errb.String() + outb.String()
	}
	t.Fatalf("goslap %v: %v", args, err)
	return 0, ""
}

// TestBinarySandboxOptionsConfined: a server option naming a place outside
// the sandbox's directory, or one of goslap's own settings, is refused in
// one line before anything starts, through every spelling that reaches a
// sandbox — and no decoy outside is created, changed or removed.
func TestBinarySandboxOptionsConfined(t *testing.T) {
	servertest.Require(t) // a regression would start a real sandbox on the decoys
	t.Parallel()
	root, decoys := confineRoot(t)
	d := func(name string) string { return filepath.Join(decoys, name) }
	up := "../../../decoys/" // from the sandbox's data directory
	options := []string{
		"pid_file=" + d("pid"),
		"pid-file=" + up + "pid",
		"loose-pid-file=" + d("pid"),
		"datadir=" + d("realdata"),
		"socket=" + d("sock"),
		"basedir=" + decoys,
		"log_error=" + d("err"),
		"log-error=" + up + "err",
		"log_bin=" + d("binlog"),
		"general_log_file=" + up + "general.log",
		"tmpdir=" + d("tmp"),
		"innodb_data_file_path=ibdata1:12M;" + d("ibdata2") + ":12M:autoextend",
	}
	spellings := []struct {
		name string
		args func(opt string) []string
	}{
		{"--sandbox-option", func(opt string) []string {
			return []string{"--no-defaults", "--sandbox", "--sandbox-option=" + opt, "-q", "select 1"}
		}},
		{"--target", func(opt string) []string {
			return []string{"--no-defaults", "--target=a:sandbox," + opt, "-q", "select 1"}
		}},
		{"--sweep-server-option", func(opt string) []string {
			return []string{"--no-defaults", "--workload=oltp_point_select", "--sandbox", "--sweep-server-option=" + opt, "--run-time=1"}
		}},
		{"--workload --sandbox-option", func(opt string) []string {
			return []string{"--no-defaults", "--workload=oltp_point_select", "--sandbox", "--sandbox-option=" + opt, "--run-time=1"}
		}},
		{"sysbench --sandbox-option", func(opt string) []string {
			return []string{"sysbench", "oltp_point_select", "--sandbox", "--sandbox-option=" + opt, "--time=1", "run"}
		}},
	}
	before := snapshotTree(t, root) // nothing may even enter sb/: no sandbox starts
	for _, sp := range spellings {
		for _, opt := range options {
			code, stderr := runConfined(t, root, 60*time.Second, sp.args(opt)...)
			var refusal []string
			for _, l := range strings.Split(strings.TrimSpace(stderr), "\n") {
				if strings.Contains(l, opt) {
					refusal = append(refusal, l)
				}
			}
			if code != 1 || len(refusal) != 1 ||
				!(strings.Contains(refusal[0], "is outside the sandbox's directory") || strings.Contains(refusal[0], "itself")) ||
				strings.Contains(stderr, "starting sandbox") {
				t.Errorf("%s %s: exit %d, want 1 and one line refusing the option before anything starts; stderr:\n%s", sp.name, opt, code, stderr)
			}
		}
	}
	sameTree(t, root, before)
}

// TestBinarySandboxRelativeNamesStayInside: a relative file name is the
// sandbox's own: the run works, and nothing appears outside the sandbox's
// directory (which is removed at the end).
func TestBinarySandboxRelativeNamesStayInside(t *testing.T) {
	servertest.Require(t)
	t.Parallel()
	root, decoys := confineRoot(t)
	cwd := filepath.Join(root, "cwd")
	beforeDecoys, beforeCwd := snapshotTree(t, decoys), snapshotTree(t, cwd)
	code, stderr := runConfined(t, root, 120*time.Second, "--no-defaults", "--sandbox", "--sandbox-option=log_error=x.err",
		"--sandbox-option=general_log=1", "--sandbox-option=general_log_file=logs.log", "--create=create table t(a int)", "-q", "select 1")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	sameTree(t, decoys, beforeDecoys)
	sameTree(t, cwd, beforeCwd)
	if ents, _ := os.ReadDir(filepath.Join(root, "sb")); len(ents) != 0 {
		t.Errorf("%d entries left where the sandbox was", len(ents))
	}
}

// hungServer writes a "server binary" whose --version never answers: a
// script that starts a child holding its output, writes the child's pid
// to childPid, and waits.
func hungServer(t *testing.T, dir string) (bin, childPid string) {
	t.Helper()
	bin, childPid = filepath.Join(dir, "mariadbd"), filepath.Join(dir, "child.pid")
	// Written, then renamed: the pid file appears whole, for a test that
	// signals as soon as it exists.
	script := "#!/bin/sh\nsleep 1000 &\necho $! > '" + childPid + ".tmp'\nmv '" + childPid + ".tmp' '" + childPid + "'\nwait\n"
	if err := os.WriteFile(bin, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	return bin, childPid
}

// TestBinaryInterruptedInHungVersionCheck: SIGINT or SIGTERM while a
// sandbox binary's --version hangs ends goslap within 5 s as every
// interrupt does ("goslap: interrupted", status 130), and the binary's
// process group goes with it.
func TestBinaryInterruptedInHungVersionCheck(t *testing.T) {
	t.Parallel()
	bin := goslapBinary(t)
	fronts := []struct {
		name string
		args func(server string) []string
	}{
		{"--sandbox", func(s string) []string { return []string{"--no-defaults", "--sandbox=" + s, "-q", "select 1"} }},
		{"--target", func(s string) []string {
			return []string{"--no-defaults", "--target=a:sandbox:" + s, "--target=b:sandbox:" + s, "-q", "select 1"}
		}},
		{"--workload", func(s string) []string {
			return []string{"--no-defaults", "--workload=oltp_point_select", "--sandbox=" + s}
		}},
	}
	for _, fe := range fronts {
		for _, sig := range []syscall.Signal{syscall.SIGINT, syscall.SIGTERM} {
			t.Run(fe.name+" "+sig.String(), func(t *testing.T) {
				dir, err := os.MkdirTemp("", "gsh")
				if err != nil {
					t.Fatal(err)
				}
				defer os.RemoveAll(dir)
				server, childPid := hungServer(t, dir)
				sb := filepath.Join(dir, "sb")
				if err := os.Mkdir(sb, 0o700); err != nil {
					t.Fatal(err)
				}
				cmd := exec.Command(bin, fe.args(server)...)
				cmd.Env = append(os.Environ(), "TMPDIR="+sb)
				var stderr bytes.Buffer
				cmd.Stderr = &stderr
				if err := cmd.Start(); err != nil {
					t.Fatal(err)
				}
				exited := make(chan error, 1)
				go func() { exited <- cmd.Wait() }()
				defer func() {
					cmd.Process.Kill()
					killChild(childPid)
				}()
				for deadline := time.Now().Add(20 * time.Second); ; time.Sleep(20 * time.Millisecond) {
					if _, err := os.Stat(childPid); err == nil {
						break
					}
					if time.Now().After(deadline) {
						t.Fatalf("the version check did not start; stderr: %s", stderr.String())
					}
				}
				time.Sleep(100 * time.Millisecond)
				start := time.Now()
				cmd.Process.Signal(sig)
				select {
				case err = <-exited:
				case <-time.After(10 * time.Second):
					t.Fatalf("goslap still runs 10 s after %v; stderr: %s", sig, stderr.String())
				}
				took := time.Since(start)
				var exitErr *exec.ExitError
				if !errors.As(err, &exitErr) || exitErr.ExitCode() != 130 {
					t.Errorf("exit: %v, want status 130; stderr: %s", err, stderr.String())
				}
				if took > 5*time.Second {
					t.Errorf("exited %v after %v, want within 5 s", took, sig)
				}
				if !strings.Contains(stderr.String(), "goslap: interrupted\n") || strings.Contains(stderr.String(), "goroutine ") {
					t.Errorf("stderr %q, want goslap: interrupted and no stack", stderr.String())
				}
				if !childGone(childPid) {
					t.Error("the binary's child outlived goslap")
				}
				if ents, _ := os.ReadDir(sb); len(ents) != 0 {
					t.Errorf("%d entries left in the sandboxes' parent directory", len(ents))
				}
			})
		}
	}
}

// childGone waits (up to 2 s) until the process whose pid is in pidFile
// has ended (a zombie has).
func childGone(pidFile string) bool {
	b, err := os.ReadFile(pidFile)
	if err != nil {
		return false
	}
	pid, err := strconv.Atoi(strings.TrimSpace(string(b)))
	if err != nil {
		return false
	}
	for deadline := time.Now().Add(2 * time.Second); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		stat, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
		if err != nil || strings.Contains(string(stat), ") Z ") {
			return true
		}
	}
	return false
}

// killChild ends the test's fake server's child, should goslap have left it.
func killChild(pidFile string) {
	if b, err := os.ReadFile(pidFile); err == nil {
		if pid, err := strconv.Atoi(strings.TrimSpace(string(b))); err == nil && pid > 0 {
			if stat, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/cmdline"); err == nil && strings.HasPrefix(string(stat), "sleep\x00") {
				syscall.Kill(pid, syscall.SIGKILL)
			}
		}
	}
}
