// Package matrix is a comparison's figures as its reporters read them: per
// target (a Column) the points of the benchmark matrix it ran, and the
// side-by-side text table of them. The targets' runner
// (internal/target) and the orchestrator fill it; the table here and the
// chart renderer (internal/chart) read it, so either reporter can be
// replaced without touching the code that runs targets.
package matrix

// Point is one cell of the benchmark matrix for one target: one engine at
// one concurrency level, over all iterations.
type Point struct {
	Engine      string  // "" when no --engine was given
	Concurrency int     // clients
	Iterations  int     // how many iterations the averages are over
	AvgSeconds  float64 // average wall time of an iteration
	QPS         float64 // queries per second (see internal/cli/mysqlslap for how it is computed)
	P99Millis   float64 // 99th percentile statement latency; 0 when unknown
	// A study's other swept dimensions (internal/orchestrator): the data size
	// (rows per table, warehouses; 0 = not swept) and the server option
	// set for this point ("innodb_buffer_pool_size=64M"; "" = none).
	Size    int64
	Setting string
	// Study figures (internal/orchestrator), 0 when unknown: the study's
	// metric (ChartLabels.Metric) and latency percentile
	// (ChartLabels.Latency), each with its 95 % interval over the rounds
	// (Low = High = the figure with one round), and for a target after the
	// first its ratio of the metric to the first target's at the same
	// point, paired by round, with its interval.
	Metric, MetricLow, MetricHigh    float64
	Latency, LatencyLow, LatencyHigh float64
	Ratio, RatioLow, RatioHigh       float64
}

// Column is one target's share of a comparison, as the table and the chart
// show it.
type Column struct {
	Label       string // the target's label
	Description string // what ran: "sandbox: mariadbd  Ver 10.11.x-MariaDB ..." or "server 127.0.0.1:3306"
	Points      []Point
}
