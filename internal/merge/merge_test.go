package merge

import (
	"math/rand/v2"
	"strings"
	"testing"
	"time"

	"github.com/goslap/goslap/internal/latency"
	"github.com/goslap/goslap/internal/results/jsondoc"
)

var t0 = time.Date(2026, 12, 3, 16, 0, 0, 0, time.UTC)

// shardDoc is shard i of n having recorded samples (µs) for clients
// clients, its iteration starting late by startOffset and lasting wall.
func shardDoc(t *testing.T, i, n, clients int, samples []int64, startOffset, wall time.Duration) *jsondoc.Document {
	t.Helper()
	h := latency.NewHistogram()
	for _, v := range samples {
		if err := h.RecordValue(v); err != nil {
			t.Fatal(err)
		}
	}
	enc, err := latency.Encode(h)
	if err != nil {
		t.Fatal(err)
	}
	d := jsondoc.New("mysqlslap", "test", t0, 42)
	d.FinishedAt = t0.Add(time.Minute)
	d.Options = map[string]any{"concurrency": float64(9), "shard": "x", "json": "shard.json"}
	d.Shard = &jsondoc.Shard{Index: i, Count: n, RunID: "run-1", Host: "h"}
	d.Shard.PlanHash = jsondoc.PlanHash(d)
	start := t0.Add(startOffset)
	ec := []latency.ErrorCount{{Code: 1213, Count: uint64(i), Message: "Deadlock"}}
	d.Benchmarks = []jsondoc.Benchmark{{
		Target: "server", Workload: "mysqlslap", Concurrency: clients, QueriesPerClient: uint64(len(samples) / clients),
		Iterations: []jsondoc.Iteration{{Start: start, End: start.Add(wall), Millis: wall.Milliseconds()}},
		Executed:   uint64(len(samples)), Errors: uint64(i), ErrorsByCode: ec,
		Ops: []jsondoc.Op{{Name: "query", Executed: uint64(len(samples)), Errors: uint64(i), ErrorsByCode: ec,
			Latency: latency.Figures(h), Histogram: enc}},
	}}
	return d
}

func samples(r *rand.Rand, n int) []int64 {
	out := make([]int64, n)
	for i := range out {
		out[i] = 1 + int64(r.ExpFloat64()*800) + r.Int64N(3)*int64(r.IntN(5000))
	}
	return out
}

// The merged histogram is the histogram of all samples recorded in one
// place: same counts in every bucket, so the same percentiles.
func TestMergedHistogramIsOneRecording(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	all := latency.NewHistogram()
	var in []Input
	for i := 0; i < 3; i++ {
		s := samples(r, 3000+i*17)
		for _, v := range s {
			all.RecordValue(v)
		}
		in = append(in, Input{Name: "s" + string(rune('0'+i)), Doc: shardDoc(t, i, 3, 3, s, time.Duration(i)*time.Millisecond, 10*time.Second)})
	}
	res, err := Merge(in, Options{})
	if err != nil {
		t.Fatal(err)
	}
	b := res.Doc.Benchmarks[0]
	got, err := latency.Decode(b.Ops[0].Histogram)
	if err != nil {
		t.Fatal(err)
	}
	if !got.Equals(all) {
		t.Error("merged histogram differs from the one recording")
	}
	if b.Ops[0].Latency != latency.Figures(all) {
		t.Errorf("percentiles %+v, want %+v", b.Ops[0].Latency, latency.Figures(all))
	}
	if b.Executed != uint64(all.TotalCount()) || b.Concurrency != 9 || b.Errors != 3 || b.ErrorsByCode[0].Count != 3 {
		t.Errorf("executed %d (want %d), clients %d, errors %d %v", b.Executed, all.TotalCount(), b.Concurrency, b.Errors, b.ErrorsByCode)
	}
	// Wall time: max(end) - min(start); skew: max(start) - min(start).
	if b.Iterations[0].Millis != 10002 || !b.Iterations[0].Start.Equal(t0) || res.Doc.Merged.StartSkewMicros[0][0] != 2000 {
		t.Errorf("iteration %+v, skew %v", b.Iterations[0], res.Doc.Merged.StartSkewMicros)
	}
	if len(res.Warnings) != 0 || res.Doc.Merged.Partial {
		t.Errorf("warnings %v", res.Warnings)
	}
	if _, ok := res.Doc.Options["shard"]; ok {
		t.Error("the merged document keeps a shard option")
	}
	// Order of the inputs does not matter.
	in[0], in[2] = in[2], in[0]
	res2, err := Merge(in, Options{})
	if err != nil || res2.Doc.Benchmarks[0].Ops[0].Histogram != b.Ops[0].Histogram {
		t.Errorf("merge depends on the order of the shards: %v", err)
	}
}

