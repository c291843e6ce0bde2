package slap

import (
	"encoding/json"
	"io"
	"os"
	"reflect"
	"regexp"
	"time"

	"github.com/goslap/goslap/internal/mysqlconn"

	"github.com/goslap/goslap/internal/latency"
)

// JSONSchema names the layout of goslap's --json document; the number
// changes whenever a field changes meaning or disappears (adding fields
// keeps it).
const (
	JSONSchema        = "goslap-result"
	JSONSchemaVersion = 1
)

// JSONDocument is the --json output: one per run.
type JSONDocument struct {
	Schema        string          `json:"schema"`
	SchemaVersion int             `json:"schema_version"`
	Goslap        string          `json:"goslap_version"`
	StartedAt     time.Time       `json:"started_at"`
	FinishedAt    time.Time       `json:"finished_at"`
	Seed          uint64          `json:"seed"`
	Options       map[string]any  `json:"options"`
	Server        *ServerInfo     `json:"server"`
	Benchmarks    []JSONBenchmark `json:"benchmarks"`
	// Error is the message of a run that failed or was interrupted (its
	// finished benchmarks are still listed).
	Error string `json:"error,omitempty"`
}

// ServerInfo describes the server a run measured.
type ServerInfo struct {
	Version        string `json:"version"`
	VersionComment string `json:"version_comment"`
	// Variables are the settings that explain a result (storage engine
	// defaults, buffer pool, connection limit, durability); a variable the
	// server does not have is left out.
	Variables map[string]string `json:"variables"`
	Error     string            `json:"error,omitempty"`
}

// serverVariables are read into ServerInfo.Variables.
var serverVariables = []string{
	"default_storage_engine", "default_tmp_storage_engine", "innodb_buffer_pool_size", "max_connections",
	"innodb_flush_log_at_trx_commit", "innodb_log_file_size", "innodb_flush_method", "sync_binlog", "log_bin",
	"transaction_isolation", "tx_isolation", "thread_handling", "version_compile_machine",
}

// JSONBenchmark is one engine × concurrency result.
type JSONBenchmark struct {
	Engine           string  `json:"engine"` // "" when no engine was given
	LoadType         string  `json:"load_type"`
	Concurrency      int     `json:"concurrency"`
	QueriesPerClient uint64  `json:"queries_per_client"` // what mysqlslap's block shows
	IterationsMillis []int64 `json:"iterations_ms"`
	AvgMillis        int64   `json:"avg_ms"`
	MinMillis        int64   `json:"min_ms"`
	MaxMillis        int64   `json:"max_ms"`
	StdDevMillis     float64 `json:"stddev_ms"`

	Executed     uint64               `json:"executed"`
	Errors       uint64               `json:"errors"`
	ErrorsByCode []latency.ErrorCount `json:"errors_by_code"`
	Reconnects   uint64               `json:"reconnects"`
	Seconds      float64              `json:"seconds"`
	QPS          float64              `json:"queries_per_second"`

	Latency   latency.Percentiles `json:"latency"`
	Histogram string              `json:"histogram"` // HDR V2 compressed, base64; values in µs

	// Rate is present for --rate runs: Latency is then the uncorrected
	// service time and Rate.Latency the time from each scheduled start.
	Rate *JSONRate `json:"rate,omitempty"`
}

// JSONRate is the open-loop part of a --rate benchmark.
type JSONRate struct {
	Target      float64             `json:"target_qps"`
	Achieved    float64             `json:"achieved_qps"`
	Kept        bool                `json:"kept"`
	MaxLagMicro int64               `json:"max_start_lag_us"`
	Latency     latency.Percentiles `json:"latency"` // from the scheduled start
	Histogram   string              `json:"histogram"`
}

