package slap

import (
	"io"
	"math/rand/v2"
	"sync"
	"sync/atomic"
	"time"
	"unsafe"

	"github.com/goslap/goslap/internal/mysqlconn"

	"github.com/goslap/goslap/internal/templates"
	"github.com/goslap/goslap/sqlgen"
)

// Worker connect retries, as mysqlslap: 10 attempts, 100 ms apart.
const (
	connectAttempts = 10
	connectBackoff  = 100 * time.Millisecond
)

// connectParallel bounds the connects in flight (see loadPhase.connect):
// below MariaDB's smallest automatic back_log (80) and Linux's somaxconn.
const connectParallel = 64

// abortGrace is how long an aborted load waits for clients to finish their
// current statement before it closes their sockets and KILLs their
// statements on the server.
const abortGrace = time.Second

// loadPhase is one iteration's timed load (spec 3.4, 3.5): one goroutine
// per client, each with its own connection, all released together.
type loadPhase struct {
	r        *runner
	clients  int
	limit    uint64
	keys     []string
	texts    []string // the query list, built once, read-only for clients
	needsKey []bool
	// queryLen is the length of the query list: len(texts), or the length
	// of a list too large to hold, which each client generates as it goes
	// (sqlgen.QueryCursor) while texts stays nil.
	queryLen int
	commit   uint64
	detach   int

	// stop is set on the first failure or on interruption; clients check
	// it between statements (a cancellable context per statement would
	// cost the driver a watcher hand-off on every call).
	stop    atomic.Bool
	failMu  sync.Mutex
	failure error
	failed  chan struct{}    // closed on the first failure
	slots   []mysqlconn.Slot // each client's current socket, for abort

	echoMu sync.Mutex // serialises the -vvv echo between clients

	// goslap's own options (own_run.go): per-client measurements and
	// template sources, the time shape of the phase, per-client limits.
	own       *runRandom
	seq       uint64 // load phase number (random streams)
	timing    loadTiming
	timeBound bool
	cs        []clientState
	limits    []uint64
	tmpl      []*templates.Template // --templates for texts; nil without
	progress  bool
	label     string // progress line: engine, clients, iteration
	base      time.Time
	// measured is the measured wall time of the phase (warm-up excluded).
	measured time.Duration
	lat      []clientLatency // each client's latencies, folded at the end

	connecting chan struct{}      // one token per connect in flight
	threads    *mysqlconn.Threads // the clients' path: thread per client or netpoller
}

func newLoadPhase(r *runner, clients int, limit uint64, keys []string) *loadPhase {
	lp := &loadPhase{
		r:       r,
		clients: clients,
		limit:   limit,
		keys:    keys,
		commit:  uint64(max(r.p.Commit, 0)),
		detach:  max(r.p.Detach, 0),
		failed:  make(chan struct{}),
		slots:   make([]mysqlconn.Slot, clients),

		connecting: make(chan struct{}, connectParallel),
	}
	lp.texts = make([]string, len(r.p.Query))
	lp.needsKey = make([]bool, len(r.p.Query))
	for i, s := range r.p.Query {
		lp.texts[i] = s.Text
		lp.needsKey[i] = s.NeedsKey
	}
	lp.queryLen = int(r.p.QueryLen())
	o := r.o
	lp.own = r.own
	lp.seq = r.own.loadSeq
	lp.timing = newLoadTiming(o, clients)
	lp.timeBound = timeBound(o)
	lp.tmpl = r.own.query
	lp.cs = make([]clientState, clients)
	lp.limits = make([]uint64, clients)
	// Latencies are kept per client in lp.lat and folded into one recorder
	// when the phase ends (clientlatency.go); cs[i].rec stays nil until then.
	lp.lat = make([]clientLatency, clients)
	for i := range lp.cs {
		lp.lat[i].Paced = lp.timing.paced
		if lp.tmpl != nil {
			lp.cs[i].rand = r.own.clientRand(lp.seq, i)
			lp.cs[i].buf = make([]byte, 0, 256)
		}
		lp.limits[i] = clientLimit(o, limit, clients, i)
		if lp.timeBound {
			lp.limits[i] = 0
		}
	}
	return lp
}

