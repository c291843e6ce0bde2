package sysbench

import (
	"bufio"
	"database/sql"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/goslap/goslap/internal/sandbox/servertest"
	"github.com/goslap/goslap/internal/workload/oltp"
)

// legacyGolden reads testdata/legacy/NAME.out.
func legacyGolden(t *testing.T, name string) string {
	t.Helper()
	b, err := os.ReadFile("testdata/legacy/" + name + ".out")
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// legacyCom reads testdata/legacy/NAME.com: the Com_* deltas the real
// sysbench caused.
func legacyCom(t *testing.T, name string) map[string]int64 {
	t.Helper()
	f, err := os.Open("testdata/legacy/" + name + ".com")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	out := map[string]int64{}
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		k, v, ok := strings.Cut(sc.Text(), " ")
		if !ok || !strings.HasPrefix(k, "Com_") {
			continue
		}
		n, err := strconv.ParseInt(v, 10, 64)
		if err != nil {
			t.Fatal(err)
		}
		out[k] = n
	}
	return out
}

// TestHeaderLayoutLegacy compares what goslap prints between sysbench's
// version line and the report with what 0.4.12 and 0.5 printed.
func TestHeaderLayoutLegacy(t *testing.T) {
	special := &oltp.Mode04{TestMode: "complex", Dist: "special", Iter: 12, Pct: 1, Res: 75, Start: "BEGIN", AutoInc: true}
	with := func(f func(m *oltp.Mode04)) *oltp.Mode04 {
		m := *special
		f(&m)
		return &m
	}
	cases := []struct {
		file   string
		h      Header
		byTime bool
	}{
		{"04-innodb-rw", Header{Dialect: Dialect04, Threads: 1, Events: 1000, Mode: special}, false},
		{"04-innodb-ro", Header{Dialect: Dialect04, Threads: 1, Events: 1000, Mode: with(func(m *oltp.Mode04) { m.ReadOnly = true })}, false},
		{"04-myisam-rw", Header{Dialect: Dialect04, Threads: 1, Events: 1000, Mode: with(func(m *oltp.Mode04) { m.Start = "LOCK TABLES WRITE" })}, false},
		{"04-myisam-ro", Header{Dialect: Dialect04, Threads: 1, Events: 1000, Mode: with(func(m *oltp.Mode04) { m.ReadOnly, m.Start = true, "LOCK TABLES READ" })}, false},
		{"04-innodb-time", Header{Dialect: Dialect04, Threads: 4, Mode: special}, true},
		{"04-deadlock", Header{Dialect: Dialect04, Threads: 8, Events: 400, Mode: with(func(m *oltp.Mode04) { m.Dist = "uniform" })}, false},
		{"05-rw", Header{Dialect: Dialect05, Threads: 1, Events: 1000}, false},
		{"05-deadlock", Header{Dialect: Dialect05, Threads: 8, Events: 400}, false},
	}
	for _, tc := range cases {
		t.Run(tc.file, func(t *testing.T) {
			text := legacyGolden(t, tc.file)
			start := strings.Index(text, "Running the test")
			end := strings.Index(text, "OLTP test statistics:")
			want := text[start:end]
			got := tc.h.legacy()
			if tc.h.Dialect == Dialect04 {
				got += Trailer04(tc.h.Threads, tc.byTime)
			}
			if got != want {
				t.Errorf("header differs\n--- got\n%s--- want\n%s", got, want)
			}
		})
	}
}

// comStatus reads every Com_* counter.
func comStatus(t *testing.T, db *sql.DB) map[string]int64 {
	t.Helper()
	rows, err := db.Query(`SHOW GLOBAL STATUS LIKE 'Com\_%'`)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	out := map[string]int64{}
	for rows.Next() {
		var n string
		var v int64
		if err := rows.Scan(&n, &v); err != nil {
			t.Fatal(err)
		}
		out[n] = v
	}
	return out
}

// comDelta runs f and returns the nonzero Com_* deltas, without the
// Com_show_status of the reading itself.
func comDelta(t *testing.T, db *sql.DB, f func()) map[string]int64 {
	t.Helper()
	connected := func() int64 {
		var n string
		var v int64
		if err := db.QueryRow("SHOW GLOBAL STATUS LIKE 'Threads_connected'").Scan(&n, &v); err != nil {
			t.Fatal(err)
		}
		return v
	}
	base := connected()
	before := comStatus(t, db)
	f()
	// The tool has exited, but the server may still be reading the last
	// packets of its connections (a COM_STMT_CLOSE has no reply): the
	// counters are read once those connections are gone.
	for deadline := time.Now().Add(3 * time.Second); connected() > base && time.Now().Before(deadline); {
		time.Sleep(10 * time.Millisecond)
	}
	out := map[string]int64{}
	for k, v := range comStatus(t, db) {
		if d := v - before[k]; d != 0 && k != "Com_show_status" {
			out[k] = d
		}
	}
	return out
}

