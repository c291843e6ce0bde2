package mysqlslap

import (
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/goslap/goslap/internal/engine"
	"github.com/goslap/goslap/internal/getopt"
	"github.com/goslap/goslap/internal/mysqlconn"
)

// Extensions holds the options goslap adds to mysqlslap. They are long
// names only, matched by their full name, listed in their own --help section
// and must never collide with a MySQL or MariaDB mysqlslap option name
// (TestPrefixesSurviveExtraOptions and TestLoadOptionNames check this).
//
// To add one: add a field here and a row in loadOptions, e.g.
//
//	Seed    uint64 // --seed
//	{Name: "seed", Arg: getopt.RequiredArg, Var: getopt.VarUint64, Uint64: &ext.Seed, Help: "..."}
//
// For "--json[=FILE]" use Arg: getopt.OptionalArg with Var: getopt.VarString and
// a Hook that records that the option was given.
type Extensions struct {
	Sandbox SandboxOptions // --sandbox, --sandbox-option, --target, --plot
	Shard   ShardOptions   // --shard, --start-at, --late-start, --run-id

	// Latency (--latency) adds per-query latency, throughput and error
	// lines under each Benchmark block and columns after the CSV line.
	Latency bool
	// JSON (--json[=FILE]) writes one JSON document per invocation (every
	// target) to FILE, or to stdout (then the whole invocation is silent,
	// Config.Silent) for a bare --json or --json=-.
	JSON    string
	JSONSet bool
	// ShowProgress (--show-progress, on by default; --skip-show-progress)
	// draws a live line on stderr when stderr is a terminal and output is
	// not silent.
	ShowProgress bool
	// RunTime (--run-time=DURATION) runs each iteration for this long
	// instead of a query count (a count given explicitly with
	// --number-of-queries or --auto-generate-sql-execute-number still stops
	// a client earlier). 0 = off.
	RunTime time.Duration
	// WarmupTime (--warmup-time=DURATION) runs the load this long at the
	// start of every iteration before anything is measured; its queries
	// are excluded from every figure and from the query count.
	WarmupTime time.Duration
	// Rate (--rate=QPS) paces all clients together to this many queries per
	// second on a fixed schedule from the start of the load (open loop).
	// 0 = as fast as possible.
	Rate float64
	// IgnoreErrors (--ignore-errors=all|CODE,...) keeps clients going past
	// the listed server error codes (or all errors), counting them; broken
	// connections reconnect with back-off when their code (2013, 2006,
	// 1927) is listed or with "all".
	IgnoreErrors    string
	IgnoreAllErrors bool
	IgnoreCodes     map[uint16]bool
	// ExactCount (--exact-count) spreads --number-of-queries so that the
	// clients execute exactly that many in total.
	ExactCount bool
	// Templates (--templates) renders gofakeit placeholders ({firstname},
	// {number:1,1000}, ...) in --query, --create, --pre-query and
	// --post-query statements on every execution.
	Templates bool
	// Seed (--seed=N) seeds the template values and the primary-key
	// choices; without it a random seed is used (and reported in JSON).
	Seed    uint64
	SeedSet bool
	// ThreadBelow (--thread-per-client-below=N, ThreadBelowSet) runs
	// loads of fewer than N clients with an OS thread and a blocking socket
	// per client (mysqlconn.Threads); 0 = never. Unset (also
	// --skip-thread-per-client-below): mysqlconn's measured threshold.
	ThreadBelow    int
	ThreadBelowSet bool
	// ServerMetrics (--server-metrics, on by default;
	// --skip-server-metrics) samples the server's counters, CPU and IO
	// around every measured iteration on a connection of its own;
	// ServerPID (--server-pid=N) names the server's process when goslap
	// cannot find it; ServerReport (--server-report) prints the "Server:"
	// block under each result.
	ServerMetrics bool
	ServerPID     int
	ServerReport  bool
}

