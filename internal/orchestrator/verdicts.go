package orchestrator

import (
	"fmt"
	"io"
	"math"
	"slices"
	"strconv"
	"strings"
	"text/tabwriter"

	"github.com/goslap/goslap/internal/chart"
	"github.com/goslap/goslap/internal/results/jsondoc"
	"github.com/goslap/goslap/internal/servermetrics"
	"github.com/goslap/goslap/internal/verdict"
	"github.com/goslap/goslap/internal/workload"
	"github.com/goslap/goslap/internal/workload/report"
)

// DefaultPercentile is the latency percentile studies compare when the
// front end names none (sysbench's default).
const DefaultPercentile = 95

// ParseMetric checks a comparison metric's name (--compare-metric): tps,
// qps, rw-qps, tpmc, or pNN for a latency percentile.
func ParseMetric(s string) (string, error) {
	s = strings.ToLower(strings.TrimSpace(s))
	switch s {
	case "tps", "qps", "rw-qps", "tpmc":
		return s, nil
	}
	if p, ok := percentileOf(s); ok && p > 0 && p < 100 {
		return s, nil
	}
	return "", fmt.Errorf("unknown comparison metric '%s': want tps, qps, rw-qps, tpmc or a latency percentile such as p95 or p99.9", s)
}

func percentileOf(metric string) (float64, bool) {
	rest, ok := strings.CutPrefix(metric, "p")
	if !ok {
		return 0, false
	}
	p, err := strconv.ParseFloat(rest, 64)
	return p, err == nil
}

// metrics are the figures a study's verdicts compare: its throughput
// metric (Config.Metric or the workload's, workload.CompareMetric) and
// the latency percentile (Config.Percentile).
func (c *Config) metrics(wl workload.Workload) []string {
	m := c.Metric
	if m == "" {
		m = "tps"
		if wl != nil {
			m = workload.CompareMetric(wl)
		}
	}
	pct := c.Percentile
	if pct <= 0 {
		pct = DefaultPercentile
	}
	lat := "p" + strconv.FormatFloat(pct, 'f', -1, 64)
	if m == lat {
		return []string{m}
	}
	if _, isLat := percentileOf(m); isLat {
		return []string{m}
	}
	return []string{m, lat}
}

// cellValue is a cell's figure of metric (0, false when it has none).
func cellValue(c *Cell, metric string) (float64, bool) {
	s := Summarise(c.Benchmarks)
	sec := s.Elapsed.Seconds()
	switch metric {
	case "tps":
		return s.TPS, s.TPS > 0
	case "qps":
		return s.QPS, s.QPS > 0
	case "rw-qps":
		if sec <= 0 {
			return 0, false
		}
		var rw uint64
		for _, b := range c.Benchmarks {
			rw += b.Tally.Reads + b.Tally.Writes
		}
		v := float64(rw) / sec
		return v, v > 0
	case "tpmc":
		// A figure of the workload's cell summary (TPC-C's).
		if r, ok := c.Summary.(report.Figurer); ok {
			if v, ok := r.Figure(metric); ok {
				return v, v > 0
			}
		}
		return 0, false
	}
	p, ok := percentileOf(metric)
	if !ok {
		return 0, false
	}
	h := merged(c.Benchmarks).Service
	if h.TotalCount() == 0 {
		return 0, false
	}
	v := float64(h.ValueAtQuantile(p)) / 1000
	return v, v > 0
}

// Side names one side of a comparison: a target at a server-option value.
type Side struct {
	Target  string
	Setting string // "" without a server-option sweep
}

func (s Side) String() string {
	if s.Setting == "" {
		return s.Target
	}
	if s.Target == "server" || s.Target == "" {
		return s.Setting
	}
	return s.Target + " " + s.Setting
}

