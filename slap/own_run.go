package slap

import (
	"crypto/rand"
	"database/sql/driver"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	mrand "math/rand"
	"net"
	"sync/atomic"
	"time"

	"github.com/goslap/goslap/internal/mysqlconn"

	"github.com/go-sql-driver/mysql"

	"github.com/goslap/goslap/internal/latency"
	"github.com/goslap/goslap/internal/pacer"
	"github.com/goslap/goslap/internal/templates"
	"github.com/goslap/goslap/sqlgen"
)

// ownRun is the run-wide state of goslap's own options (options_own.go),
// built once by Run before anything connects.
type ownRun struct {
	own  *OwnOptions
	seed uint64

	// Parsed --templates statements, parallel to the Plan's lists; nil
	// without --templates, nil entries for statements without placeholders.
	query, create, pre, post []*templates.Template
	// loadSeq numbers the load phases of the run: the random streams of
	// iteration n are derived from (seed, n, client), so a rerun with the
	// same --seed sends the same statements.
	loadSeq  uint64
	mainRand *mrand.Rand

	// Accumulated over the iterations of the current benchmark.
	bench        *latency.Recorder
	benchSeconds float64
}

// runSeed is --seed, or a random seed when none was given.
func runSeed(o *Options) uint64 {
	if o.Own.SeedSet {
		return o.Own.Seed
	}
	var b [8]byte
	_, _ = rand.Read(b[:])
	return binary.LittleEndian.Uint64(b[:]) >> 1 // fits a JSON number exactly below 2^63
}

func newOwnRun(o *Options, p *sqlgen.Plan, seed uint64) (*ownRun, error) {
	or := &ownRun{own: &o.Own, seed: seed}
	if !o.Own.Templates {
		return or, nil
	}
	var err error
	for _, l := range []struct {
		dst  *[]*templates.Template
		list []sqlgen.Statement
	}{{&or.query, p.Query}, {&or.create, p.Create}, {&or.pre, p.PreQuery}, {&or.post, p.PostQuery}} {
		if *l.dst, err = parseTemplates(l.list); err != nil {
			return nil, Exitf(1, "--templates: %v", err)
		}
	}
	return or, nil
}

// parseTemplates parses a statement list; nil when none has placeholders.
func parseTemplates(list []sqlgen.Statement) ([]*templates.Template, error) {
	var out []*templates.Template
	for i, s := range list {
		t, err := templates.Parse(s.Text)
		if err != nil {
			return nil, err
		}
		if t.Static() {
			continue
		}
		if out == nil {
			out = make([]*templates.Template, len(list))
		}
		out[i] = t
	}
	return out, nil
}

// nextLoad starts a new load phase's random streams and returns its number.
func (or *ownRun) nextLoad() uint64 {
	or.loadSeq++
	or.mainRand = nil
	return or.loadSeq
}

// clientRand is client's template source in load phase seq.
func (or *ownRun) clientRand(seq uint64, client int) *mrand.Rand {
	return templates.NewSource(or.seed, seq<<24|uint64(client))
}

// mainText renders statement i of a main-connection list (create, pre,
// post) for the current load phase; text is returned as is without a
// template.
func (or *ownRun) mainText(list []*templates.Template, i int, text string) string {
	if or == nil || list == nil || list[i] == nil {
		return text
	}
	if or.mainRand == nil {
		or.mainRand = templates.NewSource(or.seed, 1<<63|or.loadSeq)
	}
	return list[i].Render(or.mainRand)
}

// clientLimit is client's share of the queries: --exact-count spreads the
// remainder of --number-of-queries over the first clients.
func clientLimit(o *Options, limit uint64, clients, client int) uint64 {
	if !o.Own.ExactCount || o.NumberOfQueries == 0 {
		return limit
	}
	n, c := o.NumberOfQueries, uint64(clients)
	l := n / c
	if uint64(client) < n%c {
		l++
	}
	return l
}

// timeBound reports whether clients run until --run-time rather than
// until a per-client limit: with --run-time and no explicit count.
func timeBound(o *Options) bool {
	return o.Own.RunTime > 0 && o.NumberOfQueries == 0 && o.ExecuteNumber == 0
}

// clientOwn is one client's own state for goslap's measurements. Only its
// client writes it during the load; done is read by the progress line.
type clientOwn struct {
	rec  *latency.Recorder
	done atomic.Uint64 // queries finished, warm-up included (progress)
	rand *mrand.Rand   // --templates source
	buf  []byte        // rendered statement, reused
	_    [64]byte      // keep neighbouring clients' counters off this cache line
}

// loadTiming is the shape of one load phase in time: all offsets are from
// the moment the clients are released.
type loadTiming struct {
	warmup   time.Duration // measured queries start after this
	deadline time.Duration // clients stop starting queries after this; 0 = none
	paced    bool
	pacer    pacer.Pacer
}

