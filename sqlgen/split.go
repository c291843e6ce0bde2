package sqlgen

import "strings"

// Split cuts text into statements exactly as mysqlslap's parse_delimiter
// does (spec 3.6): every delimiter byte ends a statement (the text before
// it, untrimmed, possibly empty); exactly one whitespace byte after each
// delimiter is skipped; non-empty text after the last delimiter is a final
// statement. Quotes and comments are not special. Text stops at the first
// NUL byte, as the C string it is in mysqlslap.
//
// Empty statements are kept: they count towards the --query limit, and
// execution stops at the first one.
func Split(text string, delimiter byte) []string {
	if nul := strings.IndexByte(text, 0); nul >= 0 {
		text = text[:nul]
	}
	var out []string
	for {
		end := strings.IndexByte(text, delimiter)
		if end < 0 {
			break
		}
		out = append(out, text[:end])
		text = text[end+1:]
		if text != "" && isCSpace(text[0]) {
			text = text[1:]
		}
	}
	if text != "" {
		out = append(out, text)
	}
	return out
}

// isCSpace is isspace() in the C locale.
func isCSpace(b byte) bool {
	switch b {
	case ' ', '\t', '\n', '\v', '\f', '\r':
		return true
	}
	return false
}
