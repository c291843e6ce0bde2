package oltp

import (
	"flag"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/goslap/goslap/internal/getopt"
	"github.com/goslap/goslap/internal/workload"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata")

// parse builds settings from command-line words, as a front end would.
func parse(t testing.TB, words ...string) *Settings {
	t.Helper()
	s := NewSettings()
	p := getopt.NewParser("goslap", s.Options(), os.Stderr)
	if err := p.Parse(words, false); err != nil {
		t.Fatalf("parse %v: %v", words, err)
	}
	if err := p.Finish(); err != nil {
		t.Fatalf("parse %v: %v", words, err)
	}
	return s
}

func build(t testing.TB, name string, words ...string) *Workload {
	t.Helper()
	w, err := parse(t, words...).Build(name, workload.Common{Schema: "sbtest", Seed: 42})
	if err != nil {
		t.Fatalf("Build(%s, %v): %v", name, words, err)
	}
	return w.(*Workload)
}

func golden(t *testing.T, path, got string) {
	t.Helper()
	path = filepath.Join("testdata", path)
	if *update {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run with -update to create it)", err)
	}
	if string(want) != got {
		t.Errorf("%s differs:\n--- got\n%s\n--- want\n%s", path, got, want)
	}
}

func TestDDL(t *testing.T) {
	cases := []struct {
		file  string
		words []string
		point workload.Point
	}{
		{"ddl/1.0-default.sql", nil, workload.Point{}},
		{"ddl/1.0-myisam-noautoinc-secondary.sql", []string{"--auto-inc=off", "--secondary"}, workload.Point{Engine: "myisam"}},
		{"ddl/1.0-compressed.sql", nil, workload.Point{Engine: "innodb", EngineOptions: "ROW_FORMAT=COMPRESSED KEY_BLOCK_SIZE=8"}},
		{"ddl/0.5-default.sql", []string{"--sysbench-compat=0.5", "--oltp-tables-count=2"}, workload.Point{}},
		{"ddl/0.5-myisam.sql", []string{"--sysbench-compat=0.5", "--myisam-max-rows=5000"}, workload.Point{Engine: "myisam"}},
		{"ddl/0.4-default.sql", []string{"--sysbench-compat=0.4"}, workload.Point{}},
		{"ddl/0.4-myisam-options.sql", []string{"--sysbench-compat=0.4", "--mysql-create-options=ROW_FORMAT=COMPRESSED"}, workload.Point{Engine: "MyISAM"}},
		{"ddl/0.4-myisam-nomaxrows.sql", []string{"--sysbench-compat=0.4", "--myisam-max-rows=0", "--oltp-auto-inc=off"}, workload.Point{Engine: "myisam"}},
	}
	for _, tc := range cases {
		t.Run(tc.file, func(t *testing.T) {
			name := "oltp_read_write"
			if len(tc.words) > 0 && strings.HasPrefix(tc.words[0], "--sysbench-compat=0") {
				name = "oltp"
			}
			w := build(t, name, tc.words...)
			d := w.def(tc.point)
			var b strings.Builder
			for i, n := range w.TableNames() {
				b.WriteString(d.createTable(n) + ";\n")
				b.WriteString(d.createIndex(n, i+1) + ";\n")
			}
			golden(t, tc.file, b.String())
		})
	}
}

