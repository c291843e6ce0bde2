package merge

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"

	"github.com/goslap/goslap/internal/results/jsondoc"
)

// Usage is `goslap merge`'s synopsis.
const Usage = "Usage: goslap merge [--allow-partial] [--json=FILE] SHARD.json...\n" +
	"Merges the --json documents of the shards of one run (--shard=I/N) into one report.\n" +
	"  --allow-partial  report the shards there are (flagged partial) when some are missing or repeated\n" +
	"  --json=FILE      also write the merged document (- for stdout, instead of the report)\n"

// Main is `goslap merge ARGS`: it returns the exit status.
func Main(args []string, stdout, stderr io.Writer) int {
	fail := func(format string, a ...any) int {
		fmt.Fprintf(stderr, "goslap: "+format+"\n", a...)
		return 1
	}
	var files []string
	allowPartial, jsonOut := false, ""
	for i := 0; i < len(args); i++ {
		a := args[i]
		switch {
		case a == "--help" || a == "-?":
			io.WriteString(stdout, Usage)
			return 0
		case a == "--allow-partial":
			allowPartial = true
		case a == "--skip-allow-partial":
			allowPartial = false
		case a == "--json" && i+1 < len(args):
			i++
			jsonOut = args[i]
		case strings.HasPrefix(a, "--json="):
			jsonOut = strings.TrimPrefix(a, "--json=")
		case a == "--":
			files = append(files, args[i+1:]...)
			i = len(args)
		case strings.HasPrefix(a, "-") && a != "-":
			return fail("merge: unknown option '%s'\n%s", a, strings.TrimSuffix(Usage, "\n"))
		default:
			files = append(files, a)
		}
	}
	if len(files) == 0 {
		return fail("merge: no shard documents given\n%s", strings.TrimSuffix(Usage, "\n"))
	}
	var in []Input
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			return fail("merge: %v", err)
		}
		for k, part := range Documents(data) {
			name := f
			if k > 0 {
				name = fmt.Sprintf("%s (document %d)", f, k+1)
			}
			d, err := jsondoc.Decode(bytes.NewReader(part))
			if err != nil {
				return fail("merge: %s: %v", name, err)
			}
			in = append(in, Input{Name: name, Doc: d})
		}
	}
	res, err := Merge(in, allowPartial)
	if err != nil {
		return fail("merge: %v", err)
	}
	for _, w := range res.Warnings {
		fmt.Fprintf(stderr, "goslap: warning: %s\n", w)
	}
	if jsonOut != "" {
		var buf bytes.Buffer
		if err := jsondoc.Encode(&buf, res.Doc); err != nil {
			return fail("merge: writing the merged document: %v", err)
		}
		if jsonOut == "-" {
			_, err = stdout.Write(buf.Bytes())
			if err != nil {
				return fail("merge: writing the merged document: %v", err)
			}
			return 0
		}
		if err := os.WriteFile(jsonOut, buf.Bytes(), 0o666); err != nil {
			return fail("merge: writing the merged document: %v", err)
		}
	}
	if err := WriteReport(stdout, res.Doc); err != nil {
		return fail("merge: %v", err)
	}
	if res.Doc.Error != "" {
		return fail("%s", res.Doc.Error)
	}
	return 0
}

// WriteReport writes the merged document as a run's report: mysqlslap's
// Benchmark block for each benchmark (the mysqlslap front end's own
// reporter works on its live results, not on a document, so the block is
// rendered here from the document's figures, in the same layout), then
// one line per op with the merged latency percentiles, and the shards'
// start skew.
func WriteReport(w io.Writer, d *jsondoc.Document) error {
	var b strings.Builder
	sec := func(ms int64) string { return fmt.Sprintf("%d.%03d", ms/1000, ms%1000) }
	for i, bm := range d.Benchmarks {
		b.WriteString("Benchmark\n")
		if bm.Engine != "" {
			b.WriteString("\tRunning for engine " + bm.Engine + "\n")
		}
		b.WriteString("\tAverage number of seconds to run all queries: " + sec(bm.AvgMillis) + " seconds\n")
		b.WriteString("\tMinimum number of seconds to run all queries: " + sec(bm.MinMillis) + " seconds\n")
		b.WriteString("\tMaximum number of seconds to run all queries: " + sec(bm.MaxMillis) + " seconds\n")
		b.WriteString("\tNumber of clients running queries: " + strconv.Itoa(bm.Concurrency) + "\n")
		b.WriteString("\tAverage number of queries per client: " + strconv.FormatUint(bm.QueriesPerClient, 10) + "\n")
		b.WriteString("\n")
		unit := "queries"
		if bm.Workload != "mysqlslap" {
			unit = "events"
		}
		fmt.Fprintf(&b, "\t%s: %d %s in %.3f s (%.2f per second), %d errors, %d reconnects\n",
			bm.Workload, bm.Executed, unit, bm.Seconds, bm.QPS, bm.Errors, bm.Reconnects)
		for _, op := range bm.Ops {
			l := op.Latency
			fmt.Fprintf(&b, "\t%s latency (ms): min %.3f  avg %.3f  p50 %.3f  p95 %.3f  p99 %.3f  max %.3f\n",
				op.Name, ms(l.Min), l.Mean/1000, ms(l.P50), ms(l.P95), ms(l.P99), ms(l.Max))
		}
		if m := d.Merged; m != nil && i < len(m.StartSkewMicros) {
			var parts []string
			for _, s := range m.StartSkewMicros[i] {
				parts = append(parts, fmt.Sprintf("%.3f", float64(s)/1000))
			}
			fmt.Fprintf(&b, "\tshards %d of %d (run %s), start skew per iteration (ms): %s\n", len(m.Shards), m.Count, m.RunID, strings.Join(parts, " "))
			if m.Partial {
				fmt.Fprintf(&b, "\tPARTIAL: shards %v missing\n", m.Missing)
			}
		}
		b.WriteString("\n")
	}
	if len(d.Benchmarks) == 0 {
		return errors.New("the documents hold no benchmark")
	}
	_, err := io.WriteString(w, b.String())
	return err
}

func ms(us int64) float64 { return float64(us) / 1000 }

// Markers a shard prints around its document on stdout (--json=-), so
// that documents can be cut out of logs (kubectl logs of every pod).
const (
	DocBegin = "----- goslap shard document begin -----"
	DocEnd   = "----- goslap shard document end -----"
)

// Documents returns the documents between markers in data, or data itself
// when it has no marker.
func Documents(data []byte) [][]byte {
	if !bytes.Contains(data, []byte(DocBegin)) {
		return [][]byte{data}
	}
	var out [][]byte
	for {
		i := bytes.Index(data, []byte(DocBegin))
		if i < 0 {
			return out
		}
		data = data[i+len(DocBegin):]
		j := bytes.Index(data, []byte(DocEnd))
		if j < 0 {
			return append(out, data) // cut short: Decode says so
		}
		out = append(out, data[:j])
		data = data[j+len(DocEnd):]
	}
}
