package mysqlslap

// The front end of registered workloads other than mysqlslap
// (--workload=oltp_read_write, ...): it parses, builds one study
// configuration and hands it to internal/orchestrator. Nothing here runs a
// benchmark.

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	"github.com/go-sql-driver/mysql"

	"github.com/goslap/goslap/internal/getopt"
	"github.com/goslap/goslap/internal/interrupt"
	"github.com/goslap/goslap/internal/orchestrator"
	"github.com/goslap/goslap/internal/results"
	"github.com/goslap/goslap/internal/target"
	"github.com/goslap/goslap/internal/workload"
	_ "github.com/goslap/goslap/internal/workload/all"     // every workload --workload names
	"github.com/goslap/goslap/internal/workload/luascript" // sysbench 1.0 Lua scripts (--workload=SCRIPT.lua)
	wlreport "github.com/goslap/goslap/internal/workload/report"
)

// mysqlslapWorkload is --workload's name for mysqlslap's own load (the
// default).
const mysqlslapWorkload = "mysqlslap"

// WorkloadArgs are --workload, --sweep-server-option and the registered
// workloads' own options as given, applied once the workload is known.
type WorkloadArgs struct {
	Name string
	Set  bool
	// Sweep is --sweep-server-option=NAME=V1,V2,...
	Sweep string
	// ReportInterval is --report-interval as given ("" when not).
	ReportInterval string
	// Rounds is --rounds as given ("" when not); InTurn is
	// --sides-in-turn.
	Rounds string
	InTurn bool
	// Metric is --compare-metric as given ("" when not).
	Metric string
	// Assignments are the workload options in command-line order.
	Assignments []workloadAssignment
}

type workloadAssignment struct {
	name  string // as the user wrote it (goslap's spelling)
	field string // the workload's option name
	value string
}

// frontNames are goslap's spellings of workload options whose own names
// cannot be goslap options here: they would extend a mysqlslap option
// name (--create, a prefix of --create-secondary) or start with my_getopt's
// skip- prefix. Inverted rows hold the opposite boolean (--trx is on by
// default and --skip-trx turns it off, as the workload's --skip-trx does).
var frontNames = map[string]struct {
	name     string
	inverted bool
}{
	"skip-trx":         {"trx", true},
	"create-secondary": {"k-index-after-load", false},
}

