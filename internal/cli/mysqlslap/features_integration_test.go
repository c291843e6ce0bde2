package mysqlslap

import (
	"bytes"
	"context"
	"database/sql"
	"encoding/json"
	"io"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/goslap/goslap/internal/results/jsondoc"
	"github.com/goslap/goslap/internal/sandbox/servertest"
)

// withTable gives a run its own schema with one table t, so workers have a
// database to connect to.
func withTable(o *Options, table string) {
	o.Create, o.CreateSet = table, true
}

func within(got, want, frac float64) bool { return math.Abs(got-want) <= want*frac }

func TestRunTimeHonoured(t *testing.T) {
	s := servertest.Require(t)
	t.Parallel()
	o := slapOptions(t, s)
	withTable(o, "CREATE TABLE t (id INT)")
	o.Query, o.QuerySet = "SELECT 1", true
	o.Concurrency = "2"
	o.Iterations = 2
	o.Ext.RunTime = time.Second
	o.Ext.Latency = true
	r := mustRun(t, o)
	res := r.results[0]
	for _, ms := range res.IterationMillis {
		if !within(float64(ms), 1000, 0.05) {
			t.Errorf("iteration took %d ms, want 1000 ±5%%", ms)
		}
	}
	if res.Executed == 0 || res.QPS <= 0 || res.Latency.P99 <= 0 || res.P99Micros() != res.Latency.P99 {
		t.Errorf("measurements %+v", res.Measurements)
	}
	if res.QueriesPerClient != res.Executed/2/2 {
		t.Errorf("queries per client %d, executed %d", res.QueriesPerClient, res.Executed)
	}
	if !strings.Contains(r.stdout.String(), "\tLatency per query (ms): p50 ") {
		t.Errorf("no latency lines:\n%s", r.stdout.String())
	}
}

// TestWarmupExcluded: warm-up queries run (rows exist) but are in no figure.
func TestWarmupExcluded(t *testing.T) {
	s := servertest.Require(t)
	t.Parallel()
	db := rootDB(t, s)
	for _, timeBound := range []bool{true, false} {
		o := slapOptions(t, s)
		withTable(o, "CREATE TABLE t (id INT AUTO_INCREMENT PRIMARY KEY, v INT)")
		o.Query, o.QuerySet = "INSERT INTO t (v) VALUES (1)", true
		o.NoDrop = true
		dropAfter(t, db, o.CreateSchema)
		o.Ext.WarmupTime = 300 * time.Millisecond
		if timeBound {
			o.Ext.RunTime = 300 * time.Millisecond
		} else {
			o.NumberOfQueries = 50
		}
		r := mustRun(t, o)
		res := r.results[0]
		rows := uint64(countRows(t, db, "`"+o.CreateSchema+"`.t"))
		if res.Executed == 0 || rows <= res.Executed {
			t.Errorf("time-bound %v: executed %d, rows %d: warm-up not run or not excluded", timeBound, res.Executed, rows)
		}
		if !timeBound && res.Executed != 50 {
			t.Errorf("count-bound: executed %d, want 50 after the warm-up", res.Executed)
		}
		if timeBound && !within(float64(res.IterationMillis[0]), 300, 0.1) {
			t.Errorf("iteration %d ms includes the warm-up", res.IterationMillis[0])
		}
		if r.elapsed < 600*time.Millisecond && timeBound {
			t.Errorf("run took %v, less than warm-up + run time", r.elapsed)
		}
	}
}

func TestRateHeld(t *testing.T) {
	s := servertest.Require(t)
	t.Parallel()
	o := slapOptions(t, s)
	withTable(o, "CREATE TABLE t (id INT)")
	o.Query, o.QuerySet = "SELECT 1", true
	o.Concurrency = "2"
	o.Ext.RunTime = 1500 * time.Millisecond
	o.Ext.Rate = 200
	r := mustRun(t, o)
	res := r.results[0]
	if !within(res.QPS, 200, 0.05) || !res.RateKept || !res.Paced {
		t.Errorf("rate 200: achieved %.1f q/s (kept %v), executed %d", res.QPS, res.RateKept, res.Executed)
	}
	if res.Corrected.Count != res.Latency.Count || res.Corrected.P50 < res.Latency.P50 {
		t.Errorf("corrected %+v vs service %+v", res.Corrected, res.Latency)
	}
	if strings.Contains(r.stderr.String(), "could not keep") {
		t.Errorf("warning for a feasible rate: %s", r.stderr.String())
	}
}

