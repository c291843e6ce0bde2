package mysqlslap

import (
	"fmt"

	"github.com/goslap/goslap/internal/interrupt"
)

// RunWithSignals is Run for the command line, under goslap's signal policy
// (internal/interrupt): the first SIGINT, SIGTERM, SIGHUP or SIGQUIT
// cancels the run — clients stop between statements, the schema this run
// created is dropped (unless --no-drop) and the returned ExitError has
// status 130. If clean-up has not finished by interrupt.HardDeadline, or
// a second signal arrives, the process exits with 130 at once, saying
// what may be left.
func RunWithSignals(c *Config, out Output) ([]BenchmarkResult, error) {
	w := interrupt.Start(ProgName, out.Stderr)
	defer w.Stop()
	if c.Plan != nil && c.Plan.Schema != "" {
		w.Leaving(fmt.Sprintf("what this run created in schema %s may be left behind", c.Plan.Schema))
	}
	return Run(w.Context(), c, out)
}
