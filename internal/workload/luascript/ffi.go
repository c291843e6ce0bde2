package luascript

import (
	"fmt"
	"regexp"
	"strings"
	"time"

	lua "github.com/yuin/gopher-lua"
)

// goslap's interpreter is not LuaJIT: it has no FFI. What scripts declare
// with ffi.cdef and call through ffi.C is mapped onto goslap's counters,
// clock and random streams where sysbench's meaning is known; anything
// else is an error naming the call.

// sb_counter_type values (db_driver.h).
const (
	cntOther = iota
	cntRead
	cntWrite
	cntTrx
	cntError
	cntReconnect
	cntMax
)

// ffiConstants are the enum values sysbench's own declarations make
// reachable through ffi.C.
var ffiConstants = map[string]int{
	"SB_CNT_OTHER": cntOther, "SB_CNT_READ": cntRead, "SB_CNT_WRITE": cntWrite, "SB_CNT_TRX": cntTrx,
	"SB_CNT_ERROR": cntError, "SB_CNT_RECONNECT": cntReconnect, "SB_CNT_MAX": cntMax,
	"DB_ERROR_NONE": 0, "DB_ERROR_IGNORABLE": 1, "DB_ERROR_FATAL": 2,
	"SB_ARG_TYPE_NULL": 0, "SB_ARG_TYPE_BOOL": 1, "SB_ARG_TYPE_INT": 2, "SB_ARG_TYPE_SIZE": 3,
	"SB_ARG_TYPE_DOUBLE": 4, "SB_ARG_TYPE_STRING": 5, "SB_ARG_TYPE_LIST": 6, "SB_ARG_TYPE_FILE": 7, "SB_ARG_TYPE_MAX": 8,
}

func init() {
	for i, n := range typeNames {
		ffiConstants["SQL_TYPE_"+n] = i
	}
}

// internalDecls are the C functions sysbench's own Lua modules declare, so
// a script may call them without declaring them.
var internalDecls = []string{"sb_rand_uniform_uint64", "sb_rand_default", "sb_rand_uniform", "sb_rand_gaussian",
	"sb_rand_special", "sb_rand_pareto", "sb_rand_zipfian", "sb_rand_unique", "sb_rand_uniform_double"}

// cFunctions are the C functions goslap provides, by name.
var cFunctions = map[string]bool{
	"sb_counter_inc": true, "usleep": true, "sleep": true,
	"sb_rand_uniform_uint64": true, "sb_rand_default": true, "sb_rand_uniform": true, "sb_rand_gaussian": true,
	"sb_rand_special": true, "sb_rand_pareto": true, "sb_rand_zipfian": true, "sb_rand_unique": true,
	"sb_rand_uniform_double": true,
}

// cdeclFunc finds the names of declared functions: an identifier followed
// by a parameter list and ';'.
var cdeclFunc = regexp.MustCompile(`([A-Za-z_]\w*)\s*\([^()]*\)\s*;`)

func (th *thread) installFFI() {
	L := th.L
	for _, n := range internalDecls {
		th.declared[n] = true
	}
	ffi := L.NewTable()
	ffi.RawSetString("os", lua.LString("Linux"))
	ffi.RawSetString("arch", lua.LString("x64"))
	ffi.RawSetString("cdef", L.NewFunction(func(L *lua.LState) int {
		src := stripCComments(L.CheckString(1))
		for _, m := range cdeclFunc.FindAllStringSubmatch(src, -1) {
			th.declared[m[1]] = true
		}
		return 0
	}))
	for _, n := range []string{"new", "cast", "typeof", "sizeof", "alignof", "offsetof", "istype", "string",
		"copy", "fill", "metatype", "gc", "load", "errno", "abi", "tonumber", "tostring"} {
		name := n
		ffi.RawSetString(name, L.NewFunction(func(L *lua.LState) int {
			L.RaiseError("ffi.%s cannot be honoured: goslap's Lua interpreter is not LuaJIT; of the FFI it provides ffi.cdef and, through ffi.C, %s", name, providedC())
			return 0
		}))
	}
	c := L.NewTable()
	mt := L.NewTable()
	mt.RawSetString("__index", L.NewFunction(func(L *lua.LState) int {
		name := L.CheckString(2)
		if v, ok := ffiConstants[name]; ok {
			L.Push(lua.LNumber(v))
			return 1
		}
		if !th.declared[name] {
			L.RaiseError("ffi.C.%s: missing declaration for symbol '%s'", name, name)
		}
		f := th.cFunction(name)
		if f == nil {
			L.RaiseError("ffi.C.%s cannot be honoured: goslap's Lua interpreter is not LuaJIT and cannot call C; through ffi.C it provides %s", name, providedC())
		}
		L.Push(f)
		return 1
	}))
	L.SetMetatable(c, mt)
	ffi.RawSetString("C", c)
	L.PreloadModule("ffi", func(L *lua.LState) int {
		L.Push(ffi)
		return 1
	})
	L.SetGlobal("ffi", ffi)
}

func providedC() string {
	return "sb_counter_inc, usleep, sleep and sysbench's sb_rand_* functions"
}

func stripCComments(s string) string {
	var b strings.Builder
	for len(s) > 0 {
		i := strings.Index(s, "/*")
		j := strings.Index(s, "//")
		switch {
		case i < 0 && j < 0:
			b.WriteString(s)
			return b.String()
		case i >= 0 && (j < 0 || i < j):
			b.WriteString(s[:i])
			k := strings.Index(s[i:], "*/")
			if k < 0 {
				return b.String()
			}
			s = s[i+k+2:]
		default:
			b.WriteString(s[:j])
			k := strings.IndexByte(s[j:], '\n')
			if k < 0 {
				return b.String()
			}
			s = s[j+k:]
		}
	}
	return b.String()
}

