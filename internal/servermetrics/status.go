// Package servermetrics reads a server's own counters (SHOW GLOBAL STATUS
// and the enabled counters of information_schema.INNODB_METRICS) on a
// connection of its own, turns two readings into what happened between
// them, and divides that per transaction beside the process and host
// figures of package procstat. Its Sampler does this at an interval for a
// whole run, so a result can say why it is what it is: CPU per
// transaction, disk reads because the data stopped fitting the buffer
// pool, lock waits, a flushing stall.
//
// Nothing here is on the per-query path: the sampler has its own
// connection and its own goroutine, and every statement it sends has a
// time limit.
//
// A run opens a Sampler before its load (New, then Locate or a
// Config.Location from Given for a sandbox), takes a Sample where the
// measured part starts and one where it ends, runs Run in between for the
// intervals, and turns Between(start, end) into the benchmark's figures
// with Figures; Stalls flags slow intervals, Lines and Differences word
// the figures for the text report. See Example.
package servermetrics

import (
	"strconv"
	"strings"
	"time"

	"github.com/go-sql-driver/mysql"

	"github.com/goslap/goslap/internal/mysqlconn"
)

// Kind says how a value turns into a figure for a stretch of time.
type Kind int

const (
	// Counter only grows while the server runs: the figure is the end
	// value minus the start value.
	Counter Kind = iota
	// Gauge is a level at the moment of reading (threads running, dirty
	// pages): the figure is the highest value read.
	Gauge
)

// Source is where a value is read.
type Source int

const (
	// Status is SHOW GLOBAL STATUS, readable by any user.
	Status Source = iota
	// InnoDBMetric is information_schema.INNODB_METRICS, which needs the
	// PROCESS privilege and has only the counters that are enabled.
	InnoDBMetric
)

// MetricPrefix starts the name of a value read from INNODB_METRICS, so
// that its names never collide with status variables.
const MetricPrefix = "innodb_metrics."

// Def is one value of the documented set.
type Def struct {
	Name   string // status variable, or MetricPrefix + the INNODB_METRICS name
	Kind   Kind
	Source Source
	Why    string // what it explains in an OLTP or TPC-C result
}

