package sysbench

import (
	"bytes"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/goslap/goslap/internal/latency"
	"github.com/goslap/goslap/internal/results"
	"github.com/goslap/goslap/internal/workload"
	"github.com/goslap/goslap/internal/workload/oltp"
)

// scanReport reads the figures back out of a report in sysbench's layout
// (the goldens captured from sysbench 1.0.20 by testdata/capture.sh). It
// reads numbers by label, not by position, so a layout change in the
// renderer cannot make it agree with itself.
func scanReport(t *testing.T, text string, d Dialect) Report {
	t.Helper()
	r := Report{Dialect: d}
	num := func(label string) float64 {
		t.Helper()
		re := regexp.MustCompile(`(?m)^ +` + regexp.QuoteMeta(label) + ` +([0-9.]+)`)
		m := re.FindStringSubmatch(text)
		if m == nil {
			t.Fatalf("no %q in\n%s", label, text)
		}
		f, err := strconv.ParseFloat(m[1], 64)
		if err != nil {
			t.Fatal(err)
		}
		return f
	}
	pair := func(label string) (float64, float64) {
		t.Helper()
		re := regexp.MustCompile(`(?m)^ +` + regexp.QuoteMeta(label) + ` +([0-9.]+)/([0-9.]+)$`)
		m := re.FindStringSubmatch(text)
		if m == nil {
			t.Fatalf("no %q", label)
		}
		a, _ := strconv.ParseFloat(m[1], 64)
		b, _ := strconv.ParseFloat(m[2], 64)
		return a, b
	}
	r.Reads, r.Writes, r.Other = uint64(num("read:")), uint64(num("write:")), uint64(num("other:"))
	r.Transactions = uint64(num("transactions:"))
	if d == Dialect04 {
		r.IgnoredErrors = uint64(num("deadlocks:"))
	} else {
		r.IgnoredErrors = uint64(num("ignored errors:"))
		r.Reconnects = uint64(num("reconnects:"))
	}
	r.Seconds = num("total time:")
	r.Events = uint64(num("total number of events:"))
	r.Min, r.Avg, r.Max = num("min:"), num("avg:"), num("max:")
	if m := regexp.MustCompile(`(?m)^ +(?:approx\. +)?(\d+)(?:th)? percentile: +([0-9.]+)`).FindStringSubmatch(text); m != nil {
		r.Percentile, _ = strconv.Atoi(m[1])
		r.Pct, _ = strconv.ParseFloat(m[2], 64)
	}
	if d == Dialect10 {
		r.Sum = num("sum:")
	} else {
		r.Sum = num("total time taken by event execution:") * 1000
	}
	r.EventsAvg, r.EventsStddev = pair("events (avg/stddev):")
	r.ExecAvg, r.ExecStddev = pair("execution time (avg/stddev):")
	return r
}

// perSec blanks the "(X per sec.)" figures: sysbench 1.0.20 divides its
// counts by a clock other than the total time it prints (observed: 10
// events, "total time: 0.0022s", "2895.18 per sec."), so these figures
// cannot be re-derived from the golden; TestFromBenchmark and
// TestPerSecond check goslap's own division.
var perSecRe = regexp.MustCompile(`\([0-9.]+ per sec\.\)`)

func blankRates(s string) string { return perSecRe.ReplaceAllString(s, "(R per sec.)") }

// TestReportLayout10 renders the figures of each captured sysbench 1.0.20
// report through Report.Write and compares the result byte for byte.
func TestReportLayout10(t *testing.T) {
	files, _ := filepath.Glob("testdata/report-1.0-*.golden")
	if len(files) < 5 {
		t.Fatalf("goldens missing: %v (run testdata/capture.sh)", files)
	}
	for _, f := range files {
		t.Run(filepath.Base(f), func(t *testing.T) {
			b, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			text := string(b)
			i := strings.Index(text, "SQL statistics:")
			if i < 0 {
				t.Fatal("no report")
			}
			want := text[i:]
			r := scanReport(t, want, Dialect10)
			if strings.Contains(want, "percentile stats:               disabled") {
				r.Percentile = 0
			}
			var out bytes.Buffer
			if err := r.Write(&out); err != nil {
				t.Fatal(err)
			}
			if got, want := blankRates(out.String()), blankRates(want); got != want {
				t.Errorf("layout differs\n--- got\n%s--- want\n%s", got, want)
			}
		})
	}
}

