package mysqlslap

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"regexp"

	"github.com/goslap/goslap/internal/chart"
	"github.com/goslap/goslap/internal/interrupt"
	"github.com/goslap/goslap/internal/results/matrix"
	"github.com/goslap/goslap/internal/target"
)

// sandboxTargets is Validate's sandbox step: it reports option
// combinations that make no sense with the sandbox options before anything
// starts (a mistake must not cost a sandbox start-up) and returns the
// targets of the run: one per --target, or --sandbox's alone; none
// without either.
func sandboxTargets(o *Options) ([]target.Target, error) {
	s := &o.Ext.Sandbox
	if len(s.ServerOptions) > 0 && !s.Active() {
		return nil, Exitf(1, "--sandbox-option needs --sandbox or a --target=LABEL:sandbox")
	}
	if o.OnlyPrint && (s.Active() || s.Plot != "") {
		return nil, Exitf(1, "--only-print runs nothing: it cannot be combined with --sandbox, --target or --plot")
	}
	for _, opt := range s.ServerOptions {
		if !serverOption.MatchString(opt) {
			return nil, Exitf(1, "--sandbox-option=%s: not NAME=VALUE (a server option, e.g. innodb_buffer_pool_size=1G, or a bare NAME such as skip-name-resolve)", opt)
		}
	}
	// The sandbox confinement rule, before anything starts.
	if err := target.CheckSandboxOptions(s.ServerOptions, target.Target{}); err != nil {
		return nil, exitWith(err)
	}
	var targets []target.Target
	defaultUsed := false
	for _, spec := range s.Targets {
		t, err := target.ParseTarget(spec)
		if err != nil {
			return nil, Exitf(1, "--target: %v", err)
		}
		for _, opt := range t.ServerOptions {
			if !serverOption.MatchString(opt) {
				return nil, Exitf(1, "--target %s: server option %q is not NAME=VALUE", t.Label, opt)
			}
		}
		if err := target.CheckSandboxOptions(nil, t); err != nil {
			return nil, Exitf(1, "--target %s: %v", t.Label, err)
		}
		defaultUsed = defaultUsed || (t.Kind == target.Sandbox && t.Binary == "")
		targets = append(targets, t)
	}
	// With --target, --sandbox=BINARY only names the binary of sandbox
	// targets that name none; anywhere else it would be silently ignored.
	switch {
	case !s.SandboxSet || len(s.Targets) == 0:
	case s.Sandbox == "":
		return nil, Exitf(1, "--sandbox does nothing with --target: add a sandbox target instead, e.g. --target=LABEL:sandbox[:BINARY]")
	case !defaultUsed:
		return nil, Exitf(1, "--sandbox=%s is used by no --target (it is the binary of LABEL:sandbox targets that name none): "+
			"add a sandbox target instead, e.g. --target=LABEL:sandbox", s.Sandbox)
	}
	if s.SandboxSet && len(targets) == 0 {
		label := "sandbox"
		if s.Sandbox != "" {
			label = filepath.Base(s.Sandbox)
		}
		targets = []target.Target{{Label: label, Kind: target.Sandbox}}
	}
	return targets, nil
}

// serverOption is what a sandbox passes to the server as --NAME[=VALUE]:
// one word of option characters, then anything after '='.
var serverOption = regexp.MustCompile(`^[A-Za-z][A-Za-z0-9_.-]*(=.*)?$`)

// RunTargets is Main's entry point when SandboxOptions.Active(): it runs the
// plan against the sandbox (--sandbox alone) or against every --target in
// turn, prints each run's mysqlslap report, then (with --target) the
// side-by-side table, and writes the --plot chart.
//
// The first SIGINT, SIGTERM, SIGHUP or SIGQUIT cancels the run: the benchmark stops, every
// sandbox is stopped and its directory removed, and the error is an
// ExitError with status 130. Further signals are ignored until the clean-up
// (bounded by the server's shutdown) is done — unlike RunWithSignals, which
// exits at once on a second signal, because a sandbox must not outlive us.
func RunTargets(c *Config, out Output) ([]target.Outcome, error) {
	w := interrupt.Start(ProgName, out.Stderr)
	defer w.Stop()
	w.Patient(interrupt.SandboxPatience)
	return RunTargetsContext(w.Context(), c, out, "")
}

