package shard

import (
	"context"
	"errors"
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/goslap/goslap/internal/mysqlconn"
)

// DefaultBarrierDelay is the wait after the barrier's last arrival when
// --start-at=barrier gives none: long enough for every poller (50 ms
// apart) to have seen the last arrival and to sleep to the instant.
const DefaultBarrierDelay = time.Second

// LateTolerance is how late a shard may reach the start before
// --late-start=fail refuses to run it (lateness is recorded whatever it is).
const LateTolerance = time.Second

// StartAt is --start-at's value: a wall-clock instant, or the database
// barrier (start = server time of the last shard's arrival + Delay).
type StartAt struct {
	At      time.Time // the instant; zero with Barrier
	Barrier bool
	Delay   time.Duration // Barrier only
	Text    string        // as given (part of the default run id)
}

// Active reports a --start-at given.
func (s StartAt) Active() bool { return s.Barrier || !s.At.IsZero() }

// ParseStartAt reads --start-at: RFC 3339 (fractions of a second allowed,
// 2026-12-03T16:00:00.250Z), now+DURATION (now being the shard's clock when
// it parses), barrier or barrier+DURATION.
func ParseStartAt(v string, now time.Time) (StartAt, error) {
	v = strings.TrimSpace(v)
	s := StartAt{Text: v}
	plus := func(prefix string) (time.Duration, bool, error) {
		rest, ok := strings.CutPrefix(strings.ToLower(v), prefix)
		if !ok {
			return 0, false, nil
		}
		if rest == "" && prefix == "barrier" {
			return DefaultBarrierDelay, true, nil
		}
		d, err := time.ParseDuration(strings.TrimPrefix(rest, "+"))
		if err != nil || !strings.HasPrefix(rest, "+") || d < 0 {
			return 0, true, fmt.Errorf("--start-at=%s: want %s+DURATION with a duration such as 3s or 1m30s", v, prefix)
		}
		return d, true, nil
	}
	if d, ok, err := plus("now"); ok {
		if err != nil {
			return StartAt{}, err
		}
		s.At = now.Add(d)
		return s, nil
	}
	if d, ok, err := plus("barrier"); ok {
		if err != nil {
			return StartAt{}, err
		}
		s.Barrier, s.Delay = true, d
		return s, nil
	}
	t, err := time.Parse(time.RFC3339Nano, v)
	if err != nil {
		return StartAt{}, fmt.Errorf("--start-at=%s: want an RFC 3339 time (2026-12-03T16:00:00.5Z), now+DURATION or barrier[+DURATION]", v)
	}
	s.At = t
	return s, nil
}

// ParseLateStart reads --late-start: "run" (start at once, recording how
// late) or "fail" (an error when later than LateTolerance).
func ParseLateStart(v string) (fail bool, err error) {
	switch strings.ToLower(strings.TrimSpace(v)) {
	case "run":
		return false, nil
	case "fail":
		return true, nil
	}
	return false, fmt.Errorf("--late-start=%s: want run or fail", v)
}

var runIDChars = regexp.MustCompile(`^[A-Za-z0-9._:-]{1,64}$`)

// CheckRunID refuses a run id the barrier table cannot hold as given.
func CheckRunID(id string) error {
	if !runIDChars.MatchString(id) {
		return fmt.Errorf("--run-id=%s: use 1 to 64 letters, digits, '.', '_', ':' or '-'", id)
	}
	return nil
}

// DB is the connection the barrier goes through (mysqlconn.Conn).
type DB interface {
	Exec(stmt string) error
	Query(stmt string) ([][][]byte, error)
}

// BarrierTable is created in the benchmark's schema. Rounds: 1, 2, ... are
// the starts of the measured iterations; readyRound(k) is shard 0's "data
// prepared" for step k, doneRound(k) every shard's "finished" of step k,
// which shard 0 awaits before it cleans up. Step 0 is the whole run (a
// --workload study prepares once); mysqlslap's workload prepares its data
// again for every load, its steps are the loads 1, 2, ...
//
// Round 0 holds the abort rows: a shard that ends with an error writes
// one (Abort) naming its error in note, and every wait ends as soon as it
// sees one (AbortError) instead of waiting out Timeout.
const BarrierTable = "goslap_shard_barrier"

