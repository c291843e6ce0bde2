package mysqlslap

import (
	"errors"
	"io/fs"
	"os"
	"strings"

	"github.com/goslap/goslap/sqlgen"
)

// readStatements is Validate's statement-file step: planConfig with
// --create, --query, --pre-query and --post-query read from the file each
// names when it names an existing path (spec 3.6), in mysqlslap's order
// and with its messages. mistyped is goslap's refusal of a value that
// looks like a path but names no file, which mysqlslap would run as SQL:
// Validate reports it after mysqlslap's own checks.
func readStatements(o *Options) (cfg sqlgen.Config, mistyped, err error) {
	cfg = planConfig(o)
	sources := []struct {
		option             string
		src                *sqlgen.Source
		notRegMsg, openMsg string
	}{
		{"create", &cfg.Create, "Create file was not a regular file", "Could not open create file"},
		{"query", &cfg.Query, "User query supplied file was not a regular file", "Could not open query supplied file"},
		{"pre-query", &cfg.PreQuery, "User query supplied file was not a regular file", "Could not open query supplied file"},
		{"post-query", &cfg.PostQuery, "User query supplied file was not a regular file", "Could not open query supplied file"},
	}
	for _, s := range sources {
		if !s.src.Set {
			continue
		}
		text, missing, err := readStatementSource(s.src.Text, s.notRegMsg, s.openMsg)
		if err != nil {
			return cfg, nil, err
		}
		if mistyped == nil && missing && looksLikePath(text) {
			mistyped = Exitf(1, "--%s %q looks like a file name, but there is no such file (write SQL with a space, or fix the path)", s.option, text)
		}
		s.src.Text = text
	}
	return cfg, mistyped, nil
}

// buildPlan is Validate's last step: the statement program of the run
// (sqlgen.Build), every problem a one-line *ExitError with Code 1 before
// anything connects or runs. It prints nothing: the lines mysqlslap
// prints at --verbose ≥ 2 while building ("Building Create Statements for
// Auto", ..., "Parsing engines to use.") are in Plan.BuildLog; Run and
// OnlyPrint print them.
func buildPlan(cfg sqlgen.Config) (*sqlgen.Plan, error) {
	plan, err := sqlgen.Build(cfg)
	if err != nil {
		return nil, exitWith(err)
	}
	return plan, nil
}

// planConfig maps Options onto what sqlgen needs; statement sources still
// hold the raw option values (text or file name).
func planConfig(o *Options) sqlgen.Config {
	return sqlgen.Config{
		AutoGenerate:      o.AutoGenerateSQL,
		AddAutoIncrement:  o.AddAutoIncrement,
		GUIDPrimary:       o.GUIDPrimary,
		SecondaryIndexes:  int(o.SecondaryIndexes),
		IntCols:           o.NumberIntCols,
		CharCols:          o.NumberCharCols,
		LoadType:          o.LoadType,
		UniqueQueryNumber: o.UniqueQueryNum,
		UniqueWriteNumber: o.UniqueWriteNum,
		WriteNumber:       o.WriteNumber,
		ExecuteNumber:     o.ExecuteNumber,
		NumberOfQueries:   o.NumberOfQueries,
		Create:            sqlgen.Source{Text: o.Create, Set: o.CreateSet},
		Query:             sqlgen.Source{Text: o.Query, Set: o.QuerySet},
		PreQuery:          sqlgen.Source{Text: o.PreQuery, Set: o.PreQuerySet},
		PostQuery:         sqlgen.Source{Text: o.PostQuery, Set: o.PostQuerySet},
		Delimiter:         o.Delimiter,
		Engines:           o.Engine,
		EnginesSet:        o.EngineSet,
		Concurrency:       o.Concurrency,
		Iterations:        int(o.Iterations),
		Commit:            int(o.Commit),
		Detach:            int(o.Detach),
		Schema:            o.CreateSchema,
		NoDrop:            o.NoDrop,
	}
}

// readStatementSource returns the SQL text of a statement option: the
// contents of the file it names if that path exists, else the value itself
// (as mysqlslap does), with missing saying no such file exists
// (readStatements refuses a value that looks like a path then). Files are
// opened read-only (mysqlslap asks for O_RDWR for no reason).
func readStatementSource(value, notRegularMsg, openMsg string) (text string, missing bool, err error) {
	info, err := os.Stat(value)
	if err != nil {
		return value, errors.Is(err, fs.ErrNotExist), nil
	}
	if !info.Mode().IsRegular() {
		return "", false, Exitf(1, "%s", notRegularMsg)
	}
	data, err := os.ReadFile(value)
	if err != nil {
		return "", false, Exitf(1, "%s: %v", openMsg, err)
	}
	return string(data), false, nil
}

// looksLikePath: one word without whitespace that contains '/' or ends in
// ".sql" (spec 8). SQL worth running has a space somewhere.
func looksLikePath(value string) bool {
	if value == "" || strings.ContainsAny(value, " \t\n\r\v\f") {
		return false
	}
	return strings.Contains(value, "/") || strings.HasSuffix(strings.ToLower(value), ".sql")
}
