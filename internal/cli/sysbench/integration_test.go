package sysbench

import (
	"bytes"
	"database/sql"
	"fmt"
	"os/exec"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/goslap/goslap/internal/sandbox"
	"github.com/goslap/goslap/internal/sandbox/servertest"
)

func TestMain(m *testing.M) {
	servertest.Main(m, sandbox.Config{}, func(s *sandbox.Server) error {
		db, err := s.OpenDB("")
		if err != nil {
			return err
		}
		defer db.Close()
		for _, schema := range []string{"sbtest", "sbref", "test"} {
			if _, err := db.Exec("CREATE DATABASE " + schema); err != nil {
				return err
			}
		}
		return nil
	})
}

// goslapSysbench runs Main as `goslap sysbench ARGS` would, connected to the
// test server's socket as root.
func goslapSysbench(t *testing.T, s *sandbox.Server, args ...string) (stdout, stderr string, code int) {
	t.Helper()
	conn := []string{"--mysql-socket=" + s.Socket, "--mysql-user=root"}
	var o, e bytes.Buffer
	code = Main(append(conn, args...), Env{Stdout: &o, Stderr: &e})
	return o.String(), e.String(), code
}

func mustRun(t *testing.T, s *sandbox.Server, args ...string) string {
	t.Helper()
	out, errOut, code := goslapSysbench(t, s, args...)
	if code != 0 {
		t.Fatalf("goslap sysbench %s: exit %d\nstdout:\n%s\nstderr:\n%s", strings.Join(args, " "), code, out, errOut)
	}
	return out
}

