package compare

import (
	"bytes"
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/goslap/goslap/internal/latency"
	"github.com/goslap/goslap/internal/results/jsondoc"
	"github.com/goslap/goslap/internal/verdict"
)

// hist encodes a histogram holding n values of µs each.
func hist(t *testing.T, us int64, n int64) string {
	t.Helper()
	h := latency.NewHistogram()
	if err := h.RecordValues(us, n); err != nil {
		t.Fatal(err)
	}
	s, err := latency.Encode(h)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// oltp is a sysbench-style benchmark: tps transactions per second over
// 10 s, 20 statements each (14 reads, 4 writes, 2 other), latency µs.
func oltp(t *testing.T, target, dialect string, clients int, tps float64, us int64) jsondoc.Benchmark {
	tx := uint64(tps * 10)
	metric := "tps" // what the OLTP workload of the dialect records (its CompareMetric)
	if dialect == "0.4" || dialect == "0.5" {
		metric = "rw-qps"
	}
	return jsondoc.Benchmark{Target: target, Workload: "oltp_read_write", CompareMetric: metric, Engine: "innodb", Concurrency: clients,
		Seconds: 10, QPS: tps, Executed: tx,
		Figures: &jsondoc.Figures{Transactions: tx, TPS: tps, Statements: 20 * tx, Reads: 14 * tx, Writes: 4 * tx, Other: 2 * tx,
			Histogram: hist(t, us, int64(tx))},
		Sections: map[string]json.RawMessage{"oltp": json.RawMessage(`{"dialect":"` + dialect + `","distribution":"","tables":1,"table_size":1000}`)}}
}

func doc(frontEnd string, opts map[string]any, targets []string, bs ...jsondoc.Benchmark) *jsondoc.Document {
	d := jsondoc.New(frontEnd, "test", time.Date(2026, 12, 4, 12, 0, 0, 0, time.UTC), 1)
	for k, v := range opts {
		d.Options[k] = v
	}
	for _, l := range targets {
		d.Targets = append(d.Targets, jsondoc.Target{Label: l, Kind: "server"})
	}
	d.Benchmarks = bs
	return d
}

// rounds builds n documents of a side whose tps is level × factor[i] at
// 4 and 8 clients (p95 inversely). Round i of every side runs in minute
// i: the sides alternate.
func rounds(t *testing.T, name string, level float64, factors ...float64) []Doc {
	var out []Doc
	for i, f := range factors {
		tps := level * f
		d := doc("sysbench", map[string]any{"threads": 4.0, "percentile": 99.0}, []string{"default"},
			oltp(t, "default", "1.0", 4, tps, int64(1e6/tps)), oltp(t, "default", "1.0", 8, 2*tps, int64(2e6/tps)))
		d.StartedAt = d.StartedAt.Add(time.Duration(i) * time.Minute)
		d.FinishedAt = d.StartedAt.Add(20 * time.Second)
		out = append(out, Doc{Name: name + string(rune('1'+i)), Doc: d})
	}
	return out
}

func TestMetricValues(t *testing.T) {
	b10 := oltp(t, "x", "1.0", 4, 100, 2000)
	b05 := oltp(t, "x", "0.5", 4, 100, 2000)
	slap := jsondoc.Benchmark{Workload: "mysqlslap", CompareMetric: "qps", QPS: 1234, Seconds: 1, Ops: []jsondoc.Op{{Name: "query", Histogram: hist(t, 500, 10)}}}
	tpcc := jsondoc.Benchmark{Workload: "tpcc", CompareMetric: "tpmc", Figures: &jsondoc.Figures{TPS: 3}, Sections: map[string]json.RawMessage{"tpcc": json.RawMessage(`{"tpmc":777}`)}}
	cases := []struct {
		b      jsondoc.Benchmark
		metric string
		want   float64
		ok     bool
	}{
		{b10, "study", 100, true},  // tps
		{b05, "study", 1800, true}, // rw-qps: 18 reads+writes × 100
		{b10, "qps", 2000, true},
		{b10, "tps", 100, true},
		{b10, "tpmc", 0, false},
		{b10, "p99", 2.0, true},
		{slap, "study", 1234, true}, // qps
		{slap, "tps", 0, false},
		{slap, "p95", 0.5, true},
		{tpcc, "study", 777, true},
	}
	for _, tc := range cases {
		m, err := ParseMetric(tc.metric)
		if err != nil {
			t.Fatal(err)
		}
		m, err = m.resolve(&tc.b)
		if err != nil {
			t.Fatal(err)
		}
		v, ok, err := m.Value(&tc.b)
		if err != nil || ok != tc.ok || math.Abs(v-tc.want) > tc.want*0.001 {
			t.Errorf("%s %s (%s): %v %v %v, want %v %v", tc.b.Workload, tc.metric, m.Name, v, ok, err, tc.want, tc.ok)
		}
	}
	// A benchmark that names no metric (an older document) cannot say
	// what "study" is: one clear error, no guess.
	if _, err := study.resolve(&jsondoc.Benchmark{Workload: "oltp_read_write", Target: "x"}); err == nil || !strings.Contains(err.Error(), "names no comparison metric") {
		t.Errorf("study without compare_metric: %v", err)
	}
	for _, bad := range []string{"p0", "p100", "latency", "px"} {
		if _, err := ParseMetric(bad); err == nil {
			t.Errorf("ParseMetric(%q) accepted", bad)
		}
	}
}

func TestCheckPlans(t *testing.T) {
	base := map[string]any{"threads": 4.0, "time": 10.0, "mysql-host": []any{"a"}, "sandbox": "10.11.18", "json": "a.json", "rand-seed": 1.0}
	with := func(k string, v any) map[string]any {
		m := map[string]any{}
		for a, b := range base {
			m[a] = b
		}
		if v == nil {
			delete(m, k)
		} else {
			m[k] = v
		}
		return m
	}
	cases := []struct {
		name, frontEnd string
		opts           map[string]any
		err            string
	}{
		{"another server, output and seed", "sysbench", with("mysql-host", []any{"b"}), ""},
		{"another sandbox", "sysbench", with("sandbox", "10.11.19"), ""},
		{"another seed", "sysbench", with("rand-seed", 2.0), ""},
		{"another thread count", "sysbench", with("threads", 8.0), "a.json and b.json ran different plans (--threads 4 vs 8)"},
		{"an option absent", "sysbench", with("time", nil), "(--time 10 vs (absent))"},
		{"another front end", "mysqlslap", base, "a.json was written by goslap's sysbench front end, b.json by mysqlslap"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			err := CheckPlans([]Doc{{"a.json", doc("sysbench", base, nil)}, {"b.json", doc(tc.frontEnd, tc.opts, nil)}})
			if (err == nil) != (tc.err == "") || (err != nil && !strings.Contains(err.Error(), tc.err)) {
				t.Errorf("got %v, want %q", err, tc.err)
			}
		})
	}
}

