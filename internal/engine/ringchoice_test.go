package engine

import (
	"testing"

	"github.com/goslap/goslap/internal/mysqlconn"
)

// TestRingRule: the ring path's default range and what overrides it.
func TestRingRule(t *testing.T) {
	for _, tc := range []struct {
		clients    int
		env        string
		threadsSet bool
		want       bool
	}{
		{1, "", false, false},
		{RingFrom - 1, "", false, false},
		{RingFrom, "", false, true},
		{16, "", false, true},
		{RingBelow - 1, "", false, true},
		{RingBelow, "", false, false},
		{19000, "", false, false},
		// Forced either way, whatever the count.
		{1, "1", false, true},
		{19000, "1", false, true},
		{16, " 1 ", true, true},
		{16, "0", false, false},
		{RingFrom, "0", false, false},
		// An explicit thread-per-client threshold chooses between the
		// other two paths.
		{16, "", true, false},
		// A value that is neither is the default, as an unset one.
		{16, "yes", false, true},
		{1, "yes", false, false},
	} {
		if got := ringRule(tc.clients, tc.env, tc.threadsSet, RingFrom, RingBelow); got != tc.want {
			t.Errorf("ringRule(%d clients, %s=%q, thread threshold set %v) = %v, want %v",
				tc.clients, RingEnv, tc.env, tc.threadsSet, got, tc.want)
		}
	}
}

// TestRoutineRule: a load of clients that are not statement clients takes
// the coroutine mode's range when they all claim it (TPC-C, Lua scripts),
// none otherwise: only RingEnv=1 then puts it on the ring.
func TestRoutineRule(t *testing.T) {
	t.Setenv(mysqlconn.ThreadBelowEnv, "") // the forced-path passes set it: it would keep every load off the ring
	for _, tc := range []struct {
		clients int
		env     string
		kind    ringKind
		want    bool
	}{
		{3, "", ringRoutines, false},
		{4, "", ringRoutines, true},
		{6, "", ringRoutines, true},
		{8, "", ringRoutines, true},
		{16, "", ringRoutines, true},
		// The threaded range of clients that claim it (threadBelow): off
		// the ring unless forced.
		{4, "", ringThreadedRoutines, true},
		{7, "", ringThreadedRoutines, true},
		{8, "", ringThreadedRoutines, false},
		{16, "", ringThreadedRoutines, false},
		{32, "", ringThreadedRoutines, false},
		{16, "1", ringThreadedRoutines, true},
		{33, "", ringThreadedRoutines, true},
		{128, "", ringThreadedRoutines, true},
		{129, "", ringThreadedRoutines, false},
		{6, "", ringStatements, false},
		{64, "", ringRoutines, true},
		{128, "", ringRoutines, true},
		{129, "", ringRoutines, false},
		{200, "", ringRoutines, false},
		// The statement ring's range goes further (to 256): the two were
		// measured apart.
		{200, "", ringStatements, true},
		{256, "", ringStatements, true},
		{257, "", ringStatements, false},
		{16, "0", ringRoutines, false},
		{16, "", ringForcedOnly, false},
		{64, "", ringForcedOnly, false},
		{16, "1", ringForcedOnly, true},
		{16, "0", ringForcedOnly, false},
	} {
		if got := ringChosen(tc.clients, tc.env, false, tc.kind); got != tc.want {
			t.Errorf("%d clients of kind %d, %s=%q: ring %v, want %v", tc.clients, tc.kind, RingEnv, tc.env, got, tc.want)
		}
	}
}

// TestThreadBelow: a coroutine load in the threaded range starts with
// RoutineThreadBelow as its thread threshold; a threshold the plan or
// mysqlconn.ThreadBelowEnv sets, statement loads and coroutine loads
// outside the range keep theirs.
func TestThreadBelow(t *testing.T) {
	for _, tc := range []struct {
		clients   int
		kind      ringKind
		plan      int
		threadEnv string
		want      int
	}{
		{RoutineThreadFrom - 1, ringThreadedRoutines, -1, "", -1},
		{RoutineThreadFrom, ringThreadedRoutines, -1, "", RoutineThreadBelow},
		{RoutineThreadBelow - 1, ringThreadedRoutines, -1, "", RoutineThreadBelow},
		{RoutineThreadBelow, ringThreadedRoutines, -1, "", -1},
		{16, ringRoutines, -1, "", -1},
		{16, ringStatements, -1, "", -1},
		{16, ringForcedOnly, -1, "", -1},
		{16, ringThreadedRoutines, 4, "", 4},
		{16, ringThreadedRoutines, 0, "", 0},
		{16, ringThreadedRoutines, -1, "0", -1},
		{16, ringThreadedRoutines, -1, "100000", -1},
		{16, ringThreadedRoutines, -1, "many", RoutineThreadBelow},
	} {
		t.Setenv(mysqlconn.ThreadBelowEnv, tc.threadEnv)
		if got := threadBelow(tc.clients, tc.kind, tc.plan); got != tc.want {
			t.Errorf("threadBelow(%d clients, kind %d, plan %d) with %s=%q = %d, want %d",
				tc.clients, tc.kind, tc.plan, mysqlconn.ThreadBelowEnv, tc.threadEnv, got, tc.want)
		}
	}
}

