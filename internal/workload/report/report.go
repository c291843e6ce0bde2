// Package report names what a workload may add to goslap's reports, by
// exported interfaces the orchestrator, the front ends and goslap merge
// look for (as k6's output capabilities), so that none of them names a
// workload:
//
//   - CellSummariser: figures the engine does not measure, kept per
//     iteration and summarised per cell (TPC-C's retries, failures and
//     tpmC); the summary prints itself under the cell's block (Writer) and
//     may carry a JSON section (Sectioner).
//   - Figurer: a cell summary's own figures that studies compare on
//     (--compare-metric tpmc: TPC-C's tpmC).
//   - IntervalLiner: the workload's own live line (--report-interval).
//   - PointSectioner: a JSON section describing the workload at a point
//     (OLTP's dialect, distribution and table size).
//   - a section's handler, registered by name (RegisterSection): how the
//     shards' sections merge (SectionMerger), what to check in one
//     (SectionChecker) and its text report after a merge
//     (SectionSummariser).
//
// A section is a JSON object under its name in a --json benchmark
// (jsondoc.Benchmark.Sections). The settings' capabilities (a size axis,
// stop defaults) are in package workload.
package report

import (
	"encoding/json"
	"fmt"
	"io"
	"sort"
	"sync"
	"time"

	"github.com/goslap/goslap/internal/results"
	"github.com/goslap/goslap/internal/results/jsondoc"
	"github.com/goslap/goslap/internal/workload"
)

// CellSummariser is the capability of a Workload whose results have
// figures the engine does not measure. IterationDone is called right after
// each iteration, before the next one's Load, and keeps what that
// iteration's report needs; CellSummary builds the cell's report from them
// (states are IterationDone's, one per iteration).
type CellSummariser interface {
	IterationDone(b *results.Benchmark) any
	CellSummary(p workload.Point, bs []*results.Benchmark, states []any) (any, error)
}

// Writer is the capability of a cell summary printed under the cell's
// block.
type Writer interface {
	Write(w io.Writer) error
}

// Sectioner is the capability of a cell summary recorded in the --json
// benchmark: its section's name and the section.
type Sectioner interface {
	JSONSection() (name string, section json.RawMessage, err error)
}

// Figurer is the capability of a cell summary with figures of its own
// that the verdicts compare on (--compare-metric; the engine's tps, qps
// and latencies need none): Figure returns the cell's figure named metric
// (tpmc for TPC-C's summary), false when the summary has none by that
// name.
type Figurer interface {
	Figure(metric string) (float64, bool)
}

// PointSectioner is the capability of a Workload that describes itself at
// point p in the --json benchmark: its section's name and the section.
type PointSectioner interface {
	PointSection(p workload.Point) (name string, section json.RawMessage, err error)
}

// IntervalLiner is the capability of a Workload with a live line of its
// own (--report-interval): one line, with its newline, for snapshot iv of
// a report every `every`.
type IntervalLiner interface {
	IntervalLine(iv results.Interval, every time.Duration) string
}

// SectionMerger merges the sections name of one benchmark's shards (in
// shard order) into the merged benchmark's, which has every other field
// merged already (its ops' histograms, its seconds). A section without a
// merger is the first shard's.
type SectionMerger interface {
	MergeSections(parts []json.RawMessage, merged *jsondoc.Benchmark) (json.RawMessage, error)
}

// SectionChecker is the optional capability of a SectionMerger that checks
// a shard's section before the merge (its counts within what a run can
// count).
type SectionChecker interface {
	CheckSection(section json.RawMessage) error
}

// SectionSummariser is the optional capability of a SectionMerger that
// turns a merged section back into the cell summary goslap merge prints
// (a Writer).
type SectionSummariser interface {
	SectionSummary(section json.RawMessage) (any, error)
}

var (
	mu       sync.Mutex
	sections = map[string]SectionMerger{}
)

// RegisterSection names the handler of a workload's section; a workload
// calls it in its init function, beside workload.Register. It panics on a
// duplicate or empty name (a programming error every test run catches).
func RegisterSection(name string, m SectionMerger) {
	mu.Lock()
	defer mu.Unlock()
	if name == "" || m == nil {
		panic("report: RegisterSection needs a name and a merger")
	}
	if _, dup := sections[name]; dup {
		panic("report: section " + name + " registered twice")
	}
	sections[name] = m
}

// Section returns the handler registered for the section name, nil if
// none.
func Section(name string) SectionMerger {
	mu.Lock()
	defer mu.Unlock()
	return sections[name]
}

// SectionNames are the names of a benchmark's sections, sorted.
func SectionNames(b *jsondoc.Benchmark) []string {
	names := make([]string, 0, len(b.Sections))
	for n := range b.Sections {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

// Marshal is a section's JSON (for workloads' PointSection and
// JSONSection).
func Marshal(name string, v any) (string, json.RawMessage, error) {
	raw, err := json.Marshal(v)
	if err != nil {
		return name, nil, fmt.Errorf("%s section: %w", name, err)
	}
	return name, raw, nil
}
