// Package getopt parses command-line words the way MariaDB's my_getopt does:
// long names with '-'/'_' equivalence and unique-prefix abbreviation, the
// special prefixes skip-/disable-/enable-/maximum-/loose-/autoset-, boolean
// words, numbers with K..E suffixes, clustered short options, and the exit
// codes of my_getopt.h. Options are registered in a pflag.FlagSet (one per
// Parser), which stores the values; the word scanning is done here because
// pflag's conventions (no prefixes, no special prefixes) are not MariaDB's.
package getopt

import (
	"fmt"
	"io"
	"strings"

	"github.com/spf13/pflag"
)

// Exit codes of my_getopt.h, shared by MySQL and MariaDB.
const (
	ExitUnspecified       = 1
	ExitUnknownOption     = 2
	ExitAmbiguousOption   = 3
	ExitNoArgumentAllowed = 4
	ExitArgumentRequired  = 5
	ExitVarPrefixNotUniq  = 6
	ExitUnknownVariable   = 7
	ExitUnknownSuffix     = 9
	ExitOptionDisabled    = 12
	ExitArgumentInvalid   = 13
)

// ArgKind says whether an option takes a value.
type ArgKind int

const (
	NoArg       ArgKind = iota // a flag; "=v" is an error unless the variable is a bool
	RequiredArg                // --x=v, --x v, -Xv, -X v
	OptionalArg                // --x=v or -Xv only; a separate word is never taken
)

// VarKind is the type of the variable an option sets.
type VarKind int

const (
	VarNone   VarKind = iota // no variable: only the Hook acts (help, version, verbose)
	VarBool                  // my_bool: 1/ON/TRUE, 0/OFF/FALSE
	VarUint32                // GET_UINT
	VarUint64                // GET_ULL
	VarString                // GET_STR
)

// Option describes one option. Exactly one of the pointers matching Var is set.
type Option struct {
	// Name is the long name as the program's option table spells it: words
	// separated by '-', or by '_' where MariaDB's table has them
	// (plugin_dir), since its messages quote that spelling. Matching treats
	// the two alike; --help shows '-' (see HelpName).
	Name  string
	Short byte // short letter, 0 when none
	Arg   ArgKind
	Var   VarKind
	Help  string // description shown by --help

	Bool   *bool
	Uint32 *uint32
	Uint64 *uint64
	String *string

	// ExactOnly options are matched by their full name only and never take part in
	// unique-prefix matching or ambiguity, so adding them cannot change what a
	// MariaDB prefix means (MySQL-only options and goslap's own options).
	ExactOnly bool
	// Disabled options (mysqlslap's --debug in release builds) are reported with
	// rc 12 whenever used.
	Disabled bool

	// Hook runs after the variable (if any) is set. An error it returns stops
	// parsing and is returned by Parse unchanged.
	Hook func(s Setting) error

	// Off, when set, is what --skip-X and --disable-X do instead of storing
	// the word "0" (my_getopt's rule for strings and numbers): goslap's own
	// options that take a value are switched off by them. --enable-X then
	// means the bare option (an error when it requires a value).
	Off func() error
}

// Setting is one application of an option, passed to its Hook.
type Setting struct {
	Opt      *Option
	Value    string // the value after special-prefix translation
	HasValue bool
	FromFile bool // the word came from an option file, not from argv
	ShortSet bool // given as -X
}

// Error is a parse failure: Msg holds complete lines (no final newline) that
// have not been written anywhere yet; it may be empty when the text was
// already written to the Parser's Stderr.
type Error struct {
	Code int
	Msg  string
}

func (e *Error) Error() string { return e.Msg }

// Parser parses words against a fixed option list.
type Parser struct {
	Prog    string    // program name for messages
	Options []*Option // table order: ambiguity messages name the first and last match
	Stderr  io.Writer // Info:/Warning: lines and deferred value errors, as they happen

	// Positional collects the non-option words, in order.
	Positional []string

	flags   *pflag.FlagSet
	byShort map[byte]*Option
	byName  map[string]*Option // normalised full name → option

	// Value errors (bad number, disabled option) do not stop my_getopt: it prints
	// them and returns the last code at the end. pending holds their lines until
	// something else is written to Stderr or Parse returns.
	pending     []string
	pendingCode int
}

// NewParser builds a parser and registers every option in a fresh pflag.FlagSet.
func NewParser(prog string, opts []*Option, stderr io.Writer) *Parser {
	p := &Parser{Prog: prog, Options: opts, Stderr: stderr,
		flags:   pflag.NewFlagSet(prog, pflag.ContinueOnError),
		byShort: map[byte]*Option{}, byName: map[string]*Option{}}
	p.flags.SortFlags = false
	for _, o := range opts {
		short := ""
		if o.Short != 0 {
			short = string(o.Short)
			p.byShort[o.Short] = o
		}
		p.byName[Normalize(o.Name)] = o
		p.flags.VarPF(&flagValue{o}, o.Name, short, o.Help)
	}
	return p
}

