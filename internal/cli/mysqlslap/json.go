package mysqlslap

import (
	"bytes"
	"io"
	"maps"
	"os"
	"regexp"
	"time"

	"github.com/goslap/goslap/internal/getopt"
	"github.com/goslap/goslap/internal/latency"
	"github.com/goslap/goslap/internal/mysqlconn"
	"github.com/goslap/goslap/internal/results/jsondoc"
	"github.com/goslap/goslap/internal/results/slapreport"
	"github.com/goslap/goslap/internal/target"
	"github.com/goslap/goslap/internal/workload"
)

// frontEnd and workloadName are how the --json document names this
// command line and the mysqlslap workload.
const (
	frontEnd     = slapreport.FrontEnd
	workloadName = slapreport.Workload
	// queryOp is mysqlslap's one kind of measured unit: a statement.
	queryOp = slapreport.QueryOp
)

// RunRecord collects what the --json document reports over one whole
// invocation: every target's server and results. Run adds one entry per
// call (per target); Main writes the document once, after all targets, so
// a comparison is one document rather than one per target.
type RunRecord struct {
	StartedAt time.Time
	// Seed is the seed of every target's run, so that all targets send
	// the same statements.
	Seed    uint64
	Targets []TargetRecord
	// Rounds and Comparison are a run of rounds' (rounds.go): its number
	// of rounds and its verdicts; 0 and nil without.
	Rounds     int
	Comparison *jsondoc.Comparison
}

// TargetRecord is one target's share of a RunRecord.
type TargetRecord struct {
	Label, Kind, Description string
	Server                   *jsondoc.Server
	Results                  []BenchmarkResult
	// Rounds are the round of each result in a run of rounds, nil without.
	Rounds []int
}

// NewRunRecord starts the record of an invocation of c (its seed).
func NewRunRecord(c *Config) *RunRecord {
	return &RunRecord{StartedAt: time.Now(), Seed: c.Limits.Seed}
}

// add records one target's run; server is nil when it never connected.
func (rec *RunRecord) add(label string, server *jsondoc.Server, results []BenchmarkResult) {
	rec.addRounds(label, server, results, nil)
}

// addRounds records one target's run of rounds (rounds: each result's);
// a target started again in a later round (in turn) adds to its record.
func (rec *RunRecord) addRounds(label string, server *jsondoc.Server, results []BenchmarkResult, rounds []int) {
	for i := range rec.Targets {
		if tr := &rec.Targets[i]; tr.Label == label && rounds != nil {
			tr.Results, tr.Rounds = append(tr.Results, results...), append(tr.Rounds, rounds...)
			if tr.Server.Error != "" && server != nil {
				tr.Server = server
			}
			return
		}
	}
	if server == nil {
		server = serverInfo(nil)
	}
	rec.Targets = append(rec.Targets, TargetRecord{Label: label, Kind: target.Server.String(), Server: server, Results: results, Rounds: rounds})
}

// describe names the kind of each recorded target and what ran there,
// from the comparison's targets and outcomes (a failed target has none).
func (rec *RunRecord) describe(targets []target.Target, outcomes []target.Outcome) {
	for i := range rec.Targets {
		tr := &rec.Targets[i]
		for _, t := range targets {
			if t.Label == tr.Label {
				tr.Kind, tr.Description = t.Kind.String(), t.String()
			}
		}
		for _, oc := range outcomes {
			if oc.Target.Label == tr.Label {
				tr.Description = oc.Description
			}
		}
	}
}

// serverInfo reads the version and the variables of the server on c
// (jsondoc.ReadServer); nil c is a target that never connected.
func serverInfo(c *mysqlconn.Conn) *jsondoc.Server {
	if c == nil {
		return &jsondoc.Server{Variables: map[string]string{}, Error: "not connected"}
	}
	return jsondoc.ReadServer(c.QueryStrings, mysqlconn.ErrorText)
}

