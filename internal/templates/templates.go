// Package templates renders goslap's --templates statements: SQL text with
// gofakeit placeholders such as {firstname}, {email}, {number:1,1000} or
// {uuid}, each replaced by a fresh, SQL-escaped value on every execution.
//
// A statement is parsed once (Parse) into literal text and placeholder
// calls with their parameters already resolved; rendering (Append) appends
// into a caller-owned buffer from a caller-owned random source, so clients
// share nothing. The values are escaped as mysql_real_escape_string does
// (backslash escapes), not quoted: write '{firstname}' for a string column
// and {number:1,1000} for a number.
package templates

import (
	"fmt"
	"math/rand"
	"regexp/syntax"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/brianvoe/gofakeit/v6"
)

// Template is one parsed statement.
type Template struct {
	parts []part
	text  string
}

type part struct {
	lit    string
	name   string // placeholder function; "" for a literal part
	info   *gofakeit.Info
	params *gofakeit.MapParams
	gen    func(dst []byte, r *rand.Rand) []byte // goslap's generator in place of gofakeit's, or nil
}

// seededFuncs replace gofakeit functions whose lookup ignores the random
// source it is given (they draw from gofakeit's global, locked source, so
// --seed could not reproduce them): {date} is a DATETIME literal between
// 2000-01-01 and 2029-12-31 drawn from the client's own source.
var seededFuncs = map[string]func(dst []byte, r *rand.Rand) []byte{
	"date": func(dst []byte, r *rand.Rand) []byte {
		const from, span = 946684800, 30 * 365 * 86400 // 2000-01-01 UTC, ~30 years
		return time.Unix(from+r.Int63n(span), 0).UTC().AppendFormat(dst, "2006-01-02 15:04:05")
	},
}

// fastNumber is {number:MIN,MAX} without gofakeit's per-call parameter
// parsing and boxing (the most common placeholder, a point-read id):
// a uniform integer in [MIN, MAX]. nil for anything else.
func fastNumber(name, params string) func(dst []byte, r *rand.Rand) []byte {
	if name != "number" {
		return nil
	}
	v := splitParams(params)
	if len(v) != 2 {
		return nil
	}
	lo, err1 := strconv.ParseInt(v[0], 10, 64)
	hi, err2 := strconv.ParseInt(v[1], 10, 64)
	if err1 != nil || err2 != nil || hi < lo || hi-lo < 0 || hi-lo == 1<<63-1 {
		return nil
	}
	span := hi - lo + 1
	return func(dst []byte, r *rand.Rand) []byte {
		return strconv.AppendInt(dst, lo+r.Int63n(span), 10)
	}
}

// unseeded are gofakeit functions that ignore the random source; refused.
var unseeded = map[string]bool{"isin": true, "person": true, "futuretime": true, "pasttime": true, "daterange": true}

