package mysqlconn

import "strings"

// QuoteName is the one rule for a name in a statement goslap writes: in
// back quotes, a back quote inside doubled. It leaves every ordinary name
// exactly as mysqlslap writes it (also in --only-print).
func QuoteName(name string) string { return "`" + strings.ReplaceAll(name, "`", "``") + "`" }

// QuoteString quotes s as a SQL string literal (backslashes doubled, for a
// server without NO_BACKSLASH_ESCAPES).
func QuoteString(s string) string {
	s = strings.ReplaceAll(s, `\`, `\\`)
	return "'" + strings.ReplaceAll(s, "'", "''") + "'"
}

// AppendQuoted appends v as a SQL string literal, escaped as the server's
// string syntax reads it (quote, backslash and NUL), for statements built
// with their values in the text.
func AppendQuoted(dst, v []byte) []byte {
	dst = append(dst, '\'')
	for _, b := range v {
		switch b {
		case '\'', '\\':
			dst = append(dst, '\\', b)
		case 0:
			dst = append(dst, '\\', '0')
		default:
			dst = append(dst, b)
		}
	}
	return append(dst, '\'')
}