// Set is what goslap reads: the values that explain OLTP and TPC-C
// results. A server without one of them (MySQL has no Innodb_deadlocks,
// MariaDB no lock_deadlocks enabled by default) leaves it out; nothing
// else changes.
var Set = []Def{
	// Statements by kind: what the server was asked to do. Prepared
	// statements count here too when executed.
	{"Questions", Counter, Status, "statements sent by clients"},
	{"Com_select", Counter, Status, "SELECT statements"},
	{"Com_insert", Counter, Status, "INSERT statements"},
	{"Com_update", Counter, Status, "UPDATE statements"},
	{"Com_delete", Counter, Status, "DELETE statements"},
	{"Com_replace", Counter, Status, "REPLACE statements"},
	{"Com_begin", Counter, Status, "BEGIN / START TRANSACTION"},
	{"Com_commit", Counter, Status, "COMMIT statements"},
	{"Com_rollback", Counter, Status, "ROLLBACK statements"},
	{"Com_stmt_execute", Counter, Status, "prepared statement executions"},
	// Rows touched: how much work each statement did.
	{"Handler_read_key", Counter, Status, "index lookups by key"},
	{"Handler_read_next", Counter, Status, "index range scan steps"},
	{"Handler_read_rnd_next", Counter, Status, "full scan steps: a missing index shows here"},
	{"Handler_write", Counter, Status, "rows inserted (temporary tables included)"},
	{"Handler_update", Counter, Status, "rows updated"},
	{"Handler_delete", Counter, Status, "rows deleted"},
	{"Innodb_rows_read", Counter, Status, "InnoDB rows read"},
	{"Innodb_rows_inserted", Counter, Status, "InnoDB rows inserted"},
	{"Innodb_rows_updated", Counter, Status, "InnoDB rows updated"},
	{"Innodb_rows_deleted", Counter, Status, "InnoDB rows deleted"},
	// Buffer pool: does the data fit in memory?
	{"Innodb_buffer_pool_read_requests", Counter, Status, "logical page reads"},
	{"Innodb_buffer_pool_reads", Counter, Status, "page reads the buffer pool missed: read from disk"},
	{"Innodb_buffer_pool_write_requests", Counter, Status, "page changes"},
	{"Innodb_buffer_pool_wait_free", Counter, Status, "waits for a clean page: flushing cannot keep up"},
	{"Innodb_buffer_pool_pages_flushed", Counter, Status, "pages written back"},
	{"Innodb_buffer_pool_pages_dirty", Gauge, Status, "pages changed and not yet written"},
	// Writes and durability.
	{"Innodb_data_reads", Counter, Status, "data file reads"},
	{"Innodb_data_read", Counter, Status, "bytes read from data files"},
	{"Innodb_data_written", Counter, Status, "bytes written by InnoDB"},
	{"Innodb_data_fsyncs", Counter, Status, "fsync calls"},
	{"Innodb_os_log_written", Counter, Status, "redo log bytes written"},
	{"Innodb_log_waits", Counter, Status, "waits for room in the redo log buffer"},
	{"Innodb_checkpoint_age", Gauge, Status, "redo not yet checkpointed (MariaDB): near the log size, flushing is forced"},
	{"Innodb_history_list_length", Gauge, Status, "undo not yet purged (MariaDB): long transactions or purge lag"},
	// Contention.
	{"Innodb_row_lock_waits", Counter, Status, "row lock waits"},
	{"Innodb_row_lock_time", Counter, Status, "milliseconds spent waiting for row locks"},
	{"Innodb_row_lock_current_waits", Gauge, Status, "row lock waits in progress"},
	{"Innodb_deadlocks", Counter, Status, "deadlocks (MariaDB)"},
	{"Threads_running", Gauge, Status, "statements executing at once, the sampler's own included"},
	{"Threads_connected", Gauge, Status, "open connections"},
	// Other costs and failures.
	{"Created_tmp_tables", Counter, Status, "internal temporary tables"},
	{"Created_tmp_disk_tables", Counter, Status, "temporary tables that went to disk"},
	{"Sort_merge_passes", Counter, Status, "sorts too big for the sort buffer"},
	{"Select_full_join", Counter, Status, "joins without an index"},
	{"Aborted_connects", Counter, Status, "failed connection attempts"},
	{"Aborted_clients", Counter, Status, "connections dropped without a proper close"},
	{"Bytes_received", Counter, Status, "bytes from clients"},
	{"Bytes_sent", Counter, Status, "bytes to clients"},
	// INNODB_METRICS: read only where enabled and the user has PROCESS.
	{MetricPrefix + "lock_deadlocks", Counter, InnoDBMetric, "deadlocks (MySQL has no status variable for it)"},
	{MetricPrefix + "lock_timeouts", Counter, InnoDBMetric, "row lock wait timeouts"},
	{MetricPrefix + "trx_rseg_history_len", Gauge, InnoDBMetric, "undo not yet purged"},
	{MetricPrefix + "buffer_flush_sync_total_pages", Counter, InnoDBMetric, "pages flushed synchronously: the flushing stall"},
	{MetricPrefix + "log_lsn_checkpoint_age", Gauge, InnoDBMetric, "redo not yet checkpointed"},
}

// defs is Set by name.
var defs = func() map[string]Def {
	m := make(map[string]Def, len(Set))
	for _, d := range Set {
		m[d.Name] = d
	}
	return m
}()

// byLower is Set's names by their lower case.
var byLower = func() map[string]string {
	m := make(map[string]string, len(Set))
	for _, d := range Set {
		m[strings.ToLower(d.Name)] = d.Name
	}
	return m
}()

// Lookup returns the definition of name in Set.
func Lookup(name string) (Def, bool) {
	d, ok := defs[name]
	return d, ok
}

// Snapshot is the values of Set read at one moment. A value the server
// does not have, or that could not be read, is absent.
type Snapshot struct {
	At     time.Time
	Values map[string]int64
	// Own is how much of each counter the reader's own statements added
	// up to this snapshot (see Reader): Diff takes it out, so a sample's
	// SHOW GLOBAL STATUS (a temporary table, a few hundred
	// Handler_read_rnd_next) is not counted as the load's.
	Own map[string]int64
}

