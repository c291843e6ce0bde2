package ring

import (
	"bytes"
	"database/sql/driver"
	"testing"
)

// TestAppendExecute: the execute's payload as the driver writes it (no
// cursor, one iteration, NULL bitmap, types, values), and Bound leaves the
// types out of an execute whose types the server holds, until they change
// or are forgotten.
func TestAppendExecute(t *testing.T) {
	args := func(vs ...any) []driver.NamedValue {
		out := make([]driver.NamedValue, len(vs))
		for i, v := range vs {
			out[i] = driver.NamedValue{Ordinal: i + 1, Value: v}
		}
		return out
	}
	head := []byte{0x17, 0x05, 0x01, 0, 0, 0, 1, 0, 0, 0} // statement 261
	withTypes := func(mask byte, types []byte, values ...byte) []byte {
		p := append(append(append([]byte{}, head...), mask, 1), types...)
		return append(p, values...)
	}
	elided := func(mask byte, values ...byte) []byte {
		return append(append(append([]byte{}, head...), mask, 0), values...)
	}
	i7 := []byte{7, 0, 0, 0, 0, 0, 0, 0}
	for _, tc := range []struct {
		name string
		args []driver.NamedValue
		want []byte
	}{
		{"no parameters", nil, head},
		{"an int", args(int64(7)), withTypes(0, []byte{0x08, 0}, i7...)},
		{"int, bytes, NULL", args(int64(7), []byte("ab"), nil),
			withTypes(0x04, []byte{0x08, 0, 0xfe, 0, 0x06, 0}, append(append([]byte{}, i7...), 2, 'a', 'b')...)},
		{"nil bytes are NULL", args([]byte(nil)), withTypes(0x01, []byte{0x06, 0})},
	} {
		got := AppendExecute([]byte("hd"), 261, tc.args)
		if !bytes.Equal(got[2:], tc.want) || string(got[:2]) != "hd" {
			t.Errorf("%s: % x\nwant    % x", tc.name, got, tc.want)
		}
	}

	var b Bound
	p := AppendExecute(nil, 261, args(int64(7)))
	if got := b.Append(nil, p, 1); !bytes.Equal(got, p) {
		t.Errorf("first execute: % x, want the types sent", got)
	}
	if got, want := b.Append([]byte("x"), p, 1), append([]byte("x"), elided(0, i7...)...); !bytes.Equal(got, want) {
		t.Errorf("second execute: % x, want % x", got, want)
	}
	null := AppendExecute(nil, 261, args(nil))
	if got := b.Append(nil, null, 1); !bytes.Equal(got, null) {
		t.Errorf("changed types: % x, want them sent", got)
	}
	b.Forget()
	if got := b.Append(nil, null, 1); !bytes.Equal(got, null) {
		t.Errorf("after Forget: % x, want the types sent", got)
	}
	if got := b.Append(nil, null, 1); !bytes.Equal(got, elided(0x01)) {
		t.Errorf("again: % x, want them left out", got)
	}
	q := AppendQuery(nil, "SELECT 1")[4:]
	if got := b.Append(nil, q, 1); !bytes.Equal(got, q) {
		t.Errorf("a query: % x", got)
	}
}
