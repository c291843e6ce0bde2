package sysbench

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/goslap/goslap/internal/results/jsondoc"
	"github.com/goslap/goslap/internal/sandbox/servertest"
	"github.com/goslap/goslap/internal/workload/oltp"
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

// TestJSON: --json under goslap sysbench: alone, stdout holds the document
// and nothing else (the log goes to stderr); with a file, the report stays
// on stdout. The document names the front end, keys the options by
// sysbench's names and carries one labelled benchmark per thread count.
func TestJSON(t *testing.T) {
	s := servertest.Require(t)
	base := []string{"oltp_read_only", "--mysql-db=test", "--table-size=400", "--tables=2"}
	mustRun(t, s, append(base, "prepare")...)
	defer mustRun(t, s, append(base, "cleanup")...)
	out, errOut, code := goslapSysbench(t, s, append(base, "--threads=3,4", "--time=1", "--rand-type=uniform", "--json", "run")...)
	if code != 0 {
		t.Fatalf("exit %d:\n%s\n%s", code, out, errOut)
	}
	if !strings.Contains(errOut, "sysbench 1.0 dialect") {
		t.Errorf("stderr lacks the version line:\n%s", errOut)
	}
	var raw any
	if err := json.Unmarshal([]byte(out), &raw); err != nil {
		t.Fatalf("stdout is not one JSON document (%v):\n%s", err, out)
	}
	doc, err := jsondoc.Decode(strings.NewReader(out))
	if err != nil {
		t.Fatal(err)
	}
	if doc.FrontEnd != "sysbench" || len(doc.Targets) != 1 || doc.Targets[0].Server.Version == "" {
		t.Errorf("front end %q, targets %+v", doc.FrontEnd, doc.Targets)
	}
	for name, want := range map[string]any{"test": "oltp_read_only", "table-size": "400", "tables": "2", "time": float64(1),
		"rand-type": "uniform", "mysql-db": "test", "json": "-"} {
		if got := doc.Options[name]; got != want {
			t.Errorf("option %s = %#v, want %#v", name, got, want)
		}
	}
	if _, ok := doc.Options["mysql-password"]; ok {
		t.Error("the password is recorded")
	}
	if len(doc.Benchmarks) != 2 {
		t.Fatalf("%d benchmarks, want 2", len(doc.Benchmarks))
	}
	for i, b := range doc.Benchmarks {
		want := oltp.Section{Dialect: "1.0", Distribution: "uniform", Tables: 2, TableSize: 400}
		var got oltp.Section
		has, err := b.Section(oltp.SectionName, &got)
		if b.Concurrency != 3+i || b.Workload != "oltp_read_only" || !has || err != nil || got != want ||
			b.Figures == nil || b.Figures.Transactions == 0 || b.Figures.Writes != 0 || b.Figures.Reads == 0 {
			t.Errorf("benchmark %d: %+v, oltp %+v (%v), figures %+v", i, b, got, err, b.Figures)
		}
	}

	file := filepath.Join(t.TempDir(), "r.json")
	out = mustRun(t, s, append(base, "--threads=3", "--time=2", "--json="+file, "run")...)
	if !strings.Contains(out, "SQL statistics:") {
		t.Errorf("with --json=FILE the report is missing:\n%s", out)
	}
	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	if doc, err = jsondoc.Decode(bytes.NewReader(data)); err != nil || len(doc.Benchmarks) != 1 || doc.Options["json"] != file {
		t.Fatalf("file document: %v, %+v", err, doc)
	}
	// A plain run keeps its 1 s intervals (the last one may be lost to
	// the end of the run; a loaded machine may stretch the run).
	ivs := doc.Benchmarks[0].Intervals
	if len(ivs) < 1 || len(ivs) > 3 {
		t.Errorf("%d intervals in a 2 s run, want 1 or 2", len(ivs))
	}
	for i, iv := range ivs {
		if iv.Iteration != 1 || iv.AtSeconds < float64(i+1) || iv.Seconds < 0.5 || iv.Transactions == 0 || iv.Latency.Count == 0 {
			t.Errorf("interval %d: %+v", i, iv)
		}
	}
}
