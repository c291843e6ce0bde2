package orchestrator

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/goslap/goslap/internal/mysqlconn"
	"github.com/goslap/goslap/internal/target"
	"github.com/goslap/goslap/internal/verdict"
	"github.com/goslap/goslap/internal/workload"
)

// side is one of the things a study with rounds compares: a target, at
// one server-option value of the sweep. All sides are up at once.
type side struct {
	target  target.Target
	setting string
	outcome target.Outcome
	stop    func() error // nil for a server target
	r       *runner
	main    *mysqlconn.Conn
	loop    *Loop
}

// label names the side in progress lines.
func (sd *side) label() string {
	if sd.setting == "" {
		return sd.target.Label
	}
	return sd.target.Label + " " + sd.setting
}

// runRounds runs the matrix Config.Rounds times with every side up at
// once: all sides are started and prepared before the first measured
// round, and at every point (engine × size × concurrency) the rounds run
// the sides in verdict.Order, each quiesced before it is measured, so
// that drift and warm-up hit every side alike.
func runRounds(ctx context.Context, cfg *Config, targets []target.Target, values []string, res *Result) (_ *Result, err error) {
	ccfg := target.Config{DefaultBinary: cfg.DefaultBinary, Base: cfg.Base, TempDir: cfg.TempDir}
	if cfg.Observer.Log != nil && len(cfg.Targets) > 0 {
		ccfg.Progress = func(label, msg string) { cfg.Observer.Log("target %s: %s", label, msg) }
	}
	binaries, err := target.Resolve(targets, ccfg)
	if err != nil {
		return res, err
	}
	var sides []*side
	defer func() {
		for i := len(sides) - 1; i >= 0; i-- {
			sd := sides[i]
			if sd.main != nil {
				sd.main.Close()
			}
			if sd.stop != nil {
				if serr := sd.stop(); serr != nil && err == nil {
					err = &target.TargetError{Label: sd.target.Label, Err: fmt.Errorf("stopping sandbox: %w", serr)}
				}
			}
		}
	}()
	targetErr := func(sd *side, err error) error {
		if len(cfg.Targets) == 0 {
			return err // the one default server: no label to name
		}
		return &target.TargetError{Label: sd.target.Label, Err: err}
	}
	for _, v := range values {
		setting := ""
		if v != "" {
			setting = cfg.Server.Name + "=" + v
		}
		for i, t := range targets {
			sc := ccfg
			sc.SandboxOptions = append([]string(nil), cfg.SandboxOptions...)
			if setting != "" {
				sc.SandboxOptions = append(sc.SandboxOptions, setting)
			}
			sd := &side{target: t, setting: setting}
			o, ep, stop, err := target.Open(ctx, t, binaries[i], sc)
			sd.outcome, sd.stop = o, stop
			sides = append(sides, sd)
			if err != nil {
				return res, targetErr(sd, err)
			}
			sd.r = &runner{cfg: cfg, label: t.Label, ep: ep, setting: setting, res: res}
			if err := sd.r.setup(); err != nil {
				return res, targetErr(sd, err)
			}
			if sd.main, err = sd.r.mainConn(); err != nil {
				return res, targetErr(sd, err)
			}
			sd.r.readServer(sd.main)
			sd.loop = sd.r.loop(sd.r.session(sd.main))
			sd.loop.Rounds = cfg.Rounds
		}
	}
	mode := fmt.Sprintf("%d rounds, %d sides up at once, interleaved at every point (%s)", cfg.Rounds, len(sides), orderWords(len(sides), cfg.Rounds))
	if cfg.Observer.Log != nil {
		cfg.Observer.Log("%s", mode)
	}
	res.Mode = mode
	engines := cfg.Engines
	if len(engines) == 0 {
		engines = []Engine{{}}
	}
	scales := cfg.Scales
	if len(scales) == 0 {
		scales = []int64{0}
	}
	for _, e := range engines {
		for _, scale := range scales {
			p := workload.Point{Engine: e.Name, EngineOptions: e.Options, Clients: cfg.Clients[0], Scale: scale}
			if err := roundsPoint(ctx, cfg, sides, p, e, res, targetErr); err != nil {
				return outcomesOf(res, sides), err
			}
		}
	}
	return outcomesOf(res, sides), nil
}