// run starts the clients, releases them at once and returns the iteration
// time in mysqlslap's milliseconds, or the first client error.
func (lp *loadPhase) run() (int64, error) {
	var ready, done sync.WaitGroup
	release := make(chan struct{})
	finished := make(chan struct{})
	ready.Add(lp.clients)
	done.Add(lp.clients)
	lp.threads = lp.r.workers.StartThreads(lp.clients, lp.r.o.Ext.threadBelow())
	defer lp.threads.Stop()
	for i := range lp.clients {
		go func(id int) {
			defer done.Done()
			ready.Done()
			<-release
			lp.client(id)
		}(i)
	}
	go func() { done.Wait(); close(finished) }()

	// Every goroutine is parked on the barrier before the clock starts, as
	// mysqlslap creates all threads before it signals them.
	ready.Wait()
	start := time.Now()
	lp.base = start
	close(release)

	var bar *progressLine
	if f := progressTerminal(lp.r.o, lp.r.out.Stderr); f != nil {
		lp.progress = true
		var total uint64
		for _, l := range lp.limits {
			total += l
		}
		var span time.Duration
		if lp.timing.deadline > 0 {
			span = lp.timing.deadline
		}
		bar = startProgress(f, lp.label, total, span, func() uint64 {
			var n uint64
			for i := range lp.cs {
				n += lp.cs[i].done.Load()
			}
			return n
		})
	}
	defer bar.end()

	var end time.Time
	select {
	case <-finished:
		end = time.Now()
	case <-lp.failed:
		lp.abort(finished)
	case <-lp.r.ctx.Done():
		lp.stop.Store(true)
		lp.abort(finished)
	}
	if err := lp.err(); err != nil {
		return 0, err
	}
	if err := lp.r.ctx.Err(); err != nil {
		return 0, err
	}
	// A warm-up is not part of the iteration's time.
	measuredFrom := start.Add(lp.timing.warmup)
	if end.Before(measuredFrom) {
		measuredFrom = end
	}
	lp.measured = end.Sub(measuredFrom)
	lp.foldLatency()
	return iterationMillis(measuredFrom, end), nil
}

// abort waits a moment for the clients to notice the stop flag, then breaks
// the connections of those still inside a statement, and waits for all.
func (lp *loadPhase) abort(finished <-chan struct{}) {
	select {
	case <-finished:
		return
	case <-time.After(abortGrace):
	}
	for i := range lp.slots {
		// Closing the socket unblocks the client; KILL makes the server stop
		// the statement and release its locks before we drop the schema.
		if id := lp.slots[i].Break(); id != 0 {
			_ = lp.r.main.Exec("KILL " + uitoa(uint64(id)))
		}
	}
	<-finished
}

// fail records the first client error and stops the others.
func (lp *loadPhase) fail(err error) {
	lp.failMu.Lock()
	defer lp.failMu.Unlock()
	if lp.failure != nil || lp.stop.Load() && lp.r.ctx.Err() != nil {
		// Errors after a stop are consequences of the abort, not causes.
		lp.stop.Store(true)
		return
	}
	lp.failure = err
	lp.stop.Store(true)
	close(lp.failed)
}

func (lp *loadPhase) err() error {
	lp.failMu.Lock()
	defer lp.failMu.Unlock()
	return lp.failure
}

// connect opens a client connection with mysqlslap's retries (10 × 100 ms),
// giving up early when the load is being stopped.
//
// At most connectParallel clients are inside a connect at once: thousands
// of simultaneous connects overflow the server's listen backlog (back_log,
// somaxconn) and fail with EAGAIN on a Unix socket or time out on TCP, and
// the server accepts them one by one anyway.
func (lp *loadPhase) connect(slot *mysqlconn.Slot) (*mysqlconn.Conn, error) {
	var err error
	for attempt := 0; attempt < connectAttempts; attempt++ {
		var c *mysqlconn.Conn
		lp.connecting <- struct{}{}
		c, err = lp.r.workers.Connect(slot)
		<-lp.connecting
		if err == nil {
			return c, nil
		}
		if lp.stop.Load() {
			return nil, err
		}
		time.Sleep(connectBackoff)
	}
	code, msg := lp.r.workers.ConnectError(err)
	return nil, Exitf(1, "Error when connecting to server: %d %s", code, msg)
}

