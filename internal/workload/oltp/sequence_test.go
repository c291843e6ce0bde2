package oltp

import (
	"fmt"
	"strings"
	"testing"

	"github.com/goslap/goslap/internal/workload"
)

// recorded runs events of client 0 of the workload without a server and
// returns the statements and the tally.
func recorded(t *testing.T, w *Workload, engine string, events int) ([]string, workload.Tally) {
	t.Helper()
	l, err := w.Load(workload.Iteration{Point: workload.Point{Engine: engine, Clients: 4}, Number: 1})
	if err != nil {
		t.Fatal(err)
	}
	c := l.Client(0).(*client)
	var log []string
	c.record = func(sql string) { log = append(log, sql) }
	if err := c.Begin(nil); err != nil {
		t.Fatal(err)
	}
	for i := 0; i < events; i++ {
		if _, err := c.Next(nil); err != nil {
			t.Fatal(err)
		}
		log = append(log, "-- end of event")
	}
	return log, c.Tally()
}

type seqCase struct {
	dialect, name string
	words         []string
	engine        string
	// per event: reads, writes, other (§7.2)
	r, w, o uint64
}

var seqCases = []seqCase{
	{"1.0", "oltp_read_write", nil, "", 14, 4, 2},
	{"1.0", "oltp_read_write", []string{"--tables=4", "--skip-trx"}, "", 14, 4, 0},
	{"1.0", "oltp_read_only", []string{"--tables=3"}, "", 14, 0, 2},
	{"1.0", "oltp_read_only", []string{"--range-selects=off"}, "", 10, 0, 2},
	{"1.0", "oltp_write_only", nil, "", 0, 4, 2},
	{"1.0", "oltp_point_select", []string{"--point-selects=5"}, "", 1, 0, 0},
	{"1.0", "oltp_insert", nil, "", 0, 1, 0},
	{"1.0", "oltp_insert", []string{"--auto-inc=off"}, "", 0, 1, 0},
	{"1.0", "oltp_update_index", []string{"--index-updates=2"}, "", 0, 2, 0},
	{"1.0", "oltp_update_non_index", nil, "", 0, 1, 0},
	{"1.0", "oltp_delete", nil, "", 0, 1, 0},
	{"1.0", "select_random_points", []string{"--random-points=3"}, "", 1, 0, 0},
	{"1.0", "select_random_ranges", []string{"--number-of-ranges=3"}, "", 1, 0, 0},
	{"0.5", "oltp", []string{"--oltp-tables-count=2"}, "", 14, 4, 2},
	{"0.5", "oltp", []string{"--oltp-tables-count=2"}, "myisam", 14, 4, 2},
	{"0.5", "oltp", []string{"--oltp-read-only"}, "MyISAM", 14, 0, 2},
	{"0.5", "oltp_read_only", []string{"--oltp-skip-trx"}, "", 14, 0, 0},
	{"0.5", "oltp_write_only", nil, "", 0, 4, 2},
	{"0.5", "oltp_point_select", nil, "", 1, 0, 0},
	{"0.5", "oltp_insert", []string{"--oltp-auto-inc=off"}, "", 0, 1, 0},
	{"0.5", "oltp_update_index", nil, "", 0, 1, 0},
	{"0.5", "oltp_update_non_index", nil, "", 0, 1, 0},
	{"0.5", "oltp_delete", nil, "", 0, 1, 0},
	{"0.4", "oltp", nil, "innodb", 14, 5, 2}, // 0.4.12: UPDATE k of the row it deletes
	{"0.4", "oltp", nil, "myisam", 14, 5, 2},
	{"0.4", "oltp", []string{"--oltp-read-only"}, "myisam", 14, 0, 2},
	{"0.4", "oltp", []string{"--oltp-point-select-all-cols", "--oltp-skip-trx"}, "innodb", 14, 5, 0},
	{"0.4", "oltp", []string{"--oltp-test-mode=simple"}, "innodb", 1, 0, 0},
	{"0.4", "oltp", []string{"--oltp-test-mode=nontrx", "--oltp-nontrx-mode=select"}, "innodb", 1, 0, 0},
	{"0.4", "oltp", []string{"--oltp-test-mode=nontrx", "--oltp-nontrx-mode=update_nokey"}, "innodb", 0, 1, 0},
	{"0.4", "oltp", []string{"--oltp-test-mode=nontrx", "--oltp-nontrx-mode=insert", "--oltp-auto-inc=off"}, "innodb", 0, 1, 0},
	{"0.4", "oltp", []string{"--oltp-test-mode=nontrx", "--oltp-nontrx-mode=insert"}, "innodb", 0, 1, 0},
	{"0.4", "oltp_delete", nil, "innodb", 0, 1, 0},
	{"0.4", "oltp_update_index", nil, "innodb", 0, 1, 0},
}

