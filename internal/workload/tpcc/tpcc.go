// Package tpcc is TPC-C as tpcc-mysql runs it (see /work/shared/tpcc-spec.md):
// its nine tables with their secondary indexes and foreign keys added after
// the load, its data rules (including its deviations from the TPC-C
// specification, such as 50 % bad credit), its five transactions statement
// by statement, the shared 10/10/1/1/1 deck, a random warehouse per
// transaction, the 1 % rolled-back New-Orders, retries up to 2000 per
// transaction, the consistency check and the tpmC report.
//
// Where it does better than tpcc-mysql, by design: the load is parallel and
// batched (LOAD DATA LOCAL INFILE streams, or multi-row INSERTs where the
// server refuses LOCAL, over several connections), and latencies are
// elapsed time in the engine's µs histograms, one per transaction type.
package tpcc

import (
	"context"
	"errors"
	"fmt"
	"runtime"
	"time"

	"github.com/goslap/goslap/internal/getopt"
	"github.com/goslap/goslap/internal/ownership"
	"github.com/goslap/goslap/internal/workload"
)

// Name is what --workload=tpcc selects.
const Name = "tpcc"

// Transaction types, in tpcc-mysql's order (its [0]..[4] report rows).
const (
	NewOrder = iota
	Payment
	OrderStatus
	Delivery
	StockLevel
	numTx
)

// OpNames are the measured units: one per transaction type.
var OpNames = []string{"New-Order", "Payment", "Order-Status", "Delivery", "Stock-Level"}

func init() {
	workload.Register(workload.Meta{
		Name:        Name,
		Summary:     "TPC-C as tpcc-mysql runs it (tpmC, mix and consistency check)",
		NewSettings: func() workload.Settings { return NewSettings() },
	})
}

// Settings are TPC-C's options.
type Settings struct {
	Warehouses uint32
	// Indexes adds tpcc-mysql's four secondary indexes after the load;
	// ForeignKeys its ten foreign keys (add_fkey_idx.sql).
	Indexes     bool
	ForeignKeys bool
	// LoadConnections is the number of connections the load uses (0: the
	// point's client count, or twice the CPUs when that is 0 too).
	LoadConnections uint32
}

// NewSettings returns the defaults: one warehouse, indexes and foreign keys.
func NewSettings() *Settings {
	return &Settings{Warehouses: 1, Indexes: true, ForeignKeys: true}
}

// Options are the settings' option rows; names start with "tpcc-" or are
// "warehouses", none of which is a mysqlslap option or prefix of one.
func (s *Settings) Options() []*getopt.Option {
	return []*getopt.Option{
		{Name: "warehouses", Arg: getopt.RequiredArg, Var: getopt.VarUint32, Uint32: &s.Warehouses, ExactOnly: true,
			Help: "TPC-C: number of warehouses (tpcc-mysql's -w); about 100 MB and 500,000 rows each."},
		{Name: "tpcc-indexes", Arg: getopt.NoArg, Var: getopt.VarBool, Bool: &s.Indexes, ExactOnly: true,
			Help: "TPC-C: add tpcc-mysql's secondary indexes after the load (default on; --skip-tpcc-indexes)."},
		{Name: "tpcc-foreign-keys", Arg: getopt.NoArg, Var: getopt.VarBool, Bool: &s.ForeignKeys, ExactOnly: true,
			Help: "TPC-C: add tpcc-mysql's ten foreign keys after the load (default on; --skip-tpcc-foreign-keys)."},
		{Name: "tpcc-load-connections", Arg: getopt.RequiredArg, Var: getopt.VarUint32, Uint32: &s.LoadConnections, ExactOnly: true,
			Help: "TPC-C: connections the parallel load uses (default: --concurrency, or twice the CPUs)."},
	}
}

// ErrWarehouses is returned by Build for --warehouses=0.
var ErrWarehouses = errors.New("--warehouses must be at least 1")

// MaxWarehouses keeps w_id within tpcc-mysql's smallint column.
const MaxWarehouses = 32767

// Build validates the settings and returns the workload.
func (s *Settings) Build(name string, common workload.Common) (workload.Workload, error) {
	if name != Name {
		return nil, fmt.Errorf("tpcc: cannot build workload '%s'", name)
	}
	if s.Warehouses == 0 {
		return nil, ErrWarehouses
	}
	if s.Warehouses > MaxWarehouses {
		// Not the value: a number past the option's type (1T) arrives
		// clamped to 4294967295, which the user never typed.
		return nil, fmt.Errorf("--warehouses must be at most %d (tpcc-mysql's w_id is a smallint)", MaxWarehouses)
	}
	return &Workload{settings: *s, common: common}, nil
}

// Workload is TPC-C for one configuration.
type Workload struct {
	settings Settings
	common   workload.Common
	last     *load // the most recent Load, for Counts
	lastLoad LoadStats
	// setupRan says this process ran Setup: Teardown then drops only what
	// Setup created (created, this invocation's ledger); setupDone says
	// Setup finished.
	setupRan, setupDone bool
	created             ownership.Ledger
}

// Ops returns the five transaction names.
func (w *Workload) Ops() []string { return OpNames }

// warehouses is the point's scale, or --warehouses when the point has none.
func (w *Workload) warehouses(p workload.Point) int {
	if p.Scale > 0 {
		return int(p.Scale)
	}
	return int(w.settings.Warehouses)
}

func (w *Workload) loadConnections(p workload.Point) int {
	switch {
	case w.settings.LoadConnections > 0:
		return int(w.settings.LoadConnections)
	case p.Clients > 0:
		return p.Clients
	}
	return 2 * runtime.NumCPU()
}

// BeginIteration checks that the run's tables are TPC-C's (a run phase
// works on tables prepared before: a shop's customer and orders are not
// run on) and, for a run labelled with an engine, of that engine. TPC-C's
// data lives across iterations.
func (w *Workload) BeginIteration(ctx context.Context, s *workload.Session, it workload.Iteration) error {
	v, err := ownership.Claim(s.Main, w.schemaName(s.Main), Tables, w.created.Has, Shape, "not used")
	if err != nil {
		return err
	}
	return v.CheckEngine(it.Engine)
}

// EndIteration does nothing.
func (w *Workload) EndIteration(ctx context.Context, s *workload.Session, it workload.Iteration) error {
	return nil
}

// Load builds the clients of one iteration.
func (w *Workload) Load(it workload.Iteration) (workload.Load, error) {
	l := newLoad(w.warehouses(it.Point), w.common.Seed)
	w.last = l
	return l, nil
}

// Counts returns the retries and failures per transaction type of the
// most recent Load, summed over its clients (read after the clients' End).
func (w *Workload) Counts() Counts {
	if w.last == nil {
		return Counts{}
	}
	return w.last.counts(time.Time{}, time.Time{})
}

// CountsBetween is Counts restricted to the retries and failures that
// happened between from and to (a run's measured window, Benchmark.Start
// and End: tpcc-mysql counts only while counting_on).
func (w *Workload) CountsBetween(from, to time.Time) Counts {
	if w.last == nil {
		return Counts{}
	}
	return w.last.counts(from, to)
}

// CompareMetric: TPC-C studies compare tpmC.
func (w *Workload) CompareMetric() string { return "tpmc" }
