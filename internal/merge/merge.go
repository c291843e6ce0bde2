// Package merge combines the result documents of the shards of one run
// (package shard) into one document that reads like a single-machine run:
// counts are summed, HDR histograms merged (percentiles are read from the
// merged histogram, never averaged), and each iteration's wall time is the
// latest shard's end minus the earliest shard's start.
package merge

import (
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"sort"
	"time"

	"github.com/goslap/goslap/internal/latency"
	"github.com/goslap/goslap/internal/results/jsondoc"
	"github.com/goslap/goslap/internal/workload/report"
)

// SkewWarnFraction is the start skew, as a fraction of an iteration's
// wall time, past which Warnings says the shards did not start together.
const SkewWarnFraction = 0.01

// Input is one shard's document and where it came from (for messages).
type Input struct {
	Name string
	Doc  *jsondoc.Document
}

// Result is the merged document and what the merge noticed.
type Result struct {
	Doc      *jsondoc.Document
	Warnings []string
}

// Options are what a merge may let through.
type Options struct {
	// AllowPartial reports the shards there are when some are missing
	// or repeated (a repeated shard's later document wins).
	AllowPartial bool
	// AllowDisjoint merges shards whose windows do not overlap, which
	// the shards of one run always do (checkWindows).
	AllowDisjoint bool
}

// Merge merges the shards' documents. It refuses documents whose figures
// cannot come from a run (checkDocument), documents that are not shards,
// of different runs or plans, shards that did not run together
// (checkWindows) unless AllowDisjoint, and — unless AllowPartial — a
// missing or repeated shard; with AllowPartial a repeated shard's later
// document replaces the earlier (a re-run pod replaces, never adds) and
// the result is flagged partial when a shard is missing.
func Merge(in []Input, opt Options) (*Result, error) {
	allowPartial := opt.AllowPartial
	if len(in) == 0 {
		return nil, errors.New("no documents to merge")
	}
	for _, f := range in {
		if err := checkDocument(f); err != nil {
			return nil, err
		}
	}
	first := in[0]
	byIndex := map[int]Input{}
	for _, f := range in {
		s := f.Doc.Shard
		switch {
		case s == nil:
			return nil, fmt.Errorf("%s is not a shard's document (it has no shard section): nothing to merge it with", f.Name)
		case s.RunID != first.Doc.Shard.RunID:
			return nil, fmt.Errorf("%s is of run %q, %s of run %q: shards of different runs cannot be merged", f.Name, s.RunID, first.Name, first.Doc.Shard.RunID)
		case s.PlanHash != first.Doc.Shard.PlanHash || s.PlanHash != jsondoc.PlanHash(f.Doc):
			return nil, fmt.Errorf("%s and %s ran different plans (options, seed or front end differ): they cannot be merged", f.Name, first.Name)
		case s.Count != first.Doc.Shard.Count:
			return nil, fmt.Errorf("%s is shard %d of %d, %s one of %d", f.Name, s.Index, s.Count, first.Name, first.Doc.Shard.Count)
		case len(f.Doc.Benchmarks) != len(first.Doc.Benchmarks):
			return nil, fmt.Errorf("%s has %d benchmarks, %s %d: a shard did not finish (merge what finished with --allow-partial after removing it)", f.Name, len(f.Doc.Benchmarks), first.Name, len(first.Doc.Benchmarks))
		}
		if prev, dup := byIndex[s.Index]; dup {
			if !allowPartial {
				return nil, fmt.Errorf("shard %d/%d is in both %s and %s (--allow-partial keeps the later one)", s.Index, s.Count, prev.Name, f.Name)
			}
			if !f.Doc.FinishedAt.After(prev.Doc.FinishedAt) {
				continue
			}
		}
		byIndex[s.Index] = f
	}
	count := first.Doc.Shard.Count
	var missing, have []int
	for i := 0; i < count; i++ {
		if _, ok := byIndex[i]; ok {
			have = append(have, i)
		} else {
			missing = append(missing, i)
		}
	}
	if len(missing) > 0 && !allowPartial {
		return nil, fmt.Errorf("shards %v of %d are missing (--allow-partial reports the others, flagged partial)", missing, count)
	}
	docs := make([]*jsondoc.Document, 0, len(have))
	kept := make([]Input, 0, len(have))
	for _, i := range have {
		docs = append(docs, byIndex[i].Doc)
		kept = append(kept, byIndex[i])
	}
	if !opt.AllowDisjoint {
		if err := checkWindows(kept); err != nil {
			return nil, err
		}
	}
	return combine(docs, count, missing)
}

