package mysqlslap

import (
	"errors"
	"io"
	"strings"

	"github.com/goslap/goslap/internal/orchestrator"
	"github.com/goslap/goslap/internal/shard"
	"github.com/goslap/goslap/internal/target"
	slapscript "github.com/goslap/goslap/internal/workload/mysqlslap"
	"github.com/goslap/goslap/sqlgen"
)

// Config is a command line after Validate: the values the options
// resolve to, what they imply, and what the run is built from. Every
// stage after the front end reads it; none changes it, and none reads
// the options themselves: only OptionRecord, the document's record of
// them, taken when parsing ended.
type Config struct {
	// OptionRecord is the --json document's record of the options, by
	// option name (recordOptions, captured by ParseCommandLine); read it
	// through options(), a copy.
	OptionRecord map[string]any
	// Connection is the resolved connection (after the password prompt);
	// a target's run connects with Connection.to(its endpoint).
	Connection Connection
	// Outputs are what the run writes and where; Limits bound its loads.
	Outputs Outputs
	Limits  Limits
	// Script is the configuration of mysqlslap's script (Plan, the seed
	// of Limits, templates, counts, hooks); a run or a print adds its
	// output and hooks. Zero with --workload.
	Script slapscript.Config
	// Sandbox are the targets' settings (with Targets).
	Sandbox SandboxPlan
	// OnlyPrint is --only-print; AllowDropExisting
	// --allow-drop-existing-schema (checkSchemaSafety).
	OnlyPrint         bool
	AllowDropExisting bool
	// QueryOnlySchema is --create-schema when the run creates nothing (no
	// -a, no --create): a connection error for it gets a hint
	// (withSchemaHint); "" otherwise.
	QueryOnlySchema string
	// Silent: no Benchmark blocks, Target: lines, comparison progress or
	// progress line. --silent, or implied: by --csv and --only-print (as
	// in mysqlslap) and by a --json document on stdout, which must be
	// all that stdout holds.
	Silent bool

	// Plan is mysqlslap's statement program (nil with --workload).
	Plan *sqlgen.Plan
	// CSV is the --csv destination, opened where mysqlslap opens it; nil
	// without --csv. Close closes it.
	CSV      io.Writer
	closeCSV func() error

	// Targets are the sandboxes and servers of a --sandbox or --target
	// run, in order; nil for a plain run.
	Targets []target.Target
	// Rounds is --rounds on mysqlslap's load (0 without; rounds.go),
	// InTurn --sides-in-turn.
	Rounds int
	InTurn bool

	// Workload is the study of a --workload run (nil for mysqlslap's
	// load); DefaultStop says its stop rule is the workload's default.
	Workload    *orchestrator.Config
	DefaultStop bool

	// Shard is this process's part of a mysqlslap run split over shard
	// processes (--shard); nil for a whole run. A --workload run keeps
	// its sharding in Workload.
	Shard *shard.Starter
}

// Close closes the --csv file (a no-op for stdout or no --csv).
func (c *Config) Close() error {
	if c.closeCSV == nil {
		return nil
	}
	return c.closeCSV()
}