func TestSides(t *testing.T) {
	one := func(name string, targets ...string) Doc { return Doc{name, doc("mysqlslap", nil, targets)} }
	cases := []struct {
		name   string
		groups [][]Doc
		want   []string
		err    string
	}{
		{"each document a side", [][]Doc{{one("a", "x"), one("b", "y"), one("c", "x")}}, []string{"a", "b", "c"}, ""},
		{"targets of one document", [][]Doc{{one("a", "x", "y")}}, []string{"target x", "target y"}, ""},
		{"targets of documents as rounds", [][]Doc{{one("a", "x", "y"), one("b", "x", "y")}}, []string{"target x", "target y"}, ""},
		{"groups", [][]Doc{{one("a1", "x"), one("a2", "x")}, {one("b1", "x"), one("b2", "x")}}, []string{"a1 a2", "b1 b2"}, ""},
		{"unequal groups", [][]Doc{{one("a1", "x"), one("a2", "x")}, {one("b1", "x")}}, nil, "a1 a2 has 2 documents, b1 1"},
		{"one document of one target", [][]Doc{{one("a", "x")}}, nil, "nothing to compare"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			sides, err := Sides(tc.groups)
			var got []string
			for _, s := range sides {
				got = append(got, s.Name())
			}
			if (err == nil) != (tc.err == "") || (err != nil && !strings.Contains(err.Error(), tc.err)) || strings.Join(got, "|") != strings.Join(tc.want, "|") {
				t.Errorf("got %q %v, want %q %q", got, err, tc.want, tc.err)
			}
		})
	}
}