func tables(t *testing.T, s *sandbox.Server, schema string) []string {
	t.Helper()
	db, err := s.OpenDB(schema)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	rows, err := db.Query("SHOW TABLES")
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

// figure reads "label: N" from a report.
func figure(t *testing.T, report, label string) float64 {
	t.Helper()
	m := regexp.MustCompile(`(?m)^ +` + regexp.QuoteMeta(label) + ` +([0-9.]+)`).FindStringSubmatch(report)
	if m == nil {
		t.Fatalf("no %q in\n%s", label, report)
	}
	f, _ := strconv.ParseFloat(m[1], 64)
	return f
}

// TestStudyCommandLines runs the command lines (0.4 spelling, at a
// small size) and the 1.0 one: prepare → run → cleanup.
func TestStudyCommandLines(t *testing.T) {
	s := servertest.Require(t)
	cases := []struct {
		name   string
		common []string
		run    []string
		check  func(t *testing.T, report string)
	}{
		{"0.4 read-only myisam, max-requests",
			strings.Fields("--test=oltp --mysql-password= --oltp-table-size=1000 --mysql-db=test --oltp-table-name=sbtest --mysql-table-engine=myisam --oltp-read-only=on"),
			strings.Fields("--max-requests=300 --num-threads=4"),
			func(t *testing.T, r string) {
				if !strings.Contains(r, "OLTP test statistics:") || !strings.Contains(r, "per-request statistics:") {
					t.Errorf("not the 0.4 layout:\n%s", r)
				}
				if ev := figure(t, r, "total number of events:"); ev != 300 {
					t.Errorf("events %v, want 300", ev)
				}
				if w := figure(t, r, "write:"); w != 0 {
					t.Errorf("read-only run wrote %v", w)
				}
				if strings.Contains(r, "Limits:") {
					t.Errorf("goslap's limits line in a 0.4 report (it belongs on stderr):\n%s", r)
				}
			}},
		{"0.4 max-time, no request limit",
			strings.Fields("--test=oltp --oltp-table-size=1000 --mysql-db=test --oltp-read-only=off"),
			strings.Fields("--max-time=1 --max-requests=0 --num-threads=2"),
			func(t *testing.T, r string) {
				if ev := figure(t, r, "total number of events:"); ev < 1 {
					t.Errorf("no events")
				}
				if w := figure(t, r, "write:"); w == 0 {
					t.Errorf("read/write run did not write")
				}
				// 0.4.12's trailer: each thread's message, folded by its log.
				if !strings.Contains(r, "Threads started!\nTime limit exceeded, exiting...\n(last message repeated 1 times)\nDone.\n\nOLTP test statistics:") {
					t.Errorf("not 0.4.12's trailer:\n%s", r)
				}
			}},
		// §12.2: 0.4 with compressed tables (create options per variant).
		{"0.4 compressed, read-only, max-time",
			append(strings.Fields("--test=oltp --oltp-table-size=1000 --mysql-db=test"), "--mysql-create-options=ROW_FORMAT=COMPRESSED KEY_BLOCK_SIZE=8"),
			strings.Fields("--max-time=1 --oltp-read-only=on --num-threads=2"),
			func(t *testing.T, r string) {
				if w := figure(t, r, "write:"); w != 0 {
					t.Errorf("read-only run wrote %v", w)
				}
			}},
		// §12.2: 0.5 OLTP over several tables, MyISAM.
		{"0.5 oltp.lua, 2 tables, myisam",
			strings.Fields("--test=/usr/share/doc/sysbench/tests/db/oltp.lua --oltp-tables-count=2 --oltp-table-size=500 --mysql-table-engine=myisam"),
			strings.Fields("--num-threads=2 --max-requests=100"),
			func(t *testing.T, r string) {
				for _, want := range []string{"OLTP test statistics:", "    ignored errors:", "    response time:"} {
					if !strings.Contains(r, want) {
						t.Errorf("missing %q in\n%s", want, r)
					}
				}
				if tx := figure(t, r, "transactions:"); tx != 100 {
					t.Errorf("transactions %v, want 100", tx)
				}
			}},
		{"1.0 oltp_read_write",
			strings.Fields("oltp_read_write --tables=2 --table-size=1000"),
			strings.Fields("--threads=4 --time=2"),
			func(t *testing.T, r string) {
				for _, want := range []string{"SQL statistics:", "General statistics:", "Latency (ms):", "Threads fairness:",
					"Limits: 2 s, no event limit (sysbench 1.0 default), whichever comes first"} {
					if !strings.Contains(r, want) {
						t.Errorf("missing %q in\n%s", want, r)
					}
				}
				ev, tx := figure(t, r, "total number of events:"), figure(t, r, "transactions:")
				if ev < 1 || tx != ev {
					t.Errorf("events %v transactions %v", ev, tx)
				}
				// 14 reads per default transaction; statements of an event
				// restarted after a deadlock stay counted, so at least.
				if rd := figure(t, r, "read:"); rd < 14*ev {
					t.Errorf("reads %v, want >= %v", rd, 14*ev)
				}
			}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			schema := "sbtest"
			for _, a := range tc.common {
				if strings.HasPrefix(a, "--mysql-db=") {
					schema = strings.TrimPrefix(a, "--mysql-db=")
				}
			}
			mustRun(t, s, append(tc.common, "prepare")...)
			defer func() {
				mustRun(t, s, append(tc.common, "cleanup")...)
				if left := tables(t, s, schema); len(left) != 0 {
					t.Errorf("cleanup left %v", left)
				}
			}()
			if len(tables(t, s, schema)) == 0 {
				t.Fatal("prepare created no table")
			}
			out := mustRun(t, s, append(append(tc.common, tc.run...), "run")...)
			tc.check(t, out)
		})
	}
}

// TestThreadSweep: a --threads list runs once per count, a report each,
// then the summary table.
func TestThreadSweep(t *testing.T) {
	s := servertest.Require(t)
	common := strings.Fields("oltp_point_select --tables=1 --table-size=100")
	mustRun(t, s, append(common, "prepare")...)
	defer mustRun(t, s, append(common, "cleanup")...)
	out := mustRun(t, s, append(common, strings.Fields("--threads=1,2 --events=50 run")...)...)
	if n := strings.Count(out, "SQL statistics:"); n != 2 {
		t.Errorf("%d reports, want 2:\n%s", n, out)
	}
	if !regexp.MustCompile(`(?m)^Thread sweep: .*\nthreads +tps +qps +avg +p95 +max\n1 +[0-9.]+ .*\n2 +[0-9.]+ `).MatchString(out) {
		t.Errorf("no summary table:\n%s", out)
	}
}

