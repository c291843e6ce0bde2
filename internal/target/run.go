package target

import (
	"context"
	"errors"
	"fmt"
	"github.com/goslap/goslap/internal/results/matrix"
	"runtime/debug"
	"strings"
	"time"
)

// Endpoint is where one benchmark connects. For a sandbox it is the
// sandbox's socket and port as root without a password; for a server target
// it is the command line's connection options with the target's overrides.
type Endpoint struct {
	Host        string
	Port        int
	Socket      string
	User        string
	Password    string
	PasswordSet bool
	Sandbox     bool // a sandbox: connect over Socket as root
	PID         int  // a sandbox's server process (its CPU and IO figures)
}

// BenchFunc runs the whole benchmark matrix once against ep and returns its
// points. The label is the target's, for output headings. It should give up
// when ctx is cancelled; Run also stops a sandbox under it when that happens.
type BenchFunc func(ctx context.Context, label string, ep Endpoint) ([]matrix.Point, error)

// Config is how Run runs targets.
type Config struct {
	Bench BenchFunc // required
	// Start starts sandboxes; nil means StartSandbox.
	Start SandboxStarter
	// DefaultBinary is the binary of sandbox targets that name none
	// (--sandbox=BINARY); "" means mariadbd or mysqld found on $PATH.
	DefaultBinary string
	// SandboxOptions are server options for every sandbox target, before the
	// target's own (--sandbox-option).
	SandboxOptions []string
	// Base is the command line's connection options, for server targets.
	Base Endpoint
	// TempDir is the parent of sandbox directories ("" for the system default).
	TempDir string
	// Progress, if set, is told each step of a target ("starting sandbox
	// /usr/sbin/mariadbd innodb_buffer_pool_size=1G", "sandbox stopped and
	// removed"), for a progress line on stderr.
	Progress func(label, msg string)
	// CancelGrace is how long a cancelled benchmark may take to return
	// before its sandbox is stopped under it (default 3 s).
	CancelGrace time.Duration
	// StopGrace bounds how long Run waits for a cancelled benchmark to
	// return after its sandbox was stopped (default 30 s).
	StopGrace time.Duration
}

// Outcome is one target's share of a comparison.
type Outcome struct {
	Target      Target
	Description string // what ran: "sandbox: mariadbd  Ver 10.11.x-MariaDB ..." or "server 127.0.0.1:3306"
	Points      []matrix.Point
}

// Column is the outcome as the reporters (internal/results/matrix's table,
// internal/chart) read it.
func (o Outcome) Column() matrix.Column {
	return matrix.Column{Label: o.Target.Label, Description: o.Description, Points: o.Points}
}

// Columns are the outcomes' Columns, in order.
func Columns(outcomes []Outcome) []matrix.Column {
	cols := make([]matrix.Column, len(outcomes))
	for i, o := range outcomes {
		cols[i] = o.Column()
	}
	return cols
}

// Run runs the benchmark against each target in turn, never two at once.
// Sandbox binaries are all resolved before anything starts, so a missing
// binary fails fast. Each sandbox is stopped and its directory removed as
// soon as its benchmark ends — on success, on error, on panic and when ctx is
// cancelled (Ctrl-C). The first failing target ends the comparison: Run
// returns the outcomes of the targets that completed and an error naming the
// failing target.
func Run(ctx context.Context, targets []Target, cfg Config) ([]Outcome, error) {
	if cfg.Bench == nil {
		return nil, errors.New("compare: no benchmark function")
	}
	if len(targets) == 0 {
		return nil, errors.New("compare: no targets")
	}
	if cfg.Start == nil {
		cfg.Start = StartSandbox
	}
	if cfg.CancelGrace <= 0 {
		cfg.CancelGrace = 3 * time.Second
	}
	if cfg.StopGrace <= 0 {
		cfg.StopGrace = 30 * time.Second
	}
	binaries, err := Resolve(targets, cfg)
	if err != nil {
		return nil, err
	}
	var outcomes []Outcome
	for i, t := range targets {
		if err := ctx.Err(); err != nil {
			return outcomes, err
		}
		o, err := runOne(ctx, t, binaries[i], cfg)
		if err != nil {
			return outcomes, &TargetError{t.Label, err}
		}
		outcomes = append(outcomes, o)
	}
	return outcomes, nil
}

// Resolve checks the targets' labels and sandbox options and resolves
// each sandbox's binary ("" for a server target), before anything starts.
func Resolve(targets []Target, cfg Config) ([]string, error) {
	seen := map[string]bool{}
	binaries := make([]string, len(targets))
	for i, t := range targets {
		if seen[t.Label] {
			return nil, fmt.Errorf("compare: two targets are labelled %q", t.Label)
		}
		seen[t.Label] = true
		if t.Kind != Sandbox {
			continue
		}
		// A refused option of the last target must not cost the first
		// one's run: every sandbox's options are checked before any starts.
		if err := CheckSandboxOptions(cfg.SandboxOptions, t); err != nil {
			return nil, &TargetError{t.Label, err}
		}
		bin := t.Binary
		if bin == "" {
			bin = cfg.DefaultBinary
		}
		p, err := ResolveBinary(bin)
		if err != nil {
			return nil, &TargetError{t.Label, err}
		}
		binaries[i] = p
	}
	return binaries, nil
}

