package merge

import (
	"fmt"
	"time"

	"github.com/goslap/goslap/internal/results/jsondoc"
	"github.com/goslap/goslap/internal/workload/report"
)

// maxCount bounds every count in a document: 2^53, past which JSON's
// numbers lose whole units (a reader sees 2^53+1 as 2^53) and which no
// run reaches (285 years at a million queries a second). Sums of a few
// shards' counts stay far from overflowing.
const maxCount = 1 << 53

// checkDocument refuses a document whose figures cannot come from a run:
// a shard index outside its count, a negative or impossibly large count,
// an iteration that ends before it starts, totals that disagree with the
// ops they sum. Merging such a document would print its figures as a run's.
func checkDocument(f Input) error {
	s := f.Doc.Shard
	if s != nil && (s.Count < 1 || s.Index < 0 || s.Index >= s.Count) {
		return fmt.Errorf("%s: shard index %d of %d: an index runs from 0 to the count less one", f.Name, s.Index, s.Count)
	}
	for bi := range f.Doc.Benchmarks {
		if err := checkBenchmark(&f.Doc.Benchmarks[bi]); err != nil {
			return fmt.Errorf("%s: benchmark %d: %v", f.Name, bi+1, err)
		}
	}
	return nil
}

type namedCount struct {
	name string
	n    uint64
}

func checkBenchmark(b *jsondoc.Benchmark) error {
	if b.Concurrency < 0 {
		return fmt.Errorf("concurrency %d: a count of clients cannot be negative", b.Concurrency)
	}
	counts := []namedCount{{"executed", b.Executed}, {"errors", b.Errors}, {"reconnects", b.Reconnects},
		{"queries_per_client", b.QueriesPerClient}, {"concurrency", uint64(b.Concurrency)}}
	var executed, errs, reconnects uint64
	for _, op := range b.Ops {
		counts = append(counts, namedCount{"op " + op.Name + " executed", op.Executed},
			namedCount{"op " + op.Name + " errors", op.Errors}, namedCount{"op " + op.Name + " reconnects", op.Reconnects})
		for _, e := range op.ErrorsByCode {
			counts = append(counts, namedCount{fmt.Sprintf("op %s error %d count", op.Name, e.Code), e.Count})
		}
		executed += op.Executed
		errs += op.Errors
		reconnects += op.Reconnects
	}
	for _, e := range b.ErrorsByCode {
		counts = append(counts, namedCount{fmt.Sprintf("error %d count", e.Code), e.Count})
	}
	if f := b.Figures; f != nil {
		counts = append(counts, namedCount{"transactions", f.Transactions}, namedCount{"reads", f.Reads},
			namedCount{"writes", f.Writes}, namedCount{"other", f.Other}, namedCount{"retries", f.Retries},
			namedCount{"rollbacks", f.Rollbacks})
	}
	for _, c := range counts {
		if c.n > maxCount {
			return fmt.Errorf("%s %d is more than any run counts (2^53)", c.name, c.n)
		}
	}
	// The workloads' sections check their own counts (TPC-C's per
	// transaction).
	for _, name := range report.SectionNames(b) {
		if c, ok := report.Section(name).(report.SectionChecker); ok {
			if err := c.CheckSection(b.Sections[name]); err != nil {
				return err
			}
		}
	}
	for _, t := range []struct {
		name       string
		total, ops uint64
	}{{"executed", b.Executed, executed}, {"errors", b.Errors, errs}, {"reconnects", b.Reconnects, reconnects}} {
		if t.total != t.ops {
			return fmt.Errorf("%s is %d but its ops add up to %d", t.name, t.total, t.ops)
		}
	}
	for i, it := range b.Iterations {
		if it.End.Before(it.Start) || it.Millis < 0 {
			return fmt.Errorf("iteration %d ends (%s) before it starts (%s)", i+1, it.End.Format(time.RFC3339Nano), it.Start.Format(time.RFC3339Nano))
		}
	}
	if b.Seconds < 0 || b.QPS < 0 {
		return fmt.Errorf("a negative time or rate (seconds %g, queries per second %g)", b.Seconds, b.QPS)
	}
	return nil
}

// windowSlack is how far apart, on the server's clock, the windows of two
// shards that started together may still appear. The clock offsets are
// measured over a network round trip, and on a loaded machine a shard
// released at the shared start can begin hundreds of milliseconds after
// another, whose short iteration may be over by then (the loopback test's
// 300-query shards, 6 ms each, began up to 400 ms apart on 2 busy cores).
// Two runs that reused a run id are seconds apart.
const windowSlack = time.Second

// checkWindows refuses shards that cannot have run together: the shards of
// one run are released at one shared start, so in each iteration every
// shard's window (moved onto the server's clock by its measured offset)
// overlaps every other's. Two runs that reused a run id one after the
// other do not, and merging them would report the gap as wall time.
func checkWindows(in []Input) error {
	base := in[0].Doc
	for bi := range base.Benchmarks {
		for it := range base.Benchmarks[bi].Iterations {
			var lastStart, firstEnd time.Time
			var starter, ender Input
			for i, f := range in {
				if it >= len(f.Doc.Benchmarks[bi].Iterations) {
					return nil // the merge refuses the mismatch itself
				}
				off := time.Duration(f.Doc.Shard.ClockOffsetMicros) * time.Microsecond
				x := f.Doc.Benchmarks[bi].Iterations[it]
				start, end := x.Start.Add(off), x.End.Add(off)
				if i == 0 || start.After(lastStart) {
					lastStart, starter = start, f
				}
				if i == 0 || end.Before(firstEnd) {
					firstEnd, ender = end, f
				}
			}
			if gap := lastStart.Sub(firstEnd); gap > windowSlack {
				return fmt.Errorf("benchmark %d iteration %d: shard %d (%s) started %s after shard %d (%s) had ended: "+
					"these are not the shards of one run, which start together (--allow-disjoint merges them anyway)",
					bi+1, it+1, starter.Doc.Shard.Index, starter.Name, gap.Round(time.Millisecond), ender.Doc.Shard.Index, ender.Name)
			}
		}
	}
	return nil
}
