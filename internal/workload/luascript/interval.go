package luascript

import (
	"time"

	"github.com/goslap/goslap/internal/results"
	"github.com/goslap/goslap/internal/workload/oltp"
	"github.com/goslap/goslap/internal/workload/report"
)

var _ report.IntervalLiner = (*Workload)(nil)

// IntervalLine is a script's live line (report.IntervalLiner): sysbench
// 1.0's, with its 95th percentile, as sysbench prints for a script without
// a report_intermediate hook. goslap sysbench calls a script's hook itself
// (scriptIntervals there).
func (w *Workload) IntervalLine(iv results.Interval, _ time.Duration) string {
	return oltp.IntervalLine(iv, 95)
}