const abortRound = 0

func readyRound(step int) int { return -2*step - 1 }
func doneRound(step int) int  { return -2*step - 2 }

// pollEvery is the barrier's polling period; staleAfter the age past which
// rows of an earlier run with the same id are not counted. Shard 0 removes
// the run's rows when it ends and before it prepares; only a run that
// crashed less than staleAfter ago can leave a "prepared" row that a shard
// of the next run with the same id reads before shard 0 removes it (give
// --run-id to tell runs apart).
const (
	pollEvery  = 50 * time.Millisecond
	staleAfter = 10 * time.Minute
)

// ErrLate is a start reached later than LateTolerance with --late-start=fail.
var ErrLate = errors.New("late for the shared start")

// ErrGaveUp is a wait for other shards that outlasted Timeout.
var ErrGaveUp = errors.New("gave up waiting for the other shards")

// AbortError is a wait ended by another shard's abort row.
type AbortError struct {
	By    Spec   // the shard that aborted
	Cause string // its error, one line
}

func (e *AbortError) Error() string { return "shard " + e.By.String() + " aborted the run: " + e.Cause }

// abortWithin bounds Abort: a shard that failed writes its abort row on
// the way out, and a server that does not answer must not hold it.
const abortWithin = 2 * time.Second

// startSkew is how much earlier than a shard the other shards of its
// run may begin (processes of one shell loop, pods of one Job): an abort
// row written that long before the shard began is its run's (a shard 0
// whose prepare failed at once), an older one an earlier run's. A run
// started again within startSkew of an aborted run with the same id may
// read the old abort; shards begun further apart than startSkew miss an
// abort written before they began and wait out Timeout.
const startSkew = 5 * time.Second

// AbortLinger is how long shard 0 waits after its run failed, its abort
// row written, before its cleanup drops what the other shards use (the
// schema that holds the rows, with mysqlslap's workload): long enough
// for every waiting shard's poll to have read the row.
const AbortLinger = 6 * pollEvery

// noteLen is the note column's length in characters.
const noteLen = 255

// Starter synchronises one shard's starts with the other shards'. Its
// methods are called from one goroutine (the study's runner).
type Starter struct {
	Spec     Spec
	At       StartAt
	LateFail bool
	RunID    string
	// DB is a connection (not one of the measured clients') used for the
	// barrier and the clock offset: to the benchmark's schema, or to the
	// server with Schema naming the schema the barrier table is in (a
	// connection that outlives the schema being dropped and created
	// again between mysqlslap's loads).
	DB     DB
	Schema string
	// Timeout bounds every wait for other shards (never hang).
	Timeout time.Duration
	Log     func(format string, args ...any)

	round int
	// Offset is the server's clock minus this machine's, measured at the
	// first start (round-trip midpoint of the best of 5 reads).
	Offset time.Duration
	// Late is how late each start was reached (0 when on time).
	Late []time.Duration
	// Starts are the local instants of the starts.
	Starts []time.Time
	// since is the server's time (UNIX_TIMESTAMP text) when this shard
	// first used the barrier: abort rows older than it by more than
	// startSkew are an earlier run's (a run id repeats when the options
	// do) and are not read.
	since string
	// stopped is the abort row that ended a wait.
	stopped *AbortError
}

// StoppedBy is the other shard's abort that ended one of this shard's
// waits, nil if none did (its error then is its own, to be written with
// Abort).
func (s *Starter) StoppedBy() *AbortError { return s.stopped }

func (s *Starter) timeout() time.Duration {
	if s.Timeout > 0 {
		return s.Timeout
	}
	return 10 * time.Minute
}

