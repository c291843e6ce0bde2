package orchestrator

import (
	"fmt"
	"io"
	"strconv"
	"strings"
	"text/tabwriter"

	"github.com/goslap/goslap/internal/chart"
	"github.com/goslap/goslap/internal/latency"
	"github.com/goslap/goslap/internal/ownership"
	"github.com/goslap/goslap/internal/results"
	"github.com/goslap/goslap/internal/results/matrix"
	"github.com/goslap/goslap/internal/target"
	"github.com/goslap/goslap/internal/workload"
	"github.com/goslap/goslap/internal/workload/report"
)

// TextReport is the report of goslap's own command line: per cell,
// mysqlslap's Benchmark block (so sweeps read as they always have) and
// under it the workload's lines; after prepare, the on-disk sizes.
type TextReport struct {
	Out, Err io.Writer
	// Engines says an engine list was given (mysqlslap prints its
	// "Running for engine" line only then).
	Engines bool
	// Latency adds one line per op of the workload.
	Latency bool
	// Targets prints "Target: LABEL" before each target's blocks.
	Targets bool
	// ScaleLabel names the size axis ("table size").
	ScaleLabel string
	// Ops are the workload's op names (Workload.Ops), for --latency.
	Ops []string
	// Server adds the "Server:" block under each cell (metrics_report.go):
	// the server's figures per Unit ("transaction" when "").
	Server bool
	Unit   string
}

// Observer returns the observer that prints the report.
func (t *TextReport) Observer() Observer {
	return Observer{
		Target: func(label string) {
			if t.Targets {
				fmt.Fprintf(t.Out, "Target: %s\n", label)
			}
		},
		Prepared: func(target, setting string, p workload.Point, sizes []TableSize) {
			t.writeSizes(target, setting, p, sizes)
		},
		Cell: func(c *Cell) error { return t.WriteCell(c) },
		Log: func(format string, args ...any) {
			fmt.Fprintf(t.Err, "goslap: "+format+"\n", args...)
		},
		Say: func(format string, args ...any) {
			fmt.Fprintf(t.said(), format+"\n", args...)
		},
		Checked: func(_, report string) {
			fmt.Fprint(t.said(), strings.TrimPrefix(report, "\n"))
		},
	}
}

// said is where what must not go unsaid (each drop, a check's outcome)
// goes: beside the report, or to the log's stream when stdout is a JSON
// document's alone (Out discarded).
func (t *TextReport) said() io.Writer {
	if t.Out == io.Discard {
		return t.Err
	}
	return t.Out
}

// ms is a duration in whole milliseconds, as mysqlslap measures.
func formatSeconds(sec float64) string {
	ms := int64(sec * 1000)
	return fmt.Sprintf("%d.%03d", ms/1000, ms%1000)
}

// WriteCell prints one cell's Benchmark block and workload lines.
func (t *TextReport) WriteCell(c *Cell) error {
	s := Summarise(c.Benchmarks)
	var b strings.Builder
	b.WriteString("Benchmark\n")
	if t.Engines && c.Engine.Name != "" {
		b.WriteString("\tRunning for engine " + c.Engine.Name + "\n")
	}
	fmt.Fprintf(&b, "\tAverage number of seconds to run all queries: %s seconds\n", formatSeconds(s.AvgSeconds))
	fmt.Fprintf(&b, "\tMinimum number of seconds to run all queries: %s seconds\n", formatSeconds(s.MinSeconds))
	fmt.Fprintf(&b, "\tMaximum number of seconds to run all queries: %s seconds\n", formatSeconds(s.MaxSeconds))
	clients := cellClients(c)
	fmt.Fprintf(&b, "\tNumber of clients running queries: %d\n", clients)
	perClient := uint64(0)
	if n := len(c.Benchmarks); n > 0 && clients > 0 {
		perClient = s.Statements / uint64(n) / uint64(clients)
	}
	fmt.Fprintf(&b, "\tAverage number of queries per client: %d\n", perClient)
	b.WriteString(t.workloadLines(c, s))
	if t.Server {
		b.WriteString(t.serverLines(c))
	}
	b.WriteString("\n")
	if w, ok := c.Summary.(report.Writer); ok {
		if err := w.Write(&b); err != nil {
			return err
		}
		b.WriteString("\n")
	}
	_, err := io.WriteString(t.Out, b.String())
	return err
}

// cellClients is the number of clients that ran the cell's load here: a
// shard runs its segment of the cell's clients (-c), and its report, like
// its document, counts its own (merge adds them up to -c).
func cellClients(c *Cell) int {
	if len(c.Benchmarks) > 0 && len(c.Benchmarks[0].Clients) > 0 {
		return len(c.Benchmarks[0].Clients)
	}
	return c.Clients
}

