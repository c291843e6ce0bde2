package chart

import (
	"github.com/goslap/goslap/internal/results/matrix"
	"math"
	"slices"
	"strconv"
	"strings"

	"gonum.org/v1/plot"
)

// Axis is what a chart's x axis shows: the swept dimension of a study.
type Axis int

const (
	// AxisConcurrency is clients (mysqlslap's -c, sysbench's --threads).
	AxisConcurrency Axis = iota
	// AxisSize is matrix.Point.Size: rows per table, warehouses.
	AxisSize
	// AxisSetting is matrix.Point.Setting: a server option's value.
	AxisSetting
)

// text is a point's position on the axis as its tick label.
func (a Axis) text(p matrix.Point) string {
	switch a {
	case AxisSize:
		return strconv.FormatInt(p.Size, 10)
	case AxisSetting:
		_, v, _ := strings.Cut(p.Setting, "=")
		return v
	}
	return strconv.Itoa(p.Concurrency)
}

// label is the axis title for series.
func (a Axis) label(series []Series) string {
	switch a {
	case AxisSize:
		return "data size (rows per table, or warehouses)"
	case AxisSetting:
		for _, s := range series {
			for _, p := range s.Points {
				if n, _, ok := strings.Cut(p.Setting, "="); ok {
					return "server option " + n
				}
			}
		}
		return "server option"
	}
	return XLabel
}

// titleSuffix ends the panel titles ("Throughput vs table size").
func (a Axis) titleSuffix() string {
	switch a {
	case AxisSize:
		return "data size"
	case AxisSetting:
		return "server option"
	}
	return "concurrency"
}

// positions maps every tick text of the series onto an x value: the
// number it reads as (with K/M/G suffixes, as server options and table
// sizes are written), or, when one does not read as a number, the order
// of first appearance. logScale says the values grow geometrically.
func (a Axis) positions(series []Series) (xOf func(matrix.Point) float64, logScale bool) {
	var texts []string
	for _, s := range series {
		for _, p := range s.Points {
			if t := a.text(p); !slices.Contains(texts, t) {
				texts = append(texts, t)
			}
		}
	}
	pos := map[string]float64{}
	numeric := true
	for _, t := range texts {
		v, ok := readNumber(t)
		if !ok || v <= 0 {
			numeric = false
			break
		}
		pos[t] = v
	}
	if !numeric {
		for i, t := range texts {
			pos[t] = float64(i + 1)
		}
	}
	lo, hi := math.Inf(1), 0.0
	for _, v := range pos {
		lo, hi = min(lo, v), max(hi, v)
	}
	logScale = numeric && len(pos) > 1 && hi/lo > 10
	return func(p matrix.Point) float64 { return pos[a.text(p)] }, logScale
}

// readNumber reads "128M", "1G", "500K", "64".
func readNumber(t string) (float64, bool) {
	mult := 1.0
	if n := len(t); n > 1 {
		switch t[n-1] {
		case 'k', 'K':
			mult, t = 1<<10, t[:n-1]
		case 'm', 'M':
			mult, t = 1<<20, t[:n-1]
		case 'g', 'G':
			mult, t = 1<<30, t[:n-1]
		}
	}
	v, err := strconv.ParseFloat(t, 64)
	if err != nil || math.IsNaN(v) || math.IsInf(v, 0) {
		return 0, false
	}
	return v * mult, true
}

// axisTicks labels the x values in use with their texts.
func axisTicks(a Axis, xOf func(matrix.Point) float64, plotted []matrix.Point) plot.ConstantTicks {
	var ticks plot.ConstantTicks
	seen := map[float64]bool{}
	for _, p := range plotted {
		x := xOf(p)
		if !seen[x] {
			seen[x] = true
			ticks = append(ticks, plot.Tick{Value: x, Label: a.text(p)})
		}
	}
	slices.SortFunc(ticks, func(x, y plot.Tick) int {
		switch {
		case x.Value < y.Value:
			return -1
		case x.Value > y.Value:
			return 1
		}
		return 0
	})
	return ticks
}

// BuildAxisSeries is BuildSeries for a chart along axis a: one line per
// target × engine × every other swept dimension (concurrency, size,
// setting), its points in the order of a.
func BuildAxisSeries(outcomes []matrix.Column, a Axis) []Series {
	if a == AxisConcurrency && !hasDimensions(outcomes) {
		return BuildSeries(outcomes)
	}
	var engines []string
	var out []Series
	for ti, o := range outcomes {
		byKey := map[string]*Series{}
		var order []string
		for _, p := range o.Points {
			name := o.Label
			if p.Engine != "" {
				name += " " + p.Engine
			}
			if a != AxisConcurrency && distinct(outcomes, func(q matrix.Point) string { return strconv.Itoa(q.Concurrency) }) {
				name += " c" + strconv.Itoa(p.Concurrency)
			}
			if a != AxisSize && p.Size > 0 && distinct(outcomes, func(q matrix.Point) string { return strconv.FormatInt(q.Size, 10) }) {
				name += " " + strconv.FormatInt(p.Size, 10) + " rows"
			}
			if a != AxisSetting && p.Setting != "" && distinct(outcomes, func(q matrix.Point) string { return q.Setting }) {
				name += " " + p.Setting
			}
			s := byKey[name]
			if s == nil {
				// Dashes and glyph tell apart what is not the target
				// (its colour): the engine and the other dimensions.
				style := strings.TrimPrefix(name, o.Label)
				ei := slices.Index(engines, style)
				if ei < 0 {
					engines = append(engines, style)
					ei = len(engines) - 1
				}
				s = &Series{Name: name, Target: ti, Engine: ei}
				byKey[name] = s
				order = append(order, name)
			}
			s.Points = append(s.Points, p)
		}
		for _, k := range order {
			out = append(out, *byKey[k])
		}
	}
	xOf, _ := a.positions(out)
	for i := range out {
		slices.SortStableFunc(out[i].Points, func(p, q matrix.Point) int {
			switch x, y := xOf(p), xOf(q); {
			case x < y:
				return -1
			case x > y:
				return 1
			}
			return 0
		})
	}
	return out
}

func hasDimensions(outcomes []matrix.Column) bool {
	for _, o := range outcomes {
		for _, p := range o.Points {
			if p.Size > 0 || p.Setting != "" {
				return true
			}
		}
	}
	return false
}

// distinct reports whether key takes more than one value over all points.
func distinct(outcomes []matrix.Column, key func(matrix.Point) string) bool {
	first, set := "", false
	for _, o := range outcomes {
		for _, p := range o.Points {
			k := key(p)
			if !set {
				first, set = k, true
			} else if k != first {
				return true
			}
		}
	}
	return false
}
