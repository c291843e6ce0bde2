package main

// goslap compare on documents written by real runs of the goslap binary.

import (
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/goslap/goslap/internal/sandbox/servertest"
)

func TestCompareSavedRuns(t *testing.T) {
	s := servertest.Require(t)
	dir := t.TempDir()
	run := func(args ...string) (code int, stdout, stderr string) {
		t.Helper()
		cmd := exec.Command(binary, args...)
		var out, errb strings.Builder
		cmd.Stdout, cmd.Stderr = &out, &errb
		err := cmd.Run()
		if err != nil {
			if ee, ok := err.(*exec.ExitError); ok {
				return ee.ExitCode(), out.String(), errb.String()
			}
			t.Fatal(err)
		}
		return 0, out.String(), errb.String()
	}
	// Four short mysqlslap loads, two per side, and one of another plan.
	doc := func(name string, queries string) string {
		t.Helper()
		path := filepath.Join(dir, name+".json")
		if code, _, stderr := run("--no-defaults", "-S", s.Socket, "-uroot", "-a", "-c", "2", "--number-of-queries="+queries,
			"--silent", "--json="+path); code != 0 {
			t.Fatalf("%s: exit %d: %s", name, code, stderr)
		}
		return path
	}
	a1, b1, a2, b2 := doc("a1", "400"), doc("b1", "400"), doc("a2", "400"), doc("b2", "400")
	other := doc("other", "200")
	// Two short goslap sysbench runs: compared on transactions/s and the
	// run's --percentile.
	sb := func(args ...string) []string {
		return append([]string{"sysbench", "oltp_point_select", "--mysql-socket=" + s.Socket, "--mysql-user=root",
			"--mysql-db=goslap_compare", "--tables=1", "--table-size=100", "--threads=2", "--percentile=99"}, args...)
	}
	db, err := s.OpenDB("")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if _, err := db.Exec("CREATE DATABASE IF NOT EXISTS goslap_compare"); err != nil {
		t.Fatal(err)
	}
	defer db.Exec("DROP DATABASE IF EXISTS goslap_compare")
	if code, _, stderr := run(sb("prepare")...); code != 0 {
		t.Fatalf("prepare: exit %d: %s", code, stderr)
	}
	var sbDocs []string
	for _, name := range []string{"sb1", "sb2"} {
		path := filepath.Join(dir, name+".json")
		if code, _, stderr := run(sb("--events=2000", "--json="+path, "run")...); code != 0 {
			t.Fatalf("%s: exit %d: %s", name, code, stderr)
		}
		sbDocs = append(sbDocs, path)
	}

	cases := []struct {
		name     string
		args     []string
		code     int
		stdout   []string // substrings
		stderr   string
		noStdout bool
	}{
		{"one round each, no threshold", []string{a1, b1}, 0,
			[]string{"A: " + a1 + " (baseline)", "mysqlslap mixed c2  qps", "qps", "p95 ms", "no verdict (one round)", "a verdict needs several rounds"}, "", false},
		{"an impossible threshold on the point ratio", []string{"--fail-if", "qps<100", a1, b1}, 3,
			[]string{"FAILED qps<100: mysqlslap mixed c2, B/A", "judged on the ratio alone"}, "", false},
		{"a threshold not crossed", []string{"--fail-if=qps<0.001,p95>1000", a1, b1}, 0, nil, "", false},
		{"two rounds per side give a verdict", []string{a1, a2, "vs", b1, b2}, 0,
			[]string{"2 round(s) per side", "p95 ms"}, "", false},
		{"another plan is refused", []string{a1, other}, 1, nil,
			"goslap: compare: " + a1 + " and " + other + " ran different plans (--number-of-queries 400 vs 200): --force compares them anyway\n", true},
		{"--force compares it", []string{"--force", a1, other}, 0, []string{"mysqlslap mixed c2  qps"}, "compared anyway (--force)", false},
		{"sysbench runs compare on tps and the run's percentile", sbDocs, 0,
			[]string{"oltp_point_select c2  tps ", "oltp_point_select c2  p99 ms"}, "", false},
		{"sysbench runs against an impossible threshold", append([]string{"--fail-if=tps<100"}, sbDocs...), 3,
			[]string{"FAILED tps<100: oltp_point_select c2, B/A"}, "", false},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			code, stdout, stderr := run(append([]string{"compare"}, tc.args...)...)
			if code != tc.code {
				t.Fatalf("exit %d, want %d\nstdout:\n%s\nstderr:\n%s", code, tc.code, stdout, stderr)
			}
			if strings.Contains(strings.Join(tc.args, " "), " vs ") &&
				(strings.Contains(stdout, "no verdict") || strings.Count(stdout, "no difference detected")+strings.Count(stdout, "faster by ")+strings.Count(stdout, "slower by ") != 2) {
				t.Errorf("want a verdict per metric:\n%s", stdout)
			}
			for _, want := range tc.stdout {
				if !strings.Contains(stdout, want) {
					t.Errorf("stdout lacks %q:\n%s", want, stdout)
				}
			}
			if tc.noStdout && stdout != "" {
				t.Errorf("stdout %q, want none", stdout)
			}
			if !strings.Contains(stderr, tc.stderr) || (tc.stderr == "" && stderr != "") {
				t.Errorf("stderr %q, want %q", stderr, tc.stderr)
			}
			t.Logf("goslap compare %s:\n%s", strings.Join(tc.args, " "), stdout)
		})
	}
}
