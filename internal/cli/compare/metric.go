package compare

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/goslap/goslap/internal/latency"
	"github.com/goslap/goslap/internal/results/jsondoc"
	"github.com/goslap/goslap/internal/verdict"
)

// Metric is one figure of a benchmark that documents are compared on.
type Metric struct {
	// Name is how --metrics and --fail-if spell it: tps, qps, rw-qps,
	// tpmc, or pNN (a latency percentile, p95, p99.9), or "study" for the
	// workload's own comparison metric.
	Name string
	// Percentile is NN of a pNN metric, 0 for the others.
	Percentile float64
}

// study is the workload's own metric, resolved per benchmark (studyName).
var study = Metric{Name: "study"}

// ParseMetric reads a metric's name.
func ParseMetric(s string) (Metric, error) {
	s = strings.ToLower(strings.TrimSpace(s))
	switch s {
	case "tps", "qps", "rw-qps", "tpmc", "study":
		return Metric{Name: s}, nil
	}
	if rest, ok := strings.CutPrefix(s, "p"); ok {
		if p, err := strconv.ParseFloat(rest, 64); err == nil && p > 0 && p < 100 {
			return Metric{Name: s, Percentile: p}, nil
		}
	}
	return Metric{}, fmt.Errorf("unknown metric %q (tps, qps, rw-qps, tpmc, or a latency percentile such as p95 or p99.9)", s)
}

// Better is which way the metric improves.
func (m Metric) Better() verdict.Better {
	if m.Percentile > 0 {
		return verdict.Lower
	}
	return verdict.Higher
}

// Label is the metric's column text: its name, with the unit of a latency.
func (m Metric) Label() string {
	if m.Percentile > 0 {
		return m.Name + " ms"
	}
	return m.Name
}

// resolve turns "study" into the metric the benchmark's workload is
// compared on, as the run recorded it (the workload's own rule,
// workload.CompareMetric, is the one source: tpmC for TPC-C, read/write
// requests per second for sysbench's 0.4 and 0.5 OLTP, queries per
// second for mysqlslap's load, transactions per second for the others).
func (m Metric) resolve(b *jsondoc.Benchmark) (Metric, error) {
	if m.Name != study.Name {
		return m, nil
	}
	if b.CompareMetric == "" {
		return m, fmt.Errorf("the %s benchmark of target %s names no comparison metric (a document of an older goslap): name the metrics with --metrics", b.Workload, b.Target)
	}
	r, err := ParseMetric(b.CompareMetric)
	if err != nil || r.Name == study.Name {
		return m, fmt.Errorf("the %s benchmark of target %s: comparison metric %q: %v", b.Workload, b.Target, b.CompareMetric, err)
	}
	return r, nil
}

// Value is the metric's figure for b; ok is false when b does not have it
// (tpmC of an OLTP benchmark, transactions of mysqlslap's queries).
func (m Metric) Value(b *jsondoc.Benchmark) (v float64, ok bool, err error) {
	f := b.Figures
	switch m.Name {
	case "tps":
		if f == nil {
			return 0, false, nil
		}
		return f.TPS, true, nil
	case "qps":
		// Statements per second: a registered workload's QPS field counts
		// its transactions (events), its statements are in Figures.
		if f == nil {
			return b.QPS, true, nil
		}
		if b.Seconds <= 0 {
			return 0, true, nil
		}
		return float64(f.Statements) / b.Seconds, true, nil
	case "rw-qps":
		if f == nil || b.Seconds <= 0 {
			return 0, f != nil, nil
		}
		return float64(f.Reads+f.Writes) / b.Seconds, true, nil
	case "tpmc":
		var tpcc struct {
			TpmC float64 `json:"tpmc"`
		}
		ok, err := b.Section("tpcc", &tpcc)
		if !ok || err != nil {
			return 0, false, err
		}
		return tpcc.TpmC, true, nil
	}
	if m.Percentile == 0 {
		return 0, false, fmt.Errorf("metric %q has no value", m.Name)
	}
	// Any percentile, from the recorded histogram: all transactions of a
	// registered workload, all ops of mysqlslap's.
	var encoded []string
	if f != nil {
		encoded = append(encoded, f.Histogram)
	} else {
		for _, op := range b.Ops {
			encoded = append(encoded, op.Histogram)
		}
	}
	if len(encoded) == 0 {
		return 0, false, nil
	}
	h, err := latency.MergeEncoded(encoded...)
	if err != nil {
		return 0, false, err
	}
	if h.TotalCount() == 0 {
		return 0, false, nil
	}
	return float64(h.ValueAtPercentile(m.Percentile)) / 1000, true, nil
}

// defaultPercentile is the latency percentile a document's run reported:
// sysbench's --percentile when it was set, else 95.
func defaultPercentile(d *jsondoc.Document) Metric {
	if p, ok := d.Options["percentile"].(float64); ok && p > 0 && p < 100 {
		m, _ := ParseMetric("p" + strconv.FormatFloat(p, 'f', -1, 64))
		return m
	}
	return Metric{Name: "p95", Percentile: 95}
}
