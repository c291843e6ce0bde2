package chart

import (
	"bytes"
	"image/color"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"strings"
	"testing"

	"github.com/goslap/goslap/internal/results/matrix"
	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgimg"
)

func sampleOutcomes(latency bool) []matrix.Column {
	mk := func(label string, f float64) matrix.Column {
		o := matrix.Column{Label: label, Description: "sandbox: mariadbd (innodb_buffer_pool_size=" + label + ")"}
		for _, e := range []string{"innodb", "myisam"} {
			for _, c := range []int{16, 64, 256} {
				p := matrix.Point{Engine: e, Concurrency: c, Iterations: 3, AvgSeconds: 0.5 / f, QPS: f * float64(c) * 10}
				if latency {
					p.P99Millis = float64(c) / f
				}
				o.Points = append(o.Points, p)
			}
		}
		return o
	}
	return []matrix.Column{mk("bp64M", 1), mk("bp256M", 2)}
}

// svgTexts are the text elements of an SVG file, in order.
func svgTexts(svg string) []string {
	var out []string
	for _, m := range regexp.MustCompile(`>([^<>]*)</text>`).FindAllStringSubmatch(svg, -1) {
		out = append(out, m[1])
	}
	return out
}

func TestChart(t *testing.T) {
	tests := []struct {
		name        string
		latency     bool
		wantTitles  []string
		wantYLabels []string
	}{
		{name: "qps only", wantTitles: []string{ChartTitle}, wantYLabels: []string{QPSLabel}},
		{name: "with p99", latency: true, wantTitles: []string{ChartTitle, LatencyTitle}, wantYLabels: []string{QPSLabel, LatencyLabel}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			outs := sampleOutcomes(tt.latency)
			for i := range outs {
				// Engines apart, so the picture shows their marks and dashes.
				for j := range outs[i].Points {
					if p := &outs[i].Points[j]; p.Engine == "myisam" {
						p.QPS, p.P99Millis = p.QPS*0.7, p.P99Millis*1.3
					}
				}
			}
			series := BuildSeries(outs)
			wantNames := []string{"bp64M innodb", "bp64M myisam", "bp256M innodb", "bp256M myisam"}
			var names []string
			for _, s := range series {
				names = append(names, s.Name)
				if len(s.Points) != 3 {
					t.Errorf("series %s has %d points, want 3", s.Name, len(s.Points))
				}
			}
			if !reflect.DeepEqual(names, wantNames) {
				t.Fatalf("series %q, want %q", names, wantNames)
			}
			if HasLatency(series) != tt.latency {
				t.Errorf("HasLatency = %v", !tt.latency)
			}

			dir := t.TempDir()
			svgPath := filepath.Join(dir, "chart.svg")
			if err := WriteFile(svgPath, outs); err != nil {
				t.Fatal(err)
			}
			b, err := os.ReadFile(svgPath)
			if err != nil {
				t.Fatal(err)
			}
			svg := string(b)
			if !strings.Contains(svg, "@font-face") || !strings.Contains(svg, "base64,") {
				t.Error("SVG does not embed its font")
			}
			texts := svgTexts(svg)
			count := func(s string) int {
				n := 0
				for _, x := range texts {
					if x == s {
						n++
					}
				}
				return n
			}
			for _, s := range append(append(wantNames, tt.wantTitles...), tt.wantYLabels...) {
				if count(s) != 1 {
					t.Errorf("SVG has %d texts %q, want 1; texts: %q", count(s), s, texts)
				}
			}
			panels := len(tt.wantTitles)
			if count(XLabel) != panels {
				t.Errorf("SVG has %d x-axis labels, want %d", count(XLabel), panels)
			}
			for _, tick := range []string{"16", "64", "256"} {
				if count(tick) != panels {
					t.Errorf("SVG has %d x ticks %q, want %d", count(tick), tick, panels)
				}
			}
			if !tt.latency && count(LatencyTitle) != 0 {
				t.Error("latency panel drawn without latency figures")
			}
			// The same chart as a picture.
			pngPath := filepath.Join(dir, "chart.png")
			if err := WriteFile(pngPath, outs); err != nil {
				t.Fatal(err)
			}
			if b, err := os.ReadFile(pngPath); err != nil || !bytes.HasPrefix(b, []byte("\x89PNG")) {
				t.Errorf("no PNG written: %v", err)
			}
			if out := os.Getenv("GOSLAP_CHART_DIR"); out != "" {
				// GOSLAP_CHART_DIR=/tmp go test -run TestChart keeps the files to look at.
				_ = os.WriteFile(filepath.Join(out, "compare-"+strings.ReplaceAll(tt.name, " ", "-")+".png"), mustRead(t, pngPath), 0o644)
			}
		})
	}
}