// loadOptions returns the option rows for goslap's own options, bound to ext.
func loadOptions(ext *Extensions) []*getopt.Option {
	ext.ShowProgress = true
	ext.ServerMetrics = true
	rows := []*getopt.Option{
		{Name: "server-metrics", Arg: getopt.NoArg, Var: getopt.VarBool, Bool: &ext.ServerMetrics,
			Help: "Sample the server's status counters, its process's CPU and IO and the host's CPU at the start and end " +
				"of every measured run and every second, on a connection of its own, with --server-report, --report-interval " +
				"or a comparison of targets; --json and --plot then carry the figures (on by default; --skip-server-metrics turns it off)."},
		{Name: "server-pid", Arg: getopt.RequiredArg, Var: getopt.VarNone,
			Help: "The server's process id on this host, for its CPU and IO figures when goslap cannot find it " +
				"(by its socket, its loopback port or its pid file).",
			Hook: func(s getopt.Setting) error {
				v, err := strconv.Atoi(strings.TrimSpace(s.Value))
				if err != nil || v < 1 {
					return Exitf(1, "--server-pid=%s: expected a process id", s.Value)
				}
				ext.ServerPID = v
				return nil
			},
			Off: func() error { ext.ServerPID = 0; return nil }},
		{Name: "server-report", Arg: getopt.NoArg, Var: getopt.VarBool, Bool: &ext.ServerReport,
			Help: "Print a short Server: block under each result: the server's CPU, disk reads and writes per " +
				"transaction (per query for mysqlslap's load), the host's CPU and the share goslap used."},
		{Name: "latency", Arg: getopt.NoArg, Var: getopt.VarBool, Bool: &ext.Latency,
			Help: "Measure every query: print p50/p95/p99/p99.9/max latency, queries per second, " +
				"executed queries, errors and the iteration time deviation under each Benchmark block, " +
				"and as extra columns after the seven CSV columns."},
		{Name: "json", Arg: getopt.OptionalArg, Var: getopt.VarString, String: &ext.JSON,
			Help: "Write the whole invocation as one JSON document (options, and every target's server, per-benchmark figures and " +
				"latency histograms) to the file named; to stdout (implying --silent) when no name or '-' is given.",
			Hook: func(s getopt.Setting) error {
				if s.HasValue && s.Value == "" {
					return Exitf(1, "--json= names no file; use --json or --json=- for stdout, or --json=FILE")
				}
				ext.JSONSet = true
				return nil
			},
			Off: func() error { ext.JSON, ext.JSONSet = "", false; return nil }},
		{Name: "show-progress", Arg: getopt.NoArg, Var: getopt.VarBool, Bool: &ext.ShowProgress,
			Help: "Show a live progress line on stderr when it is a terminal and output is not silent " +
				"(on by default; --skip-show-progress turns it off)."},
		{Name: "run-time", Arg: getopt.RequiredArg, Var: getopt.VarNone,
			Help: "Run each iteration for DURATION (30s, 2m, or seconds) instead of a number of queries.",
			Hook: durationHook("run-time", &ext.RunTime, false),
			Off:  func() error { ext.RunTime = 0; return nil }},
		{Name: "warmup-time", Arg: getopt.RequiredArg, Var: getopt.VarNone,
			Help: "Run the load for DURATION at the start of every iteration without measuring it.",
			Hook: durationHook("warmup-time", &ext.WarmupTime, true),
			Off:  func() error { ext.WarmupTime = 0; return nil }},
		{Name: "rate", Arg: getopt.RequiredArg, Var: getopt.VarNone,
			Help: "Hold QPS queries per second across all clients on a fixed schedule (open loop); " +
				"latency is also measured from each query's scheduled start.",
			Hook: func(s getopt.Setting) error {
				v, err := strconv.ParseFloat(strings.TrimSpace(s.Value), 64)
				if err != nil || v <= 0 || math.IsInf(v, 0) || math.IsNaN(v) {
					return Exitf(1, "--rate=%s: expected a number of queries per second greater than 0", s.Value)
				}
				ext.Rate = v
				return nil
			},
			Off: func() error { ext.Rate = 0; return nil }},
		{Name: "ignore-errors", Arg: getopt.RequiredArg, Var: getopt.VarNone,
			Help: "all|CODE,...: continue past these server error codes (or all errors), count them " +
				"per code and report them; with all, 2013, 2006 or 1927 a broken connection reconnects.",
			Hook: func(s getopt.Setting) error { return ext.setIgnoreErrors(s.Value) },
			Off: func() error {
				ext.IgnoreErrors, ext.IgnoreAllErrors, ext.IgnoreCodes = "", false, nil
				return nil
			}},
		{Name: "exact-count", Arg: getopt.NoArg, Var: getopt.VarBool, Bool: &ext.ExactCount,
			Help: "Spread --number-of-queries over the clients so that exactly that many run " +
				"(mysqlslap runs the quotient per client)."},
		{Name: "templates", Arg: getopt.NoArg, Var: getopt.VarBool, Bool: &ext.Templates,
			Help: "Render gofakeit placeholders such as {firstname}, {email}, {number:1,1000}, {uuid} " +
				"in --query, --create, --pre-query and --post-query, freshly and SQL-escaped for every execution."},
		{Name: "seed", Arg: getopt.RequiredArg, Var: getopt.VarNone,
			Help: "Seed for --templates values and primary-key choices, making runs reproducible.",
			Hook: func(s getopt.Setting) error {
				v, err := strconv.ParseUint(strings.TrimSpace(s.Value), 10, 64)
				if err != nil {
					return Exitf(1, "--seed=%s: expected a whole number", s.Value)
				}
				ext.Seed, ext.SeedSet = v, true
				return nil
			},
			Off: func() error { ext.Seed, ext.SeedSet = 0, false; return nil }},
		{Name: "thread-per-client-below", Arg: getopt.RequiredArg, Var: getopt.VarNone,
			Help: "Run a load of fewer than N clients with one OS thread and a blocking socket per client " +
				"(less CPU per query at low concurrency); at N clients or more, or with TLS or compression, " +
				"goroutines share the threads. 0: never. Default " +
				strconv.Itoa(mysqlconn.DefaultThreadBelow) + " (measured, BENCHMARKS.md); unset, a load of " +
				strconv.Itoa(engine.RingFrom) + " to " + strconv.Itoa(engine.RingBelow-1) +
				" clients sends its statements through io_uring where the kernel allows (GOSLAP_RING=0: never), " +
				"and setting N keeps it off.",
			Hook: func(s getopt.Setting) error {
				v, err := strconv.Atoi(strings.TrimSpace(s.Value))
				if err != nil || v < 0 {
					return Exitf(1, "--thread-per-client-below=%s: expected a whole number of clients", s.Value)
				}
				ext.ThreadBelow, ext.ThreadBelowSet = v, true
				return nil
			},
			Off: func() error { ext.ThreadBelow, ext.ThreadBelowSet = 0, false; return nil }},
	}
	rows = append(rows, shardOptions(&ext.Shard)...)
	return append(rows, sandboxOptions(&ext.Sandbox)...)
}

