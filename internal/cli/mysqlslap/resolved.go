package mysqlslap

// What Validate resolves from the options, so that nothing after it reads
// them: the connection (driverconfig.go), what a run writes (Outputs),
// how its loads are bounded (Limits), the script of mysqlslap's load
// (Config.Script) and the targets' settings (Config.Sandbox).

import (
	"maps"
	"time"
)

// Outputs is what a run writes and where.
type Outputs struct {
	Verbose   int  // --verbose
	DebugInfo bool // --debug-info: the resource line at a normal end
	// ShowProgress is --show-progress (progressTerminal adds its other
	// conditions).
	ShowProgress bool
	Latency      bool // --latency
	// JSON is --json; JSONFile is its file, "" for stdout.
	JSON     bool
	JSONFile string
	// CSVStdout is a bare --csv: the CSV lines go to stdout.
	CSVStdout bool
	Plot      string // --plot, "" for none
	// ServerReport is --server-report; ServerMetrics --server-metrics
	// (the sampling the report reads) and ServerPID --server-pid.
	ServerReport  bool
	ServerMetrics bool
	ServerPID     int
	// ReportInterval is --report-interval as given (a --workload run's
	// document records it).
	ReportInterval string
}

// jsonToStdout reports a document on stdout (a bare --json or --json=-).
func (out Outputs) jsonToStdout() bool { return out.JSON && out.JSONFile == "" }

// stdoutIsData reports a stdout that carries data (CSV lines or the
// document), where no comparison table may go.
func (out Outputs) stdoutIsData() bool { return out.CSVStdout || out.jsonToStdout() }

// Limits bound the loads of mysqlslap's run.
type Limits struct {
	Duration time.Duration // --run-time (0: a query count)
	Warmup   time.Duration // --warmup-time
	Rate     float64       // --rate (0: unpaced)
	// Seed is --seed, or one drawn for the invocation (derived from the
	// options on a shard, so that every shard draws the same).
	Seed uint64
	// Ignore is --ignore-errors (nil without: the first error stops).
	Ignore func(code uint16) bool
	// ThreadBelow is --thread-per-client-below (nil: mysqlconn's
	// measured threshold).
	ThreadBelow *int
	// TimeBound: clients run until Duration rather than a per-client
	// count (timeBound).
	TimeBound bool
}

// Targets' settings of a --sandbox or --target run.
type SandboxPlan struct {
	// Binary is --sandbox's server binary ("" for the default);
	// ServerOptions --sandbox-option.
	Binary        string
	ServerOptions []string
	// Compare: --target lists the sides of a comparison (labels in the
	// lines and errors, the side-by-side table); --sandbox alone runs its
	// one sandbox.
	Compare bool
}

// resolve fills, before the rest of Validate, what c's later stages read
// from o and the password prompt cannot change; resolveRun the rest.
func (c *Config) resolve(o *Options) {
	c.Outputs = Outputs{Verbose: o.Verbose, DebugInfo: o.DebugInfo, ShowProgress: o.Ext.ShowProgress, Latency: o.Ext.Latency,
		JSON: o.Ext.JSONSet, CSVStdout: o.CSVSet && o.CSV == "", Plot: o.Ext.Sandbox.Plot,
		ServerReport: o.Ext.ServerReport, ServerMetrics: o.Ext.ServerMetrics, ServerPID: o.Ext.ServerPID, ReportInterval: o.workload.ReportInterval}
	if c.Outputs.JSON && !JSONToStdout(o) {
		c.Outputs.JSONFile = o.Ext.JSON
	}
	c.Limits = Limits{Duration: o.Ext.RunTime, Warmup: o.Ext.WarmupTime, Rate: o.Ext.Rate, Seed: runSeed(o), TimeBound: timeBound(o)}
	if o.Ext.TolerantErrors() {
		ext := o.Ext
		c.Limits.Ignore = ext.Tolerates
	}
	if o.Ext.ThreadBelowSet {
		below := o.Ext.ThreadBelow
		c.Limits.ThreadBelow = &below
	}
	c.Sandbox = SandboxPlan{Binary: o.Ext.Sandbox.Sandbox, ServerOptions: o.Ext.Sandbox.ServerOptions, Compare: len(o.Ext.Sandbox.Targets) > 0}
	c.OnlyPrint, c.AllowDropExisting = o.OnlyPrint, o.AllowDropExistingSchema
	if !o.AutoGenerateSQL && !o.CreateSet {
		c.QueryOnlySchema = o.CreateSchema
	}
}

// resolveRun is Validate's last step: the connection, with the password
// the prompt gave, and the script of the plan.
func (c *Config) resolveRun(o *Options) {
	c.Connection = connectionOf(o)
	if c.Plan != nil {
		c.Script = scriptConfig(o, c.Plan, c.Limits.Seed)
	}
}

// options is a copy of the document's record of the options (the
// documents add their own entries).
func (c *Config) options() map[string]any {
	if c.OptionRecord == nil { // Options not made by ParseCommandLine record none
		return map[string]any{}
	}
	return maps.Clone(c.OptionRecord)
}
