package slap

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"
	"time"
)

// interruptDeadline bounds the clean-up after Ctrl-C/SIGTERM: the process
// exits with 130 within this time even if the server does not answer.
const interruptDeadline = 4500 * time.Millisecond

// exitNow ends the process; a variable so tests can observe it.
var exitNow = os.Exit

// interruptSignals end a run with clean-up and exit status 130. SIGHUP is
// how long benchmarks usually die (a closed terminal or ssh session);
// SIGQUIT would otherwise end goslap with a goroutine dump and no clean-up.
var interruptSignals = []os.Signal{os.Interrupt, syscall.SIGTERM, syscall.SIGHUP, syscall.SIGQUIT}

// notifyInterrupts routes interruptSignals to sigs until the returned stop
// is called. It also catches SIGPIPE, which Go's runtime otherwise turns
// into an immediate exit (no clean-up) when the reader of stdout or stderr
// goes away (`goslap | tee log` in a closed session): a write then fails
// with EPIPE and the run ends through its error path, which cleans up. A
// caught signal, unlike an ignored one, is reset for the --pre-system and
// --post-system commands.
func notifyInterrupts(sigs chan<- os.Signal) (stop func()) {
	signal.Notify(sigs, interruptSignals...)
	pipe := make(chan os.Signal, 1)
	signal.Notify(pipe, syscall.SIGPIPE)
	return func() {
		signal.Stop(sigs)
		signal.Stop(pipe)
	}
}

// RunWithSignals is Run for the command line: the first SIGINT, SIGTERM,
// SIGHUP or SIGQUIT cancels the run — clients stop between statements, the schema this run
// created is dropped (unless --no-drop) and the returned ExitError has
// status 130. If clean-up has not finished after ~4.5 s, or a second signal
// arrives, the process exits with 130 at once.
func RunWithSignals(c *Config, out Output) ([]BenchmarkResult, error) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	sigs := make(chan os.Signal, 2)
	defer notifyInterrupts(sigs)()
	finished := make(chan struct{})
	defer close(finished)
	go watchSignals(sigs, cancel, finished, out.Stderr)
	return Run(ctx, c, out)
}

func watchSignals(sigs <-chan os.Signal, cancel context.CancelFunc, finished <-chan struct{}, stderr io.Writer) {
	select {
	case <-sigs:
		cancel()
	case <-finished:
		return
	}
	select {
	case <-sigs:
		fmt.Fprintf(stderr, "%s: interrupted again; exiting without clean-up\n", ProgName)
	case <-time.After(interruptDeadline):
		fmt.Fprintf(stderr, "%s: interrupted; clean-up did not finish in time, exiting\n", ProgName)
	case <-finished:
		return
	}
	exitNow(130)
}
