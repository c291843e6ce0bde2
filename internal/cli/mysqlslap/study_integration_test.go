package mysqlslap

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/goslap/goslap/internal/sandbox"
	"github.com/goslap/goslap/internal/sandbox/servertest"
)

// schemaTables lists the tables of schema (none when it does not exist).
func schemaTables(t *testing.T, s *sandbox.Server, schema string) []string {
	t.Helper()
	db, err := s.OpenDB("")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	rows, err := db.Query("SELECT TABLE_NAME FROM information_schema.TABLES WHERE TABLE_SCHEMA = ? ORDER BY TABLE_NAME", schema)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		var n string
		if err := rows.Scan(&n); err != nil {
			t.Fatal(err)
		}
		out = append(out, n)
	}
	return out
}

func mustMain(t *testing.T, s *sandbox.Server, args ...string) string {
	t.Helper()
	code, out, errOut := runMain(t, s, args...)
	if code != 0 {
		t.Fatalf("goslap %s: exit %d\nstdout:\n%s\nstderr:\n%s", strings.Join(args, " "), code, out, errOut)
	}
	return out
}

// TestWorkloadPhases: prepare → run 3 s → cleanup through goslap's own
// command line, per workload, with the report's parts checked against what
// the server holds.
func TestWorkloadPhases(t *testing.T) {
	s := servertest.Require(t)
	for _, wl := range []string{"oltp_read_write", "oltp_point_select"} {
		t.Run(wl, func(t *testing.T) {
			schema := "ph_" + wl
			common := []string{"--workload=" + wl, "--create-schema=" + schema, "--tables=2", "--table-size=500"}
			out := mustMain(t, s, append(common, "prepare")...)
			if got := schemaTables(t, s, schema); strings.Join(got, ",") != "sbtest1,sbtest2" {
				t.Fatalf("after prepare: tables %v", got)
			}
			for _, want := range []string{"On-disk size after prepare", "sbtest1  InnoDB", "sbtest2"} {
				if !strings.Contains(out, want) {
					t.Errorf("prepare output lacks %q:\n%s", want, out)
				}
			}
			out = mustMain(t, s, append(common, "-c", "2,3", "--run-time=3s", "run")...)
			if n := strings.Count(out, "Benchmark\n"); n != 2 {
				t.Errorf("%d Benchmark blocks, want 2:\n%s", n, out)
			}
			for _, want := range []string{"\tNumber of clients running queries: 2\n", "\tNumber of clients running queries: 3\n",
				"\tTransactions: ", "\tLatency per transaction (ms): p50 ", "\tIgnored errors: ", "\tReconnects: 0\n"} {
				if !strings.Contains(out, want) {
					t.Errorf("run output lacks %q:\n%s", want, out)
				}
			}
			if wl == "oltp_point_select" && !strings.Contains(out, "write 0, other 0") {
				t.Errorf("point selects counted writes or other statements:\n%s", out)
			}
			if wl == "oltp_read_write" && strings.Contains(out, "write 0,") {
				t.Errorf("read/write counted no writes:\n%s", out)
			}
			mustMain(t, s, append(common, "cleanup")...)
			if got := schemaTables(t, s, schema); len(got) != 0 {
				t.Errorf("after cleanup: tables %v", got)
			}
		})
	}
}

// TestWorkloadTableSizeSweep: one command prepares, runs and drops each
// table size of a list; the report and the chart have size as a dimension.
func TestWorkloadTableSizeSweep(t *testing.T) {
	s := servertest.Require(t)
	chart := filepath.Join(t.TempDir(), "sizes.svg")
	out := mustMain(t, s, "--workload=oltp_read_only", "--create-schema=sweep_sizes", "--table-size=200,1K",
		"-e", "innodb,myisam", "--run-time=1s", "--plot="+chart)
	if n := strings.Count(out, "Benchmark\n"); n != 4 {
		t.Errorf("%d Benchmark blocks, want 4 (2 engines × 2 sizes):\n%s", n, out)
	}
	for _, want := range []string{"table size 200", "table size 1000", "\tRunning for engine myisam\n",
		"On-disk size after prepare (engine myisam, table size 1000)", "sbtest1  MyISAM  1000"} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	if got := schemaTables(t, s, "sweep_sizes"); len(got) != 0 {
		t.Errorf("the sweep left tables %v", got)
	}
	svg, err := os.ReadFile(chart)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"Throughput vs data size", "data size (rows per table", ">1000<"} {
		if !strings.Contains(string(svg), want) {
			t.Errorf("chart lacks %q", want)
		}
	}
}