func TestSkewWarning(t *testing.T) {
	in := []Input{{"a", shardDoc(t, 0, 2, 1, []int64{5}, 0, time.Second)}, {"b", shardDoc(t, 1, 2, 1, []int64{5}, 20*time.Millisecond, time.Second)}}
	res, err := Merge(in, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Warnings) != 1 || !strings.Contains(res.Warnings[0], "started 20ms apart") {
		t.Errorf("warnings %v", res.Warnings)
	}
}

func TestRefusals(t *testing.T) {
	d := func(i, n int) *jsondoc.Document { return shardDoc(t, i, n, 1, []int64{10, 20}, 0, time.Second) }
	otherRun := d(1, 2)
	otherRun.Shard.RunID = "run-2"
	otherPlan := d(1, 2)
	otherPlan.Options["concurrency"] = float64(8)
	otherPlan.Shard.PlanHash = jsondoc.PlanHash(otherPlan)
	forged := d(1, 2)
	forged.Seed = 7 // hash left as it was: the document is checked, not its claim
	otherCount := d(1, 3)
	whole := d(1, 2)
	whole.Shard = nil
	for _, tc := range []struct {
		name string
		in   []*jsondoc.Document
		err  string
	}{
		{"not a shard", []*jsondoc.Document{d(0, 2), whole}, "not a shard's document"},
		{"mixed run ids", []*jsondoc.Document{d(0, 2), otherRun}, "different runs"},
		{"mixed plans", []*jsondoc.Document{d(0, 2), otherPlan}, "different plans"},
		{"forged plan hash", []*jsondoc.Document{d(0, 2), forged}, "different plans"},
		{"mixed shard counts", []*jsondoc.Document{d(0, 2), otherCount}, "one of 2"},
		{"missing shard", []*jsondoc.Document{d(0, 3), d(2, 3)}, "shards [1] of 3 are missing"},
		{"duplicate shard", []*jsondoc.Document{d(0, 2), d(1, 2), d(1, 2)}, "shard 1/2 is in both"},
		{"nothing", nil, "no documents"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var in []Input
			for i, doc := range tc.in {
				in = append(in, Input{Name: "f" + string(rune('0'+i)), Doc: doc})
			}
			_, err := Merge(in, Options{})
			if err == nil || !strings.Contains(err.Error(), tc.err) {
				t.Fatalf("Merge = %v, want an error with %q", err, tc.err)
			}
		})
	}
}

func TestAllowPartial(t *testing.T) {
	a, c := shardDoc(t, 0, 3, 2, []int64{10, 20}, 0, time.Second), shardDoc(t, 2, 3, 2, []int64{30, 40}, 0, time.Second)
	res, err := Merge([]Input{{"a", a}, {"c", c}}, Options{AllowPartial: true})
	if err != nil {
		t.Fatal(err)
	}
	m := res.Doc.Merged
	if !m.Partial || len(m.Missing) != 1 || m.Missing[0] != 1 || res.Doc.Benchmarks[0].Executed != 4 || len(res.Warnings) != 1 {
		t.Errorf("merged %+v, warnings %v", m, res.Warnings)
	}
	// A re-run shard replaces the earlier document, never adds to it.
	rerun := shardDoc(t, 2, 3, 2, []int64{50}, 0, time.Second)
	rerun.FinishedAt = c.FinishedAt.Add(time.Second)
	res, err = Merge([]Input{{"a", a}, {"rerun", rerun}, {"c", c}}, Options{AllowPartial: true})
	if err != nil || res.Doc.Benchmarks[0].Executed != 3 {
		t.Fatalf("executed %v, %v: want the re-run's 1 + shard 0's 2", res.Doc.Benchmarks[0].Executed, err)
	}
}

func TestDocumentsBetweenMarkers(t *testing.T) {
	log := "progress line\n" + DocBegin + "\n{\"a\":1}\n" + DocEnd + "\nother pod\n" + DocBegin + "\n{\"b\":2}\n" + DocEnd + "\n"
	got := Documents([]byte(log))
	if len(got) != 2 || strings.TrimSpace(string(got[0])) != `{"a":1}` || strings.TrimSpace(string(got[1])) != `{"b":2}` {
		t.Errorf("documents %q", got)
	}
	if got := Documents([]byte(`{"c":3}`)); len(got) != 1 || string(got[0]) != `{"c":3}` {
		t.Errorf("plain file: %q", got)
	}
	if got := Documents([]byte(DocBegin + "\n{\"cut")); len(got) != 1 || string(got[0]) != "\n{\"cut" {
		t.Errorf("cut short: %q", got)
	}
}