// Delta is what happened between two snapshots, or over several
// consecutive ones added together.
type Delta struct {
	Start, End time.Time
	// Counters are end minus start. A counter that went backwards (the
	// server restarted, FLUSH STATUS) is left out and named in Reset.
	Counters map[string]int64
	// Gauges are the highest value read.
	Gauges map[string]int64
	Reset  []string
}

// Seconds is the delta's length.
func (d Delta) Seconds() float64 { return d.End.Sub(d.Start).Seconds() }

// Diff is the delta from a to b (a read first). A value present in only
// one of them is left out for counters; gauges take the highest value
// either has.
func Diff(a, b Snapshot) Delta {
	d := Delta{Start: a.At, End: b.At, Counters: map[string]int64{}, Gauges: map[string]int64{}}
	for name, bv := range b.Values {
		def, ok := defs[name]
		if !ok {
			continue
		}
		av, inA := a.Values[name]
		if def.Kind == Gauge {
			if inA && av > bv {
				bv = av
			}
			d.Gauges[name] = bv
			continue
		}
		if !inA {
			continue
		}
		if bv < av {
			d.Reset = append(d.Reset, name)
			continue
		}
		d.Counters[name] = max(0, bv-av-(b.Own[name]-a.Own[name]))
	}
	for name, av := range a.Values {
		if def, ok := defs[name]; ok && def.Kind == Gauge {
			if _, inB := b.Values[name]; !inB {
				d.Gauges[name] = av
			}
		}
	}
	return d
}

// Add returns d followed by e: counters summed, gauges at their highest,
// from d's start to e's end (or the other way when e came first). A
// counter present in only one of them is kept: it is the only reading,
// so a sum over intervals some of which missed the server counts less
// than happened — for a whole run, Diff its first and last snapshots.
func (d Delta) Add(e Delta) Delta {
	out := Delta{Start: d.Start, End: d.End, Counters: map[string]int64{}, Gauges: map[string]int64{}}
	if out.Start.IsZero() || (!e.Start.IsZero() && e.Start.Before(out.Start)) {
		out.Start = e.Start
	}
	if e.End.After(out.End) {
		out.End = e.End
	}
	for _, src := range []Delta{d, e} {
		for k, v := range src.Counters {
			out.Counters[k] += v
		}
		for k, v := range src.Gauges {
			if cur, ok := out.Gauges[k]; !ok || v > cur {
				out.Gauges[k] = v
			}
		}
		out.Reset = appendNew(out.Reset, src.Reset...)
	}
	return out
}

func appendNew(list []string, names ...string) []string {
outer:
	for _, n := range names {
		for _, have := range list {
			if have == n {
				continue outer
			}
		}
		list = append(list, n)
	}
	return list
}

// statusSource is one way to read the global status variables, with the
// same for the reader's own session when the server has it.
type statusSource struct {
	name, global, session string
}

// statusSources are tried in order until one answers with rows. SELECTs
// come first: their cost to the counters shows in the session's own
// counters as in the global ones, so the reader's share is measured
// exactly (calibrate). MariaDB gives a SHOW STATUS's cost (a temporary
// table, a row read per variable) to the global counters only, and
// restores the session's. Each asks only for the variables of Set: a few
// dozen rows rather than five hundred.
var statusSources, metricsQuery = buildQueries()

func buildQueries() ([]statusSource, string) {
	var st, me []string
	for _, d := range Set {
		switch d.Source {
		case Status:
			st = append(st, "'"+d.Name+"'")
		case InnoDBMetric:
			me = append(me, "'"+strings.TrimPrefix(d.Name, MetricPrefix)+"'")
		}
	}
	in := " IN (" + strings.Join(st, ",") + ")"
	sel := func(table string) string {
		return "SELECT VARIABLE_NAME, VARIABLE_VALUE FROM " + table + " WHERE VARIABLE_NAME" + in
	}
	sources := []statusSource{
		// MariaDB, MySQL 5.6 (5.7 with show_compatibility_56).
		{"information_schema.GLOBAL_STATUS", sel("information_schema.GLOBAL_STATUS"), sel("information_schema.SESSION_STATUS")},
		// MySQL 5.7 and later.
		{"performance_schema.global_status", sel("performance_schema.global_status"), sel("performance_schema.session_status")},
		{"SHOW GLOBAL STATUS", "SHOW GLOBAL STATUS WHERE Variable_name" + in, ""},
	}
	metrics := "SELECT NAME, COUNT FROM information_schema.INNODB_METRICS WHERE NAME IN (" + strings.Join(me, ",") + ") AND "
	return sources, metrics
}