// workloadOptions returns --workload, --sweep-server-option and one row per
// distinct option name of the registered workloads (skipping names taken
// by existing rows). The rows only record what was given: which workload's
// settings they fill is known after the whole command line is read.
func workloadOptions(w *WorkloadArgs, taken []*optSpec) []*getopt.Option {
	inTurn := new(bool) // scratch, as rounds' (the document stays as it was)
	rows := []*getopt.Option{
		{Name: "workload", Arg: getopt.RequiredArg, Var: getopt.VarNone,
			Help: "Run a registered workload instead of mysqlslap's: " + workloadNames() + ". " +
				"A trailing word prepare, run or cleanup runs that phase alone (as sysbench does); none runs all three; check verifies TPC-C's data.",
			Hook: func(s getopt.Setting) error { w.Name, w.Set = strings.TrimSpace(s.Value), true; return nil },
			Off:  func() error { w.Name, w.Set = "", false; return nil }},
		{Name: "sweep-server-option", Arg: getopt.RequiredArg, Var: getopt.VarString, String: &w.Sweep,
			Off: func() error { w.Sweep = ""; return nil },
			Help: "NAME=V1,V2,...: with --workload, run the whole matrix once per value of this server option " +
				"on every sandbox target (innodb_buffer_pool_size=64M,128M), charted with the value on the x axis."},
		// rounds and compare-metric: bound to scratch space and kept
		// through Hook, as report-interval below (mysqlslap's document
		// stays as it was; studyOptionValues records them).
		{Name: "rounds", Arg: getopt.RequiredArg, Var: getopt.VarString, String: new(string),
			Hook: func(s getopt.Setting) error { w.Rounds = s.Value; return nil },
			Off:  func() error { w.Rounds = ""; return nil },
			Help: "N: run the whole matrix N times with the targets (and, with --workload, the swept server-option values) " +
				"interleaved at every point (A B, B A, ...), each server quiesced first, and print per point the paired " +
				"ratio to the first side with its 95 % confidence interval and a verdict (queries/s for mysqlslap's load)."},
		{Name: "sides-in-turn", Arg: getopt.NoArg, Var: getopt.VarBool, Bool: inTurn,
			Hook: func(getopt.Setting) error { w.InTurn = *inTurn; return nil },
			Off:  func() error { w.InTurn = false; return nil },
			Help: "With --rounds: start the sandboxes one at a time within each round (the order alternating between " +
				"rounds), for servers that cannot all be up at once; chosen by itself when the sandboxes' buffer pools " +
				"would not fit the memory available."},
		{Name: "compare-metric", Arg: getopt.RequiredArg, Var: getopt.VarString, String: new(string),
			Hook: func(s getopt.Setting) error { w.Metric = s.Value; return nil },
			Off:  func() error { w.Metric = ""; return nil },
			Help: "tps|qps|rw-qps|tpmc|pNN: with --workload, the figure the verdicts compare (default: the workload's own " +
				"- tps, rw-qps for sysbench 0.4/0.5, tpmc for TPC-C - and p95 latency)."},
		// Bound to scratch space and kept through Hook, as the workloads'
		// rows are: mysqlslap's document (which lists bound options) stays
		// as it was; studyOptionValues records it.
		{Name: "report-interval", Arg: getopt.RequiredArg, Var: getopt.VarString, String: new(string), ExactOnly: true,
			Hook: func(s getopt.Setting) error { w.ReportInterval = s.Value; return nil },
			Off:  func() error { w.ReportInterval = ""; return nil },
			Help: "SECONDS: with --workload, print a line every SECONDS of each run: sysbench's " +
				"[ Ns ] thds/tps/qps line, tpcc-mysql's for --workload=tpcc (0: none)."},
	}
	seen := map[string]bool{}
	var mysqlslapNames []string
	for _, o := range taken {
		seen[getopt.Normalize(o.Name)] = true
		if o.Section != sectionGoslap {
			mysqlslapNames = append(mysqlslapNames, getopt.Normalize(o.Name))
		}
	}
	clashes := func(n string) bool {
		for _, m := range mysqlslapNames {
			if strings.HasPrefix(n, m) || strings.HasPrefix(m, n) {
				return true
			}
		}
		for _, sp := range []string{"skip-", "disable-", "enable-", "maximum-", "loose-", "autoset-"} {
			if strings.HasPrefix(n, sp) {
				return true
			}
		}
		return false
	}
	for _, r := range rows {
		seen[getopt.Normalize(r.Name)] = true
	}
	groups := map[string]bool{}
	for _, m := range workload.All() {
		if groups[m.Group] {
			continue
		}
		groups[m.Group] = true
		for _, o := range m.NewSettings().Options() {
			field, name, inverted := o.Name, o.Name, false
			help := o.Help
			if f, ok := frontNames[field]; ok {
				name, inverted = f.name, f.inverted
				help = "goslap's spelling of --" + field + ". " + help
			}
			n := getopt.Normalize(name)
			if seen[n] || clashes(n) {
				continue // reachable under an alias, or already a goslap option
			}
			seen[n] = true
			row := &getopt.Option{Name: name, Help: "(--workload " + m.Group + ") " + help, ExactOnly: true}
			if o.Var == getopt.VarBool {
				b := new(bool)
				*b = inverted
				row.Arg, row.Var, row.Bool = getopt.NoArg, getopt.VarBool, b
				row.Hook = func(getopt.Setting) error {
					v := "0"
					if *b != inverted {
						v = "1"
					}
					w.Assignments = append(w.Assignments, workloadAssignment{name, field, v})
					return nil
				}
			} else {
				row.Arg, row.Var, row.String = getopt.RequiredArg, getopt.VarString, new(string)
				row.Hook = func(s getopt.Setting) error {
					w.Assignments = append(w.Assignments, workloadAssignment{name, field, s.Value})
					return nil
				}
				// --skip-NAME: as if never given, as for goslap's other
				// options that take a value.
				row.Off = func() error { w.forget(name); return nil }
			}
			rows = append(rows, row)
		}
	}
	return rows
}

// forget drops the assignments of one option.
func (w *WorkloadArgs) forget(name string) {
	kept := w.Assignments[:0]
	for _, a := range w.Assignments {
		if a.name != name {
			kept = append(kept, a)
		}
	}
	w.Assignments = kept
}

