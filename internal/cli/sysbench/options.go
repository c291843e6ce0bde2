// Package sysbench is goslap's sysbench front end: `goslap sysbench ARGS…
// [prepare|run|cleanup|help]` takes the command lines written for sysbench
// 0.4, 0.5 and 1.0, runs them with goslap's OLTP workloads and prints
// sysbench's report layout, so scripts that parse it keep working.
//
//	argv ──Parse──▶ Config ──resolve──▶ workload Settings (getopt rows) ──▶ engine ──▶ report
//
// The front end knows sysbench's spellings, dialects, stopping defaults and
// report layouts; everything a workload does (SQL, data, distributions) is
// behind the workload's Settings, which the front end only fills through the
// workload's own option rows, translated to sysbench 1.0 names.
package sysbench

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/goslap/goslap/internal/getopt"
	"github.com/goslap/goslap/internal/orchestrator"
	"github.com/goslap/goslap/internal/outpath"
	"github.com/goslap/goslap/internal/workload"
	"github.com/goslap/goslap/internal/workload/luascript"
	"github.com/goslap/goslap/internal/workload/oltp"
)

// Dialect is the sysbench version whose behaviour and report are reproduced.
type Dialect string

const (
	Dialect10 Dialect = "1.0"
	Dialect05 Dialect = "0.5"
	Dialect04 Dialect = "0.4"
)

// Assignment is one workload option as the user wrote it, with the sysbench
// 1.0 name it maps to.
type Assignment struct {
	Word     string // the word as given ("--oltp-table-size=1000")
	Name     string // 1.0 name, '-'-separated ("table-size")
	Value    string
	HasValue bool
	// From is where a --config-file line came from (nil on the command
	// line): errors name it instead of repeating the line.
	From *Origin
}

// Origin is a --config-file line's place. A message about the line says
// the file and line number, never the text: the file may hold a password.
type Origin struct {
	File string
	Line int
}

// lineError is err as said of a --config-file line: the place, and the
// option's name when the name is one goslap knows (an invalid value), but
// never the line's text.
func (o *Origin) lineError(err error) error {
	if o == nil || err == nil {
		return err
	}
	what := "not an option goslap sysbench knows, or a value it cannot take"
	stdout := true
	var pe *ParseError
	if errors.As(err, &pe) {
		stdout = pe.Stdout
		if pe.option != "" {
			what = "invalid value for --" + pe.option
		}
	}
	return &ParseError{Msg: fmt.Sprintf("FATAL: --config-file '%s', line %d: %s (the line is not shown: the file may hold a password)",
		o.File, o.Line, what), Stdout: stdout}
}

// MySQL holds the --mysql-* connection options.
type MySQL struct {
	Hosts       []string
	Ports       []int
	Sockets     []string
	User        string
	Password    string
	DB          string
	SSL         bool
	SSLCipher   string
	Compression bool
	// IgnoreErrors lists the error numbers that restart an event;
	// IgnoreAll is "all".
	IgnoreErrors []uint16
	IgnoreAll    bool
	Debug        bool
	DryRun       bool
	// hostSet etc. tell an explicit empty value from a default.
	socketSet bool
}

// Config is a parsed sysbench command line.
type Config struct {
	Dialect Dialect
	Forced  bool   // --sysbench-compat given
	Test    string // the test as written (positional or --test)
	TestBy  string // "positional" or "--test"
	// Script is the Lua file the interpreter runs (workload
	// luascript.Name); "" when a built-in workload runs.
	Script string
	// Workload is the registered goslap workload the test maps to.
	Workload string
	Command  string // prepare, run, cleanup, help, warmup; "" when none

	Threads        int
	ThreadList     []int // --threads=1,2,4 (a sweep); nil for one value
	Events         uint64
	EventsSet      bool
	Time           uint64 // seconds
	TimeSet        bool
	Rate           uint64
	ReportInterval uint64
	Percentile     int
	Seed           uint64
	SeedSet        bool
	// InitRNG is 0.4's --init-rng / 0.5's --rand-init on; SeedRNG the
	// --seed-rng / --rand-seed given (0: none). The 0.4/0.5 header names
	// them.
	InitRNG bool
	SeedRNG uint64
	// DBDriverSet: --db-driver was given (0.4 otherwise says it picks mysql).
	DBDriverSet bool

	MySQL MySQL
	// Engine and CreateOptions are the table engine and extra CREATE TABLE
	// options (--mysql-storage-engine / --mysql-table-engine,
	// --mysql-create-options) when the workload has no row for them.
	Engine        string
	CreateOptions string

	// Extras are goslap's own options beyond sysbench's (study.go).
	Extras Extras

	// WorkloadArgs are the options left for the workload's rows, in order.
	WorkloadArgs []Assignment
	// Refused are options given with a value goslap cannot honour; each
	// entry is a complete reason. Run refuses to start when non-empty.
	Refused []string

	// Warnings go to stdout (sysbench writes its log there), Notes to
	// stderr (sysbench writes the --test deprecation there).
	Warnings []string
	Notes    []string

	Help    bool
	Version bool

	args []string  // the command line, for a script's sysbench.cmdline.argv
	out  io.Writer // where a script prints (set by Main)
}