// client is one simulated client (spec 3.5). Everything it touches on the
// way from one statement to the next is its own: connection, key buffer,
// random sources, counters, latency histogram.
//
// goslap's own options shape the loop: --warmup-time first cycles the list
// unmeasured until the warm-up is over; --run-time ends it at a deadline
// instead of a count; --rate paces every statement on the shared
// schedule; --ignore-errors keeps it going past errors (statement).
func (lp *loadPhase) client(id int) {
	slot := &lp.slots[id]
	lp.threads.Enter(slot)
	defer lp.threads.Leave(slot)
	conn, err := lp.connect(slot)
	if err != nil {
		lp.fail(err)
		return
	}
	c := &clientRun{lp: lp, id: id, slot: slot, conn: conn, own: &lp.cs[id], base: lp.base,
		timing: lp.timing, tmpl: lp.tmpl, keys: lp.keys, progress: lp.progress, cursor: lp.r.p.NewQueryCursor()}
	c.lat = &lp.lat[id]
	defer func() {
		if c.conn != nil {
			c.conn.Close()
		}
		slot.Clear()
	}()
	c.echo = lp.r.verbose >= 3
	if c.echo {
		lp.echo("connected!", false)
	}
	if lp.commit > 0 {
		if !lp.send(c.conn, "SET AUTOCOMMIT=0", c.echo) {
			return
		}
	}

	var (
		queries   uint64
		sinceCmt  uint64
		n         = lp.queryLen
		detach    = lp.detach
		limit     = lp.limits[id]
		commitEvr = lp.commit
		deadline  = lp.timing.deadline
		endless   = lp.timeBound
	)
	if len(c.keys) > 0 {
		// Own random source: a shared, locked generator would serialise the
		// clients. Seeded from the run's seed (--seed, or the random one
		// --json reports), so key choices are reproducible.
		c.rng = rand.New(rand.NewPCG(lp.own.seed, lp.seq<<24|uint64(id)))
	}
	// step runs statement pos with --detach and --commit around it; false
	// ends the client (c.ended tells a normal end from a failure).
	step := func(pos int, measure bool) bool {
		if lp.stop.Load() {
			return false
		}
		if detach > 0 && pos%detach == 0 {
			c.conn.Close()
			if c.conn, err = lp.connect(slot); err != nil {
				lp.fail(err)
				return false
			}
		}
		if !c.statement(pos, measure) {
			return false
		}
		if commitEvr > 0 {
			if sinceCmt++; sinceCmt == commitEvr {
				if !lp.send(c.conn, "COMMIT", c.echo) {
					return false
				}
				sinceCmt = 0
			}
		}
		return true
	}

	if warm := lp.timing.warmup; warm > 0 && n > 0 {
	warmup:
		for {
			for pos := range n {
				if time.Since(c.base) >= warm {
					break warmup
				}
				if !step(pos, false) {
					if c.ended {
						break warmup
					}
					return
				}
			}
		}
	}
	if c.cursor != nil {
		c.cursor.Reset() // the warm-up may have stopped inside the list
	}
passes:
	for n > 0 && !c.ended {
		for pos := range n {
			if !step(pos, true) {
				if c.ended {
					break passes
				}
				return
			}
			queries++
			if deadline > 0 && c.lastEnd >= deadline {
				break passes
			}
			if limit != 0 && queries == limit {
				break passes
			}
		}
		if !endless && (limit == 0 || queries >= limit) {
			break
		}
	}
	if commitEvr > 0 && c.conn != nil {
		lp.send(c.conn, "COMMIT", c.echo)
	}
}

// clientRun is one client's state for the duration of a load phase.
type clientRun struct {
	lp       *loadPhase
	id       int
	slot     *mysqlconn.Slot
	conn     *mysqlconn.Conn
	echo     bool
	own      *clientState
	lat      *clientLatency
	base     time.Time
	timing   loadTiming
	tmpl     []*templates.Template
	keys     []string
	keyBuf   []byte
	cursor   *sqlgen.QueryCursor // the query list when generated as it goes; nil: lp.texts
	queryBuf []byte              // cursor's statement text, reused
	rng      *rand.Rand
	k        uint64 // next slot of the --rate schedule
	n        uint64 // statements finished (progress)
	progress bool
	timer    *time.Timer
	lastEnd  time.Duration // end of the last statement, from base
	ended    bool          // the deadline ended the client normally
}