// PointVerdicts are the verdicts of one point (engine × size ×
// concurrency): per metric, every side's per-round values and each side's
// comparison with the baseline (the first side).
type PointVerdicts struct {
	Engine  string
	Scale   int64
	Clients int
	Metrics []MetricVerdicts
	// Unit is what the server figures are per ("transaction", "query");
	// Reasons[i-1] the figures that differ most between side i and the
	// first, largest first (verdicts_server.go), nil where a side was not
	// sampled; Hosts the host CPU of each side that had it.
	Unit    string
	Reasons [][]servermetrics.Difference
	Hosts   []jsondoc.SideHost
}

// MetricVerdicts is one metric's share of a point's verdicts.
type MetricVerdicts struct {
	Metric string
	Better verdict.Better
	Sides  []Side
	// Values are per side (index of Sides), per round.
	Values [][]float64
	// Results compare Sides[i] (i ≥ 1) with Sides[0]: Results[i-1]; a
	// side whose rounds cannot be paired has Err instead.
	Results []verdict.Result
	Errs    []string
}

// Verdicts compares every side with the first at every point, on each of
// the study's metrics, paired by round (a run without rounds has one).
// It returns nil when there is one side.
func Verdicts(cfg *Config, cells []*Cell) []PointVerdicts {
	type key struct {
		engine  string
		scale   int64
		clients int
	}
	var sides []Side
	seenSide := map[Side]int{}
	var keys []key
	byKey := map[key]map[Side][]*Cell{}
	var wl workload.Workload
	for _, c := range cells {
		if wl == nil {
			wl = c.workload
		}
		sd := Side{c.Target, c.Setting}
		if _, ok := seenSide[sd]; !ok {
			seenSide[sd] = len(sides)
			sides = append(sides, sd)
		}
		k := key{c.engineLabel(), c.Scale, c.Clients}
		if byKey[k] == nil {
			byKey[k] = map[Side][]*Cell{}
			keys = append(keys, k)
		}
		byKey[k][sd] = append(byKey[k][sd], c)
	}
	if len(sides) < 2 {
		return nil
	}
	var out []PointVerdicts
	for _, k := range keys {
		pv := PointVerdicts{Engine: k.engine, Scale: k.scale, Clients: k.clients}
		for _, m := range cfg.metrics(wl) {
			mv := MetricVerdicts{Metric: m, Better: verdict.Higher, Sides: sides, Values: make([][]float64, len(sides))}
			if _, lat := percentileOf(m); lat {
				mv.Better = verdict.Lower
			}
			for i, sd := range sides {
				for _, c := range byKey[k][sd] {
					v, _ := cellValue(c, m)
					mv.Values[i] = append(mv.Values[i], v)
				}
			}
			for i := 1; i < len(sides); i++ {
				r, err := verdict.Compare(mv.Values[0], mv.Values[i], mv.Better)
				msg := ""
				if err != nil {
					msg = err.Error()
				}
				mv.Results = append(mv.Results, r)
				mv.Errs = append(mv.Errs, msg)
			}
			pv.Metrics = append(pv.Metrics, mv)
		}
		servers := make([]sideServer, len(sides))
		for i, sd := range sides {
			servers[i] = sideServerOf(byKey[k][sd], cfg.ServerMetrics.unit())
		}
		pv.serverVerdicts(sides, servers, cfg.ServerMetrics.unit())
		out = append(out, pv)
	}
	return out
}

