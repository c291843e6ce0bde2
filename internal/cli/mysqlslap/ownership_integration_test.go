package mysqlslap

import (
	"bytes"
	"context"
	"os/exec"
	"strings"
	"testing"

	"github.com/goslap/goslap/internal/cli/tpccmysql"
	"github.com/goslap/goslap/internal/sandbox"
	"github.com/goslap/goslap/internal/sandbox/servertest"
)

// sqlExec runs statements as root on the test server.
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

// TestWorkloadUserTablesSurvive: a user's tables that merely have a
// workload's names — a shop's customer and orders, a payroll table called
// sbtest1 — survive every phase of --workload with their rows: each
// refusal names the table and why, exit 1.
func TestWorkloadUserTablesSurvive(t *testing.T) {
	s := servertest.Require(t)
	sqlExec(t, s, "CREATE DATABASE own_shop",
		"CREATE TABLE own_shop.customer (id INT PRIMARY KEY, name VARCHAR(20))", "INSERT INTO own_shop.customer VALUES (1, 'Ann')",
		"CREATE TABLE own_shop.orders (id INT PRIMARY KEY, total DECIMAL(8,2))", "INSERT INTO own_shop.orders VALUES (1, 9.5)",
		"CREATE DATABASE own_pay", "CREATE TABLE own_pay.sbtest1 (id INT PRIMARY KEY, payroll INT)", "INSERT INTO own_pay.sbtest1 VALUES (1, 1000)")
	shop := "table own_shop.customer has columns (id, name), not TPC-C's customer: not dropped; table own_shop.orders has columns (id, total), not TPC-C's orders: not dropped"
	pay := "table own_pay.sbtest1 has columns (id, payroll), not sysbench 1.0's table (id, k, c, pad)"
	for _, tc := range []struct {
		args   []string
		stderr string // contained in the one line
	}{
		{[]string{"--workload=tpcc", "--create-schema=own_shop", "cleanup"}, shop},
		{[]string{"--workload=tpcc", "--create-schema=own_shop", "prepare"}, "incomplete TPC-C schema"},
		{[]string{"--workload=tpcc", "--create-schema=own_shop", "-c", "1", "--run-time=1"}, "incomplete TPC-C schema"},
		{[]string{"--workload=tpcc", "--create-schema=own_shop", "check"}, "holds no TPC-C tables"},
		{[]string{"--workload=oltp_read_write", "--create-schema=own_pay", "cleanup"}, pay + ": not dropped"},
		{[]string{"--workload=oltp_delete", "--create-schema=own_pay", "--run-time=1", "run"}, pay + ": not used"},
		{[]string{"--workload=oltp_read_write", "--create-schema=own_pay", "prepare"}, "sbtest1 already exists"},
		{[]string{"--workload=oltp_read_write", "--create-schema=own_pay", "--run-time=1"}, "sbtest1 already exists"},
	} {
		code, out, errOut := runMain(t, s, tc.args...)
		if code != 1 || strings.Count(errOut, "\n") != 1 || !strings.Contains(errOut, tc.stderr) || strings.Contains(out, "Dropping") {
			t.Errorf("goslap %s: exit %d\nstderr %q\nwant it to hold %q\nstdout %q", strings.Join(tc.args, " "), code, errOut, tc.stderr, out)
		}
	}
	if got := schemaTables(t, s, "own_shop"); strings.Join(got, ",") != "customer,orders" {
		t.Errorf("own_shop holds %v", got)
	}
	if n := sqlCount(t, s, "SELECT (SELECT COUNT(*) FROM own_shop.customer) + (SELECT COUNT(*) FROM own_shop.orders) + (SELECT COUNT(*) FROM own_pay.sbtest1 WHERE payroll = 1000)"); n != 3 {
		t.Errorf("the user's tables hold %d of their 3 rows", n)
	}
}

