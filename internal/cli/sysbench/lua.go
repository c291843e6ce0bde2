package sysbench

import (
	"context"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"sort"
	"strings"

	"github.com/goslap/goslap/internal/results"
	"github.com/goslap/goslap/internal/workload"
	"github.com/goslap/goslap/internal/workload/luascript"
)

// The sysbench front end's part of running a Lua script (workload
// luascript): the script reads sysbench's general options through
// sysbench.opt, declares its own options and commands, and may replace the
// interval and final reports with its hooks.

// configureScript gives a script's settings what the command line says
// and loads the script (its options become the workload's rows).
func configureScript(c *Config, s workload.Settings) error {
	ls, ok := s.(*luascript.Settings)
	if !ok || c.Script == "" {
		return nil
	}
	ls.Out = c.out
	ls.Argv = append([]string{"sysbench"}, c.args...)
	ls.Ignore = c.ignore()
	ls.Percentile = c.Percentile
	hosts := append([]string(nil), c.MySQL.Hosts...)
	if len(hosts) == 0 {
		hosts = []string{"localhost"}
	}
	var ports []string
	for _, p := range c.MySQL.Ports {
		ports = append(ports, fmt.Sprint(p))
	}
	if len(ports) == 0 {
		ports = []string{"3306"}
	}
	var ignored []string
	if c.MySQL.IgnoreAll {
		ignored = []string{"all"}
	}
	for _, n := range c.MySQL.IgnoreErrors {
		ignored = append(ignored, fmt.Sprint(n))
	}
	ls.General = map[string]any{
		"events": float64(c.Events), "time": float64(c.Time), "rate": float64(c.Rate),
		"report_interval": float64(c.ReportInterval), "percentile": float64(c.Percentile),
		"verbosity": 3.0, "histogram": false, "debug": false, "validate": false, "forced_shutdown": "off",
		"warmup_time": 0.0, "db_debug": false, "mysql_host": hosts, "mysql_port": ports,
		"mysql_socket": append([]string(nil), c.MySQL.Sockets...), "mysql_user": c.MySQL.User,
		"mysql_password": c.MySQL.Password, "mysql_db": c.MySQL.DB, "mysql_ssl": c.MySQL.SSL,
		"mysql_compression": c.MySQL.Compression, "mysql_ignore_errors": ignored,
		"mysql_dry_run": false, "mysql_debug": false,
	}
	if c.Engine != "" {
		ls.General["mysql_storage_engine"] = c.Engine
	}
	if err := ls.SetScript(c.Script, c.Command); err != nil {
		return fatalf("%s", err)
	}
	if !ls.DeclaresOptions() {
		// sysbench's legacy scripts (bulk_insert.lua) declare no options
		// and take any: the script reads them as strings.
		rows := map[string]bool{}
		for _, o := range ls.Options() {
			rows[o.Name] = true
		}
		kept := c.WorkloadArgs[:0]
		for _, a := range c.WorkloadArgs {
			if rows[a.Name] {
				kept = append(kept, a)
				continue
			}
			v := a.Value
			if !a.HasValue {
				v = "on"
			}
			ls.SetLegacy(a.Name, v)
		}
		c.WorkloadArgs = kept
	}
	return nil
}

// scriptName is how sysbench names a script in its messages: the test as
// given, without its directory.
func scriptName(c *Config) string { return filepath.Base(c.Test) }

// scriptHelp prints a script's help as sysbench does: its help() when it
// has one, else its options.
func scriptHelp(ctx context.Context, c *Config, s workload.Settings, out io.Writer) error {
	ls := s.(*luascript.Settings)
	wl, err := ls.Build(luascript.Name, workload.Common{Schema: c.MySQL.DB, Seed: 1})
	if err != nil {
		return err
	}
	w := wl.(*luascript.Workload)
	if ls.HasHelp() {
		return w.RunCommand(ctx, nil, "help", 1)
	}
	if !ls.DeclaresOptions() {
		return &ParseError{Msg: fmt.Sprintf("'%s' test does not implement the 'help' command.", scriptName(c)), Stdout: true}
	}
	fmt.Fprintf(out, "%s options:\n", scriptName(c))
	w.WriteOptions(out)
	fmt.Fprintln(out)
	return nil
}