func combine(docs []*jsondoc.Document, count int, missing []int) (*Result, error) {
	base := docs[0]
	out := jsondoc.New(base.FrontEnd, base.Goslap, base.StartedAt, base.Seed)
	out.Options = map[string]any{}
	for k, v := range base.Options {
		out.Options[k] = v
	}
	for _, k := range jsondoc.ShardOptions {
		delete(out.Options, k)
	}
	out.Targets = base.Targets
	m := &jsondoc.Merged{RunID: base.Shard.RunID, Count: count, Missing: nonNil(missing), Partial: len(missing) > 0}
	for _, d := range docs {
		m.Shards = append(m.Shards, d.Shard.Index)
		if d.StartedAt.Before(out.StartedAt) {
			out.StartedAt = d.StartedAt
		}
		if d.FinishedAt.After(out.FinishedAt) {
			out.FinishedAt = d.FinishedAt
		}
		if d.Error != "" && out.Error == "" {
			out.Error = fmt.Sprintf("shard %d: %s", d.Shard.Index, d.Error)
		}
	}
	out.Merged = m
	res := &Result{Doc: out}
	if m.Partial {
		res.Warnings = append(res.Warnings, fmt.Sprintf("partial: shards %v of %d are missing; the figures are those of the others", missing, count))
	}
	for bi := range base.Benchmarks {
		parts := make([]*jsondoc.Benchmark, len(docs))
		for i, d := range docs {
			parts[i] = &d.Benchmarks[bi]
		}
		b, skew, err := benchmark(parts)
		if err != nil {
			return nil, fmt.Errorf("benchmark %d: %w", bi+1, err)
		}
		m.StartSkewMicros = append(m.StartSkewMicros, skew)
		for it, s := range skew {
			wall := b.Iterations[it].End.Sub(b.Iterations[it].Start)
			if wall > 0 && float64(s)*float64(time.Microsecond) > SkewWarnFraction*float64(wall) {
				res.Warnings = append(res.Warnings, fmt.Sprintf("benchmark %d iteration %d: the shards started %s apart, %.1f%% of its %s (more than %.0f%%)",
					bi+1, it+1, time.Duration(s)*time.Microsecond, 100*float64(s)*float64(time.Microsecond)/float64(wall), wall.Round(time.Millisecond), 100*SkewWarnFraction))
			}
		}
		out.Benchmarks = append(out.Benchmarks, *b)
	}
	return res, nil
}

