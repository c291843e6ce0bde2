package mysqlslap

import (
	"strings"
	"testing"

	"github.com/goslap/goslap/internal/sandbox/servertest"
)

// TestShardRefusals: what a shard cannot honour exits 1 with one line,
// before anything runs.
func TestShardRefusals(t *testing.T) {
	s := servertest.Require(t)
	wl := []string{"--workload=oltp_point_select", "--create-schema=shard_refused", "--table-size=10"}
	for _, tc := range []struct {
		name string
		args []string
		want string
	}{
		{"mysqlslap start-at without shard", []string{"-a", "--start-at=now+1s"}, "goslap: --start-at, --late-start, --run-id and --shard-wait need --shard=I/N"},
		{"mysqlslap too few clients", []string{"-a", "-c", "4,2", "--shard=1/3"}, "goslap: --shard=1/3: 2 clients cannot be split over 3 shards"},
		{"mysqlslap only-print", []string{"-a", "--only-print", "--shard=1/3"}, "goslap: --only-print runs nothing: it cannot be split over shards"},
		{"mysqlslap bad start", []string{"-a", "--shard=0/2", "--start-at=soon"}, "goslap: --start-at=soon: want an RFC 3339 time"},
		{"start-at without shard", append(wl, "--start-at=now+1s"), "goslap: --start-at, --late-start, --run-id and --shard-wait need --shard=I/N"},
		{"bad shard", append(wl, "--shard=2/2"), "goslap: --shard=2/2: shard index \"2\" must be an integer from 0 to 1"},
		{"auto without index", append(wl, "--shard=auto/2"), "JOB_COMPLETION_INDEX is not set"},
		{"bad start", append(wl, "--shard=0/2", "--start-at=soon"), "goslap: --start-at=soon: want an RFC 3339 time"},
		{"bad late-start", append(wl, "--shard=0/2", "--late-start=maybe"), "--late-start=maybe: want run or fail"},
		{"bad run id", append(wl, "--shard=0/2", "--run-id=a'b"), "--run-id=a'b: use 1 to 64"},
		{"bad wait", append(wl, "--shard=0/2", "--shard-wait=x"), "--shard-wait=x: want a duration"},
		{"too few clients", append(wl, "--shard=0/3", "-c", "2"), "goslap: --shard=0/3: 2 clients cannot be split over 3 shards"},
		{"skipped shard", append(wl, "--shard=0/2", "--skip-shard", "--start-at=now+1s"), "need --shard=I/N"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			code, stdout, stderr := runMain(t, s, tc.args...)
			if code != 1 || !strings.Contains(stderr, tc.want) || strings.Count(stderr, "\n") != 1 || stdout != "" {
				t.Errorf("exit %d, stdout %q, stderr %q; want 1 and %q", code, stdout, stderr, tc.want)
			}
		})
	}
}
