// Package prefill bulk-loads generated rows into tables: the rows are cut
// into chunks that several connections load in parallel, each chunk as a
// LOAD DATA LOCAL INFILE stream (through the driver's reader handler) when
// the server allows it, else as large multi-row INSERTs. Rows are never
// materialised: a chunk's generator writes them straight into the
// statement or the stream buffer. OLTP and TPC-C share it.
package prefill

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"unsafe"

	"github.com/goslap/goslap/internal/mysqlconn"
	"github.com/goslap/goslap/internal/workload"
)

// RowFunc writes row n (0-based within its table) through w.
type RowFunc func(w *Row, n int64)

// Table is one table to fill.
type Table struct {
	Name    string
	Columns []string
	Rows    int64
	// NewRows returns the generator of one chunk (rows first..first+count-1).
	// Each chunk has its own so chunks run in parallel without sharing
	// state; a generator seeded from first makes the load reproducible.
	NewRows func(first int64) RowFunc
}

// Method is how rows reach the server.
type Method int

const (
	Auto     Method = iota // LOAD DATA LOCAL INFILE when the server allows it, else INSERT
	Insert                 // multi-row INSERT statements
	LoadData               // LOAD DATA LOCAL INFILE; an error if the server refuses it
)

func (m Method) String() string {
	switch m {
	case Insert:
		return "insert"
	case LoadData:
		return "load-data"
	}
	return "auto"
}

// ParseMethod reads a method name (auto, insert, load-data).
func ParseMethod(s string) (Method, error) {
	switch s {
	case "auto", "":
		return Auto, nil
	case "insert":
		return Insert, nil
	case "load-data":
		return LoadData, nil
	}
	return Auto, fmt.Errorf("unknown prefill method '%s' (auto, insert, load-data)", s)
}

// Options tune a load.
type Options struct {
	Connections int    // parallel connections (default 4)
	ChunkRows   int64  // rows per chunk (default 50 000)
	InsertBytes int    // size an INSERT statement stops growing at (default 1 MiB, at most max_allowed_packet/2)
	Method      Method // default Auto
	Phase       string // name for Session.Progress (default "prefill")
	// Session are statements run on every loading connection first.
	Session []string
	// Transaction loads each connection's chunks in one transaction. With
	// unique_checks=0 and foreign_key_checks=0 MariaDB (10.6+) then fills an
	// empty InnoDB table through its bulk path: rows buffered and indexes
	// built by sorting at COMMIT, with no per-row undo log.
	Transaction bool
}

// Result says how a load went.
type Result struct {
	Method Method // the method used (Insert or LoadData)
	Rows   int64
}

