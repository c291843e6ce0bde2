package compare

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"image/color"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgimg"
)

func TestParseTarget(t *testing.T) {
	tests := []struct {
		spec    string
		want    Target
		wantErr string
	}{
		{spec: "a:sandbox", want: Target{Label: "a", Kind: Sandbox}},
		{spec: "my8:sandbox:/opt/mysql-8.0/bin/mysqld", want: Target{Label: "my8", Kind: Sandbox, Binary: "/opt/mysql-8.0/bin/mysqld"}},
		{spec: "bp1G:sandbox,innodb_buffer_pool_size=1G,--skip-innodb-adaptive-hash-index",
			want: Target{Label: "bp1G", Kind: Sandbox, ServerOptions: []string{"innodb_buffer_pool_size=1G", "skip-innodb-adaptive-hash-index"}}},
		{spec: `m:sandbox:mariadbd,sql_mode=STRICT_ALL_TABLES\,NO_ZERO_DATE`,
			want: Target{Label: "m", Kind: Sandbox, Binary: "mariadbd", ServerOptions: []string{"sql_mode=STRICT_ALL_TABLES,NO_ZERO_DATE"}}},
		{spec: "here:server", want: Target{Label: "here", Kind: Server}},
		{spec: "r:server:db2.example:3307", want: Target{Label: "r", Kind: Server, Host: "db2.example", Port: 3307}},
		{spec: "r:server:db2.example", want: Target{Label: "r", Kind: Server, Host: "db2.example"}},
		{spec: "s:server:/run/mysqld/mysqld.sock,user=bench,password=", want: Target{Label: "s", Kind: Server, Socket: "/run/mysqld/mysqld.sock", User: "bench", PasswordSet: true}},
		{spec: "p:SERVER,host=127.0.0.1,port=3306,password=a=b", want: Target{Label: "p", Kind: Server, Host: "127.0.0.1", Port: 3306, Password: "a=b", PasswordSet: true}},
		{spec: "nolabel", wantErr: "want LABEL:sandbox"},
		{spec: ":sandbox", wantErr: "want LABEL:sandbox"},
		{spec: "x:cloud", wantErr: `unknown kind "cloud"`},
		{spec: "x:sandbox,", wantErr: "empty server option"},
		{spec: "x:server:h:99999", wantErr: "not a TCP port"},
		{spec: "x:server,colour=blue", wantErr: `unknown server setting "colour"`},
		{spec: "x:server,host", wantErr: "is not NAME=VALUE"},
	}
	for _, tt := range tests {
		t.Run(tt.spec, func(t *testing.T) {
			got, err := ParseTarget(tt.spec)
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("ParseTarget(%q) error = %v, want one containing %q", tt.spec, err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatalf("ParseTarget(%q): %v", tt.spec, err)
			}
			if !reflect.DeepEqual(got, tt.want) {
				t.Fatalf("ParseTarget(%q) = %+v, want %+v", tt.spec, got, tt.want)
			}
		})
	}
}

func TestTargetStringHidesPassword(t *testing.T) {
	tg, err := ParseTarget("p:server:db:3306,password=sekrit")
	if err != nil {
		t.Fatal(err)
	}
	if s := tg.String(); strings.Contains(s, "sekrit") || s != "server db:3306" {
		t.Fatalf("String() = %q", s)
	}
}

