// Package workload is the contract between the front ends, the engine and
// the workloads (mysqlslap, OLTP, TPC-C, ...), and the registry that names
// them.
//
//	front end ──Settings.Build──▶ Workload ──Load──▶ Client.Next (engine's hot loop)
//
// A workload is a package that calls Register in its init function; the
// binary blank-imports it once. The engine drives a Workload through its
// phases and never sees a command line; a workload never prints: it returns
// errors and counts, and reporters render them.
package workload

import (
	"context"
	"fmt"
	"sort"
	"sync"

	"github.com/goslap/goslap/internal/getopt"
	"github.com/goslap/goslap/internal/mysqlconn"
)

// Meta describes a registered workload.
type Meta struct {
	// Name is what --workload=NAME selects.
	Name string
	// Summary is one line for --help.
	Summary string
	// Group names the settings shared by several workloads (all sysbench
	// OLTP tests share "oltp"); the group's options are listed once.
	// Empty means the workload's own Name.
	Group string
	// NewSettings returns the workload's settings with their defaults.
	NewSettings func() Settings
}

// Settings are a workload's own options, filled by a front end.
type Settings interface {
	// Options returns the option rows bound to this value: long names,
	// matched in full (getopt.Option.ExactOnly), that must not clash with a
	// mysqlslap option or another group's option.
	Options() []*getopt.Option
	// Build validates the settings for the workload named and returns it.
	Build(name string, common Common) (Workload, error)
}

// Common is what every workload takes from the validated configuration.
type Common struct {
	Schema string // the schema the workload works in
	Seed   uint64 // run-time randomness (keys, values); same seed, same statements
	// Verbose >= 1 lets a workload describe its phases through Session.Log.
	Verbose int
}

// Point is one cell of the benchmark matrix: its data is set up once
// (Setup) and measured over one or more iterations.
type Point struct {
	Engine        string // storage engine for CREATE TABLE, "" for the server default
	EngineOptions string // table options after the engine ("ROW_FORMAT=COMPRESSED KEY_BLOCK_SIZE=8")
	Clients       int    // concurrency
	Scale         int64  // workload-defined size axis (OLTP rows per table, TPC-C warehouses); 0 = default
}

// Iteration is one measured run of a Point.
type Iteration struct {
	Point
	Number int // 1-based
}

// Session is what a workload gets for its untimed phases.
type Session struct {
	Main *mysqlconn.Conn
	// Connect opens another connection to the same server and schema (for
	// a parallel prefill); the caller closes it.
	Connect func() (*mysqlconn.Conn, error)
	// Log prints a progress message (Verbose >= 1) and Progress reports a
	// long phase's advance (rows done of total) for a progress line; both
	// may be no-ops.
	Log      func(format string, args ...any)
	Progress func(phase string, done, total int64)
	// Say reports, on the front end's main output, what a workload does
	// to the server's tables beyond loading them: each table it drops
	// ("Dropping table 'sbtest1'...", as sysbench says it) and what an
	// interrupted prepare left. nil falls back to Log.
	Say func(format string, args ...any)
}

// Sayf reports a drop through Say (or Log without it).
func (s *Session) Sayf(format string, args ...any) {
	switch {
	case s.Say != nil:
		s.Say(format, args...)
	case s.Log != nil:
		s.Log(format, args...)
	}
}

// Workload is a run script.
type Workload interface {
	// Ops names the measured units a client's Next can report (index = op
	// id): per-op latency histograms and counts are kept by these ids.
	Ops() []string
	// Setup prepares a Point's data (untimed) before its first iteration.
	Setup(ctx context.Context, s *Session, p Point) error
	// BeginIteration and EndIteration run on the main connection around
	// each iteration's load (mysqlslap recreates its schema here).
	BeginIteration(ctx context.Context, s *Session, it Iteration) error
	EndIteration(ctx context.Context, s *Session, it Iteration) error
	// Load builds the per-client state of one iteration before the clock
	// starts: statements, key lists, random sources.
	Load(it Iteration) (Load, error)
	// Teardown undoes Setup (unless the user keeps the data); it also runs
	// after a failure or an interrupt, on a fresh connection if needed.
	Teardown(ctx context.Context, s *Session, p Point) error
}

