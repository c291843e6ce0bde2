package orchestrator

import (
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/goslap/goslap/internal/latency"
	"github.com/goslap/goslap/internal/results"
	"github.com/goslap/goslap/internal/results/jsondoc"
	"github.com/goslap/goslap/internal/servermetrics"
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

// sampled gives a synthetic cell the server sampling of its one
// iteration: per transaction cpuUS µs of server CPU and diskReads buffer
// pool misses, on a host busy at busy (of 2 CPUs over the 10 s) of which
// goslap took client.
func sampled(c *Cell, cpuUS, diskReads, busy, client float64) *Cell {
	n := float64(c.Benchmarks[0].Events)
	start := time.Unix(1000, 0)
	total := 20 * time.Second // 2 CPUs × 10 s
	span := servermetrics.Span{Start: start, End: start.Add(10 * time.Second),
		Counters: servermetrics.Delta{Counters: map[string]int64{
			"Innodb_buffer_pool_reads":         int64(diskReads * n),
			"Innodb_buffer_pool_read_requests": int64(65 * n)}},
		HaveProcess: true, ServerUser: time.Duration(cpuUS*n) * time.Microsecond,
		HaveHost: true, HostTotal: total, HostIdle: time.Duration((1 - busy) * float64(total)), CPUs: 2,
		Client: time.Duration(client * float64(total))}
	c.Servers = []*IterationServer{{Whole: span, HaveWhole: true, Location: servermetrics.Location{PID: 42, Found: "sandbox"}}}
	return c
}

// TestVerdictReasons: the verdict line names the server figures that
// differ most (from fake per-round figures), the JSON carries them as
// reasons, each side gets a host line; sides that were not sampled get
// neither.
func TestVerdictReasons(t *testing.T) {
	a := []float64{1000, 1040, 980, 1010, 1030}
	b := []float64{800, 835, 790, 805, 820}
	cases := []struct {
		name       string
		sample     bool
		aCPU, bCPU float64
		aDisk      float64
		bDisk      float64
		busy       float64
		want       []string
		wantJSON   []string
		noHost     bool
		same       bool // b's throughput is a's: no difference detected
	}{
		{name: "disk reads and CPU", sample: true, aCPU: 800, bCPU: 880, aDisk: 0, bDisk: 3.1, busy: 0.97,
			want: []string{"b vs a  tps     ratio 0.800 (95 % CI 0.795–0.806): slower by 20 % (95 % CI 19–20 %): disk reads per transaction 0.0 → 3.1, server CPU per transaction +10 %\n",
				"a       host    host CPU saturated in 5 of 5 rounds (97 % busy); goslap used 30 % of it, the server 40 % (medians)\n"},
			wantJSON: []string{"disk reads per transaction 0.0 → 3.1", "server CPU per transaction +10 %"}},
		{name: "same figures", sample: true, aCPU: 800, bCPU: 810, aDisk: 1, bDisk: 1, busy: 0.5,
			want: []string{"slower by 20 % (95 % CI 19–20 %)\n",
				"b       host    host CPU not saturated in any of 5 rounds (50 % busy); goslap used 30 % of it, the server 33 % (medians)\n"}},
		{name: "no difference", sample: true, same: true, aCPU: 800, bCPU: 880, aDisk: 0, bDisk: 3.1, busy: 0.5,
			want:     []string{"no difference detected", "; the server's figures differed: disk reads per transaction 0.0 → 3.1"},
			wantJSON: []string{"disk reads per transaction 0.0 → 3.1", "server CPU per transaction +10 %"}},
		{name: "not sampled", sample: false,
			want: []string{"slower by 20 % (95 % CI 19–20 %)\n"}, noHost: true},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			var cells []*Cell
			for r := range 5 {
				bv := b[r]
				if tc.same {
					bv = a[(r+1)%5]
				}
				ca, cb := syntheticCell(t, "a", r+1, a[r], 1000), syntheticCell(t, "b", r+1, bv, 1000)
				if tc.sample {
					// The server's share: its CPU per transaction × tps over 2 CPUs.
					sampled(ca, tc.aCPU, tc.aDisk, tc.busy, 0.3)
					sampled(cb, tc.bCPU, tc.bDisk, tc.busy, 0.3)
				}
				cells = append(cells, ca, cb)
			}
			cfg := &Config{Rounds: 5}
			res := &Result{Cells: cells}
			var out strings.Builder
			if err := writeVerdicts(&out, cfg, res); err != nil {
				t.Fatal(err)
			}
			for _, w := range tc.want {
				if !strings.Contains(out.String(), w) {
					t.Errorf("report lacks %q:\n%s", w, out.String())
				}
			}
			if tc.noHost && strings.Contains(out.String(), "host CPU") {
				t.Errorf("a host line without host figures:\n%s", out.String())
			}
			c := comparisonJSON(cfg, res)
			var got []string
			for _, r := range c.Points[0].Metrics[0].Verdicts[0].Reasons {
				got = append(got, r.Text)
			}
			if !slices.Equal(got, tc.wantJSON) {
				t.Errorf("JSON reasons %q, want %q", got, tc.wantJSON)
			}
			if h := c.Points[0].Hosts; tc.noHost != (len(h) == 0) {
				t.Errorf("JSON hosts %+v", h)
			}
		})
	}
}

// TestHostWords: the host line says when the CPU was saturated and what
// share goslap used.
func TestHostWords(t *testing.T) {
	share := 0.41
	cases := []struct {
		h    jsondoc.SideHost
		want string
	}{
		{jsondoc.SideHost{Rounds: 1, SaturatedRounds: 1, Busy: 0.995, ClientShare: 0.3, ServerShare: &share},
			"host CPU saturated (100 % busy); goslap used 30 % of it, the server 41 %"},
		{jsondoc.SideHost{Rounds: 1, Busy: 0.62, ClientShare: 0.2},
			"host CPU not saturated (62 % busy); goslap used 20 % of it"},
		{jsondoc.SideHost{Rounds: 5, SaturatedRounds: 3, Busy: 0.93, ClientShare: 0.27, ServerShare: &share},
			"host CPU saturated in 3 of 5 rounds (93 % busy); goslap used 27 % of it, the server 41 % (medians)"},
	}
	for _, tc := range cases {
		if got := hostWords(tc.h); got != tc.want {
			t.Errorf("hostWords(%+v) = %q, want %q", tc.h, got, tc.want)
		}
	}
}
