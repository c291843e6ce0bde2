package tpcc

import (
	"fmt"
	"io"
	"math"
	"time"

	hdrhistogram "github.com/HdrHistogram/hdrhistogram-go"

	"github.com/goslap/goslap/internal/latency"
	"github.com/goslap/goslap/internal/results"
	"github.com/goslap/goslap/internal/workload"
	"github.com/goslap/goslap/internal/workload/report"
)

// Limits are TPC-C's response-time limits per transaction type (clause
// 5.2.5.4: 90 % within 5, 5, 5, 80, 20 seconds), applied to elapsed time.
// tpcc-mysql prints the same numbers but, since its 2016 switch to
// milliseconds, compares them with milliseconds.
var Limits = [numTx]time.Duration{5 * time.Second, 5 * time.Second, 5 * time.Second, 80 * time.Second, 20 * time.Second}

// TxResult is one transaction type's counts in the measured window.
type TxResult struct {
	OnTime, Late      uint64 // completed within / beyond the limit (tpcc-mysql's sc and lt)
	Retries, Failures uint64 // tpcc-mysql's rt and fl
	Latency           latency.Percentiles
	P90               int64 // µs
}

// Completed is every transaction of the type that completed.
func (t TxResult) Completed() uint64 { return t.OnTime + t.Late }

// Report is what tpcc-mysql's final report is computed from.
type Report struct {
	Tx [numTx]TxResult
	// Window is the measured time tpmC divides by: tpcc-mysql's
	// (measure / interval) × interval.
	Window time.Duration
}

// Window is tpcc-mysql's measured time for a measure time and a report
// interval: the measure time truncated to whole intervals.
func Window(measure, interval time.Duration) time.Duration {
	if interval <= 0 || measure < interval {
		return measure
	}
	return measure / interval * interval
}

// TpmC is tpcc-mysql's formula: New-Orders completed in the window (the
// rolled-back 1 % included) per minute of the window.
func TpmC(newOrders uint64, window time.Duration) float64 {
	if window <= 0 {
		return 0
	}
	return float64(newOrders) * 60 / window.Seconds()
}

// TpmC is the report's tpmC.
func (r Report) TpmC() float64 { return TpmC(r.Tx[NewOrder].Completed(), r.Window) }

// Figure is the report's figure the verdicts compare on
// (report.Figurer): tpmc, its tpmC.
func (r Report) Figure(metric string) (float64, bool) {
	if metric == "tpmc" {
		return r.TpmC(), true
	}
	return 0, false
}

// FromBenchmark builds the report from a run's per-transaction histograms
// (b.Ops in OpNames order: the measured window only) and the workload's
// retry and failure counts.
func FromBenchmark(b *results.Benchmark, counts Counts, window time.Duration) (Report, error) {
	if len(b.Ops) != numTx {
		return Report{}, fmt.Errorf("tpcc report: %d ops, want the %d TPC-C transactions", len(b.Ops), numTx)
	}
	r := Report{Window: window}
	for i, op := range b.Ops {
		if op.Name != OpNames[i] {
			return Report{}, fmt.Errorf("tpcc report: op %d is %q, want %q", i, op.Name, OpNames[i])
		}
		t := &r.Tx[i]
		t.Retries, t.Failures = counts.Retries[i], counts.Failures[i]
		if op.Recorder == nil || op.Service == nil {
			continue
		}
		h := op.Service
		t.Late = countAbove(h, latency.Micros(Limits[i]))
		t.OnTime = uint64(h.TotalCount()) - t.Late
		t.Latency = latency.Figures(h)
		if h.TotalCount() > 0 {
			t.P90 = h.ValueAtQuantile(90)
		}
	}
	return r, nil
}

// countAbove is the number of values recorded above limit (µs), at the
// histogram's precision.
func countAbove(h *hdrhistogram.Histogram, limit int64) uint64 {
	var n int64
	for _, bar := range h.Distribution() {
		if bar.From > limit {
			n += bar.Count
		}
	}
	return uint64(n)
}

func pct(part, whole uint64) float64 {
	if whole == 0 {
		return 0
	}
	return float64(part) * 100 / float64(whole)
}

func okNG(ok bool) string {
	if ok {
		return "OK"
	}
	return "NG"
}

var labels = [numTx]string{"   New-Order", "     Payment", "Order-Status", "    Delivery", " Stock-Level"}

