package slapreport

import (
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
)

// formatSeconds renders milliseconds as mysqlslap does: seconds, a dot and
// the milliseconds zero-padded to three digits ("0.003", "12.345").
func formatSeconds(ms int64) string {
	return fmt.Sprintf("%d.%03d", ms/1000, ms%1000)
}

// WriteBenchmark writes mysqlslap's Benchmark block for one result (spec
// 4.1), byte for byte, including the trailing empty line. The engine line
// appears only when an engine entry is active.
func WriteBenchmark(w io.Writer, r *BenchmarkResult) error {
	var b strings.Builder
	b.WriteString("Benchmark\n")
	if r.HasEngine {
		b.WriteString("\tRunning for engine " + r.Engine + "\n")
	}
	b.WriteString("\tAverage number of seconds to run all queries: " + formatSeconds(r.AvgMillis()) + " seconds\n")
	b.WriteString("\tMinimum number of seconds to run all queries: " + formatSeconds(r.MinMillis()) + " seconds\n")
	b.WriteString("\tMaximum number of seconds to run all queries: " + formatSeconds(r.MaxMillis()) + " seconds\n")
	b.WriteString("\tNumber of clients running queries: " + strconv.Itoa(r.Concurrency) + "\n")
	b.WriteString("\tAverage number of queries per client: " + strconv.FormatUint(r.QueriesPerClient, 10) + "\n")
	b.WriteString("\n")
	_, err := io.WriteString(w, b.String())
	return err
}

// WriteCSVLine writes the --csv line of one result (spec 4.2):
// engine,loadtype,avg,min,max,clients,queries-per-client. It is one Write
// call, so lines appended to a shared file by concurrent runs stay whole.
func WriteCSVLine(w io.Writer, r *BenchmarkResult) error {
	engine := ""
	if r.HasEngine {
		engine = r.Engine
	}
	line := engine + "," + r.LoadType + "," +
		formatSeconds(r.AvgMillis()) + "," + formatSeconds(r.MinMillis()) + "," + formatSeconds(r.MaxMillis()) + "," +
		strconv.Itoa(r.Concurrency) + "," + strconv.FormatUint(r.QueriesPerClient, 10) + "\n"
	_, err := io.WriteString(w, line)
	return err
}

// Write is mysqlslap's report of one result, of a run or merged from
// shards: the Benchmark block on stdout (block), the CSV line on csv (if
// not nil), each with goslap's --latency figures (latency).
func Write(stdout, csv io.Writer, res *BenchmarkResult, block, latency bool) error {
	writeBlock, writeCSV := WriteBenchmark, WriteCSVLine
	if latency {
		writeBlock, writeCSV = WriteBenchmarkLatency, WriteCSVLineLatency
	}
	if block {
		if err := writeBlock(stdout, res); err != nil {
			return fmt.Errorf("writing the report: %w", err)
		}
	}
	if csv != nil {
		if err := writeCSV(csv, res); err != nil {
			return fmt.Errorf("writing the CSV line: %w", err)
		}
	}
	return nil
}

// The mysqlslap run's names in goslap's JSON document: its front end, its
// workload, its one kind of measured unit (a statement).
const (
	FrontEnd = "mysqlslap"
	Workload = "mysqlslap"
	QueryOp  = "query"
)

// OpenCSV opens a --csv destination (spec 3.1 step 2, 4.2): nil without
// --csv (set false); stdout for a bare --csv or a value beginning with
// "-"; otherwise the file, created with mode 0660 minus the umask and
// appended to, never truncated. close is never nil. The error is
// mysqlslap's "Could not open csv file: <name>" (without goslap's prefix).
func OpenCSV(set bool, path string, stdout io.Writer) (w io.Writer, close func() error, err error) {
	noop := func() error { return nil }
	if !set {
		return nil, noop, nil
	}
	if path == "" || strings.HasPrefix(path, "-") {
		return stdout, noop, nil
	}
	f, err := os.OpenFile(path, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o660)
	if err != nil {
		return nil, noop, fmt.Errorf("Could not open csv file: %s", path)
	}
	return f, f.Close, nil
}
