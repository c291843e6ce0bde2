// Package jsondoc is goslap's published result file (--json): the types of
// the document, its encoder and its decoder. One document describes one
// invocation, whatever the front end (mysqlslap, sysbench, TPC-C): every
// target's benchmarks, the options by their command-line names, and the
// shard the invocation was when it ran as part of a multi-machine run.
//
// The layout is versioned by Schema and Version. Adding a field keeps the
// version (readers ignore fields they do not know); a field that changes
// meaning or disappears raises it. Decode refuses other schemas and
// versions rather than guessing.
package jsondoc

import (
	"encoding/json"
	"fmt"
	"io"
	"time"

	hdrhistogram "github.com/HdrHistogram/hdrhistogram-go"

	"github.com/goslap/goslap/internal/latency"
)

// Schema names the document; Version is the layout this package writes and
// reads.
const (
	Schema  = "goslap-result"
	Version = 2
)

// Document is one invocation's results.
type Document struct {
	Schema        string `json:"schema"`
	SchemaVersion int    `json:"schema_version"`
	Goslap        string `json:"goslap_version"`
	// FrontEnd is the command line that wrote the document ("mysqlslap",
	// "sysbench", ...); Options are spelt as that front end spells them.
	FrontEnd   string    `json:"front_end"`
	StartedAt  time.Time `json:"started_at"`
	FinishedAt time.Time `json:"finished_at"`
	// Seed drove every random choice of the invocation (all targets).
	Seed uint64 `json:"seed"`
	// Shard is this invocation's share of a run split over several
	// machines; nil when it ran alone (the whole run).
	Shard *Shard `json:"shard,omitempty"`
	// Options are the resolved options keyed by their long option names
	// (concurrency, number-of-queries, run-time, ...): numbers as numbers,
	// flags as booleans, durations as text ("1m30s"), repeatable options
	// as lists, an optional-argument option not given as null. Passwords
	// are never included.
	Options map[string]any `json:"options"`
	// Targets are the servers measured, in the order they ran.
	Targets []Target `json:"targets"`
	// Benchmarks of all targets, in the order they ran; each names its
	// target by label.
	Benchmarks []Benchmark `json:"benchmarks"`
	// Error is the message of an invocation that failed or was
	// interrupted; the benchmarks that finished are still listed.
	Error  string  `json:"error,omitempty"` // Merged is present on a document merged from shards (goslap merge).
	Merged *Merged `json:"merged,omitempty"`
	// Comparison is present when the run compared several sides (targets,
	// server-option values): how they ran, per point every side's
	// per-round values and each side's verdict against the first.
	Comparison *Comparison `json:"comparison,omitempty"`
}

// Shard identifies one part of a run split over several invocations
// (package shard; internal/merge combines the parts).
type Shard struct {
	Index int `json:"index"` // 0-based
	Count int `json:"count"`
	// RunID is shared by all shards of one run; PlanHash (see PlanHash)
	// is the same for shards of one plan. Merge refuses a mix of either.
	RunID    string `json:"run_id"`
	PlanHash string `json:"plan_hash"`
	Host     string `json:"host"`
	// ClockOffsetMicros is the server's clock minus this host's, read
	// before the first start.
	ClockOffsetMicros int64 `json:"clock_offset_us"`
	// StartLateMicros is how late this shard reached each shared start
	// (one per measured iteration, 0 when on time).
	StartLateMicros []int64 `json:"start_late_us"`
}

// Target is one measured server.
type Target struct {
	Label string `json:"label"`
	// Kind is "server" (an existing server) or "sandbox" (one goslap
	// started and removed).
	Kind string `json:"kind"`
	// Description says what ran: the sandbox's version and server options,
	// or the server's address.
	Description string  `json:"description,omitempty"`
	Server      *Server `json:"server"`
}

// Server describes what a target's server reported before the load.
type Server struct {
	Version        string `json:"version"`
	VersionComment string `json:"version_comment"`
	// Variables are the settings that explain a result (storage engine
	// defaults, buffer pool, connection limit, durability); a variable the
	// server does not have is left out.
	Variables map[string]string `json:"variables"`
	// Error says why the fields above are missing.
	Error string `json:"error,omitempty"`
}

