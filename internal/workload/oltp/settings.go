package oltp

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/goslap/goslap/internal/getopt"
	"github.com/goslap/goslap/internal/workload"
)

// Group is the option group every OLTP workload shares.
const Group = "oltp"

// Names of the registered workloads: sysbench 1.0's test names, and the
// 0.4/0.5 "oltp" test.
var Names = []string{
	"oltp_read_write", "oltp_read_only", "oltp_write_only", "oltp_point_select",
	"oltp_insert", "oltp_update_index", "oltp_update_non_index", "oltp_delete",
	"select_random_points", "select_random_ranges", "oltp",
}

var summaries = map[string]string{
	"oltp_read_write":       "sysbench OLTP read/write transactions (points, ranges, updates, delete+insert)",
	"oltp_read_only":        "sysbench OLTP read-only transactions (points and ranges)",
	"oltp_write_only":       "sysbench OLTP write-only transactions (updates, delete+insert)",
	"oltp_point_select":     "sysbench one primary-key SELECT per event",
	"oltp_insert":           "sysbench one INSERT per event",
	"oltp_update_index":     "sysbench UPDATE of the indexed column k",
	"oltp_update_non_index": "sysbench UPDATE of the non-indexed column c",
	"oltp_delete":           "sysbench one DELETE per event",
	"select_random_points":  "sysbench SELECT ... WHERE k IN (random points)",
	"select_random_ranges":  "sysbench SELECT count(k) over random k ranges",
	"oltp":                  "sysbench 0.4/0.5 oltp test (--sysbench-compat=0.5|0.4; modes complex/simple/nontrx, read-only, write-only)",
}

func init() {
	for _, n := range Names {
		workload.Register(workload.Meta{
			Name: n, Summary: summaries[n], Group: Group,
			NewSettings: func() workload.Settings { return NewSettings() },
		})
	}
}

// Settings are the OLTP options, spelt as sysbench spells them (1.0 names,
// and the 0.4/0.5 oltp- names as aliases). Numbers are kept as the user
// typed them and validated by Build, so that a bad value is one clear error.
type Settings struct {
	Compat string // --sysbench-compat: 1.0 (default), 0.5 or 0.4

	Tables, TableSize, RangeSize                     string
	PointSelects, SimpleRanges, SumRanges            string
	OrderRanges, DistinctRanges                      string
	IndexUpdates, NonIndexUpdates, DeleteInserts     string
	RangeSelects, SkipTrx, AutoInc, Secondary        bool
	CreateSecondary                                  bool
	RandType, RandSpecIter, RandSpecPct, RandSpecRes string
	RandParetoH, RandZipfianExp, RandSeed            string
	RandomPoints, NumberOfRanges, Delta              string
	Reconnect                                        string
	PSMode                                           string // --db-ps-mode: auto or disable
	CreateTableOptions                               string
	StorageEngine                                    string // --mysql-storage-engine / --mysql-table-engine, used when Point.Engine is ""

	// 0.4/0.5 only.
	ReadOnly, WriteOnly bool
	TestMode            string // 0.4 --oltp-test-mode: complex, simple, nontrx
	NontrxMode          string // 0.4 --oltp-nontrx-mode
	TableName           string // 0.4 --oltp-table-name
	MyisamMaxRows       string
	EngineTrx           string // 0.4/0.5 --mysql-engine-trx: auto, yes, no
	PointSelectAllCols  bool

	// goslap's prefill.
	PrefillConnections string // --prefill-connections
	PrefillMethod      string // --prefill-method: auto, insert, load-data
}

// NewSettings returns sysbench's defaults.
func NewSettings() *Settings {
	return &Settings{
		Compat: dialect10, Tables: "1", TableSize: "10000", RangeSize: "100",
		PointSelects: "10", SimpleRanges: "1", SumRanges: "1", OrderRanges: "1", DistinctRanges: "1",
		IndexUpdates: "1", NonIndexUpdates: "1", DeleteInserts: "1",
		RangeSelects: true, AutoInc: true, CreateSecondary: true,
		RandType: distSpecial, RandSpecIter: "12", RandSpecPct: "1", RandSpecRes: "75",
		RandParetoH: "0.2", RandZipfianExp: "0.8", RandSeed: "0",
		RandomPoints: "10", NumberOfRanges: "10", Delta: "5", Reconnect: "0",
		PSMode: "auto", TestMode: "complex", NontrxMode: "select", TableName: "sbtest",
		MyisamMaxRows: "1000000", EngineTrx: "auto",
		PrefillConnections: "4", PrefillMethod: "auto",
	}
}