// TestWorkloadBadInputs: the mistakes a user types give one line on stderr,
// a non-zero exit, and lose nothing.
func TestWorkloadBadInputs(t *testing.T) {
	s := servertest.Require(t)
	db, err := s.OpenDB("")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	// Someone's tables: a sentinel, and an sbtest1 goslap did not create.
	for _, q := range []string{"CREATE DATABASE bad_in", "CREATE TABLE bad_in.keep (id INT)",
		"CREATE DATABASE bad_taken", "CREATE TABLE bad_taken.sbtest1 (id INT)"} {
		if _, err := db.Exec(q); err != nil {
			t.Fatal(err)
		}
	}
	cases := []struct {
		name string
		args []string
		want string
	}{
		{"unknown workload", []string{"--workload=oltp_nope"}, "goslap: unknown workload 'oltp_nope' (workloads: mysqlslap (default), "},
		{"tables 0", []string{"--workload=oltp_read_write", "--tables=0"}, "goslap: invalid value '0' for --tables: must be between 1 and 100000"},
		{"table size abc", []string{"--workload=oltp_read_write", "--table-size=abc"}, "goslap: invalid value 'abc' for --table-size"},
		{"table size list abc", []string{"--workload=oltp_read_write", "--table-size=100,abc"}, "goslap: invalid value 'abc' for --table-size"},
		{"phase with mysqlslap", []string{"--workload=mysqlslap", "prepare"}, "goslap: the prepare command belongs to --workload=NAME workloads"},
		{"workload option alone", []string{"--table-size=100"}, "goslap: --table-size is a workload option: it needs --workload=NAME"},
		{"run before prepare", []string{"--workload=oltp_point_select", "--run-time=1s", "run"}, "goslap: table sbtest1 does not exist: run prepare first"},
		{"unknown command", []string{"--workload=oltp_point_select", "warmup"}, "goslap: unknown command 'warmup'"},
		{"prepare over existing", []string{"--workload=oltp_point_select", "--create-schema=bad_taken", "prepare"}, "goslap: table sbtest1 already exists"},
		{"mysqlslap option", []string{"--workload=oltp_point_select", "-a"}, "goslap: --auto-generate-sql belongs to mysqlslap's workload"},
		{"json into a missing directory", []string{"--workload=oltp_point_select", "--json=/nonexistent/dir/r.json"}, "goslap: --json=/nonexistent/dir/r.json: cannot write the file"},
		{"json with csv on stdout", []string{"--workload=oltp_point_select", "--json", "--csv"}, "goslap: --json and --csv cannot both write to stdout"},
		{"report interval abc", []string{"--workload=oltp_point_select", "--report-interval=abc"}, "goslap: invalid value 'abc' for --report-interval"},
		{"report interval with mysqlslap", []string{"--report-interval=1", "-a"}, "goslap: --report-interval needs --workload=NAME"},
		{"sweep without sandbox", []string{"--workload=oltp_point_select", "--sweep-server-option=innodb_buffer_pool_size=64M,128M"},
			"goslap: --sweep-server-option=innodb_buffer_pool_size sets a server option at start-up: it needs sandbox targets"},
		{"prepare sweep", []string{"--workload=oltp_point_select", "--table-size=10,20", "prepare"}, "goslap: the prepare command works on one set of tables"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			args := tc.args
			if !strings.Contains(strings.Join(args, " "), "--create-schema") {
				args = append([]string{"--create-schema=bad_in"}, args...)
			}
			code, out, errOut := runMain(t, s, args...)
			if code == 0 {
				t.Fatalf("exit 0\nstdout:\n%s\nstderr:\n%s", out, errOut)
			}
			lines := strings.Split(strings.TrimSuffix(errOut, "\n"), "\n")
			if len(lines) != 1 || !strings.HasPrefix(lines[0], tc.want) {
				t.Errorf("stderr %q, want one line starting %q", errOut, tc.want)
			}
			if strings.Contains(out, "Benchmark") {
				t.Errorf("a report after an error:\n%s", out)
			}
			if got := schemaTables(t, s, "bad_in"); strings.Join(got, ",") != "keep" {
				t.Errorf("bad_in holds %v, want only keep", got)
			}
			if got := schemaTables(t, s, "bad_taken"); strings.Join(got, ",") != "sbtest1" {
				t.Errorf("bad_taken holds %v, want its sbtest1", got)
			}
		})
	}
}

