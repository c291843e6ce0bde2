package mysqlslap

import (
	"fmt"
	"io"

	"github.com/goslap/goslap/internal/orchestrator"
	"github.com/goslap/goslap/internal/target"
)

// metrics is the sampling of mysqlslap's load: on with --server-report
// only, so a plain command line opens no extra connection and prints what
// mysqlslap prints, and --json does not change what is measured (the
// interval snapshots the sampling needs cost throughput at a few clients:
// BENCHMARKS.md, "Server metrics"). Units are queries.
func (r *runner) metrics() *orchestrator.Metrics {
	out := r.c.Outputs
	if !out.ServerMetrics || r.serverCfg == nil || !out.ServerReport {
		return nil
	}
	return &orchestrator.Metrics{Driver: r.serverCfg, PID: out.ServerPID, Unit: "query",
		Warn: func(line string) { fmt.Fprintf(r.out.Stderr, "%s: warning: %s\n", ProgName, line) }}
}

// writeServerLines prints the cell's Server: lines (--server-report)
// under its Benchmark block.
func writeServerLines(w io.Writer, c *orchestrator.Cell) error {
	lines := orchestrator.ServerLines(c, "query")
	if len(lines) == 0 {
		return nil
	}
	for _, l := range lines {
		if _, err := fmt.Fprintf(w, "\t%s\n", l); err != nil {
			return err
		}
	}
	_, err := fmt.Fprintln(w)
	return err
}

// checkSampling refuses the sampling options this command line cannot
// honour, as every front end does (orchestrator.CheckSampling): sampled
// says whether the run samples the server; targets are the run's (none:
// the one server of the connection options).
func checkSampling(o *Options, sampled bool, targets []target.Target) error {
	servers := 0
	for _, t := range targets {
		if t.Kind != target.Sandbox {
			servers++
		}
	}
	if len(targets) == 0 {
		servers = 1
	}
	err := orchestrator.CheckSampling(orchestrator.SamplingAsk{Report: o.Ext.ServerReport, Off: !o.Ext.ServerMetrics,
		OffName: "--skip-server-metrics", PID: o.Ext.ServerPID, Sampled: sampled, Servers: servers})
	if err != nil {
		return Exitf(1, "%v", err)
	}
	return nil
}