// FlagSet exposes the pflag registry (values can be read through it).
func (p *Parser) FlagSet() *pflag.FlagSet { return p.flags }

// Normalize folds '_' to '-', the my_getopt name equivalence.
func Normalize(name string) string { return strings.ReplaceAll(name, "_", "-") }

// HelpName is the name as my_print_help and my_print_variables show it.
func HelpName(name string) string { return Normalize(name) }

func (p *Parser) errorf(format string, args ...any) string {
	return p.Prog + ": " + fmt.Sprintf(format, args...)
}

// note writes an Info/Warning line, after any pending value errors so that the
// order on stderr is mariadb-slap's.
func (p *Parser) note(line string) {
	p.Flush()
	fmt.Fprintln(p.Stderr, line)
}

// Flush writes pending value-error lines to Stderr (call before printing
// anything else, e.g. --help output).
func (p *Parser) Flush() {
	for _, l := range p.pending {
		fmt.Fprintln(p.Stderr, l)
	}
	p.pending = nil
}

func (p *Parser) soft(code int, lines ...string) {
	p.pending = append(p.pending, lines...)
	p.pendingCode = code
}

// fail builds the final error: pending lines come first, as mariadb-slap
// printed them before the fatal one.
func (p *Parser) fail(code int, lines ...string) *Error {
	all := append(p.pending, lines...)
	p.pending = nil
	return &Error{Code: code, Msg: strings.Join(all, "\n")}
}

// Finish returns the deferred value error, if any (call after the last Parse).
func (p *Parser) Finish() error {
	if p.pendingCode == 0 {
		return nil
	}
	code := p.pendingCode
	p.pendingCode = 0
	return p.fail(code)
}

// Parse processes words left to right. fromFile words are "--name[=value]" from
// option files: a required value is never taken from the next word.
func (p *Parser) Parse(words []string, fromFile bool) error {
	for i := 0; i < len(words); i++ {
		w := words[i]
		if n, lookalike, _ := leadingDashes(w); lookalike && n > 0 && !fromFile {
			if fixed, ok := p.dashedWord(w); ok {
				_, what := lookalikes(w)
				p.soft(ExitUnknownOption, p.errorf("'%s' starts with %s, not '-': did you mean %s?", w, what, fixed))
				continue
			}
		}
		switch {
		case w == "--" && !fromFile:
			p.Positional = append(p.Positional, words[i+1:]...)
			return nil
		case strings.HasPrefix(w, "--"):
			next := func() (string, bool) {
				if fromFile || i+1 >= len(words) {
					return "", false
				}
				i++
				return words[i], true
			}
			if err := p.long(w[2:], fromFile, next); err != nil {
				return err
			}
		case len(w) > 1 && w[0] == '-':
			consumed, err := p.shorts(w, words[i+1:], fromFile)
			if err != nil {
				return err
			}
			i += consumed
		default:
			p.Positional = append(p.Positional, w)
		}
	}
	return nil
}

type match int

const (
	matchNone match = iota
	matchExact
	matchPrefix
	matchAmbiguous
)

// find resolves a long name: an exact name always wins; otherwise a unique
// prefix among the prefixable options. For an ambiguous prefix it returns the
// first and last matching options in table order.
func (p *Parser) find(name string) (m match, o, last *Option) {
	n := Normalize(name)
	if o := p.byName[n]; o != nil && n != "" {
		return matchExact, o, nil
	}
	if n == "" {
		return matchNone, nil, nil
	}
	var first *Option
	count := 0
	for _, c := range p.Options {
		if c.ExactOnly || !strings.HasPrefix(Normalize(c.Name), n) {
			continue
		}
		if first == nil {
			first = c
		}
		last = c
		count++
	}
	switch count {
	case 0:
		return matchNone, nil, nil
	case 1:
		return matchPrefix, first, nil
	}
	return matchAmbiguous, first, last
}

var specialPrefixes = []string{"skip", "disable", "enable", "maximum", "loose", "autoset"}