// Load fills tables (assumed empty) over s.Connect connections, reporting
// progress through s.Progress.
func Load(ctx context.Context, s *workload.Session, tables []Table, o Options) (Result, error) {
	if o.Connections <= 0 {
		o.Connections = 4
	}
	if o.ChunkRows <= 0 {
		o.ChunkRows = 50000
	}
	if o.InsertBytes <= 0 {
		o.InsertBytes = 1 << 20
	}
	if o.Phase == "" {
		o.Phase = "prefill"
	}
	var total int64
	for i := range tables {
		total += tables[i].Rows
	}
	chunks := plan(tables, o.ChunkRows, o.Connections > 1)
	res := Result{Method: o.Method}
	if total == 0 {
		return res, nil
	}
	// What the server allows decides the method and the INSERT size.
	if vals, err := s.Main.QueryStrings("SELECT CONCAT(@@max_allowed_packet, ' ', @@local_infile)"); err == nil && len(vals) == 1 {
		var packet int
		var local string
		if _, err := fmt.Sscan(vals[0], &packet, &local); err == nil {
			if packet/2 < o.InsertBytes {
				o.InsertBytes = max(packet/2, 4096)
			}
			if res.Method == Auto {
				res.Method = Insert
				if on(local) {
					res.Method = LoadData
				}
			}
		}
	}
	if res.Method == Auto {
		res.Method = Insert
	}
	if res.Method == LoadData && o.Method == LoadData {
		// Asked for explicitly: check once, so a refusal is one clear error.
		if v, err := s.Main.QueryStrings("SELECT @@local_infile"); err == nil && len(v) == 1 && !on(v[0]) {
			return res, errors.New("prefill: the server has local_infile=OFF, so LOAD DATA LOCAL INFILE is refused (use --prefill-method=insert or auto)")
		}
	}
	conns := min(o.Connections, len(chunks))
	var (
		next     atomic.Int64
		done     atomic.Int64
		fallback atomic.Bool // the server refused LOAD DATA LOCAL: INSERT from now on
		failed   atomic.Bool
		mu       sync.Mutex
		firstErr error
		wg       sync.WaitGroup
	)
	progress := func(n int64) {
		done.Add(n)
		if s.Progress != nil {
			// Read under the lock: a count taken before it could be
			// reported after a later connection's larger one, and the
			// progress line would go backwards.
			mu.Lock()
			s.Progress(o.Phase, done.Load(), total)
			mu.Unlock()
		}
	}
	fail := func(err error) {
		mu.Lock()
		if firstErr == nil {
			firstErr = err
		}
		mu.Unlock()
		failed.Store(true)
	}
	for w := 0; w < conns; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			var conn *mysqlconn.Conn
			if s.Connect != nil {
				var err error
				if conn, err = s.Connect(); err != nil {
					fail(fmt.Errorf("prefill: connect: %w", err))
					return
				}
				defer conn.Close()
			} else if w == 0 {
				conn = s.Main
			} else {
				return
			}
			for _, q := range o.Session {
				if err := conn.Exec(q); err != nil {
					fail(fmt.Errorf("prefill: %s: %w", q, err))
					return
				}
			}
			l := loader{ctx: ctx, conn: conn, limit: o.InsertBytes, autocommit: !o.Transaction}
			if s.Connect != nil && !o.Transaction {
				// A LOAD DATA LOCAL the server rolled back as a deadlock
				// victim leaves its connection unusable (the next command
				// is "Lost connection"): it is sent again on a new one.
				l.reconnect = func() error {
					c, err := s.Connect()
					if err != nil {
						return err
					}
					for _, q := range o.Session {
						if err := c.Exec(q); err != nil {
							c.Close()
							return err
						}
					}
					l.conn.Close()
					l.conn = c
					return nil
				}
				defer func() { l.conn.Close() }()
			}
			if o.Transaction {
				if err := conn.Exec("BEGIN"); err != nil {
					fail(fmt.Errorf("prefill: BEGIN: %w", err))
					return
				}
				defer func() {
					if failed.Load() || ctx.Err() != nil {
						_ = conn.Exec("ROLLBACK")
						return
					}
					if err := conn.Exec("COMMIT"); err != nil {
						fail(fmt.Errorf("prefill: COMMIT: %w", err))
					}
				}()
			}
			for !failed.Load() && ctx.Err() == nil {
				i := next.Add(1) - 1
				if i >= int64(len(chunks)) {
					return
				}
				ch := chunks[i]
				var err error
				if res.Method == LoadData && !fallback.Load() {
					err = l.loadData(ch.t, ch.first, ch.count, progress)
					if o.Method == Auto && mysqlconn.LocalInfileRefused(err) {
						fallback.Store(true)
						err = nil
					} else if err == nil {
						continue
					}
				}
				if err == nil {
					err = l.insert(ch.t, ch.first, ch.count, progress)
				}
				if err != nil {
					fail(fmt.Errorf("prefill of %s: %w", ch.t.Name, err))
					return
				}
			}
		}()
	}
	wg.Wait()
	if firstErr != nil {
		return res, firstErr
	}
	if err := ctx.Err(); err != nil {
		return res, err
	}
	if fallback.Load() {
		res.Method = Insert
	}
	res.Rows = done.Load()
	return res, nil
}

// chunk is rows first..first+count-1 of one table, one LOAD DATA or one
// run of INSERTs.
type chunk struct {
	t            *Table
	first, count int64
}