// document assembles the invocation's document with the options it
// records; runErr is the error that ended it (nil on success).
func (rec *RunRecord) document(options map[string]any, runErr error) (*jsondoc.Document, error) {
	doc := jsondoc.New(frontEnd, Version, rec.StartedAt, rec.Seed)
	doc.FinishedAt = time.Now().UTC()
	doc.Options = options
	for _, tr := range rec.Targets {
		doc.Targets = append(doc.Targets, jsondoc.Target{Label: tr.Label, Kind: tr.Kind, Description: tr.Description, Server: tr.Server})
		for i := range tr.Results {
			b, err := jsonBenchmark(tr.Label, &tr.Results[i])
			if err != nil {
				return nil, Exitf(1, "encoding the latency histogram: %v", err)
			}
			if i < len(tr.Rounds) {
				b.Round = tr.Rounds[i]
			}
			doc.Benchmarks = append(doc.Benchmarks, b)
		}
	}
	if runErr != nil {
		doc.Error = runErr.Error()
	}
	if rec.Rounds > 1 {
		doc.Options["rounds"] = rec.Rounds
		doc.Comparison = rec.Comparison
	}
	return doc, nil
}

// jsonBenchmark converts one result of target.
func jsonBenchmark(target string, r *BenchmarkResult) (jsondoc.Benchmark, error) {
	errs := r.ErrorsByCode
	if errs == nil {
		errs = []latency.ErrorCount{}
	}
	b := jsondoc.Benchmark{
		// The script's own answer, as its studies use it (it needs no state).
		Target: target, Workload: workloadName, CompareMetric: workload.CompareMetric(scriptSteps{}), LoadType: r.LoadType,
		Concurrency: r.Concurrency, QueriesPerClient: r.QueriesPerClient,
		Iterations: make([]jsondoc.Iteration, len(r.IterationMillis)),
		AvgMillis:  r.AvgMillis(), MinMillis: r.MinMillis(), MaxMillis: r.MaxMillis(), StdDevMillis: r.StdDevMillis,
		Executed: r.Executed, Errors: r.Errors, ErrorsByCode: errs, Reconnects: r.Reconnects,
		Seconds: r.Seconds, QPS: r.QPS,
	}
	if r.HasEngine {
		b.Engine = r.Engine
	}
	for i, ms := range r.IterationMillis {
		b.Iterations[i].Millis = ms
		if i < len(r.IterationBounds) {
			b.Iterations[i].Start, b.Iterations[i].End = r.IterationBounds[i].Start.UTC(), r.IterationBounds[i].End.UTC()
		}
	}
	op := jsondoc.Op{Name: queryOp, Executed: r.Executed, Errors: r.Errors, ErrorsByCode: errs, Reconnects: r.Reconnects, Latency: r.Latency}
	h := r.Histogram
	if h == nil {
		h = latency.NewHistogram()
	}
	var err error
	if op.Histogram, err = latency.Encode(h); err != nil {
		return b, err
	}
	if r.Paced {
		b.Rate = &jsondoc.Rate{Target: r.TargetRate, Achieved: r.QPS, Kept: r.RateKept, MaxLagMicro: int64(r.MaxLag / time.Microsecond)}
		op.FromSchedule = &jsondoc.Scheduled{Latency: r.Corrected}
		if r.CorrectedHistogram != nil {
			if op.FromSchedule.Histogram, err = latency.Encode(r.CorrectedHistogram); err != nil {
				return b, err
			}
		}
	}
	b.Ops = []jsondoc.Op{op}
	b.Server, b.Intervals = r.Server, r.Intervals
	return b, nil
}

var targetPassword = regexp.MustCompile(`((?:^|,)password=)[^,]*`)

// unrecordedOptions are left out of the document's options: actions
// (help, version), secrets, and options goslap refuses whenever given.
var unrecordedOptions = map[string]bool{
	"help": true, "version": true, "debug": true, "password": true,
	"password1": true, "password2": true, "password3": true,
}