// compareCom checks goslap's Com_* deltas against the real sysbench's:
// equal, except that goslap reads information_schema (at most 3 SELECTs)
// where 0.4 runs SHOW TABLE STATUS, and prepares (and closes) only the
// statements the run uses where 0.4 prepares all of them.
func compareCom(t *testing.T, got, want map[string]int64) {
	t.Helper()
	keys := map[string]bool{}
	for k := range got {
		keys[k] = true
	}
	for k := range want {
		keys[k] = true
	}
	for k := range keys {
		g, w := got[k], want[k]
		switch k {
		case "Com_show_table_status":
			continue
		case "Com_select":
			if g < w || g > w+3 {
				t.Errorf("%s: goslap %d, sysbench %d (+ at most 3 of goslap's own)", k, g, w)
			}
		case "Com_stmt_prepare", "Com_stmt_close":
			if g > w || got["Com_stmt_prepare"] != got["Com_stmt_close"] {
				t.Errorf("%s: goslap %d, sysbench %d; goslap prepared %d, closed %d", k, g, w, got["Com_stmt_prepare"], got["Com_stmt_close"])
			}
		default:
			if g != w {
				t.Errorf("%s: goslap %d, sysbench %d", k, g, w)
			}
		}
	}
}

// TestLegacyAgainstCaptures runs the captured 0.4.12 and 0.5 command lines
// (1000 transactions at 1 thread) through goslap: the server executes what
// it executed for the real programs, the report counts the same, and the
// output has the same lines, numbers aside.
func TestLegacyAgainstCaptures(t *testing.T) {
	s := servertest.Require(t)
	db, err := s.OpenDB("")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	groups := []struct {
		common []string
		runs   map[string][]string // golden name → extra run options
	}{
		{strings.Fields("--test=oltp --mysql-table-engine=innodb"), map[string][]string{
			"04-innodb-rw": {"--max-requests=1000"}, "04-innodb-ro": {"--oltp-read-only=on", "--max-requests=1000"}}},
		{strings.Fields("--test=oltp --mysql-table-engine=myisam"), map[string][]string{
			"04-myisam-rw": {"--max-requests=1000"}, "04-myisam-ro": {"--oltp-read-only=on", "--max-requests=1000"}}},
		{strings.Fields("--test=tests/db/oltp.lua"), map[string][]string{
			"05-rw": {"--max-requests=1000"}, "05-ro": {"--oltp-read-only=on", "--max-requests=1000"}}},
	}
	for _, g := range groups {
		mustRun(t, s, append(g.common, "prepare")...)
		for name, extra := range g.runs {
			t.Run(name, func(t *testing.T) {
				var out, errOut string
				var code int
				got := comDelta(t, db, func() {
					out, errOut, code = goslapSysbench(t, s, append(append(g.common, extra...), "run")...)
				})
				if code != 0 {
					t.Fatalf("exit %d\n%s\n%s", code, out, errOut)
				}
				compareCom(t, got, legacyCom(t, name))
				want := legacyGolden(t, name)
				for _, label := range []string{"read:", "write:", "other:", "total:", "transactions:", "total number of events:"} {
					if g, w := figure(t, out, label), figure(t, want, label); g != w {
						t.Errorf("%s goslap %v, sysbench %v", label, g, w)
					}
				}
				if g, w := shape(out), shape(want); g != w {
					t.Errorf("output differs (numbers masked)\n--- goslap\n%s\n--- sysbench\n%s", g, w)
				}
				if !strings.Contains(errOut, "goslap: Limits: ") {
					t.Errorf("goslap's limits line is not on stderr:\n%s", errOut)
				}
			})
		}
		mustRun(t, s, append(g.common, "cleanup")...)
	}
}

