package jsondoc

import (
	"bytes"
	"encoding/json"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/goslap/goslap/internal/latency"
)

// fullDocument sets every field, so that a field the encoder or decoder
// drops shows up in the round trip.
func fullDocument(t *testing.T) *Document {
	t.Helper()
	h := latency.NewHistogram()
	for _, v := range []int64{100, 250, 250, 900, 12000} {
		if err := h.RecordValue(v); err != nil {
			t.Fatal(err)
		}
	}
	enc, err := latency.Encode(h)
	if err != nil {
		t.Fatal(err)
	}
	start := time.Date(2026, 1, 2, 3, 4, 5, 123456789, time.UTC)
	d := New("mysqlslap", "0.1.0", start, 42)
	d.FinishedAt = start.Add(3 * time.Second)
	d.Shard = &Shard{Index: 1, Count: 3}
	// Numbers decode as float64 into map[string]any; lists as []any.
	d.Options = map[string]any{"concurrency": "1,4", "iterations": 2.0, "silent": false,
		"json": nil, "target": []any{"a:server", "b:sandbox"}, "run-time": "1m30s"}
	d.Targets = []Target{
		{Label: "a", Kind: "server", Description: "server 127.0.0.1:3306",
			Server: &Server{Version: "10.11.6-MariaDB", VersionComment: "Debian", Variables: map[string]string{"max_connections": "151"}}},
		{Label: "b", Kind: "sandbox", Description: "sandbox: mariadbd 10.11", Server: &Server{Variables: map[string]string{}, Error: "not connected"}},
	}
	errs := []latency.ErrorCount{{Code: 1146, Count: 2, Message: "Table 'goslap.t' doesn't exist"}}
	pct := latency.Figures(h)
	d.Benchmarks = []Benchmark{{
		Target: "a", Workload: "mysqlslap", Engine: "innodb", LoadType: "mixed", Concurrency: 4, QueriesPerClient: 500,
		Iterations: []Iteration{{Start: start, End: start.Add(1010 * time.Millisecond), Millis: 1010}},
		AvgMillis:  1010, MinMillis: 1010, MaxMillis: 1010, StdDevMillis: 0.5,
		Executed: 5, Errors: 2, ErrorsByCode: errs, Reconnects: 1, Seconds: 1.01, QPS: 4.95,
		Ops: []Op{{Name: "query", Executed: 5, Errors: 2, ErrorsByCode: errs, Reconnects: 1, Latency: pct, Histogram: enc,
			FromSchedule: &Scheduled{Latency: pct, Histogram: enc}}},
		Rate: &Rate{Target: 100, Achieved: 99.5, Kept: true, MaxLagMicro: 1200},
	}}
	d.Error = "goslap: interrupted"
	return d
}

func TestRoundTrip(t *testing.T) {
	want := fullDocument(t)
	var b bytes.Buffer
	if err := Encode(&b, want); err != nil {
		t.Fatal(err)
	}
	if !bytes.HasSuffix(b.Bytes(), []byte("}\n")) {
		t.Errorf("document does not end in a newline")
	}
	got, err := Decode(bytes.NewReader(b.Bytes()))
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got, want) {
		g, _ := json.Marshal(got)
		w, _ := json.Marshal(want)
		t.Errorf("round trip changed the document:\n got %s\nwant %s", g, w)
	}
	h, err := got.Benchmarks[0].Ops[0].ServiceHistogram()
	if err != nil || h.TotalCount() != 5 || h.Max() < 12000 {
		t.Errorf("histogram after the round trip: %v, %d values", err, h.TotalCount())
	}
}

// TestUnsetShardIsOmitted: an invocation that ran alone writes no shard,
// and one that was a shard always writes index and count (index 0 too).
func TestUnsetShardIsOmitted(t *testing.T) {
	d := fullDocument(t)
	for _, c := range []struct {
		shard *Shard
		want  string
	}{{nil, ""}, {&Shard{Index: 0, Count: 2}, `"shard":{"index":0,"count":2,"run_id":`}} {
		d.Shard = c.shard
		data, err := json.Marshal(d)
		if err != nil {
			t.Fatal(err)
		}
		if c.want == "" && bytes.Contains(data, []byte(`"shard"`)) || c.want != "" && !bytes.Contains(data, []byte(c.want)) {
			t.Errorf("shard %+v: %s", c.shard, data)
		}
	}
}

func TestDecodeRefuses(t *testing.T) {
	for _, c := range []struct {
		name, doc, want string
	}{
		{"version 1", `{"schema":"goslap-result","schema_version":1,"benchmarks":[]}`, "schema version 1: this goslap reads version 2"},
		{"later version", `{"schema":"goslap-result","schema_version":3}`, "schema version 3"},
		{"other schema", `{"schema":"k6-summary","schema_version":2}`, `not a goslap result document (schema "k6-summary"`},
		{"not JSON", `Benchmark`, "reading the result document"},
		{"wrong type", `{"schema":"goslap-result","schema_version":2,"benchmarks":{}}`, "reading the result document"},
	} {
		_, err := Decode(strings.NewReader(c.doc))
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: error %v, want %q", c.name, err, c.want)
		}
	}
}

// TestDecodeIgnoresNewFields: adding a field keeps the version, so a reader
// must accept documents from a later goslap that has more fields.
func TestDecodeIgnoresNewFields(t *testing.T) {
	d, err := Decode(strings.NewReader(`{"schema":"goslap-result","schema_version":2,"added_later":{"x":1},
		"benchmarks":[{"target":"a","concurrency":2,"added_later":true}]}`))
	if err != nil {
		t.Fatal(err)
	}
	if len(d.Benchmarks) != 1 || d.Benchmarks[0].Target != "a" || d.Benchmarks[0].Concurrency != 2 {
		t.Errorf("decoded %+v", d.Benchmarks)
	}
}