func (cfg *Config) progress(label, format string, args ...any) {
	if cfg.Progress != nil {
		cfg.Progress(label, fmt.Sprintf(format, args...))
	}
}

// TargetError is the error of one target: its label and what went wrong.
type TargetError struct {
	Label string
	Err   error
}

func (e *TargetError) Error() string { return "target " + e.Label + ": " + e.Err.Error() }
func (e *TargetError) Unwrap() error { return e.Err }

// runOne runs one target. For a sandbox, the deferred Stop runs on every
// way out of this function.
func runOne(ctx context.Context, t Target, binary string, cfg Config) (o Outcome, err error) {
	o, ep, stop, err := Open(ctx, t, binary, cfg)
	if err != nil {
		return o, err
	}
	if stop != nil {
		defer func() {
			if serr := stop(); serr != nil && err == nil {
				err = fmt.Errorf("stopping sandbox: %w", serr)
			}
		}()
	}
	o.Points, err = bench(ctx, t.Label, ep, cfg, stop)
	return o, err
}

// Open readies one target: it starts a sandbox (binary as Resolve gave
// it) or works out a server's endpoint. stop (nil for a server) stops and
// removes the sandbox and says so; the caller must call it on every way
// out. Rounds (internal/orchestrator) keep every side open at once.
func Open(ctx context.Context, t Target, binary string, cfg Config) (o Outcome, ep Endpoint, stop func() error, err error) {
	o = Outcome{Target: t}
	switch t.Kind {
	case Sandbox:
		opts := append(append([]string(nil), cfg.SandboxOptions...), t.ServerOptions...)
		desc := binary
		if len(opts) > 0 {
			desc += " " + strings.Join(opts, " ")
		}
		cfg.progress(t.Label, "starting sandbox %s", desc)
		started := time.Now()
		if cfg.Start == nil {
			cfg.Start = StartSandbox
		}
		sb, err := cfg.Start(ctx, binary, opts, cfg.TempDir)
		if err != nil {
			return o, ep, nil, err
		}
		stopped := false
		stop = func() error {
			if stopped {
				return nil
			}
			stopped = true
			err := sb.Stop()
			cfg.progress(t.Label, "sandbox stopped and removed")
			return err
		}
		cfg.progress(t.Label, "sandbox %s up in %.1fs (socket %s, port %d)", sb.Version, time.Since(started).Seconds(), sb.Endpoint.Socket, sb.Endpoint.Port)
		ep = sb.Endpoint
		o.Description = "sandbox: " + sb.Version
		if len(opts) > 0 {
			o.Description += " (" + strings.Join(opts, " ") + ")"
		}
	case Server:
		ep = cfg.Base
		ep.Sandbox = false
		if t.Host != "" {
			ep.Host, ep.Socket = t.Host, ""
		}
		if t.Port != 0 {
			ep.Port = t.Port
		}
		if t.Socket != "" {
			ep.Socket = t.Socket
		}
		if t.User != "" {
			ep.User = t.User
		}
		if t.PasswordSet {
			ep.Password, ep.PasswordSet = t.Password, true
		}
		o.Description = t.String()
		cfg.progress(t.Label, "%s", o.Description)
	default:
		return o, ep, nil, fmt.Errorf("unknown target kind %v", t.Kind)
	}
	return o, ep, stop, nil
}

// bench runs cfg.Bench in a goroutine so that a cancelled ctx can stop the
// sandbox under a benchmark that does not watch ctx itself (its connections
// then fail and it returns). A panic in the benchmark becomes an error, so
// the caller's deferred Stop still runs.
func bench(ctx context.Context, label string, ep Endpoint, cfg Config, stop func() error) ([]matrix.Point, error) {
	type result struct {
		points []matrix.Point
		err    error
	}
	done := make(chan result, 1)
	go func() {
		defer func() {
			if p := recover(); p != nil {
				done <- result{err: fmt.Errorf("benchmark panicked: %v\n%s", p, debug.Stack())}
			}
		}()
		pts, err := cfg.Bench(ctx, label, ep)
		done <- result{pts, err}
	}()
	select {
	case r := <-done:
		if r.err == nil && ctx.Err() != nil {
			r.err = ctx.Err()
		}
		return r.points, r.err
	case <-ctx.Done():
		// A runner that watches ctx stops between statements and cleans up
		// within moments; give it that chance before pulling the server
		// from under it, then wait (bounded) for it to notice.
		select {
		case <-done:
			return nil, ctx.Err()
		case <-time.After(cfg.CancelGrace):
		}
		if stop != nil {
			_ = stop()
		}
		select {
		case <-done:
		case <-time.After(cfg.StopGrace):
		}
		return nil, ctx.Err()
	}
}
