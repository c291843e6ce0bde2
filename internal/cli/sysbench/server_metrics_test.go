package sysbench

import (
	"bytes"
	"path/filepath"
	"strings"
	"testing"
)

// TestSamplingRefusals: the sampling options a command line cannot
// honour are refused in one line before anything connects (the socket
// names nothing).
func TestSamplingRefusals(t *testing.T) {
	sock := "--mysql-socket=" + filepath.Join(t.TempDir(), "none.sock")
	cases := []struct {
		args string
		want string
	}{
		{"--server-pid=7 run", "--server-pid=7 names the server's process for the server metrics, and this command samples none: add --server-report"},
		{"--server-pid=7 --report-interval=1 run", "--server-pid=7 names the server's process for the server metrics, and this command samples none: add --server-report"},
		{"--server-pid=7 --json=- run", "--server-pid=7 names the server's process for the server metrics, and this command samples none: add --server-report"},
		{"--server-pid=7 --server-report --server-metrics=off run", "--server-report prints the server metrics --server-metrics=off turns off: give one of them"},
		{"--server-report --server-metrics=off run", "--server-report prints the server metrics --server-metrics=off turns off: give one of them"},
		{"--server-pid=7 --server-report --target=a:sandbox --target=b:sandbox run", "--server-pid=7 cannot be honoured: every server of this run is a sandbox, whose process goslap knows"},
		{"--server-pid=7 --server-report --target=a:server --target=b:server:/x.sock run", "--server-pid=7 cannot be honoured: it names one process, and 2 targets are servers goslap did not start"},
	}
	for _, tc := range cases {
		t.Run(tc.args, func(t *testing.T) {
			var o, e bytes.Buffer
			code := Main(append([]string{sock, "oltp_point_select"}, strings.Fields(tc.args)...), Env{Stdout: &o, Stderr: &e})
			// sysbench prints its FATAL lines on stdout (stderr when stdout
			// is the JSON document's).
			if code != 1 || strings.Count(o.String()+e.String(), "FATAL: "+tc.want+"\n") != 1 {
				t.Errorf("exit %d\nstdout:\n%s\nstderr:\n%s\nwant the one line FATAL: %s", code, o.String(), e.String(), tc.want)
			}
		})
	}
}
