package servermetrics

import (
	"fmt"
	"math"
	"sort"
	"strings"

	"github.com/goslap/goslap/internal/results/jsondoc"
	"github.com/goslap/goslap/internal/verdict"
)

// figure is one per-unit figure: its name in text, how to print it.
type figure struct {
	name string
	key  string // the JSON field's name
	get  func(p jsondoc.PerTransaction) *float64
	unit string // after the number: " µs", " B"; "" for counts
}

// figures are the per-unit figures in the order the text gives them.
var figures = []figure{
	{"server CPU", "cpu_us", func(p jsondoc.PerTransaction) *float64 { return p.CPUMicros }, " µs"},
	{"client CPU", "client_cpu_us", func(p jsondoc.PerTransaction) *float64 { return p.ClientCPUMicros }, " µs"},
	{"disk reads", "disk_reads", func(p jsondoc.PerTransaction) *float64 { return p.DiskReads }, ""},
	{"buffer pool reads", "read_requests", func(p jsondoc.PerTransaction) *float64 { return p.ReadRequests }, ""},
	{"bytes written", "bytes_written", func(p jsondoc.PerTransaction) *float64 { return p.BytesWritten }, ""},
	{"redo bytes", "redo_bytes", func(p jsondoc.PerTransaction) *float64 { return p.RedoBytes }, ""},
	{"row lock waits", "row_lock_waits", func(p jsondoc.PerTransaction) *float64 { return p.RowLockWaits }, ""},
	{"row lock wait", "row_lock_wait_us", func(p jsondoc.PerTransaction) *float64 { return p.RowLockWaitMicros }, " µs"},
	{"deadlocks", "deadlocks", func(p jsondoc.PerTransaction) *float64 { return p.Deadlocks }, ""},
}

// number prints v with three significant digits and no exponent.
func number(v float64) string {
	a := math.Abs(v)
	switch {
	case a == 0:
		return "0"
	case a >= 100:
		return fmt.Sprintf("%.0f", v)
	case a >= 10:
		return fmt.Sprintf("%.1f", v)
	case a >= 0.01:
		return fmt.Sprintf("%.2f", v)
	}
	return fmt.Sprintf("%.4f", v)
}

// Lines is the short text of f for a report, each line without its end:
// the per-unit figures, the host's CPU, and why anything is missing.
//
//	Server: per transaction 812 µs server CPU, 320 µs client CPU, 3.10 disk reads, 74.5 buffer pool reads, ...
//	Host: CPU 95% busy (saturated), 2% iowait, 0% steal; goslap used 30% of it, the server 60%
func Lines(f jsondoc.ServerFigures) []string {
	var parts []string
	for _, fg := range figures {
		if v := fg.get(f.PerTransaction); v != nil {
			parts = append(parts, number(*v)+fg.unit+" "+fg.name)
		}
	}
	var out []string
	if len(parts) > 0 {
		out = append(out, "Server: per "+f.Unit+" "+strings.Join(parts, ", "))
	}
	if h := f.Host; h != nil {
		line := fmt.Sprintf("Host: CPU %.0f%% busy", 100*h.Busy)
		if h.Saturated {
			line += " (saturated)"
		}
		line += fmt.Sprintf(", %.0f%% iowait, %.0f%% steal; goslap used %.0f%% of it", 100*h.IOWait, 100*h.Steal, 100*h.ClientShare)
		if h.ServerShare != nil {
			line += fmt.Sprintf(", the server %.0f%%", 100**h.ServerShare)
		}
		out = append(out, line)
	}
	for _, n := range f.Notes {
		out = append(out, "Server: "+n)
	}
	return out
}

// Difference is one per-unit figure of two sides: A the baseline's, B
// the other side's (medians over their rounds).
type Difference struct {
	Name string // "disk reads": the figure's name in text
	Key  string // "disk_reads": its name in the JSON's per_transaction
	A, B float64
	// Change is (B - A) / A; +Inf when A is 0 and B is not.
	Change float64
	unit   string
}

// Unit is what the figure counts in after its number: "µs", "" for counts.
func (d Difference) Unit() string { return strings.TrimSpace(d.unit) }