// ParseError is a command-line problem: Msg is the complete line(s)
// sysbench would print (without the final newline), Stdout says where.
type ParseError struct {
	Msg    string
	Stdout bool
	// option is the (known) option whose value was refused, for
	// Origin.lineError; "" when the name itself may be the problem.
	option string
}

func (e *ParseError) Error() string { return e.Msg }

func invalidOption(word string) *ParseError {
	return &ParseError{Msg: "invalid option: " + word}
}

func invalidValue(name, v string) *ParseError {
	return &ParseError{Msg: fmt.Sprintf("Invalid value for the '%s' option: '%s'", strings.ReplaceAll(name, "-", "_"), v), option: name}
}

// generalAliases are sysbench 1.0's deprecated names of its general
// options; 1.0 warns about them, 0.4/0.5 command lines use them natively.
var generalAliases = map[string]string{
	"num-threads":  "threads",
	"max-requests": "events",
	"max-time":     "time",
	"tx-rate":      "rate",
}

// aliasDefaults are the deprecated aliases' own defaults in sysbench 1.0.
var aliasDefaults = map[string]uint64{"num-threads": 1, "max-requests": 0, "max-time": 0, "tx-rate": 0}

// legacyNames maps 0.4/0.5 option names onto the 1.0 names the workloads
// use. Options that choose the workload (--oltp-read-only, ...) are not here.
var legacyNames = map[string]string{
	"oltp-table-size":        "table-size",
	"oltp-tables-count":      "tables",
	"oltp-range-size":        "range-size",
	"oltp-point-selects":     "point-selects",
	"oltp-simple-ranges":     "simple-ranges",
	"oltp-sum-ranges":        "sum-ranges",
	"oltp-order-ranges":      "order-ranges",
	"oltp-distinct-ranges":   "distinct-ranges",
	"oltp-index-updates":     "index-updates",
	"oltp-non-index-updates": "non-index-updates",
	"oltp-delete-inserts":    "delete-inserts",
	"oltp-range-selects":     "range-selects",
	"oltp-skip-trx":          "skip-trx",
	"oltp-auto-inc":          "auto-inc",
	"oltp-secondary":         "secondary",
	"oltp-dist-type":         "rand-type",
	"oltp-dist-iter":         "rand-spec-iter",
	"oltp-dist-pct":          "rand-spec-pct",
	"oltp-dist-res":          "rand-spec-res",
	"mysql-table-engine":     "mysql-storage-engine",
	"number-of-ranges":       "number-of-ranges",
	"random-ranges-delta":    "delta",
	"random-points":          "random-points",
}

// absent05 are the sysbench 0.4 options 0.5 does not have, with 0.5's own
// name where there is one. sysbench 0.5 accepts any --name=value (its Lua
// scripts read what they know) and oltp.lua reads none of these, so a 0.5
// run ignores them: --oltp-dist-type=uniform leaves 0.5's --rand-type at
// special (captured: testdata/legacy/05-disttype).
var absent05 = map[string]string{
	"oltp-dist-type":             "--rand-type",
	"oltp-dist-iter":             "--rand-spec-iter",
	"oltp-dist-pct":              "--rand-spec-pct",
	"oltp-dist-res":              "--rand-spec-res",
	"seed-rng":                   "--rand-seed",
	"init-rng":                   "--rand-init",
	"oltp-test-mode":             "",
	"oltp-nontrx-mode":           "",
	"oltp-table-name":            "",
	"oltp-point-select-all-cols": "",
}

