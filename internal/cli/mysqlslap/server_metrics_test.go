package mysqlslap

import (
	"strings"
	"testing"
)

// TestSamplingRefusals: the sampling options a command line cannot
// honour are refused in one line before anything runs, as goslap
// sysbench refuses them: --server-report with the sampling off, and
// --server-pid where nothing is sampled or where it names no one server.
func TestSamplingRefusals(t *testing.T) {
	servers := []string{"--target=a:server,host=127.0.0.1,port=1", "--target=b:server,host=127.0.0.1,port=2"}
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"-a", "--server-report", "--skip-server-metrics"}, "--server-report prints the server metrics --skip-server-metrics turns off: give one of them"},
		{[]string{"-a", "--server-pid=42"}, "--server-pid=42 names the server's process for the server metrics, and this command samples none: add --server-report"},
		{[]string{"-a", "--server-pid=42", "--skip-server-metrics"}, "--server-pid=42 names the server's process for the server metrics --skip-server-metrics turns off"},
		{[]string{"-a", "--server-report", "--server-pid=42", "--sandbox"}, "--server-pid=42 cannot be honoured: every server of this run is a sandbox"},
		{append([]string{"-a", "--server-report", "--server-pid=42"}, servers...), "it names one process, and 2 targets are servers goslap did not start"},
		{[]string{"--workload=oltp_read_only", "--server-pid=42"}, "this command samples none: add --server-report"},
		{[]string{"--workload=oltp_read_only", "--server-report", "--skip-server-metrics"}, "--server-report prints the server metrics --skip-server-metrics turns off"},
		{append([]string{"--workload=oltp_read_only", "--server-pid=42"}, servers...), "it names one process, and 2 targets are servers goslap did not start"},
	} {
		env, _, errOut := testEnv(t.TempDir(), nil)
		if code := run(append([]string{"--no-defaults"}, tc.args...), env); code == 0 || !strings.Contains(errOut.String(), tc.want) ||
			strings.Count(strings.TrimSpace(errOut.String()), "\n") != 0 {
			t.Errorf("%v: exit %d, stderr %q; want one line with %q", tc.args, code, errOut.String(), tc.want)
		}
	}
}