// TestWorkloadServerOptionSweep: the matrix runs once per value of a server
// option on a sandbox; the table has the value as a column, the chart on
// its x axis, and the size report has the sandbox's files.
func TestWorkloadServerOptionSweep(t *testing.T) {
	s := servertest.Require(t)
	chart := filepath.Join(t.TempDir(), "bp.svg")
	out := mustMain(t, s, "--workload=oltp_point_select", "--table-size=2000", "--run-time=1s", "-c", "2",
		"--target=bp:sandbox", "--sweep-server-option=innodb_buffer_pool_size=16M,32M", "--plot="+chart)
	if n := strings.Count(out, "Benchmark\n"); n != 2 {
		t.Errorf("%d Benchmark blocks, want 2:\n%s", n, out)
	}
	for _, want := range []string{"server option innodb_buffer_pool_size=16M", "server option innodb_buffer_pool_size=32M",
		"sbtest1.ibd ", "Comparison: 1 target", "innodb_buffer_pool_size=32M"} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	svg, err := os.ReadFile(chart)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"server option innodb_buffer_pool_size", ">16M<", ">32M<"} {
		if !strings.Contains(string(svg), want) {
			t.Errorf("chart lacks %q", want)
		}
	}
}

// TestWorkloadEngineOptions: table options after the engine reach CREATE
// TABLE; the size report shows the row format the server really gave, and
// a format it did not give is a warning.
func TestWorkloadEngineOptions(t *testing.T) {
	s := servertest.Require(t)
	code, out, errOut := runMain(t, s, "--workload=oltp_point_select", "--create-schema=eng_opts", "--table-size=300", "--run-time=0.5s",
		"-e", "innodb:ROW_FORMAT=COMPRESSED KEY_BLOCK_SIZE=8,myisam:ROW_FORMAT=COMPRESSED")
	if code != 0 {
		t.Fatalf("exit %d\n%s\n%s", code, out, errOut)
	}
	for _, want := range []string{"  Compressed  ", "row_format=COMPRESSED key_block_size=8", "table options ROW_FORMAT=COMPRESSED KEY_BLOCK_SIZE=8",
		"\tRunning for engine myisam\n"} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	if !strings.Contains(errOut, "goslap: warning: table sbtest1: ROW_FORMAT=COMPRESSED was asked for, the server gave ") ||
		strings.Count(errOut, "ROW_FORMAT=COMPRESSED was asked for") != 1 {
		t.Errorf("stderr %q: want one row-format warning (MyISAM's)", errOut)
	}
	if got := schemaTables(t, s, "eng_opts"); len(got) != 0 {
		t.Errorf("tables left: %v", got)
	}
}

