package slapreport

import "testing"

func TestFormatSeconds(t *testing.T) {
	for ms, want := range map[int64]string{0: "0.000", 3: "0.003", 1007: "1.007", 12345: "12.345", 60000: "60.000"} {
		if got := formatSeconds(ms); got != want {
			t.Errorf("formatSeconds(%d) = %q, want %q", ms, got, want)
		}
	}
}
