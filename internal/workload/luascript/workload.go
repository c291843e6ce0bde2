// Package luascript runs sysbench 1.0 Lua scripts unchanged (the stock
// oltp_*.lua, Percona's sysbench-tpcc, a shop's own) on goslap's engine,
// with an embedded Lua 5.1 interpreter (gopher-lua).
//
//	front end ──SetScript──▶ Settings (the script's options as rows) ──Build──▶ Workload
//	Workload: prepare/cleanup/commands on their own states; a run gives
//	every client its own Lua state (thread_init, event per Next, thread_done)
//
// sysbench's API is provided in Go with sysbench 1.0.20's semantics (its
// src/lua/internal/*.lua and src/sb_lua.c as the facts): sysbench.cmdline,
// sysbench.opt, sysbench.rand (the built-in OLTP workloads' distributions),
// sysbench.sql, the report hooks, the ffi declarations the stock scripts
// and sysbench-tpcc make. No lock or channel is shared between clients:
// each Lua state belongs to one goroutine.
package luascript

import (
	"context"
	"errors"
	"fmt"
	"io"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/go-sql-driver/mysql"
	lua "github.com/yuin/gopher-lua"

	"github.com/goslap/goslap/internal/getopt"
	"github.com/goslap/goslap/internal/mysqlconn"
	"github.com/goslap/goslap/internal/workload"
	"github.com/goslap/goslap/internal/workload/oltp"
)

func init() {
	workload.Register(workload.Meta{
		Name:        Name,
		Summary:     "a sysbench 1.0 Lua script, run by goslap's embedded Lua interpreter (goslap sysbench SCRIPT.lua, --workload=SCRIPT.lua)",
		NewSettings: func() workload.Settings { return NewSettings() },
	})
}

// Option kinds (sysbench.cmdline.ARG_*, by the default's Lua type).
const (
	kindString = iota
	kindBool
	kindNumber
	kindList
)

// scriptOption is one entry of sysbench.cmdline.options.
type scriptOption struct {
	name  string // as the script spells it (underscores)
	desc  string
	def   string // the default as sysbench shows it (on/off for booleans)
	kind  int
	str   string // bound to the option's row
	flag  bool
	value any // parsed at Build: bool, float64, string or []string
}

// Settings are a script's options and the run's sysbench settings.
type Settings struct {
	script, command string
	options         []*scriptOption
	declares        bool // the script declares sysbench.cmdline.options
	commands        map[string]bool
	funcs           map[string]bool // global functions the script defines (prepare, cleanup, help, ...)
	hooks           map[string]bool

	// Filled by the front end.
	Argv       []string
	General    map[string]any    // sysbench's general options for sysbench.opt
	Ignore     func(uint16) bool // --mysql-ignore-errors
	Percentile int
	Out        io.Writer // where the script prints (its stdout)

	// Rows of sysbench's options that scripts read through sysbench.rand
	// and the driver.
	RandType, RandSpecIter, RandSpecPct, RandSpecRes, RandParetoH, RandZipfianExp, RandSeed string
	PSMode                                                                                  string
}

// NewSettings returns sysbench's defaults; SetScript reads the script.
func NewSettings() *Settings {
	return &Settings{RandType: "special", RandSpecIter: "12", RandSpecPct: "1", RandSpecRes: "75",
		RandParetoH: "0.2", RandZipfianExp: "0.8", RandSeed: "0", PSMode: "auto", Percentile: 95}
}

