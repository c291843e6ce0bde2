package merge

import (
	"github.com/goslap/goslap/internal/latency"
	"github.com/goslap/goslap/internal/results/jsondoc"
	"github.com/goslap/goslap/internal/servermetrics"
)

// mergeServer merges the shards' server figures into b: units add, but
// the server's counters, CPU and IO are not added up, since the shards
// loaded the same server and each sampled all of it: the first shard's
// are kept and divided by all the shards' units. Intervals merge
// interval by interval (by iteration and position, the shards' clocks
// started together): units, queries and errors add, latency keeps what
// merges exactly (count, min, mean, max; the percentiles of several
// histograms cannot be had from theirs), and stalls are flagged again on
// the merged throughput.
func mergeServer(b *jsondoc.Benchmark, parts []*jsondoc.Benchmark) {
	var units, clientUnits uint64
	var clientCPU float64
	for _, p := range parts {
		if p.Server == nil {
			continue
		}
		units += p.Server.Units
		if c := p.Server.PerTransaction.ClientCPUMicros; c != nil {
			clientCPU += *c * float64(p.Server.Units)
			clientUnits += p.Server.Units
		}
	}
	if s := parts[0].Server; s != nil && units > 0 {
		f := shareOf(*s, units)
		if clientUnits == units {
			v := clientCPU / float64(units)
			f.PerTransaction.ClientCPUMicros = &v
		} else {
			f.PerTransaction.ClientCPUMicros = nil
		}
		if len(parts) > 1 {
			f.Notes = append(f.Notes, "server figures are the first shard's samples of the server all shards loaded, divided by all shards' units")
		}
		b.Server = &f
	}
	type key struct{ it, n int }
	merged := map[key]*jsondoc.Interval{}
	var order []key
	for _, p := range parts {
		seen := map[int]int{}
		for _, iv := range p.Intervals {
			k := key{iv.Iteration, seen[iv.Iteration]}
			seen[iv.Iteration]++
			m, ok := merged[k]
			if !ok {
				c := iv
				c.Latency = latency.Percentiles{Count: iv.Latency.Count, Min: iv.Latency.Min, Mean: iv.Latency.Mean, Max: iv.Latency.Max}
				c.Stall = false
				merged[k] = &c
				order = append(order, k)
				continue
			}
			if n := m.Latency.Count + iv.Latency.Count; n > 0 {
				m.Latency.Mean = (m.Latency.Mean*float64(m.Latency.Count) + iv.Latency.Mean*float64(iv.Latency.Count)) / float64(n)
			}
			if iv.Latency.Count > 0 && (m.Latency.Count == 0 || iv.Latency.Min < m.Latency.Min) {
				m.Latency.Min = iv.Latency.Min
			}
			m.Latency.Count += iv.Latency.Count
			m.Latency.Max = max(m.Latency.Max, iv.Latency.Max)
			m.Transactions += iv.Transactions
			m.Queries += iv.Queries
			m.Errors += iv.Errors
			m.Seconds = max(m.Seconds, iv.Seconds)
		}
	}
	var tput []float64
	for _, k := range order {
		iv := *merged[k]
		if iv.Server != nil && iv.Server.Units > 0 && iv.Transactions > 0 {
			f := shareOf(*iv.Server, iv.Transactions)
			iv.Server = &f
		}
		b.Intervals = append(b.Intervals, iv)
		tput = append(tput, float64(iv.Transactions)/max(iv.Seconds, 1e-9))
	}
	for i, stall := range servermetrics.Stalls(tput) {
		b.Intervals[i].Stall = stall
	}
}

// shareOf is f (measured over f.Units) divided by units instead: the
// per-unit figures scaled, the counts as they were.
func shareOf(f jsondoc.ServerFigures, units uint64) jsondoc.ServerFigures {
	if f.Units == units || units == 0 {
		return f
	}
	k := float64(f.Units) / float64(units)
	p := &f.PerTransaction
	for _, v := range []**float64{&p.CPUMicros, &p.ClientCPUMicros, &p.DiskReads, &p.ReadRequests, &p.BytesWritten,
		&p.RedoBytes, &p.StorageWriteBytes, &p.RowLockWaits, &p.RowLockWaitMicros, &p.Deadlocks, &p.Statements, &p.RowsRead} {
		if *v != nil {
			x := **v * k
			*v = &x
		}
	}
	f.Units = units
	f.Notes = append([]string(nil), f.Notes...)
	return f
}
