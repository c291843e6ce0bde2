// Package shard splits one benchmark over N processes (machines, pods of a
// Kubernetes Indexed Job, processes of a shell loop) and starts them at one
// instant, without a coordinator of goslap's own: each shard computes its
// part by arithmetic (Spec), waits for a wall-clock instant or for the
// others through a table on the benchmarked server (Starter), and writes
// its own result document; internal/merge combines the documents.
//
// The split is by contiguous segments, as k6's execution segments: shard I
// of N takes the global clients [⌊I·C/N⌋, ⌊(I+1)·C/N⌋). The segments tile
// 0..C-1 exactly for every C and N, and no segment is more than one longer
// than another. Client ids stay global (FirstClientID), so random streams
// keyed by (seed, client id) make the N shards send what one process
// would. Event limits split by the same formula; the rate splits in
// proportion to the shard's clients, which keeps every client's own rate
// (Rate/C) what it is on one machine.
package shard

import (
	"fmt"
	"strconv"
	"strings"
)

// IndexEnv is the environment variable a Kubernetes Indexed Job sets to the
// pod's 0-based completion index; --shard=auto/N reads it.
const IndexEnv = "JOB_COMPLETION_INDEX"

// MaxCount bounds N: more shards than this is a typing error, not a plan.
const MaxCount = 4096

// Spec is one shard's identity; the zero value (Count 0) is a whole,
// unsharded run.
type Spec struct {
	Index int // 0-based
	Count int
}

// Active reports a sharded run.
func (s Spec) Active() bool { return s.Count > 0 }

func (s Spec) String() string { return strconv.Itoa(s.Index) + "/" + strconv.Itoa(s.Count) }

// Parse reads --shard's value: "I/N" or "auto/N", where auto takes I from
// the environment variable IndexEnv (getenv reads it).
func Parse(value string, getenv func(string) string) (Spec, error) {
	left, right, ok := strings.Cut(strings.TrimSpace(value), "/")
	if !ok {
		return Spec{}, fmt.Errorf("--shard=%s: want I/N (shard I of N, 0 <= I < N) or auto/N", value)
	}
	n, err := strconv.Atoi(strings.TrimSpace(right))
	if err != nil || n < 1 || n > MaxCount {
		return Spec{}, fmt.Errorf("--shard=%s: the number of shards must be an integer from 1 to %d", value, MaxCount)
	}
	left = strings.TrimSpace(left)
	from := ""
	if strings.EqualFold(left, "auto") {
		left = strings.TrimSpace(getenv(IndexEnv))
		if left == "" {
			return Spec{}, fmt.Errorf("--shard=%s: %s is not set (a Kubernetes Indexed Job sets it; elsewhere give --shard=I/N)", value, IndexEnv)
		}
		from = " (from " + IndexEnv + ")"
	}
	i, err := strconv.Atoi(left)
	if err != nil || i < 0 || i >= n {
		return Spec{}, fmt.Errorf("--shard=%s: shard index %q%s must be an integer from 0 to %d", value, left, from, n-1)
	}
	return Spec{Index: i, Count: n}, nil
}

// segment is [⌊i·total/n⌋, ⌊(i+1)·total/n⌋) without overflow for any
// uint64 total.
func segment(i, n int, total uint64) (lo, hi uint64) {
	at := func(k int) uint64 {
		q, r := total/uint64(n), total%uint64(n)
		return q*uint64(k) + r*uint64(k)/uint64(n)
	}
	return at(i), at(i + 1)
}

// Clients returns the shard's part of total clients: the global id of its
// first client and how many it runs. An inactive Spec runs them all.
func (s Spec) Clients(total int) (first, n int) {
	if !s.Active() {
		return 0, total
	}
	lo, hi := segment(s.Index, s.Count, uint64(total))
	return int(lo), int(hi - lo)
}

// Events returns the shard's part of a limit of total units (events,
// queries) across all clients; 0 (no limit) stays 0.
func (s Spec) Events(total uint64) uint64 {
	if !s.Active() || total == 0 {
		return total
	}
	lo, hi := segment(s.Index, s.Count, total)
	return hi - lo
}

// Rate returns the shard's part of a rate for total clients: in proportion
// to its clients, so each client paces as on one machine; 0 stays 0.
func (s Spec) Rate(rate float64, total int) float64 {
	if !s.Active() || rate == 0 || total == 0 {
		return rate
	}
	_, n := s.Clients(total)
	return rate * float64(n) / float64(total)
}

// Check refuses a split that leaves this shard without a client.
func (s Spec) Check(clients int) error {
	if s.Active() && clients < s.Count {
		return fmt.Errorf("--shard=%s: %d clients cannot be split over %d shards (every shard needs at least one client)", s, clients, s.Count)
	}
	return nil
}
