package orchestrator

import "fmt"

// SamplingAsk is what a command line asks of the server sampling, for
// CheckSampling: Report is --server-report, Off the option that turns the
// sampling off (OffName, as that front end spells it), PID --server-pid
// (0 without), Sampled whether the command samples anything at all, and
// Servers how many of its servers goslap did not start (a sandbox's
// process goslap knows).
type SamplingAsk struct {
	Report  bool
	Off     bool
	OffName string
	PID     int
	Sampled bool
	Servers int
}

// CheckSampling refuses, in one line each, the sampling options a command
// line cannot honour: --server-report with the sampling turned off, and
// --server-pid where nothing is sampled or where it does not name one
// server (every server is a sandbox, or several are servers goslap did
// not start). Every front end gives the same refusals.
func CheckSampling(a SamplingAsk) error {
	switch {
	case a.Report && a.Off:
		return fmt.Errorf("--server-report prints the server metrics %s turns off: give one of them", a.OffName)
	case a.PID == 0:
		return nil
	case a.Off:
		return fmt.Errorf("--server-pid=%d names the server's process for the server metrics %s turns off", a.PID, a.OffName)
	case !a.Sampled:
		return fmt.Errorf("--server-pid=%d names the server's process for the server metrics, and this command samples none: add --server-report", a.PID)
	case a.Servers == 0:
		return fmt.Errorf("--server-pid=%d cannot be honoured: every server of this run is a sandbox, whose process goslap knows", a.PID)
	case a.Servers > 1:
		return fmt.Errorf("--server-pid=%d cannot be honoured: it names one process, and %d targets are servers goslap did not start", a.PID, a.Servers)
	}
	return nil
}
