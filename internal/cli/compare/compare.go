// Package compare is `goslap compare`: it reads saved result documents
// (--json), pairs their benchmarks by point (workload, engine, load type,
// concurrency, data size, server option), and prints per point and metric
// each side's figure, its ratio to the first side and — when every side
// has several rounds — the verdict of package verdict. Thresholds
// (--fail-if) turn a significant regression into a distinct exit status,
// a release gate for CI.
package compare

import (
	"fmt"
	"maps"
	"reflect"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/goslap/goslap/internal/results/jsondoc"
	"github.com/goslap/goslap/internal/servermetrics"
	"github.com/goslap/goslap/internal/verdict"
)

// Doc is one document and the file it came from.
type Doc struct {
	Name string
	Doc  *jsondoc.Document
}

// Side is one of the things compared: the documents of its rounds, in
// round order (round i of every side is paired), and, when the sides are
// the targets of multi-target documents, the target's label.
type Side struct {
	Docs   []Doc
	Target string
}

// Name is how the side is shown: its target, or its document(s).
func (s Side) Name() string {
	if s.Target != "" {
		return "target " + s.Target
	}
	var names []string
	for _, d := range s.Docs {
		names = append(names, d.Name)
	}
	return strings.Join(names, " ")
}

// Row is one point, one metric, one side.
type Row struct {
	Point  string
	Metric Metric // resolved (never "study")
	Side   int
	// Values are the side's figures per round; Missing says why there are
	// none (the point or the metric is absent from a round's document).
	Values  []float64
	Missing string
	// Result compares the side with side 0 (set for Side > 0 when both
	// have every round).
	Result   *verdict.Result
	Compared string // why Result is nil, when it is
	// Reasons are the server figures per unit that differ most between
	// this side and side 0 (as the run's own verdicts name them), where
	// every round of both sides recorded them; Unit is what they divide
	// by. Only on the throughput metric's rows.
	Reasons []servermetrics.Difference
	Unit    string
}

// Report is a comparison.
type Report struct {
	Sides []Side
	Rows  []Row
	// Rounds is the number of rounds of each side.
	Rounds int
}

// planIgnored are options that may differ between documents of one plan:
// which server was measured and how it was reached (a comparison exists to
// change it), where and how results were written, the seed, and what
// differs between the shards of one run.
var planIgnored = map[string]bool{
	"host": true, "port": true, "socket": true, "user": true, "protocol": true, "default-auth": true,
	"plugin-dir": true, "character-sets-dir": true, "compress": true, "compression-algorithms": true,
	"zstd-compression-level": true, "get-server-public-key": true, "server-public-key-path": true,
	"enable-cleartext-plugin": true, "login-path": true, "tls-version": true, "debug": true,
	"debug-check": true, "debug-info": true, "silent": true, "verbose": true, "show-progress": true,
	"json": true, "csv": true, "plot": true, "latency": true, "report-interval": true,
	"seed": true, "rand-seed": true, "target": true, "sandbox": true, "sandbox-option": true,
	"allow-drop-existing-schema": true, "mysql-host": true, "mysql-port": true, "mysql-socket": true,
	"mysql-user": true, "mysql-compression": true, "mysql-debug": true,
}

// planIgnoredPrefixes are families of connection options.
var planIgnoredPrefixes = []string{"ssl", "mysql-ssl", "password", "mysql-password"}

func ignoredInPlan(name string) bool {
	if planIgnored[name] || slices.Contains(jsondoc.ShardOptions, name) {
		return true
	}
	for _, p := range planIgnoredPrefixes {
		if strings.HasPrefix(name, p) {
			return true
		}
	}
	return false
}

// CheckPlans returns an error naming what differs when the documents did
// not run the same plan: front end, or an option that shapes the load
// (the options that name the server, the outputs and the seed may
// differ). The plan hash of sharded runs cannot serve: it covers the
// seed and the server.
func CheckPlans(docs []Doc) error {
	first := docs[0]
	for _, d := range docs[1:] {
		if d.Doc.FrontEnd != first.Doc.FrontEnd {
			return fmt.Errorf("%s was written by goslap's %s front end, %s by %s: different plans", first.Name, first.Doc.FrontEnd, d.Name, d.Doc.FrontEnd)
		}
		var diffs []string
		keys := slices.Sorted(maps.Keys(first.Doc.Options))
		for k := range d.Doc.Options {
			if _, ok := first.Doc.Options[k]; !ok {
				keys = append(keys, k)
			}
		}
		for _, k := range keys {
			if ignoredInPlan(k) {
				continue
			}
			a, aok := first.Doc.Options[k]
			b, bok := d.Doc.Options[k]
			if aok != bok || !reflect.DeepEqual(a, b) {
				diffs = append(diffs, fmt.Sprintf("--%s %s vs %s", k, optionText(a, aok), optionText(b, bok)))
			}
		}
		if len(diffs) > 0 {
			more := ""
			if len(diffs) > 3 {
				more = fmt.Sprintf(" and %d more", len(diffs)-3)
				diffs = diffs[:3]
			}
			return fmt.Errorf("%s and %s ran different plans (%s%s)", first.Name, d.Name, strings.Join(diffs, ", "), more)
		}
	}
	return nil
}