// workloadChoosers are the 0.4/0.5 options that pick the kind of oltp
// test; the "oltp" workload takes them as its own options.
var workloadChoosers = map[string]bool{
	"oltp-read-only": true, "oltp-write-only": true, "oltp-test-mode": true, "oltp-nontrx-mode": true,
}

// ParseBool accepts sysbench's boolean words (and yes/no) case-insensitively.
func ParseBool(v string) (value, ok bool) {
	switch strings.ToLower(v) {
	case "1", "on", "true", "yes":
		return true, true
	case "0", "off", "false", "no":
		return false, true
	}
	return false, false
}

// word is one "--name[=value]" option after normalisation.
type word struct {
	raw      string
	name     string // '-'-separated
	value    string
	hasValue bool
	from     *Origin // nil on the command line
}

func splitWord(w string) word {
	body := strings.TrimPrefix(w, "--")
	name, value, has := strings.Cut(body, "=")
	return word{raw: w, name: getopt.Normalize(strings.ToLower(name)), value: value, hasValue: has}
}

// ReadFile reads a --config-file; tests replace it.
var ReadFile = os.ReadFile

// configFileWords reads sysbench's --config-file format: one name=value per
// line, '#' starts a comment line, blank lines skipped. sysbench does not
// trim spaces around the name, so neither does goslap (a name with a space
// is then unknown, which sysbench also reports).
func configFileWords(path string) ([]word, error) {
	b, err := ReadFile(path)
	if err != nil {
		return nil, &ParseError{Msg: fmt.Sprintf("FATAL: cannot read the configuration file '%s': %v", path, err), Stdout: true}
	}
	var out []word
	for i, line := range strings.Split(string(b), "\n") {
		line = strings.TrimRight(line, "\r")
		if line == "" || strings.HasPrefix(strings.TrimLeft(line, " \t"), "#") {
			continue
		}
		w := splitWord("--" + line)
		w.from = &Origin{File: path, Line: i + 1}
		out = append(out, w)
	}
	return out, nil
}

