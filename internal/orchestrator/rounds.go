package orchestrator

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/goslap/goslap/internal/mysqlconn"
	"github.com/goslap/goslap/internal/results/jsondoc"
	"github.com/goslap/goslap/internal/servermetrics"
	"github.com/goslap/goslap/internal/target"
	"github.com/goslap/goslap/internal/verdict"
	"github.com/goslap/goslap/internal/workload"
)

// RoundSide is one side of a study with rounds as its front end readied
// it on its server: the side's Loop, its main connection (quiesced before
// each measurement; nil: not quiesced) and Close, which ends the side
// with the error that ended its runs (nil Close: nothing to end).
type RoundSide struct {
	Loop  *Loop
	Main  *mysqlconn.Conn
	Close func(err error) error
}

// RoundsPlan is a study with rounds, whatever its front end: where the
// sides run, the matrix, and Open, which readies one side on its server
// (the --workload study's runner, mysqlslap's own load).
type RoundsPlan struct {
	Rounds int
	// InTurn starts the sides one at a time within each round (the
	// front end's option); without it the sides are all up at once unless
	// their sandboxes' buffer pools would not fit in the memory available
	// (then in turn too, said in one line).
	InTurn   bool
	Targets  []target.Target
	Settings []string      // the server-option sweep's NAME=VALUE, nil without
	Compare  target.Config // how targets start (Bench is not used)
	Engines  []Engine      // nil: one point with the default engine
	Scales   []int64       // nil: one point with the workload's own size
	Clients  []int
	// Open readies a side on its server: label and setting name it, ep
	// is where it is.
	Open func(ctx context.Context, label string, ep target.Endpoint, setting string) (*RoundSide, error)
	// Log tells progress (the mode, each quiesce); Target that a target's
	// runs start. Either may be nil.
	Log    func(format string, args ...any)
	Target func(label string)
	// Unlabelled: the one default server, whose errors name no target.
	Unlabelled bool
}

// side is one of the things a study with rounds compares: a target, at
// one server-option value of the sweep.
type side struct {
	target  target.Target
	binary  string
	setting string
	outcome target.Outcome
	stop    func() error // nil for a server target, or while not up
	run     *RoundSide   // nil while not up
}

// label names the side in progress lines.
func (sd *side) label() string {
	if sd.setting == "" {
		return sd.target.Label
	}
	return sd.target.Label + " " + sd.setting
}

// measure runs one side's share of a round at one point and concurrency:
// the Loop's iterations. Tests put a fake measurement here to check the
// order of the rounds without a server.
var measure = func(ctx context.Context, l *Loop, p workload.Point, e Engine, clients int) (*Cell, error) {
	return l.cell(ctx, p, e, clients)
}

// runRounds is Run with Config.Rounds: the --workload study's sides are
// its runners (RunRounds does the rest).
func runRounds(ctx context.Context, cfg *Config, targets []target.Target, values []string, res *Result) (*Result, error) {
	p := RoundsPlan{Rounds: cfg.Rounds, InTurn: cfg.InTurn, Targets: targets, Engines: cfg.Engines, Scales: cfg.Scales, Clients: cfg.Clients,
		Compare: target.Config{DefaultBinary: cfg.DefaultBinary, Base: cfg.Base, TempDir: cfg.TempDir, SandboxOptions: cfg.SandboxOptions},
		Log:     cfg.Observer.Log, Target: cfg.Observer.Target, Unlabelled: len(cfg.Targets) == 0}
	if cfg.Observer.Log != nil && len(cfg.Targets) > 0 {
		p.Compare.Progress = func(label, msg string) { cfg.Observer.Log("target %s: %s", label, msg) }
	}
	for _, v := range values {
		if v != "" {
			p.Settings = append(p.Settings, cfg.Server.Name+"="+v)
		}
	}
	p.Open = func(_ context.Context, label string, ep target.Endpoint, setting string) (*RoundSide, error) {
		r := &runner{cfg: cfg, label: label, ep: ep, setting: setting, res: res}
		if err := r.setup(); err != nil {
			return nil, err
		}
		main, err := r.mainConn()
		if err != nil {
			return nil, err
		}
		r.readServer(main)
		return &RoundSide{Loop: r.loop(r.session(main)), Main: main, Close: func(error) error { main.Close(); return nil }}, nil
	}
	err := RunRounds(ctx, p, res)
	return res, err
}

