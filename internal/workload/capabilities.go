package workload

import "time"

// A workload's optional capabilities, by name (as cockroach's Flagser and
// Hookser): the orchestrator and the front ends look for them with a type
// assertion on the workload's Settings or Workload, so a new workload that
// has one gets the feature by implementing it, with no change outside its
// package. The capabilities that speak of results (its cell summary, its
// interval line, its JSON section and how two sections merge) are in
// internal/workload/report, which may import the results packages that
// import this one.

// Scaler is the capability of Settings whose data size can be swept: the
// option of Options (a getopt.VarString row) that sets the size, which
// then takes a list ("--table-size=500K,1M", whole numbers with an
// optional K or M), and the axis's label in reports ("table size").
type Scaler interface {
	ScaleOption() (option, label string)
}

// StopDefaulter is the capability of Settings with run limits of their
// own when the command line gives none: an event count (0: none) and
// seconds (0: none), e.g. sysbench 1.0's 10 s and 0.4/0.5's 10000 events.
type StopDefaulter interface {
	StopDefaults() (events int64, seconds float64)
}

// StatementClient is the capability of a Client whose units are
// statements sent one at a time, each reply awaited, that never depend on
// an earlier reply's values: the engine may send them itself, many clients
// per OS thread on io_uring, instead of calling Next (docs/architecture.md,
// "The ring path"). A unit is one statement (mysqlslap's statement lists)
// or several (sysbench's OLTP events: BEGIN, executes, COMMIT). Begin and
// End still run on the client's connection.
type StatementClient interface {
	Client
	// Statements reports whether every unit from now on can be given as
	// statements; false keeps the client on Next (mysqlslap's --commit,
	// --detach, --verbose echo, LOAD DATA LOCAL INFILE). Asked after each
	// Begin.
	Statements() bool
	// Statement is the one call per statement: it takes the reply to the
	// statement it appended last (none on the first call and after a
	// unit it skipped: reply is then ignored), counts it as Next would,
	// and appends the payload of the next statement's packet (its command
	// byte first: COM_QUERY, COM_STMT_EXECUTE) to dst, as append does:
	// the caller has put the packet's 4 header bytes first. The caller
	// leaves the appended bytes unchanged until the next call or Again.
	Statement(dst []byte, reply Reply) (out []byte, step StatementStep)
	// Again appends the payload Statement appended last once more, for
	// the connection Begin has set up since (a reconnect after a broken
	// one: prepared statements have new ids there).
	Again(dst []byte) []byte
}

// CoroutineClient is the capability of a Client whose own loop the engine
// may run by default as a coroutine on a ring thread (the ring path's
// coroutine mode, docs/architecture.md, "The ring path"): its units spend
// little of the client's CPU between statements, so one thread drives many
// of them. Measured for TPC-C (BENCHMARKS.md, "The ring's wait as a raw
// system call") and sysbench's Lua scripts (BENCHMARKS.md, "Lua scripts
// in the coroutine mode by default"). A client that claims it must not block its goroutine in a unit
// other than through its connection or a Waiter's wait: in the mode that
// goroutine is the ring thread, and every client on the ring would stall
// with it. GOSLAP_RING=1 puts any client in the mode regardless.
type CoroutineClient interface {
	Client
	// Coroutine is true when the client's units may run as a coroutine by
	// default.
	Coroutine() bool
}

// ThreadedClient is the capability of a CoroutineClient whose load the
// engine runs a thread per client instead of in the coroutine mode in its
// threaded range (engine.RoutineThreadFrom to engine.RoutineThreadBelow-1
// clients), when Threaded is true. Measured for TPC-C on one warehouse
// (BENCHMARKS.md, "TPC-C on a thread per client from 8 connections"),
// whose transactions mostly wait on each other's row locks: on the ring
// the cores idle between them. sysbench's Lua scripts do not claim it:
// threaded, their client CPU per transaction was 1.14-1.41x the ring's
// (oltp_read_only at 16 and 32 threads, default server).
type ThreadedClient interface {
	CoroutineClient
	// Threaded is true when the client's load runs a thread per client in
	// the engine's threaded range.
	Threaded() bool
}

// Reply is the outcome of one statement the engine sent for a
// StatementClient: Err nil (Rows result rows, Affected the OK's affected
// rows), the server's *mysql.MySQLError, or a connection error worded as
// the driver path words it.
type Reply struct {
	Rows, Affected uint64
	Err            error
}

// StatementStep is what Statement says of the reply it took and of the
// statement it appended.
type StatementStep struct {
	// Ended: the reply ended its unit (always, when there was no reply),
	// and Err is the error Next would have returned for that unit. The
	// appended statement then starts a new unit.
	Ended bool
	Err   error
	// Op is the new unit's op (an index into Ops), when Ended. Skip: the
	// new unit sends nothing (nothing was appended) and is done, as Next
	// would have done it; the next call starts the unit after it.
	Op   int
	Skip bool
}

// Waiter is the capability of a Client whose units wait for a while inside
// themselves (a Lua script's ffi.C.usleep and ffi.C.sleep): the engine
// gives it, before Begin, the wait its units then use instead of a sleep
// of their own. In the ring path's coroutine mode the wait suspends the
// client's coroutine while its ring thread drives the other clients.
type Waiter interface {
	Client
	// UseWait gives the client the engine's wait, which returns after d,
	// or at once with false when the load is stopping.
	UseWait(wait func(d time.Duration) bool)
}