// Parse reads a sysbench command line (the words after `sysbench`).
//
// Options are applied in order; a --config-file's options are applied after
// the command line's, so they win, as in sysbench 1.0.20 (observed:
// --threads=7 with threads=4 in the file runs 4 threads).
func Parse(args []string) (*Config, error) {
	c := &Config{Threads: 1, Percentile: 95, MySQL: MySQL{User: "sbtest", DB: "sbtest",
		IgnoreErrors: []uint16{1213, 1020, 1205}}, args: args}
	var opts []word
	var positional []string
	var configFile string
	for _, a := range args {
		if strings.HasPrefix(a, "--") && len(a) > 2 {
			w := splitWord(a)
			if w.name == "config-file" {
				configFile = w.value
				continue
			}
			opts = append(opts, w)
			continue
		}
		positional = append(positional, a)
	}
	if configFile != "" {
		more, err := configFileWords(configFile)
		if err != nil {
			return nil, err
		}
		opts = append(opts, more...)
	}

	// The dialect decides which names are native, so find it first:
	// --sysbench-compat, else the spelling of the test.
	for _, w := range opts {
		switch w.name {
		case "sysbench-compat":
			switch Dialect(w.value) {
			case Dialect10, Dialect05, Dialect04:
				c.Dialect, c.Forced = Dialect(w.value), true
			default:
				return nil, w.from.lineError(&ParseError{Msg: fmt.Sprintf("invalid option: %s (dialects: 1.0, 0.5, 0.4)", w.raw), option: w.name})
			}
		case "test":
			c.Test, c.TestBy = w.value, "--test"
		}
	}
	if c.Test == "" && len(positional) > 0 {
		c.Test, c.TestBy = positional[0], "positional"
		positional = positional[1:]
	}
	if len(positional) > 0 {
		c.Command = positional[0]
		positional = positional[1:]
	}
	if len(positional) > 0 {
		return nil, &ParseError{Msg: "Unknown command: " + positional[0]}
	}
	var choice testChoice
	if c.Test != "" {
		var err error
		// prewarm is a command of the stock scripts that the built-in
		// workloads lack: the script's file runs it.
		interpret := interpretRequested(opts) || c.Command == "prewarm"
		if choice, err = resolveTest(c.Test, interpret); err != nil {
			return nil, err
		}
		if interpretRequested(opts) && choice.script == "" {
			return nil, fatalf("--lua-interpreter cannot be honoured: '%s' finds no Lua script to interpret (goslap's built-in %s would run)", c.Test, choice.workload)
		}
		c.Script = choice.script
	}
	// A script declares its own commands (prewarm, check, ...): the
	// workload knows them once it has read the script.
	if c.Script == "" {
		switch c.Command {
		case "", "prepare", "run", "cleanup", "help", "warmup", "prewarm":
		default:
			return nil, &ParseError{Msg: "Unknown command: " + c.Command}
		}
		if c.Command == "prewarm" {
			c.Command = "warmup"
		}
	}
	spelled := choice.dialect
	if spelled == "" {
		spelled = Dialect10
	}
	if !c.Forced {
		c.Dialect = spelled
	}
	if c.TestBy == "--test" && spelled == Dialect10 && c.Test != "" {
		c.Notes = append(c.Notes, "WARNING: the --test option is deprecated. You can pass a script name or path on the command line without any options.")
	}
	if choice.note != "" {
		c.Notes = append(c.Notes, choice.note)
	}
	legacy := c.Dialect != Dialect10
	if legacy {
		c.Events = 10000
	} else {
		c.Time = 10
	}

	deprecated := map[string]word{}
	for _, w := range opts {
		name := w.name
		if alt, ok := absent05[name]; ok && c.Dialect == Dialect05 {
			note := "goslap: " + w.raw + " is not a sysbench 0.5 option; 0.5 ignores it, and so does goslap"
			if alt != "" {
				note += " (0.5 takes " + alt + ")"
			}
			c.Notes = append(c.Notes, note)
			continue
		}
		if alias, ok := generalAliases[name]; ok {
			if !legacy {
				deprecated[name] = w
				continue
			}
			name = alias
		}
		if err := c.general(name, w); err != errNotGeneral {
			if err != nil {
				return nil, w.from.lineError(err)
			}
			continue
		}
		if workloadChoosers[name] && !legacy {
			return nil, w.from.lineError(&ParseError{Msg: fmt.Sprintf("invalid option: %s (a sysbench 0.4/0.5 option; in 1.0 pick the test: oltp_read_only, oltp_write_only, ...)", w.raw)})
		}
		target := name
		if n, ok := legacyNames[name]; ok {
			if !legacy {
				return nil, w.from.lineError(&ParseError{Msg: fmt.Sprintf("invalid option: %s (a sysbench 0.4/0.5 name; sysbench 1.0 calls it --%s)", w.raw, n)})
			}
			target = n
		}
		if err := checkName(name, target, w, c.Dialect); err != nil {
			return nil, w.from.lineError(err)
		}
		if (name == "mysql-storage-engine" || target == "mysql-storage-engine") && w.hasValue {
			c.Engine = w.value
		}
		c.WorkloadArgs = append(c.WorkloadArgs, Assignment{Word: w.raw, Name: target, Value: w.value, HasValue: w.hasValue, From: w.from})
	}
	// sysbench 1.0.20 (observed) ignores a deprecated alias left at its
	// default value, and otherwise lets it win over the new name whatever
	// the order, warning in a fixed order.
	for _, name := range []string{"num-threads", "max-requests", "max-time", "tx-rate"} {
		w, ok := deprecated[name]
		if !ok {
			continue
		}
		alias := generalAliases[name]
		n, err := uintValue(alias, w)
		if err != nil {
			return nil, w.from.lineError(err)
		}
		if n == aliasDefaults[name] {
			continue
		}
		c.Warnings = append(c.Warnings, fmt.Sprintf("WARNING: --%s is deprecated, use --%s instead", name, alias))
		if err := c.general(alias, w); err != nil {
			return nil, w.from.lineError(err)
		}
	}
	c.Workload = choice.workload
	// --json's file and --plot's chart must be two files, and neither the
	// --config-file the command line reads.
	if err := outpath.Check(outpath.File{Option: "--json", Path: c.Extras.JSON}, outpath.File{Option: "--plot", Path: c.Extras.Plot},
		outpath.File{Option: "--config-file", Path: configFile, Input: true}); err != nil {
		return nil, &ParseError{Msg: "FATAL: " + err.Error(), Stdout: true}
	}
	if len(c.MySQL.Ports) == 0 {
		c.MySQL.Ports = []int{3306}
	}
	if len(c.MySQL.Hosts) == 0 {
		c.MySQL.Hosts = []string{"localhost"}
	}
	return c, nil
}