// Words are the difference in a verdict's terms, per unit ("transaction"
// or "query"): "server CPU per transaction +9 %" for a moderate change;
// both values where one side has none or the change is threefold or more,
// a percentage no longer saying it: "disk reads per transaction 0.0 → 3.1",
// "server CPU per transaction 250 → 900 µs".
func (d Difference) Words(unit string) string {
	name := d.Name + " per " + unit
	if d.A == 0 || d.B == 0 || d.B/d.A >= 3 || d.A/d.B >= 3 {
		prec := decimals(max(math.Abs(d.A), math.Abs(d.B)))
		return fmt.Sprintf("%s %.*f → %.*f%s", name, prec, d.A, prec, d.B, d.unit)
	}
	pct := math.Round(100 * d.Change)
	sign := "+"
	if pct < 0 {
		sign, pct = "-", -pct
	}
	return fmt.Sprintf("%s %s%.0f %%", name, sign, pct)
}

// String is Words per transaction.
func (d Difference) String() string { return d.Words("transaction") }

// decimals is how many decimals two values of up to v show so that the
// larger has two or three significant digits.
func decimals(v float64) int {
	switch {
	case v >= 100:
		return 0
	case v >= 1:
		return 1
	case v >= 0.1:
		return 2
	}
	return 3
}

// Reasons: the per-unit figures that explain a difference are those that
// changed by MinChange or more, consistently over the paired rounds; a
// verdict names at most MaxReasons of them. Client CPU is goslap's own
// cost, reported beside the host's CPU, not a reason the server differs.
const (
	MinChange  = 0.10
	MaxReasons = 3
)

// Differences are the per-unit figures both sides have, the largest
// relative change first, leaving out changes under minChange (0.05 is
// 5 %) and figures under a hundredth on both sides (noise). a and b are
// each side's figures per round (paired by index when both have as many):
// a side's figure is its median over the rounds that have it; with two
// paired rounds or more, a figure whose change is within the rounds' noise
// (consistent) is left out: noise is not a reason.
func Differences(a, b []jsondoc.PerTransaction, minChange float64) []Difference {
	var out []Difference
	for _, fg := range figures {
		if fg.name == "client CPU" {
			continue
		}
		va, vb := values(a, fg), values(b, fg)
		if len(va) == 0 || len(vb) == 0 {
			continue
		}
		d := Difference{Name: fg.name, Key: fg.key, A: median(va), B: median(vb), unit: fg.unit}
		if d.A < 0.01 && d.B < 0.01 {
			continue
		}
		if d.A == 0 {
			d.Change = math.Inf(1)
		} else {
			d.Change = (d.B - d.A) / d.A
		}
		if math.Abs(d.Change) < minChange || !consistent(a, b, fg, d.B > d.A) {
			continue
		}
		out = append(out, d)
	}
	sort.SliceStable(out, func(i, j int) bool { return math.Abs(out[i].Change) > math.Abs(out[j].Change) })
	return out
}

// values are a figure's values over the rounds that have it.
func values(ps []jsondoc.PerTransaction, fg figure) []float64 {
	var out []float64
	for _, p := range ps {
		if v := fg.get(p); v != nil {
			out = append(out, *v)
		}
	}
	return out
}

// consistent says whether the paired rounds show fg moved the way up
// says (true: b above a): with figures above zero on both sides in every
// round, the 95 % interval of their paired ratio (package verdict's
// method) must exclude 1; where a side has zeros, every round must move
// that way. True when the rounds cannot be paired (one round, or sides of
// different lengths): the median alone decides then.
func consistent(a, b []jsondoc.PerTransaction, fg figure, up bool) bool {
	if len(a) != len(b) || len(a) < 2 {
		return true
	}
	var pa, pb []float64
	positive := true
	for i := range a {
		va, vb := fg.get(a[i]), fg.get(b[i])
		if va == nil || vb == nil {
			continue
		}
		if up && *vb <= *va || !up && *vb >= *va {
			return false
		}
		pa, pb = append(pa, *va), append(pb, *vb)
		positive = positive && *va > 0 && *vb > 0
	}
	if !positive || len(pa) < 2 {
		return true
	}
	r, err := verdict.Compare(pa, pb, verdict.Higher)
	return err == nil && (r.Low > 1 || r.High < 1)
}

// ReasonsWords are differences in a verdict's words, after its text:
// ": disk reads per transaction 3.3 → 0.0, server CPU per transaction
// -21 %" when they explain a verdict (faster or slower), "; the server's
// figures differed: …" when there is none to explain (then they are no
// cause of anything), "" for none.
func ReasonsWords(ds []Difference, unit string, explains bool) string {
	out := ""
	for i, d := range ds {
		switch {
		case i > 0:
			out += ", "
		case explains:
			out = ": "
		default:
			out = "; the server's figures differed: "
		}
		out += d.Words(unit)
	}
	return out
}
