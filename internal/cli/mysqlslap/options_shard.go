package mysqlslap

// goslap's options for runs split over several machines (package shard):
// --shard, --start-at, --late-start, --run-id, --shard-wait. Like every goslap option
// they match by full name only; none is a prefix of a mysqlslap option or
// extends one (shard/shared-memory-base-name, start-at, late-start and
// run-id share no prefix with them). --skip-NAME turns each off.

import (
	"bytes"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"time"

	"github.com/goslap/goslap/internal/getopt"
	"github.com/goslap/goslap/internal/merge"
	"github.com/goslap/goslap/internal/orchestrator"
	"github.com/goslap/goslap/internal/results/jsondoc"
	"github.com/goslap/goslap/internal/shard"
	"github.com/goslap/goslap/sqlgen"
)

// ShardOptions are the options of a shard of a split run, as given.
type ShardOptions struct {
	Shard     string // --shard=I/N|auto/N
	StartAt   string // --start-at=TIME|now+D|barrier[+D]
	LateStart string // --late-start=run|fail
	RunID     string // --run-id=ID
	Wait      string // --shard-wait=DURATION
}

// Given reports any of them given.
func (s *ShardOptions) Given() bool {
	return s.Shard != "" || s.StartAt != "" || s.LateStart != "" || s.RunID != "" || s.Wait != ""
}

// Document markers around a shard's document on stdout (--json=-), so it
// can be cut out of a pod's log mixed with other output (goslap merge
// does).
const (
	shardDocBegin = merge.DocBegin
	shardDocEnd   = merge.DocEnd
)

func shardOptions(s *ShardOptions) []*getopt.Option {
	str := func(name string, p *string, help string) *getopt.Option {
		return &getopt.Option{Name: name, Arg: getopt.RequiredArg, Var: getopt.VarString, String: p, Help: help,
			Off: func() error { *p = ""; return nil }}
	}
	return []*getopt.Option{
		str("shard", &s.Shard, "I/N: run shard I (0-based) of a benchmark split over N processes: "+
			"clients, --number-of-queries and --rate split into contiguous segments; auto/N takes I from "+
			shard.IndexEnv+" (a Kubernetes Indexed Job). Shard 0 prepares and cleans up. Merge the --json documents with goslap merge."),
		str("start-at", &s.StartAt, "With --shard: start the measured load at TIME (RFC 3339, fractions allowed), "+
			"now+DURATION, or barrier[+DURATION]: when the last shard has written itself into a table on the server "+
			"(server time, plus DURATION, default 1s). Later iterations always meet at the barrier."),
		str("late-start", &s.LateStart, "run (default): a shard that reaches the start late starts at once, recording how late; "+
			"fail: more than 1s late is an error."),
		str("shard-wait", &s.Wait, "With --shard: how long a shard waits for the others (data prepared, a start, "+
			"the end before shard 0 cleans up) before it gives up with an error. Default 10m."),
		str("run-id", &s.RunID, "With --shard: the name shared by all shards of one run (default: a hash of the plan and --start-at)."),
	}
}

// applySharding makes cfg one shard of a split run; nil without --shard.
func applySharding(o *Options, cfg *orchestrator.Config) error {
	if o.Ext.Shard.Shard == "" {
		return checkShardGiven(o)
	}
	base := shardBase(o, cfg)
	st, err := parseStarter(o, base.Shard.PlanHash, cfg.Observer.Log)
	if err != nil {
		return err
	}
	cfg.Shard = &orchestrator.Sharding{Starter: st}
	return nil
}

// checkShardOptions is Validate's shard step for a mysqlslap run: the
// shard options need --shard, and a split run runs against one server it
// can print nothing for.
func checkShardOptions(o *Options) error {
	if err := checkShardGiven(o); err != nil || o.Ext.Shard.Shard == "" {
		return err
	}
	switch {
	case o.Ext.Sandbox.Active():
		return Exitf(1, "--shard runs against one server: --sandbox and --target cannot be split over shards")
	case o.OnlyPrint:
		return Exitf(1, "--only-print runs nothing: it cannot be split over shards")
	}
	return nil
}

// shardStarter is this shard's start and coordination (nil without
// --shard): its options parsed, and each --concurrency value checked
// against the shard count. The run id's default derives from the plan
// hash, which the seed every shard derives alike (runSeed) is part of.
func shardStarter(o *Options, p *sqlgen.Plan, env Env) (*shard.Starter, error) {
	if o.Ext.Shard.Shard == "" {
		return nil, nil
	}
	st, err := parseStarter(o, shardSkeleton(optionValues(o), runSeed(o)).Shard.PlanHash, func(format string, args ...any) {
		fmt.Fprintf(env.Stderr, ProgName+": "+format+"\n", args...)
	})
	if err != nil {
		return nil, err
	}
	for _, c := range p.Concurrency {
		if err := st.Spec.Check(c); err != nil {
			return nil, exitWith(err)
		}
	}
	return st, nil
}

