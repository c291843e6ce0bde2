package chart

import (
	"github.com/goslap/goslap/internal/results/matrix"
	"strings"
	"testing"
)

func TestBuildAxisSeries(t *testing.T) {
	sweep := []matrix.Column{{Label: "a", Points: []matrix.Point{
		{Engine: "innodb", Concurrency: 4, Size: 1000000, QPS: 1},
		{Engine: "innodb", Concurrency: 8, Size: 1000000, QPS: 2},
		{Engine: "innodb", Concurrency: 4, Size: 500000, QPS: 3},
		{Engine: "innodb", Concurrency: 8, Size: 500000, QPS: 4},
	}}}
	settings := []matrix.Column{{Label: "b", Points: []matrix.Point{
		{Concurrency: 4, Setting: "innodb_buffer_pool_size=1G", QPS: 1},
		{Concurrency: 4, Setting: "innodb_buffer_pool_size=64M", QPS: 2},
	}}}
	cases := []struct {
		name string
		outs []matrix.Column
		axis Axis
		want []string // "series: x texts in order"
	}{
		{"size axis splits by concurrency", sweep, AxisSize, []string{"a innodb c4: 500000 1000000", "a innodb c8: 500000 1000000"}},
		{"concurrency axis splits by size", sweep, AxisConcurrency, []string{"a innodb 1000000 rows: 4 8", "a innodb 500000 rows: 4 8"}},
		{"setting axis orders by value with suffixes", settings, AxisSetting, []string{"b: 64M 1G"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			var got []string
			for _, s := range BuildAxisSeries(tc.outs, tc.axis) {
				var xs []string
				for _, p := range s.Points {
					xs = append(xs, tc.axis.text(p))
				}
				got = append(got, s.Name+": "+strings.Join(xs, " "))
			}
			if strings.Join(got, "|") != strings.Join(tc.want, "|") {
				t.Errorf("got %q, want %q", got, tc.want)
			}
		})
	}
	// Series of one target differ in style when they differ in more than
	// the target.
	ss := BuildAxisSeries(sweep, AxisSize)
	if ss[0].Target != ss[1].Target || ss[0].Engine == ss[1].Engine {
		t.Errorf("styles: %+v", ss)
	}
}

func TestAxisPositions(t *testing.T) {
	cases := []struct {
		texts   []string
		want    []float64
		logAxis bool
	}{
		{[]string{"16M", "256M"}, []float64{16 << 20, 256 << 20}, true},
		{[]string{"100", "200"}, []float64{100, 200}, false},
		{[]string{"ON", "OFF"}, []float64{1, 2}, false}, // not numbers: in order given
	}
	for _, tc := range cases {
		var pts []matrix.Point
		for _, x := range tc.texts {
			pts = append(pts, matrix.Point{Setting: "opt=" + x})
		}
		xOf, logScale := AxisSetting.positions([]Series{{Points: pts}})
		for i, p := range pts {
			if xOf(p) != tc.want[i] {
				t.Errorf("%v: x(%s) = %v, want %v", tc.texts, tc.texts[i], xOf(p), tc.want[i])
			}
		}
		if logScale != tc.logAxis {
			t.Errorf("%v: log scale %v", tc.texts, logScale)
		}
	}
}