// scriptCommand runs one of a script's own commands (prewarm, check, ...).
func scriptCommand(ctx context.Context, c *Config, wl workload.Workload, s *workload.Session, threads int) error {
	w := wl.(*luascript.Workload)
	if !w.HasCommand(c.Command) {
		var names []string
		for n := range w.Commands() {
			names = append(names, n)
		}
		sort.Strings(names)
		return fatalf("Unknown command: %s (%s declares: %s)", c.Command, scriptName(c), strings.Join(names, ", "))
	}
	return w.RunCommand(ctx, s, c.Command, threads)
}

// scriptCommandRequired is the error for a script run without a command:
// the commands this script has.
func scriptCommandRequired(c *Config, s workload.Settings) string {
	ls := s.(*luascript.Settings)
	names := []string{"run"}
	for _, n := range []string{"prepare", "cleanup", "help"} {
		if ls.HasCommand(n) {
			names = append(names, n)
		}
	}
	var own []string
	for n := range ls.Commands() {
		if n != "prepare" && n != "cleanup" && n != "help" && n != "run" {
			own = append(own, n)
		}
	}
	sort.Strings(own)
	return fmt.Sprintf("FATAL: Command is required. Supported commands: %s", strings.Join(append(names, own...), ", "))
}

// scriptCommandWord reports whether a command goes to scriptCommand.
func scriptCommandWord(c *Config) bool {
	switch c.Command {
	case "prepare", "cleanup", "run", "help", "":
		return false
	}
	return c.Script != ""
}

// scriptIntervals replaces the interval line with the script's
// report_intermediate hook when it sets one.
func scriptIntervals(wl workload.Workload, pct int, out io.Writer, line func(results.Interval)) func(results.Interval) {
	w, ok := wl.(*luascript.Workload)
	if !ok || !w.HasHook("report_intermediate") {
		return line
	}
	return func(iv results.Interval) {
		lat := iv.Latency.Kept(pct)
		st := luascript.Stat{ThreadsRunning: iv.Clients, TimeInterval: iv.Length.Seconds(), TimeTotal: iv.At.Seconds(),
			LatencyPct: float64(lat) / 1e6, Events: iv.Events, Reads: iv.Tally.Reads, Writes: iv.Tally.Writes,
			Other: iv.Tally.Other, Errors: iv.Errors, Reconnects: iv.Reconnects}
		if err := w.ReportIntermediate(st); err != nil {
			fmt.Fprintln(out, "FATAL: "+err.Error())
		}
	}
}

// scriptReport adds what the script counted itself to the report and
// writes it, or calls the script's report_cumulative hook instead.
func scriptReport(wl workload.Workload, r *Report, threads int, out io.Writer) (handled bool, err error) {
	w, ok := wl.(*luascript.Workload)
	if !ok {
		return false, nil
	}
	defer w.Close()
	e, rc := w.Extra()
	r.IgnoredErrors += e
	r.Reconnects += rc
	if !w.HasHook("report_cumulative") {
		return false, nil
	}
	st := luascript.Stat{ThreadsRunning: threads, TimeInterval: r.Seconds, TimeTotal: r.Seconds,
		LatencyPct: r.Pct / 1000, Events: r.Events, Reads: r.Reads, Writes: r.Writes, Other: r.Other,
		Errors: r.IgnoredErrors, Reconnects: r.Reconnects, LatencyMin: r.Min / 1000, LatencyMax: r.Max / 1000,
		LatencyAvg: r.Avg / 1000, LatencySum: r.Sum / 1000}
	return true, w.ReportCumulative(st)
}

// scriptRunError words a script's error (a Lua error, or an SQL error the
// script did not handle) as sysbench does: "`event' function failed: ...".
func scriptRunError(err error) (error, bool) {
	var se *luascript.ScriptError
	if errors.As(err, &se) {
		return errors.New(se.Msg), true
	}
	return nil, false
}

// scriptIgnore is the engine's Ignore for a script: its own errors are
// never tolerated.
func scriptIgnore(c *Config, ignore func(uint16) bool) func(uint16) bool {
	if c.Script == "" {
		return ignore
	}
	return luascript.Tolerate(ignore)
}
