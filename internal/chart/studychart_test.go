package chart

import (
	"bytes"
	"github.com/goslap/goslap/internal/results/matrix"
	"os"
	"strings"
	"testing"
)

// studyOutcomes are two targets over three table sizes with the study's
// figures, their intervals and b's ratio to a.
func studyOutcomes(intervals bool) []matrix.Column {
	mk := func(size int64, v, lat, ratio float64) matrix.Point {
		p := matrix.Point{Concurrency: 4, Iterations: 1, Size: size, QPS: v * 10, P99Millis: lat * 2, Metric: v, Latency: lat, Ratio: ratio}
		if intervals {
			p.MetricLow, p.MetricHigh = v*0.8, v*1.25
			p.LatencyLow, p.LatencyHigh = lat*0.7, lat*1.4
			if ratio > 0 {
				p.RatioLow, p.RatioHigh = ratio*0.9, ratio*1.1
			}
		}
		return p
	}
	return []matrix.Column{
		{Label: "a", Points: []matrix.Point{mk(20000, 30000, 0.3, 0), mk(100000, 38000, 0.25, 0), mk(1000000, 24000, 0.3, 0)}},
		{Label: "b", Points: []matrix.Point{mk(20000, 33000, 0.28, 1.1), mk(100000, 40000, 0.2, 1.05), mk(1000000, 21000, 0.35, 0.88)}},
	}
}

// TestStudyChartErrorBars: a study's chart plots its own metric and
// percentile, draws the intervals as error bars (more paths than the same
// chart without intervals) and adds the b/a ratio panel.
func TestStudyChartErrorBars(t *testing.T) {
	labels := Labels{Metric: "transactions per second", Latency: "p95", Rounds: 3}
	var with, without bytes.Buffer
	if err := WriteStudy(&with, "svg", studyOutcomes(true), AxisSize, labels); err != nil {
		t.Fatal(err)
	}
	if err := WriteStudy(&without, "svg", studyOutcomes(false), AxisSize, labels); err != nil {
		t.Fatal(err)
	}
	svg := with.String()
	for _, want := range []string{"transactions per second", "p95 latency (ms)", "bars: 95 % CI", "b / a: transactions per second ratio", ">1000000<"} {
		if !strings.Contains(svg, want) {
			t.Errorf("chart lacks %q", want)
		}
	}
	if strings.Contains(svg, "queries per second") || strings.Contains(svg, "p99 latency") {
		t.Error("the study chart still plots queries per second or p99")
	}
	// Each error bar adds at least one path (6 points × 2 panels + 3
	// ratios = 15 bars).
	if got, base := strings.Count(svg, "<path"), strings.Count(without.String(), "<path"); got < base+15 {
		t.Errorf("%d paths with intervals, %d without: error bars missing", got, base)
	}
	if out := os.Getenv("GOSLAP_KEEP_CHART"); out != "" {
		if err := WriteStudyFile(out, studyOutcomes(true), AxisSize, labels); err != nil {
			t.Fatal(err)
		}
	}
}