// SetScript loads the script as sysbench does before it parses the command
// line (its top level runs with sysbench.cmdline.command set), and reads
// the options, commands and hooks it declares.
func (s *Settings) SetScript(path, command string) error {
	s.script, s.command = path, command
	w := &Workload{script: path, argv: s.Argv, Out: s.Out, randCfg: oltp.DefaultRandConfig, seed: 1}
	th, err := w.newThread(0, command)
	if err != nil {
		return err
	}
	defer th.close()
	s.commands = th.commands()
	s.funcs = map[string]bool{}
	for _, f := range []string{"prepare", "cleanup", "help", "init", "done", "thread_init", "thread_done", "event", "thread_run"} {
		s.funcs[f] = th.global(f) != nil
	}
	s.hooks = map[string]bool{}
	for _, h := range []string{"report_intermediate", "report_cumulative", "before_restart_event", "sql_error_ignorable"} {
		s.hooks[h] = th.hook(h) != nil
	}
	t := th.cmdlineField("options")
	if t == nil {
		if v := th.L.GetGlobal("sysbench").(*lua.LTable).RawGetString("cmdline").(*lua.LTable).RawGetString("options"); v != lua.LNil {
			return fmt.Errorf("wrong type for sysbench.cmdline.options: %s", v.Type())
		}
		return nil
	}
	s.declares = true
	var bad error
	t.ForEach(func(k, v lua.LValue) {
		if bad != nil {
			return
		}
		name, ok := k.(lua.LString)
		def, ok2 := v.(*lua.LTable)
		if !ok || !ok2 {
			bad = errors.New("wrong table structure in sysbench.cmdline.options")
			return
		}
		o := &scriptOption{name: string(name)}
		desc := def.RawGetInt(1)
		if desc == lua.LNil {
			bad = fmt.Errorf("nil description for option %s", name)
			return
		}
		o.desc = lua.LVAsString(desc)
		explicit := def.RawGetInt(3)
		switch d := def.RawGetInt(2).(type) {
		case lua.LBool:
			o.kind, o.flag = kindBool, bool(d)
			o.def = map[bool]string{true: "on", false: "off"}[bool(d)]
		case lua.LNumber:
			o.kind, o.def = kindNumber, lua.LVAsString(d)
		case lua.LString:
			o.kind, o.def = kindString, string(d)
		case *lua.LTable:
			var items []string
			d.ForEach(func(_, x lua.LValue) { items = append(items, lua.LVAsString(x)) })
			o.kind, o.def = kindList, strings.Join(items, ",")
		default:
			o.kind = kindString
		}
		if n, ok := explicit.(lua.LNumber); ok {
			switch int(n) {
			case 1:
				o.kind = kindBool
			case 2, 3, 4:
				o.kind = kindNumber
			case 6:
				o.kind = kindList
			case 5, 7:
				o.kind = kindString
			}
		}
		if def.RawGetInt(4) != lua.LNil {
			bad = fmt.Errorf("option %s has a validation function, which goslap cannot call (sysbench passes it to C)", name)
			return
		}
		o.str = o.def
		s.options = append(s.options, o)
	})
	if bad != nil {
		return bad
	}
	sort.Slice(s.options, func(i, j int) bool { return s.options[i].name < s.options[j].name })
	return nil
}

// DeclaresOptions reports whether the script declares
// sysbench.cmdline.options. One that does not is sysbench's legacy kind:
// it takes any option, as a string, in sysbench.opt and as a global.
func (s *Settings) DeclaresOptions() bool { return s.declares }

// SetLegacy gives a legacy script an option it did not declare (name as
// the user spelt it, '-' or '_').
func (s *Settings) SetLegacy(name, value string) {
	if s.General == nil {
		s.General = map[string]any{}
	}
	s.General[strings.ReplaceAll(name, "-", "_")] = value
}

// Script is the script's path ("" before SetScript).
func (s *Settings) Script() string { return s.script }

// Commands are the custom commands the script declares (name -> parallel).
func (s *Settings) Commands() map[string]bool { return s.commands }

// HasCommand reports whether the script can run the command (see
// Workload.HasCommand).
func (s *Settings) HasCommand(name string) bool {
	if _, ok := s.commands[name]; ok {
		return true
	}
	return s.funcs[name]
}

// HasHelp reports whether the script defines help().
func (s *Settings) HasHelp() bool { return s.funcs["help"] }

// Hook reports whether the script sets sysbench.hooks[name].
func (s *Settings) Hook(name string) bool { return s.hooks[name] }

