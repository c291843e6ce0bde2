// Package oltp is the sysbench-compatible OLTP workloads (oltp_read_write,
// oltp_read_only, oltp_point_select, ..., and the 0.4/0.5 oltp test) in three
// dialects, sysbench 1.0, 0.5 and 0.4, which differ in schema, data, SQL,
// id distribution, locking, protocol and counting (see oltp-spec.md). Each
// workload name registers with package workload; the settings use
// sysbench's option names.
package oltp

import (
	"context"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/goslap/goslap/internal/ownership"
	"github.com/goslap/goslap/internal/prefill"
	"github.com/goslap/goslap/internal/results"
	"github.com/goslap/goslap/internal/workload"
	"github.com/goslap/goslap/internal/workload/report"
)

var _ workload.Workload = (*Workload)(nil)

// Workload is one OLTP workload, built by Settings.Build.
type Workload struct {
	cfg config
	// setupRan says this process ran Setup: Teardown then drops only the
	// tables Setup created (created, this invocation's ledger). Without it
	// (a "cleanup" command) Teardown drops the workload's tables that have
	// sysbench's layout, and refuses any other.
	setupRan bool
	// setupDone says Setup finished: a Teardown before that is the end of
	// a failed or interrupted prepare, which says what it dropped.
	setupDone bool
	created   ownership.Ledger
	// trxEngine (0.4): BEGIN/COMMIT when true, else LOCK TABLES, decided
	// by BeginIteration from the table's engine.
	trxEngine bool
}

// Dialect returns the sysbench dialect the workload reproduces.
func (w *Workload) Dialect() string { return w.cfg.dialect }

// TableNames returns the tables the workload defines.
func (w *Workload) TableNames() []string {
	if w.cfg.dialect == dialect04 {
		return []string{w.cfg.tableName}
	}
	out := make([]string, w.cfg.tables)
	for i := range out {
		out[i] = "sbtest" + strconv.Itoa(i+1)
	}
	return out
}

// Ops has one op: the event (sysbench's "transaction").
func (w *Workload) Ops() []string { return []string{"event"} }

func (w *Workload) tableSize(scale int64) int64 {
	if scale > 0 {
		return scale
	}
	return w.cfg.tableSize
}

func (w *Workload) def(p workload.Point) tableDef {
	e := p.Engine
	if e == "" {
		e = w.cfg.storageEngine
	}
	opts := strings.TrimSpace(strings.TrimSpace(w.cfg.createOptions) + " " + strings.TrimSpace(p.EngineOptions))
	return tableDef{dialect: w.cfg.dialect, engine: e, createOptions: opts, autoInc: w.cfg.autoInc,
		secondary: w.cfg.secondary, myisamMaxRows: w.cfg.myisamMaxRows}
}

// existing returns which of the workload's tables exist in the current schema.
func (w *Workload) existing(s *workload.Session) ([]string, error) {
	names := w.TableNames()
	quoted := make([]string, len(names))
	for i, n := range names {
		quoted[i] = "'" + n + "'"
	}
	db, err := s.Main.QueryStrings("SELECT IFNULL(DATABASE(), '')")
	if err != nil {
		return nil, fmt.Errorf("reading the current schema: %w", err)
	}
	if len(db) != 1 || db[0] == "" {
		return nil, fmt.Errorf("no schema selected for the OLTP tables (schema %q)", w.cfg.schema)
	}
	return s.Main.QueryStrings("SELECT TABLE_NAME FROM information_schema.TABLES WHERE TABLE_SCHEMA = DATABASE() AND TABLE_NAME IN (" +
		strings.Join(quoted, ",") + ") ORDER BY TABLE_NAME")
}

