package mysqlslap

import (
	"bytes"
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/goslap/goslap/internal/results/jsondoc"
	"github.com/goslap/goslap/internal/sandbox/servertest"
	"github.com/goslap/goslap/internal/workload/oltp"
	"github.com/goslap/goslap/internal/workload/tpcc"
)

// roundTrip decodes data as the document, checks that it is all of data,
// and that encoding and decoding it again gives the same document.
func roundTrip(t *testing.T, data []byte) *jsondoc.Document {
	t.Helper()
	var raw any
	if err := json.Unmarshal(data, &raw); err != nil {
		t.Fatalf("not one JSON document (%v):\n%s", err, data)
	}
	doc, err := jsondoc.Decode(bytes.NewReader(data))
	if err != nil {
		t.Fatal(err)
	}
	var again bytes.Buffer
	if err := jsondoc.Encode(&again, doc); err != nil {
		t.Fatal(err)
	}
	doc2, err := jsondoc.Decode(&again)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(doc, doc2) {
		t.Errorf("the document changed in an encode/decode round trip")
	}
	return doc
}

// checkFigures checks a workload benchmark's figures against its ops.
func checkFigures(t *testing.T, b jsondoc.Benchmark) {
	t.Helper()
	f := b.Figures
	if f == nil {
		t.Fatalf("benchmark %+v has no figures", b)
	}
	var ops uint64
	for _, op := range b.Ops {
		ops += op.Executed
		h, err := op.ServiceHistogram()
		if err != nil {
			t.Fatalf("op %s: %v", op.Name, err)
		}
		if uint64(h.TotalCount()) != op.Executed {
			t.Errorf("op %s: histogram holds %d, executed %d", op.Name, h.TotalCount(), op.Executed)
		}
	}
	switch {
	case f.Transactions == 0 || ops != f.Transactions:
		t.Errorf("transactions %d, ops executed %d", f.Transactions, ops)
	case f.Statements != f.Reads+f.Writes+f.Other || f.Reads == 0 || f.Writes == 0:
		t.Errorf("statements %d: reads %d, writes %d, other %d", f.Statements, f.Reads, f.Writes, f.Other)
	case b.Executed != f.Transactions || b.Seconds <= 0 || math.Abs(b.QPS-float64(f.Transactions)/b.Seconds) > 1e-6*b.QPS:
		t.Errorf("executed %d, seconds %g, per second %g for %d events", b.Executed, b.Seconds, b.QPS, f.Transactions)
	case len(f.StoppedBy) != len(b.Iterations) || f.StoppedBy[0] != "time":
		t.Errorf("stopped by %v over %d iterations", f.StoppedBy, len(b.Iterations))
	case f.Latency.Count != int64(f.Transactions) || f.Latency.P50 <= 0:
		t.Errorf("latency %+v for %d transactions", f.Latency, f.Transactions)
	}
}

// TestWorkloadJSON: a bare --json under --workload puts one document on
// stdout and nothing else, with every point labelled and the OLTP
// figures the server's tables and the run agree with.
func TestWorkloadJSON(t *testing.T) {
	s := servertest.Require(t)
	out := mustMain(t, s, "--workload=oltp_read_write", "--create-schema=js_oltp", "--tables=2", "--table-size=300",
		"-c", "3,4", "--run-time=2s", "--rand-type=uniform", "--json")
	doc := roundTrip(t, []byte(out))
	if doc.FrontEnd != "mysqlslap" || doc.Error != "" || doc.Seed == 0 {
		t.Errorf("front end %q, error %q, seed %d", doc.FrontEnd, doc.Error, doc.Seed)
	}
	db, err := s.OpenDB("")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	var version string
	if err := db.QueryRow("SELECT @@version").Scan(&version); err != nil {
		t.Fatal(err)
	}
	if len(doc.Targets) != 1 || doc.Targets[0].Label != "server" || doc.Targets[0].Server.Version != version ||
		doc.Targets[0].Server.Variables["innodb_buffer_pool_size"] == "" {
		t.Errorf("targets %+v, want the one server, version %s", doc.Targets, version)
	}
	for name, want := range map[string]any{"workload": "oltp_read_write", "tables": "2", "table-size": "300",
		"rand-type": "uniform", "concurrency": "3,4", "run-time": "2s", "json": "-", "trx": true} {
		if got := doc.Options[name]; got != want {
			t.Errorf("option %s = %#v, want %#v", name, got, want)
		}
	}
	for _, hidden := range []string{"password", "oltp-table-size", "skip-trx"} {
		if _, ok := doc.Options[hidden]; ok {
			t.Errorf("option %s recorded", hidden)
		}
	}
	if len(doc.Benchmarks) != 2 {
		t.Fatalf("%d benchmarks, want 2 (concurrency 3 and 4)", len(doc.Benchmarks))
	}
	for i, b := range doc.Benchmarks {
		if b.Target != "server" || b.Workload != "oltp_read_write" || b.CompareMetric != "tps" || b.Concurrency != 3+i || len(b.Iterations) != 1 {
			t.Errorf("benchmark %d: target %q, workload %q (compares %q), concurrency %d, %d iterations", i, b.Target, b.Workload, b.CompareMetric, b.Concurrency, len(b.Iterations))
		}
		var got oltp.Section
		has, err := b.Section(oltp.SectionName, &got)
		if want := (oltp.Section{Dialect: "1.0", Distribution: "uniform", Tables: 2, TableSize: 300}); !has || err != nil || got != want {
			t.Errorf("benchmark %d: oltp %+v (%v), want %+v", i, got, err, want)
		}
		checkFigures(t, b)
	}
	if tables := schemaTables(t, s, "js_oltp"); len(tables) != 0 {
		t.Errorf("tables left behind: %v", tables)
	}
}

