// Package latency records per-query latencies on a client's hot path and
// merges them into the figures goslap reports.
//
// Each client records into its own Samples (no locks, no allocation per
// query); when the load is over each Samples is folded into a Recorder,
// and the Recorders merge into the benchmark's figures. Values are
// microseconds in an HDR histogram with 3 significant digits from 1 µs to
// one hour (github.com/HdrHistogram/hdrhistogram-go: the reference Go port
// of Gil Tene's HdrHistogram, with the V2 wire encoding that other HDR
// tools read and that can be merged across machines).
package latency

import (
	"fmt"
	"math"
	"sort"
	"time"

	hdrhistogram "github.com/HdrHistogram/hdrhistogram-go"
)

// Histogram range and precision.
const (
	LowestMicros  = 1
	HighestMicros = int64(time.Hour / time.Microsecond)
	SigFigs       = 3
)

// NewHistogram returns an empty histogram with goslap's range and precision.
func NewHistogram() *hdrhistogram.Histogram {
	return hdrhistogram.New(LowestMicros, HighestMicros, SigFigs)
}

// Micros converts a duration to whole microseconds for the histogram: at
// least 1 (a query never takes no time) and at most HighestMicros.
func Micros(d time.Duration) int64 {
	us := int64(d / time.Microsecond)
	if us < LowestMicros {
		return LowestMicros
	}
	if us > HighestMicros {
		return HighestMicros
	}
	return us
}

// Recorder is the measurements of one client or of several merged: the
// histograms Samples.Fold fills, and the errors and reconnects its client
// counted. It is not safe for concurrent use: only its client writes it,
// and the runner reads it after the client has finished.
type Recorder struct {
	// Service is the time each query took, from sending it to having read
	// all of its results.
	Service *hdrhistogram.Histogram
	// Intended is, for rate-paced runs, the time from each query's
	// scheduled start to the end of it (coordinated-omission corrected);
	// nil when queries are not paced.
	Intended *hdrhistogram.Histogram
	// Errors counts ignored errors by server error code.
	Errors map[uint16]uint64
	// ErrorText keeps the first message seen for each code.
	ErrorText map[uint16]string
	// Reconnects counts re-established connections after a broken one.
	Reconnects uint64
	// MaxLag is the largest delay between a query's scheduled start and its
	// actual start (rate-paced runs).
	MaxLag time.Duration
}

// NewRecorder returns an empty Recorder; paced adds the Intended histogram.
func NewRecorder(paced bool) *Recorder {
	r := &Recorder{Service: NewHistogram()}
	if paced {
		r.Intended = NewHistogram()
	}
	return r
}

// Error counts one ignored error; msg is kept for the first of its code.
func (r *Recorder) Error(code uint16, msg string) {
	if r.Errors == nil {
		r.Errors = map[uint16]uint64{}
		r.ErrorText = map[uint16]string{}
	}
	if r.Errors[code] == 0 {
		r.ErrorText[code] = msg
	}
	r.Errors[code]++
}

// Merge adds other's measurements to r.
func (r *Recorder) Merge(other *Recorder) {
	r.Service.Merge(other.Service)
	if other.Intended != nil {
		if r.Intended == nil {
			r.Intended = NewHistogram()
		}
		r.Intended.Merge(other.Intended)
	}
	for code, n := range other.Errors {
		if r.Errors == nil || r.Errors[code] == 0 {
			if r.Errors == nil {
				r.Errors = map[uint16]uint64{}
				r.ErrorText = map[uint16]string{}
			}
			r.ErrorText[code] = other.ErrorText[code]
		}
		r.Errors[code] += n
	}
	r.Reconnects += other.Reconnects
	r.MaxLag = max(r.MaxLag, other.MaxLag)
}

// Percentiles are the latency figures of one histogram in microseconds.
type Percentiles struct {
	Count int64   `json:"count"`
	Min   int64   `json:"min_us"`
	Mean  float64 `json:"mean_us"`
	P50   int64   `json:"p50_us"`
	P95   int64   `json:"p95_us"`
	P99   int64   `json:"p99_us"`
	P999  int64   `json:"p99_9_us"`
	Max   int64   `json:"max_us"`
}

// Kept returns the kept percentile p (50, 95 or 99, as the interval lines
// offer them) in µs, and 0 for any other p.
func (p Percentiles) Kept(pct int) int64 {
	switch pct {
	case 50:
		return p.P50
	case 95:
		return p.P95
	case 99:
		return p.P99
	}
	return 0
}

// Figures reads the percentiles of h (all zero when h is nil or empty).
func Figures(h *hdrhistogram.Histogram) Percentiles {
	if h == nil || h.TotalCount() == 0 {
		return Percentiles{}
	}
	v := h.ValueAtPercentiles([]float64{50, 95, 99, 99.9})
	return Percentiles{
		Count: h.TotalCount(),
		Min:   h.Min(),
		Mean:  math.Round(h.Mean()*10) / 10,
		P50:   v[50], P95: v[95], P99: v[99], P999: v[99.9],
		Max: h.Max(),
	}
}

// Encode is h in the HDR V2 compressed encoding, base64 (standard
// alphabet, padded): the "HISTFAAA..." form HdrHistogram's tools read and
// Decode merges. hdrhistogram-go's Encode already returns the base64 text.
func Encode(h *hdrhistogram.Histogram) (string, error) {
	b, err := h.Encode(hdrhistogram.V2CompressedEncodingCookieBase)
	if err != nil {
		return "", err
	}
	return string(b), nil
}

// Decode reads a histogram written by Encode.
func Decode(s string) (*hdrhistogram.Histogram, error) {
	h, err := hdrhistogram.Decode([]byte(s))
	if err != nil {
		return nil, fmt.Errorf("histogram: %w", err)
	}
	return h, nil
}

// MergeEncoded merges histograms written by Encode (e.g. the same
// benchmark run from several machines) into one.
func MergeEncoded(encoded ...string) (*hdrhistogram.Histogram, error) {
	out := NewHistogram()
	for _, e := range encoded {
		h, err := Decode(e)
		if err != nil {
			return nil, err
		}
		if dropped := out.Merge(h); dropped > 0 {
			return nil, fmt.Errorf("histogram: %d values out of range", dropped)
		}
	}
	return out, nil
}

// ErrorCount is one error code's count in a report.
type ErrorCount struct {
	Code    uint16 `json:"code"`
	Count   uint64 `json:"count"`
	Message string `json:"message"`
}

// SortedErrors lists r's error counts by code.
func (r *Recorder) SortedErrors() []ErrorCount {
	out := make([]ErrorCount, 0, len(r.Errors))
	for code, n := range r.Errors {
		out = append(out, ErrorCount{Code: code, Count: n, Message: r.ErrorText[code]})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Code < out[j].Code })
	return out
}

// StdDevMillis is the population standard deviation of the iteration
// times in milliseconds (0 for fewer than two).
func StdDevMillis(ms []int64) float64 {
	if len(ms) < 2 {
		return 0
	}
	var sum float64
	for _, v := range ms {
		sum += float64(v)
	}
	mean := sum / float64(len(ms))
	var sq float64
	for _, v := range ms {
		d := float64(v) - mean
		sq += d * d
	}
	return math.Sqrt(sq / float64(len(ms)))
}
