package mysqlconn

import (
	"os"
	"sync"
	"syscall"
	"time"
)

// The netpoller path's Ps (issue 28; BENCHMARKS.md, "Netpoller path: Ps and
// the threshold").
//
// A netpoller load starts with pollStartProcs Ps instead of GOMAXPROCS's
// default (one per core). With one P a single M collects every ready
// connection from one epoll_pwait and runs their goroutines back to back;
// with two, on a machine whose cores the server shares, the second P's M
// spins looking for work and parks, and a reply is handed from one M to the
// other: that is most of the 19 % the profiles put in findRunnable/netpoll.
//
// One P caps a client that needs more than a core (a fast remote server,
// TLS, many clients on a big machine), so a controller samples the
// process's own CPU time (getrusage) every pollSampleEvery, off the clients'
// path, and doubles the Ps, up to the value GOMAXPROCS had before the load,
// when a sample shows them saturated (nextProcs). It never lowers them
// during a load: a load that once needed the Ps keeps them, and a cap that
// oscillated would cost more than the spare P's spinning.
//
// A GOMAXPROCS the user set in the environment is honoured: the netpoller
// path then leaves the Ps alone.
const (
	pollStartProcs  = 1
	pollSampleEvery = 100 * time.Millisecond
	// pollRaiseAt is the share of the Ps' time the process's CPU use must
	// reach in a sample for nextProcs to raise them. On the benchmark
	// machine (2 cores shared with the server) a netpoller load on one P
	// uses about 0.3-0.6 of a core; a client bound by its own CPU uses
	// about 1.
	pollRaiseAt = 0.8
)

// nextProcs is the controller's rule: the Ps after a sample in which the
// process used cores (CPU seconds per second) with cur Ps, never more than
// ceil. Saturated Ps are doubled, so a big machine reaches its cores in a
// few samples.
func nextProcs(cores float64, cur, ceil int) int {
	if cur >= ceil || cores < pollRaiseAt*float64(cur) {
		return cur
	}
	return min(2*cur, ceil)
}

// capPolled reports whether netpoller loads run on capped Ps: not when the
// user set GOMAXPROCS, nor when the cap would not lower it.
func capPolled(base int) bool {
	_, set := os.LookupEnv("GOMAXPROCS")
	return !set && base > pollStartProcs
}

// processCPU is the CPU time (user + system) the process has used.
func processCPU() time.Duration {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// procController raises the netpoller loads' Ps while they run: one per
// process (procCount starts it with the first capped load and stops it
// with the last).
type procController struct {
	cpu   func() time.Duration // the process's CPU time so far
	every time.Duration
	raise func(cores float64) // applies nextProcs under procCount's lock
	stop  chan struct{}
	done  sync.WaitGroup
}

func (c *procController) start() {
	c.stop = make(chan struct{})
	c.done.Add(1)
	go c.run()
}

func (c *procController) run() {
	defer c.done.Done()
	tick := time.NewTicker(c.every)
	defer tick.Stop()
	last, lastCPU := time.Now(), c.cpu()
	for {
		select {
		case <-c.stop:
			return
		case <-tick.C:
			// The wall clock read beside the CPU time, not the tick's
			// time: a late tick would inflate the share.
			now, cpu := time.Now(), c.cpu()
			if wall := now.Sub(last); wall > 0 {
				c.raise(float64(cpu-lastCPU) / float64(wall))
			}
			last, lastCPU = now, cpu
		}
	}
}

// halt stops the controller and waits for it.
func (c *procController) halt() {
	close(c.stop)
	c.done.Wait()
}