// TestCompareAndJudge: three rounds per side, B 10 % below A with 1 %
// noise, C equal to A with 1 % noise, D 2 % below with 10 % noise.
func TestCompareAndJudge(t *testing.T) {
	a := rounds(t, "a", 1000, 1.00, 1.01, 0.99)
	b := rounds(t, "b", 900, 1.01, 0.99, 1.00)
	c := rounds(t, "c", 1000, 0.99, 1.00, 1.01)
	d := rounds(t, "d", 980, 1.10, 0.90, 1.00)
	rep, err := Compare([]Side{{Docs: a}, {Docs: b}, {Docs: c}, {Docs: d}}, []Metric{study, {Name: "p99", Percentile: 99}})
	if err != nil {
		t.Fatal(err)
	}
	// 2 points × 2 metrics × 4 sides.
	if len(rep.Rows) != 16 {
		t.Fatalf("%d rows, want 16", len(rep.Rows))
	}
	outcome := map[string]verdict.Outcome{}
	for _, r := range rep.Rows {
		if r.Side > 0 {
			outcome[r.Point+" "+r.Metric.Name+" "+string(rune('A'+r.Side))] = r.Result.Outcome
		}
	}
	for key, want := range map[string]verdict.Outcome{
		"oltp_read_write innodb c4 tps B": verdict.Slower, "oltp_read_write innodb c8 p99 B": verdict.Slower,
		"oltp_read_write innodb c4 tps C": verdict.NoDifference, "oltp_read_write innodb c8 p99 C": verdict.NoDifference,
		"oltp_read_write innodb c4 tps D": verdict.NoDifference,
	} {
		if outcome[key] != want {
			t.Errorf("%s: outcome %d, want %d (all: %v)", key, outcome[key], want, outcome)
		}
	}
	rules, err := ParseRules("tps<0.97,p99>1.05")
	if err != nil {
		t.Fatal(err)
	}
	var failed, passed []string
	for _, j := range Judge(rep, rules) {
		k := j.Rule.String() + " " + j.Row.Point + " " + string(rune('A'+j.Row.Side))
		if j.Failed {
			failed = append(failed, k)
		} else {
			passed = append(passed, k)
		}
	}
	wantFailed := "tps<0.97 oltp_read_write innodb c4 B|tps<0.97 oltp_read_write innodb c8 B|p99>1.05 oltp_read_write innodb c4 B|p99>1.05 oltp_read_write innodb c8 B"
	if strings.Join(failed, "|") != wantFailed {
		t.Errorf("failed %q, want %q", failed, wantFailed)
	}
	// D's 2 % drop crosses tps<0.97? No: 0.98 does not cross. With a
	// looser limit it crosses but its interval straddles the limit.
	rules, _ = ParseRules("tps<0.99")
	passed = nil
	for _, j := range Judge(rep, rules) {
		if !j.Failed {
			passed = append(passed, j.Row.Point+" "+string(rune('A'+j.Row.Side)))
		}
	}
	if strings.Join(passed, "|") != "oltp_read_write innodb c4 D|oltp_read_write innodb c8 D" {
		t.Errorf("crossed without significance: %q", passed)
	}
}

func TestParseRules(t *testing.T) {
	for in, want := range map[string]string{
		"tps<0.97,p95>1.10": "tps<0.97|p95>1.1", " qps < 0.9 ": "qps<0.9", "p99.9>2": "p99.9>2",
	} {
		rules, err := ParseRules(in)
		var got []string
		for _, r := range rules {
			got = append(got, r.String())
		}
		if err != nil || strings.Join(got, "|") != want {
			t.Errorf("ParseRules(%q) = %q %v, want %q", in, got, err, want)
		}
	}
	for _, bad := range []string{"tps", "tps<", "tps<0", "tps<-1", "<0.9", "study<0.9", "foo<0.9", "tps=0.9"} {
		if _, err := ParseRules(bad); err == nil {
			t.Errorf("ParseRules(%q) accepted", bad)
		}
	}
}

