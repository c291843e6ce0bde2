package oltp

import (
	"database/sql/driver"
	"errors"
	"strconv"
	"unsafe"

	"github.com/go-sql-driver/mysql"
	"github.com/goslap/goslap/internal/mysqlconn"
	"github.com/goslap/goslap/internal/workload"
)

// errUnsupportedPS is ER_UNSUPPORTED_PS: the server cannot prepare this
// statement, which is then sent as text (as sysbench does).
const errUnsupportedPS = 1295

// StatementError is a failed statement: the SQL template and the server's
// error, reachable with errors.As (*mysql.MySQLError) so the engine can
// read the code and decide whether to ignore it and restart the event.
type StatementError struct {
	SQL string
	Err error
}

func (e *StatementError) Error() string { return e.Err.Error() + " (statement: " + e.SQL + ")" }
func (e *StatementError) Unwrap() error { return e.Err }

// Code returns the server's error number of err, 0 if it is not a server
// error.
func Code(err error) int {
	var me *mysql.MySQLError
	if errors.As(err, &me) {
		return int(me.Number)
	}
	return 0
}

// load is one iteration's shared, read-only state.
type load struct {
	cfg     *config
	stmts   [numKinds][]stmtDef
	used    [numKinds]bool
	lock    bool // 0.5 LOCK TABLES instead of BEGIN/COMMIT
	clients int
	saltU   uint32
}

func (l *load) Client(id int) workload.Client {
	c := &client{l: l, cfg: l.cfg, num: id, rng: newRNG(l.cfg.seed, uint64(id))}
	for k := kind(0); k < numKinds; k++ {
		if l.used[k] && len(l.stmts[k]) > 0 {
			c.args[k] = make([]driver.NamedValue, l.stmts[k][0].params())
			for i := range c.args[k] {
				c.args[k][i].Ordinal = i + 1
			}
		}
	}
	c.cbuf = make([]byte, len(tmplC119))
	c.pbuf = make([]byte, len(tmplP59))
	c.uniq05 = 2147483647 * int64(1+id)
	if l.cfg.dialect == dialect04 && l.cfg.script == scriptReadWrite {
		// 0.4 draws a transaction's ids once and replays them when it
		// restarts the transaction after a deadlock.
		c.ids = make([]int64, 0, 64)
	}
	n := l.clients
	if n < 1 {
		n = 1
	}
	slot := int64(id % n)
	width := float64(l.cfg.tableSize) / float64(n)
	c.sliceLo = int64(width * float64(slot))
	c.sliceHi = int64(width*float64(slot) + width)
	return c
}

// client is one simulated sysbench thread.
type client struct {
	l     *load
	cfg   *config
	num   int // global client id
	rng   rng
	conn  *mysqlconn.Conn
	prep  [numKinds][]*mysqlconn.Stmt
	args  [numKinds][]driver.NamedValue
	tally workload.Tally
	inTrx bool
	buf   []byte // text statement being built
	cbuf  []byte // c value
	pbuf  []byte // pad value
	// events done on this connection, for --reconnect
	events int64
	// uniqSeq counts unique32 values; uniq05 is 0.5's uniq() state and
	// uniq04 0.4's unique delete id state, each per client.
	uniqSeq          uint64
	uniq05, uniq04   int64
	sliceLo, sliceHi int64
	// ids are the ids the current 0.4 transaction drew, idPos the next
	// one to hand out; retry says the last attempt hit a deadlock, so the
	// next one replays them (sysbench 0.4 re-runs the same query list).
	ids   []int64
	idPos int
	retry bool
	// record, when set, receives every statement as text instead of a
	// server (tests): the statement sequence without a connection.
	record func(sql string)
	// ring is the event the engine's ring path sends (ring.go).
	ring ringEvent
}

// Begin prepares the statements the workload uses on the connection (once
// per connection, before the clock).
func (c *client) Begin(conn *mysqlconn.Conn) error {
	c.conn = conn
	c.inTrx = false
	c.events = 0
	for k := kind(0); k < numKinds; k++ {
		c.prep[k] = nil
		if !c.l.used[k] || !c.cfg.prepared || conn == nil {
			continue
		}
		defs := c.l.stmts[k]
		c.prep[k] = make([]*mysqlconn.Stmt, len(defs))
		for t, d := range defs {
			if d.text {
				continue
			}
			st, err := conn.Prepare(d.sql)
			if err != nil {
				if Code(err) == errUnsupportedPS {
					continue
				}
				return &StatementError{SQL: d.sql, Err: err}
			}
			c.prep[k][t] = st
		}
	}
	return nil
}

// End closes the prepared statements.
func (c *client) End(conn *mysqlconn.Conn) error {
	var first error
	for k := range c.prep {
		for _, st := range c.prep[k] {
			if st != nil {
				if err := st.Close(); err != nil && first == nil {
					first = err
				}
			}
		}
		c.prep[k] = nil
	}
	return first
}