var errNotGeneral = fmt.Errorf("not a general option")

func boolValue(w word) (bool, error) {
	if !w.hasValue {
		return true, nil
	}
	b, ok := ParseBool(w.value)
	if !ok {
		return false, invalidOption(w.raw)
	}
	return b, nil
}

func uintValue(name string, w word) (uint64, error) {
	if !w.hasValue || w.value == "" {
		return 0, invalidValue(name, w.value)
	}
	n, err := strconv.ParseUint(w.value, 10, 64)
	if err != nil {
		return 0, invalidValue(name, w.value)
	}
	return n, nil
}

func listValue(w word) []string {
	if w.value == "" {
		return nil
	}
	return strings.Split(w.value, ",")
}

// general applies sysbench's own options (not the test's); errNotGeneral
// means the name is not one of them.
func (c *Config) general(name string, w word) error {
	refuse := func(why string) {
		said := w.raw
		if w.from != nil {
			said = fmt.Sprintf("--%s (--config-file '%s', line %d)", name, w.from.File, w.from.Line)
		}
		c.Refused = append(c.Refused, fmt.Sprintf("%s cannot be honoured: %s", said, why))
	}
	switch name {
	case "sysbench-compat", "test", "lua-interpreter":
		return nil // handled before
	case "threads":
		if strings.Contains(w.value, ",") {
			for _, s := range strings.Split(w.value, ",") {
				n, err := strconv.Atoi(s)
				if err != nil || n <= 0 {
					return invalidValue(name, w.value)
				}
				c.ThreadList = append(c.ThreadList, n)
			}
			c.Threads = c.ThreadList[0]
			return nil
		}
		n, err := uintValue(name, w)
		if err != nil {
			return err
		}
		if n == 0 {
			return &ParseError{Msg: "FATAL: Invalid value for --threads: 0.", Stdout: true}
		}
		c.Threads, c.ThreadList = int(n), nil
	case "events":
		n, err := uintValue(name, w)
		if err != nil {
			return err
		}
		c.Events, c.EventsSet = n, true
	case "time":
		n, err := uintValue(name, w)
		if err != nil {
			return err
		}
		c.Time, c.TimeSet = n, true
	case "rate":
		n, err := uintValue(name, w)
		if err != nil {
			return err
		}
		c.Rate = n
	case "report-interval":
		n, err := uintValue(name, w)
		if err != nil {
			return err
		}
		c.ReportInterval = n
	case "percentile":
		n, err := uintValue(name, w)
		if err != nil || n > 100 {
			return invalidValue(name, w.value)
		}
		c.Percentile = int(n)
	case "init-rng", "rand-init":
		// 0.4/0.5: on seeds from the clock (goslap's default without a
		// seed), off uses a fixed seed; goslap's streams are its own, so
		// only "fixed or not" can be reproduced.
		b, err := boolValue(w)
		if err != nil {
			return err
		}
		c.InitRNG = b
		if !b && !c.SeedSet {
			c.Seed, c.SeedSet = 1, true
		}
	case "rand-seed", "seed-rng":
		n, err := uintValue(name, w)
		if err != nil {
			return err
		}
		c.Seed, c.SeedSet = n, n != 0
		c.SeedRNG = n
	case "report-checkpoints":
		if w.value != "" {
			refuse("goslap has no report checkpoints")
		}
	case "histogram":
		b, err := boolValue(w)
		if err != nil {
			return err
		}
		if b {
			refuse("goslap does not print sysbench's latency histogram (use goslap's --json for its HDR histogram)")
		}
	case "forced-shutdown":
		if w.value != "off" && w.value != "" && w.value != "0" {
			refuse("goslap has no forced shutdown; a client always finishes its event")
		}
	case "json":
		// --json alone (a bare flag is on, as for sysbench's booleans) or
		// --json=-: the document on stdout; --json=FILE: in FILE.
		c.Extras.JSON, c.Extras.JSONSet = w.value, true
		if !w.hasValue || w.value == "-" {
			c.Extras.JSON = ""
		}
	case "target":
		c.Extras.Targets = append(c.Extras.Targets, w.value)
	case "sandbox":
		c.Extras.Sandbox, c.Extras.SandboxSet = w.value, true
	case "sandbox-option":
		if w.value == "" {
			return invalidValue(name, w.value)
		}
		c.Extras.SandboxOptions = append(c.Extras.SandboxOptions, strings.TrimPrefix(w.value, "--"))
	case "plot":
		if w.value == "" {
			return invalidValue(name, w.value)
		}
		c.Extras.Plot = w.value
	case "latency":
		b, err := boolValue(w)
		if err != nil {
			return err
		}
		c.Extras.Latency = b
	case "server-metrics":
		b, err := boolValue(w)
		if err != nil {
			return err
		}
		c.Extras.ServerMetricsOff = !b
	case "server-pid":
		n, err := uintValue(name, w)
		if err != nil || n == 0 || n > 1<<22 {
			return invalidValue(name, w.value)
		}
		c.Extras.ServerPID = int(n)
	case "server-report":
		b, err := boolValue(w)
		if err != nil {
			return err
		}
		c.Extras.ServerReport = b
	case "iterations":
		n, err := uintValue(name, w)
		if err != nil || n == 0 {
			return invalidValue(name, w.value)
		}
		c.Extras.Iterations = int(n)
	case "compare-metric":
		m, err := orchestrator.ParseMetric(w.value)
		if err != nil {
			return &ParseError{Msg: err.Error(), option: name}
		}
		c.Extras.Metric = m
	case "sides-in-turn":
		b, err := boolValue(w)
		if err != nil {
			return err
		}
		c.Extras.InTurn = b
	case "rounds":
		n, err := uintValue(name, w)
		if err != nil || n == 0 || n > 1000 {
			return invalidValue(name, w.value)
		}
		c.Extras.Rounds = int(n)
	case "thread-stack-size":
		refuse("goslap's clients are goroutines, which have no fixed stack size")
	case "debug", "validate", "db-debug":
		b, err := boolValue(w)
		if err != nil {
			return err
		}
		if b {
			refuse("goslap has no such mode")
		}
	case "verbosity":
		n, err := uintValue(name, w)
		if err != nil {
			return err
		}
		if n != 3 {
			refuse("goslap prints sysbench's default (verbosity 3) messages only")
		}
	case "help":
		b, err := boolValue(w)
		if err != nil {
			return err
		}
		c.Help = b
	case "version":
		b, err := boolValue(w)
		if err != nil {
			return err
		}
		c.Version = b
	case "db-driver":
		c.DBDriverSet = true
		if w.value != "mysql" {
			refuse("goslap drives MySQL and MariaDB only (--db-driver=mysql)")
		}
	case "mysql-host":
		c.MySQL.Hosts = listValue(w)
	case "mysql-port":
		c.MySQL.Ports = nil
		for _, s := range listValue(w) {
			n, err := strconv.Atoi(s)
			if err != nil || n <= 0 || n > 65535 {
				return invalidValue(name, w.value)
			}
			c.MySQL.Ports = append(c.MySQL.Ports, n)
		}
	case "mysql-socket":
		c.MySQL.Sockets, c.MySQL.socketSet = listValue(w), true
	case "mysql-user":
		c.MySQL.User = w.value
	case "mysql-password":
		c.MySQL.Password = w.value
	case "mysql-db":
		c.MySQL.DB = w.value
	case "mysql-ssl":
		b, err := boolValue(w)
		if err != nil {
			return err
		}
		c.MySQL.SSL = b
	case "mysql-ssl-cipher":
		if w.value != "" {
			refuse("Go's TLS names and chooses its cipher suites itself")
		}
	case "mysql-compression":
		b, err := boolValue(w)
		if err != nil {
			return err
		}
		c.MySQL.Compression = b
	case "mysql-debug":
		b, err := boolValue(w)
		if err != nil {
			return err
		}
		if b {
			refuse("goslap does not trace client library calls")
		}
	case "mysql-dry-run":
		b, err := boolValue(w)
		if err != nil {
			return err
		}
		if b {
			refuse("goslap always executes its statements")
		}
	case "mysql-ignore-errors":
		c.MySQL.IgnoreErrors, c.MySQL.IgnoreAll = nil, false
		for _, s := range listValue(w) {
			if s == "all" {
				c.MySQL.IgnoreAll = true
				continue
			}
			n, err := strconv.ParseUint(s, 10, 16)
			if err != nil {
				return invalidValue(name, w.value)
			}
			c.MySQL.IgnoreErrors = append(c.MySQL.IgnoreErrors, uint16(n))
		}
	case "mysql-create-options":
		c.CreateOptions = w.value
		// also offered to the workload: a row of that name wins
		return errNotGeneral
	default:
		return errNotGeneral
	}
	return nil
}

