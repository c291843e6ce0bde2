package latency

import (
	"math/rand/v2"
	"testing"
	"time"
)

// TestSamplesFoldExactly: folding Samples gives the same histogram as
// recording each value straight into a Recorder, paced or not, across
// flushes and over the whole range.
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
				direct.RecordPaced(d, 2*d, d/3)
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