// Options returns the script's options (sysbench spells them with '_',
// goslap's rows with '-') and the sysbench options the API reads.
func (s *Settings) Options() []*getopt.Option {
	var out []*getopt.Option
	own := map[string]bool{}
	for _, o := range s.options {
		n := getopt.Normalize(o.name)
		own[n] = true
		if o.kind == kindBool {
			out = append(out, &getopt.Option{Name: n, Arg: getopt.NoArg, Var: getopt.VarBool, Bool: &o.flag, Help: o.desc, ExactOnly: true})
			continue
		}
		out = append(out, &getopt.Option{Name: n, Arg: getopt.RequiredArg, Var: getopt.VarString, String: &o.str, Help: o.desc, ExactOnly: true})
	}
	for _, r := range []struct {
		p    *string
		name string
		help string
	}{
		{&s.RandType, "rand-type", "random numbers distribution {uniform, gaussian, special, pareto, zipfian} to use by default"},
		{&s.RandSpecIter, "rand-spec-iter", "number of iterations for the special distribution"},
		{&s.RandSpecPct, "rand-spec-pct", "percentage of the entire range where 'special' values will fall in the special distribution"},
		{&s.RandSpecRes, "rand-spec-res", "percentage of 'special' values to use for the special distribution"},
		{&s.RandParetoH, "rand-pareto-h", "shape parameter for the Pareto distribution"},
		{&s.RandZipfianExp, "rand-zipfian-exp", "shape parameter (exponent, theta) for the Zipfian distribution"},
		{&s.RandSeed, "rand-seed", "seed for random number generator; 0 = the run's seed"},
		{&s.PSMode, "db-ps-mode", "prepared statements usage mode {auto, disable}"},
	} {
		if !own[r.name] {
			out = append(out, &getopt.Option{Name: r.name, Arg: getopt.RequiredArg, Var: getopt.VarString, String: r.p, Help: r.help, ExactOnly: true})
		}
	}
	return out
}

// Build validates the option values and returns the workload.
func (s *Settings) Build(name string, common workload.Common) (workload.Workload, error) {
	if s.script == "" {
		return nil, errors.New("the lua workload needs a script: goslap sysbench SCRIPT.lua ... or --workload=SCRIPT.lua")
	}
	if s.hooks["sql_error_ignorable"] {
		return nil, fmt.Errorf("%s sets sysbench.hooks.sql_error_ignorable, which goslap cannot honour: list the errors in --mysql-ignore-errors", s.script)
	}
	w := &Workload{script: s.script, argv: s.Argv, general: s.General, ignore: s.Ignore, Out: s.Out,
		percentile: s.Percentile, commands: s.commands, funcs: s.funcs, hooks: s.hooks, declaresOptions: s.declares}
	for _, o := range s.options {
		c := *o
		switch o.kind {
		case kindBool:
			c.value = o.flag
		case kindNumber:
			f, err := strconv.ParseFloat(strings.TrimSpace(o.str), 64)
			if err != nil {
				return nil, fmt.Errorf("Invalid value for the '%s' option: '%s'", o.name, o.str)
			}
			c.value = f
		case kindList:
			var items []string
			if o.str != "" {
				items = strings.Split(o.str, ",")
			}
			c.value = items
		default:
			c.value = o.str
		}
		w.options = append(w.options, &c)
	}
	switch s.PSMode {
	case "auto":
	case "disable":
		w.psDisable = true
	default:
		return nil, fmt.Errorf("Invalid value for the 'db_ps_mode' option: '%s'", s.PSMode)
	}
	num := func(name, v string) (float64, error) {
		f, err := strconv.ParseFloat(v, 64)
		if err != nil {
			return 0, fmt.Errorf("Invalid value for the '%s' option: '%s'", strings.ReplaceAll(name, "-", "_"), v)
		}
		return f, nil
	}
	cfg := oltp.RandConfig{Type: s.RandType}
	var err error
	var iter, seed float64
	if iter, err = num("rand-spec-iter", s.RandSpecIter); err != nil {
		return nil, err
	}
	cfg.SpecIter = int64(iter)
	if cfg.SpecPct, err = num("rand-spec-pct", s.RandSpecPct); err != nil {
		return nil, err
	}
	if cfg.SpecRes, err = num("rand-spec-res", s.RandSpecRes); err != nil {
		return nil, err
	}
	if cfg.ParetoH, err = num("rand-pareto-h", s.RandParetoH); err != nil {
		return nil, err
	}
	if cfg.ZipfExp, err = num("rand-zipfian-exp", s.RandZipfianExp); err != nil {
		return nil, err
	}
	if seed, err = num("rand-seed", s.RandSeed); err != nil {
		return nil, err
	}
	if _, err := oltp.NewRand(cfg, 1, 0); err != nil {
		return nil, err
	}
	w.randCfg = cfg
	w.seed = uint64(seed)
	if w.seed == 0 {
		w.seed = common.Seed
	}
	if w.general == nil {
		w.general = map[string]any{}
	}
	for k, v := range map[string]any{"rand_type": s.RandType, "rand_spec_iter": iter, "rand_spec_pct": cfg.SpecPct,
		"rand_spec_res": cfg.SpecRes, "rand_pareto_h": cfg.ParetoH, "rand_zipfian_exp": cfg.ZipfExp,
		"rand_seed": seed, "db_ps_mode": s.PSMode, "db_driver": "mysql"} {
		if _, set := w.general[k]; !set {
			w.general[k] = v
		}
	}
	return w, nil
}

