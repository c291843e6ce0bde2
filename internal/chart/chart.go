package chart

// Charts are drawn with gonum.org/v1/plot: a maintained, pure-Go plotting
// library (no cgo, no browser, no JavaScript assets to embed) that writes
// SVG with its fonts embedded — one self-contained file that any browser
// opens offline — as well as PNG and PDF from the same code, which is how the
// tests look at a chart as a picture.

import (
	"errors"
	"fmt"
	"github.com/goslap/goslap/internal/results/matrix"
	"image/color"
	"io"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgimg"
	"gonum.org/v1/plot/vg/vgpdf"
	"gonum.org/v1/plot/vg/vgsvg"
)

// Chart axis and title texts (tests look for them in the output).
const (
	ChartTitle     = "Throughput vs concurrency"
	LatencyTitle   = "p99 latency vs concurrency"
	XLabel         = "concurrency (clients)"
	QPSLabel       = "queries per second"
	LatencyLabel   = "p99 latency (ms)"
	chartWidth     = 9 * vg.Inch
	panelHeight    = 4.5 * vg.Inch
	legendGap      = 0.3 * vg.Inch
	chartFontSizeL = 11
)

// Series is one line of a chart: one target × engine, its points in
// ascending concurrency.
type Series struct {
	Name   string // "LABEL engine", or "LABEL" without an engine
	Target int    // index of the outcome (line colour)
	Engine int    // index of the engine among all engines (dashes and glyph)
	Points []matrix.Point
}

// BuildSeries turns outcomes into chart lines: one per target × engine.
func BuildSeries(outcomes []matrix.Column) []Series {
	var engines []string
	var out []Series
	for ti, o := range outcomes {
		byEngine := map[string]*Series{}
		var order []string
		for _, p := range o.Points {
			s := byEngine[p.Engine]
			if s == nil {
				ei := slices.Index(engines, p.Engine)
				if ei < 0 {
					engines = append(engines, p.Engine)
					ei = len(engines) - 1
				}
				name := o.Label
				if p.Engine != "" {
					name += " " + p.Engine
				}
				s = &Series{Name: name, Target: ti, Engine: ei}
				byEngine[p.Engine] = s
				order = append(order, p.Engine)
			}
			s.Points = append(s.Points, p)
		}
		for _, e := range order {
			s := byEngine[e]
			slices.SortStableFunc(s.Points, func(a, b matrix.Point) int { return a.Concurrency - b.Concurrency })
			out = append(out, *s)
		}
	}
	return out
}

// HasLatency reports whether any point has a p99 latency.
func HasLatency(series []Series) bool {
	for _, s := range series {
		for _, p := range s.Points {
			if p.P99Millis > 0 {
				return true
			}
		}
	}
	return false
}

// Formats are the file name extensions WriteFile understands.
var Formats = []string{"svg", "png", "pdf"}

// WriteFile writes the chart of outcomes to path, in the format its
// extension names (see Formats). The file is written whole or not at all.
func WriteFile(path string, outcomes []matrix.Column) error {
	return WriteFileAxis(path, outcomes, AxisConcurrency)
}

// WriteFileAxis is WriteFile with axis a on the x axis (a
// study's swept table size or server option).
func WriteFileAxis(path string, outcomes []matrix.Column, a Axis) (err error) {
	return WriteStudyFile(path, outcomes, a, Labels{})
}

// Labels name a study's own figures (matrix.Point.Metric, matrix.Point.Latency):
// with Metric set the chart plots them instead of queries per second and
// p99, with their intervals as error bars, and with two targets adds a
// panel of the second's ratio to the first.
type Labels struct {
	Metric  string // "transactions per second"
	Latency string // "p95"
	// Rounds is the number of rounds the intervals are over (1: none).
	Rounds int
}

// WriteStudyFile is WriteFileAxis with the study's figures.
func WriteStudyFile(path string, outcomes []matrix.Column, a Axis, labels Labels) error {
	return writeFile(path, func(w io.Writer, format string) error { return writeChart(w, format, outcomes, a, labels) })
}