func optionText(v any, ok bool) string {
	if !ok {
		return "(absent)"
	}
	if v == nil {
		return "(not given)"
	}
	return fmt.Sprint(v)
}

// pointKey is where a benchmark sits in its document's matrix, as the
// table names it.
func pointKey(b *jsondoc.Benchmark, withTarget bool) string {
	var parts []string
	if withTarget {
		parts = append(parts, b.Target)
	}
	parts = append(parts, b.Workload)
	if b.Engine != "" {
		e := b.Engine
		if b.Point != nil && b.Point.EngineOptions != "" {
			e += ":" + b.Point.EngineOptions
		}
		parts = append(parts, e)
	}
	if b.LoadType != "" {
		parts = append(parts, b.LoadType)
	}
	parts = append(parts, "c"+strconv.Itoa(b.Concurrency))
	if p := b.Point; p != nil {
		if p.Scale != 0 {
			name := p.ScaleName
			if name == "" {
				name = "size"
			}
			parts = append(parts, name+"="+strconv.FormatInt(p.Scale, 10))
		}
		if p.ServerOption != "" {
			parts = append(parts, p.ServerOption)
		}
	}
	return strings.Join(parts, " ")
}

// index maps each point of d (of target, when not "") to its benchmark;
// a point repeated in one document is numbered by occurrence.
func index(d *jsondoc.Document, target string, withTarget bool) (map[string]*jsondoc.Benchmark, []string) {
	out := map[string]*jsondoc.Benchmark{}
	var order []string
	seen := map[string]int{}
	for i := range d.Benchmarks {
		b := &d.Benchmarks[i]
		if target != "" && b.Target != target {
			continue
		}
		key := pointKey(b, withTarget)
		if n := seen[key]; n > 0 {
			seen[key] = n + 1
			key += fmt.Sprintf(" (#%d)", n+1)
		} else {
			seen[key] = 1
		}
		out[key] = b
		order = append(order, key)
	}
	return out, order
}

// Sides turns the command line's groups of documents into the sides to
// compare. One group (no 'vs') whose documents each hold the same two or
// more targets compares the targets (target 1 the baseline, each document
// a round); any other single group makes each document a side of one
// round; several groups are a side each, their documents its rounds,
// paired by position: every side needs as many documents.
func Sides(groups [][]Doc) ([]Side, error) {
	if len(groups) == 1 {
		labels := targetLabels(groups[0][0].Doc)
		same := len(labels) >= 2
		for _, d := range groups[0][1:] {
			same = same && slices.Equal(targetLabels(d.Doc), labels)
		}
		if same {
			var sides []Side
			for _, l := range labels {
				sides = append(sides, Side{Docs: groups[0], Target: l})
			}
			return sides, nil
		}
		var each [][]Doc
		for _, d := range groups[0] {
			each = append(each, []Doc{d})
		}
		groups = each
	}
	var sides []Side
	for _, g := range groups {
		if len(g) != len(groups[0]) {
			return nil, fmt.Errorf("%s has %d documents, %s %d: rounds are paired by position, every side needs as many", Side{Docs: groups[0]}.Name(), len(groups[0]), Side{Docs: g}.Name(), len(g))
		}
		sides = append(sides, Side{Docs: g})
	}
	if len(sides) < 2 {
		return nil, fmt.Errorf("%s: one document of one target is nothing to compare (give two documents, or one with several targets)", sides[0].Name())
	}
	return sides, nil
}

// SplitRounds reads the rounds of one document: a single document of
// several targets whose benchmarks carry their round (--rounds) becomes
// one document per round ("FILE round N"), so that its targets are
// compared paired by round. Anything else is returned as it is.
func SplitRounds(groups [][]Doc) [][]Doc {
	if len(groups) != 1 || len(groups[0]) != 1 {
		return groups
	}
	d := groups[0][0]
	rounds := 0
	for _, b := range d.Doc.Benchmarks {
		rounds = max(rounds, b.Round)
	}
	if rounds < 2 || len(d.Doc.Targets) < 2 {
		return groups
	}
	var out []Doc
	for r := 1; r <= rounds; r++ {
		doc := *d.Doc
		doc.Benchmarks = nil
		for _, b := range d.Doc.Benchmarks {
			if b.Round == r {
				doc.Benchmarks = append(doc.Benchmarks, b)
			}
		}
		out = append(out, Doc{Name: fmt.Sprintf("%s round %d", d.Name, r), Doc: &doc})
	}
	return [][]Doc{out}
}

func targetLabels(d *jsondoc.Document) []string {
	var out []string
	for _, t := range d.Targets {
		out = append(out, t.Label)
	}
	return out
}

