package jsondoc

import "github.com/goslap/goslap/internal/latency"

// Interval is one report interval of a benchmark's measured load: what
// the clients did in it and, when goslap could read them, the server's
// counters over the same stretch. A benchmark keeps them as "intervals",
// every iteration's in order.
type Interval struct {
	// Iteration counts from 1; AtSeconds is the interval's end measured
	// from the start of that iteration's measured load.
	Iteration int     `json:"iteration"`
	AtSeconds float64 `json:"at_s"`
	Seconds   float64 `json:"seconds"`
	// Transactions are the completed units (queries for mysqlslap's
	// load), Queries the statements they sent, Errors the ignored ones.
	Transactions uint64 `json:"transactions"`
	Queries      uint64 `json:"queries"`
	Errors       uint64 `json:"errors"`
	// Latency is the units' service time in this interval alone.
	Latency latency.Percentiles `json:"latency"`
	// Stall: the interval's throughput fell below half the median of the
	// benchmark's intervals (a flushing stall, a lock, a checkpoint).
	Stall bool `json:"stall,omitempty"`
	// Server is the server's counters over the interval; absent when no
	// sample was taken at both ends.
	Server *ServerFigures `json:"server,omitempty"`
}