// isWorkloadOption reports a row of workloadOptions that records a
// workload's option.
func isWorkloadOption(o *getopt.Option) bool { return strings.HasPrefix(o.Help, "(--workload ") }

func workloadNames() string {
	names := []string{mysqlslapWorkload + " (default)"}
	for _, m := range workload.All() {
		// mysqlslap's is registered too, listed once, first; a script is
		// named by its file: SCRIPT.lua, below.
		if m.Name != mysqlslapWorkload && m.Name != luascript.Name {
			names = append(names, m.Name)
		}
	}
	return strings.Join(names, ", ") + ", or a sysbench 1.0 Lua script (SCRIPT.lua)"
}

// selected reports a --workload other than mysqlslap's.
func (w *WorkloadArgs) selected() bool { return w.Set && w.Name != mysqlslapWorkload }

// checkWorkloadOptions refuses --workload's options on mysqlslap's load (a
// step of Validate).
func checkWorkloadOptions(o *Options) error {
	w := &o.workload
	switch {
	case len(w.Assignments) > 0:
		return Exitf(1, "--%s is a workload option: it needs --workload=NAME (%s)", w.Assignments[0].name, workloadNames())
	case w.Sweep != "":
		return Exitf(1, "--sweep-server-option needs --workload=NAME (%s)", workloadNames())
	case w.ReportInterval != "":
		return Exitf(1, "--report-interval needs --workload=NAME (%s)", workloadNames())
	case w.Metric != "":
		return Exitf(1, "--compare-metric needs --workload=NAME (%s)", workloadNames())
	case w.Set && len(o.Args) > 0 && isPhase(o.Args[0]):
		return Exitf(1, "the %s command belongs to --workload=NAME workloads: mysqlslap's workload creates, runs and drops its schema in one command", o.Args[0])
	}
	return nil
}

// runWorkload runs the study of a validated --workload command line.
func runWorkload(c *Config, env Env) int {
	cfg := c.Workload
	stdout := env.Stdout
	if cfg.Shard != nil && c.Outputs.jsonToStdout() {
		env.Stdout = env.Stderr // as shardReportOut
	}
	started := time.Now()
	if c.DefaultStop {
		var limits []string
		if cfg.Events > 0 {
			limits = append(limits, fmt.Sprintf("%d events", cfg.Events))
		}
		if cfg.Duration > 0 {
			limits = append(limits, cfg.Duration.String())
		}
		fmt.Fprintf(env.Stderr, "%s: each run stops after %s (the workload's default; --run-time or --number-of-queries sets the limit)\n",
			ProgName, strings.Join(limits, " or "))
	}
	watch := interrupt.Start(ProgName, env.Stderr)
	defer watch.Stop()
	watchStudy(watch, cfg)
	ctx := watch.Context()
	res, err := orchestrator.Run(ctx, cfg)
	if err == nil {
		out := env.Stdout // a shard's report goes to stderr beside its document (shardReportOut)
		if cfg.Shard == nil {
			out = textOut(c.Outputs.jsonToStdout(), env.Stdout)
		}
		err = orchestrator.Finish(out, cfg, res)
	}
	if c.Outputs.JSON && cfg.Shard == nil && (res != nil || err == nil) {
		if jerr := writeStudyJSON(c, env.Stdout, res, started, err); jerr != nil && err == nil {
			err = jerr
		}
	}
	if cfg.Shard != nil && c.Outputs.JSON && res != nil {
		if jerr := writeShardDocument(c, stdout, cfg, res, err); jerr != nil && err == nil {
			err = jerr
		}
	}
	if err != nil {
		if ctx.Err() != nil || errors.Is(err, orchestrator.ErrInterrupted) {
			if cfg.Phase == orchestrator.PhaseCleanup && watch.Left() != "" {
				fmt.Fprintf(env.Stderr, "%s: %s\n", ProgName, watch.Left())
			}
			return report(env.Stderr, errInterruptedExit())
		}
		var ee *ExitError
		if errors.As(err, &ee) {
			return report(env.Stderr, ee)
		}
		return report(env.Stderr, exitWith(err))
	}
	return 0
}