// Parse reads the placeholders of text. A placeholder is "{" NAME "}" or
// "{" NAME ":" PARAMS "}" where NAME is a gofakeit function (letters,
// digits, '_'); PARAMS are comma-separated, a list in [brackets]. "{{"
// is a literal "{". A "{" not followed by a name and "}" or ":" (JSON
// text, say) stays as it is; a well-formed placeholder naming an unknown
// function is an error, so typos do not reach the server.
func Parse(text string) (*Template, error) {
	t := &Template{text: text}
	var lit strings.Builder
	for i := 0; i < len(text); i++ {
		c := text[i]
		if c != '{' {
			lit.WriteByte(c)
			continue
		}
		if i+1 < len(text) && text[i+1] == '{' {
			lit.WriteByte('{')
			i++
			continue
		}
		j := i + 1
		for j < len(text) && isNameByte(text[j]) {
			j++
		}
		if j == i+1 || j >= len(text) || (text[j] != '}' && text[j] != ':') {
			lit.WriteByte(c)
			continue
		}
		name := text[i+1 : j]
		params := ""
		end := j
		if text[j] == ':' {
			// Parameters end at the matching "}" ({regex:[a-z]{8}}).
			depth, k := 1, j+1
			for ; k < len(text); k++ {
				if text[k] == '{' {
					depth++
				} else if text[k] == '}' {
					if depth--; depth == 0 {
						break
					}
				}
			}
			if k >= len(text) {
				lit.WriteByte(c)
				continue
			}
			end = k
			params = text[j+1 : end]
		}
		if gen := seededFuncs[name]; gen != nil {
			if params != "" {
				return nil, fmt.Errorf("template {%s}: takes no parameters", text[i+1:end])
			}
			if lit.Len() > 0 {
				t.parts = append(t.parts, part{lit: lit.String()})
				lit.Reset()
			}
			t.parts = append(t.parts, part{name: name, gen: gen})
			i = end
			continue
		}
		if gen := fastNumber(name, params); gen != nil {
			if lit.Len() > 0 {
				t.parts = append(t.parts, part{lit: lit.String()})
				lit.Reset()
			}
			t.parts = append(t.parts, part{name: name, gen: gen})
			i = end
			continue
		}
		if name == "template" {
			return nil, fmt.Errorf("template function {template} cannot be checked before the run (its Go template can call any generator at any size); use placeholders directly")
		}
		if unseeded[name] {
			return nil, fmt.Errorf("template function {%s} cannot be reproduced from --seed (gofakeit draws it from its global source); use {date} or {number:...}", name)
		}
		info := gofakeit.GetFuncLookup(name)
		if info == nil {
			return nil, fmt.Errorf("unknown template function {%s} in %q (see gofakeit's function list)", name, text)
		}
		mp, err := buildParams(info, params)
		if err == nil {
			err = checkParams(name, mp)
		}
		if err != nil {
			return nil, fmt.Errorf("template {%s}: %v", text[i+1:end], err)
		}
		if lit.Len() > 0 {
			t.parts = append(t.parts, part{lit: lit.String()})
			lit.Reset()
		}
		t.parts = append(t.parts, part{name: name, info: info, params: mp})
		i = end
	}
	if lit.Len() > 0 {
		t.parts = append(t.parts, part{lit: lit.String()})
	}
	// Generate once now so a bad parameter is an error before the run.
	if _, err := t.AppendErr(nil, NewSource(0, 0)); err != nil {
		return nil, err
	}
	return t, nil
}

func isNameByte(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_'
}

// buildParams maps "1,1000" onto the function's parameters in order, as
// gofakeit's own Generate does.
func buildParams(info *gofakeit.Info, params string) (*gofakeit.MapParams, error) {
	if params == "" {
		return nil, nil
	}
	if len(info.Params) == 0 {
		return nil, fmt.Errorf("takes no parameters")
	}
	mp := gofakeit.NewMapParams()
	if len(info.Params) == 1 && info.Params[0].Type == "string" {
		mp.Add(info.Params[0].Field, params)
		return mp, nil
	}
	vals := splitParams(params)
	if len(vals) > len(info.Params) {
		return nil, fmt.Errorf("takes at most %d parameters", len(info.Params))
	}
	for i, v := range vals {
		if strings.HasPrefix(v, "[") && strings.HasSuffix(v, "]") {
			for _, e := range splitParams(v[1 : len(v)-1]) {
				mp.Add(info.Params[i].Field, e)
			}
			continue
		}
		mp.Add(info.Params[i].Field, v)
	}
	return mp, nil
}

// maxSize bounds what one placeholder may ask gofakeit to generate: the
// product of its size parameters (characters, words x sentences x
// paragraphs, rows, pixels). A million is far beyond any column value a
// benchmark needs and renders in milliseconds; {lettern:99999999999}
// would exhaust the memory before the first statement was sent.
const maxSize = 1 << 20

// sizeParams are the gofakeit parameters (v6) that say how much to make.
var sizeParams = []string{"count", "rowcount", "paragraphcount", "sentencecount", "wordcount",
	"length", "numdice", "width", "height"}

