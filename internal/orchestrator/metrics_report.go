package orchestrator

import (
	"fmt"
	"strings"

	"github.com/goslap/goslap/internal/results/jsondoc"
	"github.com/goslap/goslap/internal/servermetrics"
)

// CellServer is a cell's server figures over its measured iterations
// (nil when it was not sampled) and its intervals with their stall flags
// (kept whether or not it was sampled).
func CellServer(c *Cell, unit string) (*jsondoc.ServerFigures, []jsondoc.Interval) {
	var b jsondoc.Benchmark
	serverJSON(&b, c.Benchmarks, c.Servers, unit)
	return b.Server, b.Intervals
}

// serverLines is the "Server:" block under a cell (TextReport.Server):
// the per-unit figures, the host's CPU and goslap's share of it, why a
// figure is missing, and the intervals flagged as stalls.
func (t *TextReport) serverLines(c *Cell) string {
	unit := t.Unit
	if unit == "" {
		unit = "transaction"
	}
	var b strings.Builder
	for _, l := range ServerLines(c, unit) {
		b.WriteString("\t" + l + "\n")
	}
	return b.String()
}

// ServerLines are a cell's "Server:" lines (per unit, "transaction" or
// "query"), for a front end that prints its own report: the per-unit
// figures, the host's CPU and goslap's share, why a figure is missing,
// and the stalls. Only the stalls when the cell was not sampled.
func ServerLines(c *Cell, unit string) []string {
	f, ivs := CellServer(c, unit)
	var out []string
	if f != nil {
		out = servermetrics.Lines(*f)
	}
	if line := stallLine(ivs); line != "" {
		out = append(out, line)
	}
	return out
}

// stallLine names the intervals whose throughput fell below half the
// median: "Stalls: 2 of 30 intervals below half the median throughput (iteration 1 at 12s, 13s)".
func stallLine(ivs []jsondoc.Interval) string {
	var at []string
	iter := 0
	for _, iv := range ivs {
		if !iv.Stall {
			continue
		}
		s := fmt.Sprintf("%gs", iv.AtSeconds)
		if iv.AtSeconds >= 1 {
			s = fmt.Sprintf("%.0fs", iv.AtSeconds)
		}
		if iv.Iteration != iter {
			iter = iv.Iteration
			s = fmt.Sprintf("iteration %d at %s", iter, s)
		}
		at = append(at, s)
	}
	if len(at) == 0 {
		return ""
	}
	return fmt.Sprintf("Stalls: %d of %d intervals below half the median throughput (%s)", len(at), len(ivs), strings.Join(at, ", "))
}
