package mysqlslap

import (
	"io"

	"github.com/goslap/goslap/internal/results/slapreport"
)

// BenchmarkResult is what one mysqlslap "Benchmark" block reports (package
// slapreport, which prints it).
type BenchmarkResult = slapreport.BenchmarkResult

// Bounds are the start and end of a measured phase.
type Bounds = slapreport.Bounds

// Measurements are goslap's own figures for one benchmark.
type Measurements = slapreport.Measurements

// CSVLatencyHeader names the columns --latency appends to the CSV line.
const CSVLatencyHeader = slapreport.CSVLatencyHeader

// WriteBenchmark writes mysqlslap's Benchmark block for one result.
func WriteBenchmark(w io.Writer, r *BenchmarkResult) error { return slapreport.WriteBenchmark(w, r) }

// WriteCSVLine writes the --csv line of one result.
func WriteCSVLine(w io.Writer, r *BenchmarkResult) error { return slapreport.WriteCSVLine(w, r) }

// WriteBenchmarkLatency writes the Benchmark block with --latency's lines.
func WriteBenchmarkLatency(w io.Writer, r *BenchmarkResult) error {
	return slapreport.WriteBenchmarkLatency(w, r)
}

// WriteCSVLineLatency writes the CSV line with --latency's columns.
func WriteCSVLineLatency(w io.Writer, r *BenchmarkResult) error {
	return slapreport.WriteCSVLineLatency(w, r)
}

// writeResult is mysqlslap's report of one result (slapreport.Write), its
// failure an ExitError.
func writeResult(stdout, csv io.Writer, res *BenchmarkResult, block, latency bool) error {
	if err := slapreport.Write(stdout, csv, res, block, latency); err != nil {
		return exitWith(err)
	}
	return nil
}
