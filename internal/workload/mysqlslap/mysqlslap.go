// Package mysqlslap is mysqlslap's run script, written once: the outer loop
// (engines × concurrency × iterations), the main connection's steps around
// each load (schema, create list, key list, --pre/--post-query and -system)
// and each client's statement stream (keys, templates, --commit,
// --detach). A real run executes the script (Exec for the main
// connection, the engine for the clients); --only-print renders the same
// script as text (Print).
//
//	slap (options) ──Config──▶ Script.Walk ──▶ Visitor: a run (Exec + engine.Run) or Print
//
// It takes a plain Config built by a front end; it never sees a command
// line. It registers no workload: mysqlslap's load is configured by
// mysqlslap's own options, so only the mysqlslap front end runs it (its
// default; --workload=mysqlslap names it there).
package mysqlslap

import (
	"context"
	"fmt"

	"github.com/goslap/goslap/internal/mysqlconn"
	"github.com/goslap/goslap/internal/templates"
	"github.com/goslap/goslap/internal/workload"
	"github.com/goslap/goslap/sqlgen"
)

// Config is one mysqlslap run, from a front end's validated options.
type Config struct {
	Plan *sqlgen.Plan
	// Seed keys every random stream (keys, templates).
	Seed uint64
	// Templates renders --templates placeholders in every statement list.
	Templates bool
	// ExactCount spreads the remainder of NumberOfQueries over the first
	// clients (--exact-count).
	ExactCount      bool
	NumberOfQueries uint64
	// TimeBound: clients run until the engine's deadline (--run-time
	// without a count), not to a per-client limit.
	TimeBound bool
	// PreSystem and PostSystem are the shell commands around each load.
	PreSystem, PostSystem string

	// Note receives mysqlslap's --verbose progress lines (-vv); Echo the
	// statements sent at -vvv ("<text>;" and the clients' "connected!"),
	// from the main connection and the clients concurrently. nil: not
	// printed.
	Note func(line string)
	Echo func(line string)

	// Hooks of a real run on the main connection: SchemaCreated right
	// after CREATE SCHEMA, TablesCreated after the create list, System
	// runs a --pre-system/--post-system command. nil: nothing.
	SchemaCreated func(c *mysqlconn.Conn) error
	TablesCreated func(c *mysqlconn.Conn) error
	System        func(ctx context.Context, name, command string) error
}

// Script is a run's script and its per-run state: the parsed templates,
// the load number and the key list the last iteration read.
type Script struct {
	cfg  Config
	plan *sqlgen.Plan

	// Parsed --templates statements, parallel to the plan's lists; nil
	// without --templates, nil entries for statements without placeholders.
	query, create, pre, post []*templates.Template
	// load numbers the loads of the run: iteration n's random streams are
	// derived from (Seed, n, client), so a rerun with the same seed sends
	// the same statements.
	load     uint64
	mainRand mrandSource
	keys     []string
	// created: this script executed CREATE SCHEMA and has not dropped it
	// since.
	created bool
}

// New parses the script's templates; an error names the bad template.
func New(cfg Config) (*Script, error) {
	s := &Script{cfg: cfg, plan: cfg.Plan}
	if !cfg.Templates {
		return s, nil
	}
	p := cfg.Plan
	for _, l := range []struct {
		dst  *[]*templates.Template
		list []sqlgen.Statement
	}{{&s.query, p.Query}, {&s.create, p.Create}, {&s.pre, p.PreQuery}, {&s.post, p.PostQuery}} {
		var err error
		if *l.dst, err = parseTemplates(l.list); err != nil {
			return nil, fmt.Errorf("--templates: %w", err)
		}
	}
	return s, nil
}

// parseTemplates parses a statement list; nil when none has placeholders.
func parseTemplates(list []sqlgen.Statement) ([]*templates.Template, error) {
	var out []*templates.Template
	for i, s := range list {
		t, err := templates.Parse(s.Text)
		if err != nil {
			return nil, err
		}
		if t.Static() {
			continue
		}
		if out == nil {
			out = make([]*templates.Template, len(list))
		}
		out[i] = t
	}
	return out, nil
}

// Plan is the statement program the script runs.
func (s *Script) Plan() *sqlgen.Plan { return s.plan }

// CreatedSchema reports that the script created its schema and has not
// dropped it since (a failed run drops it again, if it owns it).
func (s *Script) CreatedSchema() bool { return s.created }

// Visitor is what walks the script: a real run or the --only-print
// printer. Main does one main-connection step, Load one iteration's
// clients, Done ends one benchmark (an engine × concurrency value).
type Visitor interface {
	Note(line string)
	Main(st Step) error
	Load(engine sqlgen.Engine, clients, iteration int) error
	Done(engine sqlgen.Engine, clients int) error
}

// Walk runs the script's outer loop (spec 3.2) through v.
func (s *Script) Walk(v Visitor) error {
	p := s.plan
	for _, engine := range p.Engines {
		v.Note("Starting Concurrency Test")
		for _, clients := range p.Concurrency {
			for it := 1; it <= p.Iterations; it++ {
				s.nextLoad()
				if err := s.before(engine, v.Main); err != nil {
					return err
				}
				if err := v.Load(engine, clients, it); err != nil {
					return err
				}
				if err := s.after(v.Main); err != nil {
					return err
				}
			}
			v.Note("Generating stats")
			if err := v.Done(engine, clients); err != nil {
				return err
			}
		}
		if p.OwnsSchema {
			if err := v.Main(s.dropSchema()); err != nil {
				return err
			}
		}
	}
	return nil
}

// Before starts the next load of engine and yields the steps ahead of it
// to do (the main connection's part of an iteration, spec 3.2), for the
// orchestrator's loop, which runs the load between Before and After.
func (s *Script) Before(engine sqlgen.Engine, do func(Step) error) error {
	s.nextLoad()
	return s.before(engine, do)
}

// After yields the steps after a load to do.
func (s *Script) After(do func(Step) error) error { return s.after(do) }

// DropSchema is the step after each engine's runs when the run owns its
// schema.
func (s *Script) DropSchema() Step { return s.dropSchema() }

// nextLoad starts a new load's random streams.
func (s *Script) nextLoad() {
	s.load++
	s.mainRand = mrandSource{}
	s.keys = nil
}

var _ workload.Workload = (*Script)(nil)

// Setup and Teardown do nothing: mysqlslap recreates its schema in every
// iteration's steps.
func (s *Script) Setup(context.Context, *workload.Session, workload.Point) error    { return nil }
func (s *Script) Teardown(context.Context, *workload.Session, workload.Point) error { return nil }

// BeginIteration executes the steps ahead of it's load on the main
// connection (for a driver other than Walk).
func (s *Script) BeginIteration(ctx context.Context, sess *workload.Session, it workload.Iteration) error {
	engine := sqlgen.Engine{}
	for _, e := range s.plan.Engines {
		if e.Name == it.Engine && e.Options == it.EngineOptions {
			engine = e
			break
		}
	}
	s.nextLoad()
	return s.before(engine, func(st Step) error { return s.Exec(ctx, sess.Main, st) })
}

// EndIteration executes the steps after it's load.
func (s *Script) EndIteration(ctx context.Context, sess *workload.Session, _ workload.Iteration) error {
	return s.after(func(st Step) error { return s.Exec(ctx, sess.Main, st) })
}

// Load returns it's clients (workload.Workload).
func (s *Script) Load(it workload.Iteration) (workload.Load, error) {
	return s.NewLoad(it.Clients), nil
}
