package slap

import (
	"github.com/goslap/goslap/internal/latency"
)

// clientLatency is one client's latency recording, touched only by that
// client while the load runs: latency.Samples (raw samples, then a sparse
// histogram, so 1000 clients do not each dirty a 180 KB HDR histogram),
// plus a recorder for errors and reconnects created only when needed.
type clientLatency struct {
	latency.Samples
	rec *latency.Recorder // nil until needed (errors, reconnects)
}

func (l *clientLatency) recorder() *latency.Recorder {
	if l.rec == nil {
		l.rec = latency.NewRecorder(l.Paced)
	}
	return l.rec
}

// foldLatency merges every client's recording of a finished phase into one
// recorder and hands it over as the first client's, the others' set to nil
// (addIteration merges the non-nil ones), so a phase costs one histogram
// however many clients it has.
func (lp *loadPhase) foldLatency() {
	if len(lp.cs) == 0 {
		return
	}
	phase := latency.NewRecorder(lp.timing.paced)
	for i := range lp.lat {
		l := &lp.lat[i]
		l.Fold(phase)
		if l.rec != nil {
			phase.Merge(l.rec)
		}
		*l = clientLatency{}
		lp.cs[i].rec = nil
	}
	lp.cs[0].rec = phase
}
