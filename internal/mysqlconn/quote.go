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
