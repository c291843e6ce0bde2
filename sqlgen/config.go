package sqlgen

import (
	"errors"
	"fmt"
)

// Source is one user statement option (--create, --query, --pre-query,
// --post-query) after the caller has resolved a file name to its contents.
type Source struct {
	Text string
	Set  bool // the option was given (an empty Text is still a list)
}

// Config is exactly what Build needs; package mysqlslap (internal/cli/mysqlslap) maps its Options onto it.
// Column specs, the engine list and the concurrency list are raw option text
// so that their parsing (and its errors) lives here, next to the generator.
type Config struct {
	AutoGenerate      bool   // -a
	AddAutoIncrement  bool   // --auto-generate-sql-add-autoincrement
	GUIDPrimary       bool   // --auto-generate-sql-guid-primary
	SecondaryIndexes  int    // --auto-generate-sql-secondary-indexes
	IntCols           string // -y raw "N[:I]" (mysqlslap's default is "1")
	CharCols          string // -x raw "N[:I]" (mysqlslap's default is "1")
	LoadType          string // --auto-generate-sql-load-type verbatim
	UniqueQueryNumber uint64 // --auto-generate-sql-unique-query-number
	UniqueWriteNumber uint64 // --auto-generate-sql-unique-write-number
	WriteNumber       uint64 // --auto-generate-sql-write-number
	ExecuteNumber     uint64 // --auto-generate-sql-execute-number
	NumberOfQueries   uint64 // --number-of-queries

	Create, Query, PreQuery, PostQuery Source
	Delimiter                          string // only the first byte is used; must not be empty

	Engines     string // --engine raw list
	EnginesSet  bool
	Concurrency string // -c raw list (mysqlslap's default is "1")
	Iterations  int
	Commit      int
	Detach      int
	Schema      string
	NoDrop      bool
}

// Error texts of mysqlslap's checks (spec 2.6), without the program prefix.
var (
	ErrAutoWithCreateOrQuery = errors.New("Can't use --auto-generate-sql when create and query strings are specified!")
	ErrBothPrimaryKeys       = errors.New("Either auto-generate-sql-guid-primary or auto-generate-sql-add-autoincrement can be used!")
	ErrKeyTestWithoutPK      = errors.New("Can't perform key test without a primary key!")
	ErrExecuteAndNumber      = errors.New("Either auto-generate-sql-execute-number or number-of-queries can be used!")
)

// Build derives the Plan of a run from cfg. It refuses a cfg that fails
// Check (its precondition, so that no caller can build from unchecked
// options), then rejects, with one clear error each, what only the
// statement lists show (spec 8): bad -x, -y, unique-write-number 0 with
// write-number ≥ 2, a --query list whose first statement is empty, and
// execute-number / number-of-queries with no statements to execute.
func Build(cfg Config) (*Plan, error) {
	if err := Check(cfg); err != nil {
		return nil, err
	}
	concurrency, err := ParseConcurrency(cfg.Concurrency)
	if err != nil {
		return nil, err
	}

	p := &Plan{
		Schema:          cfg.Schema,
		Concurrency:     concurrency,
		Iterations:      cfg.Iterations,
		Commit:          cfg.Commit,
		Detach:          cfg.Detach,
		LoadType:        cfg.LoadType,
		NeedsKeys:       cfg.AddAutoIncrement || cfg.GUIDPrimary,
		executeNumber:   cfg.ExecuteNumber,
		numberOfQueries: cfg.NumberOfQueries,
	}
	delimiter := cfg.Delimiter[0]

	if cfg.AutoGenerate {
		if err := buildAuto(cfg, p); err != nil {
			return nil, err
		}
	} else {
		if cfg.Create.Set {
			p.HasCreate = true
			p.Create = userStatements(Split(cfg.Create.Text, delimiter), true)
		}
		if cfg.Query.Set {
			all := Split(cfg.Query.Text, delimiter)
			if len(all) == 0 || all[0] == "" {
				return nil, fmt.Errorf("--query %q has no statement before its first delimiter; mysqlslap would loop forever or run nothing", cfg.Query.Text)
			}
			p.queryCount = uint64(len(all))
			p.Query = userStatements(all, false)
		}
	}
	if p.QueryLen() == 0 && (cfg.ExecuteNumber != 0 || cfg.NumberOfQueries != 0) {
		return nil, errors.New("--auto-generate-sql-execute-number and --number-of-queries need statements to execute: give --query or --auto-generate-sql")
	}
	if cfg.PreQuery.Set {
		p.PreQuery = userStatements(Split(cfg.PreQuery.Text, delimiter), false)
	}
	if cfg.PostQuery.Set {
		p.PostQuery = userStatements(Split(cfg.PostQuery.Text, delimiter), false)
	}
	p.OwnsSchema = p.HasCreate && !cfg.NoDrop

	p.BuildLog = append(p.BuildLog, "Parsing engines to use.")
	p.Engines = []Engine{{}}
	if cfg.EnginesSet {
		p.Engines = ParseEngines(cfg.Engines)
	}
	return p, nil
}

// Check makes mysqlslap's checks right after option parsing
// (CheckCombination), then goslap's (CheckValues). A front end that
// reports errors in mysqlslap's order calls the two apart: mysqlslap's
// first, goslap's after every other check of mysqlslap's.
func Check(cfg Config) error {
	if err := CheckCombination(cfg); err != nil {
		return err
	}
	return CheckValues(cfg)
}

// CheckValues rejects the values on which mysqlslap prints a report of
// zeros or crashes (spec 8): --iterations=0, an empty --delimiter,
// negative counts. The concurrency list, the column specs and the
// statement lists are Build's to reject (ParseConcurrency alone checks
// the first).
func CheckValues(cfg Config) error {
	switch {
	case cfg.Iterations < 1:
		return errors.New("--iterations must be at least 1 (mysqlslap would print a report of zeros)")
	case cfg.Delimiter == "":
		return errors.New("--delimiter must not be empty (mysqlslap would crash)")
	case cfg.Commit < 0 || cfg.Detach < 0 || cfg.SecondaryIndexes < 0:
		return errors.New("--commit, --detach and --auto-generate-sql-secondary-indexes must not be negative")
	}
	return nil
}

// CheckCombination makes mysqlslap's checks of option combinations (spec
// 2.6, checks 1-4, same order and text); without -a it checks nothing, as
// mysqlslap.
func CheckCombination(cfg Config) error {
	if !cfg.AutoGenerate {
		return nil
	}
	switch {
	case cfg.Create.Set || cfg.Query.Set:
		return ErrAutoWithCreateOrQuery
	case cfg.AddAutoIncrement && cfg.GUIDPrimary:
		return ErrBothPrimaryKeys
	case loadTypeOf(cfg.LoadType) == loadKey && !cfg.AddAutoIncrement && !cfg.GUIDPrimary:
		return ErrKeyTestWithoutPK
	case cfg.ExecuteNumber != 0 && cfg.NumberOfQueries != 0:
		return ErrExecuteAndNumber
	}
	return nil
}

// userStatements turns split text into Statements, stopping at the first
// empty one because mysqlslap stops executing every list there. For a
// --create list the first statement receives the engine clause.
func userStatements(all []string, firstIsCreateTable bool) []Statement {
	var out []Statement
	for i, text := range all {
		if text == "" {
			break
		}
		out = append(out, Statement{Text: text, CreateTable: firstIsCreateTable && i == 0})
	}
	return out
}