// RunRounds runs the matrix p.Rounds times, the sides (targets × swept
// values) interleaved at every point so that drift and warm-up hit every
// side alike: with every side up at once, all are started and prepared
// before the first measured round and each is quiesced before it is
// measured; in turn, each round starts every side in turn (a fresh
// sandbox, prepared again) and stops it before the next, the order
// alternating between rounds. res gains the cells, one outcome per target
// and the mode.
func RunRounds(ctx context.Context, p RoundsPlan, res *Result) (err error) {
	binaries, err := target.Resolve(p.Targets, p.Compare)
	if err != nil {
		return err
	}
	settings := p.Settings
	if len(settings) == 0 {
		settings = []string{""}
	}
	var sides []*side
	for _, s := range settings {
		for i, t := range p.Targets {
			sides = append(sides, &side{target: t, binary: binaries[i], setting: s})
		}
	}
	defer func() {
		for i := len(sides) - 1; i >= 0; i-- {
			if cerr := p.closeSide(sides[i], err); cerr != nil && err == nil {
				err = cerr
			}
		}
		outcomesOf(res, sides)
	}()
	inTurn, why := p.InTurn, ""
	if p.InTurn {
		why = "as asked (--sides-in-turn)"
	} else if need, avail, ok := poolsExceed(p, sides); ok {
		inTurn, why = true, fmt.Sprintf("the sandboxes' buffer pools (%s together) would not fit the %s of memory available", sizeWords(need), sizeWords(avail))
	}
	order := orderWords(len(sides), p.Rounds)
	if inTurn {
		res.Mode = fmt.Sprintf("%d rounds, %s started in turn within each round, one up at a time, the order alternating (%s): %s", p.Rounds, sidesWord(len(sides)), order, why)
	} else {
		res.Mode = fmt.Sprintf("%d rounds, %s up at once, interleaved at every point (%s)", p.Rounds, sidesWord(len(sides)), order)
	}
	p.log("%s", res.Mode)
	if inTurn {
		return p.inTurn(ctx, sides, res)
	}
	for _, sd := range sides {
		if err := p.openSide(ctx, sd); err != nil {
			return err
		}
	}
	for _, e := range orDefault(p.Engines, Engine{}) {
		for _, scale := range orDefault(p.Scales, 0) {
			pt := workload.Point{Engine: e.Name, EngineOptions: e.Options, Clients: p.Clients[0], Scale: scale}
			if err := p.point(ctx, sides, pt, e, res); err != nil {
				return err
			}
		}
	}
	return nil
}

func sidesWord(n int) string {
	if n == 1 {
		return "1 side"
	}
	return strconv.Itoa(n) + " sides"
}

func orDefault[T any](v []T, def T) []T {
	if len(v) == 0 {
		return []T{def}
	}
	return v
}

func (p *RoundsPlan) log(format string, args ...any) {
	if p.Log != nil {
		p.Log(format, args...)
	}
}

// targetErr names the side's target in err (not the one default server's).
func (p *RoundsPlan) targetErr(sd *side, err error) error {
	if p.Unlabelled || err == nil {
		return err
	}
	return &target.TargetError{Label: sd.target.Label, Err: err}
}

// openSide starts the side's sandbox (or finds its server) and readies it.
func (p *RoundsPlan) openSide(ctx context.Context, sd *side) error {
	sc := p.Compare
	sc.SandboxOptions = append([]string(nil), p.Compare.SandboxOptions...)
	if sd.setting != "" {
		sc.SandboxOptions = append(sc.SandboxOptions, sd.setting)
	}
	o, ep, stop, err := target.Open(ctx, sd.target, sd.binary, sc)
	sd.stop = stop
	if sd.outcome.Description == "" {
		sd.outcome = o
	}
	if err != nil {
		return p.targetErr(sd, err)
	}
	if sd.run, err = p.Open(ctx, sd.target.Label, ep, sd.setting); err != nil {
		return p.targetErr(sd, err)
	}
	sd.run.Loop.Rounds = p.Rounds
	return nil
}

