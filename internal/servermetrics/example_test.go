package servermetrics_test

import (
	"context"
	"sync/atomic"
	"time"

	"github.com/go-sql-driver/mysql"

	"github.com/goslap/goslap/internal/procstat"
	"github.com/goslap/goslap/internal/results/jsondoc"
	"github.com/goslap/goslap/internal/servermetrics"
)

// The calls a run makes: a sampler opened before the load (its
// calibration should not see the load), a sample where the measured part
// starts and where it ends, Run in between for the intervals, then the
// figures for the result document and the warnings, once each.
func Example() {
	measure := func(ctx context.Context, driver *mysql.Config, sandboxPID int, load func(units *atomic.Uint64)) (*jsondoc.ServerFigures, []jsondoc.ServerFigures, []bool, []string, error) {
		var units atomic.Uint64 // the run's completed transactions
		sm, err := servermetrics.New(servermetrics.Config{Driver: driver, Interval: time.Second, Units: units.Load})
		if err != nil {
			return nil, nil, nil, nil, err
		}
		defer sm.Close()
		if sandboxPID != 0 {
			// A sandbox knows its server; New's Config.Location takes it too.
			_ = servermetrics.Given(procstat.Proc{}, sandboxPID, "sandbox")
		} else {
			sm.Locate(ctx) // socket owner, loopback port owner or pid file; or why not
		}
		start := sm.Sample(ctx) // where the measured run starts (after warm-up)
		runCtx, stop := context.WithCancel(ctx)
		done := make(chan struct{})
		go func() { defer close(done); sm.Run(runCtx) }()
		load(&units)
		end := sm.Sample(ctx)
		stop()
		<-done

		whole := servermetrics.Figures(servermetrics.Between(start, end), units.Load(), "transaction", sm.Location())
		var intervals []jsondoc.ServerFigures
		var tput []float64
		for _, iv := range sm.Intervals() {
			intervals = append(intervals, servermetrics.Figures(iv.Span, iv.Units, "transaction", sm.Location()))
			tput = append(tput, float64(iv.Units)/iv.Seconds())
		}
		return &whole, intervals, servermetrics.Stalls(tput), sm.Warnings(), nil
	}
	_ = measure
}