// benchmark merges one benchmark of every shard.
func benchmark(parts []*jsondoc.Benchmark) (*jsondoc.Benchmark, []int64, error) {
	p0 := parts[0]
	b := jsondoc.Benchmark{Target: p0.Target, Workload: p0.Workload, CompareMetric: p0.CompareMetric, Engine: p0.Engine, LoadType: p0.LoadType,
		Iterations: make([]jsondoc.Iteration, len(p0.Iterations)), Point: p0.Point}
	skew := make([]int64, len(p0.Iterations))
	errs := map[uint16]latency.ErrorCount{}
	var perClient uint64
	var rate *jsondoc.Rate
	for _, p := range parts {
		if p.Target != p0.Target || p.Workload != p0.Workload || p.Engine != p0.Engine || len(p.Iterations) != len(p0.Iterations) || len(p.Ops) != len(p0.Ops) {
			return nil, nil, errors.New("the shards measured different things (target, workload, engine, iterations or ops differ)")
		}
		b.Concurrency += p.Concurrency
		perClient += p.QueriesPerClient * uint64(p.Concurrency)
		b.Executed += p.Executed
		b.Errors += p.Errors
		b.Reconnects += p.Reconnects
		for _, e := range p.ErrorsByCode {
			c := errs[e.Code]
			c.Code, c.Count = e.Code, c.Count+e.Count
			if c.Message == "" {
				c.Message = e.Message
			}
			errs[e.Code] = c
		}
		if p.Rate != nil {
			if rate == nil {
				rate = &jsondoc.Rate{Kept: true}
			}
			rate.Target += p.Rate.Target
			rate.Kept = rate.Kept && p.Rate.Kept
			rate.MaxLagMicro = max(rate.MaxLagMicro, p.Rate.MaxLagMicro)
		}
	}
	if b.Concurrency > 0 {
		b.QueriesPerClient = perClient / uint64(b.Concurrency)
	}
	b.ErrorsByCode = []latency.ErrorCount{}
	for _, e := range errs {
		b.ErrorsByCode = append(b.ErrorsByCode, e)
	}
	sort.Slice(b.ErrorsByCode, func(i, j int) bool { return b.ErrorsByCode[i].Code < b.ErrorsByCode[j].Code })

	var ms []int64
	var seconds float64
	for it := range b.Iterations {
		var lo, hi, firstStart, lastStart time.Time
		for i, p := range parts {
			x := p.Iterations[it]
			if i == 0 || x.Start.Before(lo) {
				lo = x.Start
			}
			if i == 0 || x.End.After(hi) {
				hi = x.End
			}
			if i == 0 || x.Start.Before(firstStart) {
				firstStart = x.Start
			}
			if i == 0 || x.Start.After(lastStart) {
				lastStart = x.Start
			}
		}
		b.Iterations[it] = jsondoc.Iteration{Start: lo, End: hi, Millis: hi.Sub(lo).Milliseconds()}
		skew[it] = lastStart.Sub(firstStart).Microseconds()
		ms = append(ms, b.Iterations[it].Millis)
		seconds += hi.Sub(lo).Seconds()
	}
	if len(ms) > 0 {
		var sum int64
		b.MinMillis, b.MaxMillis = ms[0], ms[0]
		for _, v := range ms {
			sum += v
			b.MinMillis, b.MaxMillis = min(b.MinMillis, v), max(b.MaxMillis, v)
		}
		b.AvgMillis = sum / int64(len(ms))
		b.StdDevMillis = latency.StdDevMillis(ms)
	}
	b.Seconds = seconds
	if seconds > 0 {
		b.QPS = float64(b.Executed) / seconds
	}
	if rate != nil {
		rate.Achieved = b.QPS
		b.Rate = rate
	}
	for oi := range p0.Ops {
		op, err := mergeOp(parts, oi)
		if err != nil {
			return nil, nil, err
		}
		b.Ops = append(b.Ops, op)
	}
	if err := mergeSections(&b, parts); err != nil {
		return nil, nil, err
	}
	if p0.Figures != nil {
		fig, err := mergeFigures(parts, seconds)
		if err != nil {
			return nil, nil, err
		}
		b.Figures = fig
	}
	mergeServer(&b, parts)
	return &b, skew, nil
}

