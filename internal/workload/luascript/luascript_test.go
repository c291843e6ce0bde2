package luascript

import (
	"database/sql/driver"
	"testing"

	lua "github.com/yuin/gopher-lua"
)

// eval runs a Lua expression in a state with goslap's string.format and
// bit module and returns its value as a string.
func eval(t *testing.T, expr string) string {
	t.Helper()
	L := lua.NewState()
	defer L.Close()
	L.GetGlobal("string").(*lua.LTable).RawSetString("format", L.NewFunction(strFormat))
	th := &thread{L: L}
	th.installBit()
	if err := L.DoString("result = " + expr); err != nil {
		t.Fatalf("%s: %v", expr, err)
	}
	return L.GetGlobal("result").String()
}

// TestStringFormat: C's printf rules, which sysbench's scripts rely on.
func TestStringFormat(t *testing.T) {
	cases := []struct{ expr, want string }{
		{`string.format("sbtest%u", 3)`, "sbtest3"},
		{`string.format("%d|%i|%5d|%-3d|", 7, 8.9, 42, 1)`, "7|8|   42|1  |"},
		{`string.format("%g %g %g", 0.1, 1234567, 100)`, "0.1 1.23457e+06 100"},
		{`string.format("%.2f %4.2f %.0f", 3.14159, 2, 2.5)`, "3.14 2.00 2"},
		{`string.format("%s=%s %%", "a", 10)`, "a=10 %"},
		{`string.format("%x %X %o %c", 255, 255, 8, 65)`, "ff FF 10 A"},
		{`string.format("(%d, '%s')", "12", "v")`, "(12, 'v')"},
		{`("%d-%d"):format(1, 2)`, "1-2"},
		{`bit.bor(5, 3) .. " " .. bit.band(-1, 255) .. " " .. bit.bxor(1, 3) .. " " .. bit.lshift(1, 31)`, "7 255 2 -2147483648"},
		{`bit.rshift(-1, 28) .. " " .. bit.arshift(-16, 2) .. " " .. bit.tohex(255) .. " " .. bit.tobit(4294967297)`, "15 -4 000000ff 1"},
	}
	for _, tc := range cases {
		if got := eval(t, tc.expr); got != tc.want {
			t.Errorf("%s = %q, want %q", tc.expr, got, tc.want)
		}
	}
}

// TestReturnsRows: which statements are read as result sets (reads).
func TestReturnsRows(t *testing.T) {
	cases := []struct {
		q    string
		rows bool
	}{
		{"SELECT c FROM sbtest1 WHERE id=?", true},
		{"  (select 1) union (select 2)", true},
		{"/* hint */ SELECT 1", true},
		{"-- note\nSHOW TABLES", true},
		{"ANALYZE TABLE sbtest1", true},
		{"UPDATE sbtest1 SET k=k+1 WHERE id=?", false},
		{"INSERT INTO t VALUES (1)", false},
		{"BEGIN", false},
		{"selectivity", false},
		{"", false},
	}
	for _, tc := range cases {
		if got := returnsRows(tc.q); got != tc.rows {
			t.Errorf("returnsRows(%q) = %v, want %v", tc.q, got, tc.rows)
		}
	}
}

// TestAPI05: the 0.5 API is told by its calls, not by comments.
func TestAPI05(t *testing.T) {
	cases := []struct{ src, want string }{
		{"function event()\n db_query('BEGIN')\nend", "db_query"},
		{"rs = db_connect ()", "db_connect"},
		{"-- db_query() is 0.5's\nfunction event() end", ""},
		{"--[[ db_query(x) ]] local my_db_query = 1", ""},
		{"con:query('SELECT 1') sb_rand(1, 10)", ""},
	}
	for _, tc := range cases {
		if got := API05([]byte(tc.src)); got != tc.want {
			t.Errorf("API05(%q) = %q, want %q", tc.src, got, tc.want)
		}
	}
}

// TestInline: client-side prepared statements, as sysbench emulates them.
func TestInline(t *testing.T) {
	args := []driver.NamedValue{{Value: int64(5)}, {Value: []byte("it's")}, {Value: nil}, {Value: 1.5}}
	got := string(inline(nil, []string{"INSERT INTO t VALUES (", ", ", ", ", ", ", ")"}, args))
	if want := `INSERT INTO t VALUES (5, 'it\'s', NULL, 1.5)`; got != want {
		t.Errorf("got %s, want %s", got, want)
	}
}