// scripts05 maps sysbench 0.5's tests/db scripts to goslap's workloads:
// oltp.lua is the "oltp" workload (0.4/0.5 oltp test, its read-only and
// write-only modes are its options); the single-statement scripts are the
// 1.0-named workloads run in dialect 0.5. "" marks scripts goslap lacks.
var scripts05 = map[string]string{
	"oltp":                 "oltp",
	"oltp_simple":          "oltp_point_select",
	"update_index":         "oltp_update_index",
	"update_non_index":     "oltp_update_non_index",
	"delete":               "oltp_delete",
	"insert":               "oltp_insert",
	"select_random_points": "select_random_points",
	"select_random_ranges": "select_random_ranges",
	"select":               "",
	"bulk_insert":          "",
	"parallel_prepare":     "",
	"common":               "",
}

// testChoice is what a test name or path runs.
type testChoice struct {
	workload string  // the registered workload
	script   string  // the file the Lua interpreter runs; "" for a built-in workload
	dialect  Dialect // the dialect the test's spelling implies
	note     string  // what goslap says on stderr about the choice
}

// interpretRequested reports --lua-interpreter (goslap's own option): run
// a stock script's file with the interpreter even when it is unmodified.
func interpretRequested(opts []word) bool {
	on := false
	for _, w := range opts {
		if w.name == "lua-interpreter" {
			b, err := boolValue(w)
			on = err == nil && b
		}
	}
	return on
}

