package oltp

import (
	"fmt"
	"math"
	"strings"
	"time"

	"github.com/goslap/goslap/internal/workload"
)

// script is the event one workload runs.
type script int

const (
	scriptReadWrite script = iota // 1.0 oltp_read_write/read_only/write_only, 0.5 oltp, 0.4 complex
	scriptPointSelect
	scriptInsert
	scriptUpdateIndex
	scriptUpdateNonIndex
	scriptDelete
	scriptRandomPoints
	scriptRandomRanges
	scriptNontrx // 0.4 nontrx modes
)

// config is the validated form of Settings for one workload.
type config struct {
	name    string
	dialect string
	script  script
	reads   bool // run the read statements of scriptReadWrite
	writes  bool
	nontrx  string // 0.4 nontrx mode

	tables, tableSize, rangeSize                      int64
	points, simple, sum, order, distinct              int64
	indexUpdates, nonIndexUpdates, deleteInserts      int64
	rangeSelects, skipTrx, autoInc, secondary, indexK bool
	dist                                              dist
	seed                                              uint64
	randomPoints, ranges, delta                       int64
	reconnect                                         int64
	prepared                                          bool
	createOptions, storageEngine                      string
	tableName                                         string // 0.4
	myisamMaxRows                                     int64
	engineTrx                                         string
	allCols                                           bool
	schema                                            string
	prefillConns                                      int
	prefillMethod                                     string
	verbose                                           int
}

// Build validates the settings for the workload named.
func (s *Settings) Build(name string, common workload.Common) (workload.Workload, error) {
	c, err := s.config(name, common)
	if err != nil {
		return nil, err
	}
	return &Workload{cfg: c}, nil
}