// TestRateStalled: a rate the server cannot serve is reported, and the
// time from the scheduled start shows the queueing the service time hides.
func TestRateStalled(t *testing.T) {
	s := servertest.Require(t)
	t.Parallel()
	o := slapOptions(t, s)
	withTable(o, "CREATE TABLE t (id INT)")
	o.Query, o.QuerySet = "SELECT SLEEP(0.02)", true
	o.Ext.RunTime = time.Second
	o.Ext.Rate = 200 // one client can do ~50/s
	r := mustRun(t, o)
	res := r.results[0]
	if res.RateKept || !strings.Contains(r.stderr.String(), "could not keep --rate=200") {
		t.Errorf("kept %v, stderr %q", res.RateKept, r.stderr.String())
	}
	// At 200/s against at most 50/s the schedule is ~150 queries (≥ 0.5 s)
	// behind by the end of the second, whatever the machine's load does to
	// the service time (a loaded box stretched SLEEP(0.02)'s p99 to 82 ms,
	// so a multiple of it alone is not a fixed bar).
	if res.Corrected.P99 < 250_000 || res.Corrected.P99 < 3*res.Latency.P99 {
		t.Errorf("corrected p99 %d µs: want ≥ 250000 µs and ≥ 3× the service p99 %d µs", res.Corrected.P99, res.Latency.P99)
	}
}

func TestIgnoreErrorsDroppedTable(t *testing.T) {
	s := servertest.Require(t)
	t.Parallel()
	db := rootDB(t, s)
	o := slapOptions(t, s)
	withTable(o, "CREATE TABLE t (id INT)")
	o.Query, o.QuerySet = "SELECT * FROM t", true
	o.Concurrency = "2"
	o.Ext.RunTime = 1200 * time.Millisecond
	o.Ext.setIgnoreErrors("1146")
	go func() {
		time.Sleep(500 * time.Millisecond)
		db.Exec("DROP TABLE `" + o.CreateSchema + "`.t")
	}()
	r := mustRun(t, o)
	res := r.results[0]
	if res.Executed == 0 || res.Errors == 0 || len(res.ErrorsByCode) != 1 || res.ErrorsByCode[0].Code != 1146 {
		t.Errorf("executed %d, errors %+v", res.Executed, res.ErrorsByCode)
	}
	if !strings.Contains(r.stderr.String(), "ignored error 1146") {
		t.Errorf("stderr %q", r.stderr.String())
	}

	// Without the option the first error still ends the run.
	o = slapOptions(t, s)
	withTable(o, "CREATE TABLE t (id INT)")
	o.Query, o.QuerySet = "SELECT * FROM t", true
	o.Ext.RunTime = 1200 * time.Millisecond
	go func() {
		time.Sleep(300 * time.Millisecond)
		db.Exec("DROP TABLE `" + o.CreateSchema + "`.t")
	}()
	r = runSlap(t, context.Background(), o)
	wantExitError(t, r.err, 1, `Cannot run query SELECT \* FROM t ERROR : 1146 `)
}

func TestIgnoreErrorsKilledConnection(t *testing.T) {
	s := servertest.Require(t)
	t.Parallel()
	db := rootDB(t, s)
	o := slapOptions(t, s)
	withTable(o, "CREATE TABLE t (id INT)")
	o.Query, o.QuerySet = "SELECT SLEEP(0.01)", true
	o.Concurrency = "2"
	o.Ext.RunTime = 1500 * time.Millisecond
	o.Ext.setIgnoreErrors("2013,1927")
	killed := make(chan int, 1)
	go func() { killed <- killWorkers(db, o.CreateSchema, "SELECT SLEEP(0.01)", 400*time.Millisecond) }()
	r := mustRun(t, o)
	n := <-killed
	res := r.results[0]
	if n == 0 {
		t.Fatal("no worker connection was found to kill")
	}
	if res.Reconnects == 0 || res.Errors == 0 || res.Executed == 0 {
		t.Errorf("killed %d: reconnects %d, errors %+v, executed %d", n, res.Reconnects, res.ErrorsByCode, res.Executed)
	}
}

