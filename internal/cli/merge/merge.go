// Package merge is the `goslap merge` front end: the documents of the shards of one run (package merge
// combines them) printed through the reporters of a run on one machine:
// mysqlslap's Benchmark block, CSV line and --latency lines for the
// mysqlslap workload, the study's block and workload lines for
// --workload runs.
package merge

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"github.com/goslap/goslap/internal/exit"
	"github.com/goslap/goslap/internal/latency"
	"github.com/goslap/goslap/internal/merge"
	"github.com/goslap/goslap/internal/orchestrator"
	"github.com/goslap/goslap/internal/outpath"
	"github.com/goslap/goslap/internal/results"
	"github.com/goslap/goslap/internal/results/jsondoc"
	"github.com/goslap/goslap/internal/results/slapreport"
	"github.com/goslap/goslap/internal/workload"
	wlreport "github.com/goslap/goslap/internal/workload/report"
)

// Usage is `goslap merge`'s synopsis.
const Usage = "Usage: goslap merge [--allow-partial] [--allow-disjoint] [--json=FILE] [--csv[=FILE]] [--latency] SHARD.json...\n" +
	"Merges the --json documents of the shards of one run (--shard=I/N) into one report, printed as the run on one\n" +
	"machine prints it (with --latency's lines when the shards ran with --latency).\n" +
	"  --allow-partial  report the shards there are (flagged partial) when some are missing or repeated\n" +
	"  --allow-disjoint merge shards that did not run at the same time (one run's shards always do)\n" +
	"  --json=FILE      also write the merged document (- for stdout, instead of the report)\n" +
	"  --csv[=FILE]     mysqlslap's CSV lines instead of the blocks (stdout without FILE; FILE is appended to)\n" +
	"  --latency        goslap's latency lines (as the run's --latency)\n"

// mergeCommand is merge's command line.
type mergeCommand struct {
	files         []string
	allowPartial  bool
	allowDisjoint bool
	json          string
	csvSet        bool
	csv           string
	latency       bool
}

func parseMerge(args []string) (*mergeCommand, error) {
	c := &mergeCommand{}
	for i := 0; i < len(args); i++ {
		a := args[i]
		switch {
		case a == "--allow-partial":
			c.allowPartial = true
		case a == "--skip-allow-partial":
			c.allowPartial = false
		case a == "--allow-disjoint":
			c.allowDisjoint = true
		case a == "--skip-allow-disjoint":
			c.allowDisjoint = false
		case a == "--latency":
			c.latency = true
		case a == "--csv":
			c.csvSet, c.csv = true, ""
		case strings.HasPrefix(a, "--csv="):
			c.csvSet, c.csv = true, strings.TrimPrefix(a, "--csv=")
		case a == "--json" && i+1 < len(args):
			i++
			c.json = args[i]
		case strings.HasPrefix(a, "--json="):
			c.json = strings.TrimPrefix(a, "--json=")
		case a == "--":
			c.files = append(c.files, args[i+1:]...)
			i = len(args)
		case strings.HasPrefix(a, "-") && a != "-":
			return nil, fmt.Errorf("merge: unknown option '%s' (goslap merge --help lists them)", a)
		default:
			c.files = append(c.files, a)
		}
	}
	if len(c.files) == 0 {
		return nil, fmt.Errorf("merge: no shard documents given (goslap merge --help)")
	}
	// The outputs must not overwrite a shard's document or each other.
	var files []outpath.File
	if c.json != "-" {
		files = append(files, outpath.File{Option: "--json", Path: c.json})
	}
	if c.csvSet && !strings.HasPrefix(c.csv, "-") {
		files = append(files, outpath.File{Option: "--csv", Path: c.csv})
	}
	for _, f := range c.files {
		files = append(files, outpath.File{Option: "the shard document", Path: f, Input: true})
	}
	if err := outpath.Check(files...); err != nil {
		return nil, fmt.Errorf("merge: %v", err)
	}
	return c, nil
}

