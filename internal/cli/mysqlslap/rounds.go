package mysqlslap

// mysqlslap's own load in rounds (--rounds=N without --workload): the
// orchestrator's one driver of rounds (orchestrator.RunRounds) runs the
// targets interleaved, or in turn, each side being this front end's
// runner; each round's Benchmark block is mysqlslap's, and the end adds
// the side-by-side table and the verdicts on queries per second.

import (
	"context"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/goslap/goslap/internal/interrupt"
	"github.com/goslap/goslap/internal/orchestrator"
	"github.com/goslap/goslap/internal/target"
)

// checkRounds is Validate's step for --rounds and --sides-in-turn on
// mysqlslap's load: the number, and the options a run of rounds cannot
// honour.
func checkRounds(c *Config, o *Options) error {
	w := &o.workload
	if w.Rounds == "" {
		if w.InTurn {
			return Exitf(1, "--sides-in-turn starts the sides one at a time within each round: it needs --rounds=N (N >= 2)")
		}
		return nil
	}
	n, err := strconv.Atoi(strings.TrimSpace(w.Rounds))
	if err != nil || n < 1 || n > 1000 {
		return Exitf(1, "invalid value '%s' for --rounds: want a whole number from 1 to 1000", w.Rounds)
	}
	switch {
	case o.OnlyPrint:
		return Exitf(1, "--rounds runs the load several times: --only-print runs nothing")
	case o.Ext.Shard.Shard != "":
		return Exitf(1, "--rounds=%d cannot be sharded: rounds pair the sides of a comparison (targets, swept server-option values) and a sharded run measures one server; run the rounds in one process", n)
	case w.InTurn && n < 2:
		return Exitf(1, "--sides-in-turn starts the sides one at a time within each round: it needs --rounds=N (N >= 2)")
	}
	c.Rounds, c.InTurn = n, w.InTurn
	return nil
}

// RunRounds is Main's entry point for --rounds=N (N >= 2) on mysqlslap's
// load: signals as RunTargets handles them.
func RunRounds(c *Config, out Output) error {
	w := interrupt.Start(ProgName, out.Stderr)
	defer w.Stop()
	w.Patient(interrupt.SandboxPatience)
	return RunRoundsContext(w.Context(), c, out, "")
}

// RunRoundsContext runs the load c.Rounds times on every target (or the
// command line's one server), interleaved or in turn; cancelling ctx has
// the effect of Ctrl-C. tempDir is the parent of the sandboxes'
// directories ("" for the system default).
func RunRoundsContext(ctx context.Context, c *Config, out Output, tempDir string) error {
	// As RunTargets: --target lists compare (labels in the lines and
	// errors); --sandbox alone runs its one sandbox.
	comparing, targets, verbose := c.Sandbox.Compare, c.Targets, c.Outputs.Verbose
	if len(targets) == 0 {
		targets = []target.Target{{Label: c.Connection.label(), Kind: target.Server}}
	}
	plan := orchestrator.RoundsPlan{Rounds: c.Rounds, InTurn: c.InTurn, Targets: targets, Clients: c.Plan.Concurrency,
		Compare:    target.Config{DefaultBinary: c.Sandbox.Binary, SandboxOptions: c.Sandbox.ServerOptions, Base: c.Connection.endpoint(), TempDir: tempDir},
		Unlabelled: !comparing}
	for _, e := range c.Plan.Engines {
		plan.Engines = append(plan.Engines, orchestrator.Engine{Name: e.Name, Options: e.Options})
	}
	if !c.Silent || verbose > 0 {
		say := func(line string) { fmt.Fprintf(out.Stderr, "%s: %s\n", ProgName, line) }
		plan.Compare.Progress = func(label, msg string) {
			if comparing {
				msg = "target " + label + ": " + msg
			}
			say(msg)
		}
		plan.Log = func(format string, args ...any) { say(fmt.Sprintf(format, args...)) }
	}
	if verbose > 0 {
		plan.Compare.Start = target.DescribingStarter(func(_, line string) {
			fmt.Fprintf(out.Stderr, "%s: sandbox: %s\n", ProgName, line)
		})
	}
	plan.Open = func(ctx context.Context, label string, ep target.Endpoint, _ string) (*orchestrator.RoundSide, error) {
		tout := out
		tout.Target = label
		cc := c
		if len(c.Targets) > 0 {
			cc = c.connectingTo(ep)
		}
		if out.Record != nil {
			// The document lists the targets in the order they start.
			out.Record.addRounds(label, nil, nil, []int{})
		}
		r, err := startRun(ctx, cc, tout)
		if err != nil {
			return nil, err
		}
		loop := r.loop()
		loop.Target = label // the cells' side
		return &orchestrator.RoundSide{Loop: loop, Main: r.main, Close: func(err error) error {
			err = r.finish(err)
			if out.Record != nil {
				out.Record.addRounds(label, r.server, r.results, append([]int{}, r.rounds...))
			}
			return err
		}}, nil
	}
	res := &orchestrator.Result{}
	err := orchestrator.RunRounds(ctx, plan, res)
	// The verdicts' configuration: the rounds, the targets, the chart.
	vcfg := &orchestrator.Config{Workload: workloadName, Rounds: c.Rounds, Targets: c.Targets, Plot: c.Outputs.Plot, Table: true}
	if out.Record != nil {
		out.Record.describe(targets, res.Outcomes)
		out.Record.Rounds = c.Rounds
		out.Record.Comparison = orchestrator.Comparison(vcfg, res)
	}
	if err != nil {
		return targetExitError(ctx, err, comparing)
	}
	w := out.Stdout
	if c.Outputs.stdoutIsData() { // not into CSV or JSON on stdout
		w = nil
	}
	if w != nil && !c.Silent {
		fmt.Fprintln(w)
	}
	if w == nil {
		vcfg.Table = false
		w = io.Discard
	}
	if err := orchestrator.Finish(w, vcfg, res); err != nil {
		return Exitf(1, "%v", err)
	}
	return nil
}
