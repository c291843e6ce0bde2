package orchestrator

import (
	"fmt"
	"math"

	"github.com/goslap/goslap/internal/results/jsondoc"
	"github.com/goslap/goslap/internal/servermetrics"
)

// sideServer is what the server sampling saw of one side at one point,
// round by round (a round that was not sampled has empty figures, so
// rounds stay paired by index).
type sideServer struct {
	per     []jsondoc.PerTransaction
	hosts   []jsondoc.HostCPU
	sampled bool
}

// sideServerOf gathers the per-unit figures and host CPU of a side's
// cells (one per round).
func sideServerOf(cells []*Cell, unit string) sideServer {
	var s sideServer
	for _, c := range cells {
		f, _ := CellServer(c, unit)
		if f == nil {
			s.per = append(s.per, jsondoc.PerTransaction{})
			continue
		}
		s.sampled = true
		s.per = append(s.per, f.PerTransaction)
		if f.Host != nil {
			s.hosts = append(s.hosts, *f.Host)
		}
	}
	return s
}

// serverVerdicts fills a point's reasons (each side against the first)
// and the sides' host CPU from the sides' sampling; nothing when a side
// was not sampled.
func (pv *PointVerdicts) serverVerdicts(sides []Side, servers []sideServer, unit string) {
	pv.Unit = unit
	for i, s := range servers {
		if len(s.hosts) > 0 {
			pv.Hosts = append(pv.Hosts, hostOf(sides[i], s.hosts))
		}
	}
	if len(servers) == 0 || !servers[0].sampled {
		return
	}
	pv.Reasons = make([][]servermetrics.Difference, len(sides)-1)
	for i := 1; i < len(servers); i++ {
		if !servers[i].sampled {
			continue
		}
		d := servermetrics.Differences(servers[0].per, servers[i].per, servermetrics.MinChange)
		if len(d) > servermetrics.MaxReasons {
			d = d[:servermetrics.MaxReasons]
		}
		pv.Reasons[i-1] = d
	}
}

// reasons are side i's (i ≥ 1) reasons against the baseline.
func (pv *PointVerdicts) reasons(i int) []servermetrics.Difference {
	if i < 1 || i-1 >= len(pv.Reasons) {
		return nil
	}
	return pv.Reasons[i-1]
}

// reasonsJSON are the reasons for the comparison section.
func reasonsJSON(ds []servermetrics.Difference, unit string) []jsondoc.Reason {
	var out []jsondoc.Reason
	for _, d := range ds {
		r := jsondoc.Reason{Figure: d.Key, Unit: unit, Baseline: d.A, Value: d.B, Text: d.Words(unit)}
		if !math.IsInf(d.Change, 0) {
			c := d.Change
			r.Change = &c
		}
		out = append(out, r)
	}
	return out
}

// hostOf is a side's host CPU over its rounds: medians, and how many
// rounds saturated it.
func hostOf(sd Side, hs []jsondoc.HostCPU) jsondoc.SideHost {
	h := jsondoc.SideHost{Target: sd.Target, ServerOption: sd.Setting, Rounds: len(hs)}
	var busy, client, server []float64
	for _, x := range hs {
		if x.Saturated {
			h.SaturatedRounds++
		}
		busy = append(busy, x.Busy)
		client = append(client, x.ClientShare)
		if x.ServerShare != nil {
			server = append(server, *x.ServerShare)
		}
	}
	h.Busy, h.ClientShare = medianOf(busy), medianOf(client)
	if len(server) == len(hs) {
		s := medianOf(server)
		h.ServerShare = &s
	}
	return h
}

// hostWords is a side's host line in the verdicts: when the host's CPU
// was saturated and what share of it goslap (and the server) used —
// "host CPU saturated in 3 of 5 rounds (98 % busy); goslap used 27 % of
// it, the server 41 %", medians over the rounds.
func hostWords(h jsondoc.SideHost) string {
	var s string
	switch {
	case h.Rounds == 1 && h.SaturatedRounds == 1:
		s = fmt.Sprintf("host CPU saturated (%.0f %% busy)", 100*h.Busy)
	case h.Rounds == 1:
		s = fmt.Sprintf("host CPU not saturated (%.0f %% busy)", 100*h.Busy)
	case h.SaturatedRounds == 0:
		s = fmt.Sprintf("host CPU not saturated in any of %d rounds (%.0f %% busy)", h.Rounds, 100*h.Busy)
	default:
		s = fmt.Sprintf("host CPU saturated in %d of %d rounds (%.0f %% busy)", h.SaturatedRounds, h.Rounds, 100*h.Busy)
	}
	s += fmt.Sprintf("; goslap used %.0f %% of it", 100*h.ClientShare)
	if h.ServerShare != nil {
		s += fmt.Sprintf(", the server %.0f %%", 100**h.ServerShare)
	}
	if h.Rounds > 1 {
		s += " (medians)"
	}
	return s
}