// Benchmark is one point of a target's matrix (engine × concurrency for
// mysqlslap) over all its iterations.
type Benchmark struct {
	Target   string `json:"target"`   // Target.Label
	Workload string `json:"workload"` // registered workload name
	// CompareMetric is the figure the workload's studies compare on
	// (workload.CompareMetric: tps, qps, rw-qps or tpmc), what goslap
	// compare measures by default.
	CompareMetric string `json:"compare_metric,omitempty"`
	// Round is the benchmark's round (1..Comparison.Rounds) in a run of
	// interleaved rounds (--rounds), absent otherwise.
	Round       int    `json:"round,omitempty"`
	Engine      string `json:"engine"` // "" when no engine was given
	LoadType    string `json:"load_type,omitempty"`
	Concurrency int    `json:"concurrency"`
	// QueriesPerClient is what mysqlslap's block shows as the average
	// number of queries per client.
	QueriesPerClient uint64      `json:"queries_per_client"`
	Iterations       []Iteration `json:"iterations"`
	AvgMillis        int64       `json:"avg_ms"`
	MinMillis        int64       `json:"min_ms"`
	MaxMillis        int64       `json:"max_ms"`
	StdDevMillis     float64     `json:"stddev_ms"`

	// Executed, Errors, ErrorsByCode and Reconnects sum the ops.
	Executed     uint64               `json:"executed"`
	Errors       uint64               `json:"errors"`
	ErrorsByCode []latency.ErrorCount `json:"errors_by_code"`
	Reconnects   uint64               `json:"reconnects"`
	// Seconds is the measured wall time of all iterations (warm-up
	// excluded), QPS Executed / Seconds.
	Seconds float64 `json:"seconds"`
	QPS     float64 `json:"queries_per_second"`

	// Ops are the kinds of measured unit (mysqlslap has one, "query").
	Ops []Op `json:"ops"`

	// Rate is present for paced (--rate) benchmarks.
	Rate *Rate `json:"rate,omitempty"`

	// Point and Figures describe a registered workload's benchmark
	// (--workload, goslap sysbench); mysqlslap's have none.
	Point   *Point   `json:"point,omitempty"`
	Figures *Figures `json:"figures,omitempty"`
	// Sections are the workloads' own parts of the benchmark, each a JSON
	// object under its section's name ("oltp": the dialect, distribution
	// and tables; "tpcc": tpcc-mysql's report), written after Figures in
	// name order (section.go). This package knows none of them: a workload
	// writes and reads its own (internal/workload/report).
	Sections map[string]json.RawMessage `json:"-"`

	// Server is what the server and its host did over the measured
	// iterations (absent with --skip-server-metrics); Intervals every
	// iteration's report intervals (interval.go).
	Server    *ServerFigures `json:"server,omitempty"`
	Intervals []Interval     `json:"intervals,omitempty"`
}

// Iteration is one measured phase: absolute wall-clock bounds (warm-up
// excluded) and mysqlslap's whole-millisecond time of it.
type Iteration struct {
	Start  time.Time `json:"start"`
	End    time.Time `json:"end"`
	Millis int64     `json:"ms"`
}

// Op is the measurements of one kind of measured unit.
type Op struct {
	Name         string               `json:"name"`
	Executed     uint64               `json:"executed"`
	Errors       uint64               `json:"errors"`
	ErrorsByCode []latency.ErrorCount `json:"errors_by_code"`
	Reconnects   uint64               `json:"reconnects"`
	// Latency is the service time (sending to the last result read).
	Latency latency.Percentiles `json:"latency"`
	// Histogram is Latency's HDR histogram, V2 compressed and base64
	// encoded, values in µs (see Op.ServiceHistogram).
	Histogram string `json:"histogram"`
	// FromSchedule is present for paced benchmarks: latency measured
	// from each unit's scheduled start (coordinated omission corrected).
	FromSchedule *Scheduled `json:"from_schedule,omitempty"`
}

// Scheduled is the latency of paced units from their scheduled start.
type Scheduled struct {
	Latency   latency.Percentiles `json:"latency"`
	Histogram string              `json:"histogram"`
}

// Rate is the open-loop part of a paced benchmark.
type Rate struct {
	Target      float64 `json:"target_qps"`
	Achieved    float64 `json:"achieved_qps"`
	Kept        bool    `json:"kept"`
	MaxLagMicro int64   `json:"max_start_lag_us"`
}