// roundsPoint prepares one engine × size on every side, runs its
// concurrency levels round by round, and ends the point on every side
// (the teardown of a full run), whatever happened.
func roundsPoint(ctx context.Context, cfg *Config, sides []*side, p workload.Point, e Engine, res *Result, targetErr func(*side, error) error) (err error) {
	finishes := make([]func(error) error, len(sides))
	defer func() {
		for i, f := range finishes {
			if f == nil {
				continue
			}
			if ferr := f(err); ferr != nil && err == nil {
				err = targetErr(sides[i], ferr)
			}
		}
	}()
	for i, sd := range sides {
		if cfg.Observer.Target != nil {
			cfg.Observer.Target(sd.target.Label)
		}
		run, finish, err := sd.loop.Point(ctx, p, e)
		finishes[i] = finish
		if err != nil {
			return targetErr(sd, err)
		}
		if !run {
			return nil
		}
	}
	order := verdict.Order(len(sides), cfg.Rounds)
	for _, clients := range cfg.Clients {
		for r, o := range order {
			for _, i := range o {
				sd := sides[i]
				if err := ctx.Err(); err != nil {
					return err
				}
				line := quiesce(ctx, sd.main, sd.r.ep.Sandbox, quiesceLimit)
				if cfg.Observer.Log != nil {
					cfg.Observer.Log("round %d/%d, %d clients, %s: %s", r+1, cfg.Rounds, clients, sd.label(), line)
				}
				if cfg.Observer.Target != nil {
					cfg.Observer.Target(sd.target.Label)
				}
				sd.loop.Round = r + 1
				c, err := sd.loop.cell(ctx, p, e, clients)
				if c != nil {
					res.Cells = append(res.Cells, c)
				}
				if err != nil {
					return targetErr(sd, err)
				}
			}
		}
	}
	return nil
}

// orderWords shows the first rounds' order: "A B, B A, B A, A B".
func orderWords(sides, rounds int) string {
	var out []string
	for _, o := range verdict.Order(sides, min(rounds, 4)) {
		var w []string
		for _, i := range o {
			w = append(w, string(rune('A'+i%26)))
		}
		out = append(out, strings.Join(w, " "))
	}
	if rounds > 4 {
		out = append(out, "…")
	}
	return strings.Join(out, "; ")
}

// outcomesOf is one outcome per target for the side-by-side table and
// chart: its points are the rounds' iterations pooled per point (the
// verdicts compare the rounds themselves).
func outcomesOf(res *Result, sides []*side) *Result {
	byLabel := map[string]int{}
	res.Outcomes = nil
	for _, sd := range sides {
		if _, ok := byLabel[sd.target.Label]; ok || sd.outcome.Description == "" {
			continue
		}
		o := sd.outcome
		if sd.setting != "" {
			o.Description = strings.TrimSuffix(strings.Replace(o.Description, sd.setting, cfgName(sd.setting)+" swept", 1), " ()")
		}
		byLabel[sd.target.Label] = len(res.Outcomes)
		res.Outcomes = append(res.Outcomes, o)
	}
	type key struct {
		target, engine, setting string
		scale                   int64
		clients                 int
	}
	pooled := map[key]*Cell{}
	var keys []key
	for _, c := range res.Cells {
		k := key{c.Target, c.Engine.Label(), c.Setting, c.Scale, c.Clients}
		pc, ok := pooled[k]
		if !ok {
			pc = &Cell{Target: c.Target, Engine: c.Engine, TableEngine: c.TableEngine, Scale: c.Scale, Setting: c.Setting, Clients: c.Clients}
			pooled[k] = pc
			keys = append(keys, k)
		}
		pc.Benchmarks = append(pc.Benchmarks, c.Benchmarks...)
	}
	for _, k := range keys {
		i, ok := byLabel[k.target]
		if !ok {
			continue
		}
		res.Outcomes[i].Points = append(res.Outcomes[i].Points, points([]*Cell{pooled[k]})...)
	}
	return res
}

func cfgName(setting string) string {
	n, _, _ := strings.Cut(setting, "=")
	return n
}

// quiesceLimit bounds the wait for a server to settle before a side is
// measured.
var quiesceLimit = 60 * time.Second

// quiesceSteady is how long a server may make no progress towards
// settling before goslap measures it as it is.
const quiesceSteady = 2 * time.Second

// Settled thresholds: what an idle InnoDB keeps dirty or unpurged
// between two statements of its own background work.
const (
	settledDirtyPages = 16
	settledHistory    = 64
)