// watchStudy tells watch what an interrupted study may leave: on sandboxes
// it waits for their shutdown (a server must not outlive goslap), else it
// names the tables a forced exit may leave.
func watchStudy(watch *interrupt.Watch, cfg *orchestrator.Config) {
	for _, t := range cfg.Targets {
		if t.Kind == target.Sandbox {
			watch.Patient(interrupt.SandboxPatience)
			return
		}
	}
	switch cfg.Phase {
	case orchestrator.PhaseCleanup:
		watch.Leaving(fmt.Sprintf("tables of schema %s not dropped yet are left: run cleanup again", cfg.Common.Schema))
	case orchestrator.PhaseAll, orchestrator.PhasePrepare:
		what := "run"
		if cfg.Phase == orchestrator.PhasePrepare {
			what = "prepare"
		}
		watch.Leaving(fmt.Sprintf("tables this %s created in schema %s may be left: run cleanup", what, cfg.Common.Schema))
	}
}

func isPhase(word string) bool {
	p, err := orchestrator.ParsePhase(word)
	return err == nil && p != orchestrator.PhaseAll
}

// luaScriptName tells a --workload value that names a Lua script (a path
// or a .lua file) from a registered workload's name.
func luaScriptName(name string) bool {
	return strings.HasSuffix(name, ".lua") || strings.ContainsRune(name, '/')
}

// refusedWithWorkload are mysqlslap options that describe mysqlslap's own
// load: with another workload they would be silently meaningless.
func refusedWithWorkload(o *Options) string {
	for _, r := range []struct {
		given bool
		name  string
	}{
		{o.AutoGenerateSQL, "auto-generate-sql"}, {o.QuerySet, "query"}, {o.CreateSet, "create"},
		{o.PreQuerySet, "pre-query"}, {o.PostQuerySet, "post-query"}, {o.PreSystem != "", "pre-system"},
		{o.PostSystem != "", "post-system"}, {o.Commit != 0, "commit"}, {o.Detach != 0, "detach"},
		{o.OnlyPrint, "only-print"}, {o.CSVSet, "csv"}, {o.Ext.ExactCount, "exact-count"},
		{o.Ext.Templates, "templates"}, {o.AllowDropExistingSchema, "allow-drop-existing-schema"},
	} {
		if r.given {
			return r.name
		}
	}
	return ""
}