// Setup is sysbench's prepare: CREATE TABLE, load the rows, create the
// index on k. It refuses to touch a table that already exists. It ends
// soon after ctx does, between statements or by cutting the one in flight
// (s.Main is then unusable).
func (w *Workload) Setup(ctx context.Context, s *workload.Session, p workload.Point) (err error) {
	s, stop := workload.Interruptible(ctx, s)
	defer stop()
	w.setupRan = true
	defer func() { w.setupDone = err == nil }()
	have, err := w.existing(s)
	if err != nil {
		return err
	}
	if len(have) > 0 {
		return fmt.Errorf("table %s already exists: prepare creates the tables and never reuses or drops existing ones (run cleanup first if goslap or sysbench created them)", strings.Join(have, ", "))
	}
	d := w.def(p)
	n := w.tableSize(p.Scale)
	names := w.TableNames()
	var tables []prefill.Table
	for i, name := range names {
		if err := ctx.Err(); err != nil {
			return err
		}
		ddl := d.createTable(name)
		if err := s.Main.Exec(ddl); err != nil {
			return fmt.Errorf("creating table %s: %w", name, err)
		}
		w.created.Add(name)
		w.logWarnings(s, "CREATE TABLE "+name)
		if w.cfg.dialect == dialect04 {
			if err := s.Main.Exec(d.createIndex(name, i+1)); err != nil {
				return fmt.Errorf("creating the index on %s: %w", name, err)
			}
		}
		if w.cfg.script == scriptInsert && !w.cfg.autoInc && w.cfg.dialect == dialect10 {
			continue // sysbench's oltp_insert prepares empty tables without auto_inc
		}
		tables = append(tables, w.rows(name, i, n))
	}
	if len(tables) > 0 {
		method, err := prefill.ParseMethod(w.cfg.prefillMethod)
		if err != nil {
			return err
		}
		if s.Log != nil && w.cfg.verbose > 0 {
			s.Log("Inserting %d records into %d table(s)", n, len(tables))
		}
		start := time.Now()
		res, err := prefill.Load(ctx, s, tables, prefill.Options{Connections: w.cfg.prefillConns, Method: method, Phase: "prepare",
			Session: []string{"SET SESSION unique_checks=0, foreign_key_checks=0"}})
		if err != nil {
			return err
		}
		if s.Log != nil && w.cfg.verbose > 0 {
			s.Log("Loaded %d rows with %s in %.2fs", res.Rows, res.Method, time.Since(start).Seconds())
		}
	}
	if w.cfg.dialect != dialect04 && w.cfg.indexK {
		start := time.Now()
		for i, name := range names {
			if err := ctx.Err(); err != nil {
				return err
			}
			if err := s.Main.Exec(d.createIndex(name, i+1)); err != nil {
				return fmt.Errorf("creating the index on %s: %w", name, err)
			}
		}
		if s.Log != nil && w.cfg.verbose > 0 {
			s.Log("Created the index on k in %.2fs", time.Since(start).Seconds())
		}
	}
	return nil
}

func (w *Workload) logWarnings(s *workload.Session, what string) {
	if s.Log == nil {
		return
	}
	rows, err := s.Main.Query("SHOW WARNINGS")
	if err != nil {
		return
	}
	for _, r := range rows {
		if len(r) >= 3 {
			s.Log("%s: %s %s: %s", what, r[0], r[1], r[2])
		}
	}
}

// rows is the generator of table i's rows (§3.2): ids 1..N in order, k
// from the run's distribution, random c and pad (constant rows in 0.4).
func (w *Workload) rows(name string, i int, n int64) prefill.Table {
	cfg := w.cfg
	sized := cfg
	sized.tableSize = n
	t := prefill.Table{Name: name, Columns: []string{"id", "k", "c", "pad"}, Rows: n}
	if cfg.dialect == dialect04 {
		c, pad := []byte(" "), []byte("qqqqqqqqqqwwwwwwwwwweeeeeeeeeerrrrrrrrrrtttttttttt")
		t.NewRows = func(first int64) prefill.RowFunc {
			return func(r *prefill.Row, row int64) {
				r.Int(row + 1)
				r.Int(0)
				r.Str(c)
				r.Str(pad)
			}
		}
		return t
	}
	t.NewRows = func(first int64) prefill.RowFunc {
		g := newRNG(cfg.seed^0x5eed, uint64(i)<<40|uint64(first))
		c := make([]byte, len(tmplC119))
		pad := make([]byte, len(tmplP59))
		return func(r *prefill.Row, row int64) {
			r.Int(row + 1)
			r.Int(sized.dist.draw(&g, 1, n))
			g.fill(c, tmplC119)
			g.fill(pad, tmplP59)
			r.Str(c)
			r.Str(pad)
		}
	}
	return t
}

