package main

import (
	"os/exec"
	"strings"
	"testing"
)

const module = "github.com/goslap/goslap/"

// deps are the packages pkg depends on (go list -deps: transitively, tests
// excluded), its own path included.
func deps(t *testing.T, pkg string) []string {
	t.Helper()
	out, err := exec.Command("go", "list", "-deps", "-f", "{{.ImportPath}}", "./"+pkg).Output()
	if err != nil {
		t.Fatalf("go list -deps %s: %v", pkg, err)
	}
	return strings.Fields(string(out))
}

// imports are the packages pkg imports itself (tests excluded).
func imports(t *testing.T, pkg string) []string {
	t.Helper()
	out, err := exec.Command("go", "list", "-f", `{{join .Imports " "}}`, "./"+pkg).Output()
	if err != nil {
		t.Fatalf("go list %s: %v", pkg, err)
	}
	return strings.Fields(string(out))
}

// TestImportRules keeps the layout of issue 24: no front end depends on
// another; the document, merge and the orchestrator know no workload
// (only the contract, internal/workload, and what workloads may add to
// reports, internal/workload/report); the targets' runner draws no chart;
// every workload the binary has comes through internal/workload/all.
func TestImportRules(t *testing.T) {
	if _, err := exec.LookPath("go"); err != nil {
		t.Skip("no go command")
	}
	frontEnds := []string{"internal/cli/compare", "internal/cli/merge", "internal/cli/mysqlslap", "internal/cli/sysbench", "internal/cli/tpccmysql"}
	for _, fe := range frontEnds {
		for _, d := range deps(t, fe) {
			if other, ok := strings.CutPrefix(d, module); ok && other != fe && strings.HasPrefix(other, "internal/cli/") {
				t.Errorf("front end %s depends on front end %s", fe, other)
			}
		}
	}
	contract := map[string]bool{"internal/workload": true, "internal/workload/report": true}
	for _, pkg := range []string{"internal/results/jsondoc", "internal/merge", "internal/orchestrator", "internal/cli/merge", "internal/cli/compare"} {
		for _, d := range deps(t, pkg) {
			if rel, ok := strings.CutPrefix(d, module); ok && strings.HasPrefix(rel, "internal/workload") && !contract[rel] {
				t.Errorf("%s depends on workload package %s", pkg, rel)
			}
		}
	}
	for _, d := range deps(t, "internal/target") {
		if strings.HasPrefix(d, module+"internal/chart") || strings.HasPrefix(d, "gonum.org/") {
			t.Errorf("internal/target depends on %s: the chart renderer is the reporters'", d)
		}
	}
	// The mysqlslap front end names, of the workloads, only its own
	// script and the Lua interpreter (--workload=SCRIPT.lua); the others
	// it reaches through the registry and the named capabilities (their
	// interval lines included).
	frontEndWorkloads := map[string]bool{"internal/workload": true, "internal/workload/report": true, "internal/workload/all": true,
		"internal/workload/mysqlslap": true, "internal/workload/luascript": true}
	for _, d := range imports(t, "internal/cli/mysqlslap") {
		if rel, ok := strings.CutPrefix(d, module); ok && strings.HasPrefix(rel, "internal/workload") && !frontEndWorkloads[rel] {
			t.Errorf("internal/cli/mysqlslap imports workload package %s", rel)
		}
	}
	// Every workload package in the binary is one internal/workload/all
	// registers, but mysqlslap's script: it registers no workload (its
	// own test checks) and only the mysqlslap front end runs it.
	registered := map[string]bool{}
	for _, d := range deps(t, "internal/workload/all") {
		registered[d] = true
	}
	if registered[module+"internal/workload/mysqlslap"] {
		t.Error("internal/workload/all imports mysqlslap's script, which registers no workload")
	}
	for _, d := range deps(t, ".") {
		rel, ok := strings.CutPrefix(d, module+"internal/workload/")
		if ok && !strings.Contains(rel, "/") && rel != "report" && rel != "all" && rel != "mysqlslap" && !registered[d] {
			t.Errorf("the binary has workload package %s, which internal/workload/all does not register", rel)
		}
	}
}