// Load is one iteration's set of clients.
type Load interface {
	// Client returns the state of the client with the given global id
	// (0-based across all shards of a run; random streams key on it).
	Client(id int) Client
}

// Client is one simulated client. The engine calls Begin after every
// (re)connect, then Next until its limit, deadline or stop, then End; all
// on the client's own goroutine, never concurrently.
type Client interface {
	// Begin runs untimed after each (re)connect: prepared statements,
	// session settings.
	Begin(c *mysqlconn.Conn) error
	// Next performs one measured unit (a query, a transaction) and says
	// what it was. On an error it leaves the connection usable (a failed
	// transaction rolled back) unless the connection broke.
	Next(c *mysqlconn.Conn) (Step, error)
	// End runs untimed once at the end; Tally's counts are final then.
	End(c *mysqlconn.Conn) error
	// Tally returns the client's statement counts (read after End).
	Tally() Tally
}

// Step is what one Next did.
type Step struct {
	Op int // index into Ops
	// Reconnect asks the engine for a fresh connection before the next
	// step (mysqlslap's --detach).
	Reconnect bool
}

// Tally counts statements by kind, as sysbench's report does. A client
// keeps its own and the engine sums them after the load.
type Tally struct {
	Reads, Writes, Other uint64 // statements: SELECT; INSERT/UPDATE/DELETE; BEGIN/COMMIT/other
	Retries              uint64 // units restarted after an ignorable error
	Rollbacks            uint64 // transactions deliberately rolled back (TPC-C's 1 % New-Orders)
}

// Add adds o to t.
func (t *Tally) Add(o Tally) {
	t.Reads += o.Reads
	t.Writes += o.Writes
	t.Other += o.Other
	t.Retries += o.Retries
	t.Rollbacks += o.Rollbacks
}

var (
	mu       sync.Mutex
	registry = map[string]Meta{}
)

// Register adds a workload; it panics on a duplicate or empty name, which
// is a programming error caught by every test run.
func Register(m Meta) {
	mu.Lock()
	defer mu.Unlock()
	if m.Name == "" || m.NewSettings == nil {
		panic("workload: Register needs a Name and NewSettings")
	}
	if _, dup := registry[m.Name]; dup {
		panic("workload: " + m.Name + " registered twice")
	}
	if m.Group == "" {
		m.Group = m.Name
	}
	registry[m.Name] = m
}

// Lookup returns the workload registered under name.
func Lookup(name string) (Meta, error) {
	mu.Lock()
	defer mu.Unlock()
	m, ok := registry[name]
	if !ok {
		return Meta{}, fmt.Errorf("unknown workload '%s' (workloads: %s)", name, joinNames())
	}
	return m, nil
}

// All returns every registered workload, sorted by name.
func All() []Meta {
	mu.Lock()
	defer mu.Unlock()
	out := make([]Meta, 0, len(registry))
	for _, m := range registry {
		out = append(out, m)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}

func joinNames() string {
	names := make([]string, 0, len(registry))
	for n := range registry {
		names = append(names, n)
	}
	sort.Strings(names)
	s := ""
	for i, n := range names {
		if i > 0 {
			s += ", "
		}
		s += n
	}
	return s
}

// Metric names the figure a workload's studies compare on: "tps"
// (transactions per second), "qps" (statements per second), "rw-qps"
// (read and write statements per second, what sysbench 0.4/0.5 studies
// tabulated) or "tpmc" (TPC-C's New-Orders per minute). A workload without
// the Comparer capability compares on "tps".
type Comparer interface {
	CompareMetric() string
}

// CompareMetric is w's comparison metric (Comparer), "tps" by default.
func CompareMetric(w Workload) string {
	if c, ok := w.(Comparer); ok {
		return c.CompareMetric()
	}
	return "tps"
}