// RunTargetsContext is RunTargets without signal handling: cancelling ctx
// has the effect of Ctrl-C. tempDir is the parent of the sandboxes'
// directories ("" for the system default; tests pass their own).
func RunTargetsContext(ctx context.Context, c *Config, out Output, tempDir string) ([]target.Outcome, error) {
	comparing, targets, verbose := c.Sandbox.Compare, c.Targets, c.Outputs.Verbose
	cfg := target.Config{
		DefaultBinary:  c.Sandbox.Binary,
		SandboxOptions: c.Sandbox.ServerOptions,
		Base:           c.Connection.endpoint(),
		TempDir:        tempDir,
		Bench: func(ctx context.Context, label string, ep target.Endpoint) ([]matrix.Point, error) {
			if comparing && !c.Silent {
				fmt.Fprintf(out.Stdout, "Target: %s\n", label)
			}
			tout := out
			tout.Target = label
			results, err := Run(ctx, c.connectingTo(ep), tout)
			return ComparePoints(results), err
		},
	}
	if verbose > 0 {
		// Which system-table SQL, messages and plugins each sandbox uses:
		// the first thing to look at when two releases behave differently.
		cfg.Start = target.DescribingStarter(func(_, line string) {
			fmt.Fprintf(out.Stderr, "%s: sandbox: %s\n", ProgName, line)
		})
	}
	if !c.Silent || verbose > 0 {
		cfg.Progress = func(label, msg string) {
			if comparing {
				fmt.Fprintf(out.Stderr, "%s: target %s: %s\n", ProgName, label, msg)
			} else {
				fmt.Fprintf(out.Stderr, "%s: %s\n", ProgName, msg)
			}
		}
	}
	outcomes, err := target.Run(ctx, targets, cfg)
	if out.Record != nil {
		out.Record.describe(targets, outcomes)
	}
	if err != nil {
		return outcomes, targetExitError(ctx, err, comparing)
	}
	if comparing && !c.Outputs.stdoutIsData() { // not into CSV or JSON on stdout
		if !c.Silent {
			fmt.Fprintln(out.Stdout)
		}
		if err := matrix.WriteTable(out.Stdout, target.Columns(outcomes)); err != nil {
			return outcomes, Exitf(1, "writing the comparison: %v", err)
		}
	}
	if plot := c.Outputs.Plot; plot != "" {
		if err := chart.WriteFile(plot, target.Columns(outcomes)); err != nil {
			return outcomes, Exitf(1, "--plot: %v", err)
		}
	}
	return outcomes, nil
}

// targetExitError turns a comparison error into Main's ExitError: the
// runner's own ExitErrors keep their status and gain the target's label;
// an interruption is status 130.
func targetExitError(ctx context.Context, err error, comparing bool) error {
	if ctx.Err() != nil {
		return errInterruptedExit()
	}
	var te *target.TargetError
	var ee *ExitError
	if errors.As(err, &ee) {
		if !comparing || !errors.As(err, &te) {
			return ee
		}
		msg := ee.Msg
		if len(msg) > len(ProgName)+2 && msg[:len(ProgName)+2] == ProgName+": " {
			msg = msg[len(ProgName)+2:]
		}
		return &ExitError{Code: ee.Code, Msg: ProgName + ": target " + te.Label + ": " + msg, Err: ee.Err}
	}
	if !comparing && errors.As(err, &te) {
		err = te.Err
	}
	return exitWith(err)
}

// PlotRun writes the --plot chart of a plain run (no sandbox, no targets):
// one line per engine, labelled with the server's address (label).
func PlotRun(path, label string, results []BenchmarkResult) error {
	outcome := target.Outcome{Target: target.Target{Label: label, Kind: target.Server}, Points: ComparePoints(results)}
	if err := chart.WriteFile(path, target.Columns([]target.Outcome{outcome})); err != nil {
		return Exitf(1, "--plot: %v", err)
	}
	return nil
}

// ComparePoints converts runner results into comparison points.
//
// Queries per second is the runner's measurement (statements executed in
// the measured part of all iterations ÷ their exact wall time) when it has
// one. Otherwise (results not produced by Run) it is an approximation:
// clients × the configured queries per client (mysqlslap's "Average number
// of queries per client") ÷ the mean iteration time; an iteration shorter
// than 1 ms then gives 0 (unknown). The seconds column is the exact mean of
// the whole-millisecond iteration times mysqlslap reports; P99 is the
// runner's 99th percentile query latency (0 when not measured).
func ComparePoints(results []BenchmarkResult) []matrix.Point {
	pts := make([]matrix.Point, 0, len(results))
	for i := range results {
		r := &results[i]
		var sum int64
		for _, ms := range r.IterationMillis {
			sum += ms
		}
		p := matrix.Point{Concurrency: r.Concurrency, Iterations: len(r.IterationMillis)}
		if r.HasEngine {
			p.Engine = r.Engine
		}
		if n := len(r.IterationMillis); n > 0 {
			p.AvgSeconds = float64(sum) / float64(n) / 1000
		}
		switch {
		case r.Executed > 0 && r.QPS > 0:
			p.QPS = r.QPS
		case p.AvgSeconds > 0:
			p.QPS = float64(r.Concurrency) * float64(r.QueriesPerClient) / p.AvgSeconds
		}
		p.P99Millis = float64(r.P99Micros()) / 1000
		pts = append(pts, p)
	}
	return pts
}

// connectingTo is a copy of c that connects to ep (Connection.to).
func (c *Config) connectingTo(ep target.Endpoint) *Config {
	t := *c
	t.Connection = c.Connection.to(ep)
	return &t
}
