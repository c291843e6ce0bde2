package mysqlslap

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"

	"golang.org/x/term"

	"github.com/goslap/goslap/internal/exit"
)

// Main is the goslap command: argv (with argv[0]) in, exit status out. The
// data flows one way: option files and argv → Options (ParseCommandLine) →
// Config (Validate) → the workload's run → results → reporters.
func Main(args []string) int {
	env := DefaultEnv()
	return run(args[1:], env)
}

func run(args []string, env Env) int {
	parsed, err := ParseCommandLine(args, env)
	if err != nil {
		return report(env.Stderr, err)
	}
	c, err := Validate(parsed, env)
	if err != nil {
		return report(env.Stderr, err)
	}
	if c.Workload != nil {
		return runWorkload(c, env)
	}
	if c.Shard != nil {
		return runShardedMysqlslap(c, env)
	}
	defer c.Close()

	if c.OnlyPrint {
		if err := OnlyPrint(env.Stdout, env.Stderr, c); err != nil {
			return report(env.Stderr, err)
		}
		return finish(c.Outputs, env, 0)
	}

	stdout, buffered := reportStdout(env.Stdout)
	// One record (and seed) for the whole invocation, whatever the targets.
	out := Output{Stdout: stdout, Stderr: env.Stderr, CSV: c.CSV, Target: c.Connection.label(), Record: NewRunRecord(c)}
	if c.Rounds > 1 {
		err = RunRounds(c, out)
	} else if len(c.Targets) > 0 {
		_, err = RunTargets(c, out)
	} else {
		var results []BenchmarkResult
		results, err = RunWithSignals(c, out)
		if err == nil && c.Outputs.Plot != "" {
			err = PlotRun(c.Outputs.Plot, out.Target, results)
		}
	}
	return endRun(c, env, buffered, err, func(err error) error {
		doc, jerr := out.Record.document(c.options(), err)
		if jerr != nil {
			return jerr
		}
		return writeJSON(c.Outputs, stdout, doc)
	})
}

// reportStdout is where the report goes: like mysqlslap's stdio, stdout is
// block-buffered when it is not a terminal (buffered is then the buffer to
// flush at the end); CSV lines bypass the buffer (mysqlslap writes them
// with write(2)), which keeps the byte order scripts have seen.
func reportStdout(w io.Writer) (stdout io.Writer, buffered *bufio.Writer) {
	if isTerminal(w) {
		return w, nil
	}
	buffered = bufio.NewWriterSize(w, 4096)
	return buffered, buffered
}

// endRun ends a run that ended with err (nil for success): --json's
// document once per invocation, after every target and after an error
// too (writeDoc), the buffered report flushed, then the exit status.
func endRun(c *Config, env Env, buffered *bufio.Writer, err error, writeDoc func(runErr error) error) int {
	if c.Outputs.JSON {
		if jerr := writeDoc(err); err == nil {
			err = jerr
		}
	}
	if buffered != nil {
		if ferr := buffered.Flush(); ferr != nil && err == nil {
			err = fmt.Errorf("writing the report: %w", ferr)
		}
	}
	if err != nil {
		return report(env.Stderr, withSchemaHint(c.QueryOnlySchema, err))
	}
	return finish(c.Outputs, env, 0)
}

// withSchemaHint adds a line to a connection error 1049 (unknown database)
// for schema, the schema goslap connects to when the run creates nothing
// (no -a, no --create; "" otherwise, Config.QueryOnlySchema): mysqlslap
// then never creates --create-schema, so a --query='call shop.sp(1)' alone
// fails for the default schema mysqlslap, and users read the error as a
// goslap bug.
func withSchemaHint(schema string, err error) error {
	var ee *ExitError
	if schema == "" || !errors.As(err, &ee) ||
		!strings.Contains(ee.Msg, "Error when connecting to server: 1049 Unknown database '"+schema+"'") {
		return err
	}
	return &ExitError{Code: ee.Code, Msg: ee.Msg + "\n" + ProgName + ": with only --query nothing is created, so --create-schema must name an existing schema" +
		" (now '" + schema + "')", Err: ee.Err}
}

// finish prints what mysqlslap prints at a normal end (-T) and returns code.
func finish(out Outputs, env Env, code int) int {
	if out.DebugInfo {
		if err := WriteDebugInfo(env.Stderr); err != nil {
			return report(env.Stderr, err)
		}
	}
	return code
}

// report prints err and returns the exit status it calls for (exit.Report).
func report(stderr io.Writer, err error) int { return exit.Report(stderr, ProgName, err) }

func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	return ok && term.IsTerminal(int(f.Fd()))
}