// resolveTest finds what a test runs, as sysbench looks a test up (a file
// path, then a module name along its script directories, ".lua"
// optional), and never puts a built-in workload in the place of a user's
// script without saying so:
//
//   - "oltp" is the 0.4 C test;
//   - a file that is found and is sysbench 1.0.20's unmodified stock script
//     (by content digest) runs goslap's built-in workload of that name,
//     which sends the same statements, with a note when a path was given;
//     --lua-interpreter runs the file instead;
//   - a file written for sysbench 0.5's Lua API (db_query, ...) runs the
//     built-in 0.5 test when it is a stock 0.5 script by name, with a note,
//     and is refused otherwise;
//   - any other file is the user's script: the Lua interpreter runs it;
//   - a name or path that finds no file runs the built-in workload of a
//     stock script's name, with a note when a path was given; anything
//     else is sysbench's "Cannot find benchmark".
func resolveTest(test string, interpret bool) (testChoice, error) {
	if test == "oltp" {
		return testChoice{workload: "oltp", dialect: Dialect04}, nil
	}
	base := strings.TrimSuffix(filepath.Base(test), ".lua")
	asPath := strings.ContainsRune(test, '/') || strings.HasSuffix(test, ".lua")
	path, err := luascript.Find(test)
	if err != nil {
		if !errors.Is(err, luascript.ErrNotFound) {
			return testChoice{}, fatalf("Cannot load benchmark '%s': %v", test, err)
		}
		if wl, ok := scripts05[base]; ok && strings.HasSuffix(test, ".lua") {
			if wl == "" {
				return testChoice{}, &ParseError{Msg: fmt.Sprintf("FATAL: Cannot find benchmark '%s': sysbench's %s.lua is not one of goslap's workloads (workloads: %s)", test, base, Names()), Stdout: true}
			}
			ch := testChoice{workload: wl, dialect: Dialect05}
			if strings.ContainsRune(test, '/') {
				ch.note = fmt.Sprintf("goslap: %s does not exist: running goslap's built-in %s workload in sysbench 0.5's way, as sysbench 0.5's %s.lua would", test, wl, base)
			}
			return ch, nil
		}
		if _, err := workload.Lookup(base); err == nil && builtinScript(base) {
			ch := testChoice{workload: base, dialect: Dialect10}
			if asPath {
				ch.note = fmt.Sprintf("goslap: %s does not exist: running goslap's built-in %s workload, the statements of sysbench 1.0's stock %s.lua", test, base, base)
			}
			return ch, nil
		}
		return testChoice{}, fatalf("Cannot find benchmark '%s': no such built-in test, file or module", test)
	}
	src, err := os.ReadFile(path)
	if err != nil {
		return testChoice{}, fatalf("Cannot load benchmark '%s': %v", test, err)
	}
	if api := luascript.API05(src); api != "" {
		if wl := scripts05[base]; wl != "" {
			return testChoice{workload: wl, dialect: Dialect05,
				note: fmt.Sprintf("goslap: %s is written for sysbench 0.5's Lua API (%s): running goslap's built-in %s workload in sysbench 0.5's way, as sysbench 0.5's stock %s.lua does", path, api, wl, base)}, nil
		}
		return testChoice{}, fatalf("%s is written for sysbench 0.5's Lua API (%s, ...), which goslap does not interpret: goslap runs sysbench 1.0 scripts", path, api)
	}
	if stock, ok := luascript.StockName(path); ok && !interpret && builtinScript(stock) {
		if _, err := workload.Lookup(stock); err == nil {
			ch := testChoice{workload: stock, dialect: Dialect10}
			if asPath {
				ch.note = fmt.Sprintf("goslap: %s is sysbench 1.0.20's unmodified %s.lua: running goslap's built-in %s workload, which sends its statements (--lua-interpreter runs the file instead)", path, stock, stock)
			}
			return ch, nil
		}
	}
	ch := testChoice{workload: luascript.Name, script: path, dialect: Dialect10}
	if _, err := workload.Lookup(base); err == nil && !asPath && builtinScript(base) {
		// The name of a built-in test found a file that is not the stock
		// script: say which runs, the user may have expected the other.
		ch.note = fmt.Sprintf("goslap: %s is %s, not sysbench 1.0.20's stock script: the Lua interpreter runs it", test, path)
	}
	return ch, nil
}

