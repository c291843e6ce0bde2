package luascript

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"time"

	lua "github.com/yuin/gopher-lua"
	"github.com/yuin/gopher-lua/parse"
)

// Version is the sysbench version the API reproduces (sysbench.version).
const Version = "1.0.20"

// restartEvent is sysbench.error.RESTART_EVENT.
const restartEvent = 1

// api05Names are the 0.5 API's globals; 1.0 keeps them as aliases of a
// legacy C API that goslap does not reproduce: calling one is an error
// naming it.
var api05Names = []string{"db_connect", "db_disconnect", "db_query", "db_bulk_insert_init", "db_bulk_insert_next",
	"db_bulk_insert_done", "db_prepare", "db_bind_param", "db_bind_result", "db_execute", "db_close",
	"db_store_results", "db_free_results"}

// thread is one Lua state and what its API functions act on: a client of
// the run, a worker of a command, or the main state (prepare, cleanup,
// init, done, help, reports).
type thread struct {
	w   *Workload
	L   *lua.LState
	tid int
	out io.Writer

	rand  randState
	cnt   counters
	conns []*connection
	// primary, when set, is the connection the engine opened for this
	// client: the state's first drv:connect() returns it.
	primary *connection
	// lastErr is the server error behind the last error a connection
	// raised (the engine reads its code to restart or stop).
	lastErr error
	// ignored counts ignorable SQL errors raised since the event began.
	ignored  int
	declared map[string]bool // ffi.cdef'd C functions
	// wait, when set, is the engine's wait for ffi.C.usleep and
	// ffi.C.sleep (a client of the measured load: workload.Waiter).
	wait func(time.Duration) bool
}

// counters are a thread's statement counts and the counts sysbench keeps
// beside them (ignored errors and reconnects the engine does not see).
type counters struct {
	reads, writes, other uint64
	errors, reconnects   uint64
}

// ScriptError is an error of the script (a Lua error, a failed SQL
// statement the script did not handle). Err, when set, is the server's
// error behind it.
type ScriptError struct {
	Msg     string
	Err     error
	restart bool // an ignorable error: the engine restarts the event
}

func (e *ScriptError) Error() string { return e.Msg }
func (e *ScriptError) Unwrap() error { return e.Err }

// luaMessage is the text of a Lua error value without the stack trace.
func luaMessage(err error) string {
	var ae *lua.ApiError
	if errors.As(err, &ae) {
		if ae.Type == lua.ApiErrorSyntax {
			var pe *parse.Error
			if errors.As(ae.Cause, &pe) {
				if pe.Pos.Line == parse.EOF {
					return fmt.Sprintf("%s: %s at the end of the file", pe.Pos.Source, pe.Message)
				}
				return fmt.Sprintf("%s:%d: %s near '%s'", pe.Pos.Source, pe.Pos.Line, pe.Message, pe.Token)
			}
			if ae.Cause != nil {
				return strings.TrimSpace(ae.Cause.Error())
			}
		}
		if ae.Object != nil {
			if t, ok := ae.Object.(*lua.LTable); ok {
				if msg := t.RawGetString("sql_errmsg"); msg != lua.LNil {
					return fmt.Sprintf("SQL error, errno = %s, state = '%s': %s", lua.LVAsString(t.RawGetString("sql_errno")),
						lua.LVAsString(t.RawGetString("sql_state")), lua.LVAsString(msg))
				}
			}
			return ae.Object.String()
		}
	}
	return err.Error()
}

// newThread builds a Lua state with sysbench's API and runs the script's
// top level in it, as sysbench does for every state it creates.
func (w *Workload) newThread(tid int, command string) (*thread, error) {
	L := lua.NewState(lua.Options{IncludeGoStackTrace: false})
	th := &thread{w: w, L: L, tid: tid, out: w.out(), declared: map[string]bool{}}
	if err := th.rand.init(w, tid); err != nil {
		L.Close()
		return nil, err
	}
	if err := th.install(command); err != nil {
		L.Close()
		return nil, err
	}
	fn, err := L.LoadFile(w.script)
	if err != nil {
		L.Close()
		var ae *lua.ApiError
		if errors.As(err, &ae) && ae.Type == lua.ApiErrorFile {
			return nil, fmt.Errorf("cannot open %s: %v", w.script, ae.Cause)
		}
		return nil, fmt.Errorf("cannot load %s: %s", w.script, luaMessage(err))
	}
	L.Push(fn)
	if err := L.PCall(0, 0, nil); err != nil {
		L.Close()
		return nil, &ScriptError{Msg: luaMessage(err)}
	}
	return th, nil
}