// TestWorkloadJSONTPCC: --json=FILE with --workload=tpcc carries tpcc-mysql's
// counts and tpmC, which agree with the per-transaction ops and the window;
// stdout keeps the text report with its <TpmC> section.
func TestWorkloadJSONTPCC(t *testing.T) {
	s := servertest.Require(t)
	file := filepath.Join(t.TempDir(), "tpcc.json")
	out := mustMain(t, s, "--workload=tpcc", "--create-schema=js_tpcc", "--warehouses=1", "--skip-tpcc-foreign-keys",
		"-c", "3", "--run-time=3s", "--report-interval=1", "--json="+file)
	if n := len(regexp.MustCompile(`(?m)^ +[123], trx: [1-9][0-9]*, 95%: [0-9.]+, 99%: [0-9.]+, max_rt: [0-9.]+(, [0-9]+\|[0-9.]+){4}$`).FindAllString(out, -1)); n < 2 {
		t.Errorf("%d tpcc-mysql interval lines, want 2 or 3:\n%s", n, out)
	}
	if !strings.Contains(out, "<TpmC>") || !strings.Contains(out, "Benchmark\n") {
		t.Errorf("stdout lacks the Benchmark block or the <TpmC> section:\n%s", out)
	}
	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	doc := roundTrip(t, data)
	if len(doc.Benchmarks) != 1 {
		t.Fatalf("%d benchmarks, want 1", len(doc.Benchmarks))
	}
	b := doc.Benchmarks[0]
	checkFigures(t, b)
	if doc.Options["warehouses"] != float64(1) || doc.Options["tpcc-foreign-keys"] != false {
		t.Errorf("options warehouses %#v, tpcc-foreign-keys %#v", doc.Options["warehouses"], doc.Options["tpcc-foreign-keys"])
	}
	var section tpcc.Section
	has, err := b.Section(tpcc.SectionName, &section)
	tp := &section
	if !has || err != nil || tp.Warehouses != 1 || len(tp.Transactions) != 5 || len(b.Ops) != 5 {
		t.Fatalf("tpcc %+v, %d ops", tp, len(b.Ops))
	}
	for i, tx := range tp.Transactions {
		if tx.Name != b.Ops[i].Name || tx.OnTime+tx.Late != b.Ops[i].Executed || tx.Latency.Count != int64(b.Ops[i].Executed) {
			t.Errorf("transaction %+v against op %s executed %d", tx, b.Ops[i].Name, b.Ops[i].Executed)
		}
	}
	if math.Abs(tp.WindowSeconds-b.Seconds) > 1e-6 {
		t.Errorf("window %g s, measured %g s", tp.WindowSeconds, b.Seconds)
	}
	newOrders := float64(tp.Transactions[0].OnTime + tp.Transactions[0].Late)
	if want := newOrders * 60 / tp.WindowSeconds; tp.TpmC <= 0 || math.Abs(tp.TpmC-want) > 1e-6*want {
		t.Errorf("tpmC %g, want %g from %g New-Orders in %g s", tp.TpmC, want, newOrders, tp.WindowSeconds)
	}
}

// TestWorkloadReportInterval: --report-interval prints sysbench's interval
// line during an OLTP run, on stdout, or on stderr when stdout carries a
// bare --json document.
func TestWorkloadReportInterval(t *testing.T) {
	s := servertest.Require(t)
	// The 1 s and 2 s lines; a busy machine may add a tick while the
	// last events finish, past the 2.5 s.
	line := regexp.MustCompile(`(?m)^\[ [12]s \] thds: 3 tps: [0-9.]+ qps: [0-9.]+ \(r/w/o: [0-9.]+/0\.00/0\.00\) lat \(ms,95%\): [0-9.]+ err/s: 0\.00 reconn/s: 0\.00$`)
	common := []string{"--workload=oltp_point_select", "--create-schema=ri_oltp", "--table-size=200", "-c", "3", "--run-time=2500ms", "--report-interval=1"}
	out := mustMain(t, s, common...)
	if n := len(line.FindAllString(out, -1)); n != 2 {
		t.Errorf("%d interval lines, want 2:\n%s", n, out)
	}
	code, out, errOut := runMain(t, s, append(common, "--json")...)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	roundTrip(t, []byte(out))
	if n := len(line.FindAllString(errOut, -1)); n != 2 {
		t.Errorf("%d interval lines on stderr, want 2:\n%s", n, errOut)
	}
}

func TestParseInterval(t *testing.T) {
	for _, c := range []struct {
		in   string
		want time.Duration
		bad  bool
	}{
		{"", 0, false}, {"0", 0, false}, {"10", 10 * time.Second, false}, {"500ms", 500 * time.Millisecond, false},
		{"1ms", 0, true}, {"-1", 0, true}, {"abc", 0, true}, {"-2s", 0, true},
	} {
		got, err := parseInterval(c.in)
		if (err != nil) != c.bad || got != c.want {
			t.Errorf("parseInterval(%q) = %v, %v", c.in, got, err)
		}
	}
}
