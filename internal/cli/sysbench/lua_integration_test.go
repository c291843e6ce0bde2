package sysbench

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/goslap/goslap/internal/sandbox"
	"github.com/goslap/goslap/internal/sandbox/servertest"
)

// luaCounters are the statement counters compared per run (prepares and
// closes included: the scripts prepare in thread_init).
var luaCounters = []string{"Com_select", "Com_insert", "Com_update", "Com_delete", "Com_begin", "Com_commit",
	"Com_rollback", "Com_stmt_execute", "Com_stmt_prepare", "Com_stmt_close"}

// luaComDelta runs f and returns the luaCounters it moved.
func luaComDelta(t *testing.T, s *sandbox.Server, f func()) map[string]int64 {
	t.Helper()
	db, err := s.OpenDB("")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	all := comDelta(t, db, f)
	d := map[string]int64{}
	for _, name := range luaCounters {
		if v, ok := all[name]; ok {
			d[name] = v
		}
	}
	return d
}

// TestStockScriptsLikeSysbench: Debian's stock scripts, interpreted by
// goslap unchanged, prepare, run and clean up, and send per run the same
// statements by kind (Com_* deltas, prepares and closes included) as
// sysbench 1.0.20 running the same script with the same events; tables
// prepared by goslap run under sysbench and the reverse.
func TestStockScriptsLikeSysbench(t *testing.T) {
	s := servertest.Require(t)
	sysbenchBinary(t)
	scripts := []string{"oltp_read_write", "oltp_read_only", "oltp_write_only", "oltp_point_select",
		"oltp_insert", "oltp_delete", "oltp_update_index", "oltp_update_non_index",
		"select_random_points", "select_random_ranges", "bulk_insert"}
	for _, name := range scripts {
		t.Run(name, func(t *testing.T) {
			path := filepath.Join(stockDir, name+".lua")
			size := []string{"--table-size=100", "--tables=2"}
			switch name {
			case "bulk_insert":
				size = nil // it declares no options: sysbench's legacy script
			case "select_random_points", "select_random_ranges":
				size = size[:1] // they refuse --tables > 1
			}
			common := append([]string{"--lua-interpreter", path, "--mysql-db=sbtest"}, size...)
			run := []string{"--events=30", "--time=0", "--threads=1", "--rand-seed=7"}
			mustRun(t, s, append(common, "prepare")...)
			if got := tables(t, s, "sbtest"); len(got) == 0 {
				t.Fatalf("prepare created no table")
			}
			var report string
			ours := luaComDelta(t, s, func() { report = mustRun(t, s, append(append(common, run...), "run")...) })
			if name == "bulk_insert" {
				// Its rows are ids 1..events, again on every run.
				mustRun(t, s, append(common, "cleanup")...)
				mustRun(t, s, append(common, "prepare")...)
			}
			theirs := luaComDelta(t, s, func() {
				realSysbench(t, s, append(append([]string{path, "--mysql-db=sbtest"}, append(size, run...)...), "run")...)
			})
			if !reflect.DeepEqual(ours, theirs) {
				t.Errorf("Com_* deltas differ\ngoslap:   %v\nsysbench: %v", ours, theirs)
			}
			if ev := figure(t, report, "total number of events:"); ev != 30 {
				t.Errorf("events %v, want 30", ev)
			}
			mustRun(t, s, append(common, "cleanup")...)
			if got := tables(t, s, "sbtest"); len(got) != 0 {
				t.Errorf("tables left after cleanup: %v", got)
			}
			if name != "oltp_read_write" {
				return
			}
			// sysbench's tables under goslap's interpreter.
			realSysbench(t, s, append([]string{path, "--mysql-db=sbtest"}, append(size, "prepare")...)...)
			mustRun(t, s, append(append(common, run...), "run")...)
			mustRun(t, s, append(common, "cleanup")...)
		})
	}
}