// TestWorkloadDropsWhatIsTheWorkloads: tables real sysbench prepared clean
// up through --workload, each drop said as sysbench says it; a run labelled
// with an engine the tables do not have is refused.
func TestWorkloadDropsWhatIsTheWorkloads(t *testing.T) {
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
	common := []string{"--workload=oltp_point_select", "--create-schema=own_sysb", "--tables=2", "--table-size=5"}
	code, _, errOut := runMain(t, s, append(common, "-e", "myisam", "--run-time=1", "run")...)
	if want := "engine myisam was asked for, but table own_sysb.sbtest1 is InnoDB"; code != 1 || !strings.Contains(errOut, want) {
		t.Errorf("run -e myisam on InnoDB tables: exit %d, stderr %q", code, errOut)
	}
	out := mustMain(t, s, append(common, "-e", "innodb", "--run-time=1", "run")...)
	if !strings.Contains(out, "\tRunning for engine innodb\n") {
		t.Errorf("run -e innodb:\n%s", out)
	}
	out = mustMain(t, s, append(common, "cleanup")...)
	if out != "Dropping table 'sbtest1'...\nDropping table 'sbtest2'...\n" {
		t.Errorf("cleanup of sysbench's tables said %q", out)
	}
	if got := schemaTables(t, s, "own_sysb"); len(got) != 0 {
		t.Errorf("own_sysb holds %v", got)
	}
}

// TestWorkloadTPCCKeepsALoadedSchema is issue 23's reproducer: after
// goslap tpcc-load, a full --workload=tpcc run reuses the nine tables and
// leaves them; check passes, then names the condition a corrupted district
// fails; prepare -e myisam over InnoDB tables is refused; cleanup drops
// the nine, each said.
func TestWorkloadTPCCKeepsALoadedSchema(t *testing.T) {
	s := servertest.Require(t)
	sqlExec(t, s, "CREATE DATABASE own_tp")
	var o, e bytes.Buffer
	if code := tpccmysql.Main("tpcc-load", []string{"-S", s.Socket, "-u", "root", "-p", "", "-d", "own_tp", "-w", "1"},
		tpccmysql.Env{Stdout: &o, Stderr: &e, Context: context.Background()}); code != 0 {
		t.Fatalf("tpcc-load: exit %d\n%s\n%s", code, o.String(), e.String())
	}
	orders := sqlCount(t, s, "SELECT COUNT(*) FROM own_tp.orders")
	common := []string{"--workload=tpcc", "--create-schema=own_tp"}
	out := mustMain(t, s, append(common, "-c", "1", "--run-time=1")...)
	if got := schemaTables(t, s, "own_tp"); len(got) != 9 || strings.Contains(out, "Dropping") {
		t.Fatalf("the full run left tables %v and said:\n%s", got, out)
	}
	if sqlCount(t, s, "SELECT COUNT(*) FROM own_tp.orders") <= orders {
		t.Errorf("the full run committed no New-Order")
	}
	out = mustMain(t, s, append(common, "check")...)
	if !strings.HasPrefix(out, "<Consistency Check>") || strings.Count(out, " [OK]\n") != 4 {
		t.Errorf("check after the run:\n%s", out)
	}
	code, _, errOut := runMain(t, s, append(common, "-e", "myisam", "prepare")...)
	if code != 1 || !strings.Contains(errOut, "engine myisam was asked for, but table own_tp.warehouse is InnoDB") {
		t.Errorf("prepare -e myisam over InnoDB: exit %d, stderr %q", code, errOut)
	}
	sqlExec(t, s, "UPDATE own_tp.district SET d_next_o_id = d_next_o_id + 1 WHERE d_w_id = 1 AND d_id = 6")
	code, out, errOut = runMain(t, s, append(common, "check")...)
	if code != 1 || !strings.Contains(out, "   2: D_NEXT_O_ID - 1 = max(O_ID) = max(NO_O_ID) per district [NG]\n") ||
		!strings.HasPrefix(errOut, "goslap: consistency condition 2 (D_NEXT_O_ID - 1 = max(O_ID) = max(NO_O_ID) per district) fails: district 1/6 ") {
		t.Errorf("check on a corrupted district: exit %d\nstdout:\n%s\nstderr %q", code, out, errOut)
	}
	out = mustMain(t, s, append(common, "cleanup")...)
	if strings.Count(out, "Dropping table '") != 9 || !strings.Contains(out, "Dropping table 'order_line'...\n") {
		t.Errorf("cleanup said:\n%s", out)
	}
	if got := schemaTables(t, s, "own_tp"); len(got) != 0 {
		t.Errorf("own_tp holds %v", got)
	}
}
