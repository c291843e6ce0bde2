package latency

import (
	"math"
	"math/bits"
	"time"

	hdrhistogram "github.com/HdrHistogram/hdrhistogram-go"
)

// flushSamples is how many latencies Samples keeps raw (4 bytes each)
// before it counts them in its sparse histogram.
const flushSamples = 1024

// Samples is one client's latency recording on the hot path, folded into a
// Recorder when the load is over. A full HDR histogram (1 µs to 1 h, 3
// digits) is 180 KB and each recorded value dirties a page of it: at 1000
// clients that is tens of MB of resident memory for a short run. Samples
// keeps raw values first, then counts them in a sparse copy of the HDR
// histogram's cells allocated 256 at a time. The figures Fold produces are
// exactly those of recording straight into the HDR histograms.
//
// The zero value records unpaced service times; set Paced before the first
// RecordPaced. Not safe for concurrent use.
type Samples struct {
	Paced    bool
	service  []uint32 // µs, not yet counted
	intended []uint32 // µs since the intended start, not yet counted
	maxLag   time.Duration
	hs, hi   sparseHist
	n        int64
}

// Record adds one unit's service time.
func (s *Samples) Record(d time.Duration) {
	s.service = append(s.service, uint32(Micros(d)))
	if len(s.service) == flushSamples {
		s.flush()
	}
}

// RecordPaced adds one paced unit: its service time, its time from the
// intended start, and how late it started.
func (s *Samples) RecordPaced(service, sinceIntended, lag time.Duration) {
	s.service = append(s.service, uint32(Micros(service)))
	s.intended = append(s.intended, uint32(Micros(sinceIntended)))
	s.maxLag = max(s.maxLag, lag)
	if len(s.service) == flushSamples {
		s.flush()
	}
}

// Count is the number of values recorded.
func (s *Samples) Count() int64 { return s.n + int64(len(s.service)) }

func (s *Samples) flush() {
	for _, us := range s.service {
		s.hs.add(us)
	}
	for _, us := range s.intended {
		s.hi.add(us)
	}
	s.n += int64(len(s.service))
	s.service, s.intended = s.service[:0], s.intended[:0]
}

// Fold adds everything recorded to r (its Intended histogram is created
// when s is paced) and empties s.
func (s *Samples) Fold(r *Recorder) {
	s.flush()
	s.hs.into(r.Service)
	if s.Paced {
		if r.Intended == nil {
			r.Intended = NewHistogram()
		}
		s.hi.into(r.Intended)
	}
	r.MaxLag = max(r.MaxLag, s.maxLag)
	*s = Samples{Paced: s.Paced}
}

// HDR cell layout of NewHistogram (lowest 1 µs, 3 significant digits):
// unit magnitude 0, 2048 sub-buckets, half of them 1024.
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