// closeSide ends the side's runs with err and stops its sandbox.
func (p *RoundsPlan) closeSide(sd *side, err error) (cerr error) {
	if sd.run != nil {
		sd.run.Loop.end()
		if sd.run.Close != nil {
			cerr = p.targetErr(sd, sd.run.Close(err))
		}
		sd.run = nil
	}
	if sd.stop != nil {
		if serr := sd.stop(); serr != nil && cerr == nil {
			cerr = p.targetErr(sd, fmt.Errorf("stopping sandbox: %w", serr))
		}
		sd.stop = nil
	}
	return cerr
}

// point prepares one engine × size on every side (all up at once), runs
// its concurrency levels round by round, and ends the point on every side
// (the teardown of a full run), whatever happened.
func (p *RoundsPlan) point(ctx context.Context, sides []*side, pt workload.Point, e Engine, res *Result) (err error) {
	finishes := make([]func(error) error, len(sides))
	defer func() {
		for i, f := range finishes {
			if f == nil {
				continue
			}
			if ferr := f(err); ferr != nil && err == nil {
				err = p.targetErr(sides[i], ferr)
			}
		}
	}()
	for i, sd := range sides {
		run, finish, err := p.begin(ctx, sd, pt, e)
		finishes[i] = finish
		if err != nil || !run {
			return err
		}
	}
	order := verdict.Order(len(sides), p.Rounds)
	for _, clients := range p.Clients {
		for r, o := range order {
			for _, i := range o {
				if err := p.measureSide(ctx, sides[i], r, pt, e, clients, res); err != nil {
					return err
				}
			}
		}
	}
	return nil
}

// begin runs the side's Point hook (prepare) for one engine × size.
func (p *RoundsPlan) begin(ctx context.Context, sd *side, pt workload.Point, e Engine) (run bool, finish func(error) error, err error) {
	if p.Target != nil {
		p.Target(sd.target.Label)
	}
	l := sd.run.Loop
	if l.Point == nil {
		return true, nil, nil
	}
	run, finish, err = l.Point(ctx, pt, e)
	return run, finish, p.targetErr(sd, err)
}

// measureSide quiesces the side's server and measures its share of round
// r (0-based) at one concurrency.
func (p *RoundsPlan) measureSide(ctx context.Context, sd *side, r int, pt workload.Point, e Engine, clients int, res *Result) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	l := sd.run.Loop
	if sd.run.Main != nil {
		line := servermetrics.Quiesce(ctx, sd.run.Main, sd.stop != nil, quiesceLimit)
		p.log("round %d/%d, %d clients, %s: %s", r+1, p.Rounds, clients, sd.label(), line)
	}
	if p.Target != nil {
		p.Target(sd.target.Label)
	}
	l.Round = r + 1
	c, err := measure(ctx, l, pt, e, clients)
	if c != nil {
		res.Cells = append(res.Cells, c)
	}
	return p.targetErr(sd, err)
}

// inTurn runs the rounds with one side up at a time: in each round every
// side in the round's order is started, prepared, measured at every point
// and concurrency, cleaned up and stopped before the next starts.
func (p *RoundsPlan) inTurn(ctx context.Context, sides []*side, res *Result) error {
	for r, o := range verdict.Order(len(sides), p.Rounds) {
		for _, i := range o {
			if err := p.turn(ctx, sides[i], r, res); err != nil {
				return err
			}
		}
	}
	return nil
}

// turn is one side's share of round r, from its start to its stop.
func (p *RoundsPlan) turn(ctx context.Context, sd *side, r int, res *Result) (err error) {
	defer func() {
		if cerr := p.closeSide(sd, err); cerr != nil && err == nil {
			err = cerr
		}
	}()
	if err := ctx.Err(); err != nil {
		return err
	}
	if err := p.openSide(ctx, sd); err != nil {
		return err
	}
	for _, e := range orDefault(p.Engines, Engine{}) {
		for _, scale := range orDefault(p.Scales, 0) {
			pt := workload.Point{Engine: e.Name, EngineOptions: e.Options, Clients: p.Clients[0], Scale: scale}
			if err := p.turnPoint(ctx, sd, r, pt, e, res); err != nil {
				return err
			}
		}
	}
	return nil
}

