package getopt

import (
	"strings"
	"testing"
)

// table is a small option set in the shape of mysqlslap's.
func table() (opts []*Option, iter *uint32, name *string, flag *bool, count *int) {
	iter, name, flag, count = new(uint32), new(string), new(bool), new(int)
	opts = []*Option{
		{Name: "auto-generate-sql", Short: 'a', Arg: NoArg, Var: VarBool, Bool: flag},
		{Name: "auto-generate-sql-write-number", Arg: RequiredArg, Var: VarUint32, Uint32: new(uint32)},
		{Name: "iterations", Short: 'i', Arg: RequiredArg, Var: VarUint32, Uint32: iter},
		{Name: "create-schema", Arg: RequiredArg, Var: VarString, String: name},
		{Name: "verbose", Short: 'v', Arg: NoArg, Hook: func(Setting) error { *count++; return nil }},
		{Name: "exact-only", Arg: RequiredArg, Var: VarString, String: new(string), ExactOnly: true},
	}
	return
}

func TestParse(t *testing.T) {
	tests := []struct {
		args      []string
		wantIter  uint32
		wantName  string
		wantFlag  bool
		wantCount int
		wantCode  int
		wantMsg   string // the error message, or what was written to stderr
		wantPos   []string
	}{
		{args: []string{"-i5"}, wantIter: 5},
		{args: []string{"-i", "5", "x"}, wantIter: 5, wantPos: []string{"x"}},
		{args: []string{"--iter=2k"}, wantIter: 2048, wantMsg: "Info: Using unique option prefix 'iter' is error-prone and can break in the future. Please use the full name 'iterations' instead.\n"},
		{args: []string{"--ITERATIONS=1"}, wantCode: ExitUnknownVariable, wantMsg: "t: unknown variable 'ITERATIONS=1'"},
		{args: []string{"--create_schema", "s"}, wantName: "s"},
		{args: []string{"-avvv"}, wantFlag: true, wantCount: 3},
		{args: []string{"--auto"}, wantCode: ExitAmbiguousOption, wantMsg: "t: ambiguous option '--auto' (auto-generate-sql, auto-generate-sql-write-number)"},
		{args: []string{"--auto-generate-sql"}, wantFlag: true},
		{args: []string{"--exact"}, wantCode: ExitUnknownOption, wantMsg: "t: unknown option '--exact'"},
		{args: []string{"--exact-only=v"}},
		{args: []string{"-i", "-1"}, wantCode: ExitArgumentInvalid, wantMsg: "Incorrect unsigned value: '-1' for iterations\nt: Error while setting value '-1' to 'iterations'"},
		{args: []string{"-i", "5000000000"}, wantIter: 4294967295, wantMsg: "Warning: option 'iterations': unsigned value 5000000000 adjusted to 4294967295\n"},
		{args: []string{"--iterations"}, wantCode: ExitArgumentRequired, wantMsg: "t: option '--iterations' requires an argument"},
		{args: []string{"-i", "3", "--", "-i", "4"}, wantIter: 3, wantPos: []string{"-i", "4"}},
		{args: []string{"--skip-create-schema"}, wantName: "0"},
		{args: []string{"--auto-generate-sql=maybe"}, wantMsg: "Warning: t: ignoring option '--auto-generate-sql' due to invalid value 'maybe'\n"},
		{args: []string{"--loose-nope=1"}, wantMsg: "Warning: t: unknown variable 'loose-nope=1'\n"},
		// Look-alikes pasted from web pages and documents (issue 15 item 8).
		{args: []string{"\u2013iterations=5"}, wantCode: ExitUnknownOption,
			wantMsg: "t: '\u2013iterations=5' starts with an en dash (U+2013), not '-': did you mean --iterations=5?"},
		{args: []string{"\u2014iterations=5"}, wantCode: ExitUnknownOption,
			wantMsg: "t: '\u2014iterations=5' starts with an em dash (U+2014), not '-': did you mean --iterations=5?"},
		{args: []string{"\u2013-iter=5"}, wantCode: ExitUnknownOption,
			wantMsg: "t: '\u2013-iter=5' starts with an en dash (U+2013), not '-': did you mean --iter=5?"},
		{args: []string{"\u2212i5"}, wantCode: ExitUnknownOption,
			wantMsg: "t: '\u2212i5' starts with a minus sign (U+2212), not '-': did you mean -i5?"},
		{args: []string{"\u2013a"}, wantCode: ExitUnknownOption,
			wantMsg: "t: '\u2013a' starts with an en dash (U+2013), not '-': did you mean -a?"},
		{args: []string{"\uff0d\uff0diterations\uff1d\uff15"}, wantCode: ExitUnknownOption,
			wantMsg: "t: '\uff0d\uff0diterations\uff1d\uff15' starts with a full-width hyphen-minus (U+FF0D), not '-': did you mean --iterations=5?"},
		{args: []string{"--iterations\uff1d5"}, wantCode: ExitUnknownOption,
			wantMsg: "t: unknown option '--iterations\uff1d5'\nt: '--iterations\uff1d5' contains a full-width '=' (U+FF1D): did you mean --iterations=5?"},
		{args: []string{"--auto-generate-sql\u00a0-v"}, wantCode: ExitUnknownOption,
			wantMsg: "t: unknown option '--auto-generate-sql\u00a0-v'\nt: '--auto-generate-sql\u00a0-v' contains a no-break space (U+00A0): did you mean --auto-generate-sql -v?"},
		{args: []string{"--iterations=5\u202f--auto-generate-sql"}, wantCode: ExitArgumentInvalid,
			wantMsg: "t: the value of --iterations contains a narrow no-break space (U+202F), as pasted from a web page or document: did you mean --iterations=5 --auto-generate-sql?"},
		{args: []string{"-i", "5\u00a0\u00a0\u2013a"}, wantCode: ExitArgumentInvalid,
			wantMsg: "t: the value of --iterations contains a no-break space (U+00A0), as pasted from a web page or document: did you mean --iterations=5  -a?"},
		{args: []string{"--create-schema=s\u00a0"}, wantCode: ExitArgumentInvalid,
			wantMsg: "t: the value of --create-schema contains a no-break space (U+00A0), as pasted from a web page or document: did you mean --create-schema=s?"},
		{args: []string{"--create-schema=a\u00a0b"}, wantName: "a\u00a0b"}, // inside a value it may be data
		{args: []string{"-i", "5", "--", "\u2013x"}, wantIter: 5, wantPos: []string{"\u2013x"}},
	}
	for _, tc := range tests {
		t.Run(strings.Join(tc.args, " "), func(t *testing.T) {
			opts, iter, name, flag, count := table()
			var stderr strings.Builder
			p := NewParser("t", opts, &stderr)
			err := p.Parse(tc.args, false)
			if err == nil {
				err = p.Finish()
			}
			code, msg := 0, stderr.String()
			if e, ok := err.(*Error); ok {
				code, msg = e.Code, e.Msg
			}
			if code != tc.wantCode || msg != tc.wantMsg {
				t.Fatalf("code %d msg %q, want %d %q", code, msg, tc.wantCode, tc.wantMsg)
			}
			if code != 0 {
				return
			}
			if *iter != tc.wantIter || *name != tc.wantName || *flag != tc.wantFlag || *count != tc.wantCount {
				t.Errorf("iter %d name %q flag %v count %d", *iter, *name, *flag, *count)
			}
			if strings.Join(p.Positional, " ") != strings.Join(tc.wantPos, " ") {
				t.Errorf("positional %q, want %q", p.Positional, tc.wantPos)
			}
		})
	}
}

func TestFlagSetHoldsOptions(t *testing.T) {
	opts, iter, _, _, _ := table()
	p := NewParser("t", opts, &strings.Builder{})
	if err := p.Parse([]string{"-i", "7"}, false); err != nil {
		t.Fatal(err)
	}
	f := p.FlagSet().Lookup("iterations")
	if f == nil || f.Value.String() != "7" || f.Shorthand != "i" || *iter != 7 {
		t.Fatalf("pflag view of --iterations: %+v", f)
	}
}
