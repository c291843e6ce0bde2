package workload

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

// StatementClient is the capability of a Client whose units are each one
// statement text with nothing to do on its reply but count it: the engine
// may send the statements itself, many clients per OS thread on io_uring,
// instead of calling Next (docs/architecture.md, "The ring path";
// mysqlslap's statement lists have it). Begin and End still run on the
// client's connection.
type StatementClient interface {
	Client
	// Statements reports whether every unit from now on is one plain
	// statement; false keeps the client on Next (mysqlslap's --commit,
	// --detach, --verbose echo). Asked once, after Begin.
	Statements() bool
	// NextStatement appends the next unit's statement text to dst (as
	// append does: the caller may have put a packet header first) and says
	// its op (an index into Ops); skip: the unit sends nothing (dst comes
	// back as it was) and is done, as Next would have done it. The caller
	// leaves the appended text unchanged until StatementDone.
	NextStatement(dst []byte) (out []byte, op int, skip bool)
	// StatementDone is the outcome of the statement NextStatement gave
	// last: err nil, the server's *mysql.MySQLError, or a connection
	// error. It counts what Next would have counted and returns the error
	// Next would have returned.
	StatementDone(rows uint64, err error) error
}