func (t *TextReport) workloadLines(c *Cell, s Summary) string {
	var b strings.Builder
	var what []string
	if len(c.Benchmarks) > 0 {
		what = append(what, c.Benchmarks[0].Workload)
	}
	if c.Engine.Options != "" {
		what = append(what, "table options "+c.Engine.Options)
	}
	if c.Scale > 0 {
		label := t.ScaleLabel
		if label == "" {
			label = "size"
		}
		what = append(what, label+" "+strconv.FormatInt(c.Scale, 10))
	}
	if c.Setting != "" {
		what = append(what, "server option "+c.Setting)
	}
	if len(c.Benchmarks) > 1 {
		what = append(what, fmt.Sprintf("%d iterations", len(c.Benchmarks)))
	}
	if c.Round > 0 {
		what = append(what, fmt.Sprintf("round %d of %d", c.Round, c.Rounds))
	}
	fmt.Fprintf(&b, "\tWorkload: %s\n", strings.Join(what, ", "))
	var tally workload.Tally
	for _, bm := range c.Benchmarks {
		tally.Add(bm.Tally)
	}
	fmt.Fprintf(&b, "\tTransactions: %d (%.2f per sec.)\n", s.Events, s.TPS)
	fmt.Fprintf(&b, "\tQueries: %d (%.2f per sec.): read %d, write %d, other %d\n", s.Statements, s.QPS, tally.Reads, tally.Writes, tally.Other)
	all := merged(c.Benchmarks)
	fmt.Fprintf(&b, "\tLatency per transaction (ms): %s\n", Percentiles(all.Service))
	if all.Intended != nil && all.Intended.TotalCount() > 0 {
		fmt.Fprintf(&b, "\tLatency from scheduled start (ms): %s\n", Percentiles(all.Intended))
	}
	if t.Latency && len(t.Ops) > 1 {
		for i, op := range t.Ops {
			r := latency.NewRecorder(false)
			for _, bm := range c.Benchmarks {
				if i < len(bm.Ops) && bm.Ops[i].Recorder != nil {
					r.Merge(bm.Ops[i].Recorder)
				}
			}
			fmt.Fprintf(&b, "\tLatency of %s (ms): %s\n", op, Percentiles(r.Service))
		}
	}
	var ignored uint64
	var byCode []string
	for _, e := range all.SortedErrors() {
		ignored += e.Count
		byCode = append(byCode, fmt.Sprintf("%d: %d", e.Code, e.Count))
	}
	line := fmt.Sprintf("\tIgnored errors: %d", ignored)
	if len(byCode) > 0 {
		line += " (" + strings.Join(byCode, ", ") + ")"
	}
	b.WriteString(line + "\n")
	fmt.Fprintf(&b, "\tReconnects: %d\n", all.Reconnects)
	return b.String()
}

// merged is the per-transaction recording of several benchmarks.
func merged(bs []*results.Benchmark) *latency.Recorder {
	all := latency.NewRecorder(false)
	for _, b := range bs {
		all.Merge(b.Total())
	}
	return all
}

// Percentiles is the p50/p95/p99/p99.9/max line of a histogram, in ms.
func Percentiles(h interface {
	TotalCount() int64
	ValueAtQuantile(float64) int64
	Max() int64
}) string {
	if h == nil || h.TotalCount() == 0 {
		return "-"
	}
	ms := func(us int64) string { return strconv.FormatFloat(float64(us)/1000, 'f', 3, 64) }
	return fmt.Sprintf("p50 %s  p95 %s  p99 %s  p99.9 %s  max %s",
		ms(h.ValueAtQuantile(50)), ms(h.ValueAtQuantile(95)), ms(h.ValueAtQuantile(99)), ms(h.ValueAtQuantile(99.9)), ms(h.Max()))
}

// writeSizes prints the on-disk size table of one prepared point, and a
// warning when the server gave another row format than the one asked for.
func (t *TextReport) writeSizes(target, setting string, p workload.Point, sizes []TableSize) {
	var what []string
	if t.Targets {
		what = append(what, "target "+target)
	}
	if setting != "" {
		what = append(what, setting)
	}
	if p.Engine != "" {
		e := "engine " + p.Engine
		if p.EngineOptions != "" {
			e += " " + p.EngineOptions
		}
		what = append(what, e)
	}
	if p.Scale > 0 {
		what = append(what, t.ScaleLabel+" "+strconv.FormatInt(p.Scale, 10))
	}
	head := "On-disk size after prepare"
	if len(what) > 0 {
		head += " (" + strings.Join(what, ", ") + ")"
	}
	fmt.Fprintln(t.Out, head+":")
	WriteSizes(t.Out, sizes)
	fmt.Fprintln(t.Out)
	if p.Engine != "" {
		for _, s := range sizes {
			if !ownership.SameEngine(p.Engine, s.Engine) {
				fmt.Fprintf(t.Err, "goslap: warning: table %s: engine %s was asked for, the server gave %s\n", s.Table, p.Engine, s.Engine)
			}
		}
	}
	if want := rowFormat(p.EngineOptions); want != "" {
		for _, s := range sizes {
			if !strings.EqualFold(s.RowFormat, want) {
				fmt.Fprintf(t.Err, "goslap: warning: table %s: ROW_FORMAT=%s was asked for, the server gave %s (create options: %s)\n",
					s.Table, want, s.RowFormat, s.CreateOptions)
			}
		}
	}
}

