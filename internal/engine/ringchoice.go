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
//   - from 256 clients the ring (then one thread per 1024 clients;
//     ringpath.go's ringPerThread) made the server spend more CPU than
//     the netpoller does (up to 1.4x at 512, more than the client saves)
//     and its wall was the longer in most sets (256: 3 of 4, 512: 2 of 4,
//     1000: all 4), so RingBelow was 129 then.
//
// Measured again with the ring as it is now (its wait a raw system call,
// the receive waiting for the socket first; BENCHMARKS.md, "The ring from
// 129 clients, again"), at 256 clients on 2 cores (a ring per P) the
// ring's wall was the shorter on both servers (0.77-0.80x mariadb-slap's
// against 0.82-0.86x) at 0.38-0.41x its CPU (0.70-0.72x), and sysbench's
// rows at 256 threads had 0.96-1.21x the netpoller's tps in 10 of 11
// row-server cells (0.84x in the other) at 0.57-0.77x its CPU per
// transaction. Its p99 latency was the longer there (oltp_read_only:
// 217-342 ms against 190-237 ms; sysbench's 320 ms), as a ring per P's
// already was at 64 clients (71-105 ms against 51-57 ms), and its p95 the
// shorter. At 512 and 1000 it still saved CPU (0.6-0.8x the netpoller's)
// at a level tps, but its p99 latency was 2-4 times the netpoller's at
// 512 (oltp_read_only: 0.72-1.49 s against 0.35-0.42 s; sysbench's own
// 0.82-1.48 s) and 1.2-1.8 times at 1000, with 2 to 16 ring threads, and
// the key load's wall at 1000 and 2000 was only level (the server spent
// 0.3-0.5 s more per run): from 257 the netpoller keeps the load.
// 129-255 were measured at 160, 192 and 224 (BENCHMARKS.md, "The ring from
// 129 to 256 clients: 160 and 224"): at 160 and 224 the key load's wall was
// 0.73-0.79x mariadb-slap's on the ring against the netpoller's 0.79-0.95x,
// sysbench's rows had the higher tps in 4 of 6 (rw-224 1.37x sysbench's
// against 1.43x) at 0.5-0.7x the netpoller's CPU per transaction, and the
// ring's p99 was the longer in three of four oltp_read_only runs, below
// sysbench's in all.
//
// Statement loads of 7 and 8 clients on a thread per client, every client
// unlocked from its thread, against the ring (BENCHMARKS.md, "Statement
// loads of 7 and 8 clients threaded and unlocked"; medians of 5 and 7
// alternated runs): oltp_read_only at 8 threads gained (1.03x and 1.01x
// sysbench's tps against 0.95x and 0.91x, default and tuned server), but
// oltp_point_select on the tuned server lost (0.96x against 1.03x) and
// mysqlslap's key load at 8 clients spent 0.89-0.91x mariadb-slap's CPU
// against 0.66-0.73x (its statements went through the driver then): the
// ring keeps them. Measured again with the lean text path
// (mysqlconn/leantext.go; BENCHMARKS.md, "Statement loads of 8 clients
// threaded, again"): the key load's CPU 0.84-0.90x against 0.74-0.75x at
// a level wall; in five sets of sysbench's rows at 8 (both servers) the
// threaded path had the higher oltp_read_only tps in all five (by
// 0.02-0.10 of sysbench's), the lower oltp_point_select tps in four and
// oltp_read_write in three, at up to a fifth more client CPU; at 12 the
// ring had the higher tps in all three rows. Built as the default for 7
// and 8 clients, it missed oltp_read_write (0.96x) and oltp_read_only
// (0.99x) where the ring missed oltp_read_only (0.97x): the ring keeps
// them still.
const (
	RingFrom  = mysqlconn.DefaultThreadBelow
	RingBelow = 257
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
// kind says which default range applies: the statement ring's (RingFrom
// to RingBelow), the coroutine mode's (RoutineFrom to RoutineBelow; for
// ringThreadedRoutines without the threaded range, RoutineThreadFrom to
// RoutineThreadBelow-1, which threadBelow gives a thread per client), or
// none (ringForcedOnly: clients that do not claim the coroutine mode run
// on the ring only when RingEnv forces it).
func ringChosen(clients int, ringEnv string, threadsSet bool, kind ringKind) bool {
	from, below := RingFrom, RingBelow
	switch kind {
	case ringRoutines:
		from, below = RoutineFrom, RoutineBelow
	case ringThreadedRoutines:
		from, below = RoutineFrom, RoutineBelow
		if clients >= RoutineThreadFrom && clients < RoutineThreadBelow {
			from, below = 0, 0 // the threaded range: only RingEnv=1 puts it on the ring
		}
	case ringForcedOnly:
		from, below = 0, 0
	}
	return ringRule(clients, ringEnv, threadsSet || threadBelowInEnv(), from, below)
}

// ringKind is how a load's clients would run on the ring path.
type ringKind uint8

const (
	ringStatements       ringKind = iota // every client a workload.StatementClient
	ringRoutines                         // the others all workload.CoroutineClients (the coroutine mode)
	ringThreadedRoutines                 // as ringRoutines, and all workload.ThreadedClients: threaded in RoutineThreadFrom to RoutineThreadBelow-1
	ringForcedOnly                       // some client neither: the coroutine mode, only when forced
)

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

// The coroutine mode's default range (ringroutine.go), for loads whose
// clients all claim it (workload.CoroutineClient: TPC-C, Lua scripts). With the ring's
// wait a raw system call (uring.go), TPC-C at 8, 16 and 64 connections
// against the netpoller path and tpcc_start, both servers, medians of 5
// alternated runs (BENCHMARKS.md, "The ring's wait as a raw system call"):
// client CPU per transaction 0.70-0.82x tpcc_start's against the
// netpoller's 0.88-1.03x, and the higher tpmC in all six row-server pairs
// (0.93-1.16x against 0.84-1.13x). Before that change (Syscall6) the mode
// saved no CPU in separate processes (0.77-1.37x the netpoller's; section
// "TPC-C on the ring: the client loop as a coroutine"). The range starts
// at 4 clients, below the statement ring's 7: two rings of two clients
// against the threaded path at 2, 4 and 6 connections, both servers
// (BENCHMARKS.md, "TPC-C from 4 connections on two rings"), had at 4 the
// tpmC 1.04-1.38x tpcc_start's against 0.91-1.06x, at 0.69-0.93x its CPU
// per transaction against 0.96-1.05x (four sets); at 6 1.02x against
// 1.02x on the default server and 1.03x against 1.08x on the tuned one,
// at the same or lower CPU; at 2 (one ring) the higher tpmC on the default
// server and the lower on the tuned one, so 2 and 3 stay threaded. 65-128 were
// not measured apart from the sweep's neighbours, and from 129 the
// netpoller keeps it, as it kept statement loads until they took the ring
// up to 256 (not measured for the coroutine mode). Lua scripts claim it too since their sleeps wait through the
// engine (workload.Waiter): sysbench's stock scripts through goslap's
// interpreter at 8, 16 and 64 threads, both servers, against the same
// scripts on the netpoller (BENCHMARKS.md, "Lua scripts in the coroutine
// mode by default"): CPU per transaction lower in 12 of 12 row-server
// pairs (0.69-1.14x sysbench's against 0.77-1.29x), tps higher in 10 and
// level in 2. With one ring thread per load it had held ro-16 and ro-64
// below the netpoller's tps.
const (
	RoutineFrom  = 4
	RoutineBelow = 129
)

// The coroutine mode's threaded range: a load of RoutineThreadFrom to
// RoutineThreadBelow-1 clients that all claim it too
// (workload.ThreadedClient: TPC-C on one warehouse) runs a thread per
// client instead of on the ring (threadBelow), unless RingEnv or a thread
// threshold (the plan's, or mysqlconn.ThreadBelowEnv) says otherwise.
// Measured with TPC-C on one warehouse at 4, 8, 16, 32 and 64 connections,
// both servers, medians of 5 alternated runs against tpcc_start
// (BENCHMARKS.md, "TPC-C on a thread per client from 8 connections"): at
// 8, 16 and 32 the threaded path had the higher tpmC in all six
// row-server cells (1.04-1.20x tpcc_start's against the ring's
// 0.91-1.07x), at the lower CPU per transaction in five (0.81-1.03x
// against 0.86-1.12x). On the ring the cores idle more: at 16 connections
// (tuned server) perf counted 12.5-12.9 power:cpu_idle events per
// transaction on the ring, 5.9-7.0 under tpcc_start and 2.7-3.0 threaded
// (inter-processor interrupts 12.8-13.1, 6.4-7.8 and 2.2-2.5); each idle
// core is woken by an interrupt, and the server's system time per
// transaction was 586-674 us on the ring, 565-671 under tpcc_start and
// 441-472 threaded. At 4 connections the ring's tpmC was the higher on the
// default server (1.27x against 1.04x) and the lower on the tuned one
// (0.99x against 1.16x), as in earlier sets it was the higher (section
// "TPC-C from 4 connections on two rings"): 4 to 7 keep the ring. At 64
// the threaded client's CPU per transaction was 1.42-1.44x tpcc_start's
// (the ring's 0.94-1.07x). 33 to 63 were not measured.
const (
	RoutineThreadFrom  = 8
	RoutineThreadBelow = 33
)

// threadBelow is the thread-per-client threshold a load of clients of kind
// that is not on the ring starts with (mysqlconn.Connector.StartThreads'
// below; -1: mysqlconn's default): planBelow where the plan sets one (0 or
// more), and mysqlconn's default where mysqlconn.ThreadBelowEnv sets it;
// otherwise RoutineThreadBelow for a coroutine load in the threaded range.
func threadBelow(clients int, kind ringKind, planBelow int) int {
	if planBelow >= 0 || kind != ringThreadedRoutines || threadBelowInEnv() {
		return planBelow
	}
	if clients >= RoutineThreadFrom && clients < RoutineThreadBelow {
		return RoutineThreadBelow
	}
	return -1
}

// threadBelowInEnv reports whether mysqlconn.ThreadBelowEnv sets the
// threshold (a whole number of 0 or more, as mysqlconn reads it).
func threadBelowInEnv() bool {
	v, err := strconv.Atoi(strings.TrimSpace(os.Getenv(mysqlconn.ThreadBelowEnv)))
	return err == nil && v >= 0
}