// TestLegacyDeadlocks: 8 threads on 10 rows deadlock. Like the real 0.4
// and 0.5 (testdata/legacy/0?-deadlock), goslap sends no ROLLBACK; 0.4
// counts the statement that failed, so its counts are what the server
// executed, 0.5 does not, so its writes fall short by its ignored errors.
func TestLegacyDeadlocks(t *testing.T) {
	s := servertest.Require(t)
	db, err := s.OpenDB("")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	check := func(t *testing.T, d Dialect, report string, com map[string]int64, extraSelects int64) {
		t.Helper()
		num := func(label string) int64 { return int64(figure(t, report, label)) }
		var failed int64
		if d == Dialect05 {
			failed = num("ignored errors:")
		}
		if com["Com_rollback"] != 0 {
			t.Errorf("%d ROLLBACKs sent", com["Com_rollback"])
		}
		if r, sel := num("read:"), com["Com_select"]; r > sel || r < sel-extraSelects {
			t.Errorf("read %d, server SELECTs %d", r, sel)
		}
		if w, sw := num("write:"), com["Com_insert"]+com["Com_update"]+com["Com_delete"]; w+failed != sw {
			t.Errorf("write %d (+ %d failed), server executed %d", w, failed, sw)
		}
		if o, so := num("other:"), com["Com_begin"]+com["Com_commit"]; o != so {
			t.Errorf("other %d, server BEGIN+COMMIT %d", o, so)
		}
	}
	t.Run("captures", func(t *testing.T) {
		for _, d := range []Dialect{Dialect04, Dialect05} {
			name := "0" + string(d[2]) + "-deadlock"
			check(t, d, legacyGolden(t, name), legacyCom(t, name), 0)
		}
	})
	cases := []struct {
		d      Dialect
		common []string
		run    []string
		errs   string
	}{
		{Dialect04, strings.Fields("--test=oltp --oltp-table-size=10"), strings.Fields("--num-threads=8 --max-requests=400 --oltp-dist-type=uniform run"), "deadlocks:"},
		{Dialect05, strings.Fields("--test=tests/db/oltp.lua --oltp-table-size=10"), strings.Fields("--num-threads=8 --max-requests=400 --rand-type=uniform run"), "ignored errors:"},
	}
	for _, tc := range cases {
		t.Run(string(tc.d), func(t *testing.T) {
			mustRun(t, s, append(tc.common, "prepare")...)
			defer mustRun(t, s, append(tc.common, "cleanup")...)
			// Deadlocks need contention; a loaded machine may serialise
			// a run, so try a few times.
			for try := 0; try < 5; try++ {
				var out string
				com := comDelta(t, db, func() { out = mustRun(t, s, append(tc.common, tc.run...)...) })
				check(t, tc.d, out, com, 3)
				if figure(t, out, tc.errs) > 0 || t.Failed() {
					return
				}
			}
			t.Error("no deadlock in 5 runs of 8 threads on 10 rows")
		})
	}
}

// TestAbsentIn05: 0.4's options that 0.5 lacks are dropped with a note in
// dialect 0.5 (0.5 ignores them: testdata/legacy/05-disttype ran with the
// default distribution) and kept in dialect 0.4.
func TestAbsentIn05(t *testing.T) {
	opts := []string{"--oltp-dist-type=uniform", "--oltp-dist-iter=3", "--oltp-dist-pct=50", "--oltp-dist-res=10", "--seed-rng=7", "--oltp-table-name=t"}
	mapped := func(c *Config) []string {
		var out []string
		for _, a := range c.WorkloadArgs {
			out = append(out, a.Name)
		}
		return out
	}
	c, err := Parse(append([]string{"--test=tests/db/oltp.lua"}, append(opts, "run")...))
	if err != nil {
		t.Fatal(err)
	}
	// The first note says which test runs for the missing script path.
	if len(c.Notes) != 1+len(opts) || len(c.WorkloadArgs) != 0 || c.SeedSet {
		t.Errorf("0.5: notes %q, workload options %q, seed set %v; want %d notes and nothing applied", c.Notes, mapped(c), c.SeedSet, 1+len(opts))
	}
	if len(c.Notes) > 1 && c.Notes[1] != "goslap: --oltp-dist-type=uniform is not a sysbench 0.5 option; 0.5 ignores it, and so does goslap (0.5 takes --rand-type)" {
		t.Errorf("note %q", c.Notes[1])
	}
	c, err = Parse(append([]string{"--test=oltp"}, append(opts, "run")...))
	if err != nil {
		t.Fatal(err)
	}
	if len(c.Notes) != 0 || len(c.WorkloadArgs) != 5 || c.SeedRNG != 7 {
		t.Errorf("0.4: notes %q, workload options %q, seed %d", c.Notes, mapped(c), c.SeedRNG)
	}
}