// writeVerdicts prints the per-point verdicts: each side's per-round
// values, the paired ratio to the baseline with its interval, and the
// verdict in words.
func writeVerdicts(w io.Writer, cfg *Config, res *Result) error {
	vs := Verdicts(cfg, res.Cells)
	if len(vs) == 0 {
		return nil
	}
	rounds := max(cfg.Rounds, 1)
	head := fmt.Sprintf("\nVerdicts: each side against %s, paired by round", vs[0].Metrics[0].Sides[0])
	if rounds > 1 {
		head += fmt.Sprintf(" (%d rounds; ratio = geometric mean of the per-round ratios, 95 %% t interval on their logs)", rounds)
	}
	fmt.Fprintln(w, head+":")
	if res.Mode != "" {
		fmt.Fprintf(w, "Mode: %s\n", res.Mode)
	}
	// One target swept over a server option: the value names the side.
	name := Side.String
	targets := map[string]bool{}
	for _, sd := range vs[0].Metrics[0].Sides {
		targets[sd.Target] = true
	}
	if len(targets) == 1 {
		name = func(sd Side) string {
			if sd.Setting != "" {
				return sd.Setting
			}
			return sd.Target
		}
	}
	for _, pv := range vs {
		var at []string
		if pv.Engine != "" {
			at = append(at, "engine "+pv.Engine)
		}
		if pv.Scale > 0 {
			label := cfg.ScaleName
			if label == "" {
				label = "size"
			}
			at = append(at, label+" "+strconv.FormatInt(pv.Scale, 10))
		}
		at = append(at, strconv.Itoa(pv.Clients)+" clients")
		fmt.Fprintf(w, "\n%s:\n", strings.Join(at, ", "))
		tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
		for m, mv := range pv.Metrics {
			unit := mv.Metric
			if mv.Better == verdict.Lower {
				unit += " ms"
			}
			for i, sd := range mv.Sides {
				var vals []string
				for _, v := range mv.Values[i] {
					vals = append(vals, formatFigure(v))
				}
				fmt.Fprintf(tw, "  %s\t%s\t%s\n", name(sd), unit, strings.Join(vals, "  "))
			}
			for i, r := range mv.Results {
				pair := name(mv.Sides[i+1]) + " vs " + name(mv.Sides[0])
				if mv.Errs[i] != "" {
					fmt.Fprintf(tw, "  %s\t%s\tno verdict: %s\n", pair, mv.Metric, mv.Errs[i])
					continue
				}
				ratio := "ratio " + strconv.FormatFloat(r.Ratio, 'f', 3, 64)
				if r.HasCI() {
					ratio += fmt.Sprintf(" (95 %% CI %.3f–%.3f)", r.Low, r.High)
				}
				why := ""
				if m == 0 {
					why = servermetrics.ReasonsWords(pv.reasons(i+1), pv.Unit, r.Outcome == verdict.Faster || r.Outcome == verdict.Slower)
				}
				fmt.Fprintf(tw, "  %s\t%s\t%s: %s%s\n", pair, mv.Metric, ratio, r.String(), why)
			}
		}
		for _, h := range pv.Hosts {
			fmt.Fprintf(tw, "  %s\thost\t%s\n", name(Side{h.Target, h.ServerOption}), hostWords(h))
		}
		if err := tw.Flush(); err != nil {
			return err
		}
	}
	return nil
}

// formatFigure prints a figure with a precision that suits its size.
func formatFigure(v float64) string {
	switch {
	case v >= 100:
		return strconv.FormatFloat(v, 'f', 1, 64)
	case v >= 1:
		return strconv.FormatFloat(v, 'f', 2, 64)
	}
	return strconv.FormatFloat(v, 'f', 3, 64)
}