// plan cuts the tables into chunks of at most rows rows. For several
// connections (inTurn) they are dealt out one table at a time (table 1's
// first chunk, table 2's first, ..., table 1's second, ...), so that with
// several tables the connections load different ones at once: a LOAD DATA
// into a table with an AUTO_INCREMENT column holds the table's AUTO-INC
// lock to the end of the statement (innodb_autoinc_lock_mode=1, the
// default), so two of them into one table run one after the other. One
// connection loads table after table (in turn cost it more server CPU:
// 4.4-4.6 s against 3.7-3.8 s for 4 tables of 250,000 rows).
func plan(tables []Table, rows int64, inTurn bool) []chunk {
	var chunks []chunk
	if !inTurn {
		for i := range tables {
			t := &tables[i]
			for f := int64(0); f < t.Rows; f += rows {
				chunks = append(chunks, chunk{t, f, min(rows, t.Rows-f)})
			}
		}
		return chunks
	}
	for f := int64(0); ; f += rows {
		more := false
		for i := range tables {
			if t := &tables[i]; f < t.Rows {
				chunks = append(chunks, chunk{t, f, min(rows, t.Rows-f)})
				more = true
			}
		}
		if !more {
			return chunks
		}
	}
}

// on reads a boolean server variable (1 or ON).
func on(v string) bool { return v == "1" || strings.EqualFold(v, "ON") }

// loader is one connection's load state and buffer.
type loader struct {
	// ctx ends a chunk between its statements (INSERT) or its stream's
	// reads (LOAD DATA): a chunk is up to ChunkRows rows.
	ctx   context.Context
	conn  *mysqlconn.Conn
	limit int
	// autocommit: each statement is its own transaction, so one the
	// server chose as a deadlock victim was rolled back whole and can be
	// sent again (concurrent multi-row INSERTs into one InnoDB table do
	// deadlock, seen in TestLoad with 3 connections).
	autocommit bool
	// reconnect replaces conn with a new connection of the same session
	// settings (nil: it cannot, conn is the session's main one).
	reconnect func() error
	buf       []byte
	row       Row
}

func columnList(t *Table) string {
	s := ""
	for i, c := range t.Columns {
		if i > 0 {
			s += ", "
		}
		s += c
	}
	return s
}

// insert loads rows first..first+count-1 as INSERT statements of about
// limit bytes each (a row is never split).
func (l *loader) insert(t *Table, first, count int64, progress func(int64)) error {
	gen := t.NewRows(first)
	prefix := "INSERT INTO " + t.Name + "(" + columnList(t) + ") VALUES"
	if cap(l.buf) < l.limit+4096 {
		l.buf = make([]byte, 0, l.limit+4096)
	}
	l.row.tsv = false
	var pending int64
	flush := func() error {
		if pending == 0 {
			return nil
		}
		if err := l.ctx.Err(); err != nil {
			return err
		}
		q := unsafe.String(unsafe.SliceData(l.buf), len(l.buf))
		var err error
		if l.autocommit {
			err = l.conn.ExecOwnTransaction(q)
		} else {
			err = l.conn.Exec(q)
		}
		if err != nil {
			return err
		}
		progress(pending)
		pending = 0
		return nil
	}
	for n := first; n < first+count; n++ {
		if pending == 0 {
			l.buf = append(l.buf[:0], prefix...)
		} else {
			l.buf = append(l.buf, ',')
		}
		l.row.buf, l.row.col = append(l.buf, '('), 0
		gen(&l.row, n)
		l.buf = append(l.row.buf, ')')
		pending++
		if len(l.buf) >= l.limit {
			if err := flush(); err != nil {
				return err
			}
		}
	}
	return flush()
}

