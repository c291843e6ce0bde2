package orchestrator

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/goslap/goslap/internal/results"
	"github.com/goslap/goslap/internal/target"
	"github.com/goslap/goslap/internal/verdict"
	"github.com/goslap/goslap/internal/workload"
)

// driftingMeasure replaces the measurement of RunRounds with a machine
// that slows down by drift per measurement (a warming disk, a neighbour's
// growing load): every side is the same, so any difference is the
// order's. It records the order in which the sides were measured.
func driftingMeasure(t *testing.T, drift float64) (order *[]string) {
	t.Helper()
	var clock int
	var seen []string
	old := measure
	t.Cleanup(func() { measure = old })
	measure = func(_ context.Context, l *Loop, p workload.Point, e Engine, clients int) (*Cell, error) {
		tps := 1000 * (1 - drift*float64(clock))
		clock++
		seen = append(seen, l.Target)
		b := &results.Benchmark{Target: l.Target, Elapsed: time.Second, Events: uint64(tps)}
		return &Cell{Target: l.Target, Setting: l.Setting, Engine: e, Clients: clients, Round: l.Round, Rounds: l.Rounds,
			Benchmarks: []*results.Benchmark{b}}, nil
	}
	return &seen
}

// fakePlan is a plan over server targets (nothing to start) whose sides
// need no server: the measurement is driftingMeasure's.
func fakePlan(rounds int, labels ...string) (RoundsPlan, *[]string) {
	var events []string
	p := RoundsPlan{Rounds: rounds, Clients: []int{4}}
	for _, l := range labels {
		p.Targets = append(p.Targets, target.Target{Label: l, Kind: target.Server})
	}
	p.Open = func(_ context.Context, label string, _ target.Endpoint, setting string) (*RoundSide, error) {
		events = append(events, "open "+label)
		return &RoundSide{Loop: &Loop{Target: label, Setting: setting}, Close: func(error) error {
			events = append(events, "close "+label)
			return nil
		}}, nil
	}
	return p, &events
}

// tpsVerdict is the verdict of b against a on throughput.
func tpsVerdict(t *testing.T, cells []*Cell, rounds int) verdict.Result {
	t.Helper()
	vs := Verdicts(&Config{Rounds: rounds, Metric: "tps"}, cells)
	if len(vs) != 1 || vs[0].Metrics[0].Metric != "tps" || len(vs[0].Metrics[0].Results) != 1 {
		t.Fatalf("verdicts: %+v", vs)
	}
	if e := vs[0].Metrics[0].Errs[0]; e != "" {
		t.Fatalf("no verdict: %s", e)
	}
	return vs[0].Metrics[0].Results[0]
}

// TestRoundsOrderAgainstDrift: on a machine that drifts, two identical
// sides run one after the other (all of a's rounds, then all of b's) show
// a false difference; interleaved (A B, B A, ...) they show none. Both
// through RunRounds, in milliseconds, without a server.
func TestRoundsOrderAgainstDrift(t *testing.T) {
	const rounds = 6
	driftingMeasure(t, 0.01)
	var seq Result
	for _, label := range []string{"a", "b"} {
		p, _ := fakePlan(rounds, label)
		if err := RunRounds(context.Background(), p, &seq); err != nil {
			t.Fatal(err)
		}
	}
	if r := tpsVerdict(t, seq.Cells, rounds); r.Outcome != verdict.Slower {
		t.Errorf("sequential order: %v (ratio %.3f), want the false 'slower' the drift makes", r, r.Ratio)
	}

	order := driftingMeasure(t, 0.01)
	var inter Result
	p, events := fakePlan(rounds, "a", "b")
	if err := RunRounds(context.Background(), p, &inter); err != nil {
		t.Fatal(err)
	}
	if r := tpsVerdict(t, inter.Cells, rounds); r.Outcome != verdict.NoDifference {
		t.Errorf("interleaved order: %v (ratio %.3f, CI %.3f–%.3f), want no difference", r, r.Ratio, r.Low, r.High)
	}
	if got, want := strings.Join(*order, " "), "a b b a b a a b a b b a"; got != want {
		t.Errorf("measured in the order %q, want %q", got, want)
	}
	if got, want := strings.Join(*events, ", "), "open a, open b, close b, close a"; got != want {
		t.Errorf("sides %q, want %q (all up at once)", got, want)
	}
	if !strings.Contains(inter.Mode, "2 sides up at once, interleaved") {
		t.Errorf("mode %q", inter.Mode)
	}
}

