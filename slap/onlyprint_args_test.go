package slap

import (
	"fmt"
	"strconv"
	"strings"
)

// parseOptionsForTest turns the argument lists of testdata/onlyprint/cases.txt
// into Options with mariadb-slap's defaults. It understands only the options
// those cases use.
//
// TODO(integrator): replace the body with
//
//	return ParseCommandLine(append([]string{"--no-defaults"}, args...), testEnv)
//
// once ParseCommandLine lands, so the golden cases also cover the parser.
func parseOptionsForTest(args []string) (*Options, error) {
	o := &Options{
		LoadType: "mixed", UniqueQueryNum: 10, UniqueWriteNum: 10, WriteNumber: 100,
		NumberCharCols: "1", NumberIntCols: "1", Delimiter: "\n", Concurrency: "1",
		Iterations: 1, CreateSchema: "mysqlslap",
	}
	uint64Of := func(s string) (uint64, error) { return strconv.ParseUint(s, 10, 64) }
	for i := 0; i < len(args); i++ {
		a := args[i]
		name, value, hasValue := a, "", false
		if strings.HasPrefix(a, "--") {
			name, value, hasValue = strings.Cut(a[2:], "=")
		} else if strings.HasPrefix(a, "-v") && strings.Trim(a[1:], "v") == "" {
			o.Verbose += len(a) - 1
			continue
		} else if len(a) >= 2 && a[0] == '-' {
			short := map[byte]string{'a': "auto-generate-sql", 'x': "number-char-cols", 'y': "number-int-cols",
				'e': "engine", 'i': "iterations", 'c': "concurrency", 'q': "query", 'F': "delimiter", 's': "silent"}
			long, ok := short[a[1]]
			if !ok {
				return nil, fmt.Errorf("test parser: unknown option %q", a)
			}
			name = long
			if len(a) > 2 {
				value, hasValue = a[2:], true
			}
		} else {
			o.Args = append(o.Args, a)
			continue
		}
		flags := map[string]*bool{"auto-generate-sql": &o.AutoGenerateSQL, "auto-generate-sql-add-autoincrement": &o.AddAutoIncrement,
			"auto-generate-sql-guid-primary": &o.GUIDPrimary, "no-drop": &o.NoDrop, "only-print": &o.OnlyPrint, "silent": &o.Silent}
		if p, ok := flags[name]; ok {
			*p = true
			continue
		}
		if name == "csv" {
			o.CSV, o.CSVSet = value, true
			continue
		}
		if !hasValue {
			if i+1 == len(args) {
				return nil, fmt.Errorf("test parser: %q needs a value", a)
			}
			i++
			value = args[i]
		}
		var err error
		switch name {
		case "auto-generate-sql-load-type":
			o.LoadType = value
		case "auto-generate-sql-write-number":
			o.WriteNumber, err = uint64Of(value)
		case "auto-generate-sql-unique-write-number":
			o.UniqueWriteNum, err = uint64Of(value)
		case "auto-generate-sql-unique-query-number":
			o.UniqueQueryNum, err = uint64Of(value)
		case "auto-generate-sql-execute-number":
			o.ExecuteNumber, err = uint64Of(value)
		case "auto-generate-sql-secondary-indexes":
			var n uint64
			n, err = uint64Of(value)
			o.SecondaryIndexes = uint32(n)
		case "number-of-queries":
			o.NumberOfQueries, err = uint64Of(value)
		case "number-char-cols":
			o.NumberCharCols = value
		case "number-int-cols":
			o.NumberIntCols = value
		case "engine":
			o.Engine, o.EngineSet = value, true
		case "iterations":
			var n uint64
			n, err = uint64Of(value)
			o.Iterations = uint32(n)
		case "concurrency":
			o.Concurrency = value
		case "commit":
			var n uint64
			n, err = uint64Of(value)
			o.Commit = uint32(n)
		case "detach":
			var n uint64
			n, err = uint64Of(value)
			o.Detach = uint32(n)
		case "query":
			o.Query, o.QuerySet = value, true
		case "create":
			o.Create, o.CreateSet = value, true
		case "pre-query":
			o.PreQuery, o.PreQuerySet = value, true
		case "post-query":
			o.PostQuery, o.PostQuerySet = value, true
		case "pre-system":
			o.PreSystem = value
		case "post-system":
			o.PostSystem = value
		case "delimiter":
			o.Delimiter = value
		case "create-schema":
			o.CreateSchema = value
		default:
			return nil, fmt.Errorf("test parser: unknown option %q", a)
		}
		if err != nil {
			return nil, fmt.Errorf("test parser: %s: %w", a, err)
		}
	}
	return o, nil
}