func (s *Settings) config(name string, common workload.Common) (config, error) {
	c := config{name: name, dialect: s.Compat, schema: common.Schema, verbose: common.Verbose}
	switch c.dialect {
	case dialect10, dialect05, dialect04:
	default:
		return c, fmt.Errorf("invalid value '%s' for --sysbench-compat: 1.0, 0.5 or 0.4", s.Compat)
	}
	const maxInt = math.MaxInt32
	var err error
	nums := []struct {
		p      *int64
		opt, v string
		lo, hi int64
	}{
		{&c.tables, "tables", s.Tables, 1, 100000},
		{&c.rangeSize, "range-size", s.RangeSize, 1, maxInt},
		{&c.points, "point-selects", s.PointSelects, 0, maxInt},
		{&c.simple, "simple-ranges", s.SimpleRanges, 0, maxInt},
		{&c.sum, "sum-ranges", s.SumRanges, 0, maxInt},
		{&c.order, "order-ranges", s.OrderRanges, 0, maxInt},
		{&c.distinct, "distinct-ranges", s.DistinctRanges, 0, maxInt},
		{&c.indexUpdates, "index-updates", s.IndexUpdates, 0, maxInt},
		{&c.nonIndexUpdates, "non-index-updates", s.NonIndexUpdates, 0, maxInt},
		{&c.deleteInserts, "delete-inserts", s.DeleteInserts, 0, maxInt},
		{&c.randomPoints, "random-points", s.RandomPoints, 1, 65535},
		{&c.ranges, "number-of-ranges", s.NumberOfRanges, 1, 32767},
		{&c.delta, "delta", s.Delta, 0, maxInt},
		{&c.reconnect, "reconnect", s.Reconnect, 0, math.MaxInt64},
		{&c.myisamMaxRows, "myisam-max-rows", s.MyisamMaxRows, 0, math.MaxInt64},
	}
	for _, n := range nums {
		if *n.p, err = number(n.opt, n.v, n.lo, n.hi); err != nil {
			return c, err
		}
	}
	if c.tableSize, err = ParseTableSize(s.TableSize); err != nil {
		return c, err
	}
	iter, err := number("rand-spec-iter", s.RandSpecIter, 1, 1000)
	if err != nil {
		return c, err
	}
	pct, err := decimal("rand-spec-pct", s.RandSpecPct)
	if err != nil {
		return c, err
	}
	res, err := decimal("rand-spec-res", s.RandSpecRes)
	if err != nil {
		return c, err
	}
	h, err := decimal("rand-pareto-h", s.RandParetoH)
	if err != nil {
		return c, err
	}
	zexp, err := decimal("rand-zipfian-exp", s.RandZipfianExp)
	if err != nil {
		return c, err
	}
	if c.dist, err = newDist(c.dialect, s.RandType, iter, pct, res, h, zexp); err != nil {
		return c, err
	}
	seed, err := number("rand-seed", s.RandSeed, 0, math.MaxInt64)
	if err != nil {
		return c, err
	}
	c.seed = uint64(seed)
	if c.seed == 0 {
		c.seed = common.Seed
	}
	if c.seed == 0 {
		c.seed = uint64(time.Now().UnixNano())
	}
	switch s.PSMode {
	case "auto":
		c.prepared = c.dialect != dialect05
	case "disable":
	default:
		return c, fmt.Errorf("invalid value '%s' for --db-ps-mode: auto or disable", s.PSMode)
	}
	switch s.EngineTrx {
	case "auto", "yes", "no":
		c.engineTrx = s.EngineTrx
	default:
		return c, fmt.Errorf("invalid value '%s' for --mysql-engine-trx: auto, yes or no", s.EngineTrx)
	}
	pc, err := number("prefill-connections", s.PrefillConnections, 1, 256)
	if err != nil {
		return c, err
	}
	c.prefillConns = int(pc)
	switch s.PrefillMethod {
	case "auto", "insert", "load-data":
		c.prefillMethod = s.PrefillMethod
	default:
		return c, fmt.Errorf("invalid value '%s' for --prefill-method: auto, insert or load-data", s.PrefillMethod)
	}
	c.rangeSelects, c.skipTrx, c.autoInc, c.secondary, c.indexK = s.RangeSelects, s.SkipTrx, s.AutoInc, s.Secondary, s.CreateSecondary
	c.createOptions, c.storageEngine, c.allCols = s.CreateTableOptions, s.StorageEngine, s.PointSelectAllCols
	c.tableName = "sbtest"
	if c.storageEngine != "" && !ValidEngineName(c.storageEngine) {
		return c, fmt.Errorf("invalid value '%s' for --mysql-storage-engine: %s", c.storageEngine, EngineNameRule)
	}
	if s.ReadOnly && s.WriteOnly {
		return c, fmt.Errorf("--oltp-read-only and --oltp-write-only cannot both be on")
	}
	if (s.ReadOnly || s.WriteOnly) && c.dialect == dialect10 {
		return c, fmt.Errorf("--oltp-read-only and --oltp-write-only belong to --sysbench-compat=0.5|0.4; dialect 1.0 has oltp_read_only and oltp_write_only")
	}
	c.reads, c.writes = !s.WriteOnly, !s.ReadOnly
	if err := c.pickScript(name, s); err != nil {
		return c, err
	}
	if c.dialect == dialect04 {
		c.tables = 1
		if !ValidTableName(s.TableName) {
			return c, fmt.Errorf("invalid value '%s' for --oltp-table-name: %s", s.TableName, TableNameRule)
		}
		c.tableName = s.TableName
		if c.autoInc && c.secondary {
			return c, fmt.Errorf("--oltp-auto-inc and --oltp-secondary cannot both be on in dialect 0.4")
		}
	}
	if (c.script == scriptRandomPoints || c.script == scriptRandomRanges) && c.tables != 1 {
		return c, fmt.Errorf("%s runs on one table (sbtest1); --tables=%d is not supported", name, c.tables)
	}
	return c, nil
}

