package mysqlslap

import (
	"strings"
	"testing"
)

// TestWorkloadNumberMessages: a workload's number option given a list says
// lists are not supported (not "Unknown suffix ','"), and one past its
// range does not echo the clamped 4294967295 the user never typed. All
// are refused before anything connects (the port is closed).
func TestWorkloadNumberMessages(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--workload=tpcc", "--warehouses=1,2", "run"}, "goslap: --warehouses=1,2: one number only; a list is not supported for --warehouses"},
		{[]string{"--workload=tpcc", "--warehouses=1T", "run"}, "goslap: --warehouses must be at most 32767 (tpcc-mysql's w_id is a smallint)"},
		{[]string{"--workload=tpcc", "--warehouses=40000", "run"}, "goslap: --warehouses must be at most 32767 (tpcc-mysql's w_id is a smallint)"},
	} {
		t.Run(strings.Join(tc.args, " "), func(t *testing.T) {
			env, stdout, stderr := testEnv(t.TempDir(), nil)
			code := run(append([]string{"--no-defaults", "--host=127.0.0.1", "--port=1"}, tc.args...), env)
			if code != 1 || stderr.String() != tc.want+"\n" || stdout.Len() != 0 {
				t.Errorf("rc %d stderr %q stdout %q, want rc 1 and %q", code, stderr, stdout, tc.want)
			}
		})
	}
}

// TestWorkloadListNamesMysqlslapOnce: --help's and the messages' workload
// list name mysqlslap's load once, as the default (it is registered too).
func TestWorkloadListNamesMysqlslapOnce(t *testing.T) {
	names := workloadNames()
	if !strings.HasPrefix(names, "mysqlslap (default), ") || strings.Count(names, "mysqlslap") != 1 {
		t.Errorf("workload list %q", names)
	}
	env, stdout, _ := testEnv(t.TempDir(), nil)
	run([]string{"--no-defaults", "--help"}, env)
	if help := stdout.String(); !strings.Contains(help, "mysqlslap (default), oltp") {
		t.Errorf("--help lists the workloads as:\n%s", help)
	}
}
