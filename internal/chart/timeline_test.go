package chart

import (
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestTimelineFile: the chart is written beside the summary chart's name,
// with its panels' titles, and a timeline without server figures leaves
// the server panels out rather than drawing zeros.
func TestTimelineFile(t *testing.T) {
	dir := t.TempDir()
	if got := TimelinePath(filepath.Join(dir, "run.svg")); got != filepath.Join(dir, "run-timeline.svg") {
		t.Fatalf("TimelinePath = %s", got)
	}
	sample := func(x, tput, cpu float64) TimelineSample {
		return TimelineSample{X: x, Throughput: tput, Latency: 2, ServerCPU: cpu, DiskReads: math.NaN()}
	}
	for _, tt := range []struct {
		name      string
		cpu       float64
		wantPanel bool
	}{{"visible", 0.7, true}, {"remote", math.NaN(), false}} {
		path := filepath.Join(dir, tt.name+"-timeline.svg")
		lines := []Timeline{{Name: "a 4 clients", Starts: []float64{2},
			Samples: []TimelineSample{sample(3, 1000, tt.cpu), sample(4, 100, tt.cpu), sample(5, 1000, tt.cpu)}}}
		if err := WriteTimelineFile(path, lines, "transactions", "p99"); err != nil {
			t.Fatal(err)
		}
		data, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		svg := string(data)
		for _, want := range []string{TimelineTitle, "p99 latency over time", "warm-up ended"} {
			if !strings.Contains(svg, want) {
				t.Errorf("%s: no %q in the chart", tt.name, want)
			}
		}
		if got := strings.Contains(svg, "Server CPU"); got != tt.wantPanel {
			t.Errorf("%s: server CPU panel %v, want %v", tt.name, got, tt.wantPanel)
		}
		if strings.Contains(svg, "Buffer-pool reads from disk") {
			t.Errorf("%s: a disk reads panel without disk reads", tt.name)
		}
	}
}

// TestTimelineStylesDistinct: every timeline of a run with more lines than
// the palette has colours gets a colour and dash pattern of its own (they
// repeated after the seventh line).
func TestTimelineStylesDistinct(t *testing.T) {
	for _, n := range []int{2, len(seriesColors), len(seriesColors) + 1, 10, len(seriesColors) * len(engineDashes)} {
		seen := map[string]int{}
		for i := 0; i < n; i++ {
			c, d := timelineStyle(i)
			key := fmt.Sprint(c, d)
			if j, ok := seen[key]; ok {
				t.Errorf("%d lines: line %d is drawn as line %d", n, i, j)
			}
			seen[key] = i
		}
	}
}
