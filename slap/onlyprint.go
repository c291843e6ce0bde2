package slap

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"os/signal"

	mrand "math/rand"

	"github.com/goslap/goslap/internal/templates"
	"github.com/goslap/goslap/sqlgen"
)

// stdioBufferSize is glibc's stdout buffer for a pipe or file (st_blksize).
// mysqlslap prints statements through that buffer but writes CSV lines with
// an unbuffered write(2); buffering the same amount reproduces where CSV
// lines land in piped --only-print output (first, for small outputs).
const stdioBufferSize = 4096

// OnlyPrint does what mariadb-slap --only-print does (spec 3.9, 4.3, 4.4):
// it prints every statement that would be sent, as "<text>;\n", in
// execution order, plus the --verbose lines of a run (including
// Plan.BuildLog at -vv and "connected!" per client at -vvv), writes a CSV
// line per engine and concurrency level with zero times when --csv is
// given, and runs --pre-system / --post-system through /bin/sh -c.
//
// Clients are printed one after another (mysqlslap interleaves them at
// random); with one client the output is byte-identical to mariadb-slap's.
// Differences by design: stdout is flushed before each system command, so
// the command's output follows the statements printed before it instead of
// preceding all buffered output as in a piped mariadb-slap; a system command
// that cannot be started is an error.
//
// Warnings about system commands go to stderr, as does nothing else.
func OnlyPrint(stdout, stderr io.Writer, o *Options, p *sqlgen.Plan) (err error) {
	if err := o.finishExtensions(); err != nil {
		return err
	}
	random, err := newRunRandom(o, p, runSeed(o))
	if err != nil {
		return err
	}
	csv, closeCSV, err := OpenCSV(o, stdout)
	if err != nil {
		return err
	}
	defer func() {
		if cerr := closeCSV(); err == nil && cerr != nil {
			err = cerr
		}
	}()
	out := bufio.NewWriterSize(stdout, stdioBufferSize)
	defer func() {
		if ferr := out.Flush(); err == nil && ferr != nil {
			err = ferr
		}
	}()
	pr := &onlyPrinter{out: out, stdout: stdout, stderr: stderr, o: o, p: p, random: random}

	if o.Verbose >= 2 {
		for _, line := range p.BuildLog {
			pr.line(line)
		}
	}
	for _, engine := range p.Engines {
		if o.Verbose >= 2 {
			pr.line("Starting Concurrency Test")
		}
		for _, clients := range p.Concurrency {
			if err := pr.concurrency(engine, clients); err != nil {
				return err
			}
			if csv != nil {
				// Nothing is timed: all times print as 0.000.
				result := &BenchmarkResult{Engine: engine.Name, HasEngine: engine.Named, LoadType: p.LoadType,
					Concurrency: clients, QueriesPerClient: p.PerClientLimit(clients)}
				if err := WriteCSVLine(csv, result); err != nil {
					return fmt.Errorf("writing CSV: %w", err)
				}
			}
		}
		if p.OwnsSchema {
			pr.statement("DROP SCHEMA IF EXISTS `" + p.Schema + "`")
		}
	}
	return nil
}

type onlyPrinter struct {
	out            *bufio.Writer
	stdout, stderr io.Writer
	o              *Options
	p              *sqlgen.Plan
	// random renders --templates statements with the streams a real run with
	// the same --seed uses (random.go).
	random *runRandom
}

func (pr *onlyPrinter) line(s string) {
	pr.out.WriteString(s)
	pr.out.WriteByte('\n')
}

func (pr *onlyPrinter) statement(s string) {
	pr.out.WriteString(s)
	pr.out.WriteString(";\n")
}

func (pr *onlyPrinter) statements(list []sqlgen.Statement, tmpl []*templates.Template) {
	for i, s := range list {
		pr.statement(pr.random.mainText(tmpl, i, s.Text))
	}
}

// concurrency prints all iterations of one concurrency level (spec 3.2).
func (pr *onlyPrinter) concurrency(engine sqlgen.Engine, clients int) error {
	p, o := pr.p, pr.o
	limit := p.PerClientLimit(clients)
	for range p.Iterations {
		pr.random.nextLoad()
		if p.OwnsSchema {
			pr.statement("DROP SCHEMA IF EXISTS `" + p.Schema + "`")
		}
		if p.HasCreate {
			if o.Verbose >= 2 {
				pr.line("Loading Pre-data")
			}
			pr.statement("CREATE SCHEMA `" + p.Schema + "`")
			pr.statement("use " + p.Schema)
			for list := p.CreateList(); ; {
				s, i, ok := list.Next()
				if !ok {
					break
				}
				if i >= 0 {
					s.Text = pr.random.mainText(pr.random.create, i, s.Text)
				}
				pr.statement(s.WithEngine(engine))
			}
		}
		if o.Verbose >= 2 {
			pr.line("Generating primary key list")
		}
		if p.Commit > 0 {
			pr.statement("SET AUTOCOMMIT=0")
		}
		if err := pr.system("pre_system", o.PreSystem); err != nil {
			return err
		}
		pr.statements(p.PreQuery, pr.random.pre)
		for c := range clients {
			pr.client(clientLimit(o, limit, clients, c), c)
		}
		pr.statements(p.PostQuery, pr.random.post)
		if err := pr.system("post_system", o.PostSystem); err != nil {
			return err
		}
	}
	if o.Verbose >= 2 {
		pr.line("Generating stats")
	}
	return nil
}

// client prints one client's statements: the worker loop of spec 3.5 with
// the fake key (no key list is read in --only-print) and without --detach.
func (pr *onlyPrinter) client(limit uint64, id int) {
	p := pr.p
	var rnd *mrand.Rand
	if pr.random.query != nil {
		rnd = pr.random.clientRand(pr.random.loadSeq, id)
	}
	if pr.o.Verbose >= 3 {
		pr.line("connected!")
	}
	if p.Commit > 0 {
		pr.statement("SET AUTOCOMMIT=0")
	}
	var executed uint64
	sinceCommit := 0
	n := p.QueryLen()
	cur := p.NewQueryCursor() // nil unless the list is generated as it goes
	var buf []byte
	for pass := true; pass; pass = limit != 0 && executed < limit && n > 0 {
		for i := range n {
			var s sqlgen.Statement
			if cur != nil {
				var text []byte
				text, s.NeedsKey = cur.Next(buf[:0])
				buf = text
				s.Text = string(text)
			} else {
				s = p.Query[i]
			}
			if s.NeedsKey {
				pr.statement(s.WithKey(sqlgen.FakeKey))
			} else if rnd != nil && pr.random.query[i] != nil {
				pr.statement(pr.random.query[i].Render(rnd))
			} else {
				pr.statement(s.Text)
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

// system flushes what was printed so far, then runs the hook command.
func (pr *onlyPrinter) system(which, command string) error {
	if command == "" {
		return nil
	}
	if err := pr.out.Flush(); err != nil {
		return err
	}
	// The command runs in its own process group (see runSystemHook), out
	// of reach of a Ctrl-C aimed at goslap: end it on an interrupt here too.
	ctx, stop := signal.NotifyContext(context.Background(), interruptSignals...)
	defer stop()
	err := runSystemHook(ctx, which, command, pr.stdout, pr.stderr)
	if ctx.Err() != nil {
		return &ExitError{Code: 130, Msg: ProgName + ": " + ErrInterrupted.Error()}
	}
	return err
}