// BeginIteration checks that the tables are there (a run before prepare is
// one clear error) and, in 0.4, whether the engine is transactional.
func (w *Workload) BeginIteration(ctx context.Context, s *workload.Session, it workload.Iteration) error {
	// One look at the tables (two queries: the server's statement
	// counters are compared with sysbench's) answers whether they exist,
	// are sysbench's and have the engine the run is labelled with. A run
	// phase works on tables prepared before: only on sysbench's (its
	// writes and deletes would change a user's sbtest1 or invoices
	// otherwise); this run's own pass without a look at their layout.
	v, err := ownership.Claim(s.Main, "", w.TableNames(), w.created.Has, w.shape, "not used")
	if err != nil {
		return err
	}
	if len(v.Missing) > 0 {
		return fmt.Errorf("table %s does not exist: run prepare first", strings.Join(v.Missing, ", "))
	}
	// The report labels the run with the engine: it must be the tables'
	// own (a run phase reuses tables prepared before).
	if err := v.CheckEngine(it.Engine); err != nil {
		return err
	}
	if w.cfg.script == scriptNontrx && w.cfg.nontrx == "insert" {
		// 0.4's nontrx insert empties the table first, as sysbench does,
		// but only a table this run's prepare created.
		if !w.created.Has(w.cfg.tableName) {
			return fmt.Errorf("the 0.4 nontrx insert mode empties %s first, as sysbench does; goslap only empties a table its own prepare created in this run", w.cfg.tableName)
		}
		if err := s.Main.Exec("TRUNCATE TABLE " + w.cfg.tableName); err != nil {
			return fmt.Errorf("emptying %s: %w", w.cfg.tableName, err)
		}
	}
	if w.cfg.dialect == dialect04 {
		switch w.cfg.engineTrx {
		case "yes":
			w.trxEngine = true
		case "no":
			w.trxEngine = false
		default:
			e := strings.ToLower(v.Tables[w.cfg.tableName].Engine)
			switch e {
			case "myisam", "heap", "memory", "maria", "aria":
				w.trxEngine = false
			case "innodb", "bdb", "berkeleydb", "ndbcluster", "federated", "pbxt", "falcon":
				w.trxEngine = true
			default:
				return fmt.Errorf("cannot tell whether engine '%s' of %s is transactional: use --mysql-engine-trx=yes|no", e, w.cfg.tableName)
			}
		}
	}
	return nil
}

// EndIteration does nothing: the tables live from Setup to Teardown.
func (w *Workload) EndIteration(ctx context.Context, s *workload.Session, it workload.Iteration) error {
	return nil
}

// Load builds the iteration's clients.
func (w *Workload) Load(it workload.Iteration) (workload.Load, error) {
	cfg := w.cfg
	cfg.tableSize = w.tableSize(it.Scale)
	e := it.Engine
	if e == "" {
		e = cfg.storageEngine
	}
	if e == "" {
		e = "innodb"
	}
	// 0.5 locks every table instead of BEGIN when the engine is literally
	// "myisam" (a case-sensitive comparison in oltp.lua).
	lock := cfg.dialect == dialect05 && e == "myisam"
	trxEngine := w.trxEngine
	if cfg.dialect == dialect04 && cfg.engineTrx == "auto" && !w.trxEngine {
		// BeginIteration did not run (a recorded load in tests): decide by name.
		trxEngine = !strings.EqualFold(e, "myisam")
	}
	l := &load{cfg: &cfg, lock: lock, clients: max(it.Clients, 1), saltU: uint32(cfg.seed >> 7)}
	l.stmts = statements(&cfg, lock, trxEngine)
	l.used = used(&cfg, lock)
	return l, nil
}

