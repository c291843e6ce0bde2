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
	var words []string
	if _, ok := byName["sysbench-compat"]; ok {
		words = append(words, "--sysbench-compat="+string(c.Dialect))
	}
	for _, a := range c.WorkloadArgs {
		o := byName[a.Name]
		if o == nil {
			if carriedByPoint[a.Name] {
				continue
			}
			return invalidOption(a.Word)
		}
		switch o.Var {
		case getopt.VarBool:
			b, err := boolValue(word{raw: a.Word, value: a.Value, hasValue: a.HasValue})
			if err != nil {
				return err
			}
			v := "0"
			if b {
				v = "1"
			}
			words = append(words, "--"+o.Name+"="+v)
		case getopt.VarUint32, getopt.VarUint64:
			if !a.HasValue || a.Value == "" || strings.TrimLeft(a.Value, "0123456789") != "" {
				return invalidValue(a.Name, a.Value)
			}
			words = append(words, "--"+o.Name+"="+a.Value)
		default:
			if a.HasValue {
				words = append(words, "--"+o.Name+"="+a.Value)
			} else {
				words = append(words, "--"+o.Name)
			}
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
	return nil
}

// Names lists the registered workloads, for messages.
func Names() string {
	var names []string
	for _, m := range workload.All() {
		if m.Name == luascript.Name {
			continue // a script is named by its file, not by "lua"
		}
		names = append(names, m.Name)
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
