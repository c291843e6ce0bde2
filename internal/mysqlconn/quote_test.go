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

func TestAppendQuoted(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"abc", "'abc'"},
		{`o'k\`, `'o\'k\\'`},
		{"a\x00b", `'a\0b'`},
	} {
		if got := string(AppendQuoted([]byte("x="), []byte(tc.in))); got != "x="+tc.want {
			t.Errorf("AppendQuoted(%q) = %s, want x=%s", tc.in, got, tc.want)
		}
	}
}