// TestRoundsInTurn: sandboxes whose buffer pools do not fit the memory
// available run in turn, never two up at once, the order alternating
// between rounds, and the mode says so and why; --sides-in-turn asks for
// it whatever the memory. The sandboxes are a fake starter's.
func TestRoundsInTurn(t *testing.T) {
	oldMem := memAvailable
	t.Cleanup(func() { memAvailable = oldMem })
	memAvailable = func() (int64, bool) { return 3 << 30, true }
	cases := []struct {
		name   string
		inTurn bool
		pools  []string
		mode   string
	}{
		{"too big for the memory", false, []string{"2G", "2G"}, "the sandboxes' buffer pools (4.0G together) would not fit the 3.0G of memory available"},
		{"asked", true, []string{"8M", "256M"}, "as asked"},
		{"fits", false, []string{"1G", "1G"}, "2 sides up at once"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			order := driftingMeasure(t, 0)
			p, events := fakePlan(3)
			p.InTurn = tc.inTurn
			p.Targets = []target.Target{{Label: "small", Kind: target.Sandbox, ServerOptions: []string{"innodb_buffer_pool_size=" + tc.pools[0]}},
				{Label: "big", Kind: target.Sandbox, ServerOptions: []string{"innodb_buffer_pool_size=" + tc.pools[1]}}}
			up := 0
			p.Compare.DefaultBinary = "/bin/true" // resolved, never run: the starter is a fake
			p.Compare.Start = func(_ context.Context, binary string, options []string, _ string) (*target.Running, error) {
				up++
				if up > 1 && tc.mode != "2 sides up at once" {
					return nil, fmt.Errorf("a second sandbox started while one is up")
				}
				*events = append(*events, "start")
				return &target.Running{Version: "fake " + strings.Join(options, " ")}, nil
			}
			open := p.Open
			p.Open = func(ctx context.Context, label string, ep target.Endpoint, setting string) (*RoundSide, error) {
				sd, err := open(ctx, label, ep, setting)
				close := sd.Close
				sd.Close = func(err error) error { up--; return close(err) }
				return sd, err
			}
			var res Result
			if err := RunRounds(context.Background(), p, &res); err != nil {
				t.Fatal(err)
			}
			if !strings.Contains(res.Mode, tc.mode) {
				t.Errorf("mode %q lacks %q", res.Mode, tc.mode)
			}
			if tc.mode == "2 sides up at once" {
				return
			}
			if !strings.Contains(res.Mode, "3 rounds, 2 sides started in turn within each round") {
				t.Errorf("mode %q", res.Mode)
			}
			if got, want := strings.Join(*order, " "), "small big big small big small"; got != want {
				t.Errorf("measured in the order %q, want %q", got, want)
			}
			if got, want := strings.Count(strings.Join(*events, ","), "start,open"), 6; got != want {
				t.Errorf("%d starts, want %d (each side once per round): %v", got, want, *events)
			}
			if len(res.Outcomes) != 2 || len(res.Cells) != 6 {
				t.Errorf("%d outcomes, %d cells", len(res.Outcomes), len(res.Cells))
			}
		})
	}
}

func TestParseSize(t *testing.T) {
	for in, want := range map[string]int64{"8M": 8 << 20, "2G": 2 << 30, "134217728": 134217728, "1.5g": 3 << 29, "512k": 512 << 10} {
		if got, ok := parseSize(in); !ok || got != want {
			t.Errorf("parseSize(%q) = %d, %v; want %d", in, got, ok, want)
		}
	}
	if _, ok := parseSize("lots"); ok {
		t.Error("parseSize(lots) accepted")
	}
}
