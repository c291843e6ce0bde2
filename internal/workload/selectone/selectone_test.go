package selectone

import (
	"slices"
	"testing"

	"github.com/goslap/goslap/internal/workload"
)

// TestRegistered: importing the package is all it takes to select it.
func TestRegistered(t *testing.T) {
	m, err := workload.Lookup("selectone")
	if err != nil {
		t.Fatal(err)
	}
	w, err := m.NewSettings().Build("selectone", workload.Common{})
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(w.Ops(), []string{"select"}) {
		t.Errorf("ops %v", w.Ops())
	}
	l, err := w.Load(workload.Iteration{Number: 1})
	if err != nil || l.Client(7) == nil {
		t.Fatalf("load %v, %v", l, err)
	}
}
