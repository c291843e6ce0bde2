package slap

// BenchmarkResult is what one mysqlslap "Benchmark" block reports: one engine
// entry × one concurrency level, over all its iterations. Reporters (text,
// CSV, JSON, charts) are functions over a slice of these.
type BenchmarkResult struct {
	Engine           string  // engine name without ":options"
	HasEngine        bool    // an engine entry was active ("Running for engine" line)
	LoadType         string  // --auto-generate-sql-load-type verbatim (CSV column)
	Concurrency      int     // clients
	QueriesPerClient uint64  // the configured per-client limit (spec 2.6), not a measurement
	IterationMillis  []int64 // wall time of each iteration in whole milliseconds (spec 3.4)
}

// AvgMillis is mysqlslap's integer average of the iteration times.
func (r *BenchmarkResult) AvgMillis() int64 {
	if len(r.IterationMillis) == 0 {
		return 0
	}
	var sum int64
	for _, ms := range r.IterationMillis {
		sum += ms
	}
	return sum / int64(len(r.IterationMillis))
}

// MinMillis is the shortest iteration (0 when there were none).
func (r *BenchmarkResult) MinMillis() int64 {
	if len(r.IterationMillis) == 0 {
		return 0
	}
	m := r.IterationMillis[0]
	for _, ms := range r.IterationMillis[1:] {
		m = min(m, ms)
	}
	return m
}

// MaxMillis is the longest iteration (0 when there were none).
func (r *BenchmarkResult) MaxMillis() int64 {
	var m int64
	for _, ms := range r.IterationMillis {
		m = max(m, ms)
	}
	return m
}
