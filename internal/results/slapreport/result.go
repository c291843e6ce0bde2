// Package slapreport is mysqlslap's report: the result of one benchmark
// (engine × concurrency over its iterations) and its Benchmark block and
// CSV line, byte for byte, with goslap's --latency lines. A run and a merge
// of shards print through it.
package slapreport

import (
	"time"

	hdrhistogram "github.com/HdrHistogram/hdrhistogram-go"

	"github.com/goslap/goslap/internal/latency"
	"github.com/goslap/goslap/internal/results/jsondoc"
)

// BenchmarkResult is what one mysqlslap "Benchmark" block reports: one engine
// entry × one concurrency level, over all its iterations. Reporters (text,
// CSV, JSON, charts) are functions over a slice of these.
type BenchmarkResult struct {
	Engine           string  // engine name without ":options"
	HasEngine        bool    // an engine entry was active ("Running for engine" line)
	LoadType         string  // --auto-generate-sql-load-type verbatim (CSV column)
	Concurrency      int     // clients
	QueriesPerClient uint64  // the configured per-client limit (spec 2.6), not a measurement
	IterationMillis  []int64 // wall time of each iteration in whole milliseconds (spec 3.4)
	// IterationBounds are the wall-clock bounds of each iteration's
	// measured part, parallel to IterationMillis (empty for results not
	// produced by Run).
	IterationBounds []Bounds

	// Measurements are goslap's per-query figures (zero for results not
	// produced by Run, e.g. --only-print).
	Measurements

	// Server and Intervals are what goslap's sampling of the server saw
	// (nil without it): per query, and per report interval. Only the JSON
	// document and --server-report show them.
	Server    *jsondoc.ServerFigures
	Intervals []jsondoc.Interval
}

// Bounds are the start and end of a measured phase.
type Bounds struct{ Start, End time.Time }

// AvgMillis is mysqlslap's integer average of the iteration times.
func (r *BenchmarkResult) AvgMillis() int64 {
	if len(r.IterationMillis) == 0 {
		return 0
	}
	var sum int64
	for _, ms := range r.IterationMillis {
		sum += ms
	}
	return sum / int64(len(r.IterationMillis))
}

// MinMillis is the shortest iteration (0 when there were none).
func (r *BenchmarkResult) MinMillis() int64 {
	if len(r.IterationMillis) == 0 {
		return 0
	}
	m := r.IterationMillis[0]
	for _, ms := range r.IterationMillis[1:] {
		m = min(m, ms)
	}
	return m
}

// MaxMillis is the longest iteration (0 when there were none).
func (r *BenchmarkResult) MaxMillis() int64 {
	var m int64
	for _, ms := range r.IterationMillis {
		m = max(m, ms)
	}
	return m
}

// Measurements are goslap's own figures for one benchmark (engine ×
// concurrency), over all its iterations, warm-up excluded. They are always
// collected by the runner; --latency prints them, --json writes them.
type Measurements struct {
	// Executed is the number of --query statements that completed without
	// error in the measured part of all iterations (COMMITs excluded).
	Executed uint64
	// Errors is the number of ignored statement errors (--ignore-errors);
	// ErrorsByCode breaks them down by server error code.
	Errors       uint64
	ErrorsByCode []latency.ErrorCount
	// Reconnects counts connections re-established after breaking.
	Reconnects uint64
	// Seconds is the measured wall time of all iterations (exact, not
	// truncated to milliseconds).
	Seconds float64
	// QPS is Executed / Seconds.
	QPS float64
	// Latency is the service time of each query, sending to last result
	// read, in microseconds.
	Latency latency.Percentiles
	// Histogram is Latency's merged histogram (µs).
	Histogram *hdrhistogram.Histogram
	// Paced results (--rate): latency from each query's scheduled start
	// (coordinated-omission corrected), and whether the rate was held.
	Paced              bool
	Corrected          latency.Percentiles
	CorrectedHistogram *hdrhistogram.Histogram
	TargetRate         float64
	RateKept           bool
	MaxLag             time.Duration
	// StdDevMillis is the standard deviation of IterationMillis.
	StdDevMillis float64
}

// P99Micros is the 99th percentile query latency in microseconds (0 when
// nothing was measured), for charts.
func (r *BenchmarkResult) P99Micros() int64 { return r.Latency.P99 }

// FinishMeasurements derives QPS, the percentiles and the deviation from
// the merged recorder and the measured time.
func (r *BenchmarkResult) FinishMeasurements(rec *latency.Recorder, seconds float64) {
	m := &r.Measurements
	m.Seconds = seconds
	m.Histogram = rec.Service
	m.Latency = latency.Figures(rec.Service)
	m.Executed = uint64(rec.Service.TotalCount())
	m.ErrorsByCode = rec.SortedErrors()
	m.Errors = 0
	for _, e := range m.ErrorsByCode {
		m.Errors += e.Count
	}
	m.Reconnects = rec.Reconnects
	if seconds > 0 {
		m.QPS = float64(m.Executed) / seconds
	}
	if rec.Intended != nil {
		m.Paced = true
		m.CorrectedHistogram = rec.Intended
		m.Corrected = latency.Figures(rec.Intended)
		m.MaxLag = rec.MaxLag
	}
	m.StdDevMillis = latency.StdDevMillis(r.IterationMillis)
}
