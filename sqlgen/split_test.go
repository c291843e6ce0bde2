package sqlgen

import (
	"slices"
	"strings"
	"testing"
)

func TestSplit(t *testing.T) {
	cases := []struct {
		text      string
		delimiter byte
		want      []string
	}{
		{"select 1;  select 2;", ';', []string{"select 1", " select 2"}},
		{"select 1; ", ';', []string{"select 1"}},
		{"select 1;", ';', []string{"select 1"}},
		{"select 1", ';', []string{"select 1"}},
		{"a;;b", ';', []string{"a", "", "b"}},
		{";", ';', []string{""}},
		{"", ';', nil},
		{"select 1;\nselect 2;\n", '\n', []string{"select 1;", "select 2;"}},
		{"a\n\nb\n", '\n', []string{"a", "b"}},
		{"a\n\n\nb", '\n', []string{"a", "", "b"}},
		{"a;\tb;\rc;\vd;\fe", ';', []string{"a", "b", "c", "d", "e"}},
		{"a;\xa0b", ';', []string{"a", "\xa0b"}}, // not C-locale whitespace
		{"insert 'x;y'", ';', []string{"insert 'x", "y'"}},
		{"a$b", '$', []string{"a", "b"}},
		{"a;b\x00;c", ';', []string{"a", "b"}},
	}
	for _, c := range cases {
		if got := Split(c.text, c.delimiter); !slices.Equal(got, c.want) {
			t.Errorf("Split(%q, %q) = %q, want %q", c.text, c.delimiter, got, c.want)
		}
	}
}

// splitReference is a literal transcription of mysqlslap's parse_delimiter
// pointer walk, to fuzz Split against.
func splitReference(text string, delimiter byte) []string {
	if i := strings.IndexByte(text, 0); i >= 0 {
		text = text[:i]
	}
	var out []string
	ptr := 0
	for {
		ret := strings.IndexByte(text[ptr:], delimiter)
		if ret < 0 {
			break
		}
		out = append(out, text[ptr:ptr+ret])
		ptr += ret + 1
		if ptr < len(text) && strings.IndexByte(" \t\n\v\f\r", text[ptr]) >= 0 {
			ptr++
		}
	}
	if ptr != len(text) {
		out = append(out, text[ptr:])
	}
	return out
}

func FuzzSplit(f *testing.F) {
	for _, seed := range []string{"select 1;  select 2;", "a;;b", ";", "", "a\n\n\nb", "x;\x00y", "; ; ;"} {
		f.Add(seed, byte(';'))
		f.Add(seed, byte('\n'))
	}
	f.Fuzz(func(t *testing.T, text string, delimiter byte) {
		if delimiter == 0 {
			t.Skip("a C string cannot hold a NUL delimiter")
		}
		got := Split(text, delimiter)
		if want := splitReference(text, delimiter); !slices.Equal(got, want) {
			t.Fatalf("Split(%q, %q) = %q, reference %q", text, delimiter, got, want)
		}
		// Every statement is delimiter-free and the pieces, rejoined, cover
		// the text but for delimiters and at most one skipped byte each.
		total := 0
		for _, s := range got {
			if strings.IndexByte(s, delimiter) >= 0 {
				t.Fatalf("statement %q contains the delimiter", s)
			}
			total += len(s)
		}
		if total > len(text) {
			t.Fatalf("statements are longer than the text")
		}
	})
}