// Teardown drops the tables goslap can show are the workload's own
// (package ownership), saying each as sysbench does. When Setup ran in
// this process it drops only the tables Setup created (a refused prepare
// never drops someone's table, a full run never drops tables it reused),
// and after a failed or interrupted prepare it says what was dropped or
// left. Otherwise (the cleanup command) it drops the workload's tables
// that have sysbench's layout (shape), after checking them all: one that
// does not is refused, by name, before anything is dropped.
func (w *Workload) Teardown(ctx context.Context, s *workload.Session, p workload.Point) error {
	schema, err := ownership.CurrentSchema(s.Main)
	if err != nil {
		return err
	}
	if w.setupRan {
		return w.created.DropCreated(s.Main, schema, w.setupDone, s.Sayf)
	}
	v, err := ownership.Claim(s.Main, schema, w.TableNames(), nil, w.shape, "not dropped")
	if err != nil {
		return err
	}
	if _, err := ownership.Drop(s.Main, schema, v.Present, s.Sayf); err != nil {
		return err
	}
	if len(v.Missing) == 0 {
		return nil
	}
	if w.cfg.dialect != dialect10 {
		// sysbench 0.4 and 0.5 fail on a table that is not there (DROP
		// TABLE: error 1051); so does their cleanup here.
		return fmt.Errorf("table %s does not exist in schema '%s': nothing to drop (Error 1051 Unknown table, as sysbench %s stops)",
			ownership.Span(v.Missing), schema, w.cfg.dialect)
	}
	// sysbench 1.0's cleanup says "Dropping table" for tables that are not
	// there and succeeds; goslap succeeds and says what is not there.
	s.Sayf("Nothing to drop for table %s: not in schema '%s'", ownership.Span(v.Missing), schema)
	return nil
}

// shape is the check that a table has the layout sysbench's prepare gives
// it: the workload's dialect's, or another dialect's (tables sysbench 1.0
// prepared clean up under 0.5's command line, as they do with sysbench).
func (w *Workload) shape(t *ownership.Table) string {
	why := layout(w.cfg.dialect).Mismatch(t)
	if why == "" {
		return ""
	}
	other := dialect10
	if w.cfg.dialect == dialect10 {
		other = dialect05
	}
	if layout(other).Mismatch(t) == "" {
		return ""
	}
	return why
}

// layout is the layout sysbench's prepare gives a table in a dialect (§2):
// id, k, c, pad, NOT NULL, integers signed in 1.0 and unsigned in 0.4/0.5,
// a primary key on id (a plain key with --oltp-secondary / --secondary),
// and at most an index on k.
func layout(dialect string) ownership.Layout {
	integer := "int"
	if dialect != dialect10 {
		integer = "int unsigned"
	}
	return ownership.Layout{
		What: "sysbench " + dialect + "'s table",
		Columns: []ownership.Column{{Name: "id", Type: integer}, {Name: "k", Type: integer},
			{Name: "c", Type: "char(120)"}, {Name: "pad", Type: "char(60)"}},
		NotNull:    true,
		PrimaryKey: []string{"id"},
		KeyInstead: true,
		OtherIndex: func(ix ownership.Index) bool {
			return !ix.Unique && len(ix.Columns) == 1 && strings.EqualFold(ix.Columns[0], "k")
		},
	}
}

// SectionName is the name of the OLTP workloads' section in a --json
// benchmark.
const SectionName = "oltp"

// Section describes a sysbench OLTP benchmark in the --json document.
type Section struct {
	Dialect      string `json:"dialect"` // 1.0, 0.5 or 0.4
	Distribution string `json:"distribution"`
	Tables       int64  `json:"tables"`
	TableSize    int64  `json:"table_size"` // rows per table
}

// PointSection records in a --json benchmark at p what reading its
// figures needs: the dialect, the id distribution and the tables' size
// (report.PointSectioner).
func (w *Workload) PointSection(p workload.Point) (string, json.RawMessage, error) {
	return report.Marshal(SectionName, Section{Dialect: w.cfg.dialect, Distribution: w.cfg.dist.kind,
		Tables: int64(len(w.TableNames())), TableSize: w.tableSize(p.Scale)})
}

// IntervalLine is sysbench 1.0's live line with its 95th percentile
// (report.IntervalLiner).
func (w *Workload) IntervalLine(iv results.Interval, _ time.Duration) string {
	return IntervalLine(iv, 95)
}

// CompareMetric is what studies of the dialect compare on: transactions
// per second for sysbench 1.0, read/write requests per second for 0.4 and
// 0.5 (the column their studies tabulated).
func (w *Workload) CompareMetric() string {
	if w.cfg.dialect == dialect10 {
		return "tps"
	}
	return "rw-qps"
}
