package mysqlslap

import (
	"reflect"
	"testing"

	"github.com/goslap/goslap/internal/getopt"
)

// TestRecordedMarksOptionsFields: of the options the --json document
// reads through their variable (not unrecorded, not in optionValue), the
// table's Recorded mark is true exactly for those whose variable is a
// field of Options, as reflection finds them here: an option bound to
// scratch space with the mark, or to Options without it, fails this.
// --sweep-server-option, bound to o.workload, is recorded through
// optionValue.
func TestRecordedMarksOptionsFields(t *testing.T) {
	o := newOptions()
	table := optionTable(&parseState{opts: o, strSet: map[string]bool{}})
	fields := map[uintptr]bool{}
	var walk func(v reflect.Value)
	walk = func(v reflect.Value) {
		for i := 0; i < v.NumField(); i++ {
			f := v.Field(i)
			fields[f.Addr().Pointer()] = true
			if f.Kind() == reflect.Struct {
				walk(f)
			}
		}
	}
	walk(reflect.ValueOf(o).Elem())
	for _, spec := range table {
		var p any
		switch {
		case spec.Bool != nil:
			p = spec.Bool
		case spec.Uint32 != nil:
			p = spec.Uint32
		case spec.Uint64 != nil:
			p = spec.Uint64
		case spec.String != nil:
			p = spec.String
		}
		inOptions := p != nil && fields[reflect.ValueOf(p).Pointer()]
		name := getopt.HelpName(spec.Name)
		if name == "sweep-server-option" {
			if spec.Recorded || optionValue[name] == nil {
				t.Errorf("--%s: recorded by its variable, or not through optionValue", name)
			}
			continue
		}
		if p == nil || unrecordedOptions[name] || optionValue[name] != nil {
			continue // not read through its variable
		}
		if inOptions != spec.Recorded {
			t.Errorf("--%s: Recorded %v, but its variable is a field of Options: %v", name, spec.Recorded, inOptions)
		}
	}
}