// Workload runs one script.
type Workload struct {
	script          string
	argv            []string
	general         map[string]any
	options         []*scriptOption
	declaresOptions bool
	commands        map[string]bool
	funcs, hooks    map[string]bool
	ignore          func(uint16) bool
	psDisable       bool
	randCfg         oltp.RandConfig
	seed            uint64
	percentile      int
	// Out is where the script's print and io.write go.
	Out     io.Writer
	outOnce sync.Once
	shared  io.Writer

	// Set for each phase: the run's context and how to open connections.
	ctx     context.Context
	connect func() (*mysqlconn.Conn, error)
	clients int

	main     *thread // init, done, report_cumulative
	reporter *thread // report_intermediate (the engine's reporter goroutine)
	jsonOpen bool

	// Counts of the last load's clients, read after the load.
	last *load
}

func (w *Workload) Ops() []string { return []string{"event"} }

// dial opens a connection of the current phase.
func (w *Workload) dial() (*mysqlconn.Conn, error) {
	if w.connect == nil {
		return nil, errors.New("no server to connect to in this phase")
	}
	return w.connect()
}

// ignorable is sysbench's rule for --mysql-ignore-errors, which the engine
// applies too: the code is listed, or the connection was lost and one of
// the lost-connection codes is listed.
func (w *Workload) ignorable(code uint16) bool {
	if w.ignore == nil {
		return false
	}
	if w.ignore(code) {
		return true
	}
	switch code {
	case 2013, 2006, 2011, 2055, 1927:
		for _, c := range []uint16{2013, 2006, 2011, 2055} {
			if w.ignore(c) {
				return true
			}
		}
	}
	return false
}

// Setup is the prepare command.
func (w *Workload) Setup(ctx context.Context, s *workload.Session, p workload.Point) error {
	return w.RunCommand(ctx, s, "prepare", p.Clients)
}

// Teardown is the cleanup command.
func (w *Workload) Teardown(ctx context.Context, s *workload.Session, p workload.Point) error {
	return w.RunCommand(ctx, s, "cleanup", p.Clients)
}

// HasCommand reports whether the script can run the command: one it
// declares in sysbench.cmdline.commands, or prepare, cleanup or help as
// global functions.
func (w *Workload) HasCommand(name string) bool {
	if _, ok := w.commands[name]; ok {
		return true
	}
	switch name {
	case "prepare", "cleanup", "help":
		return w.funcs[name]
	}
	return false
}

