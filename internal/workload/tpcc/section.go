package tpcc

import (
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/goslap/goslap/internal/latency"
	"github.com/goslap/goslap/internal/results"
	"github.com/goslap/goslap/internal/results/jsondoc"
	"github.com/goslap/goslap/internal/workload/report"
)

// SectionName is the name of TPC-C's section in a --json benchmark.
const SectionName = "tpcc"

func init() { report.RegisterSection(SectionName, sectionMerger{}) }

// Section is tpcc-mysql's report of a TPC-C benchmark over its
// iterations, as the --json document records it.
type Section struct {
	Warehouses int64 `json:"warehouses"`
	// TpmC is New-Orders completed per minute of WindowSeconds.
	TpmC          float64 `json:"tpmc"`
	WindowSeconds float64 `json:"window_seconds"`
	// Transactions are the five types in tpcc-mysql's order.
	Transactions []SectionTransaction `json:"transactions"`
}

// SectionTransaction is one transaction type's counts (tpcc-mysql's sc,
// lt, rt, fl) and elapsed-time percentiles.
type SectionTransaction struct {
	Name     string              `json:"name"`
	OnTime   uint64              `json:"on_time"`
	Late     uint64              `json:"late"`
	Retries  uint64              `json:"retries"`
	Failures uint64              `json:"failures"`
	Latency  latency.Percentiles `json:"latency"`
	P90Micro int64               `json:"p90_us"`
}

// JSONSection records the report in a --json benchmark
// (report.Sectioner).
func (c CellReport) JSONSection() (string, json.RawMessage, error) {
	t := Section{Warehouses: c.Warehouses, TpmC: c.TpmC(), WindowSeconds: c.Window.Seconds()}
	for i, tx := range c.Tx {
		t.Transactions = append(t.Transactions, SectionTransaction{Name: OpNames[i], OnTime: tx.OnTime, Late: tx.Late,
			Retries: tx.Retries, Failures: tx.Failures, Latency: tx.Latency, P90Micro: tx.P90})
	}
	return report.Marshal(SectionName, t)
}

// CellReportFromJSON is the report JSONSection recorded (of a merged run:
// the shards' counts summed, percentiles from their merged histograms).
func CellReportFromJSON(raw json.RawMessage) (CellReport, error) {
	var t Section
	if err := json.Unmarshal(raw, &t); err != nil {
		return CellReport{}, fmt.Errorf("tpcc report: %w", err)
	}
	c := CellReport{Warehouses: t.Warehouses, Report: Report{Window: time.Duration(t.WindowSeconds * float64(time.Second))}}
	if len(t.Transactions) != numTx {
		return c, fmt.Errorf("tpcc report: %d transactions, want the %d of TPC-C", len(t.Transactions), numTx)
	}
	for i, x := range t.Transactions {
		if x.Name != OpNames[i] {
			return c, fmt.Errorf("tpcc report: transaction %d is %q, want %q", i, x.Name, OpNames[i])
		}
		c.Tx[i] = TxResult{OnTime: x.OnTime, Late: x.Late, Retries: x.Retries, Failures: x.Failures, Latency: x.Latency, P90: x.P90Micro}
	}
	return c, nil
}

// IntervalLine is tpcc-mysql's live line (report.IntervalLiner).
func (w *Workload) IntervalLine(iv results.Interval, every time.Duration) string {
	return IntervalLine(iv, every)
}

// sectionMerger is how goslap merge handles TPC-C's sections.
type sectionMerger struct{}

// maxCount is the largest count a document can carry exactly (a JSON
// number read as a float64).
const maxCount = 1 << 53

// CheckSection refuses counts no run can reach (report.SectionChecker).
func (sectionMerger) CheckSection(raw json.RawMessage) error {
	var t Section
	if err := json.Unmarshal(raw, &t); err != nil {
		return fmt.Errorf("tpcc section: %w", err)
	}
	for _, tx := range t.Transactions {
		for _, c := range []struct {
			name string
			n    uint64
		}{{" on_time", tx.OnTime}, {" late", tx.Late}, {" retries", tx.Retries}, {" failures", tx.Failures}} {
			if c.n > maxCount {
				return fmt.Errorf("%s %d is more than any run counts (2^53)", tx.Name+c.name, c.n)
			}
		}
	}
	return nil
}

// SectionSummary is the report goslap merge prints (report.SectionSummariser).
func (sectionMerger) SectionSummary(raw json.RawMessage) (any, error) { return CellReportFromJSON(raw) }

// MergeSections sums TPC-C's per-transaction counts (on time, late,
// retries, failures); the percentiles come from the merged op histograms
// (one per transaction type, by name) and tpmC from the New-Orders over
// the merged window (the iterations' merged wall times, as a run's window
// is the sum of its iterations' times).
func (sectionMerger) MergeSections(raws []json.RawMessage, merged *jsondoc.Benchmark) (json.RawMessage, error) {
	parts := make([]*Section, len(raws))
	for i, raw := range raws {
		if raw == nil {
			continue
		}
		parts[i] = &Section{}
		if err := json.Unmarshal(raw, parts[i]); err != nil {
			return nil, fmt.Errorf("tpcc section: %w", err)
		}
	}
	p0 := parts[0]
	seconds := merged.Seconds
	t := Section{Warehouses: p0.Warehouses, WindowSeconds: seconds}
	for i, tx := range p0.Transactions {
		m := SectionTransaction{Name: tx.Name}
		for _, p := range parts {
			if p == nil || len(p.Transactions) != len(p0.Transactions) || p.Transactions[i].Name != tx.Name {
				return nil, errors.New("the shards' TPC-C reports differ in their transactions")
			}
			x := p.Transactions[i]
			m.OnTime += x.OnTime
			m.Late += x.Late
			m.Retries += x.Retries
			m.Failures += x.Failures
		}
		for _, op := range merged.Ops {
			if op.Name != tx.Name {
				continue
			}
			h, err := op.ServiceHistogram()
			if err != nil {
				return nil, fmt.Errorf("op %s: %w", op.Name, err)
			}
			m.Latency = latency.Figures(h)
			if h.TotalCount() > 0 {
				m.P90Micro = h.ValueAtQuantile(90)
			}
		}
		t.Transactions = append(t.Transactions, m)
	}
	if len(t.Transactions) > 0 {
		newOrders := t.Transactions[0].OnTime + t.Transactions[0].Late // tpcc-mysql's order: New-Order first
		t.TpmC = TpmC(newOrders, time.Duration(seconds*float64(time.Second)))
	}
	_, raw, err := report.Marshal(SectionName, t)
	return raw, err
}
