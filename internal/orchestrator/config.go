// Package orchestrator drives every load goslap runs: it is the only
// caller of engine.Run. Its one loop (Loop) runs engines × table sizes ×
// concurrency × iterations on a connected target, telling observers as it
// goes; Run wraps it in the full matrix of a registered workload (OLTP,
// TPC-C, ...) from one validated configuration, as a DBA's study needs it:
//
//	Config ──Run──▶ per server-option value ▶ per target (target.Run: sandboxes, servers)
//	       ▶ Loop: per engine ▶ per table size: Setup (prepare) ▶ on-disk sizes
//	       ▶ per concurrency ▶ per iteration: engine.Run ▶ Observer
//	       ▶ Teardown (cleanup)  ──▶ side-by-side table and chart (internal/results/matrix, internal/chart)
//
// Front ends (internal/cli/mysqlslap's --workload, `goslap sysbench`)
// parse their options into a Config and hand it over; those that connect
// to their one server themselves (mysqlslap's load, sysbench's plain
// commands, tpcc-start) run a Loop with their reports as observers and
// their own knobs as hooks. This package never sees a command line. A
// phase (prepare, run, cleanup) runs one part of the matrix alone, as
// sysbench's commands do.
package orchestrator

import (
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/go-sql-driver/mysql"

	"github.com/goslap/goslap/internal/chart"
	"github.com/goslap/goslap/internal/sandbox"
	"github.com/goslap/goslap/internal/target"
	"github.com/goslap/goslap/internal/workload"
)

// Phase is which part of a study runs.
type Phase string

const (
	PhaseAll     Phase = ""        // prepare, run the matrix, clean up (unless NoDrop)
	PhasePrepare Phase = "prepare" // create and load the tables, report their size
	PhaseRun     Phase = "run"     // run the matrix on tables prepared before
	PhaseCleanup Phase = "cleanup" // drop the workload's tables
	PhaseCheck   Phase = "check"   // verify the prepared data (TPC-C's consistency conditions)
)

// ParsePhase reads a trailing command word; "" is PhaseAll.
func ParsePhase(word string) (Phase, error) {
	switch Phase(word) {
	case PhaseAll, PhasePrepare, PhaseRun, PhaseCleanup, PhaseCheck:
		return Phase(word), nil
	}
	return "", fmt.Errorf("unknown command '%s': use prepare, run, check or cleanup (or none for prepare, run and cleanup)", word)
}

// Engine is one entry of the engine list: a storage engine and the table
// options written after it in CREATE TABLE.
type Engine struct {
	Name    string // "" for the server's default engine
	Options string // "ROW_FORMAT=COMPRESSED KEY_BLOCK_SIZE=8"
}

// Label is the engine as the user wrote it.
func (e Engine) Label() string {
	if e.Options == "" {
		return e.Name
	}
	return e.Name + ":" + e.Options
}

// ParseEngines reads an engine list, mysqlslap's -e syntax:
// "innodb,myisam:ROW_FORMAT=FIXED". "" gives no entry (the default engine).
func ParseEngines(list string) ([]Engine, error) {
	if strings.TrimSpace(list) == "" {
		return nil, nil
	}
	var out []Engine
	for _, f := range strings.Split(list, ",") {
		name, opts, _ := strings.Cut(f, ":")
		name, opts = strings.TrimSpace(name), strings.TrimSpace(opts)
		if name == "" || strings.ContainsAny(name, " `'\";") {
			return nil, fmt.Errorf("invalid engine '%s' in '%s': want ENGINE[:TABLE OPTIONS],...", f, list)
		}
		if strings.ContainsAny(opts, ";") {
			return nil, fmt.Errorf("invalid table options '%s' for engine %s", opts, name)
		}
		out = append(out, Engine{Name: name, Options: opts})
	}
	return out, nil
}

// ParseClients reads a concurrency list ("1,8,64").
func ParseClients(list string) ([]int, error) {
	var out []int
	for _, f := range strings.Split(list, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(f))
		if err != nil || n < 1 || n > 100000 {
			return nil, fmt.Errorf("invalid concurrency '%s' in '%s': want whole numbers from 1", f, list)
		}
		out = append(out, n)
	}
	return out, nil
}

// ServerSweep is the server-option axis: one server option set to each of
// Values in turn, on every sandbox target.
type ServerSweep struct {
	Name   string
	Values []string
}

