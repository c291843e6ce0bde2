package templates

import (
	"regexp"
	"strings"
	"testing"
)

func TestEscaping(t *testing.T) {
	got := string(AppendEscaped(nil, "O'Brien \"x\" a\\b\n\r\x00\x1a"))
	want := `O\'Brien \"x\" a\\b\n\r\0\Z`
	if got != want {
		t.Errorf("got %q, want %q", got, want)
	}
}

func TestRenderEscapesGeneratedValues(t *testing.T) {
	// {regex} can produce quotes and backslashes: they must come out escaped.
	tmpl, err := Parse(`INSERT INTO t VALUES ('{regex:[\'\\\\]{8}}')`)
	if err != nil {
		t.Fatal(err)
	}
	out := tmpl.Render(NewSource(1, 0))
	inner := strings.TrimSuffix(strings.TrimPrefix(out, "INSERT INTO t VALUES ('"), "')")
	if !regexp.MustCompile(`^(\\'|\\\\){8}$`).MatchString(inner) {
		t.Errorf("not escaped: %q", out)
	}
}

func TestSeedsAreReproducibleAndPerStream(t *testing.T) {
	tmpl, err := Parse("INSERT INTO c VALUES ('{firstname}', '{email}', {number:1,1000}, '{uuid}')")
	if err != nil {
		t.Fatal(err)
	}
	a := tmpl.Render(NewSource(42, 0))
	b := tmpl.Render(NewSource(42, 0))
	c := tmpl.Render(NewSource(42, 1))
	d := tmpl.Render(NewSource(43, 0))
	if a != b {
		t.Errorf("same seed and stream differ: %q %q", a, b)
	}
	if a == c || a == d {
		t.Errorf("different stream or seed gave the same text: %q", a)
	}
	r := NewSource(7, 3)
	if first, second := tmpl.Render(r), tmpl.Render(r); first == second {
		t.Errorf("two executions rendered the same values")
	}
	if !regexp.MustCompile(`^INSERT INTO c VALUES \('[^']+', '[^']+@[^']+', \d+, '[0-9a-f-]{36}'\)$`).MatchString(a) {
		t.Errorf("unexpected rendering %q", a)
	}
}

func TestNumberRange(t *testing.T) {
	tmpl, err := Parse("{number:5,7}")
	if err != nil {
		t.Fatal(err)
	}
	r := NewSource(1, 1)
	seen := map[string]bool{}
	for range 200 {
		seen[tmpl.Render(r)] = true
	}
	if len(seen) != 3 || !seen["5"] || !seen["6"] || !seen["7"] {
		t.Errorf("values %v", seen)
	}
}

func TestParse(t *testing.T) {
	for _, c := range []struct {
		in      string
		static  bool
		wantErr string
	}{
		{in: "select 1", static: true},
		{in: `select '{"a": 1}'`, static: true},      // JSON stays literal
		{in: "select '{{firstname}'", static: false}, // renders "{": not sent as written
		{in: "select {nosuchfunction}", wantErr: "unknown template function {nosuchfunction}"},
		{in: "select {uuid:3}", wantErr: "takes no parameters"},
		{in: "select {person}", wantErr: "cannot be reproduced"},
		{in: "select '{firstname}'"},
		{in: "select {randomstring:[a,b,c]}"},
		{in: "select '{date}'"},
	} {
		tmpl, err := Parse(c.in)
		if c.wantErr != "" {
			if err == nil || !strings.Contains(err.Error(), c.wantErr) {
				t.Errorf("%q: err %v, want %q", c.in, err, c.wantErr)
			}
			continue
		}
		if err != nil {
			t.Errorf("%q: %v", c.in, err)
			continue
		}
		if tmpl.Static() != c.static {
			t.Errorf("%q: Static = %v", c.in, tmpl.Static())
		}
	}
	tmpl, _ := Parse("select '{{firstname}'")
	if got := tmpl.Render(NewSource(1, 1)); got != "select '{firstname}'" {
		t.Errorf("escape {{: %q", got)
	}
	tmpl, _ = Parse("select '{date}'")
	if got := tmpl.Render(NewSource(1, 1)); !regexp.MustCompile(`^select '\d{4}-\d\d-\d\d \d\d:\d\d:\d\d'$`).MatchString(got) {
		t.Errorf("date: %q", got)
	}
	tmpl, _ = Parse("select '{randomstring:[a,b,c]}'")
	if got := tmpl.Render(NewSource(1, 1)); !regexp.MustCompile(`^select '[abc]'$`).MatchString(got) {
		t.Errorf("list parameter: %q", got)
	}
}

