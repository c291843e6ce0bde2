package jsondoc

import (
	"fmt"
	"math"
	"sort"
	"time"

	"github.com/goslap/goslap/internal/latency"
	"github.com/goslap/goslap/internal/results"
)

// Point is where in a study's matrix a benchmark ran, beyond its engine
// and concurrency.
type Point struct {
	// EngineOptions are the table options written after the engine
	// (-e 'innodb:ROW_FORMAT=COMPRESSED KEY_BLOCK_SIZE=8').
	EngineOptions string `json:"engine_options,omitempty"`
	// Scale is the swept data size (rows per table, warehouses), 0 for the
	// workload's own; ScaleName names it ("table size", "warehouses").
	Scale     int64  `json:"scale,omitempty"`
	ScaleName string `json:"scale_name,omitempty"`
	// ServerOption is the swept server option as NAME=VALUE.
	ServerOption string `json:"server_option,omitempty"`
}

// Figures are a registered workload's counts over all iterations: a
// transaction is one measured unit (an event in sysbench's words, one of
// TPC-C's five transactions), its statements tallied by kind.
type Figures struct {
	Transactions uint64  `json:"transactions"`
	TPS          float64 `json:"transactions_per_second"`
	Statements   uint64  `json:"statements"` // reads + writes + other
	Reads        uint64  `json:"reads"`
	Writes       uint64  `json:"writes"`
	Other        uint64  `json:"other"`
	Retries      uint64  `json:"retries"`   // units restarted after an ignored error
	Rollbacks    uint64  `json:"rollbacks"` // deliberate (TPC-C's 1 % New-Orders)
	// Latency is per transaction, all kinds together; Histogram its HDR
	// histogram (µs, as Op.Histogram).
	Latency   latency.Percentiles `json:"latency"`
	Histogram string              `json:"histogram"`
	// StoppedBy is what ended each iteration: "events", "time",
	// "interrupt" or "error".
	StoppedBy []string `json:"stopped_by"`
}

// FromBenchmarks converts the iterations of one point of a registered
// workload's matrix (same target, engine, size and concurrency) into a
// document benchmark. Executed counts the workload's events (the sum of
// its ops, what an event limit counts and merge adds up), QPS is events
// per second; the statements are in Figures. Point, Rate and Sections
// are the caller's to fill.
func FromBenchmarks(bs []*results.Benchmark, engine string, clients int) (Benchmark, error) {
	b := Benchmark{Engine: engine, Concurrency: clients, Iterations: []Iteration{}, ErrorsByCode: []latency.ErrorCount{}, Ops: []Op{}}
	if len(bs) == 0 {
		return b, nil
	}
	b.Target, b.Workload = bs[0].Target, bs[0].Workload
	fig := &Figures{StoppedBy: []string{}}
	var elapsed time.Duration
	var ms []float64
	for _, r := range bs {
		m := r.Elapsed.Milliseconds()
		b.Iterations = append(b.Iterations, Iteration{Start: r.Start.UTC(), End: r.End.UTC(), Millis: m})
		ms = append(ms, float64(m))
		elapsed += r.Elapsed
		fig.Transactions += r.Events
		fig.Reads += r.Tally.Reads
		fig.Writes += r.Tally.Writes
		fig.Other += r.Tally.Other
		fig.Retries += r.Tally.Retries
		fig.Rollbacks += r.Tally.Rollbacks
		fig.StoppedBy = append(fig.StoppedBy, r.StoppedBy)
	}
	fig.Statements = fig.Reads + fig.Writes + fig.Other
	b.AvgMillis, b.MinMillis, b.MaxMillis, b.StdDevMillis = millisStats(ms)
	b.Seconds = elapsed.Seconds()
	b.Executed = fig.Transactions
	if b.Seconds > 0 {
		fig.TPS = float64(fig.Transactions) / b.Seconds
		b.QPS = fig.TPS
	}
	if clients > 0 {
		b.QueriesPerClient = b.Executed / uint64(len(bs)) / uint64(clients)
	}
	all := latency.NewRecorder(false)
	for i, op := range bs[0].Ops {
		rec := latency.NewRecorder(op.Recorder != nil && op.Intended != nil)
		for _, r := range bs {
			if i < len(r.Ops) && r.Ops[i].Recorder != nil {
				rec.Merge(r.Ops[i].Recorder)
			}
		}
		all.Merge(rec)
		o, err := docOp(op.Name, rec)
		if err != nil {
			return b, err
		}
		b.Ops = append(b.Ops, o)
	}
	b.ErrorsByCode = all.SortedErrors()
	for _, e := range b.ErrorsByCode {
		b.Errors += e.Count
	}
	b.Reconnects = all.Reconnects
	fig.Latency = latency.Figures(all.Service)
	var err error
	if fig.Histogram, err = latency.Encode(all.Service); err != nil {
		return b, fmt.Errorf("encoding the latency histogram: %w", err)
	}
	b.Figures = fig
	return b, nil
}

func docOp(name string, rec *latency.Recorder) (Op, error) {
	o := Op{Name: name, Executed: uint64(rec.Service.TotalCount()), ErrorsByCode: rec.SortedErrors(),
		Reconnects: rec.Reconnects, Latency: latency.Figures(rec.Service)}
	for _, e := range o.ErrorsByCode {
		o.Errors += e.Count
	}
	var err error
	if o.Histogram, err = latency.Encode(rec.Service); err != nil {
		return o, fmt.Errorf("encoding the latency histogram: %w", err)
	}
	if rec.Intended != nil {
		o.FromSchedule = &Scheduled{Latency: latency.Figures(rec.Intended)}
		if o.FromSchedule.Histogram, err = latency.Encode(rec.Intended); err != nil {
			return o, fmt.Errorf("encoding the latency histogram: %w", err)
		}
	}
	return o, nil
}

// millisStats are the average, minimum, maximum and (population)
// standard deviation of the iterations' milliseconds, as mysqlslap's
// block reports them.
func millisStats(ms []float64) (avg, lo, hi int64, sd float64) {
	if len(ms) == 0 {
		return 0, 0, 0, 0
	}
	s := append([]float64(nil), ms...)
	sort.Float64s(s)
	var sum float64
	for _, v := range s {
		sum += v
	}
	mean := sum / float64(len(s))
	var sq float64
	for _, v := range s {
		sq += (v - mean) * (v - mean)
	}
	return int64(mean), int64(s[0]), int64(s[len(s)-1]), math.Sqrt(sq / float64(len(s)))
}

// ServerVariables are the settings Server.Variables records.
var ServerVariables = []string{
	"default_storage_engine", "default_tmp_storage_engine", "innodb_buffer_pool_size", "max_connections",
	"innodb_flush_log_at_trx_commit", "innodb_log_file_size", "innodb_flush_method", "sync_binlog", "log_bin",
	"transaction_isolation", "tx_isolation", "thread_handling", "version_compile_machine",
}

// ReadServer fills a Server through query, which returns the first
// column of a statement's rows; errText words a failure.
func ReadServer(query func(sql string) ([]string, error), errText func(error) string) *Server {
	si := &Server{Variables: map[string]string{}}
	one := func(expr string) (string, error) {
		v, err := query("SELECT " + expr)
		if err != nil || len(v) == 0 {
			return "", err
		}
		return v[0], nil
	}
	var err error
	if si.Version, err = one("@@version"); err != nil {
		si.Error = errText(err)
		return si
	}
	si.VersionComment, _ = one("@@version_comment")
	for _, name := range ServerVariables {
		if v, err := one("@@global." + name); err == nil {
			si.Variables[name] = v
		}
	}
	return si
}