// loadData streams rows first..first+count-1 as one LOAD DATA LOCAL INFILE
// (tab-separated, the statement's default format). With autocommit the
// statement is its own transaction: one the server rolled back as a
// deadlock victim (concurrent LOAD DATAs into one InnoDB table do deadlock,
// seen in a clean-clone CI run's 100000-row prefill) left nothing behind
// and is streamed again from its first row on a new connection (the
// server's error leaves the old one unusable), up to ten times as
// ExecOwnTransaction does for INSERTs; the rows an earlier attempt
// reported are not reported twice.
func (l *loader) loadData(t *Table, first, count int64, progress func(int64)) error {
	var reported int64 // rows reported by this chunk's attempts so far
	for tries := 0; ; tries++ {
		again := reported // of those, the ones this attempt reports again
		report := func(n int64) {
			skip := min(n, again)
			again -= skip
			if n -= skip; n > 0 {
				reported += n
				progress(n)
			}
		}
		r := &rowReader{ctx: l.ctx, gen: t.NewRows(first), next: first, end: first + count, progress: report}
		r.row.tsv = true
		file, release := mysqlconn.LocalReader(func() io.Reader { return r })
		err := l.conn.Exec("LOAD DATA LOCAL INFILE " + file + " INTO TABLE " + t.Name + " (" + columnList(t) + ")")
		release()
		if err != nil && l.autocommit && l.reconnect != nil && mysqlconn.IsDeadlock(err) && tries < 10 && l.ctx.Err() == nil {
			if rerr := l.reconnect(); rerr != nil {
				return fmt.Errorf("%w; reconnecting to send it again: %w", err, rerr)
			}
			continue
		}
		if err == nil && r.next < r.end {
			err = fmt.Errorf("LOAD DATA stopped after %d of %d rows", r.next-first, count)
		}
		if err == nil {
			report(r.unreported)
		}
		return err
	}
}

// rowReader generates tab-separated rows on demand.
type rowReader struct {
	ctx        context.Context // ends the stream: the driver then ends the statement
	gen        RowFunc
	next, end  int64
	row        Row
	pend       []byte // generated, not yet read
	progress   func(int64)
	unreported int64
}

func (r *rowReader) Read(p []byte) (int, error) {
	for len(r.pend) == 0 {
		if r.next >= r.end {
			return 0, io.EOF
		}
		if err := r.ctx.Err(); err != nil {
			return 0, err
		}
		// Generate about 64 KiB at a time.
		r.row.buf = r.row.buf[:0]
		for r.next < r.end && len(r.row.buf) < 64<<10 {
			r.row.col = 0
			r.gen(&r.row, r.next)
			r.row.buf = append(r.row.buf, '\n')
			r.next++
			r.unreported++
		}
		r.pend = r.row.buf
		if r.unreported >= 10000 {
			r.progress(r.unreported)
			r.unreported = 0
		}
	}
	n := copy(p, r.pend)
	r.pend = r.pend[n:]
	return n, nil
}

// Row receives one row's values in column order.
type Row struct {
	buf []byte
	col int
	tsv bool
}

func (w *Row) sep() {
	if w.col > 0 {
		if w.tsv {
			w.buf = append(w.buf, '\t')
		} else {
			w.buf = append(w.buf, ',')
		}
	}
	w.col++
}

// Int adds an integer value.
func (w *Row) Int(v int64) {
	w.sep()
	w.buf = strconv.AppendInt(w.buf, v, 10)
}

// Null adds NULL.
func (w *Row) Null() {
	w.sep()
	if w.tsv {
		w.buf = append(w.buf, '\\', 'N')
	} else {
		w.buf = append(w.buf, "NULL"...)
	}
}

// Str adds a string value, escaped for the format in use.
func (w *Row) Str(v []byte) {
	w.sep()
	if w.tsv {
		for _, b := range v {
			switch b {
			case '\t':
				w.buf = append(w.buf, '\\', 't')
			case '\n':
				w.buf = append(w.buf, '\\', 'n')
			case '\\':
				w.buf = append(w.buf, '\\', '\\')
			case 0:
				w.buf = append(w.buf, '\\', '0')
			default:
				w.buf = append(w.buf, b)
			}
		}
		return
	}
	w.buf = append(w.buf, '\'')
	for _, b := range v {
		switch b {
		case '\'', '\\':
			w.buf = append(w.buf, '\\', b)
		case 0:
			w.buf = append(w.buf, '\\', '0')
		default:
			w.buf = append(w.buf, b)
		}
	}
	w.buf = append(w.buf, '\'')
}