func (c *client) Tally() workload.Tally { return c.tally }

// Next runs one event. After an error, dialect 1.0 rolls back what the
// event opened; sysbench 0.4 and 0.5 send nothing: the restarted event's
// BEGIN (or LOCK TABLES) ends whatever the failed attempt left open, and a
// deadlock has already rolled the transaction back on the server.
func (c *client) Next(conn *mysqlconn.Conn) (workload.Step, error) {
	if conn != nil {
		c.conn = conn
	}
	if c.ids != nil {
		if !c.retry {
			c.ids = c.ids[:0]
		}
		c.idPos, c.retry = 0, false
	}
	if err := c.event(); err != nil {
		if c.inTrx {
			c.inTrx = false
			if c.cfg.dialect == dialect10 && c.record == nil && c.conn != nil {
				_ = c.conn.Exec("ROLLBACK")
			}
		}
		return workload.Step{}, err
	}
	c.events++
	st := workload.Step{}
	if c.cfg.reconnect > 0 && c.events >= c.cfg.reconnect {
		st.Reconnect = true
		c.events = 0
	}
	return st, nil
}

// id is rand_default(1, N); in a 0.4 transaction restarted after a
// deadlock, the id the first attempt drew at the same place.
func (c *client) id() int64 {
	if c.ids == nil {
		return c.cfg.dist.draw(&c.rng, 1, c.cfg.tableSize)
	}
	if c.idPos < len(c.ids) {
		v := c.ids[c.idPos]
		c.idPos++
		return v
	}
	v := c.cfg.dist.draw(&c.rng, 1, c.cfg.tableSize)
	c.ids = append(c.ids, v)
	c.idPos++
	return v
}

// table draws a table index (0-based), uniform over the tables.
func (c *client) table() int {
	n := c.cfg.tables
	if n == 1 {
		return 0
	}
	if c.cfg.dialect == dialect10 {
		return int(c.rng.u() * float64(n))
	}
	return int(c.rng.r30() % n)
}

func (c *client) event() error {
	cfg := c.cfg
	switch cfg.script {
	case scriptReadWrite:
		if cfg.dialect == dialect10 {
			return c.readWrite10()
		}
		return c.readWriteOld()
	case scriptPointSelect:
		return c.point(c.table())
	case scriptUpdateIndex:
		t := c.table()
		n := cfg.indexUpdates
		if cfg.dialect == dialect05 {
			n = 1
		}
		for i := int64(0); i < n; i++ {
			if err := c.one(kIndexUpdate, t, c.id()); err != nil {
				return err
			}
		}
		return nil
	case scriptUpdateNonIndex:
		t := c.table()
		n := cfg.nonIndexUpdates
		if cfg.dialect == dialect05 {
			n = 1
		}
		for i := int64(0); i < n; i++ {
			if err := c.nonIndex(t); err != nil {
				return err
			}
		}
		return nil
	case scriptDelete:
		return c.one(kDelete, c.table(), c.id())
	case scriptInsert:
		t := c.table()
		var i int64
		if !cfg.autoInc {
			if cfg.dialect == dialect05 {
				i = 1 + c.uniq05%cfg.tableSize
				c.uniq05 += 2147483647 * int64(c.l.clients)
			} else {
				i = int64(unique32(c.uniqSeq, c.num, c.l.clients, c.l.saltU)) - 2147483648
				c.uniqSeq++
			}
		}
		return c.insert(t, i)
	case scriptRandomPoints:
		a := c.args[kRandomPoints]
		for i := range a {
			a[i].Value = cfg.dist.draw(&c.rng, c.sliceLo, c.sliceHi)
		}
		return c.run(kRandomPoints, 0)
	case scriptRandomRanges:
		a := c.args[kRandomRanges]
		for i := 0; i+1 < len(a); i += 2 {
			v := cfg.dist.draw(&c.rng, c.sliceLo, c.sliceHi)
			a[i].Value, a[i+1].Value = v, v+cfg.delta
		}
		return c.run(kRandomRanges, 0)
	case scriptNontrx:
		return c.nontrx04()
	}
	return nil
}