// mergeFigures sums a registered workload's figures (transactions and
// statements per kind) and merges their per-transaction histogram; the
// rates are over the merged wall time.
func mergeFigures(parts []*jsondoc.Benchmark, seconds float64) (*jsondoc.Figures, error) {
	fig := &jsondoc.Figures{StoppedBy: []string{}}
	var hists []string
	for _, p := range parts {
		f := p.Figures
		if f == nil {
			return nil, errors.New("some shards have a workload's figures and some not")
		}
		fig.Transactions += f.Transactions
		fig.Reads += f.Reads
		fig.Writes += f.Writes
		fig.Other += f.Other
		fig.Retries += f.Retries
		fig.Rollbacks += f.Rollbacks
		hists = append(hists, f.Histogram)
		if len(fig.StoppedBy) == 0 {
			fig.StoppedBy = append(fig.StoppedBy, f.StoppedBy...)
		}
	}
	fig.Statements = fig.Reads + fig.Writes + fig.Other
	if seconds > 0 {
		fig.TPS = float64(fig.Transactions) / seconds
	}
	h, err := latency.MergeEncoded(hists...)
	if err != nil {
		return nil, fmt.Errorf("the transactions' latency: %w", err)
	}
	fig.Latency = latency.Figures(h)
	if fig.Histogram, err = latency.Encode(h); err != nil {
		return nil, err
	}
	return fig, nil
}

// mergeOp merges op oi of every shard: counts summed, histograms merged.
func mergeOp(parts []*jsondoc.Benchmark, oi int) (jsondoc.Op, error) {
	name := parts[0].Ops[oi].Name
	op := jsondoc.Op{Name: name}
	var service, sched []string
	errs := map[uint16]latency.ErrorCount{}
	for _, p := range parts {
		o := p.Ops[oi]
		if o.Name != name {
			return op, fmt.Errorf("op %d is %q in one shard and %q in another", oi, name, o.Name)
		}
		op.Executed += o.Executed
		op.Errors += o.Errors
		op.Reconnects += o.Reconnects
		for _, e := range o.ErrorsByCode {
			c := errs[e.Code]
			c.Code, c.Count = e.Code, c.Count+e.Count
			if c.Message == "" {
				c.Message = e.Message
			}
			errs[e.Code] = c
		}
		service = append(service, o.Histogram)
		if o.FromSchedule != nil {
			sched = append(sched, o.FromSchedule.Histogram)
		}
	}
	op.ErrorsByCode = []latency.ErrorCount{}
	for _, e := range errs {
		op.ErrorsByCode = append(op.ErrorsByCode, e)
	}
	slices.SortFunc(op.ErrorsByCode, func(a, b latency.ErrorCount) int { return int(a.Code) - int(b.Code) })
	h, err := latency.MergeEncoded(service...)
	if err != nil {
		return op, fmt.Errorf("op %s: %w", name, err)
	}
	op.Latency = latency.Figures(h)
	if op.Histogram, err = latency.Encode(h); err != nil {
		return op, err
	}
	if len(sched) > 0 {
		if len(sched) != len(parts) {
			return op, fmt.Errorf("op %s: some shards were paced and some not", name)
		}
		hs, err := latency.MergeEncoded(sched...)
		if err != nil {
			return op, fmt.Errorf("op %s: %w", name, err)
		}
		op.FromSchedule = &jsondoc.Scheduled{Latency: latency.Figures(hs)}
		if op.FromSchedule.Histogram, err = latency.Encode(hs); err != nil {
			return op, err
		}
	}
	return op, nil
}

func nonNil(s []int) []int {
	if s == nil {
		return []int{}
	}
	return s
}

// mergeSections merges the workloads' sections of the first shard's
// benchmark: by the workload's report.SectionMerger (TPC-C's counts summed,
// its percentiles read from b's merged ops, tpmC over b's merged window),
// or, for a section no workload merges (OLTP's description of the point,
// the same in every shard), as the first shard has it.
func mergeSections(b *jsondoc.Benchmark, parts []*jsondoc.Benchmark) error {
	for _, name := range report.SectionNames(parts[0]) {
		if b.Sections == nil {
			b.Sections = map[string]json.RawMessage{}
		}
		m := report.Section(name)
		if m == nil {
			b.Sections[name] = parts[0].Sections[name]
			continue
		}
		raws := make([]json.RawMessage, len(parts))
		for i, p := range parts {
			raws[i] = p.Sections[name] // nil where a shard has none: the merger refuses it
		}
		raw, err := m.MergeSections(raws, b)
		if err != nil {
			return err
		}
		b.Sections[name] = raw
	}
	return nil
}
