package engine

import (
	"os"
	"strconv"
	"strings"

	"github.com/goslap/goslap/internal/mysqlconn"
)

// The ring path's default range in clients: a load of RingFrom clients or
// more and fewer than RingBelow runs on the ring path when it is eligible
// (ringWanted's other conditions) and io_uring is there (startRings falls
// back to the other paths otherwise). Measured on mysqlslap's key load,
// both servers, the ring, the thread-per-client and the netpoller paths at
// 2 to 1000 clients (BENCHMARKS.md, "Client paths by client count"):
//
//   - below mysqlconn.DefaultThreadBelow the threaded path's wall time is
//     the shorter: at 2 and 4 clients 0.67-0.90x mariadb-slap's on both
//     servers against the ring's 0.79-1.15x, at 6 on the default server
//     (level on the tuned one), at 0.82-1.08x its CPU (the ring's
//     0.74-1.06x); so the ring starts where the threaded path stops;
//   - from 8 to 128 clients the ring's client CPU is the lowest of the
//     three (0.43-0.96x mariadb-slap's, typically 0.5-0.75x; the
//     netpoller's typically 0.8-0.9x) at a wall time level with the
//     netpoller's;
//   - from 256 clients its one thread per 1024 clients (ringpath.go's
//     ringPerThread) makes the server spend more CPU than the netpoller
//     does (up to 1.4x at 512, more than the client saves) and its wall
//     is the longer in most sets (256: 3 of 4, 512: 2 of 4, 1000: all 4),
//     so from 129 (129-255 were not measured and keep the netpoller, the
//     path they had before) the netpoller keeps the load.
const (
	RingFrom  = mysqlconn.DefaultThreadBelow
	RingBelow = 129
)

// ringChosen reports whether a load of clients is meant for the ring path
// (ringWanted then checks that it can run there): ringEnv, RingEnv's
// value, "1" forces it, "0" forbids it; otherwise the default range,
// unless the thread-per-client threshold was chosen explicitly
// (threadsSet: the plan's ThreadPerClientBelow, or mysqlconn.ThreadBelowEnv
// in the environment).
// That choice is between the other two paths, and is how the test suites
// and the benchmarks force one of them, so it keeps the load off the ring
// as it did before the ring had a default.
//
// statements: every client gives its units as statements; otherwise the
// load would run in the coroutine mode, whose range is RoutineFrom to
// RoutineBelow.
func ringChosen(clients int, ringEnv string, threadsSet, statements bool) bool {
	from, below := RingFrom, RingBelow
	if !statements {
		from, below = RoutineFrom, RoutineBelow
	}
	return ringRule(clients, ringEnv, threadsSet || threadBelowInEnv(), from, below)
}

// ringRule is ringChosen's rule on its inputs.
func ringRule(clients int, ringEnv string, threadsSet bool, from, below int) bool {
	switch strings.TrimSpace(ringEnv) {
	case "1":
		return true
	case "0":
		return false
	}
	return !threadsSet && clients >= from && clients < below
}

// The coroutine mode's default range (ringroutine.go: clients that are
// not statement clients, TPC-C first, Lua scripts): empty, so only
// RingEnv=1 puts such a load on the ring. Measured on TPC-C (1 warehouse,
// 8, 16 and 64 connections, both servers, against the netpoller path and
// tpcc_start; BENCHMARKS.md, "TPC-C on the ring: the client loop as a
// coroutine") on a machine at load 6-17 on 2 cores: in-process, alternated
// 3 s runs gave the coroutine mode 0.90-0.94x the netpoller path's client
// CPU per transaction (medians of 5 pairs at each count), but the
// oltpbench runs (separate processes, medians of 5 or 7) gave it
// 0.77-1.37x, at 16 connections 0.98-1.32x (worse in 5 server passes of
// 6), tpmC level within the noise: its process spent about the
// netpoller's CPU in all while completing fewer transactions, a cost that
// follows time (the ring wait's Syscall6 keeps sysmon polling; a
// RawSyscall6 experiment took 22 % off the mode's CPU per transaction). No count where it clearly wins: it stays opt-in until a quieter
// measurement (or a cheaper ring wait) shows one. Lua's ro-16 through the
// interpreter ran at 0.81x sysbench's CPU per transaction in it against
// the netpoller's 0.96x (one set, default server).
const (
	RoutineFrom  = 0
	RoutineBelow = 0
)

// threadBelowInEnv reports whether mysqlconn.ThreadBelowEnv sets the
// threshold (a whole number of 0 or more, as mysqlconn reads it).
func threadBelowInEnv() bool {
	v, err := strconv.Atoi(strings.TrimSpace(os.Getenv(mysqlconn.ThreadBelowEnv)))
	return err == nil && v >= 0
}
