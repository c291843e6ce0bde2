package sysbench

import (
	"bytes"
	"fmt"
	"sort"
	"strings"

	"github.com/goslap/goslap/internal/getopt"
	"github.com/goslap/goslap/internal/workload"
	"github.com/goslap/goslap/internal/workload/luascript"
)

// carriedByPoint are options a workload may lack a row for because they
// travel in workload.Point (Engine, EngineOptions).
var carriedByPoint = map[string]bool{"mysql-storage-engine": true, "mysql-create-options": true}

// ApplyWorkload sets the workload options of c on s through s's own option
// rows (sysbench 1.0 names): the dialect first (a "sysbench-compat" row, if
// the workload has one), then every assignment in command-line order. A
// name with no row is sysbench's "invalid option" error.
func ApplyWorkload(s workload.Settings, c *Config) error {
	rows := s.Options()
	byName := map[string]*getopt.Option{}
	for _, o := range rows {
		byName[getopt.Normalize(o.Name)] = o
	}
	// words are the command line's; fromFile the --config-file's, which
	// come after them and are parsed one by one so that an error names
	// the file's line instead of repeating its text.
	var words []string
	type fileWord struct {
		word, name string
		from       *Origin
	}
	var fromFile []fileWord
	if _, ok := byName["sysbench-compat"]; ok {
		words = append(words, "--sysbench-compat="+string(c.Dialect))
	}
	for _, a := range c.WorkloadArgs {
		o := byName[a.Name]
		if o == nil {
			if carriedByPoint[a.Name] {
				continue
			}
			return a.From.lineError(invalidOption(a.Word))
		}
		var w string
		switch o.Var {
		case getopt.VarBool:
			b, err := boolValue(word{raw: a.Word, value: a.Value, hasValue: a.HasValue})
			if err != nil {
				return a.From.lineError(err)
			}
			v := "0"
			if b {
				v = "1"
			}
			w = "--" + o.Name + "=" + v
		case getopt.VarUint32, getopt.VarUint64:
			if !a.HasValue || a.Value == "" || strings.TrimLeft(a.Value, "0123456789") != "" {
				return a.From.lineError(invalidValue(a.Name, a.Value))
			}
			w = "--" + o.Name + "=" + a.Value
		default:
			if a.HasValue {
				w = "--" + o.Name + "=" + a.Value
			} else {
				w = "--" + o.Name
			}
		}
		if a.From != nil {
			fromFile = append(fromFile, fileWord{w, a.Name, a.From})
		} else {
			words = append(words, w)
		}
	}
	var msgs bytes.Buffer
	p := getopt.NewParser("goslap sysbench", rows, &msgs)
	err := p.Parse(words, false)
	if err == nil {
		err = p.Finish()
	}
	if err != nil {
		msg := strings.TrimSpace(msgs.String() + "\n" + err.Error())
		return &ParseError{Msg: "FATAL: " + strings.ReplaceAll(msg, "\n", "\nFATAL: "), Stdout: true}
	}
	// The workload validates most values when it is built, and its
	// messages repeat them: a build that worked before a file's line and
	// fails after it is that line's error, said by its place.
	common := workload.Common{Schema: c.MySQL.DB}
	_, before := s.Build(c.Workload, common)
	for _, fw := range fromFile {
		err := p.Parse([]string{fw.word}, true)
		if err == nil {
			err = p.Finish()
		}
		if err == nil && before == nil {
			_, err = s.Build(c.Workload, common)
		}
		if err != nil {
			return fw.from.lineError(&ParseError{Msg: err.Error(), option: fw.name})
		}
	}
	return nil
}

// Names lists the registered workloads this front end runs, for messages
// and --help.
func Names() string {
	var names []string
	for _, m := range workload.All() {
		if m.Name != luascript.Name { // a script is named by its file, not by "lua"
			names = append(names, m.Name)
		}
	}
	sort.Strings(names)
	return strings.Join(names, ", ")
}

// Resolve finds c's workload in the registry and fills its settings; the
// error for an unknown test names what exists.
func Resolve(c *Config) (workload.Meta, workload.Settings, error) {
	if c.Test == "" {
		return workload.Meta{}, nil, &ParseError{Msg: "FATAL: no test given: goslap sysbench [options]... testname [prepare|run|cleanup|help] (tests: " + Names() + ")", Stdout: true}
	}
	m, err := workload.Lookup(c.Workload)
	if err != nil {
		what := fmt.Sprintf("'%s'", c.Test)
		if c.Workload != c.Test && c.Workload != "" {
			what = fmt.Sprintf("'%s' (goslap's %s)", c.Test, c.Workload)
		}
		return workload.Meta{}, nil, &ParseError{Msg: fmt.Sprintf("FATAL: Cannot find benchmark %s: no such built-in test, file or module (built-in tests: %s)", what, Names()), Stdout: true}
	}
	s := m.NewSettings()
	if err := configureScript(c, s); err != nil {
		return m, nil, err
	}
	if err := ApplyWorkload(s, c); err != nil {
		return m, nil, err
	}
	return m, s, nil
}
