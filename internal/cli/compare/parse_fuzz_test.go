package compare

import (
	"strings"
	"testing"
)

// FuzzParse: any command line parses or is refused with an error, never a
// panic; a rule that parses prints back as a rule that parses the same.
func FuzzParse(f *testing.F) {
	for _, s := range []string{"--fail-if=tps<0.97,p95>1.10 a.json b.json", "--metrics p99.9,qps a vs b", "--fail-if", "vs", "-- --force vs", "--fail-if=p1e3<2"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, line string) {
		_, _ = parse(strings.Fields(line))
		rules, err := ParseRules(line)
		if err != nil {
			return
		}
		for _, r := range rules {
			back, err := ParseRules(r.String())
			if err != nil || len(back) != 1 || back[0] != r {
				t.Errorf("%q: rule %v prints as %q, which parses as %v %v", line, r, r.String(), back, err)
			}
		}
	})
}
