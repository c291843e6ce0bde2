package slap

import (
	"time"

	"github.com/goslap/goslap/internal/pacer"
)

// clientLimit is client's share of the queries: --exact-count spreads the
// remainder of --number-of-queries over the first clients.
func clientLimit(o *Options, limit uint64, clients, client int) uint64 {
	if !o.Ext.ExactCount || o.NumberOfQueries == 0 {
		return limit
	}
	n, c := o.NumberOfQueries, uint64(clients)
	l := n / c
	if uint64(client) < n%c {
		l++
	}
	return l
}

// loadTiming is the shape of one load phase in time: all offsets are from
// the moment the clients are released.
type loadTiming struct {
	warmup   time.Duration // measured queries start after this
	deadline time.Duration // clients stop starting queries after this; 0 = none
	paced    bool
	pacer    pacer.Pacer
}

func newLoadTiming(o *Options, clients int) loadTiming {
	t := loadTiming{warmup: o.Ext.WarmupTime}
	if o.Ext.RunTime > 0 {
		t.deadline = o.Ext.WarmupTime + o.Ext.RunTime
	}
	if o.Ext.Rate > 0 {
		t.paced = true
		t.pacer = pacer.Pacer{Rate: o.Ext.Rate, Clients: clients}
	}
	return t
}