// Start waits for the next shared start and is the engine's Plan.Start:
// it is called once all of the iteration's clients are connected. The
// first start is --start-at's; with an instant, later ones go through the
// barrier (no instant is known for them in advance) with a short delay.
func (s *Starter) Start(ctx context.Context) error {
	s.round++
	if s.round == 1 && s.DB != nil {
		off, err := ClockOffset(s.DB, 5)
		if err != nil {
			return fmt.Errorf("reading the server's clock: %w", err)
		}
		s.Offset = off
	}
	var at time.Time
	if s.round == 1 && !s.At.Barrier {
		at = s.At.At
	} else {
		delay := s.At.Delay
		if !s.At.Barrier {
			delay = 500 * time.Millisecond
		}
		if s.DB == nil {
			return errors.New("the shard barrier needs a connection")
		}
		serverAt, err := s.barrier(ctx, s.round, delay)
		if err != nil {
			return err
		}
		at = serverAt.Add(-s.Offset)
	}
	late := time.Since(at)
	if late < 0 {
		late = 0
		t := time.NewTimer(time.Until(at))
		defer t.Stop()
		select {
		case <-t.C:
		case <-ctx.Done():
			return ctx.Err()
		}
	}
	s.Late = append(s.Late, late)
	s.Starts = append(s.Starts, at)
	if late > LateTolerance && s.LateFail {
		return fmt.Errorf("shard %s reached the start %s late (--late-start=fail allows %s): %w", s.Spec, late.Round(time.Millisecond), LateTolerance, ErrLate)
	}
	if late > LateTolerance && s.Log != nil {
		s.Log("shard %s reached the start %s late: started at once (--late-start=fail makes this an error)", s.Spec, late.Round(time.Millisecond))
	}
	return nil
}

// MaxLate is the largest lateness of the starts so far.
func (s *Starter) MaxLate() time.Duration {
	var m time.Duration
	for _, l := range s.Late {
		m = max(m, l)
	}
	return m
}

func (s *Starter) quoted() string { return "'" + s.RunID + "'" } // CheckRunID allows no quote

// table is the barrier table's name in statements.
func (s *Starter) table() string {
	if s.Schema == "" {
		return BarrierTable
	}
	return mysqlconn.QuoteName(s.Schema) + "." + BarrierTable
}

// missing reports the error of a barrier table (or its schema) that is
// not there (yet, or any more): 1146 no such table, 1049 no such schema.
func missing(err error) bool {
	code := mysqlconn.ServerCode(err)
	return code == 1146 || code == 1049
}

func (s *Starter) create() error {
	return s.DB.Exec("CREATE TABLE IF NOT EXISTS " + s.table() + " (run_id VARCHAR(64) NOT NULL, round INT NOT NULL, " +
		"shard INT NOT NULL, arrived DATETIME(6) NOT NULL, note VARCHAR(255) CHARACTER SET utf8mb4 NOT NULL DEFAULT '', " +
		"PRIMARY KEY (run_id, round, shard)) ENGINE=InnoDB")
}

// mark records since, once.
func (s *Starter) mark() error {
	if s.since != "" {
		return nil
	}
	rows, err := s.DB.Query("SELECT UNIX_TIMESTAMP(NOW(6))")
	if err != nil {
		return fmt.Errorf("reading the server's time: %w", err)
	}
	if len(rows) != 1 || len(rows[0]) != 1 {
		return errors.New("the server's time: no row")
	}
	if _, err := parseUnix(string(rows[0][0])); err != nil {
		return err
	}
	s.since = string(rows[0][0])
	return nil
}

func (s *Starter) arrive(round int) error {
	if err := s.create(); err != nil {
		return fmt.Errorf("creating the shard barrier table %s: %w", BarrierTable, err)
	}
	// REPLACE: a shard run again with the same index replaces its row.
	err := s.DB.Exec(fmt.Sprintf("REPLACE INTO %s (run_id, round, shard, arrived) VALUES (%s, %d, %d, NOW(6))", s.table(), s.quoted(), round, s.Spec.Index))
	if err != nil {
		return fmt.Errorf("writing the shard barrier: %w", err)
	}
	return nil
}

