package orchestrator

import (
	"testing"

	"github.com/goslap/goslap/internal/workload/report"
)

// figures is a cell summary with figures of its own (report.Figurer).
type figures map[string]float64

func (f figures) Figure(metric string) (float64, bool) {
	v, ok := f[metric]
	return v, ok
}

var _ report.Figurer = figures{}

// TestCellValueFromSummaryFigure: a metric the engine does not measure
// (tpmc) is the cell summary's figure by that name, through the named
// capability; a summary without it, or none, gives no value.
func TestCellValueFromSummaryFigure(t *testing.T) {
	for _, tc := range []struct {
		name    string
		summary any
		want    float64
		ok      bool
	}{
		{"summary with the figure", figures{"tpmc": 1234.5}, 1234.5, true},
		{"summary without it", figures{"other": 1}, 0, false},
		{"summary without figures", struct{}{}, 0, false},
		{"no summary", nil, 0, false},
	} {
		v, ok := cellValue(&Cell{Summary: tc.summary}, "tpmc")
		if v != tc.want || ok != tc.ok {
			t.Errorf("%s: %v, %v; want %v, %v", tc.name, v, ok, tc.want, tc.ok)
		}
	}
}