// checkParams rejects parameters on which gofakeit would run out of
// memory, panic, or return its error message as the value (which would
// then be sent as data): sizes out of range, and a {regex} Go's RE2
// syntax refuses or whose longest match is beyond gofakeit's generator
// limit (100 bytes per pattern byte; beyond it gofakeit returns "Length
// limit reached when generating output").
func checkParams(name string, mp *gofakeit.MapParams) error {
	if mp == nil {
		return nil
	}
	product := int64(1)
	for _, field := range sizeParams {
		for _, v := range mp.Get(field) {
			n, err := strconv.ParseInt(v, 10, 64)
			if err != nil {
				continue // not a number: gofakeit's own check reports it
			}
			if n < 0 || n > maxSize {
				return fmt.Errorf("%s=%d is out of range (0 to %d)", field, n, maxSize)
			}
			if product *= max(n, 1); product > maxSize {
				return fmt.Errorf("asks for %s generated units in all, more than %d", strconv.FormatInt(product, 10), maxSize)
			}
		}
	}
	if name == "generate" {
		// Its text is itself a template: check its placeholders the same way.
		for _, text := range mp.Get("str") {
			if _, err := Parse(text); err != nil {
				return err
			}
		}
	}
	if name == "regex" {
		for _, pattern := range mp.Get("str") {
			re, err := syntax.Parse(pattern, syntax.Perl)
			if err != nil {
				return fmt.Errorf("invalid regular expression: %v", err)
			}
			if n, limit := regexMaxLen(re), 100*len(pattern); n >= limit {
				return fmt.Errorf("matches up to %d bytes, beyond gofakeit's limit of %d for this pattern (100 per pattern byte)", n, limit)
			}
		}
	}
	return nil
}

// regexMaxLen is the longest text gofakeit's regex generator (v6) can
// produce for re: it repeats *, + and unbounded {n,} at most 10 times
// and a bounded {n,m} at most max(n, min(m, 10)) times.
func regexMaxLen(re *syntax.Regexp) int {
	sum := func() int {
		n := 0
		for _, s := range re.Sub {
			n += regexMaxLen(s)
		}
		return n
	}
	switch re.Op {
	case syntax.OpLiteral:
		n := 0
		for _, r := range re.Rune {
			n += utf8.RuneLen(r)
		}
		return n
	case syntax.OpCharClass:
		// A class reaching U+10FFFF (a negated one) draws from ASCII.
		top := rune(0)
		for _, r := range re.Rune {
			top = max(top, r)
		}
		if top == utf8.MaxRune {
			return 1
		}
		return utf8.RuneLen(top)
	case syntax.OpAnyChar, syntax.OpAnyCharNotNL:
		return 1 // gofakeit draws from ASCII
	case syntax.OpCapture, syntax.OpQuest, syntax.OpConcat:
		return sum()
	case syntax.OpStar, syntax.OpPlus:
		return 10 * sum()
	case syntax.OpRepeat:
		reps := re.Min
		if m := min(re.Max, 10); m > reps {
			reps = m
		}
		return reps * sum()
	case syntax.OpAlternate:
		n := 0
		for _, s := range re.Sub {
			n = max(n, regexMaxLen(s))
		}
		return n
	}
	return 0
}

// splitParams splits on commas outside [brackets] and trims spaces.
func splitParams(s string) []string {
	var out []string
	depth, start := 0, 0
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case '[':
			depth++
		case ']':
			depth--
		case ',':
			if depth == 0 {
				out = append(out, strings.TrimSpace(s[start:i]))
				start = i + 1
			}
		}
	}
	return append(out, strings.TrimSpace(s[start:]))
}

// Static reports a statement that renders to exactly its text: no
// placeholder and no "{{" (which renders as "{"), so it can be sent as
// written.
func (t *Template) Static() bool {
	for _, p := range t.parts {
		if p.name != "" {
			return false
		}
	}
	return len(t.parts) == 0 || len(t.parts) == 1 && t.parts[0].lit == t.text
}

// Text is the statement as written.
func (t *Template) Text() string { return t.text }

// Append renders t onto dst with values drawn from r. A generator error
// (impossible after Parse succeeded, short of gofakeit bugs) renders its
// message as an escaped value.
func (t *Template) Append(dst []byte, r *rand.Rand) []byte {
	dst, _ = t.AppendErr(dst, r)
	return dst
}