// TestFatalNoReport: a failed connect is FATAL lines, exit 1, no report.
func TestFatalNoReport(t *testing.T) {
	var o, e bytes.Buffer
	code := Main(strings.Fields("oltp_read_write --mysql-host=127.0.0.1 --mysql-port=1 --time=1 run"), Env{Stdout: &o, Stderr: &e})
	if code == 0 {
		t.Fatal("exit 0 after a failed connect")
	}
	out := o.String()
	if !strings.Contains(out, "FATAL: unable to connect to MySQL server on host '127.0.0.1', port 1, aborting...") {
		t.Errorf("stdout:\n%s", out)
	}
	if strings.Contains(out, "SQL statistics") {
		t.Errorf("report after a fatal error:\n%s", out)
	}
}

// shape replaces every number of a report with N and drops goslap's own
// lines (version, Limits), so two reports compare by layout.
func shape(report string) string {
	var out []string
	for _, l := range strings.Split(report, "\n") {
		if strings.HasPrefix(l, "sysbench ") || strings.HasPrefix(l, "goslap ") || strings.HasPrefix(l, "Limits: ") {
			continue
		}
		l = regexp.MustCompile(`[0-9]+(\.[0-9]+)?`).ReplaceAllString(l, "N")
		l = regexp.MustCompile(` +`).ReplaceAllString(l, " ")
		out = append(out, l)
	}
	return strings.Join(out, "\n")
}

func sysbenchBinary(t *testing.T) string {
	p, err := exec.LookPath("sysbench")
	if err != nil {
		if sandbox.InCI() {
			t.Fatal("sysbench 1.0.20 is not installed")
		}
		t.Skip("no sysbench binary")
	}
	return p
}