// Options returns the option rows, matched by full name only.
func (s *Settings) Options() []*getopt.Option {
	var out []*getopt.Option
	str := func(p *string, help string, names ...string) {
		for i, n := range names {
			h := help
			if i > 0 {
				h = "Alias of --" + names[0] + "."
			}
			out = append(out, &getopt.Option{Name: n, Arg: getopt.RequiredArg, Var: getopt.VarString, String: p, Help: h, ExactOnly: true})
		}
	}
	flag := func(p *bool, help string, names ...string) {
		for i, n := range names {
			h := help
			if i > 0 {
				h = "Alias of --" + names[0] + "."
			}
			out = append(out, &getopt.Option{Name: n, Arg: getopt.NoArg, Var: getopt.VarBool, Bool: p, Help: h, ExactOnly: true})
		}
	}
	str(&s.Compat, "sysbench dialect to reproduce: 1.0 (default), 0.5 or 0.4.", "sysbench-compat")
	str(&s.Tables, "Number of tables sbtest1..N (1.0, 0.5).", "tables", "oltp-tables-count")
	str(&s.TableSize, "Rows per table.", "table-size", "oltp-table-size")
	str(&s.RangeSize, "Ids per range query.", "range-size", "oltp-range-size")
	str(&s.PointSelects, "Point selects per transaction.", "point-selects", "oltp-point-selects")
	str(&s.SimpleRanges, "Simple range selects per transaction.", "simple-ranges", "oltp-simple-ranges")
	str(&s.SumRanges, "SUM() range selects per transaction.", "sum-ranges", "oltp-sum-ranges")
	str(&s.OrderRanges, "ORDER BY range selects per transaction.", "order-ranges", "oltp-order-ranges")
	str(&s.DistinctRanges, "DISTINCT range selects per transaction.", "distinct-ranges", "oltp-distinct-ranges")
	str(&s.IndexUpdates, "UPDATEs of k per transaction.", "index-updates", "oltp-index-updates")
	str(&s.NonIndexUpdates, "UPDATEs of c per transaction.", "non-index-updates", "oltp-non-index-updates")
	str(&s.DeleteInserts, "DELETE+INSERT pairs per transaction.", "delete-inserts", "oltp-delete-inserts")
	flag(&s.RangeSelects, "Run the range selects (default on).", "range-selects", "oltp-range-selects")
	flag(&s.SkipTrx, "No BEGIN/COMMIT: statements in autocommit.", "skip-trx", "oltp-skip-trx")
	flag(&s.AutoInc, "AUTO_INCREMENT id (default on).", "auto-inc", "oltp-auto-inc")
	flag(&s.Secondary, "KEY xid (id) instead of PRIMARY KEY (id).", "secondary", "oltp-secondary")
	flag(&s.CreateSecondary, "Create the index on k after the load (default on).", "create-secondary")
	str(&s.RandType, "Id distribution: uniform, gaussian, special (default), pareto, zipfian (goslap extension).", "rand-type", "oltp-dist-type")
	str(&s.RandSpecIter, "Iterations of the gaussian and special distributions.", "rand-spec-iter", "oltp-dist-iter")
	str(&s.RandSpecPct, "Percentage of ids the special distribution treats as hot.", "rand-spec-pct", "oltp-dist-pct")
	str(&s.RandSpecRes, "Percentage of draws that hit the hot ids (special).", "rand-spec-res", "oltp-dist-res")
	str(&s.RandParetoH, "Parameter h of the pareto distribution.", "rand-pareto-h")
	str(&s.RandZipfianExp, "Exponent of the zipfian distribution (goslap extension).", "rand-zipfian-exp")
	str(&s.RandSeed, "Seed of the random streams; 0 = the run's seed, or the time.", "rand-seed")
	str(&s.RandomPoints, "Points per select_random_points query.", "random-points")
	str(&s.NumberOfRanges, "Ranges per select_random_ranges query.", "number-of-ranges")
	str(&s.Delta, "Width of each select_random_ranges range.", "delta")
	str(&s.Reconnect, "Reconnect after this many events (0 = never).", "reconnect")
	str(&s.PSMode, "Prepared statements: auto (server-side) or disable (text, values inlined).", "db-ps-mode")
	str(&s.CreateTableOptions, "Text appended to CREATE TABLE.", "create-table-options", "mysql-create-options")
	str(&s.StorageEngine, "Storage engine when the run names none.", "mysql-storage-engine", "mysql-table-engine")
	flag(&s.ReadOnly, "0.4/0.5 oltp: reads only.", "oltp-read-only")
	flag(&s.WriteOnly, "0.4/0.5 oltp: writes only.", "oltp-write-only")
	str(&s.TestMode, "0.4 oltp mode: complex (default), simple, nontrx.", "oltp-test-mode")
	str(&s.NontrxMode, "0.4 nontrx statement: select, update_key, update_nokey, insert, delete.", "oltp-nontrx-mode")
	str(&s.TableName, "0.4 table name.", "oltp-table-name")
	str(&s.MyisamMaxRows, "MAX_ROWS of 0.4 MyISAM and all 0.5 tables.", "myisam-max-rows")
	str(&s.EngineTrx, "0.4/0.5: is the engine transactional (auto, yes, no).", "mysql-engine-trx")
	flag(&s.PointSelectAllCols, "0.4: point selects read every column.", "oltp-point-select-all-cols")
	str(&s.PrefillConnections, "Connections loading the tables in parallel at prepare (they speed up several tables; on one table they take turns, since each LOAD DATA holds the table's AUTO-INC lock).", "prefill-connections")
	str(&s.PrefillMethod, "Prepare's bulk load: auto (LOAD DATA LOCAL when the server allows it), insert, load-data.", "prefill-method")
	return out
}