// studyConfig is validateWorkload's front-end part: the study of a
// --workload command line from c's options, with the rules that belong to
// this command line (options of mysqlslap's load, output files, phase
// words, sandboxes, shards).
func studyConfig(c *Config, o *Options, env Env) (cfg *orchestrator.Config, defaultTime bool, err error) {
	w := &o.workload
	meta, err := workload.Lookup(w.Name)
	script := ""
	if err != nil && luaScriptName(w.Name) {
		// --workload=SCRIPT.lua: a sysbench 1.0 Lua script, interpreted.
		if script, err = luascript.Find(w.Name); err != nil {
			return nil, false, Exitf(1, "cannot find the Lua script '%s': %v", w.Name, err)
		}
		meta, err = workload.Lookup(luascript.Name)
	}
	if err != nil {
		return nil, false, Exitf(1, "unknown workload '%s' (workloads: %s)", w.Name, workloadNames())
	}
	if name := refusedWithWorkload(o); name != "" {
		return nil, false, Exitf(1, "--%s belongs to mysqlslap's workload and cannot be honoured with --workload=%s", name, w.Name)
	}
	if err := checkOutputFiles(o); err != nil {
		return nil, false, err
	}
	settings := meta.NewSettings()
	if ls, ok := settings.(*luascript.Settings); ok && script != "" {
		ls.Out, ls.Argv = textOut(JSONToStdout(o), env.Stdout), append([]string{ProgName}, o.Args...)
		ls.General = map[string]any{"time": o.Ext.RunTime.Seconds(), "events": float64(o.NumberOfQueries)}
		ls.Ignore = func(code uint16) bool { return cfg != nil && cfg.Ignore != nil && cfg.Ignore(code) }
		phase := "run"
		if len(o.Args) == 1 {
			phase = o.Args[0]
		}
		if err := ls.SetScript(script, phase); err != nil {
			return nil, false, Exitf(1, "%v", err)
		}
	}
	if err := applyWorkloadArgs(settings, meta, w.Assignments); err != nil {
		return nil, false, err
	}
	phase := orchestrator.PhaseAll
	if len(o.Args) > 1 {
		return nil, false, Exitf(1, "too many command words (%s): give one of prepare, run, check or cleanup, or none", strings.Join(o.Args, " "))
	}
	if len(o.Args) == 1 {
		if phase, err = orchestrator.ParsePhase(o.Args[0]); err != nil {
			return nil, false, exitWith(err)
		}
	}
	schema := o.CreateSchema
	if schema == "mysqlslap" { // mysqlslap's default: the workloads' own is sbtest
		schema = "sbtest"
	}
	seed := o.Ext.Seed
	if !o.Ext.SeedSet {
		seed = uint64(time.Now().UnixNano())
	}
	common := workload.Common{Schema: schema, Seed: seed, Verbose: o.Verbose}
	scales, scaleLabel, err := orchestrator.SplitScales(w.Name, settings, common)
	if err != nil {
		return nil, false, exitWith(err)
	}
	wl, err := settings.Build(w.Name, common)
	if err != nil {
		return nil, false, exitWith(err)
	}
	cfg = &orchestrator.Config{Workload: w.Name, Settings: settings, Common: common, Phase: phase, NoDrop: o.NoDrop,
		Scales: scales, ScaleName: scaleLabel, Iterations: int(o.Iterations),
		Duration: o.Ext.RunTime, Events: o.NumberOfQueries, Warmup: o.Ext.WarmupTime, Rate: o.Ext.Rate}
	if o.EngineSet {
		if cfg.Engines, err = orchestrator.ParseEngines(o.Engine); err != nil {
			return nil, false, exitWith(err)
		}
	}
	if cfg.Clients, err = orchestrator.ParseClients(o.Concurrency); err != nil {
		return nil, false, exitWith(err)
	}
	if w.Rounds != "" {
		n, err := strconv.Atoi(strings.TrimSpace(w.Rounds))
		if err != nil || n < 1 || n > 1000 {
			return nil, false, Exitf(1, "invalid value '%s' for --rounds: want a whole number from 1 to 1000", w.Rounds)
		}
		cfg.Rounds = n
	}
	cfg.InTurn = w.InTurn
	if w.Metric != "" {
		if cfg.Metric, err = orchestrator.ParseMetric(w.Metric); err != nil {
			return nil, false, exitWith(err)
		}
	}
	if w.Sweep != "" {
		if cfg.Server, err = orchestrator.ParseServerSweep(w.Sweep); err != nil {
			return nil, false, exitWith(err)
		}
	}
	if cfg.Duration == 0 && cfg.Events == 0 && (phase == orchestrator.PhaseAll || phase == orchestrator.PhaseRun) {
		// The workload's own defaults (sysbench 1.0: 10 s; 0.4/0.5: 10000
		// events), else 10 s.
		cfg.Duration, defaultTime = 10*time.Second, true
		if d, ok := settings.(workload.StopDefaulter); ok {
			events, seconds := d.StopDefaults()
			cfg.Events, cfg.Duration = uint64(events), time.Duration(seconds*float64(time.Second))
		}
	}
	// sysbench's default: deadlocks and lock waits restart the transaction.
	ignore := map[uint16]bool{1213: true, 1020: true, 1205: true}
	if o.Ext.TolerantErrors() {
		ignore = o.Ext.IgnoreCodes
	}
	all := o.Ext.IgnoreAllErrors
	cfg.Ignore = func(code uint16) bool { return all || ignore[code] }
	if script != "" {
		// A script's own errors stop the run whatever is ignored.
		cfg.Ignore = luascript.Tolerate(cfg.Ignore)
	}

	sb := &o.Ext.Sandbox
	if cfg.Targets, err = sandboxTargets(o); err != nil {
		return nil, false, err
	}
	cfg.DefaultBinary, cfg.SandboxOptions, cfg.Plot = sb.Sandbox, sb.ServerOptions, sb.Plot
	// The table the chart draws is printed too.
	cfg.Table = sb.Plot != ""
	// Without the password of a bare -p: validateWorkload prompts last
	// and sets Base again.
	cfg.Base = connectionOf(o).endpoint()
	cfg.InitCommand = o.InitCommand
	cfg.Driver = func(ep target.Endpoint, schema string) (*mysql.Config, error) {
		return c.Connection.to(ep).Driver(schema)
	}
	cfg.ReadServers = o.Ext.JSONSet
	rep := &orchestrator.TextReport{Out: textOut(JSONToStdout(o), env.Stdout), Err: env.Stderr, Engines: o.EngineSet, Latency: o.Ext.Latency,
		Targets: len(cfg.Targets) > 1 || cfg.Server.Active(), ScaleLabel: scaleLabel, Ops: wl.Ops()}
	// Several sides compared, or asked: the server's figures under each cell.
	// The server is sampled when the Server: block is asked for, when
	// sides are compared or with --report-interval, as before intervals
	// were kept in every run (BENCHMARKS.md, "Interval recording"): the
	// sampler opens a connection of its own and may print warnings, which
	// a plain run and an output option (--json, --plot) must not add.
	shown := o.Ext.ServerReport || rep.Targets || w.ReportInterval != ""
	cfg.ServerMetrics = orchestrator.Metrics{Off: !o.Ext.ServerMetrics || !shown, PID: o.Ext.ServerPID}
	rep.Server = !cfg.ServerMetrics.Off && (o.Ext.ServerReport || rep.Targets)
	if err := checkSampling(o, !cfg.ServerMetrics.Off, cfg.Targets); err != nil {
		return nil, false, err
	}
	cfg.Observer = rep.Observer()
	if cfg.ReportInterval, err = parseInterval(w.ReportInterval); err != nil {
		return nil, false, err
	}
	live := env.Stdout
	if JSONToStdout(o) {
		live = env.Stderr
	}
	if cfg.ReportInterval > 0 {
		if cfg.Observer.Interval, err = intervalPrinter(w.Name, wl, cfg.ReportInterval, live); err != nil {
			return nil, false, err
		}
	} else if f := progressTerminal(c, env.Stderr); f != nil {
		showProgress(cfg, f)
	}
	if c.Silent {
		log := cfg.Observer.Log
		cfg.Observer.Log = func(format string, args ...any) {
			// Silent, as for mysqlslap's sandboxes: no progress of the
			// targets; warnings and the workload's messages stay.
			if !strings.HasPrefix(format, "target ") {
				log(format, args...)
			}
		}
	}
	if err := applySharding(o, cfg); err != nil {
		return nil, false, err
	}
	return cfg, defaultTime, nil
}

