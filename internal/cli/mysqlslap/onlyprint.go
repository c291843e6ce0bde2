package mysqlslap

import (
	"bufio"
	"context"
	"fmt"
	"io"

	"github.com/goslap/goslap/internal/interrupt"
	"github.com/goslap/goslap/sqlgen"
)

// stdioBufferSize is glibc's stdout buffer for a pipe or file (st_blksize).
// mysqlslap prints statements through that buffer but writes CSV lines with
// an unbuffered write(2); buffering the same amount reproduces where CSV
// lines land in piped --only-print output (first, for small outputs).
const stdioBufferSize = 4096

// OnlyPrint does what mariadb-slap --only-print does (spec 3.9, 4.3, 4.4):
// it prints the run's script (mysqlslap.Script.Print) plus the --verbose
// lines of a run (including Plan.BuildLog at -vv), writes a CSV line per
// engine and concurrency level with zero times when --csv is given, and
// runs --pre-system / --post-system through /bin/sh -c.
//
// Differences by design: stdout is flushed before each system command, so
// the command's output follows the statements printed before it instead of
// preceding all buffered output as in a piped mariadb-slap; a system command
// that cannot be started is an error.
//
// Warnings about system commands go to stderr, as does nothing else.
func OnlyPrint(stdout, stderr io.Writer, c *Config) (err error) {
	p, verbose := c.Plan, c.Outputs.Verbose
	out := bufio.NewWriterSize(stdout, stdioBufferSize)
	cfg := c.Script
	if verbose >= 2 {
		cfg.Note = func(line string) {
			out.WriteString(line)
			out.WriteByte('\n')
		}
	}
	cfg.System = func(_ context.Context, which, command string) error {
		// The command runs in its own process group (see runSystemHook),
		// out of reach of a Ctrl-C aimed at goslap: end it on an
		// interrupt here too.
		ctx, stop := interrupt.NotifyContext(context.Background())
		defer stop()
		err := runSystemHook(ctx, which, command, stdout, stderr)
		if ctx.Err() != nil {
			return errInterruptedExit()
		}
		return err
	}
	script, err := newScript(cfg)
	if err != nil {
		return err
	}
	csv := c.CSV // where Validate opened it: stdout or the file
	defer func() {
		if ferr := out.Flush(); err == nil && ferr != nil {
			err = ferr
		}
	}()
	if cfg.Note != nil {
		for _, line := range p.BuildLog {
			cfg.Note(line)
		}
	}
	return script.Print(out, verbose >= 3, func(engine sqlgen.Engine, clients int) error {
		if csv == nil {
			return nil
		}
		// Nothing is timed: all times print as 0.000.
		result := &BenchmarkResult{Engine: engine.Name, HasEngine: engine.Named, LoadType: p.LoadType,
			Concurrency: clients, QueriesPerClient: p.PerClientLimit(clients)}
		if err := WriteCSVLine(csv, result); err != nil {
			return fmt.Errorf("writing CSV: %w", err)
		}
		return nil
	})
}
