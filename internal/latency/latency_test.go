package latency

import (
	"strings"
	"testing"
	"time"
)

func TestMergeEqualsOneRecorder(t *testing.T) {
	all := NewRecorder(true)
	parts := []*Recorder{NewRecorder(true), NewRecorder(true), NewRecorder(false)}
	var allSamples Samples
	partSamples := []Samples{{Paced: true}, {Paced: true}, {}}
	allSamples.Paced = true
	for i := 1; i <= 30000; i++ {
		d := time.Duration(i) * 7 * time.Microsecond
		partSamples[i%3].RecordPaced(d, d+time.Millisecond, time.Millisecond)
		allSamples.RecordPaced(d, d+time.Millisecond, time.Millisecond)
	}
	allSamples.Fold(all)
	for i := range parts {
		partSamples[i].Fold(parts[i])
	}
	parts[1].Error(1146, "Table 't' doesn't exist")
	parts[2].Error(1146, "other text")
	parts[2].Error(2013, "Lost connection")
	parts[0].Reconnects = 2
	merged := NewRecorder(false)
	for _, p := range parts {
		merged.Merge(p)
	}
	if got, want := Figures(merged.Service), Figures(all.Service); got != want {
		t.Errorf("merged %+v, want %+v", got, want)
	}
	if merged.Service.TotalCount() != 30000 {
		t.Errorf("count %d", merged.Service.TotalCount())
	}
	// The third part was not paced: its intended times are missing.
	if got := merged.Intended.TotalCount(); got != 20000 {
		t.Errorf("intended count %d", got)
	}
	errs := merged.SortedErrors()
	if len(errs) != 2 || errs[0] != (ErrorCount{1146, 2, "Table 't' doesn't exist"}) || errs[1].Code != 2013 {
		t.Errorf("errors %+v", errs)
	}
	if merged.Reconnects != 2 || merged.MaxLag != time.Millisecond {
		t.Errorf("reconnects %d lag %v", merged.Reconnects, merged.MaxLag)
	}
}

func TestFiguresPrecision(t *testing.T) {
	r := NewRecorder(false)
	var s Samples
	for i := 1; i <= 1000; i++ {
		s.Record(time.Duration(i) * time.Microsecond)
	}
	s.Fold(r)
	f := Figures(r.Service)
	// 3 significant digits: exact below 1024 µs.
	if f.P50 != 500 || f.P95 != 950 || f.P99 != 990 || f.P999 != 999 || f.Max != 1000 || f.Min != 1 || f.Count != 1000 {
		t.Errorf("figures %+v", f)
	}
	s.Record(2 * time.Hour) // clamped, not lost
	s.Record(0)             // at least 1 µs
	s.Fold(r)
	if r.Service.TotalCount() != 1002 || Figures(r.Service).Max < HighestMicros*999/1000 {
		t.Errorf("out-of-range values: %+v", Figures(r.Service))
	}
	if (Figures(nil) != Percentiles{}) {
		t.Error("nil histogram")
	}
}

func TestEncodeDecodeMerge(t *testing.T) {
	a, b := NewHistogram(), NewHistogram()
	for i := int64(1); i <= 5000; i++ {
		a.RecordValue(i)
		b.RecordValue(i * 3)
	}
	ea, err := Encode(a)
	if err != nil {
		t.Fatal(err)
	}
	// The standard V2 compressed text (cookie 0x1c849304 in base64), which
	// HdrHistogram's own tools read: encoded once, not base64 of base64.
	if !strings.HasPrefix(ea, "HISTFAAA") {
		t.Errorf("encoding starts %.12q, want HISTFAAA", ea)
	}
	eb, _ := Encode(b)
	m, err := MergeEncoded(ea, eb)
	if err != nil {
		t.Fatal(err)
	}
	direct := NewHistogram()
	direct.Merge(a)
	direct.Merge(b)
	if !m.Equals(direct) {
		t.Errorf("decoded merge differs: %+v vs %+v", Figures(m), Figures(direct))
	}
	if _, err := Decode("not base64!"); err == nil {
		t.Error("bad input accepted")
	}
}

func TestStdDevMillis(t *testing.T) {
	if got := StdDevMillis([]int64{2, 4, 4, 4, 5, 5, 7, 9}); got != 2 {
		t.Errorf("stddev %v", got)
	}
	if StdDevMillis([]int64{5}) != 0 {
		t.Error("one value")
	}
}

// BenchmarkRecord is the hot-path cost of one measurement (the
// time.Now pair around a query plus recording it).
func BenchmarkRecord(b *testing.B) {
	var s Samples
	b.ReportAllocs()
	for b.Loop() {
		t0 := time.Now()
		t1 := time.Now()
		s.Record(t1.Sub(t0) + 150*time.Microsecond)
	}
}

func BenchmarkRecordValueOnly(b *testing.B) {
	var s Samples
	b.ReportAllocs()
	i := time.Duration(0)
	for b.Loop() {
		i++
		s.Record(i & 0xffff * time.Microsecond)
	}
}

// BenchmarkTimeNowPair is the clock part of BenchmarkRecord.
func BenchmarkTimeNowPair(b *testing.B) {
	var d time.Duration
	for b.Loop() {
		t0 := time.Now()
		d += time.Since(t0)
	}
	_ = d
}
