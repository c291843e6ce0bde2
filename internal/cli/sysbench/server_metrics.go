package sysbench

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
// honour, in one line each: --server-report with the sampling turned off,
// and --server-pid where nothing is sampled or where it does not name one
// server: every server is a sandbox (whose process goslap knows), or
// several targets are servers goslap did not start (servers counts them).
func checkSampling(c *Config, servers int) error {
	e := c.Extras
	switch {
	case e.ServerReport && e.ServerMetricsOff:
		return fatalf("--server-report prints the server metrics --server-metrics=off turns off: give one of them")
	case e.ServerPID == 0:
		return nil
	case e.ServerMetricsOff:
		return fatalf("--server-pid=%d names the server's process for the server metrics --server-metrics=off turns off", e.ServerPID)
	case !samplesServer(c):
		return fatalf("--server-pid=%d names the server's process for the server metrics, and this command samples none: add --server-report", e.ServerPID)
	case servers == 0:
		return fatalf("--server-pid=%d cannot be honoured: every server of this run is a sandbox, whose process goslap knows", e.ServerPID)
	case servers > 1:
		return fatalf("--server-pid=%d cannot be honoured: it names one process, and %d targets are servers goslap did not start", e.ServerPID, servers)
	}
	return nil
}
