package compare

import (
	"fmt"
	"strconv"
	"strings"
)

// Rule is one --fail-if threshold: the ratio of a later side to the first
// on Metric below (Less) or above Limit is a failure when significant.
type Rule struct {
	Metric Metric
	Less   bool
	Limit  float64
}

func (r Rule) String() string {
	op := ">"
	if r.Less {
		op = "<"
	}
	return r.Metric.Name + op + strconv.FormatFloat(r.Limit, 'f', -1, 64)
}

// ParseRules reads --fail-if's list: METRIC<RATIO or METRIC>RATIO,
// comma-separated ("tps<0.97,p95>1.10").
func ParseRules(s string) ([]Rule, error) {
	var out []Rule
	for _, part := range strings.Split(s, ",") {
		part = strings.TrimSpace(part)
		i := strings.IndexAny(part, "<>")
		if i <= 0 {
			return nil, fmt.Errorf("--fail-if %q: want METRIC<RATIO or METRIC>RATIO, e.g. tps<0.97 or p95>1.10", part)
		}
		m, err := ParseMetric(part[:i])
		if err != nil {
			return nil, fmt.Errorf("--fail-if %q: %v", part, err)
		}
		if m.Name == study.Name {
			return nil, fmt.Errorf("--fail-if %q: name the metric (tps, qps, rw-qps, tpmc, pNN)", part)
		}
		limit, err := strconv.ParseFloat(strings.TrimSpace(part[i+1:]), 64)
		if err != nil || !(limit > 0) || limit > 1e9 {
			return nil, fmt.Errorf("--fail-if %q: the limit is a ratio of the later document to the first (0.97, 1.10)", part)
		}
		out = append(out, Rule{Metric: m, Less: part[i] == '<', Limit: limit})
	}
	return out, nil
}

// Judgement is a rule applied to one row.
type Judgement struct {
	Rule Rule
	Row  Row
	// Failed is a crossing that counts: significant, or judged on the
	// point ratio when no interval could be computed (NoCI).
	Failed bool
	NoCI   bool
}

// Judge applies rules to the report's rows: a row whose ratio crosses a
// rule's limit fails when its whole confidence interval lies beyond the
// limit; with one round there is no interval and the ratio alone decides
// (NoCI says so). Rows that cross without significance are returned too
// (Failed false), so the caller can say that they did not fail.
func Judge(rep *Report, rules []Rule) []Judgement {
	var out []Judgement
	for _, rule := range rules {
		for _, row := range rep.Rows {
			if row.Result == nil || row.Metric.Name != rule.Metric.Name {
				continue
			}
			res := row.Result
			crossed := res.Ratio > rule.Limit
			beyond := res.Low > rule.Limit
			if rule.Less {
				crossed, beyond = res.Ratio < rule.Limit, res.High < rule.Limit
			}
			if !crossed {
				continue
			}
			j := Judgement{Rule: rule, Row: row, NoCI: !res.HasCI()}
			j.Failed = beyond || j.NoCI
			out = append(out, j)
		}
	}
	return out
}
