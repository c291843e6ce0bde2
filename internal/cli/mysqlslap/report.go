package mysqlslap

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

// OpenCSV opens the --csv destination (spec 3.1 step 2, 4.2): nil without
// --csv; stdout for a bare --csv or a value beginning with "-"; otherwise the
// file, created with mode 0660 minus the umask and appended to, never
// truncated. close is never nil. The error is mysqlslap's
// "Could not open csv file: <name>" — without the stray "n" mysqlslap
// prints after the name (a broken "\n" in its source), since nobody can
// depend on a typo that makes the message harder to read.
func OpenCSV(o *Options, stdout io.Writer) (w io.Writer, close func() error, err error) {
	noop := func() error { return nil }
	if !o.CSVSet {
		return nil, noop, nil
	}
	if o.CSV == "" || strings.HasPrefix(o.CSV, "-") {
		return stdout, noop, nil
	}
	f, err := os.OpenFile(o.CSV, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o660)
	if err != nil {
		return nil, noop, Exitf(1, "Could not open csv file: %s", o.CSV)
	}
	return f, f.Close, nil
}
