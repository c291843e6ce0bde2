package compare

import (
	"fmt"
	"io"
	"slices"
	"strings"
	"text/tabwriter"

	"github.com/goslap/goslap/internal/merge"
	"github.com/goslap/goslap/internal/servermetrics"
	"github.com/goslap/goslap/internal/verdict"
)

// Exit statuses of Main.
const (
	ExitOK     = 0
	ExitError  = 1
	ExitFailIf = 3 // a --fail-if threshold was crossed
)

// Usage is `goslap compare`'s synopsis.
const Usage = "Usage: goslap compare [--metrics=LIST] [--fail-if=RULES] [--force] OLD.json NEW.json...\n" +
	"       goslap compare [OPTIONS] OLD1.json OLD2.json... vs NEW1.json NEW2.json...\n" +
	"Compares saved --json documents of one plan, point by point (workload, engine, concurrency, data size,\n" +
	"server option): each document's figure, its ratio to the first, and a verdict with its 95 % confidence\n" +
	"interval when every side has several rounds (documents separated by 'vs' are the rounds of one side, paired\n" +
	"by position). One document of several targets compares its targets; one of a --rounds run, its targets\n" +
	"paired by round.\n" +
	"  --metrics=LIST   tps, qps, rw-qps, tpmc, pNN (a latency percentile); default: the workload's own metric\n" +
	"                   and the latency percentile the run reported\n" +
	"  --fail-if=RULES  METRIC<RATIO or METRIC>RATIO, comma-separated (tps<0.97,p95>1.10): exit 3 when the\n" +
	"                   ratio of a later side to the first crosses one and its 95 % interval lies beyond it\n" +
	"                   (with one round, the ratio alone decides)\n" +
	"  --force          compare documents whose plans (front end, load-shaping options) differ\n" +
	"Exit status: 0 compared (no threshold crossed), 1 error, 3 a --fail-if threshold crossed.\n"

// command is compare's command line.
type command struct {
	groups  [][]string
	metrics []Metric
	rules   []Rule
	force   bool
}

func parse(args []string) (*command, error) {
	c := &command{groups: [][]string{nil}}
	value := func(i *int, a, name string) (string, bool, error) {
		if v, ok := strings.CutPrefix(a, name+"="); ok {
			return v, true, nil
		}
		if a != name {
			return "", false, nil
		}
		if *i+1 >= len(args) {
			return "", false, fmt.Errorf("compare: %s needs a value", name)
		}
		*i++
		return args[*i], true, nil
	}
	files := false // after "--" every argument is a file
	for i := 0; i < len(args); i++ {
		a := args[i]
		if !files {
			if v, ok, err := value(&i, a, "--metrics"); err != nil {
				return nil, err
			} else if ok {
				for _, s := range strings.Split(v, ",") {
					m, err := ParseMetric(s)
					if err != nil {
						return nil, fmt.Errorf("compare: --metrics: %v", err)
					}
					c.metrics = append(c.metrics, m)
				}
				continue
			}
			if v, ok, err := value(&i, a, "--fail-if"); err != nil {
				return nil, err
			} else if ok {
				rules, err := ParseRules(v)
				if err != nil {
					return nil, fmt.Errorf("compare: %v", err)
				}
				c.rules = append(c.rules, rules...)
				continue
			}
			switch {
			case a == "--force":
				c.force = true
				continue
			case a == "--skip-force":
				c.force = false
				continue
			case a == "--":
				files = true
				continue
			case strings.HasPrefix(a, "-") && a != "-":
				return nil, fmt.Errorf("compare: unknown option '%s' (goslap compare --help lists them)", a)
			}
		}
		if a == "vs" {
			c.groups = append(c.groups, nil)
			continue
		}
		c.groups[len(c.groups)-1] = append(c.groups[len(c.groups)-1], a)
	}
	if len(c.groups) == 1 && len(c.groups[0]) == 0 {
		return nil, fmt.Errorf("compare: no documents given (goslap compare --help)")
	}
	for _, g := range c.groups {
		if len(g) == 0 {
			return nil, fmt.Errorf("compare: no document before or after 'vs' (goslap compare --help)")
		}
	}
	if len(c.metrics) == 0 {
		c.metrics = []Metric{study} // and the run's percentile, added in Main
	}
	return c, nil
}

