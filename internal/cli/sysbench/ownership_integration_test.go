package sysbench

import (
	"bytes"
	"context"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/goslap/goslap/internal/sandbox"
	"github.com/goslap/goslap/internal/sandbox/servertest"
)

func sqlExec(t *testing.T, s *sandbox.Server, stmts ...string) {
	t.Helper()
	db, err := s.OpenDB("")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	for _, q := range stmts {
		if _, err := db.Exec(q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
}

func sqlCount(t *testing.T, s *sandbox.Server, q string) int {
	t.Helper()
	db, err := s.OpenDB("")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	var n int
	if err := db.QueryRow(q).Scan(&n); err != nil {
		t.Fatalf("%s: %v", q, err)
	}
	return n
}

// TestUserTablesSurvive: `goslap sysbench` drops, prepares over or runs on
// a table only when it is sysbench's: a user's sbtest1(id, payroll) and a
// user's invoices named by --oltp-table-name keep their rows, each refusal
// a FATAL line naming the table, exit 1.
func TestUserTablesSurvive(t *testing.T) {
	s := servertest.Require(t)
	sqlExec(t, s, "CREATE DATABASE own_user",
		"CREATE TABLE own_user.sbtest1 (id INT PRIMARY KEY, payroll INT)", "INSERT INTO own_user.sbtest1 VALUES (1, 1000)",
		"CREATE TABLE own_user.invoices (id INT PRIMARY KEY, total DECIMAL(8,2))", "INSERT INTO own_user.invoices VALUES (1, 9.5)")
	pay := "FATAL: table own_user.sbtest1 has columns (id, payroll), not sysbench 1.0's table (id, k, c, pad)"
	inv := "FATAL: table own_user.invoices has columns (id, total), not sysbench 0.4's table (id, k, c, pad)"
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"oltp_read_write", "--tables=2", "cleanup"}, pay + ": not dropped\n"},
		{[]string{"oltp_delete", "--time=1", "run"}, pay + ": not used\n"},
		{[]string{"oltp_read_write", "prepare"}, "FATAL: table sbtest1 already exists"},
		{[]string{"--test=oltp", "--oltp-table-name=invoices", "cleanup"}, inv + ": not dropped\n"},
		{[]string{"--test=oltp", "--oltp-table-name=invoices", "--max-requests=10", "run"}, inv + ": not used\n"},
	} {
		out, errOut, code := goslapSysbench(t, s, append([]string{"--mysql-db=own_user"}, tc.args...)...)
		if code != 1 || !strings.Contains(out, tc.want) || strings.Contains(out, "Dropping") {
			t.Errorf("goslap sysbench %s: exit %d\nstdout %q\nwant it to hold %q\nstderr %q", strings.Join(tc.args, " "), code, out, tc.want, errOut)
		}
	}
	if n := sqlCount(t, s, "SELECT (SELECT COUNT(*) FROM own_user.sbtest1 WHERE payroll = 1000) + (SELECT COUNT(*) FROM own_user.invoices)"); n != 2 {
		t.Errorf("the user's tables hold %d of their 2 rows", n)
	}
}

// TestCleanupAsSysbenchDoes: tables sysbench 1.0.20 prepared clean up,
// each drop said as sysbench says it; with no tables, 1.0's cleanup says
// there is nothing to drop and succeeds (sysbench 1.0.20 exits 0 too),
// 0.4's fails with one line, as sysbench 0.4 does.
func TestCleanupAsSysbenchDoes(t *testing.T) {
	s := servertest.Require(t)
	bin, err := exec.LookPath("sysbench")
	if err != nil {
		if sandbox.InCI() {
			t.Fatal("sysbench 1.0.20 is not installed")
		}
		t.Skip("sysbench is not installed")
	}
	sqlExec(t, s, "CREATE DATABASE own_sysb")
	if out, err := exec.Command(bin, "oltp_read_write", "--mysql-socket="+s.Socket, "--mysql-user=root", "--mysql-db=own_sysb",
		"--tables=2", "--table-size=5", "prepare").CombinedOutput(); err != nil {
		t.Fatalf("sysbench prepare: %v\n%s", err, out)
	}
	out := mustRun(t, s, "--mysql-db=own_sysb", "oltp_read_write", "--tables=2", "cleanup")
	if !strings.HasSuffix(out, "\n\nDropping table 'sbtest1'...\nDropping table 'sbtest2'...\n") {
		t.Errorf("cleanup of sysbench's tables:\n%s", out)
	}
	if got := tables(t, s, "own_sysb"); len(got) != 0 {
		t.Errorf("own_sysb holds %v", got)
	}
	out = mustRun(t, s, "--mysql-db=own_sysb", "oltp_read_write", "--tables=2", "cleanup")
	if !strings.HasSuffix(out, "\n\nNothing to drop for table sbtest1, sbtest2: not in schema 'own_sysb'\n") {
		t.Errorf("1.0 cleanup of missing tables:\n%s", out)
	}
	out, _, code := goslapSysbench(t, s, "--mysql-db=own_sysb", "--test=oltp", "cleanup")
	if code != 1 || !strings.HasSuffix(out, "\nFATAL: table sbtest does not exist in schema 'own_sysb': nothing to drop (Error 1051 Unknown table, as sysbench 0.4 stops)\n") {
		t.Errorf("0.4 cleanup of a missing table: exit %d\n%s", code, out)
	}
}

// TestInterruptedPrepareSaysWhatItDropped: a prepare ended by its context
// (Ctrl-C) drops the tables it created and says so; nothing is left.
func TestInterruptedPrepareSaysWhatItDropped(t *testing.T) {
	s := servertest.Require(t)
	sqlExec(t, s, "CREATE DATABASE own_int")
	ctx, cancel := context.WithTimeout(context.Background(), 400*time.Millisecond)
	defer cancel()
	var o, e bytes.Buffer
	code := Main([]string{"--mysql-socket=" + s.Socket, "--mysql-user=root", "--mysql-db=own_int",
		"oltp_read_write", "--tables=2", "--table-size=1000000", "prepare"}, Env{Stdout: &o, Stderr: &e, Context: ctx})
	if code == 0 || !strings.Contains(o.String(), " of this prepare were dropped\n") {
		t.Errorf("interrupted prepare: exit %d\nstdout:\n%s\nstderr:\n%s", code, o.String(), e.String())
	}
	if got := tables(t, s, "own_int"); len(got) != 0 {
		t.Errorf("own_int holds %v", got)
	}
}