// applyWorkloadArgs sets the recorded workload options on s through s's
// own rows; an option of another workload is one clear error.
func applyWorkloadArgs(s workload.Settings, m workload.Meta, args []workloadAssignment) error {
	rows := s.Options()
	has, numeric := map[string]bool{}, map[string]bool{}
	for _, r := range rows {
		has[getopt.Normalize(r.Name)] = true
		numeric[getopt.Normalize(r.Name)] = r.Var == getopt.VarUint32 || r.Var == getopt.VarUint64
	}
	var words []string
	for _, a := range args {
		if !has[getopt.Normalize(a.field)] {
			return Exitf(1, "--%s is not an option of workload %s", a.name, m.Name)
		}
		if numeric[getopt.Normalize(a.field)] && strings.Contains(a.value, ",") {
			// Only the size options that are strings sweep (orchestrator.SplitScales).
			return Exitf(1, "--%s=%s: one number only; a list is not supported for --%s", a.name, a.value, a.name)
		}
		words = append(words, "--"+a.field+"="+a.value)
	}
	var msgs bytes.Buffer
	p := getopt.NewParser(ProgName, rows, &msgs)
	err := p.Parse(words, false)
	if err == nil {
		err = p.Finish()
	}
	if err != nil {
		msg := strings.TrimSpace(msgs.String() + "\n" + err.Error())
		return &ExitError{Code: 1, Msg: msg, Err: err}
	}
	return nil
}

// textOut is where the text report goes: nowhere when stdout carries the
// --json document (jsonToStdout), which must be all that stdout holds.
func textOut(jsonToStdout bool, stdout io.Writer) io.Writer {
	if jsonToStdout {
		return io.Discard
	}
	return stdout
}

// writeStudyJSON writes the --json document of a --workload run; runErr
// is the error that ended it.
func writeStudyJSON(c *Config, stdout io.Writer, res *orchestrator.Result, started time.Time, runErr error) error {
	cfg := c.Workload
	doc, err := orchestrator.Document(cfg, res, orchestrator.DocumentInput{FrontEnd: frontEnd, Version: Version, StartedAt: started,
		Options: studyOptionValues(c, cfg), Err: runErr})
	if err != nil {
		return Exitf(1, "writing the JSON document: %v", err)
	}
	return writeJSON(c.Outputs, stdout, doc)
}

