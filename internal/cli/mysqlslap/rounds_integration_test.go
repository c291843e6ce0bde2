package mysqlslap

import (
	"regexp"
	"strings"
	"testing"

	"github.com/goslap/goslap/internal/testserver/servertest"
)

// TestRoundsBufferPoolAB: "what does 256M of buffer pool buy over 8M?"
// on a table larger than 8M (100000 rows, about 24M), both pools up at
// once, 5 interleaved rounds of oltp_read_only (3 are too few on a shared
// 2-core machine: t(2) = 4.3 widens the interval past 1 on a 2× effect
// when one round is disturbed): the verdict says faster
// with an interval that excludes 1, for throughput and the p95 latency.
func TestRoundsBufferPoolAB(t *testing.T) {
	s := servertest.Require(t)
	out := mustMain(t, s, "--workload=oltp_read_only", "--table-size=100000", "--run-time=1s", "-c", "2",
		"--target=bp:sandbox", "--sweep-server-option=innodb_buffer_pool_size=8M,256M", "--rounds=5")
	if n := strings.Count(out, "Benchmark\n"); n != 10 {
		t.Errorf("%d Benchmark blocks, want 10 (2 pools × 5 rounds):\n%s", n, out)
	}
	for _, want := range []string{"Mode: 5 rounds, 2 sides up at once, interleaved at every point (A B; B A; B A; A B; …)",
		"Per point (median of 5 rounds)", "Workload: oltp_read_only, server option innodb_buffer_pool_size=8M, round 5 of 5\n"} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	for _, m := range []string{"tps", "p95"} {
		re := regexp.MustCompile(`innodb_buffer_pool_size=256M vs innodb_buffer_pool_size=8M\s+` + m +
			` +ratio [0-9.]+ \(95 % CI ([0-9.]+)–([0-9.]+)\): faster by `)
		if !re.MatchString(out) {
			t.Errorf("no %s verdict 'faster' for 256M over 8M:\n%s", m, out)
		}
	}
}