// TestDistributions draws 10^6 values on [1, 1000] with a fixed seed (§10.1.3).
func TestDistributions(t *testing.T) {
	const draws = 1000000
	hist := func(dialect, kind string) []int {
		d, err := newDist(dialect, kind, 12, 1, 75, 0.2, 0.8)
		if err != nil {
			t.Fatal(err)
		}
		r := newRNG(1, 2)
		h := make([]int, 1001)
		for i := 0; i < draws; i++ {
			v := d.draw(&r, 1, 1000)
			if v < 1 || v > 1000 {
				t.Fatalf("%s %s: %d outside [1, 1000]", dialect, kind, v)
			}
			h[v]++
		}
		return h
	}
	share := func(h []int, lo, hi int) float64 {
		n := 0
		for v := lo; v <= hi; v++ {
			n += h[v]
		}
		return float64(n) / draws
	}
	// special: 75 % of the draws fall into the hot window (plus the
	// gaussian's own share of it, ~2-3 %).
	for _, tc := range []struct {
		dialect string
		lo, hi  int
	}{{dialect10, 498, 506}, {dialect05, 496, 505}, {dialect04, 495, 504}} {
		h := hist(tc.dialect, distSpecial)
		if s := share(h, tc.lo, tc.hi); s < 0.75 || s > 0.80 {
			t.Errorf("special %s: %.3f of draws in %d-%d, want 0.75-0.80", tc.dialect, s, tc.lo, tc.hi)
		}
		// Outside the window the draws follow the gaussian: nothing far
		// out, a bell around the middle.
		// The gaussian of 12 draws has sigma = 1000/12 = 83.
		if s := share(h, 1, 200) + share(h, 800, 1000); s > 0.001 {
			t.Errorf("special %s: %.4f of draws beyond 200/800", tc.dialect, s)
		}
	}
	for _, dialect := range []string{dialect10, dialect05, dialect04} {
		h := hist(dialect, distUniform)
		chi := 0.0
		exp := float64(draws) / 1000
		for v := 1; v <= 1000; v++ {
			d := float64(h[v]) - exp
			chi += d * d / exp
		}
		// 999 degrees of freedom: p = 0.001 at about 1143.
		if chi > 1143 {
			t.Errorf("uniform %s: chi2 = %.0f", dialect, chi)
		}
		g := hist(dialect, distGaussian)
		if s := share(g, 417, 583); s < 0.66 || s > 0.71 {
			t.Errorf("gaussian %s: %.3f within one sigma (417-583), want 0.68", dialect, s)
		}
		if s := share(g, 250, 750); s < 0.995 {
			t.Errorf("gaussian %s: %.4f within three sigma (250-750)", dialect, s)
		}
		p := hist(dialect, distPareto)
		cum, median := 0, 0
		for v := 1; v <= 1000; v++ {
			cum += p[v]
			if cum >= draws/2 {
				median = v
				break
			}
		}
		// 1000 * 0.5^7.21 = 6.8
		if median < 5 || median > 9 {
			t.Errorf("pareto %s: median %d, want about 7", dialect, median)
		}
	}
	z := hist(dialect10, distZipfian)
	// P(1) = 1 / H(1000, 0.8); H = sum k^-0.8 for k = 1..1000.
	hsum := 0.0
	for k := 1; k <= 1000; k++ {
		hsum += math.Pow(float64(k), -0.8)
	}
	for _, k := range []int{1, 2, 10, 100} {
		want := math.Pow(float64(k), -0.8) / hsum
		got := float64(z[k]) / draws
		if math.Abs(got-want) > 0.05*want+0.0005 {
			t.Errorf("zipfian: P(%d) = %.5f, want %.5f", k, got, want)
		}
	}
}

// TestSpecialWindow1M checks the hot windows at a million rows (§4).
func TestSpecialWindow1M(t *testing.T) {
	for _, tc := range []struct {
		dialect string
		lo, hi  int64
	}{{dialect10, 497500, 505001}, {dialect05, 495001, 505000}, {dialect04, 495000, 504999}} {
		d, _ := newDist(tc.dialect, distSpecial, 12, 1, 75, 0.2, 0.8)
		r := newRNG(3, 4)
		in, minv, maxv := 0, int64(math.MaxInt64), int64(0)
		for i := 0; i < 200000; i++ {
			v := d.draw(&r, 1, 1000000)
			if v >= tc.lo && v <= tc.hi {
				in++
				minv, maxv = min(minv, v), max(maxv, v)
			}
		}
		if f := float64(in) / 200000; f < 0.75 || f > 0.77 {
			t.Errorf("%s: %.3f in %d-%d", tc.dialect, f, tc.lo, tc.hi)
		}
		if minv > tc.lo+50 || maxv < tc.hi-50 {
			t.Errorf("%s: hot draws span %d-%d, want about %d-%d", tc.dialect, minv, maxv, tc.lo, tc.hi)
		}
	}
}

func TestUnique32(t *testing.T) {
	seen := map[uint32]bool{}
	for c := 0; c < 4; c++ {
		for s := uint64(0); s < 50000; s++ {
			v := unique32(s, c, 4, 12345)
			if seen[v] {
				t.Fatalf("unique32 repeated %d", v)
			}
			seen[v] = true
		}
	}
}

var rowPattern = regexp.MustCompile(`^(\d{11}-){9}\d{11}$`)