// durationHook parses Go durations ("30s", "1m30s") and plain seconds
// ("30", "2.5").
func durationHook(name string, dst *time.Duration, zeroOK bool) func(getopt.Setting) error {
	return func(s getopt.Setting) error {
		d, err := ParseDuration(s.Value)
		if err != nil || d < 0 || d == 0 && !zeroOK {
			return Exitf(1, "--%s=%s: expected a duration such as 30s, 2m or a number of seconds%s", name, s.Value,
				map[bool]string{true: "", false: " greater than 0"}[zeroOK])
		}
		*dst = d
		return nil
	}
}

// ParseDuration reads Go duration syntax or a plain number of seconds.
func ParseDuration(v string) (time.Duration, error) {
	v = strings.TrimSpace(v)
	if f, err := strconv.ParseFloat(v, 64); err == nil {
		if math.IsNaN(f) || math.IsInf(f, 0) || f > float64(math.MaxInt64)/float64(time.Second) {
			return 0, fmt.Errorf("bad duration %q", v)
		}
		return time.Duration(f * float64(time.Second)), nil
	}
	return time.ParseDuration(v)
}

func (ext *Extensions) setIgnoreErrors(v string) error {
	ext.IgnoreErrors = v
	ext.IgnoreAllErrors = false
	ext.IgnoreCodes = map[uint16]bool{}
	for _, f := range strings.Split(v, ",") {
		f = strings.TrimSpace(f)
		if strings.EqualFold(f, "all") {
			ext.IgnoreAllErrors = true
			continue
		}
		n, err := strconv.ParseUint(f, 10, 16)
		if err != nil || n == 0 {
			return Exitf(1, "--ignore-errors=%s: expected all or a comma-separated list of error codes (1146,1213)", v)
		}
		ext.IgnoreCodes[uint16(n)] = true
	}
	return nil
}

// Tolerates reports whether --ignore-errors covers code.
func (ext *Extensions) Tolerates(code uint16) bool {
	return ext.IgnoreAllErrors || ext.IgnoreCodes[code]
}

// threadBelow is --thread-per-client-below for mysqlconn.StartThreads
// (-1: its default).
func (ext *Extensions) threadBelow() int {
	if !ext.ThreadBelowSet {
		return -1
	}
	return ext.ThreadBelow
}

// TolerantErrors reports whether --ignore-errors was given.
func (ext *Extensions) TolerantErrors() bool {
	return ext.IgnoreAllErrors || len(ext.IgnoreCodes) > 0
}

// checkExtensions rejects combinations of goslap's own options that
// cannot work (a step of Validate).
func checkExtensions(o *Options) error {
	ext := &o.Ext
	if ext.ExactCount && o.NumberOfQueries == 0 {
		return Exitf(1, "--exact-count needs --number-of-queries")
	}
	if ext.ExactCount && o.ExecuteNumber != 0 {
		return Exitf(1, "--exact-count cannot be combined with --auto-generate-sql-execute-number (it sets the count per client)")
	}
	if ext.JSONSet && JSONToStdout(o) && o.CSVSet && (o.CSV == "" || strings.HasPrefix(o.CSV, "-")) {
		return Exitf(1, "--json and --csv cannot both write to stdout; give one of them a file name")
	}
	return nil
}

// JSONToStdout reports a bare --json or --json=-.
func JSONToStdout(o *Options) bool {
	return o.Ext.JSONSet && (o.Ext.JSON == "" || o.Ext.JSON == "-")
}
