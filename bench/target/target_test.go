package target

import (
	"math"
	"testing"
)

func TestVerdict(t *testing.T) {
	tests := []struct {
		name   string
		checks []Check
		want   string
	}{
		{"both met, stretch not", []Check{{SysbenchTPS, 1.12}, {SysbenchCPU, 0.83}}, "pass"},
		{"both met, stretch met", []Check{{SysbenchTPS, 1.66}, {SysbenchCPU, 0.26}}, "pass, stretch met"},
		{"at the limits", []Check{{SysbenchTPS, 1.0}, {SysbenchCPU, 1.0}}, "pass"},
		{"at the stretch limit", []Check{{SysbenchTPS, 1.0}, {SysbenchCPU, 0.7}}, "pass, stretch met"},
		{"tps short", []Check{{SysbenchTPS, 0.88}, {SysbenchCPU, 0.95}}, "miss: tps"},
		{"tps short by less than the print", []Check{{SysbenchTPS, 0.996}, {SysbenchCPU, 0.5}}, "miss: tps"},
		{"both short", []Check{{SysbenchTPS, 0.9}, {SysbenchCPU, 1.07}}, "miss: tps, CPU/trx"},
		{"stretch met, limit missed elsewhere", []Check{{SysbenchTPS, 0.9}, {SysbenchCPU, 0.5}}, "miss: tps"},
		{"no reference", []Check{{TPCCRate, nanRatio()}, {TPCCCPU, 0.5}}, "miss: tpmC"},
		{"slap key-16 met", []Check{{SlapKey[16][0], 0.85}, {SlapKey[16][1], 0.74}}, "pass"},
		{"slap key-16 CPU short", []Check{{SlapKey[16][0], 0.80}, {SlapKey[16][1], 0.99}}, "miss: CPU"},
		{"slap key-1000 wall short", []Check{{SlapKey[1000][0], 0.83}, {SlapKey[1000][1], 0.62}}, "miss: wall"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := Verdict(tt.checks); got != tt.want {
				t.Errorf("Verdict = %q, want %q", got, tt.want)
			}
		})
	}
}

func TestCell(t *testing.T) {
	tests := []struct {
		c    Check
		want string
	}{
		{Check{SysbenchTPS, 1.1234}, "1.12"},
		{Check{SysbenchTPS, 0.996}, "0.996"}, // would print 1.00 yet misses ≥ 1.00
		{Check{SysbenchTPS, 1.004}, "1.00"},  // prints 1.00 and meets it
		{Check{SysbenchCPU, 1.004}, "1.004"}, // would print 1.00 yet misses ≤ 1.00
		{Check{SysbenchCPU, 0.704}, "0.704"}, // would print the stretch 0.70 yet misses it
		{Check{SysbenchCPU, 0.696}, "0.70"},
		{Check{TPCCRate, nanRatio()}, "—"},
	}
	for _, tt := range tests {
		if got := tt.c.Cell(); got != tt.want {
			t.Errorf("Cell(%s %v) = %q, want %q", tt.c.Name, tt.c.Ratio, got, tt.want)
		}
	}
}

func TestBoundString(t *testing.T) {
	tests := []struct {
		b    Bound
		want string
	}{
		{SysbenchTPS, "≥ 1.00×"},
		{SysbenchCPU, "≤ 1.00× (stretch ≤ 0.70×)"},
		{SlapKey[1000][1], "≤ 0.65×"},
	}
	for _, tt := range tests {
		if got := tt.b.String(); got != tt.want {
			t.Errorf("String() = %q, want %q", got, tt.want)
		}
	}
}

// nanRatio is what dividing by a missing (zero) reference gives.
func nanRatio() float64 {
	zero := 0.0
	return zero / zero
}

func TestInterval(t *testing.T) {
	tests := []struct {
		name        string
		base, other []float64
		want        string
	}{
		{"every round the same ratio", []float64{100, 200, 400}, []float64{90, 180, 360}, "0.90–0.90"},
		// ln ratios 0.1, 0, -0.1: mean 0, s = 0.1, t(0.975, 2) = 4.303,
		// half = 4.303 × 0.1 / √3 = 0.248: e^±0.248.
		{"spread around 1", []float64{100, 100, 100}, []float64{100 * math.Exp(0.1), 100, 100 * math.Exp(-0.1)}, "0.78–1.28"},
		{"one round", []float64{100}, []float64{90}, "—"},
		{"rounds not paired", []float64{100, 100}, []float64{90}, "—"},
		{"a zero figure", []float64{100, 0}, []float64{90, 90}, "—"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := Interval(tt.base, tt.other); got != tt.want {
				t.Errorf("Interval = %q, want %q", got, tt.want)
			}
		})
	}
}
