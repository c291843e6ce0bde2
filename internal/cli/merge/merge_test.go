package merge

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/goslap/goslap/internal/latency"
	"github.com/goslap/goslap/internal/merge"
	"github.com/goslap/goslap/internal/results"
	"github.com/goslap/goslap/internal/results/jsondoc"
	"github.com/goslap/goslap/internal/results/slapreport"
	"github.com/goslap/goslap/internal/workload/tpcc"
)

var mergeT0 = time.Date(2026, 12, 3, 16, 0, 0, 0, time.UTC)

// mergeShardDoc is shard i of n of a run of workload (front end
// slapreport.FrontEnd) whose clients recorded samples (µs) in each of two
// iterations of wall time wall, the shard starting startOffset late.
func mergeShardDoc(t *testing.T, front, wl string, opts map[string]any, i, n, clients int, samples []int64, startOffset, wall time.Duration) *jsondoc.Document {
	t.Helper()
	h := latency.NewHistogram()
	for range 2 {
		for _, v := range samples {
			if err := h.RecordValue(v); err != nil {
				t.Fatal(err)
			}
		}
	}
	enc, err := latency.Encode(h)
	if err != nil {
		t.Fatal(err)
	}
	d := jsondoc.New(front, "test", mergeT0, 42)
	d.FinishedAt = mergeT0.Add(time.Minute)
	d.Options = map[string]any{"concurrency": "9", "shard": strconv.Itoa(i) + "/" + strconv.Itoa(n), "json": "shard.json"}
	for k, v := range opts {
		d.Options[k] = v
	}
	d.Shard = &jsondoc.Shard{Index: i, Count: n, RunID: "run-1", Host: "h"}
	d.Shard.PlanHash = jsondoc.PlanHash(d)
	ec := []latency.ErrorCount{}
	if i == 1 {
		ec = []latency.ErrorCount{{Code: 1213, Count: 1, Message: "Deadlock found when trying to get lock"}}
	}
	executed := uint64(2 * len(samples))
	b := jsondoc.Benchmark{Target: "localhost", Workload: wl, LoadType: "mixed", Concurrency: clients,
		QueriesPerClient: uint64(len(samples) / clients), Executed: executed, Errors: uint64(len(ec)), ErrorsByCode: ec,
		Seconds: 2 * wall.Seconds(), QPS: float64(executed) / (2 * wall.Seconds()),
		Ops: []jsondoc.Op{{Name: "query", Executed: executed, Errors: uint64(len(ec)), ErrorsByCode: ec, Latency: latency.Figures(h), Histogram: enc}}}
	for it := range 2 {
		start := mergeT0.Add(time.Duration(it)*time.Minute + startOffset)
		b.Iterations = append(b.Iterations, jsondoc.Iteration{Start: start, End: start.Add(wall), Millis: wall.Milliseconds()})
	}
	if wl != slapreport.Workload {
		b.Ops[0].Name = "point_select"
		b.Figures = &jsondoc.Figures{Transactions: executed, Statements: executed, Reads: executed, Histogram: enc, Latency: latency.Figures(h)}
	}
	d.Benchmarks = []jsondoc.Benchmark{b}
	return d
}

func writeShardDocs(t *testing.T, docs ...*jsondoc.Document) []string {
	t.Helper()
	dir := t.TempDir()
	var files []string
	for i, d := range docs {
		var b bytes.Buffer
		b.WriteString("a log line\n" + merge.DocBegin + "\n")
		if err := jsondoc.Encode(&b, d); err != nil {
			t.Fatal(err)
		}
		b.WriteString(merge.DocEnd + "\n")
		f := filepath.Join(dir, "shard-"+strconv.Itoa(i)+".log")
		if err := os.WriteFile(f, b.Bytes(), 0o600); err != nil {
			t.Fatal(err)
		}
		files = append(files, f)
	}
	return files
}

func runMerge(args ...string) (code int, stdout, stderr string) {
	var out, errb bytes.Buffer
	code = Main(args, &out, &errb)
	return code, out.String(), errb.String()
}

