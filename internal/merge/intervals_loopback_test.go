package merge

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"

	"github.com/goslap/goslap/internal/results/jsondoc"
)

// TestLoopbackShardIntervals: three real shards of a timed run with
// --report-interval=1 (2 iterations, started together at a barrier) each
// keep their intervals; `goslap merge` gives one list whose transactions,
// queries and errors are, interval by interval, the sum of the shards'
// intervals at the same iteration and position, and whose totals are the
// shards' totals.
func TestLoopbackShardIntervals(t *testing.T) {
	bin := goslapBinary(t)
	dir := t.TempDir()
	files := shards(t, bin, dir, 3, "--workload=oltp_point_select --create-schema=shard_intervals --tables=1 --table-size=300 -c 6 "+
		"--run-time=3s --iterations=2 --report-interval=1 --start-at=barrier+300ms", -1, 0)
	if len(files) != 3 {
		t.Fatalf("%d shard documents", len(files))
	}
	decode := func(path string) *jsondoc.Benchmark {
		t.Helper()
		data, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		d, err := jsondoc.Decode(bytes.NewReader(data))
		if err != nil {
			t.Fatal(err)
		}
		if len(d.Benchmarks) != 1 {
			t.Fatalf("%s: %d benchmarks", path, len(d.Benchmarks))
		}
		return &d.Benchmarks[0]
	}
	type key struct{ it, n int }
	type sums struct{ tx, q, errs uint64 }
	want := map[key]sums{}
	var total sums
	for _, f := range files {
		b := decode(f)
		if len(b.Intervals) < 4 {
			t.Fatalf("%s: %d intervals, want about 3 per iteration", f, len(b.Intervals))
		}
		pos := map[int]int{}
		for _, iv := range b.Intervals {
			k := key{iv.Iteration, pos[iv.Iteration]}
			pos[iv.Iteration]++
			s := want[k]
			s.tx, s.q, s.errs = s.tx+iv.Transactions, s.q+iv.Queries, s.errs+iv.Errors
			want[k] = s
			total.tx += iv.Transactions
			total.q += iv.Queries
		}
	}
	merged := filepath.Join(dir, "merged.json")
	if code, out, errs := mergeFiles(t, bin, files, "--json="+merged); code != 0 {
		t.Fatalf("merge exit %d:\n%s%s", code, out, errs)
	}
	b := decode(merged)
	if len(b.Intervals) != len(want) {
		t.Errorf("merged %d intervals, the shards have %d distinct (iteration, position)", len(b.Intervals), len(want))
	}
	pos := map[int]int{}
	var got sums
	for _, iv := range b.Intervals {
		k := key{iv.Iteration, pos[iv.Iteration]}
		pos[iv.Iteration]++
		w, ok := want[k]
		switch {
		case !ok:
			t.Errorf("merged interval %d of iteration %d: no shard has it", k.n+1, k.it)
		case iv.Transactions != w.tx || iv.Queries != w.q || iv.Errors != w.errs:
			t.Errorf("merged interval %d of iteration %d: %d transactions, %d queries, %d errors; the shards' sum %d, %d, %d",
				k.n+1, k.it, iv.Transactions, iv.Queries, iv.Errors, w.tx, w.q, w.errs)
		}
		got.tx += iv.Transactions
		got.q += iv.Queries
	}
	if got.tx != total.tx || got.q != total.q || total.tx == 0 {
		t.Errorf("merged intervals total %d transactions, %d queries; the shards' %d, %d", got.tx, got.q, total.tx, total.q)
	}
}
