package target_test

// Version against version for real: the installed MariaDB against another
// release of the same package, obtained as a user would (apt-get download,
// dpkg-deb -x, no install), each in a goslap --target sandbox.

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/goslap/goslap/internal/cli/mysqlslap"
	"github.com/goslap/goslap/internal/mysqld"
	"github.com/goslap/goslap/internal/sandbox"
	"github.com/goslap/goslap/internal/target"
)

// serverPackage is the Debian package holding mariadbd, its SQL scripts,
// error messages and character sets.
const serverPackage = "mariadb-server-core"

// skipOtherRelease is the explicit opt-out for machines that cannot reach a
// package archive: without it, a missing second release fails under CI=true.
const skipOtherRelease = "GOSLAP_SKIP_OTHER_RELEASE"

// cacheDir is where downloaded releases are kept between runs.
func cacheDir() (string, error) {
	if d := os.Getenv("GOSLAP_CACHE"); d != "" {
		return d, nil
	}
	d, err := os.UserCacheDir()
	if err != nil {
		return "", err
	}
	return filepath.Join(d, "goslap"), nil
}

// otherRelease is the root of an extracted serverPackage of a version the
// archive serves besides the installed one, downloading it on first use.
// When there is none it skips the test — or fails it under CI=true unless
// GOSLAP_SKIP_OTHER_RELEASE=1 says that is expected.
func otherRelease(t *testing.T) string {
	t.Helper()
	root, err := fetchOtherRelease()
	if err != nil {
		msg := fmt.Sprintf("no second MariaDB release: %v", err)
		switch {
		case os.Getenv(skipOtherRelease) == "1":
			t.Skipf("%s (%s=1)", msg, skipOtherRelease)
		case sandbox.InCI():
			t.Fatalf("%s; set %s=1 if this machine cannot have one", msg, skipOtherRelease)
		default:
			t.Skip(msg)
		}
	}
	return root
}

var policyVersion = regexp.MustCompile(`^\s+(?:\*\*\* )?(\S+) \d+$`)

func fetchOtherRelease() (string, error) {
	out, err := exec.Command("apt-cache", "policy", serverPackage).Output()
	if err != nil {
		return "", fmt.Errorf("apt-cache policy %s: %v", serverPackage, err)
	}
	installed, other := "", ""
	for _, line := range strings.Split(string(out), "\n") {
		if v, ok := strings.CutPrefix(strings.TrimSpace(line), "Installed: "); ok {
			installed = v
		}
		if m := policyVersion.FindStringSubmatch(line); m != nil && m[1] != installed && other == "" {
			other = m[1]
		}
	}
	if other == "" {
		return "", fmt.Errorf("apt-cache policy %s lists no version besides the installed %s (apt-get update may find one)", serverPackage, installed)
	}
	cache, err := cacheDir()
	if err != nil {
		return "", err
	}
	root := filepath.Join(cache, serverPackage+"_"+strings.ReplaceAll(other, ":", "_"))
	if _, err := os.Stat(filepath.Join(root, "usr/sbin/mariadbd")); err == nil {
		return root, nil
	}
	if err := os.MkdirAll(cache, 0o755); err != nil {
		return "", err
	}
	work, err := os.MkdirTemp(cache, "download-")
	if err != nil {
		return "", err
	}
	defer os.RemoveAll(work)
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	get := exec.CommandContext(ctx, "apt-get", "download", "-q", serverPackage+"="+other)
	get.Dir = work // apt-get download writes into the current directory
	if out, err := get.CombinedOutput(); err != nil {
		return "", fmt.Errorf("apt-get download %s=%s: %v: %s", serverPackage, other, err, bytes.TrimSpace(out))
	}
	debs, _ := filepath.Glob(filepath.Join(work, "*.deb"))
	if len(debs) != 1 {
		return "", fmt.Errorf("apt-get download %s=%s left %d .deb files", serverPackage, other, len(debs))
	}
	extract := filepath.Join(work, "root")
	if out, err := exec.CommandContext(ctx, "dpkg-deb", "-x", debs[0], extract).CombinedOutput(); err != nil {
		return "", fmt.Errorf("dpkg-deb -x %s: %v: %s", debs[0], err, bytes.TrimSpace(out))
	}
	if err := os.Rename(extract, root); err != nil {
		return "", err
	}
	return root, nil
}

func versionOf(t *testing.T, binaryOrDir string) mysqld.Version {
	t.Helper()
	bin, err := mysqld.Find(binaryOrDir)
	if err != nil {
		t.Fatal(err)
	}
	v, err := mysqld.ReadVersion(context.Background(), bin)
	if err != nil {
		t.Fatal(err)
	}
	return v
}

