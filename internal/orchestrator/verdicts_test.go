package orchestrator

import (
	"strings"
	"testing"
	"time"

	"github.com/goslap/goslap/internal/latency"
	"github.com/goslap/goslap/internal/results"
)

// syntheticCell is one round of one side: tps transactions per second
// over 10 s, 10 statements each, every one taking us µs.
func syntheticCell(t *testing.T, target string, round int, tps float64, us int64) *Cell {
	t.Helper()
	r := latency.NewRecorder(false)
	n := int64(tps * 10)
	if err := r.Service.RecordValues(us, n); err != nil {
		t.Fatal(err)
	}
	b := &results.Benchmark{Target: target, Elapsed: 10 * time.Second, Events: uint64(n),
		Ops: []results.Op{{Name: "event", Recorder: r}}}
	b.Tally.Reads = uint64(n) * 10
	return &Cell{Target: target, Clients: 4, Round: round, Rounds: 5, Benchmarks: []*results.Benchmark{b}}
}

// TestVerdictsReport: per point, each side's per-round values, the paired
// ratio with its interval and the verdict's words; a clear 20 % drop is
// "slower", the same figures "no difference", one round NeedRounds; the
// JSON section carries the same.
func TestVerdictsReport(t *testing.T) {
	a := []float64{1000, 1040, 980, 1010, 1030}
	cases := []struct {
		name   string
		b      []float64
		rounds int
		want   string
	}{
		{"slower", []float64{800, 835, 790, 805, 820}, 5, "b vs a  tps     ratio 0.800 (95 % CI 0.795–0.806): slower by 20 % (95 % CI 19–20 %)"},
		{"same", []float64{1010, 1030, 990, 1000, 1020}, 5, "no difference detected (these 5 rounds"},
		{"one round", []float64{900}, 1, "b vs a  tps     ratio 0.900: no verdict: one round; a verdict needs --rounds"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			var cells []*Cell
			for r := range tc.rounds {
				cells = append(cells, syntheticCell(t, "a", r+1, a[r], 1000), syntheticCell(t, "b", r+1, tc.b[r], 1000))
			}
			cfg := &Config{Rounds: tc.rounds}
			var out strings.Builder
			if err := writeVerdicts(&out, cfg, &Result{Cells: cells}); err != nil {
				t.Fatal(err)
			}
			if !strings.Contains(out.String(), tc.want) {
				t.Errorf("report lacks %q:\n%s", tc.want, out.String())
			}
			c := comparisonJSON(cfg, &Result{Cells: cells})
			if c == nil || len(c.Points) != 1 || c.Points[0].Metrics[0].Metric != "tps" || len(c.Points[0].Metrics[0].Sides[1].Values) != tc.rounds {
				t.Fatalf("comparison section: %+v", c)
			}
		})
	}
}
