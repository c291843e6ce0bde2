package getopt

import (
	"fmt"
	"strings"
	"unicode/utf8"
)

// Characters that word processors and web pages put where a command line
// has ASCII: "--" turned into an en or em dash, a no-break space between
// two options, full-width forms from an East Asian input method. The shell
// passes them on as part of a word, so without a check "–concurrency=50"
// is a positional word and the benchmark runs with defaults.

// dashNames are the characters taken for '-'.
var dashNames = map[rune]string{
	'\u2010': "hyphen", '\u2011': "non-breaking hyphen", '\u2012': "figure dash", '\u2013': "en dash",
	'\u2014': "em dash", '\u2015': "horizontal bar", '\u2212': "minus sign", '\uFE58': "small em dash",
	'\uFE63': "small hyphen-minus", '\uFF0D': "full-width hyphen-minus",
}

// spaceNames are the characters taken for a blank between words.
var spaceNames = map[rune]string{
	'\u00A0': "no-break space", '\u2007': "figure space", '\u202F': "narrow no-break space",
	'\u2000': "en quad", '\u2001': "em quad", '\u2002': "en space", '\u2003': "em space",
	'\u2004': "three-per-em space", '\u2005': "four-per-em space", '\u2006': "six-per-em space",
	'\u2008': "punctuation space", '\u2009': "thin space", '\u200A': "hair space",
	'\u3000': "ideographic space",
}

// asciiLookalike returns the ASCII character r stands for and its name,
// or ok false when r is not a look-alike.
func asciiLookalike(r rune) (ascii byte, name string, ok bool) {
	if n, found := dashNames[r]; found {
		return '-', n, true
	}
	if n, found := spaceNames[r]; found {
		return ' ', n, true
	}
	if r >= '\uFF01' && r <= '\uFF5E' { // full-width forms of '!'..'~'
		a := byte(r - 0xFEE0)
		return a, fmt.Sprintf("full-width '%c'", a), true
	}
	return 0, "", false
}

// lookalikes replaces every look-alike in s by its ASCII character; first
// describes the first one ("an en dash (U+2013)"), "" when there is none.
func lookalikes(s string) (fixed, first string) {
	var b strings.Builder
	for _, r := range s {
		a, name, ok := asciiLookalike(r)
		if !ok {
			b.WriteRune(r)
			continue
		}
		if first == "" {
			first = fmt.Sprintf("%s %s (U+%04X)", article(name), name, r)
		}
		b.WriteByte(a)
	}
	return b.String(), first
}

func article(name string) string {
	if strings.IndexByte("aeiou", name[0]) >= 0 {
		return "an"
	}
	return "a"
}

// leadingDashes counts the '-' and dash look-alikes that start w and says
// whether any was a look-alike; rest is what follows them.
func leadingDashes(w string) (n int, lookalike bool, rest string) {
	for len(w) > 0 {
		r, size := utf8.DecodeRuneInString(w)
		if r != '-' {
			if a, _, ok := asciiLookalike(r); !ok || a != '-' {
				break
			}
			lookalike = true
		}
		n++
		w = w[size:]
	}
	return n, lookalike, w
}

// dashedWord reports a word that starts with a dash look-alike and the
// option word it was meant to be. One dash stands for "--" unless what
// follows is a short option letter and no long name: word processors turn
// "--" into one en dash.
func (p *Parser) dashedWord(w string) (fixed string, ok bool) {
	n, lookalike, rest := leadingDashes(w)
	if !lookalike || rest == "" {
		return "", false
	}
	rest, _ = lookalikes(rest)
	if n == 1 && p.byShort[rest[0]] != nil {
		name, _, _ := strings.Cut(rest, "=")
		if m, _, _ := p.find(name); len(name) == 1 || m == matchNone {
			return "-" + rest, true
		}
	}
	return "--" + rest, true
}

// pastedValue reports a value holding a blank look-alike that ends it or
// comes before a dash: two options pasted as one word
// ("50<no-break space>--iterations=3"). what describes that blank.
func pastedValue(v string) (what string, ok bool) {
	for i, r := range v {
		a, name, isLookalike := asciiLookalike(r)
		if !isLookalike || a != ' ' {
			continue
		}
		after := strings.TrimLeftFunc(v[i:], isBlank)
		if n, _, _ := leadingDashes(after); after == "" || n > 0 {
			return fmt.Sprintf("%s %s (U+%04X)", article(name), name, r), true
		}
	}
	return "", false
}

// isBlank is a space or a blank look-alike.
func isBlank(r rune) bool {
	a, _, ok := asciiLookalike(r)
	return r == ' ' || ok && a == ' '
}
