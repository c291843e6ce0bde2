package slap

import (
	"math"
	"math/bits"
	"time"

	hdrhistogram "github.com/HdrHistogram/hdrhistogram-go"

	"github.com/goslap/goslap/internal/latency"
)

// flushSamples is how many latencies a client keeps as raw samples (4
// bytes each) before it folds them into its sparse histogram.
const flushSamples = 1024

// clientLatency is one client's latency recording, touched only by that
// client while the load runs. A full HDR histogram (1 µs to 1 h, 3 digits)
// is 180 KB and each recorded value dirties a page of it: at 1000 clients
// that was 32 MB of resident memory for 100 queries per client, and at 16
// clients 3 MB more heap (and so a larger GC goal). So a client keeps raw
// samples first, then counts them in a sparse histogram with the HDR
// histogram's cells allocated 256 at a time; at the end of the phase
// everything is folded into one recorder (foldLatency). The figures are
// exactly those of recording straight into the HDR histograms.
type clientLatency struct {
	service  []uint32 // µs, not yet counted
	intended []uint32 // µs since the intended start (--rate), not yet counted
	paced    bool
	maxLag   time.Duration     // largest start delay of a --rate run
	hs, hi   sparseHist        // counted service and intended times
	rec      *latency.Recorder // nil until needed (errors, reconnects)
}

func (l *clientLatency) recorder() *latency.Recorder {
	if l.rec == nil {
		l.rec = latency.NewRecorder(l.paced)
	}
	return l.rec
}

// record is one statement's service time.
func (l *clientLatency) record(d time.Duration) {
	l.service = append(l.service, uint32(latency.Micros(d)))
	if len(l.service) == flushSamples {
		l.flush()
	}
}

// recordPaced is one statement of a --rate run: service time, time since
// its intended start, and how late it started.
func (l *clientLatency) recordPaced(service, sinceIntended, lag time.Duration) {
	l.service = append(l.service, uint32(latency.Micros(service)))
	l.intended = append(l.intended, uint32(latency.Micros(sinceIntended)))
	l.maxLag = max(l.maxLag, lag)
	if len(l.service) == flushSamples {
		l.flush()
	}
}

// flush counts the pending samples.
func (l *clientLatency) flush() {
	for _, us := range l.service {
		l.hs.add(us)
	}
	for _, us := range l.intended {
		l.hi.add(us)
	}
	l.service, l.intended = l.service[:0], l.intended[:0]
}

// HDR cell layout of latency.NewHistogram (lowest 1 µs, 3 significant
// digits): unit magnitude 0, 2048 sub-buckets, half of them 1024.
const (
	hdrSubHalfMagnitude = 10
	hdrSubMask          = 1<<(hdrSubHalfMagnitude+1) - 1
	chunkBits           = 8
)

// sparseHist counts values in the HDR histogram's cells, allocating the
// cells in chunks of 256 as values land in them.
type sparseHist struct {
	chunks []*[1 << chunkBits]uint32
	spill  [][2]int64 // value, count of cells that reached MaxUint32
}

// hdrIndex is hdrhistogram-go's countsIndexFor for that layout.
func hdrIndex(v uint32) int {
	bucket := bits.Len32(v|hdrSubMask) - (hdrSubHalfMagnitude + 1)
	sub := int(v >> bucket)
	return (bucket+1)<<hdrSubHalfMagnitude + sub - 1<<hdrSubHalfMagnitude
}

// hdrValue is the lowest value of cell i, which maps back to cell i.
func hdrValue(i int) int64 {
	bucket := i>>hdrSubHalfMagnitude - 1
	sub := i&(1<<hdrSubHalfMagnitude-1) + 1<<hdrSubHalfMagnitude
	if bucket < 0 {
		bucket, sub = 0, sub-1<<hdrSubHalfMagnitude
	}
	return int64(sub) << bucket
}

func (h *sparseHist) add(v uint32) {
	i := hdrIndex(v)
	c := i >> chunkBits
	if c >= len(h.chunks) {
		h.chunks = append(h.chunks, make([]*[1 << chunkBits]uint32, c+1-len(h.chunks))...)
	}
	chunk := h.chunks[c]
	if chunk == nil {
		chunk = new([1 << chunkBits]uint32)
		h.chunks[c] = chunk
	}
	cell := &chunk[i&(1<<chunkBits-1)]
	*cell++
	if *cell == math.MaxUint32 {
		// Never in practice (4 billion equal latencies in one client),
		// but a wrapped count would be wrong: park it in a real histogram.
		h.spill = append(h.spill, [2]int64{hdrValue(i), int64(*cell)})
		*cell = 0
	}
}

// into adds the counts to an HDR histogram.
func (h *sparseHist) into(dst *hdrhistogram.Histogram) {
	for c, chunk := range h.chunks {
		if chunk == nil {
			continue
		}
		for j, n := range chunk {
			if n != 0 {
				_ = dst.RecordValues(hdrValue(c<<chunkBits|j), int64(n))
			}
		}
	}
	for _, s := range h.spill {
		_ = dst.RecordValues(s[0], s[1])
	}
}

// foldLatency merges every client's recording of a finished phase into one
// recorder and hands it over as the first client's, the others' set to nil
// (addIteration merges the non-nil ones), so a phase costs one histogram
// however many clients it has.
func (lp *loadPhase) foldLatency() {
	if len(lp.cs) == 0 {
		return
	}
	phase := latency.NewRecorder(lp.timing.paced)
	for i := range lp.lat {
		l := &lp.lat[i]
		l.flush()
		l.hs.into(phase.Service)
		if phase.Intended != nil {
			l.hi.into(phase.Intended)
		}
		if l.rec != nil {
			phase.Merge(l.rec)
		}
		phase.MaxLag = max(phase.MaxLag, l.maxLag)
		*l = clientLatency{}
		lp.cs[i].rec = nil
	}
	lp.cs[0].rec = phase
}