// close disconnects the state's own connections and closes it.
func (th *thread) close() {
	for _, c := range th.conns {
		c.disconnect()
	}
	th.conns = nil
	th.L.Close()
}

func (th *thread) install(command string) error {
	L := th.L
	w := th.w
	// require finds the script's siblings and sysbench's directories.
	pkg := L.GetGlobal("package").(*lua.LTable)
	pkg.RawSetString("path", lua.LString(LuaPath(filepath.Dir(w.script))))
	pkg.RawSetString("cpath", lua.LString(""))
	L.SetGlobal("print", L.NewFunction(th.print))
	if str, ok := L.GetGlobal("string").(*lua.LTable); ok {
		str.RawSetString("format", L.NewFunction(strFormat))
	}
	if io, ok := L.GetGlobal("io").(*lua.LTable); ok {
		io.RawSetString("write", L.NewFunction(th.write))
	}

	sb := L.NewTable()
	L.SetGlobal("sysbench", sb)
	sb.RawSetString("tid", lua.LNumber(th.tid))
	sb.RawSetString("version", lua.LString(Version))
	sb.RawSetString("version_string", lua.LString("sysbench "+Version+" (goslap's Lua interpreter)"))
	sb.RawSetString("hooks", L.NewTable())
	errs := L.NewTable()
	errs.RawSetString("NONE", lua.LNumber(0))
	errs.RawSetString("RESTART_EVENT", lua.LNumber(restartEvent))
	sb.RawSetString("error", errs)

	cmd := L.NewTable()
	argv := L.NewTable()
	for i, a := range w.argv {
		argv.RawSetInt(i, lua.LString(a))
	}
	cmd.RawSetString("argv", argv)
	if command != "" {
		cmd.RawSetString("command", lua.LString(command))
	}
	cmd.RawSetString("script_path", lua.LString(w.script))
	for i, n := range []string{"NULL", "BOOL", "INT", "SIZE", "DOUBLE", "STRING", "LIST", "FILE", "MAX"} {
		cmd.RawSetString("ARG_"+n, lua.LNumber(i))
	}
	cmd.RawSetString("PARALLEL_COMMAND", lua.LTrue)
	L.SetFuncs(cmd, map[string]lua.LGFunction{
		"command_defined":    th.commandDefined,
		"command_parallel":   th.commandParallel,
		"call_command":       th.callCommand,
		"print_test_options": th.printTestOptions,
	})
	sb.RawSetString("cmdline", cmd)

	th.installRand(sb)
	th.installSQL(sb)
	th.installReports(sb)
	th.installFFI()
	th.installBit()

	// The 0.5 API, kept by 1.0 as deprecated globals: an error naming it.
	legacy := L.NewTable()
	for _, n := range api05Names {
		name := n
		f := L.NewFunction(func(L *lua.LState) int {
			L.RaiseError("%s() is sysbench 0.5's Lua API, which goslap does not interpret: use the sysbench 1.0 API (sysbench.sql.driver():connect(), con:query(), ...)", name)
			return 0
		})
		L.SetGlobal(name, f)
		legacy.RawSetString(strings.TrimPrefix(name, "db_"), f)
	}
	sb.RawSetString("db", legacy)
	// sysbench 1.0's compatibility aliases (sysbench.compat).
	L.SetGlobal("thread_id", lua.LNumber(th.tid))
	L.SetGlobal("test", lua.LString(w.script))
	rand := sb.RawGetString("rand").(*lua.LTable)
	L.SetGlobal("sb_rand", rand.RawGetString("default"))
	L.SetGlobal("sb_rand_str", rand.RawGetString("string"))
	L.SetGlobal("sb_rand_uniform", rand.RawGetString("uniform"))
	L.SetGlobal("sb_rand_gaussian", rand.RawGetString("gaussian"))
	L.SetGlobal("sb_rand_special", rand.RawGetString("special"))
	L.SetGlobal("sb_rnd", L.NewFunction(func(L *lua.LState) int {
		L.Push(lua.LNumber(th.rand.r.Uint64() % 4294967296))
		return 1
	}))
	L.SetGlobal("sb_rand_uniq", L.NewFunction(th.randUniq))
	L.SetGlobal("mysql_table_engine", lua.LString("innodb"))
	L.SetGlobal("myisam_max_rows", lua.LNumber(1000000))
	L.SetGlobal("DB_ERROR_NONE", lua.LNumber(0))
	L.SetGlobal("DB_ERROR_RESTART_TRANSACTION", lua.LNumber(1))
	L.SetGlobal("DB_ERROR_FAILED", lua.LNumber(2))
	return nil
}

