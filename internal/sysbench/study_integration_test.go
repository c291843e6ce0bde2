package sysbench

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/goslap/goslap/internal/testserver/servertest"
)

// TestExtrasOnAServerTarget: --target, --iterations, --latency and --plot
// under goslap sysbench: one sysbench report per iteration, the comparison
// table and the chart; prepare and cleanup stay sysbench's commands.
func TestExtrasOnAServerTarget(t *testing.T) {
	s := servertest.Require(t)
	base := []string{"oltp_point_select", "--mysql-db=test", "--table-size=300"}
	// Both targets are the test server: one prepare serves them.
	mustRun(t, s, append(base, "prepare")...)
	args := append(base, "--target=here:server:"+s.Socket, "--target=again:server:"+s.Socket)
	chart := filepath.Join(t.TempDir(), "c.svg")
	out := mustRun(t, s, append(args, "--time=1", "--threads=1,2", "--iterations=2", "--latency", "--plot="+chart, "run")...)
	if n := strings.Count(out, "SQL statistics:"); n != 8 {
		t.Errorf("%d sysbench reports, want 8 (2 targets × 2 thread counts × 2 iterations):\n%s", n, out)
	}
	for _, want := range []string{"Target: here\n", "Target: again\n", "Latency percentiles (ms, goslap): p50 ", "Comparison: 2 targets", "ratio = q/s against here"} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	if _, err := os.Stat(chart); err != nil {
		t.Error(err)
	}
	mustRun(t, s, append(base, "cleanup")...)
	if got := tables(t, s, "test"); len(got) != 0 {
		t.Errorf("tables left: %v", got)
	}
}

// TestExtrasOnASandbox: "run" on a sandbox prepares, runs and cleans up
// (a sandbox starts empty); prepare alone is refused with one line.
func TestExtrasOnASandbox(t *testing.T) {
	s := servertest.Require(t)
	out := mustRun(t, s, "oltp_read_only", "--sandbox", "--table-size=500", "--time=1", "run")
	for _, want := range []string{"Inserting 500 records", "SQL statistics:", "transactions:"} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	out, _, code := goslapSysbench(t, s, "oltp_read_only", "--sandbox", "prepare")
	if code == 0 || !strings.Contains(out, "\nFATAL: the prepare command cannot be honoured on a sandbox") || strings.Count(out, "FATAL") != 1 {
		t.Errorf("exit %d:\n%s", code, out)
	}
}