// quiesce waits, at most limit, until the server has written out its
// dirty pages and purge has caught up with the history, so that one
// side's aftermath (a load, a write-heavy round) does not run into the
// next measurement; it returns the line that says how it went. On a
// sandbox goslap started it lowers the dirty-page targets to 0 for the
// wait (and restores them); a user's server is only watched.
func quiesce(ctx context.Context, m *mysqlconn.Conn, sandbox bool, limit time.Duration) string {
	started := time.Now()
	if sandbox {
		restore := flushHard(m)
		defer restore()
	}
	dirty, history, err := innodbBacklog(m)
	if err != nil {
		return "not quiesced: " + err.Error()
	}
	if dirty < 0 {
		return "no InnoDB figures to wait for (engine without Innodb_buffer_pool_pages_dirty)"
	}
	t := time.NewTicker(100 * time.Millisecond)
	defer t.Stop()
	// Progress is a new low of either figure; a server that makes none
	// for quiesceSteady is as settled as it gets (an open transaction
	// elsewhere can hold purge back for ever).
	lowDirty, lowHistory, progressed := dirty, history, time.Now()
	for dirty > settledDirtyPages || history > settledHistory {
		if time.Since(started) > limit {
			return fmt.Sprintf("still %d dirty pages and a history list of %s after %s: measuring anyway", dirty, historyWord(history), limit)
		}
		if time.Since(progressed) > quiesceSteady {
			return fmt.Sprintf("steady at %d dirty pages, history list %s (no progress in %s; waited %.1f s)", dirty, historyWord(history), quiesceSteady, time.Since(started).Seconds())
		}
		select {
		case <-ctx.Done():
			return "interrupted while quiescing"
		case <-t.C:
		}
		if dirty, history, err = innodbBacklog(m); err != nil {
			return "not quiesced: " + err.Error()
		}
		if dirty < lowDirty || history < lowHistory {
			lowDirty, lowHistory, progressed = min(lowDirty, dirty), min(lowHistory, history), time.Now()
		}
	}
	how := "waited"
	if sandbox {
		how = "flushed"
	}
	return fmt.Sprintf("quiesced (%s %.1f s: %d dirty pages, history list %s)", how, time.Since(started).Seconds(), dirty, historyWord(history))
}

func historyWord(h int64) string {
	if h < 0 {
		return "unknown"
	}
	return strconv.FormatInt(h, 10)
}

// innodbBacklog reads the buffer pool's dirty pages and the purge
// history length (-1 each when the server does not say).
func innodbBacklog(m *mysqlconn.Conn) (dirty, history int64, err error) {
	dirty, history = -1, -1
	rows, err := m.Query("SHOW GLOBAL STATUS WHERE Variable_name IN ('Innodb_buffer_pool_pages_dirty', 'Innodb_history_list_length')")
	if err != nil {
		return dirty, history, fmt.Errorf("reading the InnoDB status: %w", err)
	}
	for _, row := range rows {
		if len(row) < 2 {
			continue
		}
		n, perr := strconv.ParseInt(string(row[1]), 10, 64)
		if perr != nil {
			continue
		}
		switch strings.ToLower(string(row[0])) {
		case "innodb_buffer_pool_pages_dirty":
			dirty = n
		case "innodb_history_list_length":
			history = n
		}
	}
	if history < 0 && dirty >= 0 {
		// MySQL: the counter is an InnoDB metric (enabled by default).
		if v, qerr := m.QueryStrings("SELECT `COUNT` FROM information_schema.INNODB_METRICS WHERE NAME = 'trx_rseg_history_len'"); qerr == nil && len(v) == 1 {
			if n, perr := strconv.ParseInt(v[0], 10, 64); perr == nil {
				history = n
			}
		}
	}
	return dirty, history, nil
}

// flushHard sets a sandbox's dirty-page targets to 0, so that its page
// cleaner writes everything out now, and returns what restores them.
func flushHard(m *mysqlconn.Conn) (restore func()) {
	vars := []string{"innodb_max_dirty_pages_pct_lwm", "innodb_max_dirty_pages_pct"}
	old := map[string]string{}
	rows, err := m.Query("SHOW GLOBAL VARIABLES WHERE Variable_name IN ('innodb_max_dirty_pages_pct_lwm', 'innodb_max_dirty_pages_pct')")
	if err != nil {
		return func() {}
	}
	for _, row := range rows {
		if len(row) == 2 {
			old[strings.ToLower(string(row[0]))] = string(row[1])
		}
	}
	var set []string
	for _, v := range vars { // the low-water mark first: it may not exceed the other
		if _, ok := old[v]; ok && m.Exec("SET GLOBAL "+v+" = 0") == nil {
			set = append(set, v)
		}
	}
	return func() {
		for i := len(set) - 1; i >= 0; i-- {
			v := set[i]
			if _, err := strconv.ParseFloat(old[v], 64); err == nil {
				_ = m.Exec("SET GLOBAL " + v + " = " + old[v])
			}
		}
	}
}