// Main is `goslap merge ARGS`: it returns the exit status.
func Main(args []string, stdout, stderr io.Writer) int {
	fail := func(format string, a ...any) int {
		fmt.Fprintf(stderr, progName+": "+format+"\n", a...)
		return 1
	}
	for _, a := range args {
		if a == "--help" || a == "-?" {
			io.WriteString(stdout, Usage)
			return 0
		}
		if a == "--" {
			break
		}
	}
	c, err := parseMerge(args)
	if err != nil {
		return fail("%v", err)
	}
	var in []merge.Input
	for _, f := range c.files {
		data, err := merge.ReadFile(f)
		if err != nil {
			return fail("merge: %v", err)
		}
		for k, part := range merge.Documents(data) {
			name := f
			if k > 0 {
				name = fmt.Sprintf("%s (document %d)", f, k+1)
			}
			d, err := merge.Decode(name, part)
			if err != nil {
				return fail("merge: %v", err)
			}
			in = append(in, merge.Input{Name: name, Doc: d})
		}
	}
	res, err := merge.Merge(in, merge.Options{AllowPartial: c.allowPartial, AllowDisjoint: c.allowDisjoint})
	if err != nil {
		return fail("merge: %v", err)
	}
	d := res.Doc
	if len(d.Benchmarks) == 0 {
		return fail("merge: the documents hold no benchmark")
	}
	for _, w := range res.Warnings {
		fmt.Fprintf(stderr, "%s: warning: %s\n", progName, w)
	}
	writeMergeNote(stderr, d)
	if c.json != "" {
		// The document is written as a run's --json writes it.
		if err := writeJSON(c.json, stdout, d); err != nil {
			return report(stderr, err)
		}
	}
	if c.json != "-" {
		if err := c.report(stdout, d); err != nil {
			return report(stderr, err)
		}
	}
	if d.Error != "" {
		return fail("%s", d.Error)
	}
	return 0
}

// writeMergeNote says which shards were merged and how far apart they
// started, on stderr: stdout reads as the run on one machine.
func writeMergeNote(w io.Writer, d *jsondoc.Document) {
	m := d.Merged
	for i := range d.Benchmarks {
		if i >= len(m.StartSkewMicros) {
			break
		}
		var parts []string
		for _, s := range m.StartSkewMicros[i] {
			parts = append(parts, fmt.Sprintf("%.3f", float64(s)/1000))
		}
		partial := ""
		if m.Partial {
			partial = fmt.Sprintf(", PARTIAL: shards %v missing", m.Missing)
		}
		fmt.Fprintf(w, "%s: merged benchmark %d: shards %v of %d (run %s)%s, start skew per iteration (ms): %s\n",
			progName, i+1, m.Shards, m.Count, m.RunID, partial, strings.Join(parts, " "))
	}
}

// report prints the merged document through the reporters of its front
// end and workload.
func (c *mergeCommand) report(stdout io.Writer, d *jsondoc.Document) error {
	lat := c.latency
	if v, ok := d.Options["latency"].(bool); ok && v {
		lat = true
	}
	silent, _ := d.Options["silent"].(bool)
	if d.FrontEnd == slapreport.FrontEnd && d.Benchmarks[0].Workload == slapreport.Workload {
		csv, closeCSV, err := slapreport.OpenCSV(c.csvSet, c.csv, stdout)
		if err != nil {
			return exitWith(err)
		}
		defer closeCSV()
		for i := range d.Benchmarks {
			res, err := mergedResult(&d.Benchmarks[i])
			if err != nil {
				return Exitf(1, "merge: benchmark %d: %v", i+1, err)
			}
			if err := slapreport.Write(stdout, csv, &res, !silent && !c.csvSet, lat); err != nil {
				return exitWith(err)
			}
		}
		return nil
	}
	if c.csvSet {
		return Exitf(1, "merge: --csv is mysqlslap's report: the shards ran --workload=%s", d.Benchmarks[0].Workload)
	}
	var ops []string
	for _, op := range d.Benchmarks[0].Ops {
		ops = append(ops, op.Name)
	}
	rep := &orchestrator.TextReport{Out: stdout, Err: io.Discard, Latency: lat, Ops: ops}
	for i := range d.Benchmarks {
		b := &d.Benchmarks[i]
		cell, err := mergedCell(b)
		if err != nil {
			return Exitf(1, "merge: benchmark %d: %v", i+1, err)
		}
		rep.Engines = rep.Engines || b.Engine != ""
		if b.Point != nil {
			rep.ScaleLabel = b.Point.ScaleName
		}
		if err := rep.WriteCell(cell); err != nil {
			return Exitf(1, "writing the report: %v", err)
		}
	}
	return nil
}

// mergedResult is a merged mysqlslap benchmark as the result a run
// reports.
func mergedResult(b *jsondoc.Benchmark) (slapreport.BenchmarkResult, error) {
	r := slapreport.BenchmarkResult{Engine: b.Engine, HasEngine: b.Engine != "", LoadType: b.LoadType,
		Concurrency: b.Concurrency, QueriesPerClient: b.QueriesPerClient}
	for _, it := range b.Iterations {
		r.IterationMillis = append(r.IterationMillis, it.Millis)
		r.IterationBounds = append(r.IterationBounds, slapreport.Bounds{Start: it.Start, End: it.End})
	}
	m := &r.Measurements
	m.Executed, m.Errors, m.ErrorsByCode, m.Reconnects = b.Executed, b.Errors, b.ErrorsByCode, b.Reconnects
	m.Seconds, m.QPS, m.StdDevMillis = b.Seconds, b.QPS, b.StdDevMillis
	for i := range b.Ops {
		op := &b.Ops[i]
		if op.Name != slapreport.QueryOp {
			continue
		}
		var err error
		m.Latency = op.Latency
		if m.Histogram, err = op.ServiceHistogram(); err != nil {
			return r, err
		}
		if op.FromSchedule != nil {
			m.Paced, m.Corrected = true, op.FromSchedule.Latency
			if m.CorrectedHistogram, err = latency.Decode(op.FromSchedule.Histogram); err != nil {
				return r, err
			}
		}
	}
	if b.Rate != nil {
		m.Paced, m.TargetRate, m.RateKept = true, b.Rate.Target, b.Rate.Kept
		m.MaxLag = time.Duration(b.Rate.MaxLagMicro) * time.Microsecond
	}
	return r, nil
}

