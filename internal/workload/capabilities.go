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
