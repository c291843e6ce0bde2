package orchestrator

import (
	"fmt"
	"math"

	"github.com/goslap/goslap/internal/chart"
	"github.com/goslap/goslap/internal/results/jsondoc"
)

// timelines are the cells' intervals as time series for the timeline
// chart: one per cell, its iterations one after the other, each preceded
// by its warm-up.
func timelines(cfg *Config, cells []*Cell, multi bool) []chart.Timeline {
	var out []chart.Timeline
	warm := cfg.Warmup.Seconds()
	for _, c := range cells {
		_, ivs := CellServer(c, cfg.ServerMetrics.unit())
		if len(ivs) == 0 {
			continue
		}
		name := fmt.Sprintf("%d clients", c.Clients)
		if c.Engine.Name != "" {
			name = c.Engine.Label() + " " + name
		}
		if c.Setting != "" {
			name = c.Setting + " " + name
		}
		if multi && c.Target != "" {
			name = c.Target + " " + name
		}
		if c.Round > 0 { // the rounds of one side are otherwise alike
			name += fmt.Sprintf(", round %d", c.Round)
		}
		tl := chart.Timeline{Name: name}
		// Where each iteration's measured load starts on the time axis.
		offsets := map[int]float64{}
		at := 0.0
		for _, b := range c.Benchmarks {
			offsets[b.Point.Number] = at + warm
			tl.Starts = append(tl.Starts, at+warm)
			at += warm + b.Elapsed.Seconds()
		}
		for _, iv := range ivs {
			tl.Samples = append(tl.Samples, timelineSample(offsets[iv.Iteration], iv))
		}
		out = append(out, tl)
	}
	return out
}

func timelineSample(offset float64, iv jsondoc.Interval) chart.TimelineSample {
	s := chart.TimelineSample{X: offset + iv.AtSeconds, Latency: math.NaN(), ServerCPU: math.NaN(), DiskReads: math.NaN()}
	sec := iv.Seconds
	if sec <= 0 {
		sec = math.NaN()
	}
	s.Throughput = float64(iv.Transactions) / sec
	if iv.Latency.Count > 0 {
		s.Latency = float64(iv.Latency.P99) / 1000
	}
	if f := iv.Server; f != nil {
		if f.Process != nil && f.Seconds > 0 {
			s.ServerCPU = (f.Process.UserSeconds + f.Process.SystemSeconds) / f.Seconds
		}
		if n, ok := f.Counters["Innodb_buffer_pool_reads"]; ok && f.Seconds > 0 {
			s.DiskReads = float64(n) / f.Seconds
		}
	}
	return s
}

// writeTimeline draws the timeline chart beside --plot's (NAME-timeline.EXT)
// when the cells kept intervals.
func writeTimeline(cfg *Config, res *Result) error {
	lines := timelines(cfg, res.Cells, len(res.Outcomes) > 1)
	if len(lines) == 0 {
		return nil
	}
	unit := cfg.ServerMetrics.unit() + "s"
	return chart.WriteTimelineFile(chart.TimelinePath(cfg.Plot), lines, unit, "p99")
}
