package mysqlslap

import (
	"context"
	"fmt"
	mrand "math/rand"

	"github.com/goslap/goslap/internal/mysqlconn"
	"github.com/goslap/goslap/internal/templates"
	"github.com/goslap/goslap/sqlgen"
)

// Kind is what a main-connection step does.
type Kind int

const (
	// NoteStep is a --verbose line (-vv) within the steps.
	NoteStep Kind = iota
	DropSchema
	CreateSchema
	// SelectSchema makes the schema the default one: the client library's
	// select-db in a run, "use NAME" in --only-print, as mysqlslap.
	SelectSchema
	// Statement is a create, pre- or post-query list statement, or SET
	// AUTOCOMMIT=0 before the load with --commit.
	Statement
	// CreateListDone follows the create list's last statement (a real run
	// records what the schema holds now).
	CreateListDone
	// KeyList reads the primary keys the clients' key statements choose
	// from (nothing is read for a blackhole engine nor in --only-print).
	KeyList
	// System is a --pre-system or --post-system command (Name says which).
	System
)

// Step is one main-connection step of an iteration.
type Step struct {
	Kind   Kind
	Text   string // the statement, the note, or the command
	Name   string // System: "pre_system" or "post_system"
	Engine sqlgen.Engine
}

func (s *Script) dropSchema() Step {
	return Step{Kind: DropSchema, Text: "DROP SCHEMA IF EXISTS " + mysqlconn.QuoteName(s.plan.Schema)}
}

// before yields the steps ahead of iteration's load (spec 3.2).
func (s *Script) before(engine sqlgen.Engine, do func(Step) error) error {
	p := s.plan
	if p.OwnsSchema {
		if err := do(s.dropSchema()); err != nil {
			return err
		}
	}
	if p.HasCreate {
		for _, st := range []Step{
			{Kind: NoteStep, Text: "Loading Pre-data"},
			{Kind: CreateSchema, Text: "CREATE SCHEMA " + mysqlconn.QuoteName(p.Schema)},
			{Kind: SelectSchema, Text: p.Schema},
		} {
			if err := do(st); err != nil {
				return err
			}
		}
		for list := p.CreateList(); ; {
			st, i, ok := list.Next()
			if !ok {
				break
			}
			if i >= 0 {
				st.Text = s.mainText(s.create, i, st.Text)
			}
			if err := do(Step{Kind: Statement, Text: st.WithEngine(engine)}); err != nil {
				return err
			}
		}
		if err := do(Step{Kind: CreateListDone}); err != nil {
			return err
		}
	}
	if err := do(Step{Kind: NoteStep, Text: "Generating primary key list"}); err != nil {
		return err
	}
	if p.NeedsKeys {
		if err := do(Step{Kind: KeyList, Text: "SELECT id from t1", Engine: engine}); err != nil {
			return err
		}
	}
	if p.Commit > 0 {
		if err := do(Step{Kind: Statement, Text: "SET AUTOCOMMIT=0"}); err != nil {
			return err
		}
	}
	if err := do(Step{Kind: System, Name: "pre_system", Text: s.cfg.PreSystem}); err != nil {
		return err
	}
	return s.list(p.PreQuery, s.pre, do)
}

// after yields the steps after iteration's load.
func (s *Script) after(do func(Step) error) error {
	if err := s.list(s.plan.PostQuery, s.post, do); err != nil {
		return err
	}
	return do(Step{Kind: System, Name: "post_system", Text: s.cfg.PostSystem})
}

func (s *Script) list(list []sqlgen.Statement, tmpl []*templates.Template, do func(Step) error) error {
	for i, st := range list {
		if err := do(Step{Kind: Statement, Text: s.mainText(tmpl, i, st.Text)}); err != nil {
			return err
		}
	}
	return nil
}

// mrandSource is the main connection's template source of one load,
// created when first needed.
type mrandSource struct{ r *mrand.Rand }

// mainText renders statement i of a main-connection list for the current
// load; text is returned as is without a template.
func (s *Script) mainText(list []*templates.Template, i int, text string) string {
	if list == nil || list[i] == nil {
		return text
	}
	if s.mainRand.r == nil {
		s.mainRand.r = templates.NewSource(s.cfg.Seed, 1<<63|s.load)
	}
	return list[i].Render(s.mainRand.r)
}

// Error is a main-connection step that failed, in mysqlslap's words.
type Error struct{ Msg string }

func (e *Error) Error() string { return e.Msg }

func stepErr(format string, args ...any) error { return &Error{Msg: fmt.Sprintf(format, args...)} }

// Exec performs st on the main connection c as a real run does, with
// mysqlslap's -vvv echo and error texts.
func (s *Script) Exec(ctx context.Context, c *mysqlconn.Conn, st Step) error {
	cfg := &s.cfg
	schema := s.plan.Schema
	switch st.Kind {
	case NoteStep:
		s.note(st.Text)
	case DropSchema:
		s.echo(st.Text)
		if err := c.Exec(st.Text); err != nil {
			return stepErr("Cannot drop database '%s' ERROR : %s", schema, mysqlconn.ErrorText(err))
		}
		s.created = false
	case CreateSchema:
		s.echo(st.Text)
		if err := c.Exec(st.Text); err != nil {
			return stepErr("Cannot create schema %s : %s", schema, mysqlconn.ErrorText(err))
		}
		s.created = true
		if cfg.SchemaCreated != nil {
			if err := cfg.SchemaCreated(c); err != nil {
				return stepErr("Cannot create schema %s : %s", schema, mysqlconn.ErrorText(err))
			}
		}
		// mysqlslap -vvv prints the CREATE SCHEMA line a second time (spec 4.3).
		s.echo(st.Text)
	case SelectSchema:
		if err := c.Exec("USE " + mysqlconn.QuoteName(schema)); err != nil {
			return stepErr("Cannot select schema '%s': %s", schema, mysqlconn.ErrorText(err))
		}
	case Statement:
		if err := ctx.Err(); err != nil {
			return err
		}
		s.echo(st.Text)
		if err := c.Exec(st.Text); err != nil {
			return stepErr("Cannot run query %s ERROR : %s", st.Text, mysqlconn.ErrorText(err))
		}
	case CreateListDone:
		if cfg.TablesCreated != nil {
			if err := cfg.TablesCreated(c); err != nil {
				return stepErr("%s", mysqlconn.ErrorText(err))
			}
		}
	case KeyList:
		if st.Engine.UsesFakeKeys() {
			s.keys = []string{sqlgen.FakeKey}
			return nil
		}
		s.echo(st.Text)
		keys, err := c.QueryStrings(st.Text)
		if err != nil {
			return stepErr("Cannot select GUID primary keys. (%s)", mysqlconn.ErrorText(err))
		}
		s.keys = keys
	case System:
		if st.Text != "" && cfg.System != nil {
			return cfg.System(ctx, st.Name, st.Text)
		}
	}
	return nil
}

func (s *Script) note(line string) {
	if s.cfg.Note != nil {
		s.cfg.Note(line)
	}
}

func (s *Script) echo(stmt string) {
	if s.cfg.Echo != nil {
		s.cfg.Echo(stmt + ";")
	}
}