// number parses a whole number option within [lo, hi].
func number(name, v string, lo, hi int64) (int64, error) {
	n, err := strconv.ParseInt(strings.TrimSpace(v), 10, 64)
	if err != nil {
		return 0, fmt.Errorf("invalid value '%s' for --%s: not a whole number", v, name)
	}
	if n < lo || n > hi {
		return 0, fmt.Errorf("invalid value '%s' for --%s: must be between %d and %d", v, name, lo, hi)
	}
	return n, nil
}

func decimal(name, v string) (float64, error) {
	f, err := strconv.ParseFloat(strings.TrimSpace(v), 64)
	if err != nil {
		return 0, fmt.Errorf("invalid value '%s' for --%s: not a number", v, name)
	}
	return f, nil
}

// ParseTableSize reads a --table-size value: a whole number of rows,
// optionally with a K or M suffix (1000, 1000000). Front ends sweeping
// table sizes parse each element of their list with it.
func ParseTableSize(v string) (int64, error) {
	t := strings.TrimSpace(v)
	mult := int64(1)
	switch {
	case strings.HasSuffix(t, "K") || strings.HasSuffix(t, "k"):
		mult, t = 1000, t[:len(t)-1]
	case strings.HasSuffix(t, "M") || strings.HasSuffix(t, "m"):
		mult, t = 1000000, t[:len(t)-1]
	}
	n, err := strconv.ParseInt(t, 10, 64)
	if err != nil || n < 1 || n > (1<<31-1)/mult {
		return 0, fmt.Errorf("invalid value '%s' for --table-size: a number of rows from 1 to 2147483647 (K and M suffixes allowed)", v)
	}
	return n * mult, nil
}

// StopDefaults are the run limits sysbench applies when none is given
// (§8): 0.4/0.5 stop after 10 000 events and have no time limit; 1.0 runs
// 10 s without an event limit. Front ends print the limits in force.
func StopDefaults(compat string) (events int64, seconds float64) {
	if compat == dialect04 || compat == dialect05 {
		return 10000, 0
	}
	return 0, 10
}

// Dialect returns the dialect the settings select, once validated by Build.
func (s *Settings) Dialect() string { return s.Compat }