// TestMain exercises the command on files: exit statuses and messages.
func TestMainCommand(t *testing.T) {
	dir := t.TempDir()
	write := func(docs []Doc) []string {
		var names []string
		for _, d := range docs {
			var b bytes.Buffer
			if err := jsondoc.Encode(&b, d.Doc); err != nil {
				t.Fatal(err)
			}
			p := filepath.Join(dir, d.Name+".json")
			if err := os.WriteFile(p, b.Bytes(), 0o644); err != nil {
				t.Fatal(err)
			}
			names = append(names, p)
		}
		return names
	}
	a := write(rounds(t, "a", 1000, 1.00, 1.01, 0.99))
	b := write(rounds(t, "b", 900, 1.01, 0.99, 1.00))
	mysqlslap := write([]Doc{{"slap", doc("mysqlslap", nil, []string{"x"})}})
	later := rounds(t, "later", 900, 1.01, 0.99, 1.00)
	for _, d := range later {
		d.Doc.StartedAt = d.Doc.StartedAt.Add(time.Hour)
		d.Doc.FinishedAt = d.Doc.FinishedAt.Add(time.Hour)
	}
	l := write(later)
	x := oltp(t, "x", "1.0", 4, 100, 1000)
	y := oltp(t, "y", "1.0", 4, 120, 1000)
	shardDoc := doc("sysbench", nil, []string{"x"}, x)
	shardDoc.Shard = &jsondoc.Shard{Index: 1, Count: 3}
	shard := write([]Doc{{"shard", shardDoc}})
	targets := write([]Doc{{"targets", doc("sysbench", nil, []string{"x", "y"}, x, y)}})
	cases := []struct {
		name   string
		args   []string
		code   int
		stdout []string
		stderr string
	}{
		{"one round", []string{a[0], b[0]}, ExitOK, []string{"no verdict (one round)", "One round per side"}, ""},
		{"one round over the limit", []string{"--fail-if=tps<0.97", a[0], b[0]}, ExitFailIf,
			[]string{"FAILED tps<0.97: oltp_read_write innodb c4, B/A 0.909 (one round per side, no confidence interval: judged on the ratio alone)"}, ""},
		{"rounds", []string{a[0], a[1], a[2], "vs", b[0], b[1], b[2]}, ExitOK,
			[]string{"3 round(s) per side", "tps     A     1000.0  1      baseline", "slower by 10.0 % (95 % CI 6.0–14 %)", "p99 ms"}, ""},
		{"rounds over the limit", []string{"--fail-if", "tps<0.97", a[0], a[1], a[2], "vs", b[0], b[1], b[2]}, ExitFailIf,
			[]string{"FAILED tps<0.97: oltp_read_write innodb c8, B/A 0.900 (95 % CI 0.862–0.940, beyond the limit)"}, ""},
		{"rounds within the limit", []string{"--fail-if=tps<0.8", a[0], a[1], a[2], "vs", b[0], b[1], b[2]}, ExitOK,
			[]string{"\npassed tps<0.8: no point crosses the limit\n"}, ""},
		{"chosen metrics", []string{"--metrics=qps,p50", a[0], b[0]}, ExitOK, []string{"c4  qps", "p50 ms"}, ""},
		{"a metric asked for that no point has", []string{"--metrics=tps,tpmc", a[0], b[0]}, ExitOK, []string{"c4  tps"},
			"goslap: compare: warning: --metrics tpmc: no point of these documents has it\n"},
		{"a metric no point has", []string{"--fail-if=tpmc<0.9", a[0], b[0]}, ExitError, nil, "goslap: compare: --fail-if tpmc<0.9: no point of these documents has tpmc\n"},
		{"unequal rounds", []string{a[0], a[1], "vs", b[0]}, ExitError, nil, "has 2 documents"},
		{"empty side", []string{a[0], "vs"}, ExitError, nil, "goslap: compare: no document before or after 'vs'"},
		{"unknown option", []string{"--percentile=99", a[0], b[0]}, ExitError, nil, "goslap: compare: unknown option '--percentile=99'"},
		{"bad rule", []string{"--fail-if=tps", a[0], b[0]}, ExitError, nil, "want METRIC<RATIO"},
		{"no file", []string{a[0], filepath.Join(dir, "none.json")}, ExitError, nil, "no such file"},
		{"another front end", []string{a[0], mysqlslap[0]}, ExitError, nil, "--force compares them anyway"},
		{"nothing in common", []string{"--force", a[0], mysqlslap[0]}, ExitError, nil, "no benchmark in common"},
		{"sides one after the other", []string{a[0], a[1], a[2], "vs", l[0], l[1], l[2]}, ExitOK, []string{"slower by 10.0 %"},
			"goslap: compare: warning: the rounds of B and A did not alternate (all of one side ran before the other): drift of the machine reads as a difference; run them a b b a …\n"},
		{"targets of one document", targets, ExitOK, []string{"A: target x (baseline)", "B: target y", "oltp_read_write innodb c4  tps     A     100.0   1      baseline",
			"B     120.0   1.200  no verdict (one round)"}, ""},
		{"a shard's document", []string{a[0], shard[0]}, ExitError, nil, "shard.json is shard 2 of 3 of a run: merge the shards first (goslap merge)"},
		{"help", []string{"--help"}, ExitOK, []string{"Usage: goslap compare"}, ""},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			var out, errb bytes.Buffer
			code := Main(tc.args, &out, &errb)
			if code != tc.code {
				t.Fatalf("exit %d, want %d\nstdout:\n%s\nstderr:\n%s", code, tc.code, out.String(), errb.String())
			}
			for _, want := range tc.stdout {
				if !strings.Contains(out.String(), want) {
					t.Errorf("stdout lacks %q:\n%s", want, out.String())
				}
			}
			// A wanted stderr ending in a newline is the whole of it.
			whole := strings.HasSuffix(tc.stderr, "\n") && errb.String() != tc.stderr
			if whole || !strings.Contains(errb.String(), tc.stderr) || (tc.stderr == "" && errb.Len() > 0) {
				t.Errorf("stderr %q, want %q", errb.String(), tc.stderr)
			}
		})
	}
}