// NewJSONBenchmark converts a result.
func NewJSONBenchmark(r *BenchmarkResult) (JSONBenchmark, error) {
	b := JSONBenchmark{
		LoadType: r.LoadType, Concurrency: r.Concurrency, QueriesPerClient: r.QueriesPerClient,
		IterationsMillis: append([]int64{}, r.IterationMillis...),
		AvgMillis:        r.AvgMillis(), MinMillis: r.MinMillis(), MaxMillis: r.MaxMillis(), StdDevMillis: r.StdDevMillis,
		Executed: r.Executed, Errors: r.Errors, ErrorsByCode: r.ErrorsByCode, Reconnects: r.Reconnects,
		Seconds: r.Seconds, QPS: r.QPS, Latency: r.Latency,
	}
	if b.ErrorsByCode == nil {
		b.ErrorsByCode = []latency.ErrorCount{}
	}
	if r.HasEngine {
		b.Engine = r.Engine
	}
	h := r.Histogram
	if h == nil {
		h = latency.NewHistogram()
	}
	var err error
	if b.Histogram, err = latency.Encode(h); err != nil {
		return b, err
	}
	if r.Paced {
		b.Rate = &JSONRate{Target: r.TargetRate, Achieved: r.QPS, Kept: r.RateKept,
			MaxLagMicro: int64(r.MaxLag / time.Microsecond), Latency: r.Corrected}
		if r.CorrectedHistogram != nil {
			if b.Rate.Histogram, err = latency.Encode(r.CorrectedHistogram); err != nil {
				return b, err
			}
		}
	}
	return b, nil
}

var targetPassword = regexp.MustCompile(`((?:^|,)password=)[^,]*`)

// optionsMap lists the resolved Options by Go field name (nested for
// goslap's own and sandbox options), durations as text, the password and
// scratch fields left out.
func optionsMap(o *Options) map[string]any {
	return structMap(reflect.ValueOf(*o))
}

func structMap(v reflect.Value) map[string]any {
	out := map[string]any{}
	t := v.Type()
	for i := 0; i < t.NumField(); i++ {
		f := t.Field(i)
		if !f.IsExported() || f.Name == "Password" {
			continue
		}
		fv := v.Field(i)
		switch {
		case f.Type == reflect.TypeOf(time.Duration(0)):
			out[f.Name] = time.Duration(fv.Int()).String()
		case fv.Kind() == reflect.Struct:
			out[f.Name] = structMap(fv)
		case f.Name == "Targets":
			// --target=LABEL:server:...,password=P carries passwords.
			var ts []string
			for _, s := range fv.Interface().([]string) {
				ts = append(ts, targetPassword.ReplaceAllString(s, "${1}*****"))
			}
			out[f.Name] = ts
		default:
			out[f.Name] = fv.Interface()
		}
	}
	return out
}

// serverInfo reads the version and the variables of ServerInfo on c.
func serverInfo(c *mysqlconn.Conn) *ServerInfo {
	si := &ServerInfo{Variables: map[string]string{}}
	if c == nil {
		si.Error = "not connected"
		return si
	}
	one := func(expr string) (string, error) {
		v, err := c.QueryStrings("SELECT " + expr)
		if err != nil || len(v) == 0 {
			return "", err
		}
		return v[0], nil
	}
	var err error
	if si.Version, err = one("@@version"); err != nil {
		si.Error = mysqlconn.ErrorText(err)
		return si
	}
	si.VersionComment, _ = one("@@version_comment")
	for _, name := range serverVariables {
		if v, err := one("@@global." + name); err == nil {
			si.Variables[name] = v
		}
	}
	return si
}

// writeJSON writes the run's document to --json's destination.
func writeJSON(o *Options, stdout io.Writer, doc *JSONDocument) error {
	data, err := json.MarshalIndent(doc, "", "  ")
	if err != nil {
		return Exitf(1, "writing the JSON document: %v", err)
	}
	data = append(data, '\n')
	if JSONToStdout(o) {
		if f, ok := stdout.(interface{ Flush() error }); ok {
			_ = f.Flush()
		}
		_, err = stdout.Write(data)
	} else {
		err = os.WriteFile(o.Own.JSON, data, 0o666)
	}
	if err != nil {
		return Exitf(1, "writing the JSON document: %v", err)
	}
	return nil
}

// jsonDocument assembles the document of a run.
func (or *ownRun) jsonDocument(o *Options, server *ServerInfo, results []BenchmarkResult, runErr error) (*JSONDocument, error) {
	doc := &JSONDocument{
		Schema: JSONSchema, SchemaVersion: JSONSchemaVersion, Goslap: Version,
		StartedAt: or.startedAt.UTC(), FinishedAt: time.Now().UTC(), Seed: or.seed,
		Options: optionsMap(o), Server: server, Benchmarks: []JSONBenchmark{},
	}
	for i := range results {
		b, err := NewJSONBenchmark(&results[i])
		if err != nil {
			return nil, Exitf(1, "encoding the latency histogram: %v", err)
		}
		doc.Benchmarks = append(doc.Benchmarks, b)
	}
	if runErr != nil {
		doc.Error = runErr.Error()
	}
	return doc, nil
}