// RunCommand runs a command as sysbench does: a declared command on one
// state, or on one state per thread when the script marks it parallel
// (each with its own sysbench.tid); else the global function of that name.
func (w *Workload) RunCommand(ctx context.Context, s *workload.Session, name string, threads int) error {
	w.ctx, w.clients = ctx, max(threads, 1)
	if s != nil {
		w.connect = s.Connect
	}
	parallel, declared := w.commands[name]
	if !declared {
		if !w.HasCommand(name) {
			return fmt.Errorf("%s has no '%s' command", w.script, name)
		}
		th, err := w.newThread(0, name)
		if err != nil {
			return err
		}
		defer th.close()
		th.interruptible(ctx)
		th.exportOptions(w.clients)
		_, err = th.call(name, th.global(name))
		return err
	}
	n := 1
	if parallel && threads > 1 {
		n = threads
	}
	errs := make([]error, n)
	done := make(chan int, n)
	for tid := 0; tid < n; tid++ {
		go func(tid int) {
			defer func() { done <- tid }()
			th, err := w.newThread(tid, name)
			if err != nil {
				errs[tid] = err
				return
			}
			defer th.close()
			th.interruptible(ctx)
			th.exportOptions(w.clients)
			call := th.L.GetGlobal("sysbench").(*lua.LTable).RawGetString("cmdline").(*lua.LTable).RawGetString("call_command").(*lua.LFunction)
			ok, err := th.call("sysbench.cmdline.call_command", call, lua.LString(name))
			if err != nil {
				errs[tid] = err
				return
			}
			if !lua.LVAsBool(ok) {
				errs[tid] = fmt.Errorf("the '%s' command of %s failed", name, w.script)
			}
		}(tid)
	}
	for i := 0; i < n; i++ {
		select {
		case <-done:
		case <-ctx.Done():
			// The workers end at their next statement (their
			// connections are closed under them when the program ends).
			return ctx.Err()
		}
	}
	return errors.Join(errs...)
}

// BeginIteration runs init() on the main state.
func (w *Workload) BeginIteration(ctx context.Context, s *workload.Session, it workload.Iteration) error {
	w.ctx, w.clients, w.connect = ctx, it.Clients, s.Connect
	if !w.funcs["event"] && !w.funcs["thread_run"] {
		return fmt.Errorf("cannot find the event() function in %s", w.script)
	}
	if w.funcs["thread_run"] {
		return fmt.Errorf("%s defines thread_run(), which goslap cannot honour: goslap's engine runs the event loop (define event())", w.script)
	}
	if w.main == nil {
		th, err := w.newThread(0, "run")
		if err != nil {
			return err
		}
		w.main = th
	}
	w.main.exportOptions(it.Clients)
	if f := w.main.global("init"); f != nil {
		if _, err := w.main.call("init", f); err != nil {
			return err
		}
	}
	return nil
}

// EndIteration runs done() on the main state.
func (w *Workload) EndIteration(ctx context.Context, s *workload.Session, it workload.Iteration) error {
	if w.main == nil {
		return nil
	}
	if f := w.main.global("done"); f != nil {
		if _, err := w.main.call("done", f); err != nil {
			return err
		}
	}
	return nil
}

// Close releases the main and reporting states (after the reports).
func (w *Workload) Close() {
	if w.reporter != nil {
		if w.jsonOpen {
			io.WriteString(w.out(), "\n]\n")
			w.jsonOpen = false
		}
		w.reporter.close()
		w.reporter = nil
	}
	if w.main != nil {
		w.main.close()
		w.main = nil
	}
}

// interruptible makes the state's Lua code stop when ctx ends (an
// interrupt during a long prepare). Only states outside the measured load
// get it: gopher-lua then checks ctx at every instruction.
func (th *thread) interruptible(ctx context.Context) {
	if ctx != nil {
		th.L.SetContext(ctx)
	}
}

// Load returns the clients of one iteration.
func (w *Workload) Load(it workload.Iteration) (workload.Load, error) {
	l := &load{w: w, clients: map[int]*client{}}
	w.last = l
	return l, nil
}

type load struct {
	w       *Workload
	clients map[int]*client
}

func (l *load) Client(id int) workload.Client {
	c := &client{w: l.w, tid: id}
	l.clients[id] = c
	return c
}

// Extra returns what the last load's scripts counted beyond the engine's
// own counts: ignored errors the scripts handled themselves (or counted
// with sb_counter_inc) and reconnects they made.
func (w *Workload) Extra() (errors, reconnects uint64) {
	if w.last == nil {
		return 0, 0
	}
	for _, c := range w.last.clients {
		if c.th != nil {
			errors += c.th.cnt.errors
			reconnects += c.th.cnt.reconnects
		}
	}
	return errors, reconnects
}

// client is one sysbench thread: its own Lua state.
type client struct {
	w       *Workload
	tid     int
	th      *thread
	event   *lua.LFunction
	restart *lua.LFunction // sysbench.hooks.before_restart_event
	pending lua.LValue     // the error table of an event to restart
	tidArg  lua.LValue
	wait    func(time.Duration) bool // the engine's (UseWait)
}