// TestHeaderLayout10 compares the header (after the version line) with the
// captured one, goslap's Limits line removed.
func TestHeaderLayout10(t *testing.T) {
	cases := []struct {
		file string
		h    Header
	}{
		{"report-1.0-events.golden", Header{Threads: 2}},
		{"report-1.0-interval.golden", Header{Threads: 2, ReportInterval: 1}},
		{"report-1.0-seed.golden", Header{Threads: 3, Rate: 2000, Seed: 42, SeedSet: true}},
		{"report-1.0-deprecated.golden", Header{Threads: 1}},
	}
	for _, tc := range cases {
		t.Run(tc.file, func(t *testing.T) {
			b, err := os.ReadFile("testdata/" + tc.file)
			if err != nil {
				t.Fatal(err)
			}
			text := string(b)
			start := strings.Index(text, "Running the test")
			end := strings.Index(text, "Threads started!\n\n") + len("Threads started!\n\n")
			want := text[start:end]
			h := tc.h
			h.Limits = "Limits: 10 s (sysbench 1.0 default), no event limit (sysbench 1.0 default), whichever comes first"
			var out bytes.Buffer
			if err := h.Write(&out); err != nil {
				t.Fatal(err)
			}
			got := strings.Replace(out.String(), h.Limits+"\n", "", 1)
			if got != want {
				t.Errorf("header differs\n--- got\n%s--- want\n%s", got, want)
			}
		})
	}
}

// TestIntervalLayout10 re-renders the captured interval lines.
func TestIntervalLayout10(t *testing.T) {
	b, err := os.ReadFile("testdata/report-1.0-interval.golden")
	if err != nil {
		t.Fatal(err)
	}
	re := regexp.MustCompile(`(?m)^\[ (\d+)s \] thds: (\d+) tps: ([0-9.]+) qps: [0-9.]+ \(r/w/o: ([0-9.]+)/([0-9.]+)/([0-9.]+)\) lat \(ms,95%\): ([0-9.]+) err/s: ([0-9.]+) reconn/s: ([0-9.]+)$`)
	lines := re.FindAllStringSubmatch(string(b), -1)
	if len(lines) != 3 {
		t.Fatalf("want 3 interval lines, got %d", len(lines))
	}
	f := func(s string) float64 { v, _ := strconv.ParseFloat(s, 64); return v }
	for _, m := range lines {
		at, _ := strconv.Atoi(m[1])
		thds, _ := strconv.Atoi(m[2])
		// Over a 1 s interval the per-second rates are the counts; the
		// golden's two decimals of a rate say sysbench's interval was not
		// exactly 1 s, so scale counts by a 1000 s interval instead.
		iv := results.Interval{At: time.Duration(at) * time.Second, Length: 1000 * time.Second, Clients: thds,
			Events: uint64(f(m[3])*1000 + 0.5),
			Tally:  workload.Tally{Reads: uint64(f(m[4])*1000 + 0.5), Writes: uint64(f(m[5])*1000 + 0.5), Other: uint64(f(m[6])*1000 + 0.5)},
			Errors: uint64(f(m[8])*1000 + 0.5), Reconnects: uint64(f(m[9])*1000 + 0.5),
			Latency: latency.Percentiles{P95: int64(f(m[7])*1000 + 0.5)}}
		if got := oltp.IntervalLine(iv, 95); got != m[0]+"\n" {
			t.Errorf("got  %q\nwant %q", got, m[0]+"\n")
		}
	}
}

// TestIntervalPercentile: the column follows --percentile (sysbench
// 1.0.20 prints "lat (ms,99%)" with --percentile=99, "lat (ms,0%): 0.00"
// with 0).
func TestIntervalPercentile(t *testing.T) {
	iv := results.Interval{At: time.Second, Length: time.Second, Clients: 1, Events: 10,
		Latency: latency.Percentiles{P50: 100, P95: 950, P99: 990}}
	for pct, want := range map[int]string{0: "lat (ms,0%): 0.00 ", 50: "lat (ms,50%): 0.10 ", 95: "lat (ms,95%): 0.95 ", 99: "lat (ms,99%): 0.99 "} {
		if got := oltp.IntervalLine(iv, pct); !strings.Contains(got, want) {
			t.Errorf("pct %d: %q lacks %q", pct, got, want)
		}
	}
}