// turnPoint prepares one engine × size on the side, measures its
// concurrency levels and ends the point.
func (p *RoundsPlan) turnPoint(ctx context.Context, sd *side, r int, pt workload.Point, e Engine, res *Result) (err error) {
	run, finish, err := p.begin(ctx, sd, pt, e)
	if finish != nil {
		defer func() {
			if ferr := finish(err); ferr != nil && err == nil {
				err = p.targetErr(sd, ferr)
			}
		}()
	}
	if err != nil || !run {
		return err
	}
	for _, clients := range p.Clients {
		if err := p.measureSide(ctx, sd, r, pt, e, clients, res); err != nil {
			return err
		}
	}
	return nil
}

// orderWords shows the first rounds' order: "A B; B A; B A; A B".
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

// outcomesOf sets one outcome per target for the side-by-side table and
// chart: its points are the rounds' iterations pooled per point (the
// verdicts compare the rounds themselves).
func outcomesOf(res *Result, sides []*side) {
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
}

func cfgName(setting string) string {
	n, _, _ := strings.Cut(setting, "=")
	return n
}

// Comparison is the --json document's comparison section of a study's
// results (nil with one side), for front ends that write their own
// document (mysqlslap's load).
func Comparison(cfg *Config, res *Result) *jsondoc.Comparison { return comparisonJSON(cfg, res) }

// memAvailable reads MemAvailable from /proc/meminfo, in bytes (false
// when it cannot be read: then the sides are all started at once).
var memAvailable = func() (int64, bool) {
	f, err := os.Open("/proc/meminfo")
	if err != nil {
		return 0, false
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if rest, ok := strings.CutPrefix(sc.Text(), "MemAvailable:"); ok {
			kb, err := strconv.ParseInt(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(rest), "kB")), 10, 64)
			return kb * 1024, err == nil
		}
	}
	return 0, false
}

// sandboxPool is the buffer pool of a sandbox that sets none (the
// sandbox package's small default).
const sandboxPool = 64 << 20

// poolsExceed reports whether the sandbox sides' configured buffer pools
// (innodb_buffer_pool_size: the common options, the target's, the swept
// value; the sandbox default without) together exceed the memory
// available, so that they cannot all be up at once.
func poolsExceed(p RoundsPlan, sides []*side) (need, avail int64, exceed bool) {
	for _, sd := range sides {
		if sd.target.Kind != target.Sandbox {
			continue
		}
		pool := int64(sandboxPool)
		opts := append(append(append([]string(nil), p.Compare.SandboxOptions...), sd.target.ServerOptions...), sd.setting)
		for _, o := range opts {
			name, v, ok := strings.Cut(o, "=")
			if ok && normalize(name) == "innodb_buffer_pool_size" {
				if n, ok := parseSize(v); ok {
					pool = n
				}
			}
		}
		need += pool
	}
	if need == 0 {
		return 0, 0, false
	}
	avail, ok := memAvailable()
	return need, avail, ok && need > avail
}

// parseSize reads a server option's size: bytes, or a number with a K,
// M, G or T suffix.
func parseSize(v string) (int64, bool) {
	v = strings.TrimSpace(v)
	mult := int64(1)
	if v != "" {
		switch v[len(v)-1] {
		case 'k', 'K':
			mult = 1 << 10
		case 'm', 'M':
			mult = 1 << 20
		case 'g', 'G':
			mult = 1 << 30
		case 't', 'T':
			mult = 1 << 40
		}
		if mult > 1 {
			v = v[:len(v)-1]
		}
	}
	n, err := strconv.ParseFloat(v, 64)
	if err != nil || n < 0 {
		return 0, false
	}
	return int64(n * float64(mult)), true
}

// sizeWords prints bytes in the largest whole unit: "2.0G", "520M".
func sizeWords(n int64) string {
	switch {
	case n >= 1<<30:
		return strconv.FormatFloat(float64(n)/(1<<30), 'f', 1, 64) + "G"
	case n >= 1<<20:
		return strconv.FormatInt(n>>20, 10) + "M"
	}
	return strconv.FormatInt(n>>10, 10) + "K"
}

// quiesceLimit bounds the wait for a server to settle before a side is
// measured (servermetrics.Quiesce).
var quiesceLimit = 60 * time.Second
