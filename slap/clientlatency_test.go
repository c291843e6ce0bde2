package slap

import (
	"math/rand/v2"
	"testing"
	"time"

	"github.com/goslap/goslap/internal/latency"
)

// TestClientLatencyFoldsExactly: raw samples, a client's own histogram
// after overflow, errors and lags all end up in the phase's one recorder
// with the figures direct recording gives.
func TestClientLatencyFoldsExactly(t *testing.T) {
	for _, paced := range []bool{false, true} {
		rng := rand.New(rand.NewPCG(1, 2))
		want := latency.NewRecorder(paced)
		lp := &loadPhase{timing: loadTiming{paced: paced}, cs: make([]clientState, 3), lat: make([]clientLatency, 3)}
		counts := []int{10, 2*1024 + 7, 0} // past two of latency.Samples' 1024-sample flushes
		for i, n := range counts {
			l := &lp.lat[i]
			l.Paced = paced
			for range n {
				d := time.Duration(rng.Int64N(int64(2 * time.Second)))
				// want records straight into the HDR histograms.
				if paced {
					lag := time.Duration(rng.Int64N(int64(time.Millisecond)))
					l.RecordPaced(d, d+lag, lag)
					_ = want.Service.RecordValue(latency.Micros(d))
					_ = want.Intended.RecordValue(latency.Micros(d + lag))
					want.MaxLag = max(want.MaxLag, lag)
				} else {
					l.Record(d)
					_ = want.Service.RecordValue(latency.Micros(d))
				}
			}
		}
		lp.lat[2].recorder().Error(1062, "dup")
		want.Error(1062, "dup")
		lp.lat[1].recorder().Reconnects++
		want.Reconnects++

		lp.foldLatency()
		got := lp.cs[0].rec
		if lp.cs[1].rec != nil || lp.cs[2].rec != nil {
			t.Fatal("only the first client may hold the phase's recorder")
		}
		if g, w := latency.Figures(got.Service), latency.Figures(want.Service); g != w {
			t.Errorf("paced=%v service: got %+v, want %+v", paced, g, w)
		}
		if paced {
			if g, w := latency.Figures(got.Intended), latency.Figures(want.Intended); g != w {
				t.Errorf("intended: got %+v, want %+v", g, w)
			}
			if got.MaxLag != want.MaxLag {
				t.Errorf("max lag %v, want %v", got.MaxLag, want.MaxLag)
			}
		}
		if got.Errors[1062] != 1 || got.Reconnects != 1 {
			t.Errorf("errors %v reconnects %d", got.Errors, got.Reconnects)
		}
	}
}