// enabledConditions: MySQL and MariaDB up to 10.4 say STATUS='enabled',
// MariaDB 10.5 and later ENABLED=1.
var enabledConditions = []string{"ENABLED = 1", "STATUS = 'enabled'"}

// Reader reads snapshots on one connection it does not own.
//
// Its own statements add to the server's counters: reading the status
// is a question, an internal temporary table and a scan of the status
// variables it returns. Those additions are the same for every snapshot,
// so the reader measures them once (calibrate) and each Snapshot carries
// the running total in Own. Threads_running and Threads_connected leave out the reader's own
// thread and connection.
type Reader struct {
	conn *mysqlconn.Conn
	// footprint is what one snapshot's statements add to each counter;
	// own the running total. calibrated: footprint has been measured
	// (or cannot be: the status source is off).
	footprint, own map[string]int64
	calibrated     bool
	// statusOff, metricsOff: that source was refused (a privilege, a
	// server without the table) and is not asked again. source is the
	// statusSources entry that answered (-1 before the first read).
	statusOff, metricsOff bool
	source                int
	metricsCond           string // the working enabled condition, once found
	// Queries counts statements sent, for the sampler's cost.
	Queries uint64
}

// NewReader reads snapshots on conn; the caller keeps it open and closes it.
func NewReader(conn *mysqlconn.Conn) *Reader { return &Reader{conn: conn, source: -1} }

// Snapshot reads Set now. A source the server refuses (a user who may
// not run SHOW GLOBAL STATUS, INNODB_METRICS without PROCESS) gives one
// warning, on the snapshot that met it, and is not asked again: later
// snapshots have the other source's values, or none. err is a broken
// connection or a statement cut by its time limit: the snapshot is not
// complete and the caller decides whether to reconnect.
func (r *Reader) Snapshot() (s Snapshot, warnings []string, err error) {
	if !r.calibrated {
		if warnings, err = r.calibrate(); err != nil {
			return Snapshot{Values: map[string]int64{}}, warnings, err
		}
	}
	s, more, err := r.read()
	warnings = append(warnings, more...)
	if err != nil {
		return s, warnings, err
	}
	if r.own == nil {
		r.own = map[string]int64{}
	}
	s.Own = make(map[string]int64, len(r.footprint))
	for name, v := range r.footprint {
		r.own[name] += v
		s.Own[name] = r.own[name]
	}
	for _, name := range []string{"Threads_running", "Threads_connected"} {
		if v, ok := s.Values[name]; ok && v > 0 {
			s.Values[name] = v - 1
		}
	}
	return s, warnings, nil
}

// calibrate measures what one snapshot's statements add to the
// counters. Where the server has the session's own status (every source
// but SHOW), it is exact: session readings with one snapshot between the
// first two and two between the last two differ by one snapshot, and no
// other client touches a session's counters. With SHOW GLOBAL STATUS only,
// it is the smallest increase of the global counters over three
// snapshots read back to back: exact on an idle server, a little more
// than the truth under load (so open the reader before the load). The
// first read also settles which sources answer.
func (r *Reader) calibrate() (warnings []string, err error) {
	var prev Snapshot
	if prev, warnings, err = r.read(); err != nil || r.statusOff {
		r.calibrated = err == nil
		return warnings, err
	}
	r.footprint = map[string]int64{}
	if session := statusSources[r.source].session; session != "" {
		var sess [3]map[string]int64
		for i := range sess {
			for range i {
				_, more, err := r.read()
				if warnings = append(warnings, more...); err != nil {
					return warnings, err
				}
			}
			r.Queries++
			rows, err := r.conn.Query(session)
			if err != nil {
				return warnings, err
			}
			sess[i] = map[string]int64{}
			addRows(sess[i], "", rows)
		}
		for name, v2 := range sess[2] {
			if def := defs[name]; def.Kind == Counter {
				r.footprint[name] = (v2 - sess[1][name]) - (sess[1][name] - sess[0][name])
			}
		}
	} else {
		for i := 0; i < 3; i++ {
			cur, more, err := r.read()
			if warnings = append(warnings, more...); err != nil {
				return warnings, err
			}
			for name, v := range cur.Values {
				pv, ok := prev.Values[name]
				if def := defs[name]; !ok || def.Kind != Counter {
					continue
				}
				inc := max(0, v-pv)
				if f, seen := r.footprint[name]; i == 0 || seen && inc < f {
					r.footprint[name] = inc
				}
			}
			prev = cur
		}
	}
	for name, f := range r.footprint {
		if f <= 0 {
			delete(r.footprint, name)
		}
	}
	r.calibrated = true
	return warnings, nil
}