// mergedCell is a merged --workload benchmark as the cell a study
// reports: one result per iteration with its merged wall time; the counts
// and histograms, merged over the iterations in the document, sit on the
// first (the report sums and merges them over the iterations).
func mergedCell(b *jsondoc.Benchmark) (*orchestrator.Cell, error) {
	c := &orchestrator.Cell{Target: b.Target, Engine: orchestrator.Engine{Name: b.Engine}, Clients: b.Concurrency}
	if p := b.Point; p != nil {
		c.Engine.Options, c.Scale, c.Setting = p.EngineOptions, p.Scale, p.ServerOption
	}
	for _, it := range b.Iterations {
		c.Benchmarks = append(c.Benchmarks, &results.Benchmark{Workload: b.Workload, Target: b.Target,
			Start: it.Start, End: it.End, Elapsed: it.End.Sub(it.Start)})
	}
	if len(c.Benchmarks) == 0 {
		return c, nil
	}
	first := c.Benchmarks[0]
	first.Clients = make([]results.Client, b.Concurrency)
	if f := b.Figures; f != nil {
		first.Events = f.Transactions
		first.Tally = workload.Tally{Reads: f.Reads, Writes: f.Writes, Other: f.Other, Retries: f.Retries, Rollbacks: f.Rollbacks}
	}
	for i := range b.Ops {
		op := &b.Ops[i]
		rec := latency.NewRecorder(false)
		var err error
		if rec.Service, err = op.ServiceHistogram(); err != nil {
			return nil, err
		}
		if op.FromSchedule != nil {
			if rec.Intended, err = latency.Decode(op.FromSchedule.Histogram); err != nil {
				return nil, err
			}
		}
		for _, e := range op.ErrorsByCode {
			if rec.Errors == nil {
				rec.Errors, rec.ErrorText = map[uint16]uint64{}, map[uint16]string{}
			}
			rec.Errors[e.Code] += e.Count
			rec.ErrorText[e.Code] = e.Message
		}
		rec.Reconnects = op.Reconnects
		first.Ops = append(first.Ops, results.Op{Name: op.Name, Recorder: rec})
	}
	// A workload's section that has a report of its own (TPC-C's) is the
	// cell's summary, printed as the run printed it.
	for _, name := range wlreport.SectionNames(b) {
		if s, ok := wlreport.Section(name).(wlreport.SectionSummariser); ok {
			r, err := s.SectionSummary(b.Sections[name])
			if err != nil {
				return nil, err
			}
			c.Summary = r
		}
	}
	return c, nil
}

// progName prefixes the messages, as in every front end.
const progName = "goslap"

// Exitf is an exit.Error of status code, "goslap: " + the formatted text;
// the first error among args is its cause.
func Exitf(code int, format string, args ...any) *exit.Error {
	e := &exit.Error{Code: code, Msg: progName + ": " + fmt.Sprintf(format, args...)}
	for _, a := range args {
		if err, ok := a.(error); ok {
			e.Err = err
			break
		}
	}
	return e
}

// exitWith is err as an exit.Error of status 1, keeping it as the cause.
func exitWith(err error) *exit.Error { return exit.Wrap(1, progName+": ", err) }

// report prints err and returns the exit status it calls for (exit.Report).
func report(stderr io.Writer, err error) int { return exit.Report(stderr, progName, err) }

// writeJSON writes the merged document as a run's --json writes it: to
// stdout for "-", else to the file.
func writeJSON(path string, stdout io.Writer, doc *jsondoc.Document) error {
	var b bytes.Buffer
	if err := jsondoc.Encode(&b, doc); err != nil {
		return Exitf(1, "writing the JSON document: %v", err)
	}
	var err error
	if path == "" || path == "-" {
		if f, ok := stdout.(interface{ Flush() error }); ok {
			_ = f.Flush()
		}
		_, err = stdout.Write(b.Bytes())
	} else {
		err = os.WriteFile(path, b.Bytes(), 0o666)
	}
	if err != nil {
		return Exitf(1, "writing the JSON document: %v", err)
	}
	return nil
}
