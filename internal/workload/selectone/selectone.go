// Package selectone is the smallest workload: every unit is one SELECT 1.
// It shows what a workload needs (a registration, settings, a per-client
// state) and gives the engine's tests a load that needs no tables.
package selectone

import (
	"context"

	"github.com/goslap/goslap/internal/getopt"
	"github.com/goslap/goslap/internal/mysqlconn"
	"github.com/goslap/goslap/internal/workload"
)

func init() {
	workload.Register(workload.Meta{
		Name:        "selectone",
		Summary:     "SELECT 1 per unit (a round trip with no table)",
		NewSettings: func() workload.Settings { return settings{} },
	})
}

type settings struct{}

func (settings) Options() []*getopt.Option { return nil }

func (settings) Build(string, workload.Common) (workload.Workload, error) { return Workload{}, nil }

// Workload is SELECT 1 in a loop; it has no data.
type Workload struct{}

var _ workload.Workload = Workload{}

func (Workload) Ops() []string { return []string{"select"} }

func (Workload) Setup(context.Context, *workload.Session, workload.Point) error { return nil }

func (Workload) BeginIteration(context.Context, *workload.Session, workload.Iteration) error {
	return nil
}

func (Workload) EndIteration(context.Context, *workload.Session, workload.Iteration) error {
	return nil
}

func (Workload) Teardown(context.Context, *workload.Session, workload.Point) error { return nil }

func (Workload) Load(workload.Iteration) (workload.Load, error) { return load{}, nil }

type load struct{}

func (load) Client(int) workload.Client { return &client{} }

type client struct{ tally workload.Tally }

func (*client) Begin(*mysqlconn.Conn) error { return nil }

func (c *client) Next(conn *mysqlconn.Conn) (workload.Step, error) {
	if err := conn.Exec("SELECT 1"); err != nil {
		return workload.Step{}, err
	}
	c.tally.Reads++
	return workload.Step{}, nil
}

func (*client) End(*mysqlconn.Conn) error { return nil }

func (c *client) Tally() workload.Tally { return c.tally }