// writeFile writes a chart to path in the format its extension names,
// through a temporary file beside it renamed into place, so a failed draw
// leaves no half-written chart (and an old one untouched).
func writeFile(path string, draw func(w io.Writer, format string) error) (err error) {
	format := strings.ToLower(strings.TrimPrefix(filepath.Ext(path), "."))
	if !slices.Contains(Formats, format) {
		return fmt.Errorf("chart %s: unknown format %q (the file name must end in .%s)", path, format, strings.Join(Formats, ", ."))
	}
	tmp, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".*")
	if err != nil {
		return fmt.Errorf("chart: %w", err)
	}
	defer func() {
		if err != nil {
			tmp.Close()
			os.Remove(tmp.Name())
		}
	}()
	if err := draw(tmp, format); err != nil {
		return fmt.Errorf("chart %s: %w", path, err)
	}
	if err := tmp.Close(); err != nil {
		return fmt.Errorf("chart %s: %w", path, err)
	}
	if err := os.Chmod(tmp.Name(), 0o644); err != nil {
		return fmt.Errorf("chart %s: %w", path, err)
	}
	if err := os.Rename(tmp.Name(), path); err != nil {
		return fmt.Errorf("chart %s: %w", path, err)
	}
	return nil
}

// Write draws queries per second against concurrency, one line per
// target × engine (colour = target, dashes and glyph = engine), and below it
// p99 latency against concurrency when any point has one. format is "svg"
// (fonts embedded), "png" or "pdf".
func Write(w io.Writer, format string, outcomes []matrix.Column) error {
	return writeChart(w, format, outcomes, AxisConcurrency, Labels{})
}

// WriteStudy is Write along axis a with the study's figures.
func WriteStudy(w io.Writer, format string, outcomes []matrix.Column, a Axis, labels Labels) error {
	return writeChart(w, format, outcomes, a, labels)
}

// figure is what a panel plots of a point: the value and its interval
// (low, high; both 0 without one).
type figure func(matrix.Point) (v, low, high float64)

func writeChart(w io.Writer, format string, outcomes []matrix.Column, a Axis, labels Labels) error {
	series := BuildAxisSeries(outcomes, a)
	chartTitle, latencyTitle := ChartTitle, LatencyTitle
	if a != AxisConcurrency {
		chartTitle = "Throughput vs " + a.titleSuffix()
		latencyTitle = "p99 latency vs " + a.titleSuffix()
	}
	if len(series) == 0 {
		return errors.New("no results to chart")
	}
	ylabel, latLabel := QPSLabel, LatencyLabel
	thr := func(p matrix.Point) (float64, float64, float64) { return p.QPS, 0, 0 }
	lat := func(p matrix.Point) (float64, float64, float64) { return p.P99Millis, 0, 0 }
	hasLat := HasLatency(series)
	if labels.Metric != "" {
		ylabel = labels.Metric
		thr = func(p matrix.Point) (float64, float64, float64) { return p.Metric, p.MetricLow, p.MetricHigh }
		lat = func(p matrix.Point) (float64, float64, float64) { return p.Latency, p.LatencyLow, p.LatencyHigh }
		latLabel = labels.Latency + " latency (ms)"
		latencyTitle = labels.Latency + " latency vs " + a.titleSuffix()
		if labels.Rounds > 1 {
			ci := fmt.Sprintf(" (%d rounds, bars: 95 %% CI)", labels.Rounds)
			chartTitle += ci
			latencyTitle += ci
		}
		hasLat = false
		for _, s := range series {
			for _, p := range s.Points {
				hasLat = hasLat || p.Latency > 0
			}
		}
	}
	qps, err := newPanel(chartTitle, ylabel, series, thr, a)
	if err != nil {
		return err
	}
	panels := []*plot.Plot{qps}
	if hasLat {
		lp, err := newPanel(latencyTitle, latLabel, series, lat, a)
		if err != nil {
			return err
		}
		panels = append(panels, lp)
	}
	if labels.Metric != "" && len(outcomes) == 2 {
		var second []Series
		for _, s := range series {
			if s.Target == 1 {
				second = append(second, s)
			}
		}
		title := fmt.Sprintf("%s / %s: %s ratio", outcomes[1].Label, outcomes[0].Label, labels.Metric)
		if labels.Rounds > 1 {
			title += " (paired by round, bars: 95 % CI)"
		}
		rp, err := newRatioPanel(title, second, a, series)
		if err != nil {
			return err
		}
		if rp != nil {
			panels = append(panels, rp)
		}
	}
	legend, err := newLegend(series)
	if err != nil {
		return err
	}

	return drawPanels(w, format, panels, legend, panelHeight)
}