// Validate is the one validation of a command line, run once after
// ParseCommandLine: every rule in the order mysqlslap applies its own
// (spec 2.6, 3.1), so that a command line with several mistakes gets
// mysqlslap's message and exit status; goslap's rules sit where they
// report before anything is created, started or connected. It also does
// what mysqlslap does in that sequence: it opens the --csv file, reads
// statement files and builds the statements, and prompts for a bare -p.
// env gives the terminal prompt and stdout (for --csv to stdout).
//
// The order (mysqlslap's steps marked M). goslap's checks of its own
// options come before anything is created; its refusals of mysqlslap
// values that mysqlslap would run wrongly (hang, crash, guess, a report
// of zeros) come after all of mysqlslap's checks, where mysqlslap would
// go on to run them, so that a command line mysqlslap refuses gets
// mysqlslap's message:
//
//  1. M the combination checks (sqlgen.CheckCombination)
//  2. --exact-count, --json with --csv (checkExtensions); a --workload
//     run continues with validateWorkload
//  3. --workload's options without --workload (checkWorkloadOptions)
//  4. the shard options without --shard, --shard with --sandbox, --target
//     or --only-print (checkShardOptions, options_shard.go)
//  5. --sandbox, --sandbox-option, --target (sandboxTargets), then
//     --rounds and --sides-in-turn (checkRounds)
//  6. --only-print with --json, the --json and --plot files (checkOutputFiles)
//  7. M open --csv (OpenCSV)
//  8. M statement files: not a regular file, cannot be opened (readStatements)
//  9. M the password prompt
//  10. M more than two positional words
//  11. a statement value that looks like a missing file (readStatements)
//  12. --iterations=0, an empty --delimiter, negative counts (sqlgen.CheckValues)
//  13. an unknown -a load type (checkLoadType)
//  14. --concurrency (sqlgen.ParseConcurrency)
//  15. the statement lists: -x/-y, unique-write-number 0, an empty first
//     --query statement, a count with no statements (buildPlan, sqlgen.Build)
//  16. --shard=I/N, --start-at, --late-start, --shard-wait, --run-id, and
//     every --concurrency value against the shard count (shardStarter)
func Validate(o *Options, env Env) (*Config, error) {
	c, _, err := validate(o, env)
	return c, err
}

// validate is Validate, also returning the options it validated: o's
// copy with the prompted password (for the tests of the parser; nothing
// after Validate reads them).
func validate(o *Options, env Env) (*Config, *Options, error) {
	opts := *o
	c, err := validateCopy(&opts, env)
	return c, &opts, err
}

// validateCopy validates o, Validate's own copy of the options (the
// prompt writes the password there), in the order Validate's comment
// lists; c.resolve and c.resolveRun take from it what later stages read.
func validateCopy(o *Options, env Env) (*Config, error) {
	c := &Config{OptionRecord: o.record, Silent: impliesSilent(o)}
	if err := sqlgen.CheckCombination(planConfig(o)); err != nil {
		return nil, exitWith(err)
	}
	if err := checkExtensions(o); err != nil {
		return nil, err
	}
	c.resolve(o)
	if o.workload.selected() {
		if err := validateWorkload(c, o, env); err != nil {
			return nil, err
		}
		return c, nil
	}
	for _, check := range []func(*Options) error{checkWorkloadOptions, checkShardOptions} {
		if err := check(o); err != nil {
			return nil, err
		}
	}
	var err error
	if c.Targets, err = sandboxTargets(o); err != nil {
		return nil, err
	}
	if err := checkRounds(c, o); err != nil {
		return nil, err
	}
	// mysqlslap's load samples the server for --server-report only.
	if err := checkSampling(o, o.Ext.ServerReport && o.Ext.ServerMetrics, c.Targets); err != nil {
		return nil, err
	}
	if err := checkOutputFiles(o); err != nil {
		return nil, err
	}
	csv, closeCSV, err := OpenCSV(o, env.Stdout)
	if err != nil {
		return nil, err
	}
	c.CSV, c.closeCSV = csv, closeCSV
	if c.Plan, err = statementPlan(o, env); err != nil {
		c.Close()
		return nil, err
	}
	if c.Shard, err = shardStarter(o, c.Plan, env); err != nil {
		c.Close()
		return nil, err
	}
	c.resolveRun(o)
	return c, nil
}

// statementPlan is Validate's steps 8 to 15: mysqlslap's statement files,
// prompt and word count, then goslap's refusals, then the plan.
func statementPlan(o *Options, env Env) (*sqlgen.Plan, error) {
	cfg, mistyped, err := readStatements(o)
	if err != nil {
		return nil, err
	}
	if err := promptPassword(o, env); err != nil {
		return nil, err
	}
	if len(o.Args) > 2 {
		return nil, Exitf(1, "Too many arguments")
	}
	if mistyped != nil {
		return nil, mistyped
	}
	if err := sqlgen.CheckValues(cfg); err != nil {
		return nil, exitWith(err)
	}
	if err := checkLoadType(o); err != nil {
		return nil, err
	}
	if _, err := sqlgen.ParseConcurrency(cfg.Concurrency); err != nil {
		return nil, exitWith(err)
	}
	return buildPlan(cfg)
}

