// Package pacer is goslap's open-loop schedule for --rate: a pure function
// from a client and its query count to a due time, testable without clocks.
//
// The schedule is fixed from the run's start: query n of the whole run is
// due at n/Rate seconds. With C clients, client c executes the global slots
// c, c+C, c+2C, ... so no state is shared between clients. A client that
// falls behind does not sleep until it has caught up, and its latencies are
// measured from the due time (coordinated omission is not hidden).
package pacer

import (
	"math"
	"time"
)

// Pacer is a constant rate shared by Clients clients.
type Pacer struct {
	Rate    float64 // queries per second across all clients; > 0
	Clients int     // ≥ 1
}

// Due is the offset from the run's start at which client's k-th query
// (k counted from 0) is scheduled.
func (p Pacer) Due(client int, k uint64) time.Duration {
	slot := float64(k)*float64(p.Clients) + float64(client)
	return time.Duration(math.Round(slot * float64(time.Second) / p.Rate))
}

// Tolerance is the shortfall below which a rate counts as kept: an achieved
// rate under (1-Tolerance)×Rate is reported as not kept.
const Tolerance = 0.05

// Kept reports whether achieved queries per second is within Tolerance of
// the target rate.
func (p Pacer) Kept(achieved float64) bool {
	return achieved >= p.Rate*(1-Tolerance)
}
