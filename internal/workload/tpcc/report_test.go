package tpcc

import (
	"bytes"
	"strings"
	"testing"
	"time"

	"github.com/goslap/goslap/internal/latency"
	"github.com/goslap/goslap/internal/results"
)

// benchmarkOf builds a Benchmark whose op i recorded n[i] values of d[i]
// plus late[i] values of lateD[i].
func benchmarkOf(n []int, d []time.Duration, late []int, lateD []time.Duration) *results.Benchmark {
	b := &results.Benchmark{Workload: Name}
	for i := 0; i < numTx; i++ {
		r := latency.NewRecorder(false)
		var s latency.Samples
		for j := 0; j < n[i]; j++ {
			s.Record(d[i])
		}
		for j := 0; j < late[i]; j++ {
			s.Record(lateD[i])
		}
		s.Fold(r)
		b.Ops = append(b.Ops, results.Op{Name: OpNames[i], Recorder: r})
	}
	return b
}

func TestTpmC(t *testing.T) {
	for _, c := range []struct {
		newOrders       uint64
		measure, interv time.Duration
		want            float64
	}{
		{1200, 60 * time.Second, 10 * time.Second, 1200},
		{1200, 120 * time.Second, 10 * time.Second, 600},
		// tpcc-mysql divides by whole intervals: 65 s at 10 s is 60 s.
		{1300, 65 * time.Second, 10 * time.Second, 1300},
		{7, 30 * time.Second, 0, 14},
		{0, 60 * time.Second, 10 * time.Second, 0},
		{5, 0, 10 * time.Second, 0},
	} {
		if got := TpmC(c.newOrders, Window(c.measure, c.interv)); got != c.want {
			t.Errorf("TpmC(%d, Window(%s, %s)) = %v, want %v", c.newOrders, c.measure, c.interv, got, c.want)
		}
	}
}

func TestReport(t *testing.T) {
	ms := time.Millisecond
	b := benchmarkOf(
		[]int{1000, 1000, 100, 80, 100},
		[]time.Duration{2 * ms, 1 * ms, 1 * ms, 30 * ms, 4 * ms},
		[]int{10, 0, 0, 20, 0},
		[]time.Duration{6 * time.Second, 0, 0, 90 * time.Second, 0})
	counts := Counts{Retries: [numTx]uint64{3, 1, 0, 0, 0}, Failures: [numTx]uint64{0, 0, 0, 1, 0}}
	r, err := FromBenchmark(b, counts, Window(60*time.Second, 10*time.Second))
	if err != nil {
		t.Fatal(err)
	}
	if got := r.TpmC(); got != 1010 {
		t.Fatalf("tpmC %v, want 1010 (1010 New-Orders in 60 s)", got)
	}
	var out bytes.Buffer
	if err := r.Write(&out); err != nil {
		t.Fatal(err)
	}
	text := out.String()
	head, _, _ := strings.Cut(text, "\n<Response time>")
	// Delivery's exact mean is 18024 ms; the histogram keeps 90 s to 3
	// significant digits, so its mean is 18026.7 (0.015 % off).
	want := `<Raw Results>
  [0] sc:1000 lt:10  rt:3  fl:0 avg_rt: 61.4 (5)
  [1] sc:1000 lt:0  rt:1  fl:0 avg_rt: 1.0 (5)
  [2] sc:100 lt:0  rt:0  fl:0 avg_rt: 1.0 (5)
  [3] sc:80 lt:20  rt:0  fl:1 avg_rt: 18026.7 (80)
  [4] sc:100 lt:0  rt:0  fl:0 avg_rt: 4.0 (20)
 in 60 sec.

<Constraint Check> (all must be [OK])
 [transaction percentage]
        Payment: 43.29% (>=43.0%) [OK]
   Order-Status: 4.33% (>= 4.0%) [OK]
       Delivery: 4.33% (>= 4.0%) [OK]
    Stock-Level: 4.33% (>= 4.0%) [OK]
 [response time (at least 90% passed)]
      New-Order: 99.01%  [OK]
        Payment: 100.00%  [OK]
   Order-Status: 100.00%  [OK]
       Delivery: 80.00%  [NG]
    Stock-Level: 100.00%  [OK]

<TpmC>
                 1010.000 TpmC
`
	if head != want {
		t.Errorf("report:\n%s\nwant:\n%s", head, want)
	}
	if !strings.Contains(text, "   New-Order         1010     2.000     2.000") {
		t.Errorf("latency table:\n%s", text)
	}
	t.Log("\n" + text)
}

func TestReportNeedsTheFiveTransactions(t *testing.T) {
	b := &results.Benchmark{Ops: []results.Op{{Name: "query"}}}
	if _, err := FromBenchmark(b, Counts{}, time.Minute); err == nil {
		t.Fatal("a benchmark of another workload made a TPC-C report")
	}
	// no transactions at all: every constraint fails, tpmC is 0
	r, err := FromBenchmark(benchmarkOf(make([]int, 5), make([]time.Duration, 5), make([]int, 5), make([]time.Duration, 5)), Counts{}, time.Minute)
	if err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	_ = r.Write(&out)
	if strings.Count(out.String(), "[OK]") != 1 || !strings.Contains(out.String(), "0.000 TpmC") {
		t.Fatalf("empty run:\n%s", out.String())
	}
}

func TestIntervalLine(t *testing.T) {
	iv := results.Interval{At: 10*time.Second + 3*time.Millisecond, Length: 10 * time.Second, Ops: []latency.Percentiles{
		{Count: 1234, P95: 12345, P99: 23456, Max: 45678},
		{Count: 1200, Max: 9876},
		{Count: 120, Max: 1000},
		{Count: 119, Max: 150001},
		{Count: 121, Max: 42},
	}}
	want := "  10, trx: 1234, 95%: 12.345, 99%: 23.456, max_rt: 45.678, 1200|9.876, 120|1.000, 119|150.001, 121|0.042\n"
	if got := IntervalLine(iv, 10*time.Second); got != want {
		t.Errorf("got  %q\nwant %q", got, want)
	}
}