// TestCompareTwoReleases runs one small benchmark on the installed server
// and on the other release (given as the extract's top directory, so the
// layout search finds usr/sbin/mariadbd and usr/share/mysql in it) and
// checks that the reports, the table and the chart name both versions.
func TestCompareTwoReleases(t *testing.T) {
	requireServer(t)
	installed, err := sandbox.FindServer()
	if err != nil {
		t.Fatal(err)
	}
	other := otherRelease(t)
	vi, vo := versionOf(t, installed), versionOf(t, other)
	if vi.Number == vo.Number {
		t.Fatalf("the other release %s is the installed version %s", other, vi.Number)
	}
	labelOf := func(v mysqld.Version) string { return fmt.Sprintf("%d.%d.%d", v.Major, v.Minor, v.Patch) }
	li, lo := labelOf(vi), labelOf(vo)

	dir := tempDir(t)
	chart := filepath.Join(t.TempDir(), "versions.svg")
	started := time.Now()
	r := runTargets(t, dir, mysqlslap.SandboxOptions{
		Targets: []string{li + ":sandbox:" + installed, lo + ":sandbox:" + other},
		Plot:    chart,
	}, "-v", "-a", "-e", "innodb", "-c", "1,4", "-i", "1", "--number-of-queries=200")
	if r.err != nil {
		t.Fatalf("%v\nstderr:\n%s", r.err, r.stderr)
	}
	t.Logf("%v\nstdout:\n%s\nstderr:\n%s", time.Since(started), r.stdout, r.stderr)
	target.AssertClean(t, dir)

	for _, want := range []string{"Target: " + li + "\n", "Target: " + lo + "\n",
		"ratio = q/s against " + li + "\n",
		"  " + li + ": sandbox: mariadbd " + vi.Number + "\n",
		"  " + lo + ": sandbox: mariadbd " + vo.Number + "\n"} {
		if !strings.Contains(r.stdout, want) {
			t.Errorf("stdout lacks %q", want)
		}
	}
	if n := strings.Count(r.stdout, "Benchmark\n"); n != 4 {
		t.Errorf("%d Benchmark blocks, want 4", n)
	}
	table := r.stdout[strings.Index(r.stdout, "Comparison:"):]
	if !regexp.MustCompile(`(?m)^\s+` + regexp.QuoteMeta(li) + `\s+` + regexp.QuoteMeta(lo) + `\s*$`).MatchString(table) {
		t.Errorf("table does not head its columns %s and %s:\n%s", li, lo, table)
	}
	row := regexp.MustCompile(`(?m)^innodb\s+(1|4)\s+\d+\.\d{3}\s+\d+\.\d\s+\d+\.\d{3}\s+\d+\.\d\s+\d+\.\d\dx\s*$`)
	if n := len(row.FindAllString(table, -1)); n != 2 {
		t.Errorf("%d table rows, want 2:\n%s", n, table)
	}
	// -v: the other release's system tables and messages are its own.
	for _, want := range []string{
		"goslap: sandbox: mysql_system_tables.sql: " + filepath.Join(other, "usr/share/mysql/mysql_system_tables.sql") + " (beside the binary)",
		"goslap: sandbox: error messages: " + filepath.Join(other, "usr/share/mysql/english/errmsg.sys") + " (beside the binary)",
	} {
		if !strings.Contains(r.stderr, want) {
			t.Errorf("stderr lacks %q", want)
		}
	}
	svg, err := os.ReadFile(chart)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{">" + li + " innodb<", ">" + lo + " innodb<"} {
		if !bytes.Contains(svg, []byte(want)) {
			t.Errorf("chart lacks text %q", want)
		}
	}
}

// TestSandboxMissingFilesOneLine: a binary without its files, of a series
// whose files cannot be borrowed from the installed server, fails before
// anything runs with one line naming what is missing and how to get it.
func TestSandboxMissingFilesOneLine(t *testing.T) {
	requireServer(t)
	lone := filepath.Join(t.TempDir(), "bin")
	if err := os.MkdirAll(lone, 0o755); err != nil {
		t.Fatal(err)
	}
	// Answers --version like a server of another series; never gets further.
	script := "#!/bin/sh\necho \"$0  Ver 10.2.99-MariaDB for Linux on x86_64 (test)\"\n"
	if err := os.WriteFile(filepath.Join(lone, "mariadbd"), []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	dir := tempDir(t)
	r := runTargets(t, dir, mysqlslap.SandboxOptions{Targets: []string{"lone:sandbox:" + filepath.Dir(lone)}},
		"-a", "-c", "1", "--number-of-queries=5")
	var ee *mysqlslap.ExitError
	if !errors.As(r.err, &ee) || ee.Code != 1 {
		t.Fatalf("error = %v, want exit status 1", r.err)
	}
	for _, want := range []string{"goslap: target lone: sandbox: cannot initialise a data directory for " + filepath.Join(lone, "mariadbd"),
		"english/errmsg.sys, mysql_system_tables.sql, mysql_system_tables_data.sql not found in",
		"another series, so its files are not used", "Debian: the package mariadb-server-core"} {
		if !strings.Contains(ee.Msg, want) {
			t.Errorf("message lacks %q:\n%s", want, ee.Msg)
		}
	}
	if strings.Contains(ee.Msg, "\n") {
		t.Errorf("message is not one line:\n%s", ee.Msg)
	}
	target.AssertClean(t, dir)
}