// wait polls until want shards (of indexes [0, want) for want = Count,
// or shard 0 alone for want = 1) have arrived at round; it returns the
// server time of the last arrival, or an *AbortError as soon as another
// shard has written an abort row.
func (s *Starter) wait(ctx context.Context, round, want int, what string) (time.Time, error) {
	if err := s.mark(); err != nil {
		return time.Time{}, err
	}
	// One round trip: the arrivals, and the earliest abort of another shard.
	q := fmt.Sprintf("SELECT COUNT(*), UNIX_TIMESTAMP(MAX(arrived)), (%s) FROM %s "+
		"WHERE run_id = %s AND round = %d AND shard < %d AND arrived > NOW(6) - INTERVAL %d SECOND",
		s.abortQuery(), s.table(), s.quoted(), round, want, int(staleAfter/time.Second))
	giveUp := time.Now().Add(s.timeout())
	for {
		rows, err := s.DB.Query(q)
		if err != nil && !missing(err) { // the table is not there yet
			return time.Time{}, fmt.Errorf("reading the shard barrier: %w", err)
		}
		if err == nil && len(rows) == 1 && len(rows[0]) == 3 {
			if rows[0][2] != nil {
				s.stopped = parseAbort(string(rows[0][2]), s.Spec.Count)
				return time.Time{}, s.stopped
			}
			n, _ := strconv.Atoi(string(rows[0][0]))
			if n >= want {
				return parseUnix(string(rows[0][1]))
			}
		}
		if time.Now().After(giveUp) {
			return time.Time{}, fmt.Errorf("shard %s waited %s for %s (run id %s): %w", s.Spec, s.timeout(), what, s.RunID, ErrGaveUp)
		}
		select {
		case <-time.After(pollEvery):
		case <-ctx.Done():
			return time.Time{}, ctx.Err()
		}
	}
}

// abortQuery selects the earliest abort row of another shard written
// since this shard began (less startSkew), as "INDEX NOTE" (parseAbort),
// NULL when none.
func (s *Starter) abortQuery() string {
	return fmt.Sprintf("SELECT CONCAT(shard, ' ', note) FROM %s WHERE run_id = %s AND round = %d AND shard <> %d "+
		"AND arrived >= FROM_UNIXTIME(%s) - INTERVAL %d SECOND ORDER BY arrived, shard LIMIT 1",
		s.table(), s.quoted(), abortRound, s.Spec.Index, s.since, int(startSkew/time.Second))
}

// parseAbort reads abortQuery's "INDEX NOTE" of a run of count shards.
func parseAbort(v string, count int) *AbortError {
	idx, note, _ := strings.Cut(v, " ")
	i, err := strconv.Atoi(idx)
	if err != nil {
		i = -1 // not goslap's row; say so rather than guess
		note = v
	}
	if note == "" {
		note = "(no message)"
	}
	return &AbortError{By: Spec{Index: i, Count: count}, Cause: note}
}

// CheckAborted reports another shard's abort row (an *AbortError), for a
// shard about to do what a waiting shard would not (shard 0 dropping the
// schema, which holds the rows, between mysqlslap's loads).
func (s *Starter) CheckAborted() error {
	if err := s.mark(); err != nil {
		return err
	}
	rows, err := s.DB.Query(s.abortQuery())
	switch {
	case err != nil && missing(err):
		return nil
	case err != nil:
		return fmt.Errorf("reading the shard barrier: %w", err)
	case len(rows) == 1 && len(rows[0]) == 1 && rows[0][0] != nil:
		s.stopped = parseAbort(string(rows[0][0]), s.Spec.Count)
		return s.stopped
	}
	return nil
}

