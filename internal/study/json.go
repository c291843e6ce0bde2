package study

import (
	"time"

	"github.com/goslap/goslap/internal/compare"
	"github.com/goslap/goslap/internal/pacer"
	"github.com/goslap/goslap/internal/results/jsondoc"
	"github.com/goslap/goslap/internal/workload"
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

// pointDescriber is the optional capability of a workload that describes
// its benchmarks in the --json document (OLTP's dialect, distribution and
// table sizes).
type pointDescriber interface {
	FillJSON(b *jsondoc.Benchmark, p workload.Point)
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
	addTarget := func(label string, kind compare.Kind, desc string) {
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
			kind := compare.Server
			for _, t := range cfg.Targets {
				if t.Label == c.Target {
					kind = t.Kind
				}
			}
			addTarget(c.Target, kind, "")
		}
		b, err := jsondoc.FromBenchmarks(c.Benchmarks, c.Engine.Name, c.Clients)
		if err != nil {
			return nil, err
		}
		b.Target, b.Workload = c.Target, cfg.Workload
		pt := &jsondoc.Point{EngineOptions: c.Engine.Options, Scale: c.Scale, ServerOption: c.Setting}
		if c.Scale > 0 {
			pt.ScaleName = cfg.ScaleName
		}
		if *pt != (jsondoc.Point{}) {
			b.Point = pt
		}
		if cfg.Rate > 0 {
			b.Rate = rate(cfg.Rate, &b)
		}
		if d, ok := c.workload.(pointDescriber); ok {
			d.FillJSON(&b, workload.Point{Engine: c.Engine.Name, EngineOptions: c.Engine.Options, Clients: c.Clients, Scale: c.Scale})
		}
		if f, ok := c.Summary.(interface{ FillJSON(*jsondoc.Benchmark) }); ok {
			f.FillJSON(&b)
		}
		doc.Benchmarks = append(doc.Benchmarks, b)
	}
	return doc, nil
}

// rate is a paced benchmark's open-loop figures: statements per second
// asked for and achieved (goslap's --rate paces transactions; sysbench's
// too, so Target is the transaction rate and Achieved its measure).
func rate(target float64, b *jsondoc.Benchmark) *jsondoc.Rate {
	r := &jsondoc.Rate{Target: target}
	if b.Figures != nil {
		r.Achieved = b.Figures.TPS
	}
	r.Kept = pacer.Pacer{Rate: target}.Kept(r.Achieved)
	return r
}
