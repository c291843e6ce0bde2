// Package interrupt is goslap's one signal policy, shared by every front
// end (mysqlslap's, --workload, --only-print, goslap sysbench, the
// tpcc-mysql commands): SIGINT, SIGTERM, SIGHUP and SIGQUIT interrupt a
// command; the first cancels its context and lets it clean up within a
// time limit; a second signal, or a clean-up that overruns, ends the
// process at once. Either way the last line on stderr is
// "goslap: interrupted" and the exit status is 130.
package interrupt

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"sync"
	"syscall"
	"time"
)

// ExitCode is the exit status of an interrupted command (128 + SIGINT, what
// a shell reports for a program killed by Ctrl-C).
const ExitCode = 130

// CleanupBudget is how long, counted from the first signal, the clean-up
// after an interrupt (a Teardown dropping what an interrupted prepare
// created) may run: Cleanup's context ends then, and what is not dropped by
// then is reported as left. HardDeadline, after the first signal, ends the
// process whatever the clean-up is doing: the whole exit stays under 5 s.
const (
	CleanupBudget = 3500 * time.Millisecond
	HardDeadline  = 4500 * time.Millisecond
)

// Signals interrupt goslap. SIGHUP is how long benchmarks usually die (a
// closed terminal or ssh session); SIGQUIT would otherwise end goslap with
// a goroutine dump and no clean-up.
var Signals = []os.Signal{os.Interrupt, syscall.SIGTERM, syscall.SIGHUP, syscall.SIGQUIT}

// ErrInterrupted is the cause of a Watch's context once a signal came.
var ErrInterrupted = errors.New("interrupted")

// ErrCleanupTime is the cause of Cleanup's context once the clean-up
// after an interrupt has had its time.
var ErrCleanupTime = errors.New("the clean-up's time after the interrupt ran out")

// Line is the last line an interrupted command prints on stderr.
func Line(prog string) string { return prog + ": " + ErrInterrupted.Error() }

// End prints Line and returns ExitCode: the one ending of an interrupted
// command.
func End(stderr io.Writer, prog string) int {
	fmt.Fprintln(stderr, Line(prog))
	return ExitCode
}

// Notify routes Signals to sigs until the returned stop is called. It also
// catches SIGPIPE, which Go's runtime otherwise turns into an immediate
// exit (no clean-up) when the reader of stdout or stderr goes away
// (`goslap | tee log` in a closed session): a write then fails with EPIPE
// and the command ends through its error path, which cleans up. A caught
// signal, unlike an ignored one, is reset for the commands goslap starts
// (--pre-system, --post-system).
func Notify(sigs chan<- os.Signal) (stop func()) {
	signal.Notify(sigs, Signals...)
	pipe := make(chan os.Signal, 1)
	signal.Notify(pipe, syscall.SIGPIPE)
	return func() {
		signal.Stop(sigs)
		signal.Stop(pipe)
	}
}

// NotifyContext is a context ended by the first of Signals (and SIGPIPE
// caught as Notify does), for a step that needs no clean-up policy of its
// own (a --pre-system command of --only-print).
func NotifyContext(parent context.Context) (context.Context, context.CancelFunc) {
	ctx, cancel := context.WithCancelCause(parent)
	sigs := make(chan os.Signal, 1)
	stop := Notify(sigs)
	done := make(chan struct{})
	go func() {
		select {
		case <-sigs:
			cancel(ErrInterrupted)
		case <-done:
		}
	}()
	var once sync.Once
	return ctx, func() {
		once.Do(func() {
			stop()
			close(done)
			cancel(context.Canceled)
		})
	}
}

// Watch is one command's signal policy, from Start to Stop.
type Watch struct {
	prog   string
	stderr io.Writer
	exit   func(int) // os.Exit; tests replace it
	// budget and hard are CleanupBudget and HardDeadline; tests shorten them.
	budget, hard time.Duration

	ctx    context.Context
	cancel context.CancelCauseFunc
	// cleanup lives on after the first signal, for CleanupBudget.
	cleanup       context.Context
	cleanupCancel context.CancelCauseFunc

	mu      sync.Mutex
	left    string // what a forced exit may leave behind
	patient string // non-empty: never force the exit; a further signal prints this

	sigs     chan os.Signal
	stopSigs func()
	finished chan struct{}
	stopOnce sync.Once
	exited   chan struct{}
}

type watchKey struct{}

// Start installs the policy: the first signal cancels Context (its cause is
// ErrInterrupted) and starts the clean-up budget; a second signal prints
// what may be left and exits 130 at once, as does a clean-up still running
// at HardDeadline. prog prefixes the messages ("goslap"). Stop removes it.
func Start(prog string, stderr io.Writer) *Watch {
	return start(prog, stderr, os.Exit, CleanupBudget, HardDeadline)
}

