// Package engine runs any registered workload: it owns the clients, their
// connections, the release barrier, the clock, limits, pacing, warm-up,
// error tolerance, reconnects and periodic snapshots, and returns one
// results.Benchmark. It never sees a command line: a front end turns its
// options into a Plan.
//
//	Plan ──Run──▶ connect ──▶ barrier ──▶ [warm-up] ──▶ measured load ──▶ end ──▶ *results.Benchmark
//
// The phases of Run:
//
//  1. Build: one workload.Client per client (Load.Client with the client's
//     global id), in id order, before anything connects.
//  2. Connect: every client opens its own connection (at most 64 dials in
//     flight, each retried 10 times 100 ms apart as mysqlslap does) and
//     runs Client.Begin on it. A failure here stops everything before the
//     clock: Run returns a *ConnectError or a *ClientError (op "begin").
//  3. Release: once every client is connected and begun (and Plan.Start,
//     when set, has returned: a shard waiting for the others), the clock
//     starts and all clients are released at once.
//  4. Warm-up (Plan.Warmup): units run as in the load but are neither
//     recorded nor counted against Events.
//  5. Measured load: each client loops on Client.Next until the first limit
//     is reached (Events across all clients, its PerClientEvents quota, the
//     Duration after the warm-up, a fatal error, or ctx). With a Rate,
//     units start on a schedule and their latency is also measured from
//     the scheduled start. An error whose code Plan.Ignore accepts is
//     counted and the unit restarted, after a reconnect when the connection
//     broke; any other error stops all clients.
//  6. End: each client's Client.End runs (untimed) and its connection is
//     closed, whatever happened; the per-client recordings are folded into
//     one recorder per op.
//
// Using it, for one iteration of a workload w:
//
//	load, err := w.Load(it)
//	b, err := engine.Run(ctx, engine.Plan{
//		Connector: conn, Workload: w, Load: load, Iteration: it,
//		Clients: 8, Duration: 10 * time.Second, Ignore: tolerated,
//		ReportInterval: time.Second, OnInterval: printLine,
//	})
//	b.Workload, b.Target = name, target // the caller's labels
//
// Outcomes: err == nil (StoppedBy "events" or "time"); ErrInterrupted
// with the Benchmark so far (StoppedBy "interrupt"); a *ClientError or
// *ConnectError during the load with the Benchmark so far (StoppedBy
// "error"); before the clock (a plan error, *ConnectError, *ClientError
// with Op "begin") a nil Benchmark. Events and Duration are measured
// after the warm-up; a unit restarted after an ignored error is one
// unit, timed from its first attempt.
//
// Client paths: a goroutine per client on the netpoller, a locked OS
// thread per client below mysqlconn's threshold, and, for loads whose
// clients give their units as statements (workload.StatementClient),
// the ring path from RingFrom to below RingBelow clients or wherever
// GOSLAP_RING=1 (ringchoice.go): a few OS threads each driving many
// connections on io_uring (ringpath.go); other clients run their own
// loop as a coroutine on a ring thread (ringroutine.go): TPC-C's and Lua
// scripts', which claim it (workload.CoroutineClient), in RoutineFrom to
// RoutineBelow, any with GOSLAP_RING=1; clients that claim its threaded
// range too (workload.ThreadedClient: TPC-C on one warehouse) run a
// thread per client from RoutineThreadFrom to RoutineThreadBelow-1
// instead. All three
// share the admission and recording of a unit (client.admit,
// client.record, client.tolerate), so limits, warm-up, errors and
// intervals agree.
//
// What stays off the hot path: nothing is shared between clients while a
// unit runs except a read-mostly stop flag and, with Events, a counter
// claimed in chunks (see quota). Latencies go to per-client sparse
// recorders (latency.Samples), folded after the load. Snapshots for
// Plan.OnInterval take a per-client lock that only the reporter goroutine
// contends for, once per interval; the reporter waits between intervals
// without a runtime timer (see ticker), since a pending timer costs the
// thread-per-client path a wake-up per unit.
package engine