// Write renders tpcc-mysql's <Raw Results>, <Constraint Check> and <TpmC>
// sections, then goslap's elapsed-time percentiles per transaction.
func (r Report) Write(w io.Writer) error {
	var all uint64
	for _, t := range r.Tx {
		all += t.Completed()
	}
	p := &printer{w: w}
	p.f("<Raw Results>\n")
	for i, t := range r.Tx {
		p.f("  [%d] sc:%d lt:%d  rt:%d  fl:%d avg_rt: %.1f (%d)\n", i, t.OnTime, t.Late, t.Retries, t.Failures,
			t.Latency.Mean/1000, int(Limits[i]/time.Second))
	}
	p.f(" in %d sec.\n\n", int(math.Round(r.Window.Seconds())))
	p.f("<Constraint Check> (all must be [OK])\n [transaction percentage]\n")
	for i := Payment; i < numTx; i++ {
		share := pct(r.Tx[i].Completed(), all)
		floor := 4.0
		if i == Payment {
			floor = 43.0
		}
		p.f("   %s: %3.2f%% (>=%4.1f%%) [%s]\n", labels[i], share, floor, okNG(all > 0 && share >= floor))
	}
	p.f(" [response time (at least 90%% passed)]\n")
	for i, t := range r.Tx {
		share := pct(t.OnTime, t.Completed())
		p.f("   %s: %3.2f%%  [%s]\n", labels[i], share, okNG(t.Completed() > 0 && share >= 90))
	}
	p.f("\n<TpmC>\n                 %.3f TpmC\n", r.TpmC())
	p.f("\n<Response time> (goslap: elapsed time per transaction, ms)\n")
	p.f("   %-12s %9s %9s %9s %9s %9s %9s %9s\n", "transaction", "count", "p50", "p90", "p95", "p99", "p99.9", "max")
	for i, t := range r.Tx {
		l := t.Latency
		p.f("   %-12s %9d %9.3f %9.3f %9.3f %9.3f %9.3f %9.3f\n", OpNames[i], l.Count,
			ms(l.P50), ms(t.P90), ms(l.P95), ms(l.P99), ms(l.P999), ms(l.Max))
	}
	return p.err
}

func ms(us int64) float64 { return float64(us) / 1000 }

// printer keeps the first write error.
type printer struct {
	w   io.Writer
	err error
}

func (p *printer) f(format string, args ...any) {
	if p.err == nil {
		_, p.err = fmt.Fprintf(p.w, format, args...)
	}
}

// IterationDone keeps the retries and failures of the iteration that
// produced b, in its measured window (goslap --workload's report per cell,
// built by CellSummary).
func (w *Workload) IterationDone(b *results.Benchmark) any {
	return w.CountsBetween(b.Start, b.End)
}

// CellSummary is tpcc-mysql's report over a cell's iterations: their
// per-transaction histograms merged, their counts summed, tpmC over their
// measured time together. states are IterationDone's.
func (w *Workload) CellSummary(p workload.Point, bs []*results.Benchmark, states []any) (any, error) {
	merged := &results.Benchmark{}
	var counts Counts
	var window time.Duration
	for i, b := range bs {
		window += b.Elapsed
		if i < len(states) {
			if c, ok := states[i].(Counts); ok {
				for t := 0; t < numTx; t++ {
					counts.Retries[t] += c.Retries[t]
					counts.Failures[t] += c.Failures[t]
				}
			}
		}
		for j, op := range b.Ops {
			if j == len(merged.Ops) {
				merged.Ops = append(merged.Ops, results.Op{Name: op.Name, Recorder: latency.NewRecorder(false)})
			}
			if op.Recorder != nil {
				merged.Ops[j].Merge(op.Recorder)
			}
		}
	}
	if len(bs) == 0 {
		return nil, nil
	}
	r, err := FromBenchmark(merged, counts, window)
	if err != nil {
		return nil, err
	}
	return CellReport{Report: r, Warehouses: int64(w.warehouses(p))}, nil
}

// CellReport is the report of one cell of a --workload=tpcc study.
type CellReport struct {
	Report
	Warehouses int64
}

// IntervalLine is tpcc-mysql's interval line: seconds into the measured
// time, then New-Order's count, 95th and 99th percentiles and maximum,
// then count|maximum for Payment, Order-Status, Delivery and Stock-Level;
// times in ms of elapsed time at µs resolution (tpcc-mysql floors its
// percentiles at 1 ms).
func IntervalLine(iv results.Interval, every time.Duration) string {
	var ops [5]struct {
		n             int64
		p95, p99, max float64
	}
	for i := range ops {
		if i < len(iv.Ops) {
			o := iv.Ops[i]
			ops[i].n, ops[i].p95, ops[i].p99, ops[i].max = o.Count, ms(o.P95), ms(o.P99), ms(o.Max)
		}
	}
	at := iv.At.Round(every) / time.Second
	return fmt.Sprintf("%4d, trx: %d, 95%%: %.3f, 99%%: %.3f, max_rt: %.3f, %d|%.3f, %d|%.3f, %d|%.3f, %d|%.3f\n",
		at, ops[0].n, ops[0].p95, ops[0].p99, ops[0].max,
		ops[1].n, ops[1].max, ops[2].n, ops[2].max, ops[3].n, ops[3].max, ops[4].n, ops[4].max)
}

// The verdicts compare on tpmC through the cell summary's capability.
var _ report.Figurer = Report{}