// WriteSizes prints one line per table; for a sandbox, the last column
// lists the table's files in the data directory with their sizes.
func WriteSizes(w io.Writer, sizes []TableSize) {
	files := false
	for _, s := range sizes {
		files = files || len(s.Files) > 0
	}
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	head := "table\tengine\trows\tdata bytes\tindex bytes\trow format\tcharset\tcreate options"
	if files {
		head += "\tfiles (bytes)"
	}
	fmt.Fprintln(tw, head)
	for _, s := range sizes {
		opts := s.CreateOptions
		if opts == "" {
			opts = "-"
		}
		line := fmt.Sprintf("%s\t%s\t%d\t%d\t%d\t%s\t%s\t%s", s.Table, s.Engine, s.Rows, s.DataLength, s.IndexLength, s.RowFormat, s.Charset, opts)
		if files {
			var fs []string
			for _, f := range s.Files {
				fs = append(fs, fmt.Sprintf("%s %d", f.Name, f.Bytes))
			}
			line += "\t" + strings.Join(fs, ", ")
		}
		fmt.Fprintln(tw, line)
	}
	tw.Flush()
}

// rowFormat is the ROW_FORMAT asked for in table options, upper case.
func rowFormat(opts string) string {
	for _, f := range strings.Fields(strings.ReplaceAll(opts, " = ", "=")) {
		if k, v, ok := strings.Cut(f, "="); ok && strings.EqualFold(k, "ROW_FORMAT") {
			return strings.ToUpper(v)
		}
	}
	return ""
}

// Finish prints the side-by-side table (several targets, a server-option
// or table-size sweep, or Config.Table) and writes the chart.
func Finish(w io.Writer, cfg *Config, res *Result) error {
	if res == nil || len(res.Outcomes) == 0 {
		return nil
	}
	if len(res.Outcomes) > 1 || cfg.Server.Active() || len(cfg.Scales) > 1 || cfg.Table {
		if err := matrix.WriteTable(w, target.Columns(res.Outcomes)); err != nil {
			return fmt.Errorf("writing the comparison: %w", err)
		}
		writeTpmC(w, cfg, res.Cells)
		if err := writePoints(w, cfg, res.Cells); err != nil {
			return err
		}
		if err := writeVerdicts(w, cfg, res); err != nil {
			return err
		}
	}
	if cfg.Plot != "" {
		if err := chart.WriteStudyFile(cfg.Plot, target.Columns(res.Outcomes), cfg.axis(), studyChart(cfg, res)); err != nil {
			return fmt.Errorf("--plot: %w", err)
		}
		if err := writeTimeline(cfg, res); err != nil {
			return fmt.Errorf("--plot's timeline: %w", err)
		}
	}
	return nil
}

// writeTpmC prints one line per cell whose workload reports tpmC (TPC-C),
// after the comparison: the study's answer in tpcc-mysql's unit.
func writeTpmC(w io.Writer, cfg *Config, cells []*Cell) {
	type tpmC interface{ TpmC() float64 }
	var rows []string
	for _, c := range cells {
		r, ok := c.Summary.(tpmC)
		if !ok {
			continue
		}
		row := []string{c.Target}
		if cfg.Server.Active() {
			row = append(row, strings.TrimPrefix(c.Setting, cfg.Server.Name+"="))
		}
		if len(cfg.Scales) > 1 {
			row = append(row, strconv.FormatInt(c.Scale, 10))
		}
		engine := c.engineLabel()
		if engine == "" {
			engine = "-"
		}
		row = append(row, engine, strconv.Itoa(c.Clients), strconv.FormatFloat(r.TpmC(), 'f', 1, 64))
		rows = append(rows, strings.Join(row, "\t"))
	}
	if len(rows) == 0 {
		return
	}
	head := []string{"target"}
	if cfg.Server.Active() {
		head = append(head, cfg.Server.Name)
	}
	if len(cfg.Scales) > 1 {
		head = append(head, cfg.ScaleName)
	}
	head = append(head, "engine", "clients", "tpmC")
	fmt.Fprintln(w, "\ntpmC (New-Orders per minute of the measured time, tpcc-mysql's formula):")
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, strings.Join(head, "\t"))
	for _, r := range rows {
		fmt.Fprintln(tw, r)
	}
	tw.Flush()
}
