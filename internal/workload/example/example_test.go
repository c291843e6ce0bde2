package example_test

import (
	"bytes"
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/go-sql-driver/mysql"

	"github.com/goslap/goslap/internal/orchestrator"
	"github.com/goslap/goslap/internal/results/jsondoc"
	"github.com/goslap/goslap/internal/sandbox"
	"github.com/goslap/goslap/internal/sandbox/servertest"
	"github.com/goslap/goslap/internal/target"
	"github.com/goslap/goslap/internal/workload"
	"github.com/goslap/goslap/internal/workload/example"
	"github.com/goslap/goslap/internal/workload/report"
)

// This test's import of the example registers it, as the one line
// `_ "github.com/goslap/goslap/internal/workload/example"` in
// internal/workload/all would register it in goslap.

func TestMain(m *testing.M) { servertest.Main(m, sandbox.Config{}, nil) }

// TestNewWorkloadIsOnePackage: the orchestrator sweeps the example's size
// axis, prints its cell summary and records its JSON section under its
// name, and goslap merge's section handler merges two of them — with no
// line outside the example's package naming it.
func TestNewWorkloadIsOnePackage(t *testing.T) {
	s := servertest.Require(t)
	meta, err := workload.Lookup(example.Name)
	if err != nil {
		t.Fatal(err)
	}
	settings := meta.NewSettings()
	*settings.Options()[0].String = "1000,20000" // --example-rows=1000,20000
	common := workload.Common{Schema: "example_test", Seed: 1}
	scales, label, err := orchestrator.SplitScales(example.Name, settings, common)
	if err != nil || len(scales) != 2 || label != "rows" {
		t.Fatalf("scales %v %q, %v; want 1000 and 20000 rows", scales, label, err)
	}
	var out bytes.Buffer
	cfg := &orchestrator.Config{Workload: example.Name, Settings: settings, Common: common, Phase: orchestrator.PhaseAll,
		Scales: scales, ScaleName: label, Iterations: 2, Clients: []int{2}, Events: 40,
		Ignore: func(uint16) bool { return false }, ServerMetrics: orchestrator.Metrics{Off: true},
		Driver: func(_ target.Endpoint, schema string) (*mysql.Config, error) { return s.RootConfig(schema), nil }}
	cfg.Observer = (&orchestrator.TextReport{Out: &out}).Observer()
	res, err := orchestrator.Run(context.Background(), cfg)
	if err != nil {
		t.Fatalf("%v\n%s", err, out.String())
	}
	for _, want := range []string{"\texample: 80 units of 1000 rows\n", "\texample: 80 units of 20000 rows\n"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("report lacks %q:\n%s", want, out.String())
		}
	}

	doc, err := orchestrator.Document(cfg, res, orchestrator.DocumentInput{FrontEnd: "test", Version: "0"})
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	if err := jsondoc.Encode(&buf, doc); err != nil {
		t.Fatal(err)
	}
	back, err := jsondoc.Decode(&buf)
	if err != nil || len(back.Benchmarks) != 2 {
		t.Fatalf("%v, %d benchmarks", err, len(back.Benchmarks))
	}
	var sections []json.RawMessage
	for i, b := range back.Benchmarks {
		var got example.Summary
		ok, err := b.Section(example.Name, &got)
		if want := (example.Summary{Rows: scales[i], Units: 80}); !ok || err != nil || got != want ||
			b.Point == nil || b.Point.Scale != scales[i] || b.Point.ScaleName != "rows" {
			t.Errorf("benchmark %d: section %+v (%v, %v), point %+v; want %+v", i, got, ok, err, b.Point, want)
		}
		sections = append(sections, b.Sections[example.Name])
	}

	// goslap merge finds how two shards' sections merge by the section's
	// name.
	m := report.Section(example.Name)
	if m == nil {
		t.Fatal("no section handler registered")
	}
	merged, err := m.MergeSections([]json.RawMessage{sections[0], sections[0]}, &back.Benchmarks[0])
	if err != nil || string(merged) != `{"rows":1000,"units":160}` {
		t.Errorf("merged %s, %v", merged, err)
	}
	if _, err := m.MergeSections(sections, &back.Benchmarks[0]); err == nil {
		t.Error("sections of different sizes merged")
	}
}
