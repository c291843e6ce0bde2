package sysbench

import (
	"context"
	"fmt"
	"io"
	"path/filepath"
	"strings"
	"time"

	"github.com/go-sql-driver/mysql"

	"github.com/goslap/goslap/internal/compare"
	"github.com/goslap/goslap/internal/orchestrator"
	"github.com/goslap/goslap/internal/results"
	"github.com/goslap/goslap/internal/workload"
	"github.com/goslap/goslap/internal/workload/oltp"
)

// Extras are goslap's options on top of a sysbench command line: targets,
// sandboxes, a chart, per-op latency lines and iterations. With any of
// them the command runs through the study runner (internal/orchestrator), one
// sysbench report per run, then the side-by-side table.
type Extras struct {
	Targets        []string // --target=LABEL:sandbox|server...
	Sandbox        string   // --sandbox[=BINARY]
	SandboxSet     bool
	SandboxOptions []string // --sandbox-option=NAME=VALUE
	Plot           string   // --plot=FILE.svg|png|pdf
	Latency        bool     // --latency: p50..max line under each report
	Iterations     int      // --iterations=N: each thread count N times
	// Rounds is --rounds=N: the whole matrix N times, the targets
	// interleaved at every point, with a verdict per point.
	Rounds int
	// Metric is --compare-metric ("": the workload's own).
	Metric string
	// JSON is --json[=FILE]: goslap's result document, on stdout when
	// JSON is "" (then stdout holds nothing else).
	JSON    string
	JSONSet bool
	jsonOut io.Writer // the document's stdout (Main sends the rest to stderr)
	// ServerMetricsOff is --server-metrics=off: no sampling of the
	// server's counters, CPU and IO; ServerPID (--server-pid=N) names the
	// server's process; ServerReport (--server-report) prints the
	// "Server:" lines under each report.
	ServerMetricsOff bool
	ServerPID        int
	ServerReport     bool
}

// Active reports whether the command needs the study runner.
func (e Extras) Active() bool {
	return len(e.Targets) > 0 || e.SandboxSet || e.Plot != "" || e.Latency || e.Iterations > 1 || e.Rounds > 1 || e.JSONSet || e.ServerReport
}

