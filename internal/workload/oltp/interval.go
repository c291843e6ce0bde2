package oltp

import (
	"fmt"
	"math"

	"github.com/goslap/goslap/internal/results"
)

// IntervalLine is the OLTP workloads' live line: sysbench 1.0's
// --report-interval layout, which goslap prints in every sysbench dialect
// and, for workloads without a line of their own, in its mysqlslap front
// end. pct selects the latency column: the
// interval snapshots keep p50, p95 and p99.
func IntervalLine(iv results.Interval, pct int) string {
	secs := iv.Length.Seconds()
	t := iv.Tally
	q := t.Reads + t.Writes + t.Other
	lat := iv.Latency.Kept(pct) // 0 with percentiles disabled: sysbench prints "lat (ms,0%): 0.00"
	return fmt.Sprintf("[ %ds ] thds: %d tps: %4.2f qps: %4.2f (r/w/o: %4.2f/%4.2f/%4.2f) lat (ms,%d%%): %4.2f err/s: %4.2f reconn/s: %4.2f\n",
		int64(math.Round(iv.At.Seconds())), iv.Clients,
		perSec(iv.Events, secs), perSec(q, secs),
		perSec(t.Reads, secs), perSec(t.Writes, secs), perSec(t.Other, secs),
		pct, float64(lat)/1000,
		perSec(iv.Errors, secs), perSec(iv.Reconnects, secs))
}

func perSec(n uint64, secs float64) float64 {
	if secs <= 0 {
		return 0
	}
	return float64(n) / secs
}