// statement executes statement pos once: it appends the key or renders the
// template, waits for the statement's slot on a --rate schedule, sends it,
// drains its results and records its latency when measure is set. It
// returns false when the client must end: c.ended for the deadline, else
// a failure or a stop.
func (c *clientRun) statement(pos int, measure bool) bool {
	lp := c.lp
	var text string
	var needsKey bool
	if c.cursor != nil {
		// The cursor's position is pos: clients go through the list in
		// order, one statement() per position.
		c.queryBuf, needsKey = c.cursor.Next(c.queryBuf[:0])
		text = unsafe.String(unsafe.SliceData(c.queryBuf), len(c.queryBuf))
	} else {
		text, needsKey = lp.texts[pos], lp.needsKey[pos]
	}
	switch {
	case needsKey:
		if len(c.keys) == 0 {
			// mysqlslap skips a key statement when t1 is empty but still
			// counts it as executed.
			return true
		}
		c.keyBuf = append(c.keyBuf[:0], text...)
		c.keyBuf = append(c.keyBuf, " '"...)
		c.keyBuf = append(c.keyBuf, c.keys[c.rng.IntN(len(c.keys))]...)
		c.keyBuf = append(c.keyBuf, '\'')
		// The driver copies the text into its packet buffer and keeps no
		// reference, so the reused buffer can be sent without a copy.
		text = unsafe.String(unsafe.SliceData(c.keyBuf), len(c.keyBuf))
	case c.tmpl != nil && c.tmpl[pos] != nil:
		c.own.buf = c.tmpl[pos].Append(c.own.buf[:0], c.own.rand)
		text = unsafe.String(unsafe.SliceData(c.own.buf), len(c.own.buf))
	}
	var due time.Duration
	if c.timing.paced {
		due = c.timing.pacer.Due(c.id, c.k)
		c.k++
		if c.timing.deadline > 0 && due >= c.timing.deadline {
			c.ended = true
			return false
		}
		if wait := due - time.Since(c.base); wait > 0 && !c.sleep(wait) {
			return false
		}
	}
	if c.echo {
		lp.echo(text, true)
	}
	t0 := time.Now()
	err := c.conn.Exec(text)
	t1 := time.Now()
	c.lastEnd = t1.Sub(c.base)
	if c.progress {
		c.n++
		c.own.done.Store(c.n)
	}
	if err != nil {
		return c.failed(err, text, measure)
	}
	if measure {
		if c.timing.paced {
			c.lat.RecordPaced(t1.Sub(t0), c.lastEnd-due, t0.Sub(c.base)-due)
		} else {
			c.lat.Record(t1.Sub(t0))
		}
	}
	if c.timing.deadline > 0 && c.lastEnd >= c.timing.deadline {
		c.ended = true
		return false
	}
	return true
}

// sleep waits d for a --rate slot; false when the load is stopped meanwhile.
func (c *clientRun) sleep(d time.Duration) bool {
	if c.timer == nil {
		c.timer = time.NewTimer(d)
	} else {
		c.timer.Reset(d)
	}
	select {
	case <-c.timer.C:
		return !c.lp.stop.Load()
	case <-c.lp.failed:
	case <-c.lp.r.ctx.Done():
	}
	c.timer.Stop()
	return false
}

// failed handles a statement error: without --ignore-errors (or for a
// code it does not list) the run stops with mysqlslap's message; else the
// error is counted and a broken connection is re-established with back-off.
func (c *clientRun) failed(err error, text string, measure bool) bool {
	lp := c.lp
	if lp.stop.Load() {
		return false
	}
	own := &lp.r.o.Ext
	code, msg, broken := classifyError(err)
	if !own.TolerantErrors() || !own.tolerates(code, broken) {
		lp.fail(Exitf(1, "Cannot run query %s ERROR : %s", text, mysqlconn.ErrorText(err)))
		return false
	}
	if measure {
		c.lat.recorder().Error(code, msg)
	}
	if !broken {
		return true
	}
	c.conn.Close()
	past := func() bool {
		return lp.stop.Load() || c.timing.deadline > 0 && time.Since(c.base) >= c.timing.deadline
	}
	conn, err := reconnect(func() (*mysqlconn.Conn, error) { return lp.r.workers.Connect(c.slot) }, past)
	if err != nil {
		if past() {
			c.conn = nil
			c.ended = !lp.stop.Load()
			return false
		}
		ecode, emsg := lp.r.workers.ConnectError(err)
		lp.fail(Exitf(1, "Error when connecting to server: %d %s", ecode, emsg))
		return false
	}
	c.conn = conn
	c.lat.recorder().Reconnects++
	if lp.commit > 0 {
		return lp.send(c.conn, "SET AUTOCOMMIT=0", c.echo)
	}
	return true
}

// send executes one statement, draining all its results; on error it
// records the failure (naming a copy of the statement) and returns false.
func (lp *loadPhase) send(conn *mysqlconn.Conn, stmt string, echo bool) bool {
	if echo {
		lp.echo(stmt, true)
	}
	if err := conn.Exec(stmt); err != nil {
		if !lp.stop.Load() {
			lp.fail(Exitf(1, "Cannot run query %s ERROR : %s", stmt, mysqlconn.ErrorText(err)))
		}
		return false
	}
	return true
}

// echo prints a client's line at -vvv; never called otherwise.
func (lp *loadPhase) echo(line string, statement bool) {
	lp.echoMu.Lock()
	defer lp.echoMu.Unlock()
	w := lp.r.out.Stdout
	io.WriteString(w, line)
	if statement {
		io.WriteString(w, ";\n")
	} else {
		io.WriteString(w, "\n")
	}
}

func uitoa(v uint64) string {
	var b [20]byte
	i := len(b)
	for {
		i--
		b[i] = byte('0' + v%10)
		v /= 10
		if v == 0 {
			break
		}
	}
	return string(b[i:])
}
