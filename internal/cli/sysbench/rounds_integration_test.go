package sysbench

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/goslap/goslap/internal/results/jsondoc"
	"github.com/goslap/goslap/internal/sandbox/servertest"
)

// TestRoundsAA: the same server binary as two sandbox targets, 5
// interleaved rounds of a short point-select load. The sides run in
// verdict.Order (A B, B A, B A, A B, A B: checked from the iterations'
// start times), each quiesced first; the text, the JSON and the chart
// carry the rounds, and the verdict is "no difference detected".
//
// An A/A comparison at a 95 % level may report a difference one time in
// twenty by design; a reported one must then be small (its interval
// within ±15 %), which a broken pairing or order would not give.
func TestRoundsAA(t *testing.T) {
	s := servertest.Require(t)
	dir := t.TempDir()
	doc, chart := filepath.Join(dir, "aa.json"), filepath.Join(dir, "aa.svg")
	out, errOut, code := goslapSysbench(t, s, "oltp_point_select", "--target=a:sandbox", "--target=b:sandbox",
		"--table-size=1000", "--time=1", "--threads=2", "--rounds=5", "--json="+doc, "--plot="+chart, "run")
	if code != 0 {
		t.Fatalf("exit %d\nstdout:\n%s\nstderr:\n%s", code, out, errOut)
	}
	for _, want := range []string{"Mode: 5 rounds, 2 sides up at once, interleaved at every point (A B; B A; B A; A B; …)",
		"Per point (median of 5 rounds)", "b vs a  tps"} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	if n := strings.Count(errOut+out, ": quiesced ("); n != 10 {
		t.Errorf("%d quiesce lines, want 10 (2 sides × 5 rounds):\n%s", n, errOut)
	}
	d := readDocument(t, doc)
	// The order the sides ran in, round by round, from their start times.
	type run struct {
		target string
		round  int
		start  int64
	}
	var runs []run
	for _, b := range d.Benchmarks {
		runs = append(runs, run{b.Target, b.Round, b.Iterations[0].Start.UnixNano()})
	}
	slices.SortFunc(runs, func(x, y run) int { return int(x.start - y.start) })
	var order []string
	for _, r := range runs {
		order = append(order, r.target)
	}
	if got, want := strings.Join(order, " "), "a b b a b a a b a b"; got != want {
		t.Errorf("sides ran in the order %q, want %q (verdict.Order)", got, want)
	}
	c := d.Comparison
	if c == nil || c.Rounds != 5 || c.Baseline != "a" || len(c.Points) != 1 {
		t.Fatalf("comparison section: %+v", c)
	}
	m := c.Points[0].Metrics[0]
	if m.Metric != "tps" || len(m.Sides) != 2 || len(m.Sides[0].Values) != 5 || len(m.Verdicts) != 1 {
		t.Fatalf("tps comparison: %+v", m)
	}
	v := m.Verdicts[0]
	switch {
	case v.Outcome == "no-difference" && strings.HasPrefix(v.Text, "no difference detected"):
	case v.Low > 0.85 && v.High < 1.15:
		t.Logf("A/A reported a small difference (the 1 in 20 a 95 %% interval allows): %s", v.Text)
	default:
		t.Errorf("A/A verdict: %+v", v)
	}
	svg, err := os.ReadFile(chart)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"transactions per second", "bars: 95 % CI", "b / a: transactions per second ratio", "p95 latency"} {
		if !strings.Contains(string(svg), want) {
			t.Errorf("chart lacks %q", want)
		}
	}
}

// TestRoundsOnPreparedServers: the run command interleaves rounds on
// tables prepared before (two server targets); prepare with --rounds is
// refused in one line, as it measures nothing.
func TestRoundsOnPreparedServers(t *testing.T) {
	s := servertest.Require(t)
	base := []string{"oltp_point_select", "--mysql-db=test", "--table-size=300"}
	mustRun(t, s, append(base, "prepare")...)
	defer mustRun(t, s, append(base, "cleanup")...)
	targets := []string{"--target=a:server:" + s.Socket, "--target=b:server:" + s.Socket}
	out := mustRun(t, s, append(append(base, targets...), "--rounds=2", "--time=1", "run")...)
	if n := strings.Count(out, "SQL statistics:"); n != 4 || !strings.Contains(out, "Mode: 2 rounds, 2 sides up at once") {
		t.Errorf("%d reports, want 4 (2 rounds × 2 targets):\n%s", n, out)
	}
	out, _, code := goslapSysbench(t, s, append(append(base, targets...), "--rounds=3", "prepare")...)
	if code == 0 || !strings.Contains(out, "--rounds=3 interleaves measured runs: the prepare command measures nothing") {
		t.Errorf("exit %d:\n%s", code, out)
	}
}

// readDocument decodes the --json document at path.
func readDocument(t *testing.T, path string) *jsondoc.Document {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	d, err := jsondoc.Decode(f)
	if err != nil {
		t.Fatal(err)
	}
	return d
}
