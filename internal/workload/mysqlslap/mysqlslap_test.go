package mysqlslap

import (
	"testing"

	"github.com/goslap/goslap/internal/templates"
	"github.com/goslap/goslap/internal/workload"
	"github.com/goslap/goslap/sqlgen"
)

// TestTemplatesDoubleBraceWithoutPlaceholder: with --templates, "{{" is a
// literal "{" also in a statement that has no placeholder (it was sent
// as written, "{{" and all).
func TestTemplatesDoubleBraceWithoutPlaceholder(t *testing.T) {
	list, err := parseTemplates([]sqlgen.Statement{{Text: "SELECT '{{x}'"}, {Text: "SELECT 1"}})
	if err != nil {
		t.Fatal(err)
	}
	if list == nil || list[0] == nil || list[1] != nil {
		t.Fatalf("templates %v: want one for the first statement only", list)
	}
	if got := list[0].Render(templates.NewSource(1, 0)); got != "SELECT '{x}'" {
		t.Errorf("rendered %q", got)
	}
}

// TestUnits: each client's number of units is its share of the queries
// (--exact-count spreads the remainder), one pass without a limit, plus
// the reconnect unit --detach starts with; none when time-bound.
func TestUnits(t *testing.T) {
	for _, tc := range []struct {
		name    string
		cfg     Config
		plan    sqlgen.Config
		clients int
		want    []uint64
	}{
		{"floor", Config{}, sqlgen.Config{NumberOfQueries: 10}, 3, []uint64{3, 3, 3}},
		{"exact", Config{ExactCount: true, NumberOfQueries: 10}, sqlgen.Config{NumberOfQueries: 10}, 3, []uint64{4, 3, 3}},
		{"one pass", Config{}, sqlgen.Config{}, 2, []uint64{2, 2}},
		{"detach", Config{}, sqlgen.Config{NumberOfQueries: 10, Detach: 2}, 2, []uint64{6, 6}},
		{"time-bound", Config{TimeBound: true}, sqlgen.Config{}, 2, []uint64{0, 0}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			pc := tc.plan
			pc.Query = sqlgen.Source{Text: "SELECT 1;SELECT 2", Set: true}
			pc.Delimiter, pc.Concurrency, pc.Iterations, pc.Schema = ";", "1", 1, "mysqlslap"
			pc.LoadType, pc.IntCols, pc.CharCols = "mixed", "1", "1"
			p, err := sqlgen.Build(pc)
			if err != nil {
				t.Fatal(err)
			}
			cfg := tc.cfg
			cfg.Plan = p
			s, err := New(cfg)
			if err != nil {
				t.Fatal(err)
			}
			l := s.NewLoad(tc.clients)
			for id, want := range tc.want {
				if got := l.Units(id); got != want {
					t.Errorf("client %d: %d units, want %d", id, got, want)
				}
			}
		})
	}
}

// TestRegistersNoWorkload: mysqlslap's load is configured by mysqlslap's
// options, which only its front end has; a registered "mysqlslap" that
// every other front end could only refuse to build is what this package
// must not add (imports_test.go relies on it).
func TestRegistersNoWorkload(t *testing.T) {
	if m, err := workload.Lookup("mysqlslap"); err == nil {
		t.Errorf("workload %q is registered", m.Name)
	}
}
