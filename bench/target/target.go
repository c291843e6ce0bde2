// Package target holds issue 28's goals for goslap's client cost against
// the C tools (sysbench, tpcc-mysql, mariadb-slap) and judges a row of
// measured ratios (goslap / the C tool) against them, so every bench
// driver prints the goal beside the figure and says pass or miss the same
// way.
package target

import (
	"fmt"
	"math"
	"strings"

	"github.com/goslap/goslap/internal/verdict"
)

// Bound is one ratio goal: goslap's figure divided by the C tool's.
type Bound struct {
	Name string // what is compared: "tps", "CPU/trx", "wall"
	// AtLeast: the ratio must be at least Limit (a throughput); otherwise
	// at most Limit (a cost).
	AtLeast bool
	Limit   float64
	// Stretch is a tighter goal, reported but not required; 0 for none.
	Stretch float64
}

// Met says whether ratio r meets the bound (a NaN or an infinite ratio,
// from a zero or missing reference, never does).
func (b Bound) Met(r float64) bool { return within(r, b.Limit, b.AtLeast) }

// StretchMet says whether r also meets the stretch goal (false when there
// is none).
func (b Bound) StretchMet(r float64) bool {
	return b.Stretch != 0 && within(r, b.Stretch, b.AtLeast)
}

func within(r, limit float64, atLeast bool) bool {
	if math.IsNaN(r) || math.IsInf(r, 0) {
		return false
	}
	if atLeast {
		return r >= limit
	}
	return r <= limit
}

// String is the goal as printed beside the ratio: "≥ 1.00×", "≤ 1.00×
// (stretch ≤ 0.70×)".
func (b Bound) String() string {
	op := "≤"
	if b.AtLeast {
		op = "≥"
	}
	s := fmt.Sprintf("%s %.2f×", op, b.Limit)
	if b.Stretch != 0 {
		s += fmt.Sprintf(" (stretch %s %.2f×)", op, b.Stretch)
	}
	return s
}

// Check is one measured ratio against its bound.
type Check struct {
	Bound
	Ratio float64
}

// Verdict is a row's pass/miss cell: "pass" when every check meets its
// bound ("pass, stretch met" when every stretch goal there is is met too),
// else "miss: " and the names of the checks that do not.
func Verdict(checks []Check) string {
	var missed []string
	stretches, stretched := 0, 0
	for _, c := range checks {
		if !c.Met(c.Ratio) {
			missed = append(missed, c.Name)
		}
		if c.Stretch != 0 {
			stretches++
			if c.StretchMet(c.Ratio) {
				stretched++
			}
		}
	}
	switch {
	case len(missed) > 0:
		return "miss: " + strings.Join(missed, ", ")
	case stretches > 0 && stretched == stretches:
		return "pass, stretch met"
	}
	return "pass"
}

// Cell is the ratio as the tables print it: two decimals, or three where
// two would print the limit itself on the wrong side of it (0.996 against
// "≥ 1.00" prints 0.996, not a missing 1.00); "—" when there was no
// reference to divide by.
func (c Check) Cell() string {
	if math.IsNaN(c.Ratio) || math.IsInf(c.Ratio, 0) {
		return "—"
	}
	s := fmt.Sprintf("%.2f", c.Ratio)
	for _, limit := range []float64{c.Limit, c.Stretch} {
		if limit != 0 && s == fmt.Sprintf("%.2f", limit) && !within(c.Ratio, limit, c.AtLeast) {
			return fmt.Sprintf("%.3f", c.Ratio)
		}
	}
	return s
}

// Interval is the 95 % confidence interval of the ratio other/base over
// rounds paired by index (base[i] and other[i] ran in the same round),
// from verdict.Compare's t interval of the log-ratios, as "0.87–0.99";
// "—" without two paired rounds. It says how far a median's ratio can be
// trusted: a miss whose interval holds the limit is within what the rounds
// can tell apart, one whose interval lies beyond it is not.
func Interval(base, other []float64) string {
	r, err := verdict.Compare(base, other, verdict.Higher)
	if err != nil || !r.HasCI() {
		return "—"
	}
	return fmt.Sprintf("%.2f–%.2f", r.Low, r.High)
}

// Issue 28's goals.
var (
	// SysbenchTPS and SysbenchCPU: goslap sysbench against sysbench
	// 1.0.20, every test and thread count.
	SysbenchTPS = Bound{Name: "tps", AtLeast: true, Limit: 1.0}
	SysbenchCPU = Bound{Name: "CPU/trx", Limit: 1.0, Stretch: 0.7}
	// TPCCRate and TPCCCPU: goslap tpcc-start against tpcc-mysql's
	// tpcc_start at 4 and 16 connections.
	TPCCRate = Bound{Name: "tpmC", AtLeast: true, Limit: 1.0}
	TPCCCPU  = Bound{Name: "CPU/trx", Limit: 1.0}
)

// SlapKey are the goals of mysqlslap's key load against mariadb-slap by
// client count (wall time and client CPU, both at most); rows without
// goals are not in the map.
var SlapKey = map[int][2]Bound{
	16:   {{Name: "wall", Limit: 0.85}, {Name: "CPU", Limit: 0.75}},
	1000: {{Name: "wall", Limit: 0.80}, {Name: "CPU", Limit: 0.65}},
}