// Main is `goslap compare ARGS`: it returns the exit status.
func Main(args []string, stdout, stderr io.Writer) int {
	fail := func(format string, a ...any) int {
		fmt.Fprintf(stderr, "goslap: compare: "+format+"\n", a...)
		return ExitError
	}
	for _, a := range args {
		if a == "--help" || a == "-?" {
			io.WriteString(stdout, Usage)
			return ExitOK
		}
		if a == "--" {
			break
		}
	}
	c, err := parse(args)
	if err != nil {
		fmt.Fprintf(stderr, "goslap: %v\n", err)
		return ExitError
	}
	var groups [][]Doc
	var all []Doc
	for _, g := range c.groups {
		var docs []Doc
		for _, f := range g {
			data, err := merge.ReadFile(f)
			if err != nil {
				return fail("%v", err)
			}
			d, err := merge.Decode(f, data)
			if err != nil {
				return fail("%v", err)
			}
			if d.Shard != nil {
				return fail("%s is shard %d of %d of a run: merge the shards first (goslap merge), then compare the merged document", f, d.Shard.Index+1, d.Shard.Count)
			}
			if d.Error != "" {
				fmt.Fprintf(stderr, "goslap: compare: warning: %s records an error (%s): its finished benchmarks are compared\n", f, d.Error)
			}
			docs = append(docs, Doc{Name: f, Doc: d})
		}
		groups = append(groups, docs)
		all = append(all, docs...)
	}
	if err := CheckPlans(all); err != nil {
		if !c.force {
			return fail("%v: --force compares them anyway", err)
		}
		fmt.Fprintf(stderr, "goslap: compare: warning: %v; compared anyway (--force)\n", err)
	}
	groups = SplitRounds(groups)
	sides, err := Sides(groups)
	if err != nil {
		return fail("%v", err)
	}
	for _, i := range Sequential(sides) {
		fmt.Fprintf(stderr, "goslap: compare: warning: the rounds of %c and A did not alternate (all of one side ran before the other): drift of the machine reads as a difference; run them a b b a …\n", 'A'+i)
	}
	metrics := c.metrics
	if len(metrics) == 1 && metrics[0] == study {
		metrics = append(metrics, defaultPercentile(all[0].Doc))
	}
	for _, r := range c.rules {
		if !hasMetric(metrics, r.Metric) {
			metrics = append(metrics, r.Metric)
		}
	}
	rep, err := Compare(sides, metrics)
	if err != nil {
		return fail("%v", err)
	}
	if !rep.compared() {
		return fail("the documents have no benchmark in common")
	}
	for _, r := range c.rules {
		if !rep.has(r.Metric) {
			return fail("--fail-if %s: no point of these documents has %s", r, r.Metric.Name)
		}
	}
	for _, m := range c.metrics {
		if m != study && !rep.has(m) {
			fmt.Fprintf(stderr, "goslap: compare: warning: --metrics %s: no point of these documents has it\n", m.Name)
		}
	}
	if err := rep.Write(stdout); err != nil {
		return fail("%v", err)
	}
	failed := false
	judged := Judge(rep, c.rules)
	for _, r := range c.rules {
		if !slices.ContainsFunc(judged, func(j Judgement) bool { return j.Rule == r }) {
			fmt.Fprintf(stdout, "passed %s: no point crosses the limit\n", r)
		}
	}
	for _, j := range judged {
		p := j.Row.Point
		res := j.Row.Result
		side := string(rune('A' + j.Row.Side))
		switch {
		case j.NoCI:
			fmt.Fprintf(stdout, "FAILED %s: %s, %s/A %.3f (one round per side, no confidence interval: judged on the ratio alone)\n", j.Rule, p, side, res.Ratio)
		case j.Failed:
			fmt.Fprintf(stdout, "FAILED %s: %s, %s/A %.3f (95 %% CI %.3f–%.3f, beyond the limit)\n", j.Rule, p, side, res.Ratio, res.Low, res.High)
		default:
			fmt.Fprintf(stdout, "passed %s: %s, %s/A %.3f crosses the limit but not significantly (95 %% CI %.3f–%.3f)\n", j.Rule, p, side, res.Ratio, res.Low, res.High)
		}
		failed = failed || j.Failed
	}
	if failed {
		return ExitFailIf
	}
	return ExitOK
}