// studyOptionValues are the document's options of a --workload run:
// goslap's (as for mysqlslap's load) and the workload's, by the names the
// user types them under, resolved (defaults included).
func studyOptionValues(c *Config, cfg *orchestrator.Config) map[string]any {
	out := c.options()
	out["report-interval"] = c.Outputs.ReportInterval
	out["rounds"] = max(cfg.Rounds, 1)
	out["compare-metric"] = cfg.Metric
	inverted := map[string]string{}
	for field, f := range frontNames {
		if f.inverted {
			inverted[field] = f.name
		}
	}
	bound := map[any]bool{}
	for _, r := range cfg.Settings.Options() {
		// Aliases (sysbench's older spellings) share their variable: the
		// first row, the current name, stands for all.
		var ptr any
		switch {
		case r.Bool != nil:
			ptr = r.Bool
		case r.Uint32 != nil:
			ptr = r.Uint32
		case r.Uint64 != nil:
			ptr = r.Uint64
		case r.String != nil:
			ptr = r.String
		}
		if ptr == nil || bound[ptr] {
			continue
		}
		bound[ptr] = true
		name := r.Name
		if f, ok := frontNames[r.Name]; ok {
			name = f.name
		}
		name = getopt.HelpName(name)
		switch {
		case r.Bool != nil:
			v := *r.Bool
			if _, ok := inverted[r.Name]; ok {
				v = !v
			}
			out[name] = v
		case r.Uint32 != nil:
			out[name] = *r.Uint32
		case r.Uint64 != nil:
			out[name] = *r.Uint64
		case r.String != nil:
			out[name] = *r.String
		}
	}
	// A swept size is a list; the workload's row holds its first value.
	if len(cfg.Scales) > 1 {
		for _, so := range []string{"table-size", "warehouses"} {
			if _, ok := out[so]; ok {
				out[so] = cfg.Scales
			}
		}
	}
	return out
}

// parseInterval reads --report-interval: whole seconds, as sysbench
// spells it, or a duration ("500ms").
func parseInterval(v string) (time.Duration, error) {
	v = strings.TrimSpace(v)
	if v == "" {
		return 0, nil
	}
	if n, err := strconv.ParseUint(v, 10, 32); err == nil {
		return time.Duration(n) * time.Second, nil
	}
	d, err := time.ParseDuration(v)
	if err != nil || d < 0 || (d > 0 && d < 10*time.Millisecond) {
		return 0, Exitf(1, "invalid value '%s' for --report-interval: want whole seconds (10) or a duration of at least 10ms", v)
	}
	return d, nil
}

// intervalPrinter prints the workload's interval line
// (wlreport.IntervalLiner: tpcc-mysql's for TPC-C, sysbench 1.0's for
// OLTP and Lua scripts); a workload without one cannot honour
// --report-interval.
func intervalPrinter(name string, wl workload.Workload, every time.Duration, w io.Writer) (func(results.Interval), error) {
	l, ok := wl.(wlreport.IntervalLiner)
	if !ok {
		return nil, Exitf(1, "--report-interval cannot be honoured with --workload=%s: the workload has no interval line", name)
	}
	return func(iv results.Interval) { fmt.Fprint(w, l.IntervalLine(iv, every)) }, nil
}

// showProgress draws goslap's live line on the terminal f during each
// run, fed by one-second snapshots of the statements done.
func showProgress(cfg *orchestrator.Config, f *os.File) {
	var done atomic.Uint64
	var line *progressLine
	cfg.ReportInterval = time.Second
	cfg.Observer.Interval = func(iv results.Interval) {
		done.Add(iv.Tally.Reads + iv.Tally.Writes + iv.Tally.Other)
	}
	begin, end := cfg.Observer.Begin, cfg.Observer.Iteration
	cfg.Observer.Begin = func(target string, it workload.Iteration) {
		if begin != nil {
			begin(target, it)
		}
		done.Store(0)
		label := fmt.Sprintf("%s, %d clients, iteration %d/%d", cfg.Workload, it.Clients, it.Number, cfg.Iterations)
		if len(cfg.Targets) > 0 {
			label = target + ", " + label
		}
		line = startProgress(f, label, 0, cfg.Duration+cfg.Warmup, done.Load)
	}
	cfg.Observer.Iteration = func(target string, b *results.Benchmark) error {
		line.end()
		line = nil
		if end != nil {
			return end(target, b)
		}
		return nil
	}
}