// cFunction returns goslap's version of a C function, nil when it has none.
func (th *thread) cFunction(name string) *lua.LFunction {
	L := th.L
	rand := func(field string) *lua.LFunction {
		sb := L.GetGlobal("sysbench").(*lua.LTable)
		f, _ := sb.RawGetString("rand").(*lua.LTable).RawGetString(field).(*lua.LFunction)
		return f
	}
	switch name {
	case "sb_counter_inc":
		return L.NewFunction(th.counterInc)
	case "usleep":
		return L.NewFunction(func(L *lua.LState) int {
			th.sleep(time.Duration(L.CheckNumber(1)) * time.Microsecond)
			L.Push(lua.LNumber(0))
			return 1
		})
	case "sleep":
		return L.NewFunction(func(L *lua.LState) int {
			th.sleep(time.Duration(L.CheckNumber(1)) * time.Second)
			L.Push(lua.LNumber(0))
			return 1
		})
	case "sb_rand_uniform_uint64", "sb_rand_default", "sb_rand_uniform", "sb_rand_gaussian", "sb_rand_special",
		"sb_rand_pareto", "sb_rand_zipfian", "sb_rand_unique", "sb_rand_uniform_double":
		return rand(strings.TrimPrefix(name, "sb_rand_"))
	}
	return nil
}

// counterInc is sb_counter_inc(thread_id, type): the script counts a
// statement, an ignored error or a reconnect itself.
func (th *thread) counterInc(L *lua.LState) int {
	kind := L.CheckInt(2)
	switch kind {
	case cntRead:
		th.cnt.reads++
	case cntWrite:
		th.cnt.writes++
	case cntOther:
		th.cnt.other++
	case cntError:
		th.cnt.errors++
	case cntReconnect:
		th.cnt.reconnects++
	default:
		L.RaiseError("sb_counter_inc(%d, %d) cannot be honoured: goslap counts one transaction per event() itself", L.CheckInt(1), kind)
	}
	return 0
}

// sleep waits d, or less when the run is interrupted. In the measured
// load the engine's wait does it; there a stopping load also ends the
// event, so that a script that sleeps in a loop cannot hold the stop up.
func (th *thread) sleep(d time.Duration) {
	if th.wait != nil {
		if !th.wait(d) {
			th.L.RaiseError("the load is stopping")
		}
		return
	}
	if d <= 0 {
		return
	}
	ctx := th.w.ctx
	if ctx == nil {
		time.Sleep(d)
		return
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
	case <-ctx.Done():
	}
}

// installReports sets sysbench.report_default, report_csv and report_json:
// sysbench's three interval report layouts, for report hooks to call.
func (th *thread) installReports(sb *lua.LTable) {
	L := th.L
	num := func(t *lua.LTable, k string) float64 { return float64(lua.LVAsNumber(t.RawGetString(k))) }
	rates := func(t *lua.LTable) (secs, tps, qps, r, w, o, lat, errs, reconn float64) {
		secs = num(t, "time_interval")
		per := func(v float64) float64 {
			if secs <= 0 {
				return 0
			}
			return v / secs
		}
		return secs, per(num(t, "events")), per(num(t, "reads") + num(t, "writes") + num(t, "other")),
			per(num(t, "reads")), per(num(t, "writes")), per(num(t, "other")), num(t, "latency_pct") * 1000,
			per(num(t, "errors")), per(num(t, "reconnects"))
	}
	sb.RawSetString("report_default", L.NewFunction(func(L *lua.LState) int {
		t := L.CheckTable(1)
		_, tps, qps, r, w, o, lat, errs, reconn := rates(t)
		fmt.Fprintf(th.out, "[ %.0fs ] thds: %d tps: %4.2f qps: %4.2f (r/w/o: %4.2f/%4.2f/%4.2f) lat (ms,%d%%): %4.2f err/s %4.2f reconn/s: %4.2f\n",
			num(t, "time_total"), int(num(t, "threads_running")), tps, qps, r, w, o, th.w.percentile, lat, errs, reconn)
		return 0
	}))
	sb.RawSetString("report_csv", L.NewFunction(func(L *lua.LState) int {
		t := L.CheckTable(1)
		_, tps, qps, r, w, o, lat, errs, reconn := rates(t)
		fmt.Fprintf(th.out, "%.0f,%d,%4.2f,%4.2f,%4.2f,%4.2f,%4.2f,%4.2f,%4.2f,%4.2f\n",
			num(t, "time_total"), int(num(t, "threads_running")), tps, qps, r, w, o, lat, errs, reconn)
		return 0
	}))
	first := true
	sb.RawSetString("report_json", L.NewFunction(func(L *lua.LState) int {
		t := L.CheckTable(1)
		_, tps, qps, r, w, o, lat, errs, reconn := rates(t)
		if first {
			fmt.Fprint(th.out, "[\n")
			first = false
			th.w.jsonOpen = true
		} else {
			fmt.Fprint(th.out, ",\n")
		}
		fmt.Fprintf(th.out, `  {
    "time": %4.0f,
    "threads": %d,
    "tps": %4.2f,
    "qps": {
      "total": %4.2f,
      "reads": %4.2f,
      "writes": %4.2f,
      "other": %4.2f
    },
    "latency": %4.2f,
    "errors": %4.2f,
    "reconnects": %4.2f
  }`, num(t, "time_total"), int(num(t, "threads_running")), tps, qps, r, w, o, lat, errs, reconn)
		return 0
	}))
}
