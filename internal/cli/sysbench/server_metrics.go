package sysbench

import "github.com/goslap/goslap/internal/orchestrator"

// samplesServer says whether the command samples the server's counters,
// CPU and IO: only on the study runner (Extras.Active), when the
// Server: lines are asked for (--server-report), when targets are
// compared (each pays the same) or when the run keeps intervals anyway
// (--report-interval), as before intervals were kept in every run
// (BENCHMARKS.md, "Interval recording"): the sampler opens a connection
// of its own and may print warnings, which a plain run and an output
// option (--json, --plot) must not add.
func samplesServer(c *Config) bool {
	e := c.Extras
	if e.ServerMetricsOff || !e.Active() {
		return false
	}
	return e.ServerReport || len(e.Targets) > 1 || c.ReportInterval > 0
}

// checkSampling refuses the sampling options this command line cannot
// honour (orchestrator.CheckSampling); servers counts the servers goslap
// did not start.
func checkSampling(c *Config, servers int) error {
	e := c.Extras
	err := orchestrator.CheckSampling(orchestrator.SamplingAsk{Report: e.ServerReport, Off: e.ServerMetricsOff,
		OffName: "--server-metrics=off", PID: e.ServerPID, Sampled: samplesServer(c), Servers: servers})
	if err != nil {
		return fatalf("%v", err)
	}
	return nil
}