// Compare builds the report of sides on metrics ("study" resolves per
// point).
func Compare(sides []Side, metrics []Metric) (*Report, error) {
	// Documents of several targets compared side by side keep the target
	// in the point.
	withTarget := false
	for _, s := range sides {
		for _, d := range s.Docs {
			withTarget = withTarget || (s.Target == "" && len(d.Doc.Targets) > 1)
		}
	}
	rounds := len(sides[0].Docs)
	// idx[side][round]
	idx := make([][]map[string]*jsondoc.Benchmark, len(sides))
	var order []string
	inOrder := map[string]bool{}
	for s, side := range sides {
		for _, d := range side.Docs {
			m, o := index(d.Doc, side.Target, withTarget)
			idx[s] = append(idx[s], m)
			for _, k := range o {
				if !inOrder[k] {
					inOrder[k] = true
					order = append(order, k)
				}
			}
		}
	}
	rep := &Report{Sides: sides, Rounds: rounds}
	for _, point := range order {
		// The baseline's first benchmark of the point resolves "study";
		// a point the baseline lacks takes the first side that has it.
		var ref *jsondoc.Benchmark
		for s := range sides {
			for r := range rounds {
				if b := idx[s][r][point]; b != nil && ref == nil {
					ref = b
				}
			}
		}
		var done []string
		for _, m := range metrics {
			m, err := m.resolve(ref)
			if err != nil {
				return nil, err
			}
			if slices.Contains(done, m.Name) {
				continue
			}
			done = append(done, m.Name)
			rows, err := compareRows(point, m, sides, idx, rounds)
			if err != nil {
				return nil, err
			}
			rep.Rows = append(rep.Rows, rows...)
		}
	}
	return rep, nil
}

func compareRows(point string, m Metric, sides []Side, idx [][]map[string]*jsondoc.Benchmark, rounds int) ([]Row, error) {
	var rows []Row
	// per[s] are side s's server figures per unit, round by round; nil
	// when a round has none.
	per := make([][]jsondoc.PerTransaction, len(sides))
	unit := ""
	for s, side := range sides {
		row := Row{Point: point, Metric: m, Side: s}
		for r := range rounds {
			b := idx[s][r][point]
			if b == nil {
				row.Missing = "not in " + side.Docs[r].Name
				break
			}
			if b.Server != nil && (r == 0 || per[s] != nil) {
				per[s] = append(per[s], b.Server.PerTransaction)
				unit = b.Server.Unit
			} else {
				per[s] = nil
			}
			v, ok, err := m.Value(b)
			if err != nil {
				return nil, fmt.Errorf("%s, %s: %v", side.Docs[r].Name, point, err)
			}
			if !ok {
				row.Missing = "no " + m.Name
				break
			}
			row.Values = append(row.Values, v)
		}
		if row.Missing != "" {
			row.Values = nil
		}
		rows = append(rows, row)
	}
	base := rows[0]
	for i := 1; i < len(rows); i++ {
		switch {
		case base.Missing != "":
			rows[i].Compared = "baseline " + base.Missing
		case rows[i].Missing != "":
			rows[i].Compared = rows[i].Missing
		default:
			res, err := verdict.Compare(base.Values, rows[i].Values, m.Better())
			if err != nil {
				rows[i].Compared = err.Error()
			} else {
				rows[i].Result = &res
			}
			if m.Better() == verdict.Higher && per[0] != nil && per[i] != nil {
				d := servermetrics.Differences(per[0], per[i], servermetrics.MinChange)
				if len(d) > servermetrics.MaxReasons {
					d = d[:servermetrics.MaxReasons]
				}
				rows[i].Reasons, rows[i].Unit = d, unit
			}
		}
	}
	// A metric no side has is not a row.
	for _, r := range rows {
		if r.Missing != "no "+m.Name {
			return rows, nil
		}
	}
	return nil, nil
}

// Sequential says which later side ran entirely before or after the
// baseline when the sides have several rounds: all of A then all of B
// turns any drift of the machine into a difference between them (the
// rounds should alternate, a b b a …).
func Sequential(sides []Side) []int {
	var out []int
	if len(sides[0].Docs) < 2 {
		return nil
	}
	span := func(s Side) (first, last time.Time) {
		for i, d := range s.Docs {
			if i == 0 || d.Doc.StartedAt.Before(first) {
				first = d.Doc.StartedAt
			}
			end := d.Doc.FinishedAt
			if end.IsZero() { // cut short before it was written
				end = d.Doc.StartedAt
			}
			if i == 0 || end.After(last) {
				last = end
			}
		}
		return first, last
	}
	a0, a1 := span(sides[0])
	for i, s := range sides[1:] {
		if s.Target != "" {
			continue // targets of one document ran in its own order
		}
		b0, b1 := span(s)
		if !b0.Before(a1) || !a0.Before(b1) {
			out = append(out, i+1)
		}
	}
	return out
}

// Median is the row's figure: the median of its rounds.
func (r Row) Median() float64 {
	if len(r.Values) == 0 {
		return 0
	}
	s := slices.Clone(r.Values)
	sort.Float64s(s)
	if len(s)%2 == 1 {
		return s[len(s)/2]
	}
	return (s[len(s)/2-1] + s[len(s)/2]) / 2
}