// drawPanels writes panels stacked at panelHeight each, with the legend, as
// format (svg, png, pdf): the study chart's and the timeline's one canvas.
func drawPanels(w io.Writer, format string, panels []*plot.Plot, legend plot.Legend, panelHeight vg.Length) error {
	height := panelHeight * vg.Length(len(panels))
	var cw vg.CanvasWriterTo
	switch format {
	case "svg":
		cw = vgsvg.NewWith(vgsvg.UseWH(chartWidth, height), vgsvg.EmbedFonts(true))
	case "png":
		cw = vgimg.PngCanvas{Canvas: vgimg.NewWith(vgimg.UseWH(chartWidth, height), vgimg.UseDPI(110))}
	case "pdf":
		cw = vgpdf.New(chartWidth, height)
	default:
		return fmt.Errorf("unknown chart format %q (want %s)", format, strings.Join(Formats, ", "))
	}
	dc := draw.New(cw)
	// White background: PNGs are otherwise transparent.
	dc.SetColor(plotBackground)
	dc.Fill(dc.Rectangle.Path())

	panelAreas, legendArea := layout(dc, panels, legend)
	for i, p := range panels {
		p.Draw(panelAreas[i])
	}
	legend.Draw(legendArea)
	if _, err := cw.WriteTo(w); err != nil {
		return fmt.Errorf("writing %s: %w", format, err)
	}
	return nil
}

var plotBackground = plot.New().BackgroundColor

// errorPoints are a series' points with their intervals (offsets below
// and above each value), for plotter.NewYErrorBars.
type errorPoints struct {
	plotter.XYs
	plotter.YErrors
}

// newPanel is one chart panel: y(point) against axis a for every series,
// with error bars where y has an interval.
func newPanel(title, ylabel string, series []Series, y figure, a Axis) (*plot.Plot, error) {
	p := plot.New()
	p.Title.Text = title
	p.X.Label.Text = a.label(series)
	p.Y.Label.Text = ylabel
	p.Add(plotter.NewGrid())
	xOf, logScale := a.positions(series)
	var plotted []matrix.Point
	// Series with error bars are drawn a little apart along x (by their
	// index), so that intervals at one point do not hide each other.
	dodge := func(x float64, _ int) float64 { return x }
	if hasIntervals(series, y) && len(series) > 1 {
		lo, hi := math.Inf(1), math.Inf(-1)
		for _, s := range series {
			for _, pt := range s.Points {
				lo, hi = min(lo, xOf(pt)), max(hi, xOf(pt))
			}
		}
		step := 0.012
		dodge = func(x float64, i int) float64 {
			off := step * (float64(i) - float64(len(series)-1)/2)
			if logScale && lo > 0 {
				return x * math.Pow(max(hi/lo, 2), off)
			}
			return x + off*max(hi-lo, 1)
		}
	}
	for si, s := range series {
		var ep errorPoints
		bars := false
		for _, pt := range s.Points {
			v, lo, hi := y(pt)
			if v <= 0 { // unknown: leave a gap rather than draw a false zero
				continue
			}
			ep.XYs = append(ep.XYs, plotter.XY{X: dodge(xOf(pt), si), Y: v})
			e := struct{ Low, High float64 }{}
			if lo > 0 && hi > 0 && hi > lo {
				e.Low, e.High = max(v-lo, 0), max(hi-v, 0)
				bars = true
			}
			ep.YErrors = append(ep.YErrors, e)
			plotted = append(plotted, pt)
		}
		if len(ep.XYs) == 0 {
			continue
		}
		line, points, err := plotter.NewLinePoints(ep.XYs)
		if err != nil {
			return nil, fmt.Errorf("series %s: %w", s.Name, err)
		}
		styleSeries(s, line, points)
		p.Add(line, points)
		if bars {
			eb, err := plotter.NewYErrorBars(ep)
			if err != nil {
				return nil, fmt.Errorf("series %s: %w", s.Name, err)
			}
			eb.LineStyle.Color = line.Color
			eb.LineStyle.Width = vg.Points(1.2)
			eb.CapWidth = vg.Points(8)
			p.Add(eb)
		}
	}
	setXAxis(p, a, xOf, plotted, series)
	p.Y.Min = 0
	p.Y.Tick.Marker = plainTicks{}
	return p, nil
}

