package slap

import (
	"io"
	"math/rand/v2"
	"sync"
	"sync/atomic"
	"time"
	"unsafe"
)

// Worker connect retries, as mysqlslap: 10 attempts, 100 ms apart.
const (
	connectAttempts = 10
	connectBackoff  = 100 * time.Millisecond
)

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
	commit   uint64
	detach   int

	// stop is set on the first failure or on interruption; clients check
	// it between statements (a cancellable context per statement would
	// cost the driver a watcher hand-off on every call).
	stop    atomic.Bool
	failMu  sync.Mutex
	failure error
	failed  chan struct{} // closed on the first failure
	slots   []connSlot    // each client's current socket, for abort

	echoMu sync.Mutex // serialises the -vvv echo between clients
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
		slots:   make([]connSlot, clients),
	}
	lp.texts = make([]string, len(r.p.Query))
	lp.needsKey = make([]bool, len(r.p.Query))
	for i, s := range r.p.Query {
		lp.texts[i] = s.Text
		lp.needsKey[i] = s.NeedsKey
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
	close(release)

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
	return iterationMillis(start, end), nil
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
		tc := lp.slots[i].conn.Load()
		if tc == nil {
			continue
		}
		// Closing the socket unblocks the client; KILL makes the server stop
		// the statement and release its locks before we drop the schema.
		_ = tc.Conn.Close()
		if id := tc.id.Load(); id != 0 {
			_ = lp.r.main.exec("KILL " + uitoa(uint64(id)))
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
func (lp *loadPhase) connect(slot *connSlot) (*dbConn, error) {
	var err error
	for attempt := 0; attempt < connectAttempts; attempt++ {
		var c *dbConn
		if c, err = lp.r.workers.connect(slot); err == nil {
			return c, nil
		}
		if lp.stop.Load() {
			return nil, err
		}
		time.Sleep(connectBackoff)
	}
	cfg := lp.r.workers.cfg
	code, msg := ConnectError(err, cfg.Net, cfg.Addr)
	return nil, Exitf(1, "Error when connecting to server: %d %s", code, msg)
}

// client is one simulated client (spec 3.5). Everything it touches on the
// way from one statement to the next is its own: connection, key buffer,
// random source, counters.
func (lp *loadPhase) client(id int) {
	slot := &lp.slots[id]
	conn, err := lp.connect(slot)
	if err != nil {
		lp.fail(err)
		return
	}
	defer func() { conn.close(); slot.conn.Store(nil) }()
	echo := lp.r.verbose >= 3
	if echo {
		lp.echo("connected!", false)
	}
	if lp.commit > 0 {
		if !lp.send(conn, "SET AUTOCOMMIT=0", echo) {
			return
		}
	}

	var (
		queries   uint64
		sinceCmt  uint64
		keyBuf    []byte
		rng       *rand.Rand
		texts     = lp.texts
		needsKey  = lp.needsKey
		keys      = lp.keys
		detach    = lp.detach
		limit     = lp.limit
		commitEvr = lp.commit
	)
	if len(keys) > 0 {
		// Own random source: a shared, locked generator would serialise the clients.
		rng = rand.New(rand.NewPCG(uint64(time.Now().UnixNano()), uint64(id)))
	}
passes:
	for len(texts) > 0 {
		for pos, text := range texts {
			if lp.stop.Load() {
				return
			}
			if detach > 0 && pos%detach == 0 {
				conn.close()
				if conn, err = lp.connect(slot); err != nil {
					lp.fail(err)
					return
				}
			}
			if needsKey[pos] {
				if len(keys) == 0 {
					// mysqlslap skips a key statement when t1 is empty but
					// still counts it as executed.
					goto counted
				}
				keyBuf = append(keyBuf[:0], text...)
				keyBuf = append(keyBuf, " '"...)
				keyBuf = append(keyBuf, keys[rng.IntN(len(keys))]...)
				keyBuf = append(keyBuf, '\'')
				// The driver copies the text into its packet buffer and keeps
				// no reference, so the reused buffer can be sent without a copy.
				text = unsafe.String(unsafe.SliceData(keyBuf), len(keyBuf))
			}
			if !lp.send(conn, text, echo) {
				return
			}
		counted:
			queries++
			if commitEvr > 0 {
				if sinceCmt++; sinceCmt == commitEvr {
					if !lp.send(conn, "COMMIT", echo) {
						return
					}
					sinceCmt = 0
				}
			}
			if limit != 0 && queries == limit {
				break passes
			}
		}
		if limit == 0 || queries >= limit {
			break
		}
	}
	if commitEvr > 0 {
		lp.send(conn, "COMMIT", echo)
	}
}

// send executes one statement, draining all its results; on error it
// records the failure (naming a copy of the statement) and returns false.
func (lp *loadPhase) send(conn *dbConn, stmt string, echo bool) bool {
	if echo {
		lp.echo(stmt, true)
	}
	if err := conn.exec(stmt); err != nil {
		if !lp.stop.Load() {
			lp.fail(Exitf(1, "Cannot run query %s ERROR : %s", stmt, errorText(err)))
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
