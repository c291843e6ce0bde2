package engine

import (
	"errors"
	"fmt"
	"time"

	"github.com/goslap/goslap/internal/mysqlconn"
	"github.com/goslap/goslap/internal/results"
	"github.com/goslap/goslap/internal/workload"
)

// Plan is everything Run needs; the zero value of each optional field means
// "none".
type Plan struct {
	// Connector opens every client's connection.
	Connector *mysqlconn.Connector
	// Workload gives the op names (Ops); Load the per-client state of this
	// iteration, built before the clock starts; Iteration is copied into
	// the results.
	Workload  workload.Workload
	Load      workload.Load
	Iteration workload.Iteration

	// Clients is the number of clients (goroutines, connections), >= 1.
	Clients int
	// FirstClientID is the global id of client 0 (a shard of a larger run
	// starts past the other shards' clients); Load.Client gets global ids.
	FirstClientID int

	// Events is the number of measured units across all clients after
	// which the load ends (sysbench --events); 0 = no such limit.
	Events uint64
	// PerClientEvents, when set, is each client's own number of measured
	// units (mysqlslap's per-client counts; id is the local client index);
	// 0 for a client means no quota for it.
	PerClientEvents func(id int) uint64
	// Duration is the measured time after which clients start no new unit
	// (sysbench --time); 0 = no time limit. At least one of Events,
	// PerClientEvents and Duration must limit the load.
	Duration time.Duration
	// Warmup runs units before the measured load without recording them.
	Warmup time.Duration

	// Rate is the target number of units per second across all clients; 0
	// runs unpaced. Arrivals are Poisson (sysbench --rate): each client
	// follows its own Poisson process of Rate/Clients, which together make
	// one of Rate, with no shared queue (so a client that falls behind
	// keeps its backlog; sysbench's single queue would hand it to an idle
	// client). Latency is then also measured from each unit's scheduled
	// start (Recorder.Intended). Uniform spaces them evenly on the pacer's
	// global schedule instead (mysqlslap's --rate).
	Rate    float64
	Uniform bool

	// Ignore says which error codes are tolerated: the error is counted on
	// its op and the unit restarted (not past Duration's deadline). A
	// broken connection (its code accepted, or any of 2013, 2006, 1927,
	// 2011, 2055) is re-established first, with back-off, and Client.Begin
	// runs again. nil tolerates nothing. Clients call it concurrently
	// (only when an error happens).
	Ignore func(code uint16) bool

	// ReportInterval is the length of the snapshots given to OnInterval
	// (and kept in Benchmark.Intervals) during the measured load; 0 = none.
	// OnInterval is called from one reporter goroutine, never from a
	// client, and must return quickly.
	ReportInterval time.Duration
	OnInterval     func(results.Interval)

	// ConnectAfterStart makes clients connect and begin after the clock
	// starts, as mysqlslap's threads do, so the connects are part of the
	// measured time; a client that cannot connect then fails the load
	// (Run returns the Benchmark so far). By default clients connect
	// before the clock (sysbench).
	ConnectAfterStart bool
	// ThreadPerClientBelow is mysqlconn.Connector.StartThreads's threshold
	// (goslap's --thread-per-client-below); nil: its default.
	ThreadPerClientBelow *int

	// Seed keys the arrival schedule's random streams (with the global
	// client id), so a rerun with the same seed paces the same way.
	Seed uint64

	// Start, when set, is called once every client is connected and
	// begun, before the clock starts (see start.go).
	Start StartFunc
}

func (p *Plan) check() error {
	switch {
	case p.Connector == nil:
		return errors.New("engine: the plan has no Connector")
	case p.Workload == nil || p.Load == nil:
		return errors.New("engine: the plan has no Workload or Load")
	case len(p.Workload.Ops()) == 0:
		return errors.New("engine: the workload names no ops")
	case p.Clients < 1:
		return fmt.Errorf("engine: %d clients: need at least one", p.Clients)
	case p.Events == 0 && p.PerClientEvents == nil && p.Duration <= 0:
		return errors.New("engine: nothing limits the load: set Events, PerClientEvents or Duration")
	case p.Rate < 0 || p.Duration < 0 || p.Warmup < 0 || p.ReportInterval < 0:
		return errors.New("engine: negative Rate, Duration, Warmup or ReportInterval")
	}
	return nil
}

// ErrInterrupted is returned (with the Benchmark measured so far, StoppedBy
// "interrupt") when ctx ended the load.
var ErrInterrupted = errors.New("interrupted")

// ConnectError is a client connection that could not be opened: before the
// clock, after mysqlslap's 10 attempts; during the load, after a broken
// connection's reconnects gave up. Code and Message are the client
// library's (mysqlconn.ConnectError).
type ConnectError struct {
	Client  int // global id
	Code    int
	Message string
}

func (e *ConnectError) Error() string {
	return fmt.Sprintf("Error when connecting to server: %d %s", e.Code, e.Message)
}

// ClientError is the error that stopped a client: from Client.Begin (Op
// "begin"), Next (Op is the op's name), or End (Op "end"). Code is the
// MySQL error number (client-side failures such as a lost socket count as
// 2013) and Message its text.
type ClientError struct {
	Client  int // global id
	Op      string
	Code    uint16
	Message string
	Err     error // the driver's error
}

func (e *ClientError) Error() string {
	return fmt.Sprintf("client %d, %s: ERROR %d %s", e.Client, e.Op, e.Code, e.Message)
}

func (e *ClientError) Unwrap() error { return e.Err }