// TestLuaScripts runs goslap's own test scripts (testdata/lua) through
// `goslap sysbench SCRIPT ...`: options and commands, require, prepared
// statements with binds, result sets, bulk insert, ffi declarations,
// report hooks, RESTART_EVENT with ignored errors, and the errors.
func TestLuaScripts(t *testing.T) {
	s := servertest.Require(t)
	dir, err := filepath.Abs("testdata/lua")
	if err != nil {
		t.Fatal(err)
	}
	script := func(n string) string { return filepath.Join(dir, n) }
	cases := []struct {
		name     string
		args     []string
		code     int
		contains []string // in stdout and stderr together
	}{
		{"declared options, their values", []string{script("options.lua"), "--count=5", "--flag=on", "--items=x,y", "--name=n1", "show"}, 0,
			[]string{"count=5 name=n1 flag=true items=x+y threads=1 tid=0 cmd=show"}},
		{"declared options, their defaults", []string{script("options.lua"), "show"}, 0,
			[]string{"count=3 name=plain flag=false items=a+b threads=1"}},
		{"a parallel command runs once per thread", []string{script("options.lua"), "--threads=3", "each"}, 0,
			[]string{"worker 0", "worker 1", "worker 2"}},
		{"help lists the declared options", []string{script("options.lua"), "help"}, 0,
			[]string{"options.lua options:", "--count=N", "A number [3]", "--flag[=on|off]", "--items=[LIST,...]"}},
		{"no command", []string{script("options.lua")}, 1,
			[]string{"FATAL: Command is required. Supported commands: run, each, show"}},
		{"an undeclared command", []string{script("options.lua"), "bogus"}, 1,
			[]string{"FATAL: Unknown command: bogus (options.lua declares: each, show)"}},
		{"a bad number", []string{script("options.lua"), "--count=abc", "show"}, 1,
			[]string{"Invalid value for the 'count' option: 'abc'"}},
		{"an undeclared option", []string{script("options.lua"), "--nope=1", "show"}, 1,
			[]string{"invalid option: --nope=1"}},
		{"a legacy script takes undeclared options", []string{script("legacy.lua"), "--foo=41", "show"}, 0,
			[]string{"foo=41 opt=41 sum=42"}},
		{"a legacy script without help()", []string{script("legacy.lua"), "help"}, 1,
			[]string{"'legacy.lua' test does not implement the 'help' command."}},
		{"prepare: require, bulk insert, query_row", []string{script("api.lua"), "prepare"}, 0,
			[]string{"loaded 50"}},
		{"run: binds, result sets, ffi, report hook", []string{script("api.lua"), "--threads=2", "--events=20", "--time=0", "run"}, 0,
			[]string{"thread 0 events", "thread 1 events", "cumulative: events=20 reads=100 writes=20 other=0 errors=20"}},
		{"cleanup", []string{script("api.lua"), "cleanup"}, 0, nil},
		{"restart prepare", []string{script("restart.lua"), "prepare"}, 0, nil},
		{"RESTART_EVENT on an ignored error", []string{script("restart.lua"), "--events=10", "--time=0", "--mysql-ignore-errors=1062", "run"}, 0,
			[]string{"calls 20 restarts 10", "ignored errors:                      10 "}},
		{"the same error not ignored", []string{script("restart.lua"), "--events=10", "--time=0", "run"}, 1,
			[]string{"FATAL: `event' function failed: " + script("restart.lua") + ":23: SQL error, errno = 1062, state = '23000': Duplicate entry"}},
		{"a lost connection, ignored: reconnect, before_restart_event", []string{script("reconnect.lua"), "--events=5", "--time=0", "--mysql-ignore-errors=2013", "run"}, 0,
			[]string{"restart after errno ", "restarts 1", "ignored errors:                      1 ", "reconnects:                          1 "}},
		{"a lost connection, not ignored", []string{script("reconnect.lua"), "--events=5", "--time=0", "run"}, 1,
			[]string{"reconnect.lua:12: SQL error, errno = "}}, // MariaDB: 1927 Connection was killed
		{"restart cleanup", []string{script("restart.lua"), "cleanup"}, 0, nil},
		{"syntax error with its line", []string{script("syntax.lua"), "run"}, 1,
			[]string{"FATAL: cannot load " + script("syntax.lua") + ": " + script("syntax.lua") + ":5: syntax error near 'x'"}},
		{"an unknown API call", []string{script("bad_api.lua"), "--events=1", "--time=0", "run"}, 1,
			[]string{"bad_api.lua:3: sysbench.rand.no_such_draw is not part of sysbench 1.0.20's Lua API as goslap provides it"}},
		{"an ffi C function goslap lacks", []string{script("bad_ffi.lua"), "--events=1", "--time=0", "run"}, 1,
			[]string{"ffi.C.gettimeofday cannot be honoured"}},
		{"ffi.new", []string{script("bad_ffi_new.lua"), "--events=1", "--time=0", "run"}, 1,
			[]string{"bad_ffi_new.lua:3: ffi.new cannot be honoured"}},
		{"a 0.5 script", []string{script("api05.lua"), "run"}, 1,
			[]string{"api05.lua is written for sysbench 0.5's Lua API (db_query, ...), which goslap does not interpret"}},
		{"a missing file", []string{script("no_such_script.lua"), "run"}, 1,
			[]string{"FATAL: Cannot find benchmark '" + script("no_such_script.lua") + "': no such built-in test, file or module"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			out, errOut, code := goslapSysbench(t, s, append([]string{"--mysql-db=sbtest"}, tc.args...)...)
			all := out + errOut
			if code != tc.code {
				t.Errorf("exit %d, want %d\n%s", code, tc.code, all)
			}
			for _, want := range tc.contains {
				if !strings.Contains(all, want) {
					t.Errorf("output lacks %q:\n%s", want, all)
				}
			}
			if n := strings.Count(all, "FATAL"); n > 1 || strings.Contains(all, "goroutine ") {
				t.Errorf("not one clear error line:\n%s", all)
			}
		})
	}
}