// UseWait takes the engine's wait for the script's sleeps
// (workload.Waiter).
func (c *client) UseWait(wait func(time.Duration) bool) { c.wait = wait }

// Coroutine claims the ring path's coroutine mode
// (workload.CoroutineClient): the script's statements go through its
// engine connection and its sleeps through the engine's wait. A script
// that opens a second connection of its own and uses it in event() would
// hold its ring thread during that connection's round trips.
func (c *client) Coroutine() bool { return true }

// Begin creates the client's state and runs thread_init on the first
// connection; after a reconnect it hands the script's connection the new
// one (the restarted event's before_restart_event re-prepares).
func (c *client) Begin(conn *mysqlconn.Conn) error {
	if c.th != nil {
		if p := c.th.primary; p != nil {
			p.conn, p.closed = conn, false
		}
		return nil
	}
	th, err := c.w.newThread(c.tid, "run")
	if err != nil {
		return err
	}
	c.th = th
	th.wait = c.wait
	th.primary = &connection{th: th, conn: conn}
	th.exportOptions(c.w.clients)
	c.tidArg = lua.LNumber(c.tid)
	if f := th.global("thread_init"); f != nil {
		if _, err := th.call("thread_init", f, c.tidArg); err != nil {
			return err
		}
	}
	c.event = th.global("event")
	if c.event == nil {
		return fmt.Errorf("cannot find the event() function in %s", c.w.script)
	}
	c.restart = th.hook("before_restart_event")
	return nil
}

// maxBareRestarts bounds an event that raises RESTART_EVENT itself (not
// from a failed statement) again and again: such a loop would never end.
const maxBareRestarts = 100000

// Next runs event(thread_id) once. An ignorable SQL error the script lets
// through goes to the engine, which counts it and restarts the event
// (reconnecting first when the connection was lost); the script's
// before_restart_event hook runs before the restarted event, as in
// sysbench.
func (c *client) Next(conn *mysqlconn.Conn) (workload.Step, error) {
	th := c.th
	L := th.L
	for bare := 0; ; bare++ {
		if c.pending != nil {
			errTable := c.pending
			c.pending = nil
			if c.restart != nil {
				if _, err := th.call("sysbench.hooks.before_restart_event", c.restart, errTable); err != nil {
					return workload.Step{}, fatal(err)
				}
			}
		}
		th.ignored, th.lastErr = 0, nil
		L.Push(c.event)
		L.Push(c.tidArg)
		err := L.PCall(1, 1, nil)
		if err == nil {
			ret := L.Get(-1)
			L.Pop(1)
			// Errors the script caught itself still count, as sysbench's
			// driver counts them.
			th.cnt.errors += uint64(th.ignored)
			if lua.LVAsBool(ret) {
				return workload.Step{}, fatal(&ScriptError{Msg: fmt.Sprintf("event() returned %s, which in sysbench stops the thread: goslap cannot stop one client early", ret.String())})
			}
			return workload.Step{}, nil
		}
		var ae *lua.ApiError
		if errors.As(err, &ae) {
			if t, ok := ae.Object.(*lua.LTable); ok && lua.LVAsNumber(t.RawGetString("errcode")) == restartEvent {
				c.pending = t
				if th.lastErr != nil && th.ignored > 0 {
					th.cnt.errors += uint64(th.ignored - 1)
					return workload.Step{}, &ScriptError{Msg: luaMessage(err), Err: th.lastErr, restart: true}
				}
				// Raised by the script itself: restart here.
				th.cnt.errors += uint64(th.ignored)
				if bare >= maxBareRestarts {
					return workload.Step{}, fatal(&ScriptError{Msg: fmt.Sprintf("event() raised RESTART_EVENT %d times in a row", maxBareRestarts)})
				}
				continue
			}
		}
		th.cnt.errors += uint64(th.ignored)
		return workload.Step{}, fatal(&ScriptError{Msg: fmt.Sprintf("`event' function failed: %s", luaMessage(err)), Err: th.lastErr})
	}
}

// FatalCode is the error number the engine sees for an error of the script
// that must stop the run whatever --mysql-ignore-errors says: front ends
// leave it out of the engine's Ignore (see Tolerate).
const FatalCode = 0