// checkShardGiven refuses the shard options without --shard.
func checkShardGiven(o *Options) error {
	if o.Ext.Shard.Given() && o.Ext.Shard.Shard == "" {
		return Exitf(1, "--start-at, --late-start, --run-id and --shard-wait need --shard=I/N")
	}
	return nil
}

// parseStarter reads the shard options of a run whose plan hash is
// planHash (the default run id is derived from it and --start-at).
func parseStarter(o *Options, planHash string, log func(string, ...any)) (*shard.Starter, error) {
	so := &o.Ext.Shard
	spec, err := shard.Parse(so.Shard, os.Getenv)
	if err != nil {
		return nil, exitWith(err)
	}
	at := shard.StartAt{Barrier: true, Delay: shard.DefaultBarrierDelay, Text: "barrier"}
	if so.StartAt != "" {
		if at, err = shard.ParseStartAt(so.StartAt, time.Now()); err != nil {
			return nil, exitWith(err)
		}
	}
	fail := false
	if so.LateStart != "" {
		if fail, err = shard.ParseLateStart(so.LateStart); err != nil {
			return nil, exitWith(err)
		}
	}
	var wait time.Duration
	if so.Wait != "" {
		if wait, err = time.ParseDuration(so.Wait); err != nil || wait <= 0 {
			return nil, Exitf(1, "--shard-wait=%s: want a duration such as 30s or 10m", so.Wait)
		}
	}
	runID := so.RunID
	if runID == "" {
		sum := sha256.Sum256([]byte(planHash + "\x00" + at.Text))
		runID = hex.EncodeToString(sum[:8])
	}
	if err := shard.CheckRunID(runID); err != nil {
		return nil, exitWith(err)
	}
	return &shard.Starter{Spec: spec, At: at, LateFail: fail, RunID: runID, Timeout: wait, Log: log}, nil
}

// shardSeed is the seed of a shard run without --seed: derived from the
// options every shard shares (all but the shard options), so every shard
// draws the streams one machine would.
func shardSeed(o *Options) uint64 {
	plain := map[string]any{}
	for k, v := range optionValues(o) {
		plain[k] = v
	}
	for _, k := range jsondoc.ShardOptions {
		delete(plain, k)
	}
	data, _ := json.Marshal(plain)
	sum := sha256.Sum256(append(data, o.Ext.Shard.StartAt...))
	return binary.BigEndian.Uint64(sum[:8])
}

// shardBase is the document skeleton of a shard (front end, options,
// seed, plan hash). Without --seed every shard must still draw the same
// streams: the seed is then derived from the options, the same on all.
func shardBase(o *Options, cfg *orchestrator.Config) *jsondoc.Document {
	if !o.Ext.SeedSet {
		cfg.Common.Seed = shardSeed(o)
	}
	return shardSkeleton(optionValues(o), cfg.Common.Seed)
}

// shardSkeleton is a shard document with front end, options and seed,
// and the plan hash they make.
func shardSkeleton(options map[string]any, seed uint64) *jsondoc.Document {
	d := jsondoc.New(frontEnd, Version, time.Now(), seed)
	d.Options = options
	d.Shard = &jsondoc.Shard{PlanHash: jsondoc.PlanHash(d)}
	return d
}

// writeShardDocument writes the shard's document to --json's destination
// (between markers on stdout).
func writeShardDocument(c *Config, stdout io.Writer, cfg *orchestrator.Config, res *orchestrator.Result, runErr error) error {
	// applySharding has settled the seed (shardBase).
	doc, err := orchestrator.ShardDocument(shardSkeleton(c.options(), cfg.Common.Seed), cfg, res, runErr)
	if err != nil {
		return exitWith(err)
	}
	return writeShardJSON(c.Outputs, stdout, doc)
}

// writeShardJSON writes a shard's document to --json's destination, on
// stdout between markers.
func writeShardJSON(out Outputs, stdout io.Writer, doc *jsondoc.Document) error {
	if !out.jsonToStdout() {
		return writeJSON(out, stdout, doc)
	}
	var b bytes.Buffer
	b.WriteString(shardDocBegin + "\n")
	if err := jsondoc.Encode(&b, doc); err != nil {
		return Exitf(1, "writing the JSON document: %v", err)
	}
	b.WriteString(shardDocEnd + "\n")
	if _, err := stdout.Write(b.Bytes()); err != nil {
		return Exitf(1, "writing the JSON document: %v", err)
	}
	return nil
}

// shardReportOut is where a shard's text report goes: stderr when the
// document goes to stdout.
func shardReportOut(o *Options, env Env) Env {
	if o.Ext.Shard.Shard != "" && o.Ext.JSONSet && JSONToStdout(o) {
		env.Stdout = env.Stderr
	}
	return env
}