// killWorkers waits, then KILLs the connections running stmt in schema.
func killWorkers(db *sql.DB, schema, stmt string, after time.Duration) int {
	time.Sleep(after)
	deadline := time.Now().Add(500 * time.Millisecond)
	for time.Now().Before(deadline) {
		rows, err := db.Query("SELECT ID FROM information_schema.PROCESSLIST WHERE DB = ? AND INFO = ?", schema, stmt)
		if err != nil {
			return 0
		}
		var ids []int64
		for rows.Next() {
			var id int64
			rows.Scan(&id)
			ids = append(ids, id)
		}
		rows.Close()
		killed := 0
		for _, id := range ids {
			if _, err := db.Exec("KILL ?", id); err == nil {
				killed++
			}
		}
		if killed > 0 {
			return killed
		}
		time.Sleep(5 * time.Millisecond)
	}
	return 0
}

func TestExactCount(t *testing.T) {
	s := servertest.Require(t)
	t.Parallel()
	db := rootDB(t, s)
	for _, exact := range []bool{false, true} {
		o := slapOptions(t, s)
		withTable(o, "CREATE TABLE t (id INT AUTO_INCREMENT PRIMARY KEY)")
		o.Query, o.QuerySet = "INSERT INTO t VALUES ()", true
		o.NoDrop = true
		dropAfter(t, db, o.CreateSchema)
		o.Concurrency = "3"
		o.NumberOfQueries = 10
		o.Ext.ExactCount = exact
		r := mustRun(t, o)
		want := uint64(9)
		if exact {
			want = 10
		}
		rows := countRows(t, db, "`"+o.CreateSchema+"`.t")
		if r.results[0].Executed != want || rows != int(want) {
			t.Errorf("exact %v: executed %d, rows %d, want %d", exact, r.results[0].Executed, rows, want)
		}
		if r.results[0].QueriesPerClient != 3 {
			t.Errorf("queries per client %d (mysqlslap's floor stays)", r.results[0].QueriesPerClient)
		}
	}
}

// TestJSONFile checks the document's schema against a real run.
func TestJSONFile(t *testing.T) {
	s := servertest.Require(t)
	t.Parallel()
	path := filepath.Join(t.TempDir(), "run.json")
	code, stdout, stderr := runMain(t, s, "-a", "-c", "1,2", "-i", "2", "--create-schema="+slapOptions(t, s).CreateSchema,
		"--json="+path)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	if !strings.HasPrefix(stdout, "Benchmark\n") {
		t.Errorf("--json=FILE changed stdout: %q", stdout)
	}
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var raw map[string]any
	if err := json.Unmarshal(data, &raw); err != nil {
		t.Fatalf("invalid JSON: %v", err)
	}
	for _, k := range []string{"schema", "schema_version", "goslap_version", "front_end", "started_at", "finished_at", "seed", "options", "targets", "benchmarks"} {
		if _, ok := raw[k]; !ok {
			t.Errorf("key %q missing", k)
		}
	}
	if _, ok := raw["options"].(map[string]any)["password"]; ok {
		t.Error("password in options")
	}
	doc, err := jsondoc.Decode(bytes.NewReader(data))
	if err != nil {
		t.Fatal(err)
	}
	if len(doc.Targets) != 1 || doc.Targets[0].Label != "localhost" || doc.Targets[0].Kind != "server" {
		t.Fatalf("targets %+v", doc.Targets)
	}
	server := doc.Targets[0].Server
	if server == nil || server.Version == "" || server.Variables["innodb_buffer_pool_size"] == "" ||
		server.Variables["max_connections"] == "" || server.Variables["default_storage_engine"] == "" {
		t.Errorf("server %+v", server)
	}
	if doc.Options["concurrency"] != "1,2" || doc.Options["iterations"] != 2.0 {
		t.Errorf("options concurrency %v iterations %v", doc.Options["concurrency"], doc.Options["iterations"])
	}
	if len(doc.Benchmarks) != 2 {
		t.Fatalf("%d benchmarks", len(doc.Benchmarks))
	}
	last := doc.StartedAt
	for i, b := range doc.Benchmarks {
		if b.Target != "localhost" || b.Concurrency != i+1 || len(b.Iterations) != 2 || b.Executed == 0 || b.QPS <= 0 ||
			len(b.Ops) != 1 || b.Ops[0].Name != "query" || b.Ops[0].Latency.P50 == 0 {
			t.Errorf("benchmark %d: %+v", i, b)
		}
		for j, it := range b.Iterations {
			// Absolute bounds, in order, agreeing with mysqlslap's milliseconds.
			if it.Start.Before(last) || it.End.Before(it.Start) || it.End.After(doc.FinishedAt) ||
				abs(it.End.Sub(it.Start)-time.Duration(it.Millis)*time.Millisecond) > time.Millisecond {
				t.Errorf("benchmark %d iteration %d: %+v (after %v)", i, j, it, last)
			}
			last = it.End
		}
		h, err := b.Ops[0].ServiceHistogram()
		if err != nil || uint64(h.TotalCount()) != b.Executed {
			t.Errorf("benchmark %d histogram: %v, %d values for %d executed", i, err, h.TotalCount(), b.Executed)
		}
	}
}