// hasIntervals reports whether any point of series has an interval of y.
func hasIntervals(series []Series, y figure) bool {
	for _, s := range series {
		for _, pt := range s.Points {
			if _, lo, hi := y(pt); lo > 0 && hi > lo {
				return true
			}
		}
	}
	return false
}

// newRatioPanel plots the second target's paired ratio to the first
// (matrix.Point.Ratio) with its interval and the 1.0 line; nil when no point
// has a ratio.
func newRatioPanel(title string, second []Series, a Axis, all []Series) (*plot.Plot, error) {
	p, err := newPanel(title, "ratio (1 = no difference)", second, func(pt matrix.Point) (float64, float64, float64) {
		return pt.Ratio, pt.RatioLow, pt.RatioHigh
	}, a)
	if err != nil {
		return nil, err
	}
	lo, hi := math.Inf(1), 0.0
	any := false
	for _, s := range second {
		for _, pt := range s.Points {
			if pt.Ratio > 0 {
				any = true
				lo, hi = min(lo, pt.Ratio, nonZero(pt.RatioLow, pt.Ratio)), max(hi, pt.Ratio, pt.RatioHigh)
			}
		}
	}
	if !any {
		return nil, nil
	}
	// The y range shows 1.0 and every interval, with a margin.
	lo, hi = min(lo, 1), max(hi, 1)
	pad := (hi - lo) * 0.1
	if pad == 0 {
		pad = 0.05
	}
	p.Y.Min, p.Y.Max = max(lo-pad, 0), hi+pad
	xOf, _ := a.positions(all)
	xmin, xmax := math.Inf(1), math.Inf(-1)
	for _, s := range second {
		for _, pt := range s.Points {
			xmin, xmax = min(xmin, xOf(pt)), max(xmax, xOf(pt))
		}
	}
	if xmin == xmax {
		xmin, xmax = xmin*0.5, xmax*1.5
	}
	one, err := plotter.NewLine(plotter.XYs{{X: xmin, Y: 1}, {X: xmax, Y: 1}})
	if err != nil {
		return nil, err
	}
	one.Color = color.Gray{Y: 0x40}
	one.Width = vg.Points(1)
	one.Dashes = []vg.Length{vg.Points(4), vg.Points(3)}
	p.Add(one)
	return p, nil
}

func nonZero(v, or float64) float64 {
	if v > 0 {
		return v
	}
	return or
}

// setXAxis gives a panel its x ticks (the values in use, labelled as the
// user wrote them) and a logarithmic scale when they span more than 10×.
func setXAxis(p *plot.Plot, a Axis, xOf func(matrix.Point) float64, plotted []matrix.Point, series []Series) {
	_, logScale := a.positions(series)
	ticks := axisTicks(a, xOf, plotted)
	p.X.Tick.Marker = ticks
	if logScale && len(ticks) > 1 {
		// Concurrency levels, sizes and buffer pools usually grow
		// geometrically (16, 64, 256).
		p.X.Scale = plot.LogScale{}
	}
	switch {
	case len(ticks) == 1:
		p.X.Min, p.X.Max = ticks[0].Value*0.5, ticks[0].Value*1.5
	case len(ticks) > 1 && p.X.Scale == (plot.LogScale{}):
		// A margin, so the first and last points' error bars are not
		// drawn on the frame.
		lo, hi := ticks[0].Value, ticks[len(ticks)-1].Value
		m := math.Pow(hi/lo, 0.04)
		p.X.Min, p.X.Max = lo/m, hi*m
	case len(ticks) > 1:
		lo, hi := ticks[0].Value, ticks[len(ticks)-1].Value
		m := (hi - lo) * 0.04
		p.X.Min, p.X.Max = lo-m, hi+m
	}
}

// plainTicks are gonum's default ticks labelled without trailing zeros
// ("7500", not "7500.00").
type plainTicks struct{}

