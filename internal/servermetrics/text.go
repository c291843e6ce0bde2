package servermetrics

import (
	"fmt"
	"math"
	"sort"
	"strings"

	"github.com/goslap/goslap/internal/results/jsondoc"
)

// figure is one per-unit figure: its name in text, how to print it.
type figure struct {
	name string
	get  func(p jsondoc.PerTransaction) *float64
	unit string // after the number: " µs", " B"; "" for counts
}

// figures are the per-unit figures in the order the text gives them.
var figures = []figure{
	{"server CPU", func(p jsondoc.PerTransaction) *float64 { return p.CPUMicros }, " µs"},
	{"client CPU", func(p jsondoc.PerTransaction) *float64 { return p.ClientCPUMicros }, " µs"},
	{"disk reads", func(p jsondoc.PerTransaction) *float64 { return p.DiskReads }, ""},
	{"buffer pool reads", func(p jsondoc.PerTransaction) *float64 { return p.ReadRequests }, ""},
	{"bytes written", func(p jsondoc.PerTransaction) *float64 { return p.BytesWritten }, ""},
	{"redo bytes", func(p jsondoc.PerTransaction) *float64 { return p.RedoBytes }, ""},
	{"row lock waits", func(p jsondoc.PerTransaction) *float64 { return p.RowLockWaits }, ""},
	{"row lock wait", func(p jsondoc.PerTransaction) *float64 { return p.RowLockWaitMicros }, " µs"},
	{"deadlocks", func(p jsondoc.PerTransaction) *float64 { return p.Deadlocks }, ""},
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

// Difference is one per-unit figure of two sides.
type Difference struct {
	Name   string
	A, B   float64
	Change float64 // (B - A) / A; +Inf when A is 0 and B is not
	unit   string
}

// String words the difference: "server CPU +9%", or with a zero side
// "disk reads 0 → 3.10".
func (d Difference) String() string {
	if d.A == 0 || math.IsInf(d.Change, 0) {
		return d.Name + " " + number(d.A) + d.unit + " → " + number(d.B) + d.unit
	}
	return fmt.Sprintf("%s %+.0f%%", d.Name, 100*d.Change)
}

// Differences are the per-unit figures both sides have, the largest
// relative change first, leaving out changes under minChange (0.05 is
// 5 %) and figures under a hundredth on both sides (noise).
func Differences(a, b jsondoc.PerTransaction, minChange float64) []Difference {
	var out []Difference
	for _, fg := range figures {
		va, vb := fg.get(a), fg.get(b)
		if va == nil || vb == nil || *va < 0.01 && *vb < 0.01 {
			continue
		}
		d := Difference{Name: fg.name, A: *va, B: *vb, unit: fg.unit}
		if d.A == 0 {
			d.Change = math.Inf(1)
		} else {
			d.Change = (d.B - d.A) / d.A
		}
		if math.Abs(d.Change) >= minChange {
			out = append(out, d)
		}
	}
	sort.SliceStable(out, func(i, j int) bool { return math.Abs(out[i].Change) > math.Abs(out[j].Change) })
	return out
}