func (c *client) readWrite10() error {
	cfg := c.cfg
	if !cfg.skipTrx {
		if err := c.run(kBegin, 0); err != nil {
			return err
		}
		c.inTrx = true
	}
	if cfg.reads {
		t := c.table()
		for i := int64(0); i < cfg.points; i++ {
			if err := c.point(t); err != nil {
				return err
			}
		}
		if cfg.rangeSelects {
			for _, g := range [...]struct {
				k kind
				n int64
			}{{kSimple, cfg.simple}, {kSum, cfg.sum}, {kOrder, cfg.order}, {kDistinct, cfg.distinct}} {
				t := c.table()
				for i := int64(0); i < g.n; i++ {
					s := c.id()
					if err := c.two(g.k, t, s, s+cfg.rangeSize-1); err != nil {
						return err
					}
				}
			}
		}
	}
	if cfg.writes {
		if err := c.writes(c.table(), c.table(), c.table()); err != nil {
			return err
		}
	}
	if !cfg.skipTrx {
		if err := c.run(kCommit, 0); err != nil {
			return err
		}
		c.inTrx = false
	}
	return nil
}

// writes runs the update and delete/insert groups on tables ti, tn, td.
func (c *client) writes(ti, tn, td int) error {
	cfg := c.cfg
	for i := int64(0); i < cfg.indexUpdates; i++ {
		if err := c.one(kIndexUpdate, ti, c.id()); err != nil {
			return err
		}
	}
	for i := int64(0); i < cfg.nonIndexUpdates; i++ {
		if err := c.nonIndex(tn); err != nil {
			return err
		}
	}
	for i := int64(0); i < cfg.deleteInserts; i++ {
		x := c.id()
		if cfg.dialect == dialect04 {
			// sysbench 0.4.12 updates k of the row it is about to delete
			// (one more write per transaction; the 0.4 branch dropped it
			// in 2016).
			if err := c.one(kIndexUpdate, td, x); err != nil {
				return err
			}
		}
		if err := c.one(kDelete, td, x); err != nil {
			return err
		}
		if cfg.dialect == dialect04 {
			if err := c.one(kInsert, td, x); err != nil {
				return err
			}
			continue
		}
		if err := c.insert(td, x); err != nil {
			return err
		}
	}
	return nil
}

// readWriteOld is the 0.5 oltp.lua event (one table per event) and the 0.4
// complex mode (one table, clamped ranges).
func (c *client) readWriteOld() error {
	cfg := c.cfg
	t := c.table()
	begin, commit := kBegin, kCommit
	if c.l.lock {
		begin, commit = kLock, kUnlock
	}
	if !cfg.skipTrx {
		if err := c.run(begin, 0); err != nil {
			return err
		}
		c.inTrx = true
	}
	if cfg.reads {
		for i := int64(0); i < cfg.points; i++ {
			if err := c.point(t); err != nil {
				return err
			}
		}
		if cfg.rangeSelects {
			for _, g := range [...]struct {
				k kind
				n int64
			}{{kSimple, cfg.simple}, {kSum, cfg.sum}, {kOrder, cfg.order}, {kDistinct, cfg.distinct}} {
				for i := int64(0); i < g.n; i++ {
					s := c.id()
					var err error
					if cfg.dialect == dialect05 {
						// The end is "<s>+<range_size-1>" in the text.
						err = c.two(g.k, t, s, s)
					} else {
						if s+cfg.rangeSize > cfg.tableSize {
							s = cfg.tableSize - cfg.rangeSize
						}
						if s < 1 {
							s = 1
						}
						e := s + cfg.rangeSize - 1
						if g.k == kDistinct {
							e = s + cfg.rangeSize
						}
						err = c.two(g.k, t, s, e)
					}
					if err != nil {
						return err
					}
				}
			}
		}
	}
	if cfg.writes {
		if err := c.writes(t, t, t); err != nil {
			return err
		}
	}
	if !cfg.skipTrx {
		if err := c.run(commit, 0); err != nil {
			return err
		}
		c.inTrx = false
	}
	return nil
}

func (c *client) nontrx04() error {
	cfg := c.cfg
	switch cfg.nontrx {
	case "select":
		return c.one(kSelectPad, 0, c.id())
	case "update_key":
		return c.one(kIndexUpdate, 0, c.id())
	case "update_nokey":
		a := c.args[kNonIndexUpdate]
		a[0].Value = c.numbers04(c.cbuf[:0], 119)
		a[1].Value = c.id()
		return c.run(kNonIndexUpdate, 0)
	case "insert":
		a := c.args[kInsert]
		if cfg.autoInc {
			a[0].Value = nil
		} else {
			a[0].Value = c.unique04()
		}
		a[1].Value = c.id()
		a[2].Value = c.numbers04(c.cbuf[:0], 119)
		a[3].Value = c.numbers04(c.pbuf[:0], 59)
		return c.run(kInsert, 0)
	case "delete":
		return c.one(kDelete, 0, c.unique04())
	}
	return nil
}

// unique04 is 0.4's unique id generator (1 + s mod N, s += 2^31-1), with
// each client on its own arithmetic progression of s.
func (c *client) unique04() int64 {
	if c.uniq04 == 0 {
		c.uniq04 = 2147483647 * int64(1+c.num)
	}
	v := 1 + c.uniq04%c.cfg.tableSize
	c.uniq04 += 2147483647 * int64(c.l.clients)
	return v
}