func (plainTicks) Ticks(min, max float64) []plot.Tick {
	ticks := plot.DefaultTicks{}.Ticks(min, max)
	for i := range ticks {
		if ticks[i].Label != "" {
			ticks[i].Label = strconv.FormatFloat(ticks[i].Value, 'g', 10, 64) // 0.9, not 0.9000000000000001
		}
	}
	return ticks
}

// layout places the panels one above the other with their data areas
// aligned (the same x range on the page whatever the width of each
// panel's y tick labels, so a concurrency level sits at one x in both) and
// gives the legend a column of its own on the right, level with the top
// panel's data, so it never hides a line.
func layout(dc draw.Canvas, panels []*plot.Plot, legend plot.Legend) ([]draw.Canvas, draw.Canvas) {
	lw := legend.Rectangle(dc).Size().X + legendGap
	plotArea := draw.Crop(dc, 0, -lw, 0, 0)
	tiles := draw.Tiles{Rows: len(panels), Cols: 1, PadTop: 0.1 * vg.Inch, PadBottom: 0.1 * vg.Inch, PadLeft: 0.1 * vg.Inch, PadRight: 0.15 * vg.Inch, PadY: 0.2 * vg.Inch}
	rows := make([][]*plot.Plot, len(panels))
	for i, p := range panels {
		rows[i] = []*plot.Plot{p}
	}
	aligned := plot.Align(rows, tiles, plotArea)
	areas := make([]draw.Canvas, len(panels))
	for i := range aligned {
		areas[i] = aligned[i][0]
	}
	top := panels[0].DataCanvas(areas[0])
	legendArea := draw.Crop(dc, dc.Max.X-lw, 0, 0, top.Max.Y-dc.Max.Y)
	return areas, legendArea
}

// seriesColors are one colour per target: the Okabe–Ito palette, which
// stays distinguishable for the common forms of colour blindness and in
// greyscale print, without its yellow (too faint on white).
var seriesColors = []color.Color{
	color.RGBA{0x00, 0x72, 0xb2, 0xff}, // blue
	color.RGBA{0xd5, 0x5e, 0x00, 0xff}, // vermillion
	color.RGBA{0x00, 0x9e, 0x73, 0xff}, // bluish green
	color.RGBA{0xcc, 0x79, 0xa7, 0xff}, // reddish purple
	color.RGBA{0xe6, 0x9f, 0x00, 0xff}, // orange
	color.RGBA{0x56, 0xb4, 0xe9, 0xff}, // sky blue
	color.RGBA{0x00, 0x00, 0x00, 0xff}, // black
}

// engineShapes and engineDashes tell engines apart within a target's
// colour: filled marks, so they stay visible where lines cross.
var (
	engineShapes = []draw.GlyphDrawer{draw.CircleGlyph{}, draw.BoxGlyph{}, draw.PyramidGlyph{}, draw.CrossGlyph{}, draw.PlusGlyph{}, draw.RingGlyph{}}
	engineDashes = [][]vg.Length{
		nil,
		{vg.Points(7), vg.Points(3)},
		{vg.Points(2), vg.Points(2)},
		{vg.Points(7), vg.Points(3), vg.Points(2), vg.Points(3)},
		{vg.Points(12), vg.Points(4)},
	}
)

// styleSeries gives a series its target's colour and its engine's marker
// and dashes, so that the legend reads as a grid: colour = target, mark =
// engine.
func styleSeries(s Series, line *plotter.Line, points *plotter.Scatter) {
	c := seriesColors[s.Target%len(seriesColors)]
	line.Color = c
	line.Width = vg.Points(2)
	line.Dashes = engineDashes[s.Engine%len(engineDashes)]
	points.Color = c
	points.Shape = engineShapes[s.Engine%len(engineShapes)]
	points.Radius = vg.Points(3.5)
}

func newLegend(series []Series) (plot.Legend, error) {
	l := plot.NewLegend()
	l.Top, l.Left = true, true
	l.TextStyle.Font.Size = chartFontSizeL
	l.ThumbnailWidth = 0.5 * vg.Inch
	l.Padding = vg.Points(3)
	for _, s := range series {
		line, points, err := plotter.NewLinePoints(plotter.XYs{{X: 1, Y: 1}})
		if err != nil {
			return l, err
		}
		styleSeries(s, line, points)
		l.Add(s.Name, line, points)
	}
	return l, nil
}