// optionValue is an option whose value is not just its bound variable:
// options that keep their value elsewhere (VarNone), optional-argument
// options whose "not given" differs from "", and values to mask.
var optionValue = map[string]func(o *Options) any{
	"verbose":  func(o *Options) any { return o.Verbose },
	"protocol": func(o *Options) any { return o.Protocol },
	"csv":      func(o *Options) any { return optionalFile(o.CSVSet, o.CSV) },
	"json":     func(o *Options) any { return optionalFile(o.Ext.JSONSet, o.Ext.JSON) },
	"run-time": func(o *Options) any { return o.Ext.RunTime.String() },
	"warmup-time": func(o *Options) any {
		return o.Ext.WarmupTime.String()
	},
	"rate": func(o *Options) any { return o.Ext.Rate },
	"server-pid": func(o *Options) any {
		if o.Ext.ServerPID == 0 {
			return nil
		}
		return o.Ext.ServerPID
	},
	"ignore-errors": func(o *Options) any { return o.Ext.IgnoreErrors },
	"seed": func(o *Options) any {
		if !o.Ext.SeedSet {
			return nil // the seed used is the document's seed
		}
		return o.Ext.Seed
	},
	"sandbox": func(o *Options) any {
		if !o.Ext.Sandbox.SandboxSet {
			return nil
		}
		return o.Ext.Sandbox.Sandbox
	},
	"sandbox-option": func(o *Options) any { return nonNil(o.Ext.Sandbox.ServerOptions) },
	// null: mysqlconn's measured threshold (see --help).
	"thread-per-client-below": func(o *Options) any {
		if !o.Ext.ThreadBelowSet {
			return nil
		}
		return o.Ext.ThreadBelow
	},
	// Only mysqlslap's runs write this document (--json is refused with
	// another workload), so its options are the workload's.
	"workload": func(o *Options) any {
		if o.workload.Name == "" {
			return "mysqlslap"
		}
		return o.workload.Name
	},
	"sweep-server-option": func(o *Options) any { return o.workload.Sweep },
	"target": func(o *Options) any {
		// --target=LABEL:server:...,password=P carries passwords.
		ts := []string{}
		for _, s := range o.Ext.Sandbox.Targets {
			ts = append(ts, targetPassword.ReplaceAllString(s, "${1}*****"))
		}
		return ts
	},
}

// optionalFile is an optional-argument file option: null when not given,
// "-" for stdout, else the file name.
func optionalFile(set bool, name string) any {
	switch {
	case !set:
		return nil
	case name == "":
		return "-"
	}
	return name
}

func nonNil(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}

// optionValues is a copy of o's record (recordOptions): the document's
// options as parsing left them; empty for Options ParseCommandLine did
// not make.
func optionValues(o *Options) map[string]any {
	if o.record == nil {
		return map[string]any{}
	}
	return maps.Clone(o.record)
}

// recordOptions lists o by option name (the document's options), read
// through table, the option table that filled o (ParseCommandLine calls
// it when parsing ends). Options whose variable is a field of Options
// (optSpec.Recorded, said where the table binds them) show it; the others
// come from optionValue. Keying by the option table keeps the published
// names those the user types, whatever the Go fields are called.
func recordOptions(table []*optSpec, o *Options) map[string]any {
	out := map[string]any{}
	for _, spec := range table {
		// As --help spells it: default-auth, not the table's default_auth.
		name := getopt.HelpName(spec.Name)
		if unrecordedOptions[name] {
			continue
		}
		if f, ok := optionValue[name]; ok {
			out[name] = f(o)
			continue
		}
		if !spec.Recorded {
			// Bound to scratch space: an option goslap refuses whenever
			// it is given has no value to report.
			continue
		}
		switch {
		case spec.Bool != nil:
			out[name] = *spec.Bool
		case spec.Uint32 != nil:
			out[name] = *spec.Uint32
		case spec.Uint64 != nil:
			out[name] = *spec.Uint64
		case spec.String != nil:
			out[name] = *spec.String
		}
	}
	return out
}

// writeJSON writes the invocation's document to --json's destination.
func writeJSON(out Outputs, stdout io.Writer, doc *jsondoc.Document) error {
	var b bytes.Buffer
	if err := jsondoc.Encode(&b, doc); err != nil {
		return Exitf(1, "writing the JSON document: %v", err)
	}
	var err error
	if out.jsonToStdout() {
		if f, ok := stdout.(interface{ Flush() error }); ok {
			_ = f.Flush()
		}
		_, err = stdout.Write(b.Bytes())
	} else {
		err = os.WriteFile(out.JSONFile, b.Bytes(), 0o666)
	}
	if err != nil {
		return Exitf(1, "writing the JSON document: %v", err)
	}
	return nil
}
