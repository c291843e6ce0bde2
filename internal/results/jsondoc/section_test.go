package jsondoc

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
)

// TestSectionsPlace: the workloads' sections are written by name between
// figures and server (where the document had its oltp and tpcc members),
// read back as they were written, and a section named as a field is
// refused.
func TestSectionsPlace(t *testing.T) {
	b := Benchmark{Target: "a", Figures: &Figures{}, Server: &ServerFigures{},
		Sections: map[string]json.RawMessage{"tpcc": json.RawMessage(`{"tpmc":1}`), "oltp": json.RawMessage(`{"dialect":"1.0"}`)}}
	out, err := json.Marshal(b)
	if err != nil {
		t.Fatal(err)
	}
	s := string(out)
	order := []string{`"figures":`, `"oltp":{"dialect":"1.0"}`, `"tpcc":{"tpmc":1}`, `"server":`}
	at := -1
	for _, k := range order {
		i := strings.Index(s, k)
		if i <= at {
			t.Fatalf("%s out of place in %s", k, s)
		}
		at = i
	}
	var back Benchmark
	if err := json.Unmarshal(out, &back); err != nil {
		t.Fatal(err)
	}
	var o struct{ Dialect string }
	if ok, err := back.Section("oltp", &o); !ok || err != nil || o.Dialect != "1.0" || len(back.Sections) != 2 {
		t.Errorf("read back %v %v %+v, sections %q", ok, err, o, back.Sections)
	}
	// Indented as Encode writes it, the sections read back compact.
	var ind bytes.Buffer
	if err := json.Indent(&ind, out, "", "  "); err != nil {
		t.Fatal(err)
	}
	back = Benchmark{}
	if err := json.Unmarshal(ind.Bytes(), &back); err != nil || string(back.Sections["tpcc"]) != `{"tpmc":1}` {
		t.Errorf("indented: %v, %s", err, back.Sections["tpcc"])
	}
	// Without sections nor tail the object still closes.
	if out, err := json.Marshal(Benchmark{}); err != nil || !json.Valid(out) {
		t.Errorf("empty benchmark: %v %s", err, out)
	}
	b.Sections = map[string]json.RawMessage{"Figures": json.RawMessage(`{}`)}
	if _, err := json.Marshal(b); err == nil || !strings.Contains(err.Error(), "name of a field") {
		t.Errorf("a section named as a field: %v", err)
	}
}