// pickScript maps the workload name onto the dialect's script.
func (c *config) pickScript(name string, s *Settings) error {
	rw := func(reads, writes bool) {
		c.script, c.reads, c.writes = scriptReadWrite, reads && c.reads, writes && c.writes
	}
	switch name {
	case "oltp_read_write":
		rw(true, true)
	case "oltp_read_only":
		rw(true, false)
	case "oltp_write_only":
		rw(false, true)
	case "oltp_point_select":
		c.script = scriptPointSelect
	case "oltp_insert":
		c.script = scriptInsert
	case "oltp_update_index":
		c.script = scriptUpdateIndex
	case "oltp_update_non_index":
		c.script = scriptUpdateNonIndex
	case "oltp_delete":
		c.script = scriptDelete
	case "select_random_points":
		c.script = scriptRandomPoints
	case "select_random_ranges":
		c.script = scriptRandomRanges
	case "oltp":
		if c.dialect == dialect10 {
			return fmt.Errorf("workload 'oltp' is sysbench 0.4/0.5's test: add --sysbench-compat=0.5 or 0.4 (dialect 1.0 has oltp_read_write, oltp_read_only, oltp_write_only)")
		}
		rw(true, true)
	default:
		return fmt.Errorf("unknown OLTP workload '%s'", name)
	}
	if c.dialect != dialect04 {
		if s.TestMode != "complex" {
			return fmt.Errorf("--oltp-test-mode belongs to --sysbench-compat=0.4")
		}
		return nil
	}
	// 0.4: one C test with modes; the 1.0 names select the matching mode.
	switch name {
	case "oltp", "oltp_read_write", "oltp_read_only", "oltp_write_only":
		switch s.TestMode {
		case "complex":
		case "simple":
			c.script = scriptPointSelect
		case "nontrx":
			c.script = scriptNontrx
			c.nontrx = s.NontrxMode
		default:
			return fmt.Errorf("invalid value '%s' for --oltp-test-mode: complex, simple or nontrx", s.TestMode)
		}
	case "oltp_point_select":
	case "oltp_update_index":
		c.script, c.nontrx = scriptNontrx, "update_key"
	case "oltp_update_non_index":
		c.script, c.nontrx = scriptNontrx, "update_nokey"
	case "oltp_insert":
		c.script, c.nontrx = scriptNontrx, "insert"
	case "oltp_delete":
		c.script, c.nontrx = scriptNontrx, "delete"
	default:
		return fmt.Errorf("workload '%s' does not exist in sysbench 0.4", name)
	}
	if c.script == scriptNontrx {
		switch c.nontrx {
		case "select", "update_key", "update_nokey", "insert", "delete":
		default:
			return fmt.Errorf("invalid value '%s' for --oltp-nontrx-mode: select, update_key, update_nokey, insert or delete", c.nontrx)
		}
	}
	return nil
}

// The names the OLTP workload puts into SQL as they are, without quotes
// (sysbench writes them so: a list such as myisam,innodb reached the server
// as a syntax error), are checked before anything connects, by every front
// end, with these rules.
const (
	EngineNameRule = "one storage engine name (letters, digits and '_', such as innodb or myisam); lists are not supported"
	TableNameRule  = "a table name is 1 to 64 letters, digits, '_' or '$', and not digits alone"
)

// ValidEngineName reports whether s is a storage engine name MySQL reads
// without quotes.
func ValidEngineName(s string) bool { return unquotedName(s, false) }

// ValidTableName reports whether s is a table name (0.4's
// --oltp-table-name) MySQL reads without quotes.
func ValidTableName(s string) bool { return unquotedName(s, true) }

// unquotedName: 1 to 64 ASCII letters, digits and '_' (and '$' when
// dollar), not all digits.
func unquotedName(s string, dollar bool) bool {
	if s == "" || len(s) > 64 || strings.Trim(s, "0123456789") == "" {
		return false
	}
	for _, r := range s {
		ok := r == '_' || (dollar && r == '$') || (r >= '0' && r <= '9') || (r >= 'a' && r <= 'z') || (r >= 'A' && r <= 'Z')
		if !ok {
			return false
		}
	}
	return true
}