// TestMergeReports: a merged run prints exactly what the live reporters
// print for its figures: mysqlslap's block, --latency's lines and the CSV
// line; the study's block for a --workload run. The notes on the shards go
// to stderr.
func TestMergeReports(t *testing.T) {
	slap := func(opts map[string]any) []string {
		return writeShardDocs(t,
			mergeShardDoc(t, slapreport.FrontEnd, slapreport.Workload, opts, 0, 2, 2, []int64{1000, 2000, 3000, 4000}, 0, 1500*time.Millisecond),
			mergeShardDoc(t, slapreport.FrontEnd, slapreport.Workload, opts, 1, 2, 3, []int64{500, 600, 700, 800, 900, 10000}, 20*time.Millisecond, 1600*time.Millisecond))
	}
	block := "Benchmark\n" +
		"\tAverage number of seconds to run all queries: 1.620 seconds\n" +
		"\tMinimum number of seconds to run all queries: 1.620 seconds\n" +
		"\tMaximum number of seconds to run all queries: 1.620 seconds\n" +
		"\tNumber of clients running queries: 5\n" +
		"\tAverage number of queries per client: 2\n"
	latencyLines := "\tExecuted queries: 20 (errors: 1)\n" +
		"\tQueries per second: 6.173\n" +
		"\tLatency per query (ms): p50 0.900, p95 10.007, p99 10.007, p99.9 10.007, max 10.007\n" +
		"\tStandard deviation of iteration times: 0.000 seconds\n" +
		"\tIgnored error 1213: 1 times (Deadlock found when trying to get lock)\n"
	note := "goslap: merged benchmark 1: shards [0 1] of 2 (run run-1), start skew per iteration (ms): 20.000 20.000\n"
	warn := "goslap: warning: benchmark 1 iteration 1: the shards started 20ms apart, 1.2% of its 1.62s (more than 1%)\n" +
		"goslap: warning: benchmark 1 iteration 2: the shards started 20ms apart, 1.2% of its 1.62s (more than 1%)\n"
	for _, tc := range []struct {
		name   string
		files  []string
		args   []string
		stdout string
	}{
		{"mysqlslap block", slap(nil), nil, block + "\n"},
		{"shards ran --latency", slap(map[string]any{"latency": true}), nil, block + latencyLines + "\n"},
		{"merge --latency", slap(nil), []string{"--latency"}, block + latencyLines + "\n"},
		{"csv", slap(nil), []string{"--csv"}, ",mixed,1.620,1.620,1.620,5,2\n"},
		{"csv with latency", slap(nil), []string{"--csv=-", "--latency"}, ",mixed,1.620,1.620,1.620,5,2,20,1,6.173,0.900,10.007,10.007,10.007,10.007,0.000\n"},
		{"silent shards", slap(map[string]any{"silent": true}), nil, ""},
		{"workload", writeShardDocs(t,
			mergeShardDoc(t, slapreport.FrontEnd, "oltp_point_select", nil, 0, 2, 2, []int64{1000, 2000, 3000, 4000}, 0, 1500*time.Millisecond),
			mergeShardDoc(t, slapreport.FrontEnd, "oltp_point_select", nil, 1, 2, 3, []int64{500, 600, 700, 800, 900, 10000}, 20*time.Millisecond, 1600*time.Millisecond)),
			nil, block +
				"\tWorkload: oltp_point_select, 2 iterations\n" +
				"\tTransactions: 20 (6.17 per sec.)\n" +
				"\tQueries: 20 (6.17 per sec.): read 20, write 0, other 0\n" +
				"\tLatency per transaction (ms): p50 0.900  p95 10.007  p99 10.007  p99.9 10.007  max 10.007\n" +
				"\tIgnored errors: 1 (1213: 1)\n" +
				"\tReconnects: 0\n\n"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			code, stdout, stderr := runMerge(append(tc.args, tc.files...)...)
			if code != 0 || stdout != tc.stdout || stderr != warn+note {
				t.Errorf("exit %d\nstdout:\n%s\nwant:\n%s\nstderr:\n%s", code, stdout, tc.stdout, stderr)
			}
		})
	}
}