// TestRoundsOfOneDocument: one document of a --rounds run (two targets,
// each benchmark marked with its round) compares its targets paired by
// round: the same verdict as the rounds given as separate documents.
func TestRoundsOfOneDocument(t *testing.T) {
	a := []float64{1000, 1100, 950}
	b := []float64{900, 1000, 850} // about 10 % slower, round by round
	var bs []jsondoc.Benchmark
	for r := range a {
		x, y := oltp(t, "a", "1.0", 4, a[r], 1000), oltp(t, "b", "1.0", 4, b[r], 1100)
		x.Round, y.Round = r+1, r+1
		bs = append(bs, x, y)
	}
	d := doc("sysbench", map[string]any{"threads": 4.0}, []string{"a", "b"}, bs...)
	groups := SplitRounds([][]Doc{{{Name: "run.json", Doc: d}}})
	if len(groups) != 1 || len(groups[0]) != 3 || groups[0][2].Name != "run.json round 3" {
		t.Fatalf("split into %+v", groups)
	}
	sides, err := Sides(groups)
	if err != nil {
		t.Fatal(err)
	}
	rep, err := Compare(sides, []Metric{{Name: "tps"}})
	if err != nil {
		t.Fatal(err)
	}
	want, err := verdict.Compare(a, b, verdict.Higher)
	if err != nil {
		t.Fatal(err)
	}
	var got *verdict.Result
	for _, r := range rep.Rows {
		if r.Side == 1 && r.Result != nil {
			got = r.Result
		}
	}
	if got == nil || got.String() != want.String() || got.Outcome != verdict.Slower {
		t.Errorf("verdict %v, want %v (slower)", got, want.String())
	}
	// A document without rounds is left as it is.
	plain := doc("sysbench", nil, []string{"a", "b"}, oltp(t, "a", "1.0", 4, 1000, 1000), oltp(t, "b", "1.0", 4, 900, 1000))
	if g := SplitRounds([][]Doc{{{Name: "x", Doc: plain}}}); len(g[0]) != 1 {
		t.Errorf("a document without rounds was split: %d", len(g[0]))
	}
}

// TestCompareNamesReasons: where every round of both sides recorded the
// server's figures per transaction, the throughput verdict names those
// that differ most (as the run's own verdicts do); a side without them
// gets none.
func TestCompareNamesReasons(t *testing.T) {
	withServer := func(docs []Doc, disk, cpu float64) []Doc {
		for _, d := range docs {
			for i := range d.Doc.Benchmarks {
				dr, c := disk, cpu
				d.Doc.Benchmarks[i].Server = &jsondoc.ServerFigures{Unit: "transaction",
					PerTransaction: jsondoc.PerTransaction{DiskReads: &dr, CPUMicros: &c}}
			}
		}
		return docs
	}
	a := withServer(rounds(t, "a", 1000, 1.00, 1.01, 0.99, 1.00, 1.02), 3.1, 400)
	b := withServer(rounds(t, "b", 1500, 1.01, 0.99, 1.00, 1.02, 0.98), 0, 300)
	c := rounds(t, "c", 1500, 1.01, 0.99, 1.00, 1.02, 0.98)
	rep, err := Compare([]Side{{Docs: a}, {Docs: b}, {Docs: c}}, []Metric{study})
	if err != nil {
		t.Fatal(err)
	}
	var out strings.Builder
	if err := rep.Write(&out); err != nil {
		t.Fatal(err)
	}
	want := "faster by 49 % (95 % CI"
	reason := "): disk reads per transaction 3.1 → 0.0, server CPU per transaction -25 %"
	for _, line := range strings.Split(out.String(), "\n") {
		switch {
		case strings.Contains(line, " B "):
			if !strings.Contains(line, want) || !strings.Contains(line, reason) {
				t.Errorf("B's line lacks %q and %q: %q", want, reason, line)
			}
		case strings.Contains(line, " C "):
			if strings.Contains(line, "per transaction") {
				t.Errorf("C recorded no server figures, yet: %q", line)
			}
		}
	}
}
