package latency

import (
	"math/rand/v2"
	"testing"
	"time"
)

// recordDirect records one paced unit straight into r's HDR histograms: the
// reference Samples.Fold must match.
func recordDirect(r *Recorder, service, sinceIntended, lag time.Duration) {
	_ = r.Service.RecordValue(Micros(service))
	if r.Intended != nil {
		_ = r.Intended.RecordValue(Micros(sinceIntended))
	}
	r.MaxLag = max(r.MaxLag, lag)
}

// TestSamplesFoldExactly: folding Samples gives the same histogram as
// recording each value straight into the HDR histograms, paced or not,
// across flushes and over the whole range.
func TestSamplesFoldExactly(t *testing.T) {
	for _, n := range []int{0, 1, flushSamples - 1, flushSamples, 5*flushSamples + 7} {
		for _, paced := range []bool{false, true} {
			rng := rand.New(rand.NewPCG(uint64(n), 2))
			direct := NewRecorder(paced)
			s := Samples{Paced: paced}
			for i := 0; i < n; i++ {
				d := time.Duration(rng.ExpFloat64() * float64(time.Millisecond))
				if i%97 == 0 {
					d = time.Duration(rng.Int64N(int64(2 * time.Hour)))
				}
				recordDirect(direct, d, 2*d, d/3)
				if paced {
					s.RecordPaced(d, 2*d, d/3)
				} else {
					s.Record(d)
				}
			}
			if s.Count() != int64(n) {
				t.Errorf("n=%d: Count %d", n, s.Count())
			}
			folded := NewRecorder(paced)
			s.Fold(folded)
			if !folded.Service.Equals(direct.Service) {
				t.Errorf("n=%d paced=%v: service histograms differ", n, paced)
			}
			if paced && (!folded.Intended.Equals(direct.Intended) || folded.MaxLag != direct.MaxLag) {
				t.Errorf("n=%d: intended histograms or max lag differ", n)
			}
			if s.Count() != 0 {
				t.Errorf("n=%d: not emptied by Fold", n)
			}
		}
	}
}

// TestHDRIndex: a value and the lowest value of the cell hdrIndex puts it
// in fall into the same cell of the real histogram, up to an hour.
func TestHDRIndex(t *testing.T) {
	a, b := NewHistogram(), NewHistogram()
	vals := []uint32{1, 2, 1023, 1024, 2047, 2048, 2049, 4095, 4096, 65535, 65536, 1e6, 1e9, uint32(HighestMicros)}
	rng := rand.New(rand.NewPCG(5, 6))
	for range 100000 {
		vals = append(vals, uint32(1+rng.Int64N(HighestMicros)>>rng.IntN(32)))
	}
	for _, v := range vals {
		if err := a.RecordValue(int64(v)); err != nil {
			t.Fatal(err)
		}
		w := hdrValue(hdrIndex(v))
		if w > int64(v) {
			t.Fatalf("cell of %d starts at %d", v, w)
		}
		if err := b.RecordValue(w); err != nil {
			t.Fatal(err)
		}
	}
	if !a.Equals(b) {
		t.Fatal("cells differ from hdrhistogram-go's")
	}
}