func newLoadTiming(o *Options, clients int) loadTiming {
	t := loadTiming{warmup: o.Own.WarmupTime}
	if o.Own.RunTime > 0 {
		t.deadline = o.Own.WarmupTime + o.Own.RunTime
	}
	if o.Own.Rate > 0 {
		t.paced = true
		t.pacer = pacer.Pacer{Rate: o.Own.Rate, Clients: clients}
	}
	return t
}

// beginBenchmark starts accumulating a benchmark's iterations.
func (or *ownRun) beginBenchmark() {
	or.bench = latency.NewRecorder(or.own.Rate > 0)
	or.benchSeconds = 0
}

// addIteration merges one load phase's client recorders.
func (or *ownRun) addIteration(cs []clientOwn, measured time.Duration) {
	for i := range cs {
		if cs[i].rec != nil {
			or.bench.Merge(cs[i].rec)
		}
	}
	or.benchSeconds += measured.Seconds()
}

// finishBenchmark fills res's Measurements and warns on stderr when a
// --rate was not held.
func (or *ownRun) finishBenchmark(res *BenchmarkResult, o *Options, stderr io.Writer) {
	res.finishMeasurements(or.bench, or.benchSeconds)
	if timeBound(o) && res.Concurrency > 0 {
		// "Average number of queries per client" of a time-bound run is
		// what the clients executed, not a configured limit.
		iters := uint64(max(len(res.IterationMillis), 1))
		res.QueriesPerClient = res.Executed / uint64(res.Concurrency) / iters
	}
	if o.Own.Rate > 0 {
		res.TargetRate = o.Own.Rate
		p := pacer.Pacer{Rate: o.Own.Rate, Clients: res.Concurrency}
		res.RateKept = p.Kept(res.QPS)
		if !res.RateKept {
			fmt.Fprintf(stderr, "%s: warning: the clients could not keep --rate=%g: achieved %.1f queries per second (%d clients, largest start delay %v)\n",
				ProgName, o.Own.Rate, res.QPS, res.Concurrency, res.MaxLag.Round(time.Millisecond))
		}
	}
	if res.Errors > 0 && !o.Own.Latency && !o.Silent {
		// Ignored errors are always worth a word, even without --latency.
		for _, e := range res.ErrorsByCode {
			fmt.Fprintf(stderr, "%s: ignored error %d %d times (%s)\n", ProgName, e.Code, e.Count, e.Message)
		}
	}
}

// Error codes of a connection that is gone.
const (
	crServerGoneError  = 2006 // CR_SERVER_GONE_ERROR
	crServerLost       = 2013 // CR_SERVER_LOST
	erConnectionKilled = 1927 // ER_CONNECTION_KILLED (MariaDB)
	erServerShutdown   = 1053 // ER_SERVER_SHUTDOWN
)

// classifyError returns the error code goslap counts err under, its
// message, and whether the connection can no longer be used. Client-side
// failures (lost socket, driver's invalid connection) count as 2013.
func classifyError(err error) (code uint16, msg string, broken bool) {
	var me *mysql.MySQLError
	if errors.As(err, &me) {
		switch me.Number {
		case crServerGoneError, crServerLost, erConnectionKilled, erServerShutdown:
			broken = true
		}
		return me.Number, me.Message, broken
	}
	var ne net.Error
	if errors.Is(err, driver.ErrBadConn) || errors.Is(err, mysql.ErrInvalidConn) || errors.Is(err, io.EOF) ||
		errors.Is(err, io.ErrUnexpectedEOF) || errors.As(err, &ne) {
		return crServerLost, "Lost connection to server during query (" + err.Error() + ")", true
	}
	return crServerLost, err.Error(), true
}

// tolerates reports whether --ignore-errors lets a client go on after an
// error with code; a broken connection also needs reconnecting, which
// happens when its code, 2013, 2006 or 1927 is listed, or all.
func (own *OwnOptions) tolerates(code uint16, broken bool) bool {
	if own.Tolerates(code) {
		return true
	}
	return broken && (own.IgnoreCodes[crServerLost] || own.IgnoreCodes[crServerGoneError] || own.IgnoreCodes[erConnectionKilled])
}

// Reconnect back-off: 10 ms doubling up to 1 s, for at most reconnectFor.
const (
	reconnectFirst = 10 * time.Millisecond
	reconnectMax   = time.Second
	reconnectFor   = 60 * time.Second
)

// reconnect opens a new connection after one broke, retrying with back-off
// until it succeeds, stop() says the load is over, or reconnectFor passes.
func reconnect(connect func() (*mysqlconn.Conn, error), stop func() bool) (*mysqlconn.Conn, error) {
	wait := reconnectFirst
	deadline := time.Now().Add(reconnectFor)
	for {
		c, err := connect()
		if err == nil {
			return c, nil
		}
		if stop() || time.Now().After(deadline) {
			return nil, err
		}
		time.Sleep(wait)
		wait = min(wait*2, reconnectMax)
	}
}
