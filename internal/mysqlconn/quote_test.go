package mysqlconn

import "testing"

func TestQuote(t *testing.T) {
	for _, tc := range []struct{ in, name, str string }{
		{"mysqlslap", "`mysqlslap`", "'mysqlslap'"},
		{"my`db", "`my``db`", "'my`db'"},
		{`o'k\`, "`o'k\\`", `'o''k\\'`},
	} {
		if got := QuoteName(tc.in); got != tc.name {
			t.Errorf("QuoteName(%q) = %s, want %s", tc.in, got, tc.name)
		}
		if got := QuoteString(tc.in); got != tc.str {
			t.Errorf("QuoteString(%q) = %s, want %s", tc.in, got, tc.str)
		}
	}
}