// Footprint is what one snapshot adds to each counter by itself (nil
// before the first snapshot).
func (r *Reader) Footprint() map[string]int64 { return r.footprint }

// read is one snapshot without the reader's own share taken out.
func (r *Reader) read() (s Snapshot, warnings []string, err error) {
	s = Snapshot{Values: map[string]int64{}}
	if !r.statusOff {
		if err := r.readStatus(s.Values); err != nil {
			if !isRefusal(err) {
				return s, warnings, err
			}
			r.statusOff = true
			warnings = append(warnings, "server counters: the status variables cannot be read ("+mysqlconn.ErrorText(err)+"); the run goes on without them")
		}
	}
	if !r.metricsOff {
		conds := enabledConditions
		if r.metricsCond != "" {
			conds = []string{r.metricsCond}
		}
		for i, cond := range conds {
			r.Queries++
			rows, qerr := r.conn.Query(metricsQuery + cond)
			if qerr == nil {
				r.metricsCond = cond
				addRows(s.Values, MetricPrefix, rows)
				break
			}
			if mysqlconn.ServerCode(qerr) == 1054 && i+1 < len(conds) { // unknown column: the other spelling
				continue
			}
			if !isRefusal(qerr) {
				return s, warnings, qerr
			}
			r.metricsOff = true
			warnings = append(warnings, "server counters: information_schema.INNODB_METRICS not readable ("+mysqlconn.ErrorText(qerr)+"); its counters are left out, the status counters are kept")
			break
		}
	}
	s.At = time.Now()
	return s, warnings, nil
}

// readStatus reads the global status variables into values from the
// source that answered before, or finds one: a source that refuses, or
// answers with no rows (performance_schema switched off), gives way to
// the next. The error is the last source's.
func (r *Reader) readStatus(values map[string]int64) error {
	first, last := 0, len(statusSources)-1
	if r.source >= 0 {
		first, last = r.source, r.source
	}
	var err error
	for i := first; i <= last; i++ {
		r.Queries++
		var rows [][][]byte
		rows, err = r.conn.Query(statusSources[i].global)
		if err == nil && len(rows) == 0 {
			err = &mysql.MySQLError{Number: 1146, Message: statusSources[i].name + " has no rows"}
		}
		if err == nil {
			r.source = i
			addRows(values, "", rows)
			return nil
		}
		if !isRefusal(err) {
			return err
		}
	}
	return err
}

// isRefusal: the server answered with an error, so the connection is fine
// and asking again would get the same answer (no privilege, no table).
// Client library errors (a lost connection, a time limit) are 2000-2999;
// servers use the numbers below and above (MySQL's 3167: "The
// 'INFORMATION_SCHEMA.GLOBAL_STATUS' feature is disabled").
func isRefusal(err error) bool {
	code := mysqlconn.ServerCode(err)
	return code != 0 && (code < 2000 || code >= 3000)
}

// addRows adds (name, value) rows whose value is an integer.
func addRows(into map[string]int64, prefix string, rows [][][]byte) {
	for _, row := range rows {
		if len(row) < 2 {
			continue
		}
		v, err := strconv.ParseInt(string(row[1]), 10, 64)
		if err != nil {
			continue
		}
		// information_schema spells the names in capitals.
		if name, ok := byLower[strings.ToLower(prefix+string(row[0]))]; ok {
			into[name] = v
		}
	}
}