// comparisonJSON is the document's comparison section (nil with one side).
func comparisonJSON(cfg *Config, res *Result) *jsondoc.Comparison {
	vs := Verdicts(cfg, res.Cells)
	if len(vs) == 0 {
		return nil
	}
	mode := res.Mode
	if mode == "" {
		mode = "sequential: each side to the end in turn, once"
	}
	out := &jsondoc.Comparison{Mode: mode, Rounds: max(cfg.Rounds, 1), Baseline: vs[0].Metrics[0].Sides[0].String(),
		Method: "paired by round; geometric mean of the per-round ratios with a 95 % Student t interval on their logs"}
	for _, pv := range vs {
		p := jsondoc.ComparisonPoint{Engine: pv.Engine, Scale: pv.Scale, Clients: pv.Clients}
		for _, mv := range pv.Metrics {
			m := jsondoc.ComparedMetric{Metric: mv.Metric, HigherIsBetter: mv.Better == verdict.Higher}
			for i, sd := range mv.Sides {
				m.Sides = append(m.Sides, jsondoc.RoundValues{Target: sd.Target, ServerOption: sd.Setting, Values: mv.Values[i]})
			}
			for i, r := range mv.Results {
				sd := mv.Sides[i+1]
				v := jsondoc.Verdict{Target: sd.Target, ServerOption: sd.Setting, Error: mv.Errs[i]}
				if v.Error == "" {
					v.Ratio, v.Median, v.Low, v.High, v.Detectable = r.Ratio, r.Median, r.Low, r.High, r.Detectable
					v.Outcome, v.Text = outcomeWord(r.Outcome), r.String()
				} else {
					v.Outcome = outcomeWord(verdict.NoVerdict)
				}
				v.Reasons = reasonsJSON(pv.reasons(i+1), pv.Unit)
				m.Verdicts = append(m.Verdicts, v)
			}
			p.Metrics = append(p.Metrics, m)
		}
		p.Hosts = pv.Hosts
		out.Points = append(out.Points, p)
	}
	return out
}

func outcomeWord(o verdict.Outcome) string {
	switch o {
	case verdict.Faster:
		return "faster"
	case verdict.Slower:
		return "slower"
	case verdict.NoDifference:
		return "no-difference"
	}
	return "no-verdict"
}

// writePoints prints one row per side and point with the study's
// figures (the median over the rounds when there are several): what a
// single-target sweep prints, kept when there are targets to compare.
func writePoints(w io.Writer, cfg *Config, cells []*Cell) error {
	type key struct {
		side    Side
		engine  string
		scale   int64
		clients int
	}
	var keys []key
	byKey := map[key][]*Cell{}
	var wl workload.Workload
	for _, c := range cells {
		if wl == nil {
			wl = c.workload
		}
		k := key{Side{c.Target, c.Setting}, c.engineLabel(), c.Scale, c.Clients}
		if _, ok := byKey[k]; !ok {
			keys = append(keys, k)
		}
		byKey[k] = append(byKey[k], c)
	}
	if len(keys) == 0 {
		return nil
	}
	cols := []string{"tps", "qps"}
	for _, m := range cfg.metrics(wl) {
		if m != "tps" && m != "qps" {
			cols = append(cols, m)
		}
	}
	head := "\nPer point"
	if cfg.Rounds > 1 {
		head += fmt.Sprintf(" (median of %d rounds)", cfg.Rounds)
	}
	fmt.Fprintln(w, head+": tps = transactions per second, qps = queries per second, latency in ms")
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	h := []string{"target"}
	if cfg.Server.Active() {
		h = append(h, cfg.Server.Name)
	}
	if len(cfg.Scales) > 1 {
		h = append(h, cfg.ScaleName)
	}
	h = append(h, "engine", "clients")
	fmt.Fprintln(tw, strings.Join(append(h, cols...), "\t"))
	for _, k := range keys {
		row := []string{k.side.Target}
		if cfg.Server.Active() {
			row = append(row, strings.TrimPrefix(k.side.Setting, cfg.Server.Name+"="))
		}
		if len(cfg.Scales) > 1 {
			row = append(row, strconv.FormatInt(k.scale, 10))
		}
		engine := k.engine
		if engine == "" {
			engine = "-"
		}
		row = append(row, engine, strconv.Itoa(k.clients))
		for _, m := range cols {
			var vals []float64
			for _, c := range byKey[k] {
				if v, ok := cellValue(c, m); ok {
					vals = append(vals, v)
				}
			}
			if len(vals) == 0 {
				row = append(row, "-")
				continue
			}
			row = append(row, formatFigure(medianOf(vals)))
		}
		fmt.Fprintln(tw, strings.Join(row, "\t"))
	}
	return tw.Flush()
}