// strict makes reading a missing field of t an error naming it: a call
// of an API function goslap does not provide says so instead of "attempt
// to call a nil value".
func (th *thread) strict(t *lua.LTable, what string) {
	L := th.L
	mt := L.NewTable()
	mt.RawSetString("__index", L.NewFunction(func(L *lua.LState) int {
		L.RaiseError("%s.%s is not part of sysbench %s's Lua API as goslap provides it", what, L.CheckString(2), Version)
		return 0
	}))
	L.SetMetatable(t, mt)
}

// exportOptions sets sysbench.opt: the script's options and sysbench's
// general ones, with their values of this run.
func (th *thread) exportOptions(threads int) {
	L := th.L
	opt := L.NewTable()
	for k, v := range th.w.general {
		opt.RawSetString(k, th.toLua(v))
	}
	opt.RawSetString("threads", lua.LNumber(threads))
	for _, o := range th.w.options {
		opt.RawSetString(o.name, th.toLua(o.value))
	}
	sb := L.GetGlobal("sysbench").(*lua.LTable)
	sb.RawSetString("opt", opt)
	if len(th.w.options) == 0 && !th.w.declaresOptions {
		// A script declaring no options reads them as globals (sysbench's
		// legacy rule), except where a function has the name.
		opt.ForEach(func(k, v lua.LValue) {
			if _, isFn := L.GetGlobal(k.String()).(*lua.LFunction); !isFn {
				L.SetGlobal(k.String(), v)
			}
		})
	}
}

func (th *thread) toLua(v any) lua.LValue {
	switch v := v.(type) {
	case bool:
		return lua.LBool(v)
	case float64:
		return lua.LNumber(v)
	case int:
		return lua.LNumber(v)
	case string:
		return lua.LString(v)
	case []string:
		t := th.L.CreateTable(len(v), 0)
		for _, s := range v {
			t.Append(lua.LString(s))
		}
		return t
	}
	return lua.LNil
}

// print writes its arguments as Lua's print does, to the run's output.
func (th *thread) print(L *lua.LState) int {
	n := L.GetTop()
	var b strings.Builder
	for i := 1; i <= n; i++ {
		if i > 1 {
			b.WriteByte('\t')
		}
		b.WriteString(L.ToStringMeta(L.Get(i)).String())
	}
	b.WriteByte('\n')
	io.WriteString(th.out, b.String())
	return 0
}

func (th *thread) write(L *lua.LState) int {
	n := L.GetTop()
	for i := 1; i <= n; i++ {
		io.WriteString(th.out, L.ToStringMeta(L.Get(i)).String())
	}
	return 0
}

// global returns the function of that global name, or nil.
func (th *thread) global(name string) *lua.LFunction {
	f, _ := th.L.GetGlobal(name).(*lua.LFunction)
	return f
}

// hook returns sysbench.hooks[name] when it is a function.
func (th *thread) hook(name string) *lua.LFunction {
	sb, ok := th.L.GetGlobal("sysbench").(*lua.LTable)
	if !ok {
		return nil
	}
	hooks, ok := sb.RawGetString("hooks").(*lua.LTable)
	if !ok {
		return nil
	}
	f, _ := hooks.RawGetString(name).(*lua.LFunction)
	return f
}