// TestWorkloadOptionSkipMeansOff: --skip-X of a workload option that takes
// a value forgets it, as for goslap's other options; --skip-trx is the
// workload's boolean, through goslap's --trx row.
func TestWorkloadOptionSkipMeansOff(t *testing.T) {
	o, err, _ := parseForTest(t, nil, nil, "--workload=oltp_read_write", "--table-size=5", "--tables=2", "--skip-table-size",
		"--sweep-server-option=a=1,2", "--skip-sweep-server-option", "--skip-trx")
	if err != nil {
		t.Fatal(err)
	}
	got := []string{}
	for _, a := range o.workload.Assignments {
		got = append(got, a.field+"="+a.value)
	}
	if strings.Join(got, " ") != "tables=2 skip-trx=1" || o.workload.Sweep != "" || o.workload.Name != "oltp_read_write" {
		t.Errorf("assignments %q, sweep %q, workload %q", got, o.workload.Sweep, o.workload.Name)
	}
	o, _, _ = parseForTest(t, nil, nil, "--workload=oltp_read_write", "--trx")
	if len(o.workload.Assignments) != 1 || o.workload.Assignments[0].value != "0" {
		t.Errorf("--trx: %+v", o.workload.Assignments)
	}
}

// TestWorkloadDefaultLimits: without --run-time or --number-of-queries a
// run stops at the dialect's default, and stderr says which.
func TestWorkloadDefaultLimits(t *testing.T) {
	s := servertest.Require(t)
	code, out, errOut := runMain(t, s, "--workload=oltp", "--sysbench-compat=0.5", "--create-schema=limits", "--table-size=100", "--point-selects=1",
		"--simple-ranges=0", "--sum-ranges=0", "--order-ranges=0", "--distinct-ranges=0", "--oltp-read-only", "-c", "4")
	if code != 0 {
		t.Fatalf("exit %d\n%s\n%s", code, out, errOut)
	}
	if !strings.Contains(errOut, "goslap: each run stops after 10000 events (the workload's default;") {
		t.Errorf("stderr %q", errOut)
	}
	if !strings.Contains(out, "\tTransactions: 10000 (") {
		t.Errorf("not 10000 transactions:\n%s", out)
	}
}

// TestWorkloadInitCommand: --init-command runs on every client connection
// of a --workload run, as on mysqlslap's, and on no other connection.
func TestWorkloadInitCommand(t *testing.T) {
	s := servertest.Require(t)
	db, err := s.OpenDB("")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	for _, q := range []string{"CREATE DATABASE ic_log", "CREATE TABLE ic_log.seen (id BIGINT)"} {
		if _, err := db.Exec(q); err != nil {
			t.Fatal(err)
		}
	}
	defer db.Exec("DROP DATABASE ic_log")
	common := []string{"--workload=oltp_point_select", "--create-schema=ic_wl", "--table-size=100",
		"--init-command=INSERT INTO ic_log.seen VALUES (CONNECTION_ID())"}
	mustMain(t, s, append(common, "prepare")...)
	mustMain(t, s, append(common, "-c", "3", "--run-time=1s", "run")...)
	mustMain(t, s, append(common, "cleanup")...)
	var n, distinct int
	if err := db.QueryRow("SELECT COUNT(*), COUNT(DISTINCT id) FROM ic_log.seen").Scan(&n, &distinct); err != nil {
		t.Fatal(err)
	}
	if n != 3 || distinct != 3 {
		t.Errorf("--init-command ran %d times on %d connections, want once on each of the 3 clients'", n, distinct)
	}

	// A failing one fails the run, as it fails mysqlslap's clients.
	mustMain(t, s, append(common, "prepare")...)
	defer mustMain(t, s, append(common, "cleanup")...)
	code, _, errOut := runMain(t, s, "--workload=oltp_point_select", "--create-schema=ic_wl", "--table-size=100",
		"--init-command=SELECT no_such_column", "-c", "2", "--run-time=1s", "run")
	if code == 0 || !strings.Contains(errOut, "no_such_column") {
		t.Errorf("a failing --init-command: exit %d, stderr %q; want an error naming it", code, errOut)
	}
}
