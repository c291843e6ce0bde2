package matrix

import (
	"bytes"
	"strings"
	"testing"
)

func sampleOutcomes(latency bool) []Column {
	mk := func(label string, f float64) Column {
		o := Column{Label: label, Description: "sandbox: mariadbd (innodb_buffer_pool_size=" + label + ")"}
		for _, e := range []string{"innodb", "myisam"} {
			for _, c := range []int{16, 64, 256} {
				p := Point{Engine: e, Concurrency: c, Iterations: 3, AvgSeconds: 0.5 / f, QPS: f * float64(c) * 10}
				if latency {
					p.P99Millis = float64(c) / f
				}
				o.Points = append(o.Points, p)
			}
		}
		return o
	}
	return []Column{mk("bp64M", 1), mk("bp256M", 2)}
}

func TestWriteTable(t *testing.T) {
	outs := sampleOutcomes(false)
	// The second target lacks one cell: shown as "-".
	outs[1].Points = outs[1].Points[:len(outs[1].Points)-1]
	var b bytes.Buffer
	if err := WriteTable(&b, outs); err != nil {
		t.Fatal(err)
	}
	got := b.String()
	want := []string{
		"Comparison: 2 targets; seconds = average per iteration, q/s = queries per second, ratio = q/s against bp64M",
		"  bp64M:  sandbox: mariadbd (innodb_buffer_pool_size=bp64M)",
		"                 bp64M            bp256M",
		"engine  clients  seconds  q/s     seconds  q/s     ratio",
		"innodb  16       0.500    160.0   0.250    320.0   2.00x",
		"myisam  256      0.500    2560.0  -        -       -",
	}
	for _, w := range want {
		if !strings.Contains(got, w+"\n") && !strings.Contains(got, w+" ") {
			t.Errorf("table lacks line %q:\n%s", w, got)
		}
	}
	if n := strings.Count(got, "\n"); n != 3+1+2+6 {
		t.Errorf("table has %d lines, want 12:\n%s", n, got)
	}
}

func TestWriteTableDimensions(t *testing.T) {
	outs := []Column{{Label: "a", Description: "server", Points: []Point{
		{Concurrency: 4, Size: 500, Setting: "innodb_buffer_pool_size=16M", AvgSeconds: 1, QPS: 10},
	}}}
	var b bytes.Buffer
	if err := WriteTable(&b, outs); err != nil {
		t.Fatal(err)
	}
	want := "engine  clients  size  server option                seconds  q/s\n" +
		"-       4        500   innodb_buffer_pool_size=16M  1.000    10.0\n"
	if !strings.HasSuffix(b.String(), want) {
		t.Errorf("got\n%s\nwant the end\n%s", b.String(), want)
	}
	// Without the dimensions the table is as before.
	b.Reset()
	outs[0].Points[0].Size, outs[0].Points[0].Setting = 0, ""
	WriteTable(&b, outs)
	if strings.Contains(b.String(), "size") || !strings.Contains(b.String(), "engine  clients  seconds  q/s\n") {
		t.Errorf("got\n%s", b.String())
	}
}
