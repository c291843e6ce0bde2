package slap

import (
	"time"

	"github.com/goslap/goslap/internal/latency"
)

// flushSamples is how many latencies a client keeps as raw samples before
// it folds them into a histogram of its own (16 KB of samples at most).
const flushSamples = 4096

// clientLatency is one client's latency recording, touched only by that
// client while the load runs. A full HDR histogram (1 µs to 1 h, 3 digits)
// is 180 KB and each recorded value dirties a page of it, which at 1000
// clients was 32 MB of resident memory for 100 queries per client. So a
// client keeps raw samples (4 bytes each) and only a client that records
// more than flushSamples of them gets a histogram of its own; at the end of
// the phase everything is folded into one recorder (fold). The figures are
// exactly those of recording straight into the histograms.
type clientLatency struct {
	service  []uint32 // µs, not yet in rec
	intended []uint32 // µs since the intended start (--rate), not yet in rec
	paced    bool
	maxLag   time.Duration     // largest start delay of a --rate run
	rec      *latency.Recorder // nil until needed (overflow, errors, reconnects)
}

func (l *clientLatency) recorder() *latency.Recorder {
	if l.rec == nil {
		l.rec = latency.NewRecorder(l.paced)
	}
	return l.rec
}

// record is one statement's service time.
func (l *clientLatency) record(d time.Duration) {
	l.service = append(l.service, uint32(latency.Micros(d)))
	if len(l.service) == flushSamples {
		l.flush()
	}
}

// recordPaced is one statement of a --rate run: service time, time since
// its intended start, and how late it started.
func (l *clientLatency) recordPaced(service, sinceIntended, lag time.Duration) {
	l.service = append(l.service, uint32(latency.Micros(service)))
	l.intended = append(l.intended, uint32(latency.Micros(sinceIntended)))
	l.maxLag = max(l.maxLag, lag)
	if len(l.service) == flushSamples {
		l.flush()
	}
}

// flush moves the pending samples into the client's own recorder.
func (l *clientLatency) flush() {
	if len(l.service) == 0 && len(l.intended) == 0 {
		return
	}
	fold(l.recorder(), l.service, l.intended)
	l.service, l.intended = l.service[:0], l.intended[:0]
}

func fold(r *latency.Recorder, service, intended []uint32) {
	for _, us := range service {
		_ = r.Service.RecordValue(int64(us))
	}
	if r.Intended != nil {
		for _, us := range intended {
			_ = r.Intended.RecordValue(int64(us))
		}
	}
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
		fold(phase, l.service, l.intended)
		if l.rec != nil {
			phase.Merge(l.rec)
		}
		phase.MaxLag = max(phase.MaxLag, l.maxLag)
		*l = clientLatency{}
		lp.cs[i].rec = nil
	}
	lp.cs[0].rec = phase
}