func TestResolveBinary(t *testing.T) {
	dir := t.TempDir()
	tarball := filepath.Join(dir, "mysql-8.0.40-linux")
	if err := os.MkdirAll(filepath.Join(tarball, "bin"), 0o755); err != nil {
		t.Fatal(err)
	}
	mysqld := filepath.Join(tarball, "bin", "mysqld")
	if err := os.WriteFile(mysqld, []byte("#!/bin/sh\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	plain := filepath.Join(dir, "notexec")
	if err := os.WriteFile(plain, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		in, want, wantErr string
	}{
		{in: mysqld, want: mysqld},
		{in: tarball, want: mysqld},
		{in: filepath.Join(dir, "nope", "mysqld"), wantErr: "does not exist"},
		{in: dir, wantErr: "has no bin/mariadbd"},
		{in: plain, wantErr: "not an executable"},
		{in: "no-such-server-binary-xyz", wantErr: `"no-such-server-binary-xyz" is not on $PATH`},
	}
	for _, tt := range tests {
		got, err := ResolveBinary(tt.in)
		if tt.wantErr != "" {
			if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
				t.Errorf("ResolveBinary(%q) error = %v, want %q", tt.in, err, tt.wantErr)
			}
			continue
		}
		if err != nil || got != tt.want {
			t.Errorf("ResolveBinary(%q) = %q, %v; want %q", tt.in, got, err, tt.want)
		}
	}
}

// fakeSandboxes is a SandboxStarter that records starts and stops.
type fakeSandboxes struct {
	mu      sync.Mutex
	started []string // "binary opts..."
	running int
	maxRun  int
	stops   int
	failOn  string // an option that makes Start fail
}

func (f *fakeSandboxes) start(ctx context.Context, bin string, opts []string, tempDir string) (*Running, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	for _, o := range opts {
		if o == f.failOn {
			return nil, errors.New("server exited during start-up")
		}
	}
	f.started = append(f.started, strings.Join(append([]string{bin}, opts...), " "))
	f.running++
	f.maxRun = max(f.maxRun, f.running)
	var once sync.Once
	return &Running{
		Endpoint: Endpoint{Socket: "/tmp/fake.sock", User: "root", Sandbox: true},
		Version:  "fakemysqld 1.0",
		stop: func() error {
			once.Do(func() {
				f.mu.Lock()
				f.running--
				f.stops++
				f.mu.Unlock()
			})
			return nil
		},
	}, nil
}

func fakePoints(scale float64) []Point {
	var pts []Point
	for _, e := range []string{"innodb", "myisam"} {
		for _, c := range []int{1, 4} {
			pts = append(pts, Point{Engine: e, Concurrency: c, Iterations: 2, AvgSeconds: 1 / scale, QPS: scale * float64(c) * 100})
		}
	}
	return pts
}

func TestRunSequentialAndClean(t *testing.T) {
	bin, err := os.Executable() // any executable file will do for the fake starter
	if err != nil {
		t.Fatal(err)
	}
	targets := []Target{
		{Label: "small", Kind: Sandbox, ServerOptions: []string{"innodb_buffer_pool_size=64M"}},
		{Label: "big", Kind: Sandbox, ServerOptions: []string{"innodb_buffer_pool_size=256M"}},
		{Label: "prod", Kind: Server, Host: "db2", Port: 3307},
	}
	fs := &fakeSandboxes{}
	var eps []Endpoint
	var progress bytes.Buffer
	logf := func(label, msg string) { fmt.Fprintf(&progress, "%s: %s\n", label, msg) }
	outs, err := Run(context.Background(), targets, Config{
		DefaultBinary:  bin,
		SandboxOptions: []string{"max_connections=50"},
		Base:           Endpoint{Host: "localhost", Port: 3306, User: "bench", Password: "pw", PasswordSet: true},
		Start:          fs.start,
		Progress:       logf,
		Bench: func(ctx context.Context, label string, ep Endpoint) ([]Point, error) {
			eps = append(eps, ep)
			fs.mu.Lock()
			defer fs.mu.Unlock()
			if ep.Sandbox && fs.running != 1 {
				t.Errorf("%s: %d sandboxes running during its benchmark, want 1", label, fs.running)
			}
			return fakePoints(float64(len(eps))), nil
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(outs) != 3 {
		t.Fatalf("got %d outcomes", len(outs))
	}
	wantStarted := []string{bin + " max_connections=50 innodb_buffer_pool_size=64M", bin + " max_connections=50 innodb_buffer_pool_size=256M"}
	if !reflect.DeepEqual(fs.started, wantStarted) {
		t.Errorf("started %q, want %q", fs.started, wantStarted)
	}
	if fs.maxRun != 1 || fs.running != 0 || fs.stops != 2 {
		t.Errorf("max running %d, running %d, stops %d; want 1, 0, 2", fs.maxRun, fs.running, fs.stops)
	}
	if want := (Endpoint{Host: "db2", Port: 3307, User: "bench", Password: "pw", PasswordSet: true}); eps[2] != want {
		t.Errorf("server endpoint %+v, want %+v", eps[2], want)
	}
	if !strings.Contains(progress.String(), "big: sandbox stopped and removed") {
		t.Errorf("progress:\n%s", progress.String())
	}
}

func TestRunFailuresStopSandbox(t *testing.T) {
	bin, _ := os.Executable()
	boom := errors.New("connection refused")
	tests := []struct {
		name    string
		bench   BenchFunc
		targets []Target
		cancel  bool // cancel the context from inside the benchmark
		wantErr string
		want    int // outcomes returned
		stops   int
	}{
		{name: "bench error", wantErr: "target b: connection refused", want: 1, stops: 2,
			targets: []Target{{Label: "a", Kind: Sandbox}, {Label: "b", Kind: Sandbox}, {Label: "c", Kind: Sandbox}},
			bench: func(ctx context.Context, label string, ep Endpoint) ([]Point, error) {
				if label == "b" {
					return nil, boom
				}
				return fakePoints(1), nil
			}},
		{name: "bench panic", wantErr: "target a: benchmark panicked: oops", want: 0, stops: 1,
			targets: []Target{{Label: "a", Kind: Sandbox}},
			bench:   func(ctx context.Context, label string, ep Endpoint) ([]Point, error) { panic("oops") }},
		{name: "start failure", wantErr: "target b: server exited during start-up", want: 1, stops: 1,
			targets: []Target{{Label: "a", Kind: Sandbox}, {Label: "b", Kind: Sandbox, ServerOptions: []string{"bad"}}},
			bench:   func(ctx context.Context, label string, ep Endpoint) ([]Point, error) { return fakePoints(1), nil }},
		{name: "cancel ignored by bench", cancel: true, wantErr: "target a: context canceled", want: 0, stops: 1,
			targets: []Target{{Label: "a", Kind: Sandbox}, {Label: "b", Kind: Sandbox}},
			bench: func(ctx context.Context, label string, ep Endpoint) ([]Point, error) {
				time.Sleep(time.Hour) // a runner that never looks at ctx
				return nil, nil
			}},
		{name: "cancel honoured by bench", cancel: true, wantErr: "target a: context canceled", want: 0, stops: 1,
			targets: []Target{{Label: "a", Kind: Sandbox}, {Label: "b", Kind: Sandbox}},
			bench: func(ctx context.Context, label string, ep Endpoint) ([]Point, error) {
				<-ctx.Done()
				return nil, ctx.Err()
			}},
		{name: "missing binary fails before anything starts", wantErr: "target b: sandbox: server binary not found", want: 0, stops: 0,
			targets: []Target{{Label: "a", Kind: Sandbox}, {Label: "b", Kind: Sandbox, Binary: "/nonexistent/mysqld"}},
			bench:   func(ctx context.Context, label string, ep Endpoint) ([]Point, error) { return fakePoints(1), nil }},
		{name: "refused option fails before anything starts", wantErr: "target b: server option pid_file=/x/p: goslap sets the sandbox's pid_file itself", want: 0, stops: 0,
			targets: []Target{{Label: "a", Kind: Sandbox}, {Label: "b", Kind: Sandbox, ServerOptions: []string{"pid_file=/x/p"}}},
			bench:   func(ctx context.Context, label string, ep Endpoint) ([]Point, error) { return fakePoints(1), nil }},
		{name: "path option fails before anything starts", wantErr: "target b: server option log_error=../e: ../e is outside the sandbox's directory", want: 0, stops: 0,
			targets: []Target{{Label: "a", Kind: Sandbox}, {Label: "b", Kind: Sandbox, ServerOptions: []string{"log_error=../e"}}},
			bench:   func(ctx context.Context, label string, ep Endpoint) ([]Point, error) { return fakePoints(1), nil }},
		{name: "duplicate label", wantErr: `two targets are labelled "a"`,
			targets: []Target{{Label: "a", Kind: Sandbox}, {Label: "a", Kind: Server}},
			bench:   func(ctx context.Context, label string, ep Endpoint) ([]Point, error) { return nil, nil }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			fs := &fakeSandboxes{failOn: "bad"}
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			bench := tt.bench
			if tt.cancel {
				inner := bench
				bench = func(c context.Context, label string, ep Endpoint) ([]Point, error) {
					cancel()
					return inner(c, label, ep)
				}
			}
			// Only a benchmark that ignores ctx may make Run wait StopGrace.
			stopGrace := 10 * time.Second
			if tt.name == "cancel ignored by bench" {
				stopGrace = 100 * time.Millisecond
			}
			started := time.Now()
			outs, err := Run(ctx, tt.targets, Config{DefaultBinary: bin, Start: fs.start, Bench: bench,
				CancelGrace: 100 * time.Millisecond, StopGrace: stopGrace})
			if d := time.Since(started); d > 2*time.Second {
				t.Errorf("Run took %v", d)
			}
			if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
				t.Fatalf("error = %v, want %q", err, tt.wantErr)
			}
			if len(outs) != tt.want {
				t.Errorf("%d outcomes, want %d", len(outs), tt.want)
			}
			if fs.running != 0 || fs.stops != tt.stops {
				t.Errorf("running %d, stops %d; want 0, %d", fs.running, fs.stops, tt.stops)
			}
		})
	}
}

func sampleOutcomes(latency bool) []Outcome {
	mk := func(label string, f float64) Outcome {
		o := Outcome{Target: Target{Label: label, Kind: Sandbox}, Description: "sandbox: mariadbd (innodb_buffer_pool_size=" + label + ")"}
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
	return []Outcome{mk("bp64M", 1), mk("bp256M", 2)}
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
			if err := WriteChartFile(svgPath, outs); err != nil {
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
			if err := WriteChartFile(pngPath, outs); err != nil {
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
		outs       []Outcome
		wantErr    string
	}{
		{name: "bad extension", path: filepath.Join(dir, "c.gif"), outs: sampleOutcomes(false), wantErr: `unknown format "gif"`},
		{name: "no results", path: filepath.Join(dir, "c.svg"), wantErr: "no results to chart"},
		{name: "no directory", path: filepath.Join(dir, "missing", "c.svg"), outs: sampleOutcomes(false), wantErr: "no such file"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := WriteChartFile(tt.path, tt.outs)
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
	qps, err := newPanel(ChartTitle, QPSLabel, series, func(p Point) (float64, float64, float64) { return p.QPS * 100, 0, 0 }, AxisConcurrency)
	if err != nil {
		t.Fatal(err)
	}
	lat, err := newPanel(LatencyTitle, LatencyLabel, series, func(p Point) (float64, float64, float64) { return p.P99Millis, 0, 0 }, AxisConcurrency)
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