func start(prog string, stderr io.Writer, exit func(int), budget, hard time.Duration) *Watch {
	w := &Watch{prog: prog, stderr: stderr, exit: exit, budget: budget, hard: hard, sigs: make(chan os.Signal, 4),
		finished: make(chan struct{}), exited: make(chan struct{})}
	ctx, cancel := context.WithCancelCause(context.Background())
	w.ctx, w.cancel = context.WithValue(ctx, watchKey{}, w), cancel
	w.cleanup, w.cleanupCancel = context.WithCancelCause(context.Background())
	w.stopSigs = Notify(w.sigs)
	go w.watch()
	return w
}

// Context is ended by the first signal.
func (w *Watch) Context() context.Context { return w.ctx }

// Interrupted reports whether a signal came.
func (w *Watch) Interrupted() bool { return context.Cause(w.ctx) == ErrInterrupted }

// Leaving says what a forced exit (a second signal, or a clean-up past
// HardDeadline) may leave behind ("tables sbtest1..sbtest8 of this
// prepare may be left: run cleanup"); "" restores the default wording.
func (w *Watch) Leaving(what string) {
	w.mu.Lock()
	w.left = what
	w.mu.Unlock()
}

// Left is what Leaving last said ("" when nothing was said): a command
// interrupted before its work was done (a cleanup) prints it above
// End's line.
func (w *Watch) Left() string {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.left
}

// SandboxPatience is what a further signal prints while goslap stops its
// sandbox servers (Patient).
const SandboxPatience = "interrupted; still stopping the sandbox, please wait"

// Patient makes the watch wait for the clean-up however long it takes,
// printing msg at each further signal: a sandbox server must not outlive
// goslap, and its shutdown has limits of its own.
func (w *Watch) Patient(msg string) {
	w.mu.Lock()
	w.patient = msg
	w.mu.Unlock()
}

// Stop ends the watch: signals get their default behaviour back.
func (w *Watch) Stop() {
	w.stopOnce.Do(func() {
		close(w.finished)
		<-w.exited
		w.stopSigs()
		w.cleanupCancel(context.Canceled)
		w.cancel(context.Canceled)
	})
}

func (w *Watch) watch() {
	defer close(w.exited)
	select {
	case <-w.sigs:
	case <-w.finished:
		return
	}
	w.cancel(ErrInterrupted)
	budget := time.AfterFunc(w.budget, func() { w.cleanupCancel(ErrCleanupTime) })
	defer budget.Stop()
	hard := time.NewTimer(w.hard)
	defer hard.Stop()
	for {
		w.mu.Lock()
		patient := w.patient
		w.mu.Unlock()
		var deadline <-chan time.Time
		if patient == "" {
			deadline = hard.C
		}
		select {
		case <-w.sigs:
			if patient != "" {
				fmt.Fprintf(w.stderr, "%s: %s\n", w.prog, patient)
				continue
			}
			w.forceExit("interrupted again: exiting without finishing the clean-up")
			return
		case <-deadline:
			w.forceExit("the clean-up did not finish in time")
			return
		case <-w.finished:
			return
		}
	}
}

func (w *Watch) forceExit(why string) {
	w.mu.Lock()
	left := w.left
	w.mu.Unlock()
	if left == "" {
		left = "what this command created may be left behind"
	}
	fmt.Fprintf(w.stderr, "%s: %s; %s\n", w.prog, why, left)
	w.exit(End(w.stderr, w.prog))
}

// Cleanup returns the context for the clean-up after a command that ctx
// ran: not ended by ctx's interruption, so a Teardown can drop what an
// interrupted prepare created. Under a Watch (ctx is, or derives from, its
// Context) it ends CleanupBudget after the first signal; otherwise, when
// ctx has already ended, CleanupBudget from now; else with ctx's values
// and no limit.
func Cleanup(ctx context.Context) (context.Context, context.CancelFunc) {
	if w, ok := ctx.Value(watchKey{}).(*Watch); ok {
		return context.WithCancel(w.cleanup)
	}
	free := context.WithoutCancel(ctx)
	if ctx.Err() != nil {
		return context.WithTimeout(free, CleanupBudget)
	}
	return context.WithCancel(free)
}

// Is reports whether err, or ctx's end, is an interruption: ctx ended (a
// signal, or a caller's cancel) or err is a cancellation. Front ends route
// these to End instead of printing "context canceled".
func Is(ctx context.Context, err error) bool {
	if ctx != nil && ctx.Err() != nil {
		return true
	}
	return errors.Is(err, context.Canceled) || errors.Is(err, ErrInterrupted)
}