// AppendErr is Append that also returns the first generator error.
func (t *Template) AppendErr(dst []byte, r *rand.Rand) ([]byte, error) {
	var first error
	for i := range t.parts {
		p := &t.parts[i]
		if p.name == "" {
			dst = append(dst, p.lit...)
			continue
		}
		if p.gen != nil {
			dst = p.gen(dst, r)
			continue
		}
		v, err := generate(p, r)
		if err != nil {
			if first == nil {
				first = fmt.Errorf("template {%s}: %v", p.name, err)
			}
			dst = AppendEscaped(dst, err.Error())
			continue
		}
		dst = appendValue(dst, v)
	}
	return dst, first
}

// generate calls the gofakeit function of p; a panic inside gofakeit (a
// case checkParams does not foresee) becomes an error, not a crash.
func generate(p *part, r *rand.Rand) (v any, err error) {
	defer func() {
		if x := recover(); x != nil {
			err = fmt.Errorf("%v", x)
		}
	}()
	return p.info.Generate(r, p.params, p.info)
}

// Render is Append into a new string (for --only-print and hooks).
func (t *Template) Render(r *rand.Rand) string { return string(t.Append(nil, r)) }

func appendValue(dst []byte, v any) []byte {
	switch x := v.(type) {
	case string:
		return AppendEscaped(dst, x)
	case []byte:
		return AppendEscaped(dst, string(x))
	case int:
		return strconv.AppendInt(dst, int64(x), 10)
	case int8:
		return strconv.AppendInt(dst, int64(x), 10)
	case int16:
		return strconv.AppendInt(dst, int64(x), 10)
	case int32:
		return strconv.AppendInt(dst, int64(x), 10)
	case int64:
		return strconv.AppendInt(dst, x, 10)
	case uint:
		return strconv.AppendUint(dst, uint64(x), 10)
	case uint8:
		return strconv.AppendUint(dst, uint64(x), 10)
	case uint16:
		return strconv.AppendUint(dst, uint64(x), 10)
	case uint32:
		return strconv.AppendUint(dst, uint64(x), 10)
	case uint64:
		return strconv.AppendUint(dst, x, 10)
	case float32:
		return strconv.AppendFloat(dst, float64(x), 'f', -1, 32)
	case float64:
		return strconv.AppendFloat(dst, x, 'f', -1, 64)
	case bool:
		if x {
			return append(dst, '1')
		}
		return append(dst, '0')
	case time.Time:
		// A DATETIME literal (MySQL and MariaDB parse it in either quote style).
		return x.UTC().AppendFormat(dst, "2006-01-02 15:04:05")
	default:
		return AppendEscaped(dst, fmt.Sprint(v))
	}
}

// AppendEscaped appends s escaped for use inside a quoted SQL string, as
// mysql_real_escape_string does: NUL, newline, carriage return, backslash,
// both quotes and Ctrl-Z get a backslash. (A server running with
// sql_mode=NO_BACKSLASH_ESCAPES reads the backslashes literally.)
func AppendEscaped(dst []byte, s string) []byte {
	for i := 0; i < len(s); i++ {
		switch c := s[i]; c {
		case 0:
			dst = append(dst, '\\', '0')
		case '\n':
			dst = append(dst, '\\', 'n')
		case '\r':
			dst = append(dst, '\\', 'r')
		case '\\', '\'', '"':
			dst = append(dst, '\\', c)
		case 0x1a:
			dst = append(dst, '\\', 'Z')
		default:
			dst = append(dst, c)
		}
	}
	return dst
}

// NewSource is the random source of one stream (a client, or the main
// connection) of a run seeded with seed: the same seed and stream always
// give the same values. gofakeit draws from math/rand's *Rand.
func NewSource(seed, stream uint64) *rand.Rand {
	return rand.New(rand.NewSource(int64(mix(seed ^ mix(stream+0x9e3779b97f4a7c15)))))
}

// mix is splitmix64's finaliser.
func mix(x uint64) uint64 {
	x ^= x >> 30
	x *= 0xbf58476d1ce4e5b9
	x ^= x >> 27
	x *= 0x94d049bb133111eb
	x ^= x >> 31
	return x
}

// Has reports whether text contains a placeholder Parse would accept or
// reject (a "{name}" or "{name:"), i.e. whether it needs --templates.
func Has(text string) bool {
	for i := 0; i+1 < len(text); i++ {
		if text[i] == '{' && isNameByte(text[i+1]) {
			return true
		}
	}
	return false
}