// TestLuaInterval: a script's report_intermediate hook replaces the
// interval line.
func TestLuaInterval(t *testing.T) {
	s := servertest.Require(t)
	dir := t.TempDir()
	path := filepath.Join(dir, "interval.lua")
	src := `function event() end
function sysbench.hooks.report_intermediate(stat)
   print(string.format("mine: %.0f %d", stat.time_total, stat.threads_running))
end
`
	if err := os.WriteFile(path, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	out := mustRun(t, s, path, "--time=2", "--report-interval=1", "--threads=2", "run")
	if !strings.Contains(out, "mine: 1 2") || strings.Contains(out, "[ 1s ]") {
		t.Errorf("hook did not replace the interval line:\n%s", out)
	}
	if !strings.Contains(out, "SQL statistics:") {
		t.Errorf("no final report:\n%s", out)
	}
}

// TestLuaPrepareInterrupted: a script's prepare that never ends stops on
// an interrupt.
func TestLuaPrepareInterrupted(t *testing.T) {
	s := servertest.Require(t)
	path := filepath.Join(t.TempDir(), "forever.lua")
	if err := os.WriteFile(path, []byte("function prepare() while true do end end\nfunction event() end\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	time.AfterFunc(300*time.Millisecond, cancel)
	var o, e bytes.Buffer
	start := time.Now()
	code := Main([]string{"--mysql-socket=" + s.Socket, "--mysql-user=root", path, "prepare"}, Env{Stdout: &o, Stderr: &e, Context: ctx})
	if took := time.Since(start); took > 5*time.Second {
		t.Errorf("prepare ran %v after the interrupt", took)
	}
	if code == 0 {
		t.Errorf("exit 0 after an interrupt\n%s%s", o.String(), e.String())
	}
}

// sleepScript sleeps in event(): tids 0 and 4 sleep 250 ms before each
// SELECT 1, the others only run it; or, with "forever", every thread
// sleeps 1 ms at a time in a loop that never ends.
const sleepScript = `ffi = require("ffi")
ffi.cdef[[
typedef uint32_t useconds_t;
int usleep(useconds_t useconds);
]]
local n = 0
function thread_init() con = sysbench.sql.driver():connect() end
function event()
   if sysbench.opt.forever then
      while true do ffi.C.usleep(1000) end
   end
   if sysbench.tid % 4 == 0 then ffi.C.usleep(250000) end
   con:query("SELECT 1")
   n = n + 1
end
function thread_done() print(string.format("thread %d events %d", sysbench.tid, n)) end
sysbench.cmdline.options = {forever = {"Sleep forever", false}}
`

// TestLuaSleepHoldsNoOneElse: at 8 threads a Lua script runs in the ring
// path's coroutine mode, four threads on each of two ring threads (on 2
// cores or more); its ffi.C.usleep waits through the engine, so a sleeping
// thread holds neither the threads that share its ring nor an interrupt.
func TestLuaSleepHoldsNoOneElse(t *testing.T) {
	s := servertest.Require(t)
	path := filepath.Join(t.TempDir(), "sleep.lua")
	if err := os.WriteFile(path, []byte(sleepScript), 0o644); err != nil {
		t.Fatal(err)
	}
	out := mustRun(t, s, path, "--time=1", "--threads=8", "run")
	seen := 0
	for _, line := range strings.Split(out, "\n") {
		var tid, n int
		if _, err := fmt.Sscanf(line, "thread %d events %d", &tid, &n); err != nil {
			continue
		}
		seen++
		switch {
		case tid%4 == 0 && n > 5:
			t.Errorf("thread %d: %d events of 250 ms in 1 s", tid, n)
		case tid%4 != 0 && n < 200:
			// A ring thread held by a sleeping client would run about
			// 4 events of each of the others.
			t.Errorf("thread %d: %d events beside sleeping threads, want at least 200", tid, n)
		}
	}
	if seen != 8 {
		t.Fatalf("%d threads reported, want 8:\n%s", seen, out)
	}

	ctx, cancel := context.WithCancel(context.Background())
	time.AfterFunc(300*time.Millisecond, cancel)
	var o, e bytes.Buffer
	ended := make(chan int, 1)
	go func() {
		ended <- Main([]string{"--mysql-socket=" + s.Socket, "--mysql-user=root", "--mysql-db=sbtest", path,
			"--forever=on", "--threads=8", "--time=30", "run"}, Env{Stdout: &o, Stderr: &e, Context: ctx})
	}()
	var code int
	select {
	case code = <-ended:
	case <-time.After(10 * time.Second):
		t.Fatal("a script sleeping in a loop still ran 10 s after the interrupt")
	}
	if code != 130 {
		t.Errorf("exit %d after an interrupt, want 130\n%s%s", code, o.String(), e.String())
	}
}