// AbortNote is cause as an abort row's note: its first line, without
// the program's "goslap: " prefix, valid UTF-8, at most noteLen
// characters.
func AbortNote(cause string) string {
	line, _, _ := strings.Cut(strings.TrimSpace(cause), "\n")
	line = strings.TrimSpace(strings.TrimPrefix(strings.ToValidUTF8(line, "?"), "goslap: "))
	if r := []rune(line); len(r) > noteLen {
		line = string(r[:noteLen-3]) + "..."
	}
	return line
}

// Ended is this shard's end with err (an interrupt when ctx is done),
// before its cleanup: unless a wait already ended on another shard's
// abort, it looks for one once more — if another shard aborted first,
// that abort is the cause of this shard's failure (shard 0 cleaned up
// after it), and firstBy returns it to report instead of err — and
// otherwise writes this shard's own abort row (Abort), so the others stop
// waiting for it; writeErr is that write's failure, a note for the log.
// Shard 0 then lingers (AbortLinger) so the others' polls read the row
// before its cleanup drops what holds it.
func (s *Starter) Ended(ctx context.Context, err error) (firstBy *AbortError, writeErr error) {
	if s.stopped == nil && ctx.Err() == nil {
		if s.CheckAborted(); s.stopped != nil {
			firstBy = s.stopped
		}
	}
	if s.stopped == nil {
		cause := err.Error()
		if ctx.Err() != nil {
			cause = "interrupted"
		}
		writeErr = s.Abort(cause)
	}
	if s.Spec.Index == 0 {
		time.Sleep(AbortLinger)
	}
	return firstBy, writeErr
}

// Abort writes this shard's abort row naming cause (AbortNote), so the
// other shards' waits end at once; best effort, within abortWithin: a
// failed shard's own error is what it reports, not this one's. A schema
// that is missing for a moment (shard 0 dropping and creating it again
// between mysqlslap's loads) is retried until abortWithin.
func (s *Starter) Abort(cause string) error {
	if s.DB == nil {
		return errors.New("the shard barrier needs a connection")
	}
	stmt := fmt.Sprintf("REPLACE INTO %s (run_id, round, shard, arrived, note) VALUES (%s, %d, %d, NOW(6), CONVERT(X'%x' USING utf8mb4))",
		s.table(), s.quoted(), abortRound, s.Spec.Index, AbortNote(cause))
	done := make(chan error, 1)
	giveUp := time.Now().Add(abortWithin - 5*pollEvery) // its own error before the timer's
	go func() {
		for {
			err := s.create()
			if err == nil {
				err = s.DB.Exec(stmt)
			}
			if err == nil || !missing(err) || time.Now().Add(pollEvery).After(giveUp) {
				done <- err
				return
			}
			time.Sleep(pollEvery)
		}
	}()
	t := time.NewTimer(abortWithin)
	defer t.Stop()
	select {
	case err := <-done:
		if err != nil {
			return fmt.Errorf("writing the shard's abort to the barrier: %w", err)
		}
		return nil
	case <-t.C:
		return fmt.Errorf("writing the shard's abort to the barrier: no answer within %s", abortWithin)
	}
}

// barrier arrives at round and waits for all shards; the start is the
// server time of the last arrival plus delay.
func (s *Starter) barrier(ctx context.Context, round int, delay time.Duration) (time.Time, error) {
	if err := s.arrive(round); err != nil {
		return time.Time{}, err
	}
	last, err := s.wait(ctx, round, s.Spec.Count, fmt.Sprintf("all %d shards to be ready", s.Spec.Count))
	if err != nil {
		return time.Time{}, err
	}
	return last.Add(delay), nil
}

// Prepared is shard 0's "the data is loaded"; WaitPrepared the other
// shards' wait for it.
func (s *Starter) Prepared() error { return s.PreparedStep(0) }

func (s *Starter) WaitPrepared(ctx context.Context) error { return s.WaitPreparedStep(ctx, 0) }

// Finished records this shard's end; shard 0 then waits for every shard
// before its cleanup (WaitFinished) and removes the run's rows (Forget).
func (s *Starter) Finished() error { return s.FinishedStep(0) }