// fatal makes err one the engine does not tolerate (FatalCode), keeping
// the message.
func fatal(err error) error {
	var se *ScriptError
	if !errors.As(err, &se) {
		se = &ScriptError{Msg: err.Error()}
	}
	return &ScriptError{Msg: se.Msg, Err: &mysql.MySQLError{Number: FatalCode, Message: se.Msg}}
}

// Tolerate wraps a front end's --mysql-ignore-errors rule for the engine
// so that a script's own error (FatalCode) always stops the run.
func Tolerate(ignore func(uint16) bool) func(uint16) bool {
	if ignore == nil {
		return nil
	}
	return func(code uint16) bool { return code != FatalCode && ignore(code) }
}

// End runs thread_done and closes the client's state and connections.
func (c *client) End(conn *mysqlconn.Conn) error {
	if c.th == nil {
		return nil
	}
	var err error
	if f := c.th.global("thread_done"); f != nil {
		_, err = c.th.call("thread_done", f, c.tidArg)
	}
	c.th.close()
	return err
}

func (c *client) Tally() workload.Tally {
	if c.th == nil {
		return workload.Tally{}
	}
	return workload.Tally{Reads: c.th.cnt.reads, Writes: c.th.cnt.writes, Other: c.th.cnt.other}
}

// Stat is what sysbench passes to a report hook (times in seconds).
type Stat struct {
	ThreadsRunning                      int
	TimeInterval, TimeTotal, LatencyPct float64
	Events, Reads, Writes, Other        uint64
	Errors, Reconnects                  uint64
	LatencyMin, LatencyMax, LatencyAvg  float64
	LatencySum                          float64
	QueueLength, Concurrency            int
}

// WriteOptions prints the script's options as sysbench's help does.
func (w *Workload) WriteOptions(out io.Writer) { w.writeOptions(out) }

// Commands are the commands the script declares (name -> parallel).
func (w *Workload) Commands() map[string]bool { return w.commands }

// HasHook reports whether the script sets sysbench.hooks[name].
func (w *Workload) HasHook(name string) bool { return w.hooks[name] }

func (th *thread) statTable(st Stat, cumulative bool) *lua.LTable {
	t := th.L.NewTable()
	set := func(k string, v float64) { t.RawSetString(k, lua.LNumber(v)) }
	set("threads_running", float64(st.ThreadsRunning))
	set("time_interval", st.TimeInterval)
	set("time_total", st.TimeTotal)
	set("latency_pct", st.LatencyPct)
	set("events", float64(st.Events))
	set("reads", float64(st.Reads))
	set("writes", float64(st.Writes))
	set("other", float64(st.Other))
	set("errors", float64(st.Errors))
	set("reconnects", float64(st.Reconnects))
	if cumulative {
		set("latency_min", st.LatencyMin)
		set("latency_max", st.LatencyMax)
		set("latency_avg", st.LatencyAvg)
		set("latency_sum", st.LatencySum)
	} else {
		set("queue_length", float64(st.QueueLength))
		set("concurrency", float64(st.Concurrency))
	}
	return t
}

// ReportIntermediate calls sysbench.hooks.report_intermediate on a state
// of its own (the engine calls interval reports from one goroutine).
func (w *Workload) ReportIntermediate(st Stat) error {
	if w.reporter == nil {
		th, err := w.newThread(0, "run")
		if err != nil {
			return err
		}
		th.exportOptions(w.clients)
		w.reporter = th
	}
	f := w.reporter.hook("report_intermediate")
	if f == nil {
		return nil
	}
	_, err := w.reporter.call("sysbench.hooks.report_intermediate", f, w.reporter.statTable(st, false))
	return err
}

// ReportCumulative calls sysbench.hooks.report_cumulative on the main
// state.
func (w *Workload) ReportCumulative(st Stat) error {
	if w.main == nil {
		return nil
	}
	f := w.main.hook("report_cumulative")
	if f == nil {
		return nil
	}
	_, err := w.main.call("sysbench.hooks.report_cumulative", f, w.main.statTable(st, true))
	return err
}

// ScaleOption is the size option of the sysbench scripts that declare one
// (table_size, as --table-size), which a study sweeps (workload.Scaler);
// a script without it has no size axis.
func (s *Settings) ScaleOption() (option, label string) { return "table-size", "table size" }