func mustRead(t *testing.T, p string) []byte {
	t.Helper()
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func TestWriteChartFileErrors(t *testing.T) {
	dir := t.TempDir()
	tests := []struct {
		name, path string
		outs       []matrix.Column
		wantErr    string
	}{
		{name: "bad extension", path: filepath.Join(dir, "c.gif"), outs: sampleOutcomes(false), wantErr: `unknown format "gif"`},
		{name: "no results", path: filepath.Join(dir, "c.svg"), wantErr: "no results to chart"},
		{name: "no directory", path: filepath.Join(dir, "missing", "c.svg"), outs: sampleOutcomes(false), wantErr: "no such file"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := WriteFile(tt.path, tt.outs)
			if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
				t.Fatalf("error = %v, want %q", err, tt.wantErr)
			}
		})
	}
	// Nothing half-written is left behind.
	ents, _ := os.ReadDir(dir)
	if len(ents) != 0 {
		t.Errorf("left behind: %v", ents)
	}
}

// TestChartLayout: both panels' data areas span the same x range (their y
// tick labels differ in width: 5000 against 300), and the legend's column
// starts right of every data area.
func TestChartLayout(t *testing.T) {
	series := BuildSeries(sampleOutcomes(true))
	qps, err := newPanel(ChartTitle, QPSLabel, series, func(p matrix.Point) (float64, float64, float64) { return p.QPS * 100, 0, 0 }, AxisConcurrency)
	if err != nil {
		t.Fatal(err)
	}
	lat, err := newPanel(LatencyTitle, LatencyLabel, series, func(p matrix.Point) (float64, float64, float64) { return p.P99Millis, 0, 0 }, AxisConcurrency)
	if err != nil {
		t.Fatal(err)
	}
	legend, err := newLegend(series)
	if err != nil {
		t.Fatal(err)
	}
	dc := draw.New(vgimg.New(chartWidth, 2*panelHeight))
	areas, legendArea := layout(dc, []*plot.Plot{qps, lat}, legend)
	top, bottom := qps.DataCanvas(areas[0]), lat.DataCanvas(areas[1])
	if top.Min.X != bottom.Min.X || top.Max.X != bottom.Max.X {
		t.Errorf("x axes not aligned: top %v..%v, bottom %v..%v", top.Min.X, top.Max.X, bottom.Min.X, bottom.Max.X)
	}
	if legendArea.Min.X <= top.Max.X || legendArea.Max.Y > top.Max.Y {
		t.Errorf("legend area %v overlaps the data %v", legendArea.Rectangle, top.Rectangle)
	}
}

// TestSeriesStyle: the colour says the target, the mark and dashes the
// engine.
func TestSeriesStyle(t *testing.T) {
	type style struct {
		c      color.Color
		shape  draw.GlyphDrawer
		dashes []vg.Length
	}
	styles := map[[2]int]style{}
	for target := range 3 {
		for engine := range 3 {
			line, points, err := plotter.NewLinePoints(plotter.XYs{{X: 1, Y: 1}})
			if err != nil {
				t.Fatal(err)
			}
			styleSeries(Series{Target: target, Engine: engine}, line, points)
			if line.Color != points.Color {
				t.Errorf("target %d engine %d: line and marks in different colours", target, engine)
			}
			styles[[2]int{target, engine}] = style{line.Color, points.Shape, line.Dashes}
		}
	}
	for a, sa := range styles {
		for b, sb := range styles {
			if (sa.c == sb.c) != (a[0] == b[0]) {
				t.Errorf("%v and %v: colours %v %v", a, b, sa.c, sb.c)
			}
			if (sa.shape == sb.shape) != (a[1] == b[1]) || reflect.DeepEqual(sa.dashes, sb.dashes) != (a[1] == b[1]) {
				t.Errorf("%v and %v: marks %T %T, dashes %v %v", a, b, sa.shape, sb.shape, sa.dashes, sb.dashes)
			}
		}
	}
}