// TestMergeReportIsTheLiveReport: the block merge prints for a merged
// mysqlslap benchmark is the live reporter's for the same figures.
func TestMergeReportIsTheLiveReport(t *testing.T) {
	res := slapreport.BenchmarkResult{Concurrency: 5, QueriesPerClient: 2, IterationMillis: []int64{1620, 1620}, LoadType: "mixed"}
	res.Executed, res.Errors, res.QPS = 20, 1, 20/3.24
	h := latency.NewHistogram()
	for range 2 {
		for _, v := range []int64{1000, 2000, 3000, 4000, 500, 600, 700, 800, 900, 10000} {
			h.RecordValue(v)
		}
	}
	res.Latency = latency.Figures(h)
	res.ErrorsByCode = []latency.ErrorCount{{Code: 1213, Count: 1, Message: "Deadlock found when trying to get lock"}}
	var live bytes.Buffer
	if err := slapreport.Write(&live, nil, &res, true, true); err != nil {
		t.Fatal(err)
	}
	files := writeShardDocs(t,
		mergeShardDoc(t, slapreport.FrontEnd, slapreport.Workload, nil, 0, 2, 2, []int64{1000, 2000, 3000, 4000}, 0, 1500*time.Millisecond),
		mergeShardDoc(t, slapreport.FrontEnd, slapreport.Workload, nil, 1, 2, 3, []int64{500, 600, 700, 800, 900, 10000}, 20*time.Millisecond, 1600*time.Millisecond))
	if _, merged, _ := runMerge(append([]string{"--latency"}, files...)...); merged != live.String() {
		t.Errorf("merged:\n%s\nlive:\n%s", merged, live.String())
	}
}

func TestMergeCommandLine(t *testing.T) {
	files := writeShardDocs(t,
		mergeShardDoc(t, slapreport.FrontEnd, slapreport.Workload, nil, 0, 2, 2, []int64{1000, 2000}, 0, time.Second),
		mergeShardDoc(t, slapreport.FrontEnd, slapreport.Workload, nil, 1, 2, 2, []int64{1000, 2000}, 0, time.Second))
	dir := t.TempDir()
	merged := filepath.Join(dir, "merged.json")
	if code, stdout, stderr := runMerge(append(files, "--json="+merged)...); code != 0 || !strings.HasPrefix(stdout, "Benchmark\n") {
		t.Fatalf("exit %d: %s%s", code, stdout, stderr)
	}
	data, _ := os.ReadFile(merged)
	d, err := jsondoc.Decode(bytes.NewReader(data))
	if err != nil || d.Merged == nil || d.Benchmarks[0].Executed != 8 || d.Benchmarks[0].Concurrency != 4 {
		t.Errorf("merged document: %v %+v", err, d)
	}
	if code, stdout, _ := runMerge(append(files, "--json=-")...); code != 0 || !strings.HasPrefix(stdout, "{\n") {
		t.Errorf("--json=-: exit %d, stdout %q", code, stdout)
	}
	for _, tc := range []struct {
		args []string
		err  string
	}{
		{nil, "goslap: merge: no shard documents given"},
		{[]string{"--bogus", files[0]}, "goslap: merge: unknown option '--bogus'"},
		{[]string{files[0]}, "goslap: merge: shards [1] of 2 are missing"},
		{[]string{filepath.Join(dir, "none.json")}, "no such file"},
		{[]string{merged}, "not a shard's document"},
		{[]string{files[0], files[1], "--json=" + files[1]}, "goslap: merge: --json=" + files[1] + " would overwrite the file that the shard document " + files[1] + " reads"},
		{[]string{files[0], files[1], "--json=" + merged, "--csv=" + merged}, "goslap: merge: --json=" + merged + " and --csv=" + merged + " name the same file"},
	} {
		if code, _, stderr := runMerge(tc.args...); code != 1 || !strings.Contains(stderr, tc.err) || strings.Count(stderr, "\n") != 1 {
			t.Errorf("merge %v = %d, %q; want an error with %q", tc.args, code, stderr, tc.err)
		}
	}
	if code, stdout, _ := runMerge("--help"); code != 0 || stdout != Usage {
		t.Errorf("--help: %d %q", code, stdout)
	}
}