// numbers04 is 0.4's c value: ten R() values in decimal joined by '-',
// truncated to max characters.
func (c *client) numbers04(dst []byte, max int) []byte {
	for i := 0; i < 10; i++ {
		if i > 0 {
			dst = append(dst, '-')
		}
		dst = strconv.AppendInt(dst, c.rng.r30(), 10)
	}
	if len(dst) > max {
		dst = dst[:max]
	}
	return dst
}

func (c *client) point(t int) error { return c.one(kPoint, t, c.id()) }

func (c *client) nonIndex(t int) error {
	a := c.args[kNonIndexUpdate]
	if c.cfg.dialect == dialect04 {
		a[0].Value = c.numbers04(c.cbuf[:0], 119)
	} else {
		c.rng.fill(c.cbuf, tmplC119)
		a[0].Value = c.cbuf
	}
	a[1].Value = c.id()
	return c.run(kNonIndexUpdate, t)
}

// insert runs the 1.0/0.5 INSERT with id i, a fresh k, c and pad.
func (c *client) insert(t int, i int64) error {
	a := c.args[kInsert]
	a[0].Value = i
	a[1].Value = c.id()
	c.rng.fill(c.cbuf, tmplC119)
	c.rng.fill(c.pbuf, tmplP59)
	a[2].Value, a[3].Value = c.cbuf, c.pbuf
	return c.run(kInsert, t)
}

func (c *client) one(k kind, t int, v int64) error {
	c.args[k][0].Value = v
	return c.run(k, t)
}

func (c *client) two(k kind, t int, v, w int64) error {
	a := c.args[k]
	a[0].Value, a[1].Value = v, w
	return c.run(k, t)
}

// run executes statement kind k on table t with the client's args for k and
// counts it by the dialect's rule (§7.2).
func (c *client) run(k kind, t int) error {
	d := &c.l.stmts[k][t]
	if c.ring.collecting {
		c.collectStmt(k, t, d)
		return nil
	}
	args := c.args[k]
	var (
		affected int64
		err      error
	)
	var st *mysqlconn.Stmt
	if p := c.prep[k]; p != nil {
		st = p[t]
	}
	switch {
	case c.record != nil:
		c.buf = inline(c.buf[:0], d, args)
		c.record(string(c.buf))
		if d.class == classWrite {
			affected = 1
		}
	case st != nil && d.result:
		// Not Stmt.Exec, though it would skip the rows without a rows
		// object: go-sql-driver 1.10.2's Exec skips column definitions
		// that MariaDB's metadata cache left out, reads rows in their
		// place and waits for packets that never come.
		err = st.Drain(args)
	case st != nil:
		affected, err = st.ExecAffected(args)
	default:
		c.buf = inline(c.buf[:0], d, args)
		q := unsafe.String(unsafe.SliceData(c.buf), len(c.buf))
		if d.result {
			err = c.conn.Exec(q)
		} else {
			affected, err = c.conn.ExecResult(q)
		}
	}
	if err != nil {
		if c.cfg.dialect == dialect04 && deadlock04(err) {
			// sysbench 0.4 counts the statement that hit the deadlock
			// (the server executed it) and restarts the transaction.
			c.count(d.class)
			c.retry = true
		}
		return &StatementError{SQL: d.sql, Err: err}
	}
	cl := d.class
	if c.cfg.dialect == dialect10 {
		switch {
		case d.result:
			cl = classRead
		case affected > 0:
			cl = classWrite
		default:
			cl = classOther
		}
	}
	c.count(cl)
	return nil
}

func (c *client) count(cl class) {
	switch cl {
	case classRead:
		c.tally.Reads++
	case classWrite:
		c.tally.Writes++
	default:
		c.tally.Other++
	}
}

// deadlock04 says whether sysbench 0.4 retries the transaction after err:
// a deadlock (1213), a lock wait timeout (1205) or ER_CHECKREAD (1020).
func deadlock04(err error) bool {
	switch Code(err) {
	case 1213, 1205, 1020:
		return true
	}
	return false
}

// inline writes d's SQL with the values in place of the placeholders (the
// text protocol: 0.5, --db-ps-mode=disable, 1.0 oltp_insert).
func inline(dst []byte, d *stmtDef, args []driver.NamedValue) []byte {
	dst = append(dst, d.parts[0]...)
	for i := range args {
		switch v := args[i].Value.(type) {
		case int64:
			dst = strconv.AppendInt(dst, v, 10)
		case []byte:
			dst = mysqlconn.AppendQuoted(dst, v)
		case nil:
			dst = append(dst, "NULL"...)
		}
		dst = append(dst, d.parts[i+1]...)
	}
	return dst
}
