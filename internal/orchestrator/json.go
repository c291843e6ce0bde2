package orchestrator

import (
	"encoding/json"
	"time"

	"github.com/goslap/goslap/internal/pacer"
	"github.com/goslap/goslap/internal/results/jsondoc"
	"github.com/goslap/goslap/internal/target"
	"github.com/goslap/goslap/internal/workload"
	"github.com/goslap/goslap/internal/workload/report"
)

// DocumentInput is what a front end adds to a study's results for its
// --json document: how it names itself, its resolved options (keyed by
// its own option names) and how the invocation ended.
type DocumentInput struct {
	FrontEnd, Version string
	StartedAt         time.Time
	Options           map[string]any
	Err               error // the error that ended the run, nil on success
}

// Document is the invocation's --json document: every target's server
// and every cell of the matrix as one benchmark, labelled with its target
// and point. res may be partial (a run that failed).
func Document(cfg *Config, res *Result, in DocumentInput) (*jsondoc.Document, error) {
	doc := jsondoc.New(in.FrontEnd, in.Version, in.StartedAt, cfg.Common.Seed)
	doc.FinishedAt = time.Now().UTC()
	if in.Options != nil {
		doc.Options = in.Options
	}
	if in.Err != nil {
		doc.Error = in.Err.Error()
	}
	if res == nil {
		return doc, nil
	}
	seen := map[string]bool{}
	addTarget := func(label string, kind target.Kind, desc string) {
		if seen[label] {
			return
		}
		seen[label] = true
		srv := res.Servers[label]
		if srv == nil {
			srv = &jsondoc.Server{Variables: map[string]string{}, Error: "not connected"}
		}
		doc.Targets = append(doc.Targets, jsondoc.Target{Label: label, Kind: kind.String(), Description: desc, Server: srv})
	}
	for _, o := range res.Outcomes {
		addTarget(o.Target.Label, o.Target.Kind, o.Description)
	}
	for _, c := range res.Cells {
		if !seen[c.Target] {
			kind := target.Server
			for _, t := range cfg.Targets {
				if t.Label == c.Target {
					kind = t.Kind
				}
			}
			addTarget(c.Target, kind, "")
		}
		b, err := cellBenchmark(cfg, c, c.Clients, cfg.Rate)
		if err != nil {
			return nil, err
		}
		doc.Benchmarks = append(doc.Benchmarks, b)
	}
	doc.Comparison = comparisonJSON(cfg, res)
	return doc, nil
}

// cellBenchmark is the document benchmark of one cell run by clients
// (jsondoc.FromBenchmarks plus its point, workload figures and, when paced
// at target, its rate): the one builder of the study's and a shard's
// documents.
func cellBenchmark(cfg *Config, c *Cell, clients int, target float64) (jsondoc.Benchmark, error) {
	b, err := jsondoc.FromBenchmarks(c.Benchmarks, c.Engine.Name, clients)
	if err != nil {
		return b, err
	}
	b.Target, b.Workload, b.Round = c.Target, cfg.Workload, c.Round
	b.CompareMetric = workload.CompareMetric(c.workload)
	pt := &jsondoc.Point{EngineOptions: c.Engine.Options, Scale: c.Scale, ServerOption: c.Setting}
	if c.Scale > 0 {
		pt.ScaleName = cfg.ScaleName
	}
	if *pt != (jsondoc.Point{}) {
		b.Point = pt
	}
	serverJSON(&b, c.Benchmarks, c.Servers, cfg.ServerMetrics.unit())
	if target > 0 {
		b.Rate = rate(target, c, &b)
	}
	// The workload's own sections (report.PointSectioner: OLTP's dialect,
	// distribution and table sizes; report.Sectioner: TPC-C's report).
	if d, ok := c.workload.(report.PointSectioner); ok {
		name, raw, err := d.PointSection(workload.Point{Engine: c.Engine.Name, EngineOptions: c.Engine.Options, Clients: c.Clients, Scale: c.Scale})
		if err != nil {
			return b, err
		}
		b.Sections = map[string]json.RawMessage{name: raw}
	}
	if f, ok := c.Summary.(report.Sectioner); ok {
		name, raw, err := f.JSONSection()
		if err != nil {
			return b, err
		}
		if b.Sections == nil {
			b.Sections = map[string]json.RawMessage{}
		}
		b.Sections[name] = raw
	}
	return b, nil
}

// rate is a paced benchmark's open-loop figures: events per second asked
// for and achieved (goslap's --rate paces transactions, as sysbench's),
// and the largest start delay of a scheduled event.
func rate(target float64, c *Cell, b *jsondoc.Benchmark) *jsondoc.Rate {
	r := &jsondoc.Rate{Target: target, Achieved: b.QPS}
	r.Kept = pacer.Pacer{Rate: target}.Kept(r.Achieved)
	for _, it := range c.Benchmarks {
		for _, op := range it.Ops {
			if op.Recorder != nil {
				r.MaxLagMicro = max(r.MaxLagMicro, op.Recorder.MaxLag.Microseconds())
			}
		}
	}
	return r
}