// builtinScript reports whether name is a sysbench 1.0 stock script that a
// built-in workload reproduces (not goslap's 0.4/0.5 "oltp").
func builtinScript(name string) bool {
	return name != "oltp" && name != luascript.Name
}

// checkName refuses, before anything connects, the names goslap puts into
// SQL as they are: the storage engine (sysbench sends it unquoted, so a
// list such as myisam,innodb reached the server as a syntax error) and the
// table name of dialect 0.4, the only one that uses it. Each message says
// what is allowed.
func checkName(name, target string, w word, d Dialect) error {
	switch {
	case target == "mysql-storage-engine" && w.hasValue && !oltp.ValidEngineName(w.value):
		return &ParseError{Msg: fmt.Sprintf("FATAL: invalid value '%s' for --%s: %s", w.value, name, oltp.EngineNameRule), Stdout: true, option: name}
	case name == "oltp-table-name" && d == Dialect04 && !oltp.ValidTableName(w.value):
		return &ParseError{Msg: fmt.Sprintf("FATAL: invalid value '%s' for --oltp-table-name: %s", w.value, oltp.TableNameRule), Stdout: true, option: name}
	}
	return nil
}

// listedInHelp reports whether `goslap sysbench TEST help` lists a row of
// the test's option group in dialect d: the group is shared by all OLTP
// tests and all dialects, so a 1.0 test leaves out the rows that exist
// only in 0.4/0.5 (their help names those dialects and not 1.0), and every
// test leaves out the rows of another select_random_* test.
func listedInHelp(o *getopt.Option, test string, d Dialect) bool {
	if d == Dialect10 && (strings.Contains(o.Help, "0.4") || strings.Contains(o.Help, "0.5")) && !strings.Contains(o.Help, "1.0") {
		return false
	}
	for _, other := range []string{"select_random_points", "select_random_ranges"} {
		if other != test && strings.Contains(o.Help, other) {
			return false
		}
	}
	return true
}