func TestRandString(t *testing.T) {
	r := newRNG(9, 9)
	b := make([]byte, len(tmplC119))
	p := make([]byte, len(tmplP59))
	counts := [10]int{}
	for i := 0; i < 1000; i++ {
		r.fill(b, tmplC119)
		r.fill(p, tmplP59)
		if !rowPattern.Match(b) || len(b) != 119 {
			t.Fatalf("c = %q", b)
		}
		if !regexp.MustCompile(`^(\d{11}-){4}\d{11}$`).Match(p) || len(p) != 59 {
			t.Fatalf("pad = %q", p)
		}
		for _, ch := range b {
			if ch != '-' {
				counts[ch-'0']++
			}
		}
	}
	for d, n := range counts {
		if n < 10000 || n > 12000 { // 110 000 digits / 10
			t.Errorf("digit %d appears %d times in 110000", d, n)
		}
	}
	l := make([]byte, 3)
	r.fill(l, "@#x")
	if l[0] < 'a' || l[0] > 'z' || l[1] < '0' || l[1] > '9' || l[2] != 'x' {
		t.Errorf("fill(@#x) = %q", l)
	}
}

func TestBadInputs(t *testing.T) {
	cases := []struct {
		name  string
		words []string
		want  string
	}{
		{"oltp_read_write", []string{"--tables=0"}, "invalid value '0' for --tables"},
		{"oltp_read_write", []string{"--table-size=abc"}, "invalid value 'abc' for --table-size"},
		{"oltp_read_write", []string{"--rand-type=foo"}, "unknown --rand-type 'foo'"},
		{"oltp_read_write", []string{"--sysbench-compat=2.0"}, "--sysbench-compat"},
		{"oltp_read_write", []string{"--point-selects=-1"}, "--point-selects"},
		{"oltp_read_write", []string{"--db-ps-mode=maybe"}, "--db-ps-mode"},
		{"oltp", nil, "--sysbench-compat=0.5 or 0.4"},
		{"oltp", []string{"--sysbench-compat=0.5", "--oltp-read-only", "--oltp-write-only"}, "cannot both"},
		{"select_random_points", []string{"--tables=2"}, "one table"},
		{"oltp_read_write", []string{"--sysbench-compat=0.4", "--rand-type=zipfian"}, "zipfian"},
		{"select_random_points", []string{"--sysbench-compat=0.4"}, "does not exist in sysbench 0.4"},
		{"oltp", []string{"--sysbench-compat=0.4", "--oltp-test-mode=sp"}, "--oltp-test-mode"},
		{"oltp", []string{"--sysbench-compat=0.4", "--oltp-table-name=a b"}, "1 to 64 letters, digits, '_' or '$'"},
		{"oltp", []string{"--sysbench-compat=0.4", "--oltp-table-name=123"}, "not digits alone"},
		{"oltp_read_write", []string{"--mysql-storage-engine=myisam,innodb"}, "lists are not supported"},
		{"oltp_read_write", []string{"--mysql-storage-engine=innodb;drop"}, "one storage engine name"},
	}
	for _, tc := range cases {
		_, err := parse(t, tc.words...).Build(tc.name, workload.Common{})
		if err == nil || !strings.Contains(err.Error(), tc.want) || strings.Contains(err.Error(), "\n") {
			t.Errorf("%s %v: error %v, want one line containing %q", tc.name, tc.words, err, tc.want)
		}
	}
}

func TestRegistered(t *testing.T) {
	for _, n := range Names {
		m, err := workload.Lookup(n)
		if err != nil || m.Group != Group {
			t.Errorf("%s: %v %+v", n, err, m)
		}
	}
	// Every option is matched by full name only and spelt once.
	seen := map[string]bool{}
	for _, o := range NewSettings().Options() {
		if !o.ExactOnly || seen[o.Name] {
			t.Errorf("option %s: ExactOnly %v, duplicate %v", o.Name, o.ExactOnly, seen[o.Name])
		}
		seen[o.Name] = true
	}
}

func TestParseTableSize(t *testing.T) {
	for in, want := range map[string]int64{"1000": 1000, "500K": 500000, "1M": 1000000, "2m": 2000000} {
		if got, err := ParseTableSize(in); err != nil || got != want {
			t.Errorf("ParseTableSize(%s) = %d, %v", in, got, err)
		}
	}
	for _, in := range []string{"", "0", "-5", "abc", "1G", "3000M"} {
		if _, err := ParseTableSize(in); err == nil {
			t.Errorf("ParseTableSize(%q) accepted", in)
		}
	}
}
