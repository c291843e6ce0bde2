package slapreport

import (
	"io"
	"strconv"
	"strings"
)

// CSVLatencyHeader names the columns --latency appends to mysqlslap's seven
// CSV columns (engine,loadtype,avg,min,max,clients,queries_per_client).
// Latencies are milliseconds with microsecond precision; the deviation is
// in seconds like mysqlslap's time columns. No header line is ever written
// (mysqlslap writes none); this constant documents the order.
const CSVLatencyHeader = "executed,errors,queries_per_second,p50_ms,p95_ms,p99_ms,p99_9_ms,max_ms,stddev_seconds"

// formatMicros renders microseconds as milliseconds with three decimals.
func formatMicros(us int64) string {
	return strconv.FormatInt(us/1000, 10) + "." + pad3(us%1000)
}

func pad3(n int64) string {
	s := strconv.FormatInt(n, 10)
	return strings.Repeat("0", 3-len(s)) + s
}

func formatFloat(f float64, prec int) string { return strconv.FormatFloat(f, 'f', prec, 64) }

// WriteBenchmarkLatency writes the Benchmark block of WriteBenchmark with
// goslap's --latency lines before its closing empty line:
//
//	Executed queries: 12000 (errors: 0)
//	Queries per second: 3989.361
//	Latency per query (ms): p50 0.231, p95 0.402, p99 0.733, p99.9 1.950, max 7.104
//	Standard deviation of iteration times: 0.004 seconds
//
// plus, for --rate runs, the target and achieved rate and the latency from
// the scheduled start, and a line per ignored error code.
func WriteBenchmarkLatency(w io.Writer, r *BenchmarkResult) error {
	var block strings.Builder
	if err := WriteBenchmark(&block, r); err != nil {
		return err
	}
	var b strings.Builder
	b.WriteString(strings.TrimSuffix(block.String(), "\n"))
	b.WriteString("\tExecuted queries: " + strconv.FormatUint(r.Executed, 10) + " (errors: " + strconv.FormatUint(r.Errors, 10) + ")\n")
	b.WriteString("\tQueries per second: " + formatFloat(r.QPS, 3) + "\n")
	b.WriteString("\tLatency per query (ms): " + percentileLine(r.Latency.P50, r.Latency.P95, r.Latency.P99, r.Latency.P999, r.Latency.Max) + "\n")
	if r.Paced {
		kept := "kept"
		if !r.RateKept {
			kept = "NOT kept"
		}
		b.WriteString("\tTarget rate: " + formatFloat(r.TargetRate, 3) + " queries per second, achieved " + formatFloat(r.QPS, 3) + " (" + kept + ")\n")
		b.WriteString("\tLatency from scheduled start (ms): " + percentileLine(r.Corrected.P50, r.Corrected.P95, r.Corrected.P99, r.Corrected.P999, r.Corrected.Max) + "\n")
	}
	b.WriteString("\tStandard deviation of iteration times: " + formatFloat(r.StdDevMillis/1000, 3) + " seconds\n")
	for _, e := range r.ErrorsByCode {
		b.WriteString("\tIgnored error " + strconv.Itoa(int(e.Code)) + ": " + strconv.FormatUint(e.Count, 10) + " times (" + e.Message + ")\n")
	}
	if r.Reconnects > 0 {
		b.WriteString("\tReconnects: " + strconv.FormatUint(r.Reconnects, 10) + "\n")
	}
	b.WriteString("\n")
	_, err := io.WriteString(w, b.String())
	return err
}

func percentileLine(p50, p95, p99, p999, max int64) string {
	return "p50 " + formatMicros(p50) + ", p95 " + formatMicros(p95) + ", p99 " + formatMicros(p99) +
		", p99.9 " + formatMicros(p999) + ", max " + formatMicros(max)
}

// WriteCSVLineLatency writes mysqlslap's CSV line with the columns of
// CSVLatencyHeader appended, in one Write call.
func WriteCSVLineLatency(w io.Writer, r *BenchmarkResult) error {
	var line strings.Builder
	if err := WriteCSVLine(&line, r); err != nil {
		return err
	}
	s := strings.TrimSuffix(line.String(), "\n") + "," +
		strconv.FormatUint(r.Executed, 10) + "," + strconv.FormatUint(r.Errors, 10) + "," + formatFloat(r.QPS, 3) + "," +
		formatMicros(r.Latency.P50) + "," + formatMicros(r.Latency.P95) + "," + formatMicros(r.Latency.P99) + "," +
		formatMicros(r.Latency.P999) + "," + formatMicros(r.Latency.Max) + "," + formatFloat(r.StdDevMillis/1000, 3) + "\n"
	_, err := io.WriteString(w, s)
	return err
}