func (tc seqCase) file() string {
	s := tc.dialect + "-" + tc.name
	for _, w := range tc.words {
		s += "_" + strings.NewReplacer("--", "", "=", "-").Replace(w)
	}
	if tc.engine != "" {
		s += "_" + tc.engine
	}
	return "seq/" + s + ".sql"
}

// TestStatementSequence records two events per workload and dialect with a
// fixed seed: the exact SQL (values inlined), table choice per statement
// group (1.0) or per event (0.5), BEGIN/COMMIT against LOCK TABLES.
func TestStatementSequence(t *testing.T) {
	for _, tc := range seqCases {
		t.Run(tc.file(), func(t *testing.T) {
			words := append([]string{"--sysbench-compat=" + tc.dialect, "--table-size=1000", "--rand-seed=7"}, tc.words...)
			w := build(t, tc.name, words...)
			log, _ := recorded(t, w, tc.engine, 2)
			golden(t, tc.file(), strings.Join(log, "\n")+"\n")
		})
	}
}

// TestCounting checks read/write/other per event over 100 events (§7.2).
func TestCounting(t *testing.T) {
	for _, tc := range seqCases {
		t.Run(tc.file(), func(t *testing.T) {
			words := append([]string{"--sysbench-compat=" + tc.dialect, "--table-size=1000"}, tc.words...)
			w := build(t, tc.name, words...)
			_, tl := recorded(t, w, tc.engine, 100)
			if tl.Reads != 100*tc.r || tl.Writes != 100*tc.w || tl.Other != 100*tc.o {
				t.Errorf("r/w/o = %d/%d/%d, want %d/%d/%d", tl.Reads, tl.Writes, tl.Other, 100*tc.r, 100*tc.w, 100*tc.o)
			}
		})
	}
}

// TestTableChoice: 1.0 draws a table per statement group, 0.5 one per event.
func TestTableChoice(t *testing.T) {
	tablesPerEvent := func(log []string) (maxDistinct int) {
		seen := map[string]bool{}
		for _, l := range log {
			if l == "-- end of event" {
				maxDistinct = max(maxDistinct, len(seen))
				seen = map[string]bool{}
				continue
			}
			for _, f := range strings.Fields(l) {
				if strings.HasPrefix(f, "sbtest") {
					seen[f] = true
				}
			}
		}
		return maxDistinct
	}
	log10, _ := recorded(t, build(t, "oltp_read_write", "--tables=8", "--table-size=1000"), "", 50)
	log05, _ := recorded(t, build(t, "oltp", "--sysbench-compat=0.5", "--oltp-tables-count=8", "--oltp-table-size=1000"), "", 50)
	if n := tablesPerEvent(log10); n < 4 {
		t.Errorf("1.0: at most %d tables in one event, want several (one per group)", n)
	}
	if n := tablesPerEvent(log05); n != 1 {
		t.Errorf("0.5: %d tables in one event, want 1", n)
	}
}

// TestRangeEnds: 1.0 binds s+range_size-1 unclamped, 0.5 writes s+99, 0.4
// clamps and DISTINCT spans range_size+1 ids.
func TestRangeEnds(t *testing.T) {
	check := func(name string, words []string, want func(sql string) error) {
		w := build(t, name, words...)
		log, _ := recorded(t, w, "innodb", 200)
		for _, l := range log {
			if strings.Contains(l, "BETWEEN") || strings.Contains(l, "between") {
				if err := want(l); err != nil {
					t.Errorf("%v: %s: %v", words, l, err)
					return
				}
			}
		}
	}
	check("oltp_read_only", []string{"--table-size=1000", "--rand-type=uniform"}, func(sql string) error {
		var a, b int64
		if _, err := fmt.Sscanf(sql[strings.Index(sql, "BETWEEN"):], "BETWEEN %d AND %d", &a, &b); err != nil {
			return err
		}
		if b != a+99 {
			return fmt.Errorf("end %d, want %d", b, a+99)
		}
		return nil
	})
	check("oltp", []string{"--sysbench-compat=0.5", "--table-size=1000"}, func(sql string) error {
		if !strings.Contains(sql, "+99") {
			return fmt.Errorf("no +99")
		}
		return nil
	})
	check("oltp", []string{"--sysbench-compat=0.4", "--table-size=1000", "--rand-type=uniform"}, func(sql string) error {
		var a, b int64
		if _, err := fmt.Sscanf(sql[strings.Index(sql, "between"):], "between %d and %d", &a, &b); err != nil {
			return err
		}
		span := int64(99)
		if strings.Contains(sql, "DISTINCT") {
			span = 100
		}
		if b != a+span || a < 1 || a+100 > 1000 {
			return fmt.Errorf("range %d-%d", a, b)
		}
		return nil
	})
}