// long handles one "--body" word (body excludes the dashes).
func (p *Parser) long(body string, fromFile bool, next func() (string, bool)) error {
	name, value, hasValue := strings.Cut(body, "=")
	m, o, last := p.find(name)
	if m == matchAmbiguous {
		p.soft(ExitAmbiguousOption, p.errorf("ambiguous option '--%s' (%s, %s)", body, o.Name, last.Name))
		return nil
	}
	special, loose := "", false
	if m == matchNone {
		// my_getopt strips special prefixes one at a time and restarts the
		// search after each strip, so --loose-skip-x works.
		rest := name
	restart:
		for {
			for _, sp := range specialPrefixes {
				nr := Normalize(rest)
				if !strings.HasPrefix(nr, sp+"-") {
					continue
				}
				rest = rest[len(sp)+1:]
				if sp == "loose" {
					loose = true
				}
				m, o, last = p.find(rest)
				restBody := rest
				if hasValue {
					restBody += "=" + value
				}
				if m == matchAmbiguous {
					first := p.errorf("ambiguous option '--%s-%s' (--%s-%s)", sp, restBody, sp, o.Name)
					if hasValue {
						p.soft(ExitVarPrefixNotUniq, first, p.errorf("variable prefix '%s' is not unique", restBody))
						return nil
					}
					p.soft(ExitAmbiguousOption, first, p.errorf("ambiguous option '--%s' (%s, %s)", restBody, o.Name, last.Name))
					return nil
				}
				if m != matchNone {
					special = sp
					name = rest
					break restart
				}
				continue restart
			}
			break
		}
	}
	if m == matchNone {
		kind, text, code := "option", "'--"+body+"'", ExitUnknownOption
		if hasValue {
			kind, text, code = "variable", "'"+body+"'", ExitUnknownVariable
		}
		if loose {
			p.note(fmt.Sprintf("Warning: %s: unknown %s %s", p.Prog, kind, text))
			return nil
		}
		lines := []string{p.errorf("unknown %s %s", kind, text)}
		if fixed, what := lookalikes(body); what != "" && !fromFile {
			lines = append(lines, p.errorf("'--%s' contains %s: did you mean --%s?", body, what, fixed))
		}
		p.soft(code, lines...)
		return nil
	}
	if m == matchPrefix {
		p.note(fmt.Sprintf("Info: Using unique option prefix '%s' is error-prone and can break in the future. Please use the full name '%s' instead.", name, o.Name))
	}

	if o.Off != nil && (special == "skip" || special == "disable" || special == "enable") {
		off := special != "enable"
		if hasValue && value == "0" {
			off = !off // --skip-x=0 is a double negation, as for booleans
		}
		return p.switchOnOff(o, off, fromFile)
	}
	prefixed := false
	switch special {
	case "skip", "disable":
		value, hasValue, prefixed = boolWord(value == "0" && hasValue), true, true
	case "enable":
		value, hasValue, prefixed = boolWord(!(value == "0" && hasValue)), true, true
	case "autoset":
		if o.Var != VarBool {
			p.soft(ExitArgumentInvalid, p.errorf("automatic setup request is unsupported by option '--%s'", o.Name))
			return nil
		}
		value, hasValue, prefixed = "1", true, true
	}

	if o.Disabled {
		shown := o.Name
		if hasValue && !prefixed {
			shown += "=" + value
		}
		p.soft(ExitOptionDisabled, p.errorf("ERROR: Option '%s' used, but is disabled", shown))
		return nil
	}
	switch o.Arg {
	case NoArg:
		if hasValue && o.Var != VarBool {
			msg := p.errorf("option '--%s' cannot take an argument", o.Name)
			p.soft(ExitNoArgumentAllowed, msg)
			return nil
		}
		if o.Var == VarBool && hasValue && !prefixed {
			b, ok := ParseBool(value)
			if !ok {
				p.note(fmt.Sprintf("Warning: %s: ignoring option '--%s' due to invalid value '%s'", p.Prog, o.Name, value))
				return nil
			}
			value = boolWord(b)
		}
	case RequiredArg:
		if !hasValue {
			v, ok := next()
			if !ok {
				p.soft(ExitArgumentRequired, p.errorf("option '--%s' requires an argument", o.Name))
				return nil
			}
			value, hasValue = v, true
		}
	}
	return p.apply(Setting{Opt: o, Value: value, HasValue: hasValue, FromFile: fromFile}, prefixed)
}

// switchOnOff applies --skip-/--disable-/--enable- to an option with an
// Off function: off runs it, on is the bare option.
func (p *Parser) switchOnOff(o *Option, off, fromFile bool) error {
	if off {
		if err := o.Off(); err != nil {
			p.Flush()
			return err
		}
		return nil
	}
	if o.Arg == RequiredArg {
		p.soft(ExitArgumentRequired, p.errorf("option '--%s' requires an argument", o.Name))
		return nil
	}
	return p.apply(Setting{Opt: o, FromFile: fromFile}, false)
}