// runStudy runs the command with goslap's extras. A sandbox starts empty,
// so on sandboxes "run" prepares, runs and cleans up in one go.
func runStudy(ctx context.Context, c *Config, settings workload.Settings, base *mysql.Config, seed uint64, out, errw io.Writer) error {
	e := c.Extras
	started := time.Now()
	stdout := out
	if e.JSONSet && e.JSON == "" {
		out = io.Discard // stdout is the document's alone
		if e.jsonOut != nil {
			stdout = e.jsonOut
		}
	} else if e.JSONSet {
		if err := checkWritable(e.JSON); err != nil {
			return fatalf("--json=%s: cannot write the file: %v", e.JSON, err)
		}
	}
	cfg := &orchestrator.Config{Workload: c.Workload, Settings: settings,
		Common:     workload.Common{Schema: c.MySQL.DB, Seed: seed, Verbose: 1},
		Iterations: max(e.Iterations, 1), Rounds: e.Rounds, Metric: e.Metric, Percentile: float64(c.Percentile), Events: c.Events, Duration: time.Duration(c.Time) * time.Second,
		Rate: float64(c.Rate), Ignore: c.ignore(), DefaultBinary: e.Sandbox, SandboxOptions: e.SandboxOptions, Plot: e.Plot}
	if cfg.Ignore == nil {
		cfg.Ignore = func(uint16) bool { return false }
	}
	cfg.Clients = c.ThreadList
	if cfg.Clients == nil {
		cfg.Clients = []int{c.Threads}
	}
	for _, spec := range e.Targets {
		t, err := compare.ParseTarget(spec)
		if err != nil {
			return fatalf("--target: %v", err)
		}
		cfg.Targets = append(cfg.Targets, t)
	}
	if e.SandboxSet && len(e.Targets) == 0 {
		label := "sandbox"
		if e.Sandbox != "" {
			label = filepath.Base(e.Sandbox)
		}
		cfg.Targets = []compare.Target{{Label: label, Kind: compare.Sandbox}}
	}
	sandboxes := false
	for _, t := range cfg.Targets {
		sandboxes = sandboxes || t.Kind == compare.Sandbox
	}
	switch {
	case sandboxes && c.Command == "run":
		cfg.Phase = orchestrator.PhaseAll
	case sandboxes:
		return fatalf("the %s command cannot be honoured on a sandbox: it starts empty and is removed afterwards, so \"run\" prepares, runs and cleans up there", c.Command)
	default:
		cfg.Phase = orchestrator.Phase(c.Command)
	}
	cfg.Driver = func(ep compare.Endpoint, schema string) (*mysql.Config, error) {
		d := base.Clone()
		d.DBName = schema
		switch {
		case ep.Sandbox:
			d.Net, d.Addr, d.User, d.Passwd, d.TLSConfig = "unix", ep.Socket, "root", "", "false"
			return d, nil
		case ep.Socket != "":
			d.Net, d.Addr = "unix", ep.Socket
		case ep.Host != "" || ep.Port != 0:
			host, port := ep.Host, ep.Port
			if host == "" {
				host = "127.0.0.1"
			}
			if port == 0 {
				port = 3306
			}
			d.Net, d.Addr = "tcp", fmt.Sprintf("%s:%d", host, port)
		}
		if ep.User != "" {
			d.User = ep.User
		}
		if ep.PasswordSet {
			d.Passwd = ep.Password
		}
		return d, nil
	}
	pct := c.Percentile
	cfg.Observer = orchestrator.Observer{
		Target: func(label string) {
			if len(cfg.Targets) > 1 {
				fmt.Fprintf(out, "Target: %s\n\n", label)
			}
		},
		Log: func(format string, args ...any) {
			if !strings.HasPrefix(format, "target ") {
				fmt.Fprintf(out, format+"\n", args...)
				return
			}
			fmt.Fprintf(errw, "goslap: "+format+"\n", args...)
		},
		Say: func(format string, args ...any) {
			// Every drop is said, on stderr when stdout is the document's.
			w := out
			if w == io.Discard {
				w = errw
			}
			fmt.Fprintf(w, format+"\n", args...)
		},
		Begin: func(_ string, it workload.Iteration) {
			h := header(c, it.Clients, nil, errw)
			h.Write(out)
		},
		Iteration: func(_ string, b *results.Benchmark) error {
			if c.Dialect == Dialect04 {
				fmt.Fprint(out, Trailer04(len(b.Clients), b.StoppedBy == "time"))
			}
			r := FromBenchmark(b, c.Dialect, pct)
			if err := r.Write(out); err != nil {
				return err
			}
			if e.Latency {
				fmt.Fprintf(out, "Latency percentiles (ms, goslap): %s\n", orchestrator.Percentiles(b.Total().Service))
			}
			fmt.Fprintln(out)
			return nil
		},
	}
	if c.ReportInterval > 0 {
		cfg.ReportInterval = time.Duration(c.ReportInterval) * time.Second
		cfg.Observer.Interval = func(iv results.Interval) { fmt.Fprint(out, oltp.IntervalLine(iv, pct)) }
	}
	if err := cfg.Check(); err != nil {
		return fatalf("%v", err)
	}
	cfg.ReadServers = e.JSONSet
	// Sampled when the Server: lines are asked for, when targets are
	// compared or with --report-interval, as before intervals were kept
	// in every run (BENCHMARKS.md, "Interval recording"): the sampler
	// opens a connection of its own and may print warnings, which a
	// plain run and an output option (--json, --plot) must not add.
	shown := e.ServerReport || len(cfg.Targets) > 1 || cfg.ReportInterval > 0
	cfg.ServerMetrics = orchestrator.Metrics{Off: e.ServerMetricsOff || !shown, PID: e.ServerPID}
	if !cfg.ServerMetrics.Off && (e.ServerReport || len(cfg.Targets) > 1) {
		cfg.Observer.Cell = func(cell *orchestrator.Cell) error {
			for _, l := range orchestrator.ServerLines(cell, "transaction") {
				fmt.Fprintln(out, l)
			}
			fmt.Fprintln(out)
			return nil
		}
	}
	res, err := orchestrator.Run(ctx, cfg)
	if err == nil {
		err = orchestrator.Finish(out, cfg, res)
	}
	if e.JSONSet && (res != nil || err == nil) {
		if jerr := writeJSON(stdout, c, cfg, res, started, err); jerr != nil && err == nil {
			err = jerr
		}
	}
	if err != nil {
		// The study words a client's error its way; a connect error is
		// sysbench's FATAL lines.
		return orchestrator.Wording{Connect: wording.Connect}.Word(err)
	}
	return nil
}
