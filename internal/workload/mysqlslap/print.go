package mysqlslap

import (
	"bufio"
	"context"
	mrand "math/rand"

	"github.com/goslap/goslap/sqlgen"
)

// Print renders the script as mariadb-slap --only-print does (spec 3.9,
// 4.3): every statement that would be sent as "<text>;\n", in execution
// order, clients one after another (mysqlslap interleaves them at random;
// with one client the output is byte-identical), key statements with the
// fake key, no --detach. connected prints each client's "connected!"
// (-vvv). The Note hook prints the --verbose lines; System runs the hook
// commands after w is flushed, so their output follows what was printed
// before them. done is called after each benchmark (the CSV line).
func (s *Script) Print(w *bufio.Writer, connected bool, done func(engine sqlgen.Engine, clients int) error) error {
	return s.Walk(&printer{s: s, w: w, connected: connected, done: done})
}

type printer struct {
	s         *Script
	w         *bufio.Writer
	connected bool
	done      func(sqlgen.Engine, int) error
}

func (pr *printer) Note(line string) { pr.s.note(line) }

func (pr *printer) Done(engine sqlgen.Engine, clients int) error {
	if pr.done == nil {
		return nil
	}
	return pr.done(engine, clients)
}

func (pr *printer) statement(text string) {
	pr.w.WriteString(text)
	pr.w.WriteString(";\n")
}

func (pr *printer) Main(st Step) error {
	switch st.Kind {
	case NoteStep:
		pr.s.note(st.Text)
	case DropSchema, CreateSchema, Statement:
		pr.statement(st.Text)
	case SelectSchema:
		pr.statement("use " + st.Text)
	case System:
		if st.Text == "" || pr.s.cfg.System == nil {
			return nil
		}
		if err := pr.w.Flush(); err != nil {
			return err
		}
		return pr.s.cfg.System(context.Background(), st.Name, st.Text)
	}
	return nil
}

func (pr *printer) Load(_ sqlgen.Engine, clients, _ int) error {
	l := pr.s.NewLoad(clients)
	for id := range clients {
		pr.client(l, id)
	}
	return nil
}

// client prints one client's statements: the loop of spec 3.5.
func (pr *printer) client(l *Load, id int) {
	s, p := pr.s, pr.s.plan
	tmpl := s.query
	var rnd *mrand.Rand
	if tmpl != nil {
		rnd = clientSource(s.cfg.Seed, l.load, id)
	}
	if pr.connected {
		pr.w.WriteString("connected!\n")
	}
	if p.Commit > 0 {
		pr.statement("SET AUTOCOMMIT=0")
	}
	limit := l.clientLimit(id)
	var executed uint64
	sinceCommit := 0
	n := l.n
	cur := p.NewQueryCursor() // nil unless the list is generated as it goes
	var buf []byte
	for pass := true; pass; pass = limit != 0 && executed < limit && n > 0 {
		for i := range n {
			var st sqlgen.Statement
			if cur != nil {
				var text []byte
				text, st.NeedsKey = cur.Next(buf[:0])
				buf = text
				st.Text = string(text)
			} else {
				st = p.Query[i]
			}
			switch {
			case st.NeedsKey:
				pr.statement(st.WithKey(sqlgen.FakeKey))
			case tmpl != nil && tmpl[i] != nil:
				pr.statement(tmpl[i].Render(rnd))
			default:
				pr.statement(st.Text)
			}
			executed++
			if p.Commit > 0 {
				if sinceCommit++; sinceCommit == p.Commit {
					pr.statement("COMMIT")
					sinceCommit = 0
				}
			}
			if limit != 0 && executed == limit {
				break
			}
		}
	}
	if p.Commit > 0 {
		pr.statement("COMMIT")
	}
}