// shorts handles a "-abc" cluster; rest are the following words (a required
// value may be taken from the first). It returns how many of them it consumed.
func (p *Parser) shorts(w string, rest []string, fromFile bool) (int, error) {
	for j := 1; j < len(w); j++ {
		c := w[j]
		o := p.byShort[c]
		if o == nil {
			p.soft(ExitUnknownOption, p.errorf("unknown option '-%c'", c))
			return 0, nil
		}
		if o.Disabled {
			// -#d: the message is printed and the rest of the word is read as
			// more short options (observed).
			p.soft(ExitOptionDisabled, p.errorf("ERROR: Option '-%c' used, but is disabled", c))
			continue
		}
		s := Setting{Opt: o, FromFile: fromFile, ShortSet: true}
		attached := w[j+1:]
		consumed := 0
		switch o.Arg {
		case RequiredArg:
			if attached != "" {
				s.Value, s.HasValue = attached, true
			} else if len(rest) > 0 && !fromFile {
				s.Value, s.HasValue, consumed = rest[0], true, 1
			} else {
				p.soft(ExitArgumentRequired, p.errorf("option '-%c' requires an argument", c))
				return 0, nil
			}
		case OptionalArg:
			if attached != "" {
				s.Value, s.HasValue = attached, true
			}
		}
		if err := p.apply(s, false); err != nil {
			return 0, err
		}
		if s.HasValue && consumed == 0 && o.Arg != NoArg {
			return 0, nil // the value used up the rest of the word
		}
		if consumed > 0 {
			return consumed, nil
		}
	}
	return 0, nil
}

// apply stores the value in the option's variable and runs its hook.
// prefixed says the value came from skip-/enable-/disable-/autoset-.
func (p *Parser) apply(s Setting, prefixed bool) error {
	o := s.Opt
	if s.HasValue && !s.FromFile {
		if what, pasted := pastedValue(s.Value); pasted {
			fixed, _ := lookalikes(s.Value)
			p.soft(ExitArgumentInvalid, p.errorf("the value of --%s contains %s, as pasted from a web page or document: did you mean --%s=%s?",
				o.Name, what, o.Name, strings.TrimRight(fixed, " ")))
			return nil
		}
	}
	switch o.Var {
	case VarBool:
		if !s.HasValue {
			*o.Bool = true
			break
		}
		b, ok := ParseBool(s.Value)
		if !ok {
			// Only optional-argument booleans (--ssl) get here with a bad word.
			p.note(fmt.Sprintf("Warning: option '%s': boolean value '%s' wasn't recognized. Set to OFF.", o.Name, s.Value))
		}
		*o.Bool = b
	case VarUint32, VarUint64:
		bits := 64
		if o.Var == VarUint32 {
			bits = 32
		}
		v := s.Value
		if !s.HasValue {
			v = ""
		}
		// On a bad number my_getopt still stores 0 (observed: -i 7 -i -1 shows 0).
		n, err := p.parseUnsigned(o.Name, v, bits)
		if err != nil {
			n = 0
		}
		if bits == 32 {
			*o.Uint32 = uint32(n)
		} else {
			*o.Uint64 = n
		}
	case VarString:
		v := s.Value
		if prefixed {
			// Observed: --skip-create-schema gives "0", --enable-create-schema "".
			if v == "1" {
				v = ""
			}
		}
		*o.String = v
		s.Value = v
	}
	if o.Hook != nil {
		if err := o.Hook(s); err != nil {
			if e, ok := err.(*Error); ok {
				p.soft(e.Code, e.Msg)
				return nil
			}
			p.Flush()
			return err
		}
	}
	return nil
}

// ParseBool accepts my_getopt's boolean words, case-insensitively.
func ParseBool(v string) (value, ok bool) {
	switch strings.ToLower(v) {
	case "1", "on", "true":
		return true, true
	case "0", "off", "false":
		return false, true
	}
	return false, false
}

func boolWord(b bool) string {
	if b {
		return "1"
	}
	return "0"
}

// flagValue lets pflag hold our options; it renders the current value.
type flagValue struct{ o *Option }

func (f *flagValue) String() string {
	switch f.o.Var {
	case VarBool:
		if f.o.Bool != nil && *f.o.Bool {
			return "true"
		}
		return "false"
	case VarUint32:
		return fmt.Sprint(*f.o.Uint32)
	case VarUint64:
		return fmt.Sprint(*f.o.Uint64)
	case VarString:
		return *f.o.String
	}
	return ""
}

func (f *flagValue) Set(v string) error {
	return fmt.Errorf("getopt: option --%s is set through Parser.Parse, not pflag", f.o.Name)
}

func (f *flagValue) Type() string {
	return [...]string{"none", "bool", "uint32", "uint64", "string"}[f.o.Var]
}
