package mysqlslap

import (
	"strings"
	"testing"

	"github.com/goslap/goslap/internal/sandbox/servertest"
)

// TestWorkloadLuaScript: --workload=SCRIPT.lua runs a sysbench 1.0 Lua
// script (Debian's stock oltp_point_select.lua, read at run time) through
// goslap's own front end: prepare, run and cleanup in one command.
func TestWorkloadLuaScript(t *testing.T) {
	s := servertest.Require(t)
	const script = "/usr/share/sysbench/oltp_point_select.lua"
	out := mustMain(t, s, "--workload="+script, "--create-schema=lua_wl", "--table-size=200", "-c", "2", "--run-time=1s")
	for _, want := range []string{"Creating table 'sbtest1'...", "\tWorkload: " + script + "\n",
		"\tNumber of clients running queries: 2\n", ", write 0, other 0\n", "Dropping table 'sbtest1'..."} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	if strings.Contains(out, ": read 0,") {
		t.Errorf("no reads counted:\n%s", out)
	}
	if got := schemaTables(t, s, "lua_wl"); len(got) != 0 {
		t.Errorf("after the run: tables %v", got)
	}
	code, _, errOut := runMain(t, s, "--workload=/no/such/dir/script.lua", "--run-time=1s")
	if code != 1 || !strings.Contains(errOut, "cannot find the Lua script '/no/such/dir/script.lua'") {
		t.Errorf("missing script: exit %d, stderr %q", code, errOut)
	}
}
