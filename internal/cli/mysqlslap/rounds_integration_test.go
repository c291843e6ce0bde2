package mysqlslap

import (
	"regexp"
	"strings"
	"testing"

	"github.com/goslap/goslap/internal/sandbox/servertest"
)

// TestRoundsBufferPoolAB: "what does 256M of buffer pool buy over 8M?"
// on a table larger than 8M (100000 rows, about 24M), both pools up at
// once, 5 interleaved rounds of oltp_read_only (3 are too few on a shared
// 2-core machine: t(2) = 4.3 widens the interval past 1 on a 2× effect
// when one round is disturbed), each run 2 s after a 1 s warm-up (the
// first run after the load was the outlier that widened the interval):
// the throughput verdict says faster with an interval that excludes 1,
// and the p95 ratio is below 1. About 42 s here.
func TestRoundsBufferPoolAB(t *testing.T) {
	s := servertest.Require(t)
	args := []string{"--workload=oltp_read_only", "--table-size=100000", "--run-time=2s", "--warmup-time=1s", "-c", "2",
		// O_DIRECT: the 8M pool's misses go to the disk, not to the OS page
		// cache, so the difference stands out of a shared machine's noise
		// (without it, one loaded clean-clone run gave 1.53×, CI 0.87–2.72).
		"--target=bp:sandbox,innodb_flush_method=O_DIRECT", "--sweep-server-option=innodb_buffer_pool_size=8M,256M", "--rounds=5"}
	code, out, errOut := runMain(t, s, args...)
	if code != 0 {
		t.Fatalf("exit %d\nstdout:\n%s\nstderr:\n%s", code, out, errOut)
	}
	// The quiesce lines say how each side was readied: wanted when a
	// verdict is off.
	defer func() {
		if t.Failed() {
			t.Logf("stderr:\n%s", errOut)
		}
	}()
	if n := strings.Count(out, "Benchmark\n"); n != 10 {
		t.Errorf("%d Benchmark blocks, want 10 (2 pools × 5 rounds):\n%s", n, out)
	}
	for _, want := range []string{"Mode: 5 rounds, 2 sides up at once, interleaved at every point (A B; B A; B A; A B; …)",
		"Per point (median of 5 rounds)", "Workload: oltp_read_only, server option innodb_buffer_pool_size=8M, round 5 of 5\n"} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	// Throughput must get its verdict; the p95 of 2-second runs is
	// noisier on a shared machine: its ratio must point the right way.
	tps := regexp.MustCompile(`innodb_buffer_pool_size=256M vs innodb_buffer_pool_size=8M\s+tps +ratio [0-9.]+ \(95 % CI ([0-9.]+)–([0-9.]+)\): faster by `)
	if !tps.MatchString(out) {
		t.Errorf("no tps verdict 'faster' for 256M over 8M:\n%s", out)
	}
	p95 := regexp.MustCompile(`innodb_buffer_pool_size=256M vs innodb_buffer_pool_size=8M\s+p95 +ratio 0\.[0-9]+ .*: (faster by|no difference detected)`)
	if !p95.MatchString(out) {
		t.Errorf("the p95 ratio of 256M to 8M is not below 1, or says slower:\n%s", out)
	}
}