// Active reports whether a server option is swept.
func (s ServerSweep) Active() bool { return s.Name != "" }

// ParseServerSweep reads NAME=V1,V2,...
func ParseServerSweep(v string) (ServerSweep, error) {
	name, vals, ok := strings.Cut(v, "=")
	name = strings.TrimSpace(strings.TrimPrefix(name, "--"))
	bad := func() (ServerSweep, error) {
		return ServerSweep{}, fmt.Errorf("invalid server-option sweep '%s': want NAME=VALUE,VALUE,... (innodb_buffer_pool_size=64M,128M)", v)
	}
	if !ok || name == "" || strings.ContainsAny(name, " =,") {
		return bad()
	}
	s := ServerSweep{Name: name}
	for _, f := range strings.Split(vals, ",") {
		f = strings.TrimSpace(f)
		if f == "" {
			return bad()
		}
		s.Values = append(s.Values, f)
	}
	if err := s.check(); err != nil {
		return ServerSweep{}, err
	}
	return s, nil
}

// check applies the sandbox confinement rule (sandbox.CheckOption) to
// every setting of the sweep.
func (s ServerSweep) check() error {
	for _, v := range s.Values {
		if err := sandbox.CheckOption(s.Name + "=" + v); err != nil {
			return fmt.Errorf("--sweep-server-option=%s=%s: %w", s.Name, strings.Join(s.Values, ","), err)
		}
	}
	return nil
}

// Config is one validated study: what to run, where, and how to report.
type Config struct {
	// Workload is the registered name; Settings its filled options (Build
	// is called once per target, so each target starts with fresh state).
	Workload string
	Settings workload.Settings
	Common   workload.Common

	Phase  Phase
	NoDrop bool // keep the tables after a full run

	Engines []Engine // nil: the workload's or server's default engine
	// Scales are the table sizes (workload.Point.Scale) swept, one prepare
	// each; nil runs the workload's own size. ScaleName labels them
	// ("table size", "warehouses").
	Scales     []int64
	ScaleName  string
	Clients    []int // concurrency levels, at least one
	Iterations int   // >= 1
	Server     ServerSweep
	// Rounds runs the whole matrix this many times with the sides (the
	// targets and the server-option values) interleaved at every point
	// (verdict.Order), every side up at once; 0 or 1: one round, each
	// side in turn.
	Rounds int
	// InTurn starts the sides of the rounds one at a time within each
	// round (RoundsPlan.InTurn), for servers that cannot all be up at once.
	InTurn bool
	// Metric is the throughput the verdicts compare ("" = the workload's,
	// workload.CompareMetric; tps, qps, rw-qps, tpmc, or pNN); Percentile
	// the latency percentile compared beside it (0 = DefaultPercentile).
	Metric     string
	Percentile float64

	// Limits of every iteration (engine.Plan).
	Duration time.Duration
	Events   uint64
	Warmup   time.Duration
	Rate     float64
	Ignore   func(code uint16) bool
	// ReportInterval, with OnInterval in the Observer, prints live lines.
	ReportInterval time.Duration

	// Targets are the servers and sandboxes to run on, one after another;
	// empty means the one server of Base.
	Targets        []target.Target
	DefaultBinary  string   // sandbox targets that name no binary
	SandboxOptions []string // server options of every sandbox
	TempDir        string   // parent of sandbox directories ("" = system default)
	Base           target.Endpoint
	// Driver returns the driver configuration for an endpoint and schema
	// ("" = none): the front end's connection options (TLS, auth,
	// compression) applied to where the target is.
	Driver func(ep target.Endpoint, schema string) (*mysql.Config, error)
	// InitCommand is run on every client connection and reconnection
	// (mysqlslap's --init-command; "" = none). The preparing and
	// cleaning connections do not run it, as mysqlslap's main one does not.
	InitCommand string

	Observer Observer

	// Shard, when set, makes the study one shard of a split run (shard.go).
	Shard *Sharding
	// ReadServers records each target's version and variables in
	// Result.Servers (for the --json document).
	ReadServers bool
	// Plot, when set, is the chart file written at the end.
	Plot string
	// ServerMetrics samples every target's server around each measured
	// iteration (metrics.go): Off turns it off, PID names an existing
	// server's process; Driver, Found, Unit and Interval are filled per
	// target (a sandbox's pid, the kept interval). Its Warn defaults to
	// Observer.Log.
	ServerMetrics Metrics
	// Table prints the side-by-side comparison at the end even with one
	// target (the front end's choice; several targets or a server-option
	// sweep always print it).
	Table bool
}