func hasMetric(ms []Metric, m Metric) bool {
	for _, x := range ms {
		if x.Name == m.Name {
			return true
		}
	}
	return false
}

// compared says whether some point was compared: a baseline figure and
// another side's.
func (rep *Report) compared() bool {
	for _, r := range rep.Rows {
		if r.Result != nil {
			return true
		}
	}
	return false
}

func (rep *Report) has(m Metric) bool {
	for _, r := range rep.Rows {
		if r.Metric.Name == m.Name && r.Result != nil {
			return true
		}
	}
	return false
}

// Write prints the sides, then one line per point, metric and side: the
// median of the side's rounds, its ratio to side A (the geometric mean of
// the per-round ratios) and the verdict.
func (rep *Report) Write(w io.Writer) error {
	var b strings.Builder
	for i, s := range rep.Sides {
		first := s.Docs[0].Doc
		server := ""
		for _, t := range first.Targets {
			if (s.Target == "" || t.Label == s.Target) && t.Server != nil && t.Server.Version != "" {
				server = ", server " + t.Server.Version
				break
			}
		}
		base := ""
		if i == 0 {
			base = " (baseline)"
		}
		fmt.Fprintf(&b, "%c: %s%s — %s, started %s%s\n", 'A'+i, s.Name(), base, first.FrontEnd, first.StartedAt.Format("2006-01-02 15:04:05Z"), server)
	}
	fmt.Fprintf(&b, "%d round(s) per side; a side's figure is the median of its rounds, its ratio the geometric mean of its per-round ratios to A.\n\n", rep.Rounds)
	tw := tabwriter.NewWriter(&b, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "point\tmetric\tside\tfigure\tratio\tverdict")
	last := ""
	for _, r := range rep.Rows {
		point, metric := r.Point, r.Metric.Label()
		if key := r.Point + "\x00" + r.Metric.Name; key == last {
			point, metric = "", ""
		} else {
			last = key
		}
		fig, ratio, text := "-", "-", ""
		if r.Missing == "" {
			fig = figure(r.Median())
		} else {
			text = r.Missing
		}
		switch {
		case r.Side == 0:
			if r.Missing == "" {
				ratio, text = "1", "baseline"
			}
		case r.Result != nil:
			ratio = fmt.Sprintf("%.3f", r.Result.Ratio)
			text = r.Result.String()
			if !r.Result.HasCI() {
				text = "no verdict (one round)"
			}
			explains := r.Result.Outcome == verdict.Faster || r.Result.Outcome == verdict.Slower
			text += servermetrics.ReasonsWords(r.Reasons, r.Unit, explains)
		default:
			text = r.Compared
		}
		fmt.Fprintf(tw, "%s\t%s\t%c\t%s\t%s\t%s\n", point, metric, 'A'+r.Side, fig, ratio, text)
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	if rep.Rounds < 2 {
		b.WriteString("\nOne round per side: a verdict needs several rounds per side (several documents per side: A1.json A2.json vs B1.json B2.json).\n")
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// figure prints a metric's value with three to four significant digits.
func figure(v float64) string {
	switch {
	case v >= 100:
		return fmt.Sprintf("%.1f", v)
	case v >= 1:
		return fmt.Sprintf("%.2f", v)
	}
	return fmt.Sprintf("%.3f", v)
}