// New returns an empty document of the current schema for frontEnd.
func New(frontEnd, goslapVersion string, startedAt time.Time, seed uint64) *Document {
	return &Document{
		Schema: Schema, SchemaVersion: Version, Goslap: goslapVersion, FrontEnd: frontEnd,
		StartedAt: startedAt.UTC(), Seed: seed,
		Options: map[string]any{}, Targets: []Target{}, Benchmarks: []Benchmark{},
	}
}

// Encode writes d as indented JSON followed by a newline.
func Encode(w io.Writer, d *Document) error {
	data, err := json.MarshalIndent(d, "", "  ")
	if err != nil {
		return err
	}
	_, err = w.Write(append(data, '\n'))
	return err
}

// Decode reads one document. It refuses anything but this package's
// schema and version, so a reader never misreads a field whose meaning
// changed; fields it does not know are ignored.
func Decode(r io.Reader) (*Document, error) {
	var d Document
	if err := json.NewDecoder(r).Decode(&d); err != nil {
		return nil, fmt.Errorf("reading the result document: %w", err)
	}
	if d.Schema != Schema {
		return nil, fmt.Errorf("not a goslap result document (schema %q, want %q)", d.Schema, Schema)
	}
	if d.SchemaVersion != Version {
		return nil, fmt.Errorf("result document schema version %d: this goslap reads version %d", d.SchemaVersion, Version)
	}
	return &d, nil
}

// ServiceHistogram decodes op's service-time histogram.
func (op *Op) ServiceHistogram() (*hdrhistogram.Histogram, error) {
	return latency.Decode(op.Histogram)
}

// Comparison is a run's comparison of its sides.
type Comparison struct {
	// Mode says how the sides ran: "sequential" (each target to the end
	// in turn, once) or the interleaved rounds' description.
	Mode   string `json:"mode"`
	Rounds int    `json:"rounds"`
	// Baseline is the side every other is compared with.
	Baseline string `json:"baseline"`
	// Method is the statistics: "paired by round; geometric mean of the
	// ratios with a 95 % Student t interval on their logs".
	Method string            `json:"method"`
	Points []ComparisonPoint `json:"points"`
}

// ComparisonPoint is one engine × size × concurrency point.
type ComparisonPoint struct {
	Engine  string           `json:"engine"`
	Scale   int64            `json:"scale,omitempty"`
	Clients int              `json:"concurrency"`
	Metrics []ComparedMetric `json:"metrics"`
	// Hosts are each side's host CPU over its rounds, where sampled.
	Hosts []SideHost `json:"hosts,omitempty"`
}

// ComparedMetric is one metric's values and verdicts at a point.
type ComparedMetric struct {
	// Metric is tps, qps, rw-qps, tpmc or pNN (latency in ms).
	Metric         string        `json:"metric"`
	HigherIsBetter bool          `json:"higher_is_better"`
	Sides          []RoundValues `json:"sides"`
	Verdicts       []Verdict     `json:"verdicts"`
}

// RoundValues are one side's values of a metric, in round order.
type RoundValues struct {
	Target       string    `json:"target"`
	ServerOption string    `json:"server_option,omitempty"`
	Values       []float64 `json:"values"`
}

// Verdict is one side against the baseline, paired by round.
type Verdict struct {
	Target       string `json:"target"`
	ServerOption string `json:"server_option,omitempty"`
	// Ratio is the geometric mean of the per-round ratios side/baseline,
	// Low and High its 95 % interval (equal to Ratio with one round),
	// Detectable the smallest relative difference the rounds could have
	// detected (0 with one round).
	Ratio      float64 `json:"ratio"`
	Median     float64 `json:"median_ratio"`
	Low        float64 `json:"ci_low"`
	High       float64 `json:"ci_high"`
	Detectable float64 `json:"detectable"`
	// Outcome is faster, slower, no-difference or no-verdict; Text the
	// verdict in words; Error why the rounds could not be compared.
	Outcome string `json:"outcome"`
	Text    string `json:"text"`
	Error   string `json:"error,omitempty"`
	// Reasons are the server figures per transaction that differ most
	// between the side and the baseline, where both were sampled.
	Reasons []Reason `json:"reasons,omitempty"`
}