// call runs f(args...) and returns its first result; a Lua error becomes
// a ScriptError naming what failed, as sysbench's "`NAME' function
// failed: MESSAGE".
func (th *thread) call(name string, f *lua.LFunction, args ...lua.LValue) (lua.LValue, error) {
	L := th.L
	L.Push(f)
	for _, a := range args {
		L.Push(a)
	}
	if err := L.PCall(len(args), 1, nil); err != nil {
		return lua.LNil, &ScriptError{Msg: fmt.Sprintf("`%s' function failed: %s", name, luaMessage(err)), Err: th.lastErr}
	}
	ret := L.Get(-1)
	L.Pop(1)
	return ret, nil
}

// commands reads sysbench.cmdline.commands: name -> parallel.
func (th *thread) commands() map[string]bool {
	out := map[string]bool{}
	t := th.cmdlineField("commands")
	if t == nil {
		return out
	}
	t.ForEach(func(k, v lua.LValue) {
		def, ok := v.(*lua.LTable)
		if !ok {
			return
		}
		if _, ok := def.RawGetInt(1).(*lua.LFunction); !ok {
			return
		}
		out[k.String()] = def.RawGetInt(2) == lua.LTrue
	})
	return out
}

func (th *thread) cmdlineField(name string) *lua.LTable {
	sb, ok := th.L.GetGlobal("sysbench").(*lua.LTable)
	if !ok {
		return nil
	}
	cmd, ok := sb.RawGetString("cmdline").(*lua.LTable)
	if !ok {
		return nil
	}
	t, _ := cmd.RawGetString(name).(*lua.LTable)
	return t
}

func (th *thread) commandDefined(L *lua.LState) int {
	_, ok := th.commands()[L.CheckString(1)]
	L.Push(lua.LBool(ok))
	return 1
}

func (th *thread) commandParallel(L *lua.LState) int {
	L.Push(lua.LBool(th.commands()[L.CheckString(1)]))
	return 1
}

func (th *thread) callCommand(L *lua.LState) int {
	name := L.CheckString(1)
	t := th.cmdlineField("commands")
	if t == nil {
		L.Push(lua.LFalse)
		return 1
	}
	def, ok := t.RawGetString(name).(*lua.LTable)
	if !ok {
		L.Push(lua.LFalse)
		return 1
	}
	f, ok := def.RawGetInt(1).(*lua.LFunction)
	if !ok {
		L.Push(lua.LFalse)
		return 1
	}
	L.Push(f)
	L.Call(0, 1)
	rc := L.Get(-1)
	L.Pop(1)
	L.Push(lua.LBool(rc == lua.LNil || lua.LVAsBool(rc)))
	return 1
}

func (th *thread) printTestOptions(L *lua.LState) int {
	th.w.writeOptions(th.out)
	return 0
}

// writeOptions prints the script's options as sysbench's help does.
func (w *Workload) writeOptions(out io.Writer) {
	type line struct{ name, help string }
	var lines []line
	width := 0
	for _, o := range w.options {
		name := "--" + o.name
		switch o.kind {
		case kindBool:
			name += "[=on|off]"
		case kindNumber:
			name += "=N"
		case kindList:
			name += "=[LIST,...]"
		default:
			name += "=STRING"
		}
		def := o.def
		lines = append(lines, line{name, fmt.Sprintf("%s [%s]", o.desc, def)})
		width = max(width, len(name))
	}
	sort.Slice(lines, func(i, j int) bool { return lines[i].name < lines[j].name })
	for _, l := range lines {
		fmt.Fprintf(out, "  %-*s %s\n", width, l.name, l.help)
	}
}

// out is where the states print: one writer for all of them, each print
// written whole under a lock (states print from their own goroutines;
// printing is not on a script's per-statement path).
func (w *Workload) out() io.Writer {
	w.outOnce.Do(func() {
		dst := w.Out
		if dst == nil {
			dst = os.Stdout
		}
		w.shared = &lockedWriter{w: dst}
	})
	return w.shared
}

type lockedWriter struct {
	mu sync.Mutex
	w  io.Writer
}

func (l *lockedWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(p)
}