// TestMergeTPCCReport: a merged TPC-C run prints tpcc-mysql's sections
// through the live report (tpcc.Report.Write), computed as a run on one
// machine computes them: the shards' samples in one histogram per
// transaction, their retries and failures summed, tpmC over the merged
// window.
func TestMergeTPCCReport(t *testing.T) {
	samples := [][][]int64{ // shard, transaction, µs
		{{1000, 2000, 6_000_000}, {500, 700}, {300}, {40_000}, {900}},
		{{1500, 2500}, {600, 800, 900}, {350}, {45_000, 90_000_000}, {950}},
	}
	window := 2*time.Second + 15*time.Millisecond // shard 1 starts 5 and 10 ms late, both last 1 s
	one := &results.Benchmark{}
	var counts tpcc.Counts
	var docs []*jsondoc.Document
	for si, shardSamples := range samples {
		d := mergeShardDoc(t, slapreport.FrontEnd, "tpcc", nil, si, 2, 2, []int64{1000}, time.Duration(si)*5*time.Millisecond, time.Second)
		b := &d.Benchmarks[0]
		b.Ops = nil
		var rb results.Benchmark
		var c tpcc.Counts
		for ti, name := range tpcc.OpNames {
			rec := latency.NewRecorder(false)
			for _, v := range shardSamples[ti] {
				rec.Service.RecordValue(v)
			}
			if len(one.Ops) <= ti {
				one.Ops = append(one.Ops, results.Op{Name: name, Recorder: latency.NewRecorder(false)})
			}
			one.Ops[ti].Merge(rec)
			rb.Ops = append(rb.Ops, results.Op{Name: name, Recorder: rec})
			enc, err := latency.Encode(rec.Service)
			if err != nil {
				t.Fatal(err)
			}
			b.Ops = append(b.Ops, jsondoc.Op{Name: name, Executed: uint64(len(shardSamples[ti])), ErrorsByCode: []latency.ErrorCount{},
				Latency: latency.Figures(rec.Service), Histogram: enc})
			c.Retries[ti], c.Failures[ti] = uint64(si+ti), uint64(ti%2)
			counts.Retries[ti] += c.Retries[ti]
			counts.Failures[ti] += c.Failures[ti]
		}
		r, err := tpcc.FromBenchmark(&rb, c, 2*time.Second)
		if err != nil {
			t.Fatal(err)
		}
		name, raw, err := tpcc.CellReport{Report: r, Warehouses: 2}.JSONSection()
		if err != nil {
			t.Fatal(err)
		}
		b.Sections = map[string]json.RawMessage{name: raw}
		// The totals sum the ops, as in a run's document (merge checks).
		b.Executed, b.Errors, b.ErrorsByCode = 0, 0, []latency.ErrorCount{}
		for _, op := range b.Ops {
			b.Executed += op.Executed
		}
		b.Iterations[1].Start = b.Iterations[1].Start.Add(time.Duration(si) * 5 * time.Millisecond)
		b.Iterations[1].End = b.Iterations[1].Start.Add(time.Second)
		docs = append(docs, d)
	}
	r, err := tpcc.FromBenchmark(one, counts, window)
	if err != nil {
		t.Fatal(err)
	}
	var want bytes.Buffer
	if err := r.Write(&want); err != nil {
		t.Fatal(err)
	}
	code, stdout, stderr := runMerge(writeShardDocs(t, docs...)...)
	if code != 0 || !strings.Contains(stdout, "\tWorkload: tpcc, 2 iterations\n") || !strings.HasSuffix(stdout, "\n\n"+want.String()+"\n") {
		t.Errorf("exit %d, stderr %s\nstdout:\n%s\nwant the TPC-C sections:\n%s", code, stderr, stdout, want.String())
	}
}

// TestMergeRefusesDisjointRuns: shards whose windows do not overlap are
// not one run's; merge refuses them in one line unless --allow-disjoint.
func TestMergeRefusesDisjointRuns(t *testing.T) {
	files := writeShardDocs(t,
		mergeShardDoc(t, slapreport.FrontEnd, slapreport.Workload, nil, 0, 2, 2, []int64{1000, 2000}, 0, 40*time.Millisecond),
		mergeShardDoc(t, slapreport.FrontEnd, slapreport.Workload, nil, 1, 2, 2, []int64{1000, 2000}, 4900*time.Millisecond, 40*time.Millisecond))
	code, _, stderr := runMerge(files...)
	if want := "started 4.86s after shard 0"; code != 1 || !strings.Contains(stderr, want) || strings.Count(stderr, "\n") != 1 {
		t.Errorf("merge = %d, %q; want one line with %q", code, stderr, want)
	}
	if code, stdout, stderr := runMerge(append(files, "--allow-disjoint")...); code != 0 || !strings.HasPrefix(stdout, "Benchmark\n") {
		t.Errorf("--allow-disjoint: exit %d: %s%s", code, stdout, stderr)
	}
}
