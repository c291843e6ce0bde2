// Package merge combines the result documents of the shards of one run
// (package shard) into one document that reads like a single-machine run:
// counts are summed, HDR histograms merged (percentiles are read from the
// merged histogram, never averaged), and each iteration's wall time is the
// latest shard's end minus the earliest shard's start.
package merge

import (
	"errors"
	"fmt"
	"slices"
	"sort"
	"time"

	"github.com/goslap/goslap/internal/latency"
	"github.com/goslap/goslap/internal/results/jsondoc"
	"github.com/goslap/goslap/internal/workload/tpcc"
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
		Iterations: make([]jsondoc.Iteration, len(p0.Iterations)), Point: p0.Point, OLTP: p0.OLTP}
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
	if p0.TPCC != nil {
		t, err := mergeTPCC(parts, b.Ops, seconds)
		if err != nil {
			return nil, nil, err
		}
		b.TPCC = t
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

// mergeTPCC sums TPC-C's per-transaction counts (on time, late, retries,
// failures); the percentiles come from the merged op histograms (ops, one
// per transaction type, by name) and tpmC from the New-Orders over the
// merged window (the iterations' merged wall times, as a run's window is
// the sum of its iterations' times).
func mergeTPCC(parts []*jsondoc.Benchmark, ops []jsondoc.Op, seconds float64) (*jsondoc.TPCC, error) {
	p0 := parts[0].TPCC
	t := &jsondoc.TPCC{Warehouses: p0.Warehouses, WindowSeconds: seconds}
	for i, tx := range p0.Transactions {
		m := jsondoc.TPCCTransaction{Name: tx.Name}
		for _, p := range parts {
			if p.TPCC == nil || len(p.TPCC.Transactions) != len(p0.Transactions) || p.TPCC.Transactions[i].Name != tx.Name {
				return nil, errors.New("the shards' TPC-C reports differ in their transactions")
			}
			x := p.TPCC.Transactions[i]
			m.OnTime += x.OnTime
			m.Late += x.Late
			m.Retries += x.Retries
			m.Failures += x.Failures
		}
		for _, op := range ops {
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
		t.TpmC = tpcc.TpmC(newOrders, time.Duration(seconds*float64(time.Second)))
	}
	return t, nil
}