func medianOf(v []float64) float64 {
	s := slices.Clone(v)
	slices.Sort(s)
	if len(s)%2 == 1 {
		return s[len(s)/2]
	}
	return (s[len(s)/2-1] + s[len(s)/2]) / 2
}

// metricWords is a metric's axis label.
func metricWords(m string) string {
	switch m {
	case "tps":
		return "transactions per second"
	case "qps":
		return "queries per second"
	case "rw-qps":
		return "read/write requests per second"
	case "tpmc":
		return "tpmC (New-Orders per minute)"
	}
	return m + " latency (ms)"
}

// geoMeanCI is the geometric mean of positive values and its 95 % t
// interval (0, 0 with fewer than two values).
func geoMeanCI(vals []float64) (m, lo, hi float64) {
	var logs []float64
	for _, v := range vals {
		if v > 0 {
			logs = append(logs, math.Log(v))
		}
	}
	if len(logs) == 0 {
		return 0, 0, 0
	}
	n := float64(len(logs))
	var sum float64
	for _, l := range logs {
		sum += l
	}
	mean := sum / n
	if len(logs) < 2 {
		return math.Exp(mean), 0, 0
	}
	var sq float64
	for _, l := range logs {
		sq += (l - mean) * (l - mean)
	}
	half := verdict.TQuantile(1-(1-verdict.Confidence)/2, n-1) * math.Sqrt(sq/(n-1)) / math.Sqrt(n)
	return math.Exp(mean), math.Exp(mean - half), math.Exp(mean + half)
}

// studyChart fills the outcomes' points with the study's figures (the
// metric and the latency percentile over the rounds, with intervals, and
// the second target's paired ratio to the first) and returns the chart's
// labels for them.
func studyChart(cfg *Config, res *Result) chart.Labels {
	var wl workload.Workload
	for _, c := range res.Cells {
		if c.workload != nil {
			wl = c.workload
			break
		}
	}
	ms := cfg.metrics(wl)
	thr, lat := ms[0], ""
	if len(ms) > 1 {
		lat = ms[1]
	}
	labels := chart.Labels{Metric: metricWords(thr), Latency: lat, Rounds: max(cfg.Rounds, 1)}
	type key struct {
		target, engine, setting string
		scale                   int64
		clients                 int
	}
	byKey := map[key][]*Cell{}
	for _, c := range res.Cells {
		k := key{c.Target, c.engineLabel(), c.Setting, c.Scale, c.Clients}
		byKey[k] = append(byKey[k], c)
	}
	values := func(cells []*Cell, m string) []float64 {
		var out []float64
		for _, c := range cells {
			v, _ := cellValue(c, m)
			out = append(out, v)
		}
		return out
	}
	for i := range res.Outcomes {
		o := &res.Outcomes[i]
		for j := range o.Points {
			p := &o.Points[j]
			cells := byKey[key{o.Target.Label, p.Engine, p.Setting, p.Size, p.Concurrency}]
			if len(cells) == 0 {
				continue
			}
			p.Metric, p.MetricLow, p.MetricHigh = geoMeanCI(values(cells, thr))
			if lat != "" {
				p.Latency, p.LatencyLow, p.LatencyHigh = geoMeanCI(values(cells, lat))
			}
			if i == 0 || len(res.Outcomes) != 2 {
				continue
			}
			base := byKey[key{res.Outcomes[0].Target.Label, p.Engine, p.Setting, p.Size, p.Concurrency}]
			r, err := verdict.Compare(values(base, thr), values(cells, thr), verdict.Higher)
			if err != nil {
				continue
			}
			p.Ratio = r.Ratio
			if r.HasCI() {
				p.RatioLow, p.RatioHigh = r.Low, r.High
			}
		}
	}
	return labels
}