func abs(d time.Duration) time.Duration { return max(d, -d) }

// TestJSONStdout: a bare --json is the only thing on stdout, also when
// it compares targets: one document holding every target (no Target:
// lines, no table); --json=FILE holds every target too.
func TestJSONStdout(t *testing.T) {
	s := servertest.Require(t)
	t.Parallel()
	schema := "--create-schema=" + slapOptions(t, s).CreateSchema
	path := filepath.Join(t.TempDir(), "run.json")
	for _, c := range []struct {
		name string
		args []string
		file string
	}{
		{"plain", []string{"--json"}, ""},
		{"two targets", []string{"--target=first:server", "--target=second:server", "--json"}, ""},
		{"two targets to a file", []string{"--target=first:server", "--target=second:server", "--json=" + path}, path},
	} {
		code, stdout, stderr := runMain(t, s, append([]string{"-a", "-c", "1,2", schema}, c.args...)...)
		if code != 0 {
			t.Fatalf("%s: exit %d: %s", c.name, code, stderr)
		}
		data := []byte(stdout)
		if c.file != "" {
			if !strings.Contains(stdout, "Target: second\n") || !strings.Contains(stdout, "first") {
				t.Errorf("%s: stdout lacks the targets' reports:\n%s", c.name, stdout)
			}
			var err error
			if data, err = os.ReadFile(c.file); err != nil {
				t.Fatal(err)
			}
		}
		dec := json.NewDecoder(bytes.NewReader(data))
		var doc jsondoc.Document
		if err := dec.Decode(&doc); err != nil || dec.More() {
			t.Fatalf("%s: not one JSON document (%v, more %v):\n%s", c.name, err, dec.More(), data)
		}
		want := []string{"localhost"}
		if len(c.args) > 1 {
			want = []string{"first", "second"}
		}
		var got []string
		for _, tg := range doc.Targets {
			got = append(got, tg.Label)
		}
		if !reflect.DeepEqual(got, want) || len(doc.Benchmarks) != 2*len(want) {
			t.Errorf("%s: targets %v, %d benchmarks; want %v", c.name, got, len(doc.Benchmarks), want)
		}
		for i, b := range doc.Benchmarks {
			if b.Target != want[i/2] || b.Concurrency != i%2+1 {
				t.Errorf("%s: benchmark %d is target %q concurrency %d", c.name, i, b.Target, b.Concurrency)
			}
		}
	}
}