// axis is what the chart's x axis shows.
func (c *Config) axis() chart.Axis {
	switch {
	case c.Server.Active():
		return chart.AxisSetting
	case len(c.Scales) > 1:
		return chart.AxisSize
	}
	return chart.AxisConcurrency
}

// Check validates the combination (Run calls it first); front ends call it
// before printing anything about the run.
func (c *Config) Check() error {
	if err := c.checkSharding(); err != nil {
		return err
	}
	switch {
	case c.Settings == nil || c.Workload == "":
		return fmt.Errorf("no workload")
	case c.Driver == nil:
		return fmt.Errorf("no connection settings")
	case len(c.Clients) == 0:
		return fmt.Errorf("no concurrency level")
	case c.Iterations < 1:
		return fmt.Errorf("--iterations must be at least 1")
	}
	if c.Rounds > 1 {
		switch {
		case c.Phase != PhaseAll && c.Phase != PhaseRun:
			return fmt.Errorf("--rounds=%d interleaves measured runs: the %s command measures nothing", c.Rounds, c.Phase)
		case c.Shard != nil:
			return fmt.Errorf("--rounds=%d cannot be sharded: rounds pair the sides of a comparison (targets, swept server-option values) and a sharded run measures one server; run the rounds in one process", c.Rounds)
		}
	}
	if c.InTurn && c.Rounds < 2 {
		return fmt.Errorf("--sides-in-turn starts the sides one at a time within each round: it needs --rounds=N (N >= 2)")
	}
	if c.Rounds < 0 || c.Rounds > 1000 {
		return fmt.Errorf("--rounds must be from 1 to 1000")
	}
	if c.NoDrop && c.Phase == PhaseAll && (len(c.Engines) > 1 || len(c.Scales) > 1) {
		return fmt.Errorf("--no-drop keeps the tables, so a sweep over engines or table sizes could not prepare its next point: sweep without --no-drop, or prepare one point")
	}
	if c.Phase != PhaseAll {
		if len(c.Engines) > 1 || len(c.Scales) > 1 {
			return fmt.Errorf("the %s command works on one set of tables: give one engine and one table size (a sweep runs prepare, run and cleanup in one command)", c.Phase)
		}
		if c.Server.Active() || c.hasSandbox() {
			return fmt.Errorf("the %s command needs tables that outlive the command: sandboxes and --sweep-server-option run prepare, run and cleanup in one command", c.Phase)
		}
	}
	// The sandbox confinement rule, for every sandbox before any starts
	// (front ends check it as they parse; a Config built otherwise is
	// checked here).
	for _, t := range c.Targets {
		if err := target.CheckSandboxOptions(c.SandboxOptions, t); err != nil {
			return fmt.Errorf("target %s: %w", t.Label, err)
		}
	}
	if c.Server.Active() {
		if err := c.Server.check(); err != nil {
			return err
		}
		if len(c.Targets) == 0 {
			return fmt.Errorf("--sweep-server-option=%s sets a server option at start-up: it needs sandbox targets (--sandbox or --target=LABEL:sandbox)", c.Server.Name)
		}
		for _, t := range c.Targets {
			if t.Kind != target.Sandbox {
				return fmt.Errorf("--sweep-server-option=%s needs sandbox targets: target %s is an existing server, whose options goslap does not change", c.Server.Name, t.Label)
			}
			for _, o := range t.ServerOptions {
				if n, _, _ := strings.Cut(o, "="); normalize(n) == normalize(c.Server.Name) {
					return fmt.Errorf("target %s sets %s itself, which --sweep-server-option sweeps", t.Label, c.Server.Name)
				}
			}
		}
	}
	if c.Events == 0 && c.Duration <= 0 && (c.Phase == PhaseAll || c.Phase == PhaseRun) {
		return fmt.Errorf("nothing would end a run: give a run time or an event limit")
	}
	return nil
}

func (c *Config) hasSandbox() bool {
	for _, t := range c.Targets {
		if t.Kind == target.Sandbox {
			return true
		}
	}
	return false
}

// normalize is the server's option-name equivalence of '-' and '_'.
func normalize(n string) string {
	return strings.ToLower(strings.ReplaceAll(strings.TrimSpace(n), "-", "_"))
}