func TestHas(t *testing.T) {
	if !Has("a {b}") || Has(`'{"a":1}'`) || Has("plain") {
		t.Error("Has")
	}
}

// BenchmarkRender is the per-execution cost of the orders example's INSERT.
func BenchmarkRender(b *testing.B) {
	tmpl, err := Parse("INSERT INTO orders (customer, email, city, amount, placed_at) VALUES ('{name}', '{email}', '{city}', {price:1,500}, NOW())")
	if err != nil {
		b.Fatal(err)
	}
	r := NewSource(1, 0)
	buf := make([]byte, 0, 256)
	b.ReportAllocs()
	for b.Loop() {
		buf = tmpl.Append(buf[:0], r)
	}
}

// BenchmarkRenderPointRead is a point read by a random id.
func BenchmarkRenderPointRead(b *testing.B) {
	tmpl, err := Parse("SELECT * FROM orders WHERE id = {number:1,1000}")
	if err != nil {
		b.Fatal(err)
	}
	r := NewSource(1, 0)
	buf := make([]byte, 0, 256)
	b.ReportAllocs()
	for b.Loop() {
		buf = tmpl.Append(buf[:0], r)
	}
}

// TestParseRejectsBadParameters: parameters on which gofakeit would run
// out of memory, panic or hand back its error text as the value (sent to
// the server as data) are refused when the statement is parsed.
func TestParseRejectsBadParameters(t *testing.T) {
	tests := []struct{ text, want string }{
		{"SELECT '{lettern:99999999999}'", "count=99999999999 is out of range"},
		{"SELECT '{digitn:2000000}'", "count=2000000 is out of range"},
		{"SELECT '{sentence:-1}'", "wordcount=-1 is out of range"},
		{"SELECT '{paragraph:1000,1000,1000}'", "more than 1048576"},
		{"SELECT '{imagepng:100000,100000}'", "more than 1048576"},
		{"SELECT '{imagejpeg:5000,5000}'", "more than 1048576"},
		{"SELECT '{password:true,true,true,true,false,99999999}'", "length=99999999 is out of range"},
		{"SELECT '{regex:(}'", "invalid regular expression"},
		{"SELECT '{regex:a{1000000}}'", "invalid regular expression"},
		{"SELECT '{regex:a{999}b{999}}'", "beyond gofakeit's limit"},
		{"SELECT '{regex:((a+)+)+}'", "beyond gofakeit's limit"},
		{"SELECT '{generate:{lettern:99999999999}}'", "count=99999999999 is out of range"},
		{"SELECT '{generate:x {regex:(}}'", "invalid regular expression"},
		{"SELECT '{template:{{LetterN 99999999999}}}'", "cannot be checked before the run"},
	}
	for _, tc := range tests {
		_, err := Parse(tc.text)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("Parse(%q) = %v, want an error with %q", tc.text, err, tc.want)
		}
	}
	// Near the limits, values are generated as asked.
	for text, wantLen := range map[string]int{"{lettern:1048576}": 1 << 20, "{regex:[a-z]{999}}": 999, "{regex:x{10,}}": 10} {
		tmpl, err := Parse(text)
		if err != nil {
			t.Errorf("Parse(%q): %v", text, err)
			continue
		}
		if got := len(tmpl.Render(NewSource(1, 0))); got != wantLen {
			t.Errorf("%s rendered %d bytes, want %d", text, got, wantLen)
		}
	}
}

// TestDoubleBraceIsAlwaysLiteral: "{{" renders as "{" whether or not the
// statement has a placeholder, so such a statement is not Static (sent as
// written) but rendered.
func TestDoubleBraceIsAlwaysLiteral(t *testing.T) {
	tests := []struct {
		text, want string
		static     bool
	}{
		{"SELECT '{{x}'", "SELECT '{x}'", false},
		{"SELECT '{{x}', {number:7,7}", "SELECT '{x}', 7", false},
		{"SELECT '{\"a\": 1}'", "SELECT '{\"a\": 1}'", true},
		{"SELECT 1", "SELECT 1", true},
		{"", "", true},
	}
	for _, tc := range tests {
		tmpl, err := Parse(tc.text)
		if err != nil {
			t.Fatalf("Parse(%q): %v", tc.text, err)
		}
		if got := tmpl.Render(NewSource(1, 0)); got != tc.want {
			t.Errorf("Render(%q) = %q, want %q", tc.text, got, tc.want)
		}
		if tmpl.Static() != tc.static {
			t.Errorf("Static(%q) = %v, want %v", tc.text, tmpl.Static(), tc.static)
		}
	}
}