func TestTemplatesReproducible(t *testing.T) {
	s := servertest.Require(t)
	t.Parallel()
	db := rootDB(t, s)
	contents := func(seed uint64) []string {
		o := slapOptions(t, s)
		withTable(o, "CREATE TABLE c (name VARCHAR(100), email VARCHAR(200), n INT, q VARCHAR(10))")
		o.Query, o.QuerySet = `INSERT INTO c VALUES ('{name}', '{email}', {number:1,1000}, '{regex:[a'\\]{6}}')`, true
		o.NoDrop = true
		o.NumberOfQueries = 20
		o.Concurrency = "2"
		o.Ext.Templates, o.Ext.Seed, o.Ext.SeedSet = true, seed, true
		dropAfter(t, db, o.CreateSchema)
		mustRun(t, o)
		rows, err := db.Query("SELECT CONCAT_WS('|', name, email, n, q) FROM `" + o.CreateSchema + "`.c ORDER BY 1")
		if err != nil {
			t.Fatal(err)
		}
		defer rows.Close()
		var out []string
		for rows.Next() {
			var s string
			rows.Scan(&s)
			out = append(out, s)
		}
		return out
	}
	a, b, c := contents(7), contents(7), contents(8)
	if len(a) != 20 || strings.Join(a, "\n") != strings.Join(b, "\n") {
		t.Errorf("same seed, different rows:\n%v\n%v", a, b)
	}
	if strings.Join(a, "\n") == strings.Join(c, "\n") {
		t.Error("different seeds, same rows")
	}
	distinct := map[string]bool{}
	quoted := false
	for _, row := range a {
		distinct[row] = true
		quoted = quoted || strings.ContainsAny(strings.Split(row, "|")[3], `'\`)
	}
	if len(distinct) < 19 || !quoted {
		t.Errorf("values not fresh or quotes not kept: %v", a)
	}
}

// TestTemplatesOnlyPrint: --only-print shows the statements a real run
// with the same --seed sends.
func TestTemplatesOnlyPrint(t *testing.T) {
	s := servertest.Require(t)
	t.Parallel()
	db := rootDB(t, s)
	opts := func() *Options {
		o := slapOptions(t, s)
		withTable(o, "CREATE TABLE c (u VARCHAR(40), n INT)")
		o.Query, o.QuerySet = "INSERT INTO c VALUES ('{uuid}', {number:1,9})", true
		o.NumberOfQueries = 4
		o.Concurrency = "2"
		o.Ext.Templates, o.Ext.Seed, o.Ext.SeedSet = true, 9, true
		return o
	}
	o := opts()
	o.OnlyPrint = true
	c, err := Validate(o, Env{Stdout: io.Discard})
	if err != nil {
		t.Fatal(err)
	}
	var printed strings.Builder
	if err := OnlyPrint(&printed, &strings.Builder{}, c); err != nil {
		t.Fatal(err)
	}
	var want []string
	for _, line := range strings.Split(printed.String(), "\n") {
		if strings.HasPrefix(line, "INSERT INTO c VALUES ('") {
			want = append(want, strings.TrimSuffix(strings.TrimPrefix(line, "INSERT INTO c VALUES ('"), ");"))
		}
	}
	o = opts()
	o.NoDrop = true
	dropAfter(t, db, o.CreateSchema)
	mustRun(t, o)
	rows, err := db.Query("SELECT CONCAT(u, '', ', ', n) FROM `" + o.CreateSchema + "`.c")
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	got := map[string]bool{}
	for rows.Next() {
		var v string
		rows.Scan(&v)
		got[v] = true
	}
	if len(want) != 4 || len(got) != 4 {
		t.Fatalf("printed %v, inserted %v", want, got)
	}
	for _, w := range want {
		if !got[strings.Replace(w, "'", "", 1)] {
			t.Errorf("printed %q was not sent (sent %v)", w, got)
		}
	}
}

// TestOrdersExample runs examples/orders-* briefly.
func TestOrdersExample(t *testing.T) {
	s := servertest.Require(t)
	t.Parallel()
	o := slapOptions(t, s)
	o.Create, o.CreateSet = "../../../examples/orders-create.sql", true
	o.Query, o.QuerySet = "../../../examples/orders-queries.sql", true
	o.Concurrency = "2"
	o.Ext.Templates, o.Ext.Seed, o.Ext.SeedSet = true, 42, true
	o.Ext.RunTime = 400 * time.Millisecond
	o.Ext.Latency = true
	r := mustRun(t, o)
	if res := r.results[0]; res.Executed < 8 || res.Errors != 0 {
		t.Errorf("orders example: %+v\n%s", res.Measurements, r.stderr.String())
	}
}
