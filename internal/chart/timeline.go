package chart

import (
	"errors"
	"fmt"
	"image/color"
	"io"
	"math"
	"path/filepath"
	"strings"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
)

// Timeline chart texts (tests look for them in the output).
const (
	TimelineTitle = "Throughput over time"
	TimelineX     = "time since the load started (s)"
	timelinePanel = 2.8 * vg.Inch
)

// Timeline is one benchmark's run as a time series (one report interval
// per sample): a target × point, every iteration one after the other.
type Timeline struct {
	Name string // legend: "LABEL 8 clients"
	// Samples are in time order; Start marks where an iteration's
	// measured load started (its warm-up ended), drawn as a vertical rule.
	Samples []TimelineSample
	Starts  []float64
}

// TimelineSample is one interval, at its end X seconds after the first
// iteration's load started. A NaN value is unknown: a gap, not a zero.
type TimelineSample struct {
	X          float64
	Throughput float64 // units per second
	Latency    float64 // ms, the chosen percentile
	ServerCPU  float64 // server CPU, cores busy (CPU s per s)
	DiskReads  float64 // buffer-pool reads from disk per second
}

// WriteTimelineFile draws the timelines to path (format by extension, as
// WriteFileAxis): throughput, then the percentile's latency (named by
// percentile, "p99"), then the server's CPU and disk reads when any
// timeline has them, sharing the time axis; unit names the throughput
// ("transactions").
func WriteTimelineFile(path string, lines []Timeline, unit, percentile string) error {
	return writeFile(path, func(w io.Writer, format string) error { return writeTimeline(w, format, lines, unit, percentile) })
}

// TimelinePath is the timeline's file beside the summary chart at plot:
// "run.svg" gives "run-timeline.svg".
func TimelinePath(plot string) string {
	ext := filepath.Ext(plot)
	return strings.TrimSuffix(plot, ext) + "-timeline" + ext
}

func writeTimeline(w io.Writer, format string, lines []Timeline, unit, percentile string) error {
	if len(lines) == 0 {
		return errors.New("no intervals to chart")
	}
	type panel struct {
		title, ylabel string
		y             func(TimelineSample) float64
	}
	panels := []panel{
		{TimelineTitle, unit + "/s", func(s TimelineSample) float64 { return s.Throughput }},
		{percentile + " latency over time", percentile + " (ms)", func(s TimelineSample) float64 { return s.Latency }},
		{"Server CPU (CPU seconds per second)", "cores busy", func(s TimelineSample) float64 { return s.ServerCPU }},
		{"Buffer-pool reads from disk", "disk reads/s", func(s TimelineSample) float64 { return s.DiskReads }},
	}
	var plots []*plot.Plot
	for i, pn := range panels {
		if i >= 2 && !anyKnown(lines, pn.y) {
			continue // a server goslap could not see, or no counters
		}
		p, err := timelinePanelPlot(pn.title, pn.ylabel, lines, pn.y)
		if err != nil {
			return err
		}
		plots = append(plots, p)
	}
	// The time axis is named once, under the bottom panel.
	for _, p := range plots[:len(plots)-1] {
		p.X.Label.Text = ""
	}
	legend := plot.NewLegend()
	legend.Top, legend.Left = true, true
	legend.TextStyle.Font.Size = chartFontSizeL
	legend.ThumbnailWidth = 0.5 * vg.Inch
	legend.Padding = vg.Points(3)
	for i, l := range lines {
		ln, err := plotter.NewLine(plotter.XYs{{X: 0, Y: 0}})
		if err != nil {
			return err
		}
		styleTimeline(ln, i, vg.Points(2))
		legend.Add(l.Name, ln)
	}
	rule, err := plotter.NewLine(plotter.XYs{{X: 0, Y: 0}})
	if err != nil {
		return err
	}
	styleRule(rule)
	legend.Add("warm-up ended", rule)

	return drawPanels(w, format, plots, legend, timelinePanel)
}

func anyKnown(lines []Timeline, y func(TimelineSample) float64) bool {
	for _, l := range lines {
		for _, s := range l.Samples {
			if !math.IsNaN(y(s)) {
				return true
			}
		}
	}
	return false
}

// timelinePanelPlot is one panel: y against time for every timeline,
// with the warm-up rules.
func timelinePanelPlot(title, ylabel string, lines []Timeline, y func(TimelineSample) float64) (*plot.Plot, error) {
	p := plot.New()
	p.Title.Text = title
	p.X.Label.Text = TimelineX
	p.Y.Label.Text = ylabel
	p.Add(plotter.NewGrid())
	top, xmax := 0.0, 0.0
	for i, l := range lines {
		// A gap (NaN) splits the line: an unknown value is not drawn as 0.
		var seg plotter.XYs
		flush := func() error {
			if len(seg) == 0 {
				return nil
			}
			ln, err := plotter.NewLine(seg)
			if err != nil {
				return fmt.Errorf("timeline %s: %w", l.Name, err)
			}
			styleTimeline(ln, i, vg.Points(1.5))
			p.Add(ln)
			seg = nil
			return nil
		}
		for _, s := range l.Samples {
			xmax = max(xmax, s.X)
			v := y(s)
			if math.IsNaN(v) || math.IsInf(v, 0) {
				if err := flush(); err != nil {
					return nil, err
				}
				continue
			}
			top = max(top, v)
			seg = append(seg, plotter.XY{X: s.X, Y: v})
		}
		if err := flush(); err != nil {
			return nil, err
		}
	}
	if top == 0 {
		top = 1
	}
	for _, l := range lines {
		for _, x := range l.Starts {
			if x <= 0 {
				continue // no warm-up: the rule would sit on the axis
			}
			r, err := plotter.NewLine(plotter.XYs{{X: x, Y: 0}, {X: x, Y: top * 1.05}})
			if err != nil {
				return nil, err
			}
			styleRule(r)
			p.Add(r)
		}
	}
	p.X.Min, p.Y.Min = 0, 0
	p.X.Max = max(xmax, 1)
	p.Y.Max = top * 1.08
	p.Y.Tick.Marker = plainTicks{}
	return p, nil
}

// styleTimeline draws timeline i: the palette's colours first, then the
// same colours again with the engines' dash patterns, so that a run with
// more timelines than colours (a sweep of 10 thread counts) still tells
// every line apart in the legend.
func styleTimeline(l *plotter.Line, i int, width vg.Length) {
	l.Color, l.Dashes = timelineStyle(i)
	l.Width = width
}

func timelineStyle(i int) (color.Color, []vg.Length) {
	n := len(seriesColors)
	return seriesColors[i%n], engineDashes[(i/n)%len(engineDashes)]
}

// styleRule draws the warm-up rule: thin, grey, dashed.
func styleRule(l *plotter.Line) {
	l.Color = color.RGBA{0x77, 0x77, 0x77, 0xff}
	l.Width = vg.Points(1)
	l.Dashes = []vg.Length{vg.Points(4), vg.Points(3)}
}