func (s *Starter) WaitFinished(ctx context.Context) error { return s.WaitFinishedStep(ctx, 0) }

// PreparedStep, WaitPreparedStep, FinishedStep and WaitFinishedStep are
// the same for step k (k >= 1) of a run that prepares its data again
// before every load: shard 0 prepares step k only after every shard has
// finished step k-1.
func (s *Starter) PreparedStep(k int) error { return s.arrive(readyRound(k)) }

func (s *Starter) WaitPreparedStep(ctx context.Context, k int) error {
	what := "shard 0 to prepare the data"
	if k > 0 {
		what += fmt.Sprintf(" of load %d", k)
	}
	_, err := s.wait(ctx, readyRound(k), 1, what)
	return err
}

func (s *Starter) FinishedStep(k int) error { return s.arrive(doneRound(k)) }

func (s *Starter) WaitFinishedStep(ctx context.Context, k int) error {
	what := "every shard to finish"
	if k > 0 {
		what += fmt.Sprintf(" load %d", k)
	}
	_, err := s.wait(ctx, doneRound(k), s.Spec.Count, what)
	return err
}

// Forget deletes the run's barrier rows, and the table once no run has
// rows in it (goslap created it).
func (s *Starter) Forget() error { return s.forget("") }

// Reset is shard 0's Forget before it prepares: it deletes what an
// earlier run with the same id left, but not the abort rows of shards
// of this run that began before it (and failed already).
func (s *Starter) Reset() error {
	if err := s.mark(); err != nil {
		return err
	}
	return s.forget(" AND (round <> " + strconv.Itoa(abortRound) + " OR arrived < FROM_UNIXTIME(" + s.since + "))")
}

func (s *Starter) forget(and string) error {
	if err := s.DB.Exec("DELETE FROM " + s.table() + " WHERE run_id = " + s.quoted() + and); err != nil {
		if missing(err) {
			return nil // never created, or dropped with its schema
		}
		return err
	}
	rows, err := s.DB.Query("SELECT COUNT(*) FROM " + s.table())
	if err == nil && len(rows) == 1 && string(rows[0][0]) == "0" {
		return s.DB.Exec("DROP TABLE IF EXISTS " + s.table())
	}
	return err
}

// ClockOffset estimates the server's clock minus this machine's: of
// samples reads of the server's time, the one with the shortest round
// trip, against the midpoint of its round trip.
func ClockOffset(db DB, samples int) (time.Duration, error) {
	best, bestRTT := time.Duration(0), time.Duration(-1)
	for range max(samples, 1) {
		t0 := time.Now()
		rows, err := db.Query("SELECT UNIX_TIMESTAMP(NOW(6))")
		t1 := time.Now()
		if err != nil {
			return 0, err
		}
		if len(rows) != 1 || len(rows[0]) != 1 {
			return 0, errors.New("the server's time: no row")
		}
		server, err := parseUnix(string(rows[0][0]))
		if err != nil {
			return 0, err
		}
		rtt := t1.Sub(t0)
		if bestRTT < 0 || rtt < bestRTT {
			bestRTT = rtt
			best = server.Sub(t0.Add(rtt / 2))
		}
	}
	return best, nil
}

// parseUnix reads "1733241600.123456" exactly (no float rounding).
func parseUnix(v string) (time.Time, error) {
	sec, frac, _ := strings.Cut(v, ".")
	s, err := strconv.ParseInt(sec, 10, 64)
	if err != nil {
		return time.Time{}, fmt.Errorf("the server's time %q: %w", v, err)
	}
	ns := int64(0)
	if frac != "" {
		frac = (frac + "000000000")[:9]
		if ns, err = strconv.ParseInt(frac, 10, 64); err != nil {
			return time.Time{}, fmt.Errorf("the server's time %q: %w", v, err)
		}
	}
	return time.Unix(s, ns), nil
}
