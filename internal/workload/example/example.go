// Package example is the shape of a workload that brings its own size
// axis, cell summary and JSON section, and nothing else: adding it to
// goslap is this package plus one line in internal/workload/all (its
// test does the same with one blank import). It is not registered in the
// binary.
//
// Every unit is SELECT BENCHMARK(rows, 1): the server loops rows times,
// so --example-rows is a size axis with no tables to load or drop.
package example

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/goslap/goslap/internal/getopt"
	"github.com/goslap/goslap/internal/mysqlconn"
	"github.com/goslap/goslap/internal/results"
	"github.com/goslap/goslap/internal/workload"
	"github.com/goslap/goslap/internal/workload/report"
)

// Name is what --workload=NAME selects.
const Name = "example"

func init() {
	workload.Register(workload.Meta{Name: Name, Summary: "SELECT BENCHMARK(rows, 1) per unit (the shape of a workload)",
		NewSettings: func() workload.Settings { return &Settings{Rows: "1000"} }})
	report.RegisterSection(Name, sectionMerger{})
}

// Settings are the workload's one option, a list for a sweep.
type Settings struct{ Rows string }

// Options is the --example-rows row.
func (s *Settings) Options() []*getopt.Option {
	return []*getopt.Option{{Name: "example-rows", Arg: getopt.RequiredArg, Var: getopt.VarString, String: &s.Rows,
		ExactOnly: true, Help: "Server loop count per unit (a list sweeps it)."}}
}

// ScaleOption makes --example-rows the size axis (workload.Scaler).
func (s *Settings) ScaleOption() (option, label string) { return "example-rows", "rows" }

// Build checks the option.
func (s *Settings) Build(string, workload.Common) (workload.Workload, error) {
	n, err := strconv.ParseInt(strings.TrimSpace(s.Rows), 10, 64)
	if err != nil || n < 1 {
		return nil, fmt.Errorf("invalid value '%s' for --example-rows: want a positive whole number", s.Rows)
	}
	return &Workload{rows: n}, nil
}

// Workload runs the load at a point's size (Point.Scale, else its own).
type Workload struct{ rows int64 }

func (w *Workload) size(p workload.Point) int64 {
	if p.Scale > 0 {
		return p.Scale
	}
	return w.rows
}

func (*Workload) Ops() []string                                                     { return []string{"benchmark"} }
func (*Workload) Setup(context.Context, *workload.Session, workload.Point) error    { return nil }
func (*Workload) Teardown(context.Context, *workload.Session, workload.Point) error { return nil }
func (*Workload) BeginIteration(context.Context, *workload.Session, workload.Iteration) error {
	return nil
}
func (*Workload) EndIteration(context.Context, *workload.Session, workload.Iteration) error {
	return nil
}

// Load's statement is formatted once per iteration, not per unit.
func (w *Workload) Load(it workload.Iteration) (workload.Load, error) {
	return load("SELECT BENCHMARK(" + strconv.FormatInt(w.size(it.Point), 10) + ", 1)"), nil
}

type load string

func (l load) Client(int) workload.Client { return &client{query: string(l)} }

type client struct {
	query string
	tally workload.Tally
}

func (*client) Begin(*mysqlconn.Conn) error { return nil }
func (*client) End(*mysqlconn.Conn) error   { return nil }
func (c *client) Tally() workload.Tally     { return c.tally }
func (c *client) Next(conn *mysqlconn.Conn) (workload.Step, error) {
	if err := conn.Exec(c.query); err != nil {
		return workload.Step{}, err
	}
	c.tally.Reads++
	return workload.Step{}, nil
}

// IterationDone keeps an iteration's units (report.CellSummariser).
func (*Workload) IterationDone(b *results.Benchmark) any { return b.Events }

// CellSummary is the cell's units at its size.
func (w *Workload) CellSummary(p workload.Point, _ []*results.Benchmark, states []any) (any, error) {
	s := Summary{Rows: w.size(p)}
	for _, st := range states {
		s.Units += st.(uint64)
	}
	return s, nil
}

// Summary is the workload's report of a cell, and its JSON section.
type Summary struct {
	Rows  int64  `json:"rows"`
	Units uint64 `json:"units"`
}

// Write prints the summary under the cell's block (report.Writer).
func (s Summary) Write(w io.Writer) error {
	_, err := fmt.Fprintf(w, "\texample: %d units of %d rows\n", s.Units, s.Rows)
	return err
}

// JSONSection is the summary under the workload's name (report.Sectioner).
func (s Summary) JSONSection() (string, json.RawMessage, error) { return report.Marshal(Name, s) }