// TestReportLayout04 renders the figures of each report the real sysbench
// 0.4.12 and 0.5 printed (testdata/legacy, tools/sysbench-legacy) through
// Report.Write and compares the result byte for byte.
func TestReportLayout04(t *testing.T) {
	files, _ := filepath.Glob("testdata/legacy/0[45]-*.out")
	n := 0
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		i := strings.Index(string(b), "OLTP test statistics:")
		if i < 0 {
			continue
		}
		n++
		d := Dialect04
		if strings.HasPrefix(filepath.Base(f), "05-") {
			d = Dialect05
		}
		t.Run(filepath.Base(f), func(t *testing.T) {
			want := string(b[i:])
			r := scanReport(t, want, d)
			var out bytes.Buffer
			if err := r.Write(&out); err != nil {
				t.Fatal(err)
			}
			if got, want := blankRates(out.String()), blankRates(want); got != want {
				t.Errorf("layout differs\n--- got\n%s--- want\n%s", got, want)
			}
		})
	}
	if n < 8 {
		t.Fatalf("%d 0.4/0.5 reports in testdata/legacy, want at least 8 (run tools/sysbench-legacy/capture.sh)", n)
	}
}

// TestPerSecond checks the rates goslap prints: counts over total time.
func TestPerSecond(t *testing.T) {
	r := Report{Dialect: Dialect10, Percentile: 95, Reads: 700, Writes: 200, Other: 100, Transactions: 50, Events: 50, Seconds: 4}
	var out bytes.Buffer
	if err := r.Write(&out); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		"    transactions:                        50     (12.50 per sec.)\n",
		"    queries:                             1000   (250.00 per sec.)\n",
	} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("missing %q in\n%s", want, out.String())
		}
	}
}

// TestFromBenchmark checks the figures taken from a Benchmark.
func TestFromBenchmark(t *testing.T) {
	rec := latency.NewRecorder(false)
	var s latency.Samples
	for i := 1; i <= 100; i++ {
		s.Record(time.Duration(i) * time.Millisecond)
	}
	s.Fold(rec)
	rec.Error(1213, "Deadlock")
	rec.Error(1213, "Deadlock")
	rec.Reconnects = 1
	b := &results.Benchmark{
		Elapsed: 2 * time.Second, Events: 100,
		Ops:     []results.Op{{Name: "event", Recorder: rec}},
		Tally:   workload.Tally{Reads: 1400, Writes: 400, Other: 200},
		Clients: []results.Client{{Events: 52, Busy: 2525 * time.Millisecond}, {Events: 48, Busy: 2525 * time.Millisecond}},
	}
	cases := []struct {
		name string
		d    Dialect
		pct  int
		want Report
	}{
		{"1.0", Dialect10, 95, Report{Dialect: Dialect10, Percentile: 95, Reads: 1400, Writes: 400, Other: 200,
			Transactions: 100, IgnoredErrors: 2, Reconnects: 1, Seconds: 2, Events: 100,
			Min: 1, Avg: 50.5, Max: 100, Pct: 95, Sum: 5050, EventsAvg: 50, EventsStddev: 2, ExecAvg: 2.525}},
		{"0.5", Dialect05, 99, Report{Dialect: Dialect05, Percentile: 99, Reads: 1400, Writes: 400, Other: 200,
			Transactions: 100, IgnoredErrors: 2, Reconnects: 1, Seconds: 2, Events: 100,
			Min: 1, Avg: 50.5, Max: 100, Pct: 99, Sum: 5050, EventsAvg: 50, EventsStddev: 2, ExecAvg: 2.525}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got := FromBenchmark(b, tc.d, tc.pct)
			// HDR values hold 3 significant digits: compare latencies to
			// 0.1 %, the rest exactly.
			for _, f := range []struct{ got, want *float64 }{
				{&got.Min, &tc.want.Min}, {&got.Max, &tc.want.Max}, {&got.Pct, &tc.want.Pct}} {
				if math.Abs(*f.got-*f.want) <= *f.want*1e-3 {
					*f.got = *f.want
				}
			}
			if got != tc.want {
				t.Errorf("got  %+v\nwant %+v", got, tc.want)
			}
		})
	}
	b.Tally.Other = 0
	if got := FromBenchmark(b, Dialect05, 95); got.Transactions != 0 {
		t.Errorf("0.5 without COMMITs: transactions %d, want 0", got.Transactions)
	}
}
