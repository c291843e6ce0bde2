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
		counts := []int{10, flushSamples*2 + 7, 0}
		for i, n := range counts {
			l := &lp.lat[i]
			l.paced = paced
			for range n {
				d := time.Duration(rng.Int64N(int64(2 * time.Second)))
				// want records straight into the HDR histograms.
				if paced {
					lag := time.Duration(rng.Int64N(int64(time.Millisecond)))
					l.recordPaced(d, d+lag, lag)
					_ = want.Service.RecordValue(latency.Micros(d))
					_ = want.Intended.RecordValue(latency.Micros(d + lag))
					want.MaxLag = max(want.MaxLag, lag)
				} else {
					l.record(d)
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

// TestHDRIndex: a value and the lowest value of the cell hdrIndex puts it
// in fall into the same cell of the real histogram, up to an hour.
func TestHDRIndex(t *testing.T) {
	a, b := latency.NewHistogram(), latency.NewHistogram()
	vals := []uint32{1, 2, 1023, 1024, 2047, 2048, 2049, 4095, 4096, 65535, 65536, 1e6, 1e9, uint32(latency.HighestMicros)}
	rng := rand.New(rand.NewPCG(5, 6))
	for range 100000 {
		vals = append(vals, uint32(1+rng.Int64N(latency.HighestMicros)>>rng.IntN(32)))
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
