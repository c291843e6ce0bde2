package mysqlslap

import (
	"bytes"
	"strings"
	"testing"
	"time"

	"github.com/goslap/goslap/internal/results"
	"github.com/goslap/goslap/internal/workload/selectone"
)

// lined is a workload with an interval line of its own.
type lined struct{ selectone.Workload }

func (lined) IntervalLine(iv results.Interval, every time.Duration) string {
	return "line " + every.String() + "\n"
}

// TestIntervalPrinter: --report-interval prints the workload's own line
// (report.IntervalLiner), and is refused for a workload without one
// rather than printing another workload's.
func TestIntervalPrinter(t *testing.T) {
	var b bytes.Buffer
	print, err := intervalPrinter("lined", lined{}, 2*time.Second, &b)
	if err != nil {
		t.Fatal(err)
	}
	print(results.Interval{})
	if b.String() != "line 2s\n" {
		t.Errorf("line %q", b.String())
	}
	_, err = intervalPrinter("selectone", selectone.Workload{}, time.Second, &b)
	if code, msg := exitCode(err); code != 1 || !strings.Contains(msg, "--report-interval cannot be honoured with --workload=selectone") {
		t.Errorf("exit %d %q", code, msg)
	}
}