// impliesSilent is Config.Silent: --silent, --csv, --only-print, or
// --json to stdout.
func impliesSilent(o *Options) bool {
	return o.Silent || o.CSVSet || o.OnlyPrint || JSONToStdout(o)
}

// validateWorkload is Validate's part for --workload=NAME: steps 12 and
// 13, the study's configuration (studyConfig, which holds the front end's
// rules for it), the study's own consistency rules (orchestrator.Config.Check: they are the
// study's, shared with goslap sysbench's front end, so they live there),
// then the password prompt. Positional words are the phase, so
// mysqlslap's two-word rule does not apply.
func validateWorkload(c *Config, o *Options, env Env) error {
	if err := sqlgen.CheckValues(planConfig(o)); err != nil {
		return exitWith(err)
	}
	if err := checkLoadType(o); err != nil {
		return err
	}
	// A shard's text report goes to stderr beside its document.
	cfg, defaultStop, err := studyConfig(c, o, shardReportOut(o, env))
	if err == nil {
		err = cfg.Check()
	}
	if err != nil {
		var ee *ExitError
		if errors.As(err, &ee) {
			return ee
		}
		return &ExitError{Code: 1, Msg: ProgName + ": " + strings.TrimPrefix(err.Error(), ProgName+": "), Err: err}
	}
	c.Workload, c.DefaultStop = cfg, defaultStop
	// The study's connections read the password when they connect, so
	// the prompt can come last, as in mysqlslap.
	if err := promptPassword(o, env); err != nil {
		return err
	}
	c.resolveRun(o)
	// The server's endpoint with the typed password: a target's
	// connection takes its credentials from its endpoint.
	c.Workload.Base = c.Connection.endpoint()
	return nil
}

// checkLoadType refuses, with -a, a load type that names none (goslap's
// rule, spec 8): mysqlslap looks at its first letter only and silently
// runs mixed when it matches none.
func checkLoadType(o *Options) error {
	if o.AutoGenerateSQL && !knownLoadType(o.LoadType) {
		return Exitf(1, "--auto-generate-sql-load-type=%s: unknown load type; use %s or %s "+
			"(mysqlslap reads only the first letter and silently runs mixed when it matches none)",
			o.LoadType, strings.Join(loadTypes[:len(loadTypes)-1], ", "), loadTypes[len(loadTypes)-1])
	}
	return nil
}

// loadTypes are --auto-generate-sql-load-type's values, in --help's order.
var loadTypes = []string{"mixed", "update", "write", "key", "read"}

// knownLoadType accepts a load type name or a prefix of one (mysqlslap looks
// at the first letter only, so "r" and "read" both mean read). Anything else
// mysqlslap runs as mixed; goslap refuses it. Without -a the value is only
// the CSV label, and any text stays allowed.
func knownLoadType(v string) bool {
	for _, t := range loadTypes {
		if v != "" && strings.HasPrefix(t, v) {
			return true
		}
	}
	return false
}

// promptPassword asks for the password of a bare -p, as mysqlslap does at
// the end of its option handling; a bare -p with no terminal is an error,
// never a hang.
func promptPassword(o *Options, env Env) error {
	if !o.promptPassword {
		return nil
	}
	if env.ReadPassword == nil {
		return errNoTerminal()
	}
	pw, err := env.ReadPassword("Enter password: ")
	if errors.Is(err, ErrNoTerminal) {
		return errNoTerminal()
	}
	if err != nil {
		return Exitf(1, "cannot read the password: %v", err)
	}
	o.Password, o.PasswordSet = pw, true
	return nil
}

func errNoTerminal() error {
	return Exitf(1, "--password without a value needs a terminal to prompt on; use --password=SECRET or MYSQL_PWD")
}