// TestRingChosenThreadEnv: mysqlconn.ThreadBelowEnv set to a threshold
// keeps a load in the ring's range off the ring (the forced-path test
// runs), a value mysqlconn ignores does not.
func TestRingChosenThreadEnv(t *testing.T) {
	for _, tc := range []struct {
		threadEnv string
		want      bool
	}{
		{"", true},
		{"0", false},
		{"100000", false},
		{"-1", true},
		{"many", true},
	} {
		t.Run(tc.threadEnv, func(t *testing.T) {
			t.Setenv(mysqlconn.ThreadBelowEnv, tc.threadEnv)
			if got := ringChosen(16, "", false, ringStatements); got != tc.want {
				t.Errorf("16 clients with %s=%q: ring %v, want %v", mysqlconn.ThreadBelowEnv, tc.threadEnv, got, tc.want)
			}
			if !ringChosen(16, "1", false, ringStatements) {
				t.Errorf("%s=1 did not force the ring with %s=%q", RingEnv, mysqlconn.ThreadBelowEnv, tc.threadEnv)
			}
		})
	}
}

// TestRingThreads: a ring thread per ringPerThread clients, at most one per
// P, so a load of the ring's default range uses every core it may.
func TestRingThreads(t *testing.T) {
	for _, c := range []struct{ clients, procs, want int }{
		{RingFrom, 2, 2},
		{16, 2, 2},
		{128, 2, 2},
		{16, 1, 1},
		{RoutineFrom, 2, 2},
		{2, 8, 1},
		{3, 8, 2},
		{16, 8, 8},
		{128, 64, 64},
	} {
		if got := ringThreads(c.clients, c.procs); got != c.want {
			t.Errorf("ringThreads(%d clients, %d Ps) = %d, want %d", c.clients, c.procs, got, c.want)
		}
	}
}

// TestRingLayout: from RaisedRingFrom clients a statement load runs on one
// raised ring per two Ps where the process may raise a thread; otherwise,
// and for the coroutine mode, a ring per P (ringThreads) at its priority.
func TestRingLayout(t *testing.T) {
	for _, c := range []struct {
		clients, procs int
		kind           ringKind
		mayRaise       bool
		want           int
		raised         bool
		asks           bool // the load is the raised ring's: mayRaise is asked (the probe's throwaway thread)
	}{
		{16, 2, ringStatements, true, 1, true, true},
		{32, 2, ringStatements, true, 1, true, true},
		{RaisedRingBelow, 2, ringStatements, true, 2, false, false},
		{64, 2, ringStatements, true, 2, false, false},
		{128, 2, ringStatements, true, 2, false, false},
		{RaisedRingFrom - 1, 2, ringStatements, true, 2, false, false},
		{8, 2, ringStatements, true, 2, false, false},
		{16, 2, ringStatements, false, 2, false, true},
		{16, 2, ringRoutines, true, 2, false, false},
		{16, 2, ringForcedOnly, true, 2, false, false},
		{16, 1, ringStatements, true, 1, true, true},
		{16, 3, ringStatements, true, 1, true, true},
		{32, 8, ringStatements, true, 4, true, true},
		{32, 8, ringStatements, false, 8, false, true},
	} {
		asked := false
		got, raised := ringLayout(c.clients, c.procs, c.kind, func() bool { asked = true; return c.mayRaise })
		if got != c.want || raised != c.raised {
			t.Errorf("ringLayout(%d clients, %d Ps, kind %d, may raise %v) = %d, %v; want %d, %v",
				c.clients, c.procs, c.kind, c.mayRaise, got, raised, c.want, c.raised)
		}
		if asked != c.asks {
			t.Errorf("ringLayout(%d clients, kind %d) asked mayRaise: %v, want %v", c.clients, c.kind, asked, c.asks)
		}
	}
}