func realSysbench(t *testing.T, s *sandbox.Server, args ...string) string {
	t.Helper()
	cmd := exec.Command(sysbenchBinary(t), append([]string{"--mysql-socket=" + s.Socket, "--mysql-user=root"}, args...)...)
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("sysbench %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return string(out)
}

// TestReportStructureMatchesSysbench runs the same 1.0 command line through
// the real sysbench and goslap and compares the reports' structure.
func TestReportStructureMatchesSysbench(t *testing.T) {
	s := servertest.Require(t)
	sysbenchBinary(t)
	common := strings.Fields("oltp_read_write --tables=2 --table-size=1000 --mysql-db=sbref")
	realSysbench(t, s, append(common, "prepare")...)
	defer realSysbench(t, s, append(common, "cleanup")...)
	run := append(common, strings.Fields("--threads=2 --time=2 --report-interval=1 run")...)
	want := shape(realSysbench(t, s, run...))
	got := shape(mustRun(t, s, run...))
	// Interval lines: their number depends on timing (a 2 s run on a
	// loaded machine printed one line); keep the first.
	trim := func(s string) string {
		var out []string
		n := 0
		for _, l := range strings.Split(s, "\n") {
			if strings.HasPrefix(l, "[ N") {
				n++
				if n > 1 {
					continue
				}
			}
			out = append(out, l)
		}
		return strings.Join(out, "\n")
	}
	if trim(got) != trim(want) {
		t.Errorf("structure differs\n--- goslap\n%s\n--- sysbench\n%s", trim(got), trim(want))
	}
}

// comCounters reads the statement counters that tell the statement mix.
func comCounters(t *testing.T, db *sql.DB) map[string]float64 {
	t.Helper()
	rows, err := db.Query("SHOW GLOBAL STATUS WHERE Variable_name IN ('Com_select','Com_insert','Com_update','Com_delete','Com_begin','Com_commit','Com_stmt_execute','Com_stmt_prepare')")
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	out := map[string]float64{}
	for rows.Next() {
		var n string
		var v float64
		if err := rows.Scan(&n, &v); err != nil {
			t.Fatal(err)
		}
		out[n] = v
	}
	return out
}

// TestStatementMixParity: one 1.0 command line run by goslap and by
// sysbench 1.0.20 executes the same statements per event (SHOW GLOBAL
// STATUS deltas over a fixed number of events; one thread, so no deadlock
// restarts blur the counts).
func TestStatementMixParity(t *testing.T) {
	s := servertest.Require(t)
	sysbenchBinary(t)
	db, err := s.OpenDB("")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	common := strings.Fields("oltp_read_write --tables=2 --table-size=1000 --mysql-db=sbref")
	realSysbench(t, s, append(common, "prepare")...)
	defer realSysbench(t, s, append(common, "cleanup")...)
	const events = 200
	run := append(common, strings.Fields(fmt.Sprintf("--threads=1 --events=%d --time=0 run", events))...)
	perEvent := func(runIt func()) map[string]float64 {
		before := comCounters(t, db)
		runIt()
		after := comCounters(t, db)
		out := map[string]float64{}
		for k, v := range after {
			out[k] = (v - before[k]) / events
		}
		return out
	}
	want := perEvent(func() { realSysbench(t, s, run...) })
	got := perEvent(func() { mustRun(t, s, run...) })
	for _, k := range []string{"Com_select", "Com_insert", "Com_update", "Com_delete", "Com_begin", "Com_commit", "Com_stmt_execute"} {
		// Setup statements of a connection (prepares, the counters' own
		// SHOW) amortise over 200 events: allow 0.1 per event.
		if d := got[k] - want[k]; d > 0.1 || d < -0.1 {
			t.Errorf("%s per event: goslap %.3f, sysbench %.3f", k, got[k], want[k])
		}
	}
	t.Logf("per event: goslap %v\nsysbench %v", got, want)
}

// TestMainWithoutServer: what Main prints and returns before connecting.
func TestMainWithoutServer(t *testing.T) {
	cases := []struct {
		args           string
		code           int
		stdout, stderr string // substrings
	}{
		{"--version", 0, "goslap ", ""},
		{"--help", 0, "finer than sysbench's buckets", ""},
		{"", 1, "Usage:", ""},
		{"oltp_read_write", 1, "FATAL: Command is required. Supported commands: prepare, run, cleanup, help", ""},
		{"--test=oltp", 1, "Commands: prepare run cleanup help", "Missing required command argument."},
		{"--test=tests/db/oltp.lua", 1, "Commands: prepare run cleanup help", "Missing required command argument."},
		{"oltp_read_write help", 0, "  --table_size=N", ""},
		{"oltp_read_write --histogram run", 1, "FATAL: --histogram cannot be honoured", ""},
		{"oltp_read_write --bogus=1 run", 1, "", "invalid option: --bogus=1"},
		{"nosuch run", 1, "FATAL: Cannot find benchmark 'nosuch'", ""},
		{"--num-threads=2 oltp_read_write help", 0, "WARNING: --num-threads is deprecated, use --threads instead\ngoslap ", ""},
		{"--test=/usr/share/sysbench/oltp_read_write.lua help", 0, "oltp_read_write options:", "WARNING: the --test option is deprecated."},
	}
	for _, tc := range cases {
		t.Run(tc.args, func(t *testing.T) {
			var o, e bytes.Buffer
			code := Main(strings.Fields(tc.args), Env{Stdout: &o, Stderr: &e})
			if code != tc.code || !strings.Contains(o.String(), tc.stdout) || !strings.Contains(e.String(), tc.stderr) {
				t.Errorf("exit %d (want %d)\nstdout:\n%s\nstderr:\n%s", code, tc.code, o.String(), e.String())
			}
			if strings.Contains(o.String(), "SQL statistics") {
				t.Error("a report without a run")
			}
			if strings.Contains(o.String()+e.String(), "prewarm") {
				t.Error("prewarm offered: goslap refuses it (and 0.4/0.5 lack it)")
			}
		})
	}
}
