package tpcc

import (
	"database/sql/driver"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/go-sql-driver/mysql"

	"github.com/goslap/goslap/internal/mysqlconn"
	"github.com/goslap/goslap/internal/workload"
)

// MaxRetry is tpcc-mysql's MAX_RETRY: a transaction failing with an SQL
// error is rolled back and run again with the same input up to this many
// times, then counted as a failure.
const MaxRetry = 2000

// Counts are the per-transaction counts tpcc-mysql reports beside the
// completed transactions (its rt and fl columns).
type Counts struct {
	Retries  [numTx]uint64
	Failures [numTx]uint64
}

// load is one iteration's clients and their shared deck.
type load struct {
	warehouses int
	seed       uint64
	c          constants
	deck       deck
	mu         sync.Mutex // guards clients (built before the clock starts)
	clients    []*client
}

func newLoad(warehouses int, seed uint64) *load {
	l := &load{warehouses: warehouses, seed: seed, c: newConstants(seed ^ 0x7470636372756e)}
	l.deck.seed = seed
	return l
}

// Client returns client id's state.
func (l *load) Client(id int) workload.Client {
	c := newClient(l, id)
	l.mu.Lock()
	l.clients = append(l.clients, c)
	l.mu.Unlock()
	return c
}

// counts sums the clients' retries and failures that happened within
// [from, to] (all of them for zero times).
func (l *load) counts(from, to time.Time) Counts {
	l.mu.Lock()
	defer l.mu.Unlock()
	var n Counts
	for _, c := range l.clients {
		if from.IsZero() && to.IsZero() {
			for i := 0; i < numTx; i++ {
				n.Retries[i] += c.counts.Retries[i]
				n.Failures[i] += c.counts.Failures[i]
			}
			continue
		}
		for _, e := range c.events {
			if e.at.Before(from) || e.at.After(to) {
				continue
			}
			if e.failure {
				n.Failures[e.op]++
			} else {
				n.Retries[e.op]++
			}
		}
	}
	return n
}

// countEvent is one retry or failure, timed so that a report can count
// only those of the measured window, as tpcc-mysql does. They are rare
// (an SQL error each), so the clock is read only then.
type countEvent struct {
	at      time.Time
	op      int
	failure bool
}

// executor runs a client's statements: prepared statements on a connection
// in a run, a recorder in the statement-sequence tests.
type executor interface {
	query(id int, args []driver.NamedValue) ([][][]byte, error)
	exec(id int, args []driver.NamedValue) (int64, error)
	commit() error
	rollback() error
}

type connExecutor struct {
	conn  *mysqlconn.Conn
	stmts [numStatements]*mysqlconn.Stmt
}

func (e *connExecutor) query(id int, args []driver.NamedValue) ([][][]byte, error) {
	return e.stmts[id].Query(args)
}
func (e *connExecutor) exec(id int, args []driver.NamedValue) (int64, error) {
	return e.stmts[id].ExecAffected(args)
}
func (e *connExecutor) count(id int, args []driver.NamedValue, buf *[]driver.Value) (int64, error) {
	return e.stmts[id].Count(args, buf)
}
func (e *connExecutor) drain(id int, args []driver.NamedValue) error {
	// Not Stmt.Exec: see oltp's client.run.
	return e.stmts[id].Drain(args)
}
func (e *connExecutor) queryRow(id int, args []driver.NamedValue, row *mysqlconn.Row) (bool, error) {
	return e.stmts[id].QueryRow(args, row)
}
func (e *connExecutor) queryInts(id int, args []driver.NamedValue, dst []int64, buf *[]driver.Value) ([]int64, error) {
	return e.stmts[id].QueryInts(args, dst, buf)
}
func (e *connExecutor) commit() error   { return e.conn.Exec("COMMIT") }
func (e *connExecutor) rollback() error { return e.conn.Exec("ROLLBACK") }

func (e *connExecutor) close() {
	for _, s := range e.stmts {
		if s != nil {
			_ = s.Close()
		}
	}
}

// rowReader runs a query without copying out the values the transaction
// does not use: count reads the rows for their number (a row must exist),
// drain reads and discards them, queryRow copies the first row into the
// client's buffers for the statement, queryInts the first column of every
// row as integers into a reused slice. Query would copy every value of
// every row into fresh slices: Stock-Level's ~200 stock counts, the
// customer checks of New-Order and Order-Status, Order-Status's lines,
// New-Order's 12-column stock row for two values (~15 % of the client's
// user CPU before). The server sees the same statements either way. An
// executor without it (the statement recorder) answers through query.
type rowReader interface {
	count(id int, args []driver.NamedValue, buf *[]driver.Value) (int64, error)
	drain(id int, args []driver.NamedValue) error
	queryRow(id int, args []driver.NamedValue, row *mysqlconn.Row) (bool, error)
	queryInts(id int, args []driver.NamedValue, dst []int64, buf *[]driver.Value) ([]int64, error)
}

// line is one New-Order line's input.
type line struct{ item, supply, qty int }

// input is one transaction's random input, drawn before its first attempt
// and kept for its retries.
type input struct {
	w, d      int
	cw, cd, c int // the customer (Payment: possibly of a remote warehouse)
	byName    bool
	last      []byte
	cnt       int
	lines     [15]line
	allLocal  int
	rollback  bool
	amount    int // cents
	carrier   int
	threshold int
}

// client is one connection's TPC-C terminal.
type client struct {
	l      *load
	g      rng
	hand   hand
	ex     executor
	skip   rowReader // ex's, nil when ex has none
	in     input
	args   []driver.NamedValue
	rowBuf []driver.Value               // count's and queryInts's row buffer
	rows   [numStatements]mysqlconn.Row // each statement's first row, reused
	intBuf []int64                      // the last ints result, reused
	cdata  []byte                       // Payment's new c_data
	hdata  []byte
	tally  workload.Tally
	counts Counts
	events []countEvent
}

func newClient(l *load, id int) *client {
	return &client{
		l:     l,
		g:     newRNG(l.seed, uint64(id)),
		args:  make([]driver.NamedValue, 0, 8),
		cdata: make([]byte, 0, 600),
		hdata: make([]byte, 0, 32),
		in:    input{last: make([]byte, 0, 16)},
	}
}

// Coroutine: a TPC-C client may run as a coroutine on the engine's ring
// thread (workload.CoroutineClient): measured at 4 to 64 connections.
func (c *client) Coroutine() bool { return true }

// Threaded: in the engine's threaded range a TPC-C load on one warehouse
// runs a thread per client instead (workload.ThreadedClient). There every
// Payment updates the one warehouse row and every New-Order one of its ten
// district rows, so most connections wait for a row lock at any moment
// (InnoDB: about 0.64 lock waits per transaction at 16 connections), and
// on 2 cores at 8, 16 and 32 connections the threaded path had the higher
// tpmC on both servers. On 4 warehouses, at 16 and 32 connections, the
// ring's tpmC was level or higher at 0.66-0.85x the threaded client's CPU
// per transaction, so more warehouses keep the ring (2 and 3 were not
// measured). BENCHMARKS.md, "TPC-C on a thread per client from 8
// connections".
func (c *client) Threaded() bool { return c.l.warehouses == 1 }

// Begin sets tpcc-mysql's session (autocommit off) and prepares every
// statement once for this connection.
func (c *client) Begin(conn *mysqlconn.Conn) error {
	if old, ok := c.ex.(*connExecutor); ok {
		old.close()
	}
	c.ex, c.skip = nil, nil
	if err := conn.Exec("SET autocommit = 0"); err != nil {
		return err
	}
	e := &connExecutor{conn: conn}
	for i, s := range Statements {
		st, err := conn.Prepare(s.SQL)
		if err != nil {
			e.close()
			var me *mysql.MySQLError
			if errors.As(err, &me) && me.Number == 1146 {
				return fmt.Errorf("tpcc: the TPC-C tables are missing (run prepare first): %w", err)
			}
			return fmt.Errorf("tpcc: cannot prepare %s: %w", s.Name, err)
		}
		e.stmts[i] = st
	}
	c.ex, c.skip = e, e
	return nil
}

// End closes the prepared statements.
func (c *client) End(conn *mysqlconn.Conn) error {
	if e, ok := c.ex.(*connExecutor); ok {
		e.close()
	}
	c.ex, c.skip = nil, nil
	return nil
}

// Tally returns the statement counts.
func (c *client) Tally() workload.Tally { return c.tally }

// errNoClient is Next before a successful Begin.
var errNoClient = errors.New("tpcc: client used before Begin")

// dataError is a result the loaded data rules out (a missing row): the
// data is not TPC-C's, so retrying cannot help.
type dataError struct{ msg string }

func (e *dataError) Error() string {
	return "tpcc: " + e.msg + " (is the schema loaded by tpcc prepare?)"
}

// errRolledBack ends a New-Order whose last item does not exist: rolled
// back on purpose, counted as completed (TPC-C's 1 %).
var errRolledBack = errors.New("tpcc: New-Order rolled back on purpose")

// Next deals a card, draws the transaction's input and runs it, retrying
// on SQL errors up to MaxRetry times.
func (c *client) Next(conn *mysqlconn.Conn) (workload.Step, error) {
	if c.ex == nil {
		return workload.Step{}, errNoClient
	}
	op := c.l.deck.deal(&c.hand)
	c.draw(op)
	err := c.attempt(op)
	if err == errRolledBack {
		c.tally.Rollbacks++
		err = nil
	}
	return workload.Step{Op: op}, err
}

// attempt runs transaction op with the drawn input until it succeeds, is
// rolled back on purpose, fails for good or breaks the connection.
func (c *client) attempt(op int) error {
	for attempt := 0; ; attempt++ {
		err := c.run(op)
		if err == nil || err == errRolledBack {
			return err
		}
		var me *mysql.MySQLError
		var de *dataError
		isSQL := errors.As(err, &me)
		if !isSQL && !errors.As(err, &de) {
			// The connection broke: the engine reconnects or stops.
			return err
		}
		if rerr := c.rollback(); rerr != nil {
			return rerr
		}
		if !isSQL || attempt == MaxRetry {
			c.counts.Failures[op]++
			c.events = append(c.events, countEvent{at: time.Now(), op: op, failure: true})
			return err
		}
		c.tally.Retries++
		c.counts.Retries[op]++
		c.events = append(c.events, countEvent{at: time.Now(), op: op})
	}
}

// otherWarehouse draws a warehouse other than w (there must be two).
func (c *client) otherWarehouse(w int) int {
	o := c.g.num(1, c.l.warehouses-1)
	if o >= w {
		o++
	}
	return o
}

func (c *client) customer(in *input) {
	in.byName = c.g.num(1, 100) <= 60
	in.last = in.last[:0]
	in.c = 0
	if in.byName {
		in.last = appendLastName(in.last, c.g.nurand(255, 0, 999, c.l.c.last))
	} else {
		in.c = c.g.nurand(1023, 1, custPerDist, c.l.c.id)
	}
}

// draw fills c.in for transaction op (tpcc-mysql's driver.c input rules).
func (c *client) draw(op int) {
	in := &c.in
	g := c.g
	in.w = g.num(1, c.l.warehouses)
	in.d = g.num(1, distPerWH)
	switch op {
	case NewOrder:
		in.c = g.nurand(1023, 1, custPerDist, c.l.c.id)
		in.cnt = g.num(5, 15)
		in.rollback = g.num(1, 100) == 1
		in.allLocal = 1
		for i := 0; i < in.cnt; i++ {
			ln := line{item: g.nurand(8191, 1, maxItems, c.l.c.item), supply: in.w, qty: g.num(1, 10)}
			if c.l.warehouses > 1 && g.num(1, 100) == 1 {
				ln.supply = c.otherWarehouse(in.w)
				in.allLocal = 0
			}
			if in.rollback && i == in.cnt-1 {
				ln.item = notFoundItem
			}
			in.lines[i] = ln
		}
		// (supply warehouse, item) order, so concurrent New-Orders lock
		// stock rows in one order and do not deadlock.
		for i := 1; i < in.cnt; i++ {
			for j := i; j > 0 && less(in.lines[j], in.lines[j-1]); j-- {
				in.lines[j], in.lines[j-1] = in.lines[j-1], in.lines[j]
			}
		}
	case Payment:
		in.cw, in.cd = in.w, in.d
		if c.l.warehouses > 1 && g.num(1, 100) > 85 {
			in.cw = c.otherWarehouse(in.w)
			in.cd = g.num(1, distPerWH)
		}
		c.customer(in)
		in.amount = g.num(100, 500000)
	case OrderStatus:
		in.cw, in.cd = in.w, in.d
		c.customer(in)
	case Delivery:
		in.carrier = g.num(1, 10)
	case StockLevel:
		in.threshold = g.num(10, 20)
	}
}

func less(a, b line) bool {
	if a.supply != b.supply {
		return a.supply < b.supply
	}
	return a.item < b.item
}

func (c *client) run(op int) error {
	switch op {
	case NewOrder:
		return c.newOrder()
	case Payment:
		return c.payment()
	case OrderStatus:
		return c.orderStatus()
	case Delivery:
		return c.delivery()
	default:
		return c.stockLevel()
	}
}

// box is n as the int64 argument the driver takes (the statements bypass
// database/sql's conversion). Boxing a value above 255 allocates, so a
// transaction boxes each value once and hands the same interface to every
// statement that sends it (New-Order sends an order line's item to four).
func box(n int) any { return int64(n) }

// bind fills the reused argument slice with vs: values boxed by box, or
// []byte.
func (c *client) bind(vs ...any) []driver.NamedValue {
	c.args = c.args[:0]
	for i, v := range vs {
		c.args = append(c.args, driver.NamedValue{Ordinal: i + 1, Value: v})
	}
	return c.args
}

func (c *client) query(id int, vs ...any) ([][][]byte, error) {
	c.tally.Reads++
	return c.ex.query(id, c.bind(vs...))
}

func (c *client) exec(id int, vs ...any) (int64, error) {
	c.tally.Writes++
	return c.ex.exec(id, c.bind(vs...))
}

// drain runs a query whose rows are read and not used.
func (c *client) drain(id int, vs ...any) error {
	c.tally.Reads++
	if c.skip == nil {
		_, err := c.ex.query(id, c.bind(vs...))
		return err
	}
	return c.skip.drain(id, c.bind(vs...))
}

// exists runs a query that must return a row whose values are not used;
// no row is a dataError naming the statement, as for row.
func (c *client) exists(id int, vs ...any) error {
	c.tally.Reads++
	var n int64
	var err error
	if c.skip == nil {
		var rows [][][]byte
		rows, err = c.ex.query(id, c.bind(vs...))
		n = int64(len(rows))
	} else {
		n, err = c.skip.count(id, c.bind(vs...), &c.rowBuf)
	}
	if err != nil {
		return err
	}
	if n == 0 {
		return &dataError{Statements[id].Name + " found no row"}
	}
	return nil
}

func (c *client) commit() error {
	c.tally.Other++
	return c.ex.commit()
}

func (c *client) rollback() error {
	c.tally.Other++
	return c.ex.rollback()
}

// row runs a query that must return a row and returns its first row; no
// row is a dataError naming the statement.
func (c *client) row(id int, vs ...any) ([][]byte, error) {
	row, found, err := c.first(id, vs...)
	if err != nil {
		return nil, err
	}
	if !found {
		return nil, &dataError{Statements[id].Name + " found no row"}
	}
	return row, nil
}

// first runs a query and returns its first row, NULL as nil, if it has
// one. The row is valid until the statement runs again: each statement
// has its own buffers, so a transaction may hold the rows of several.
func (c *client) first(id int, vs ...any) ([][]byte, bool, error) {
	if c.skip == nil {
		rows, err := c.query(id, vs...)
		if err != nil || len(rows) == 0 {
			return nil, false, err
		}
		return rows[0], true, nil
	}
	c.tally.Reads++
	row := &c.rows[id]
	found, err := c.skip.queryRow(id, c.bind(vs...), row)
	if err != nil || !found {
		return nil, false, err
	}
	return row.Values, true, nil
}

// ints runs a query and returns the first column of its rows as integers,
// valid until the next call.
func (c *client) ints(id int, vs ...any) ([]int64, error) {
	if c.skip == nil {
		rows, err := c.query(id, vs...)
		if err != nil {
			return nil, err
		}
		c.intBuf = c.intBuf[:0]
		for _, r := range rows {
			c.intBuf = append(c.intBuf, int64(atoi(r[0])))
		}
		return c.intBuf, nil
	}
	c.tally.Reads++
	var err error
	c.intBuf, err = c.skip.queryInts(id, c.bind(vs...), c.intBuf, &c.rowBuf)
	return c.intBuf, err
}

func (c *client) newOrder() error {
	in := &c.in
	w, d, cid := box(in.w), box(in.d), box(in.c)
	if err := c.exists(sNOCustomer, w, d, cid); err != nil {
		return err
	}
	row, err := c.row(sNODistrict, d, w)
	if err != nil {
		return err
	}
	oid := box(atoi(row[0]))
	if _, err := c.exec(sNOUpdDistrict, oid, d, w); err != nil {
		return err
	}
	if _, err := c.exec(sNOInsOrder, oid, d, w, cid, box(in.cnt), box(in.allLocal)); err != nil {
		return err
	}
	if _, err := c.exec(sNOInsNewOrder, oid, d, w); err != nil {
		return err
	}
	for i := 0; i < in.cnt; i++ {
		ln := in.lines[i]
		item, supply, qty := box(ln.item), w, box(ln.qty)
		if ln.supply != in.w {
			supply = box(ln.supply)
		}
		irow, found, err := c.first(sNOItem, item)
		if err != nil {
			return err
		}
		if !found {
			if err := c.rollback(); err != nil {
				return err
			}
			return errRolledBack
		}
		price := parseCents(irow[0])
		srow, err := c.row(sNOStock, item, supply)
		if err != nil {
			return err
		}
		q := atoi(srow[0])
		if q > ln.qty+10 {
			q -= ln.qty
		} else {
			q = q - ln.qty + 91
		}
		if _, err := c.exec(sNOUpdStock, box(q), item, supply); err != nil {
			return err
		}
		var dist any = srow[1+in.d]
		if _, err := c.exec(sNOInsOrderLine, oid, d, w, box(i+1), item, supply, qty, int64(ln.qty)*price, dist); err != nil {
			return err
		}
	}
	return c.commit()
}

// pickByName is the customer in the middle (rounded up) of those with the
// input's last name, ordered by first name.
func (c *client) pickByName(w, d any) error {
	in := &c.in
	var last any = in.last
	if err := c.exists(sCountByName, w, d, last); err != nil {
		return err
	}
	ids, err := c.ints(sListByName, w, d, last)
	if err != nil {
		return err
	}
	if len(ids) == 0 {
		return &dataError{"customer named " + string(in.last)}
	}
	in.c = int(ids[(len(ids)+1)/2-1])
	return nil
}

func (c *client) payment() error {
	in := &c.in
	w, d, amount := box(in.w), box(in.d), box(in.amount)
	if _, err := c.exec(sPayUpdWarehouse, amount, w); err != nil {
		return err
	}
	wrow, err := c.row(sPayWarehouse, w)
	if err != nil {
		return err
	}
	if _, err := c.exec(sPayUpdDistrict, amount, w, d); err != nil {
		return err
	}
	drow, err := c.row(sPayDistrict, w, d)
	if err != nil {
		return err
	}
	cw, cd := w, d
	if in.cw != in.w || in.cd != in.d {
		cw, cd = box(in.cw), box(in.cd)
	}
	if in.byName {
		if err := c.pickByName(cw, cd); err != nil {
			return err
		}
	}
	cid := box(in.c)
	crow, err := c.row(sPayCustomer, cw, cd, cid)
	if err != nil {
		return err
	}
	if string(crow[9]) == "BC" {
		drow, err := c.row(sPayCData, cw, cd, cid)
		if err != nil {
			return err
		}
		// TPC-C 2.5.2.2: the payment's ids and amount go in front of
		// c_data, which keeps its first 500 characters.
		b := c.cdata[:0]
		b = appendInts(b, in.c, in.cd, in.cw, in.d, in.w)
		b = appendCents(b, int64(in.amount))
		b = append(b, " | "...)
		b = append(b, drow[0]...)
		if len(b) > 500 {
			b = b[:500]
		}
		c.cdata = b
		var data any = b
		if _, err := c.exec(sPayUpdBC, amount, data, cw, cd, cid); err != nil {
			return err
		}
	} else if _, err := c.exec(sPayUpdGC, amount, cw, cd, cid); err != nil {
		return err
	}
	h := append(c.hdata[:0], wrow[5]...)
	h = append(h, "    "...)
	h = append(h, drow[5]...)
	c.hdata = h
	var hdata any = h
	if _, err := c.exec(sPayInsHistory, cd, cw, cid, d, w, amount, hdata); err != nil {
		return err
	}
	return c.commit()
}

func (c *client) orderStatus() error {
	in := &c.in
	w, d := box(in.w), box(in.d)
	if in.byName {
		if err := c.pickByName(w, d); err != nil {
			return err
		}
	}
	cid := box(in.c)
	if err := c.exists(sOSCustomer, w, d, cid); err != nil {
		return err
	}
	orow, found, err := c.first(sOSOrder, w, d, cid, w, d, cid)
	if err != nil {
		return err
	}
	if found {
		if err := c.drain(sOSLines, w, d, box(atoi(orow[0]))); err != nil {
			return err
		}
	}
	return c.commit()
}

// delivery delivers the oldest undelivered order of each district of the
// warehouse, committing per district as tpcc-mysql does.
func (c *client) delivery() error {
	in := &c.in
	w, carrier := box(in.w), box(in.carrier)
	open := false
	for di := 1; di <= distPerWH; di++ {
		d := box(di)
		row, err := c.row(sDelMinNewOrder, d, w)
		if err != nil {
			return err
		}
		open = true
		if row[0] == nil {
			continue // nothing to deliver in this district
		}
		oid := box(atoi(row[0]))
		n, err := c.exec(sDelDelNewOrder, oid, d, w)
		if err != nil {
			return err
		}
		if n == 0 {
			continue // a concurrent Delivery took it
		}
		orow, err := c.row(sDelOrderCustomer, oid, d, w)
		if err != nil {
			return err
		}
		cid := box(atoi(orow[0]))
		if _, err := c.exec(sDelUpdOrder, carrier, oid, d, w); err != nil {
			return err
		}
		if _, err := c.exec(sDelUpdLines, oid, d, w); err != nil {
			return err
		}
		srow, err := c.row(sDelSumLines, oid, d, w)
		if err != nil {
			return err
		}
		var sum any = zeroAmount
		if srow[0] != nil {
			sum = srow[0]
		}
		if _, err := c.exec(sDelUpdCustomer, sum, cid, d, w); err != nil {
			return err
		}
		if err := c.commit(); err != nil {
			return err
		}
		open = false
	}
	if open {
		return c.commit()
	}
	return nil
}

// zeroAmount is SUM(ol_amount) of an order without lines, boxed once.
var zeroAmount any = []byte("0")

func (c *client) stockLevel() error {
	in := &c.in
	w, d, threshold := box(in.w), box(in.d), box(in.threshold)
	row, err := c.row(sSLDistrict, d, w)
	if err != nil {
		return err
	}
	next := box(atoi(row[0]))
	items, err := c.ints(sSLItems, w, d, next, next)
	if err != nil {
		return err
	}
	for _, it := range items {
		if err := c.drain(sSLCount, w, box(int(it)), threshold); err != nil {
			return err
		}
	}
	return c.commit()
}

// atoi parses a non-negative decimal integer column.
func atoi(b []byte) int {
	n := 0
	for _, ch := range b {
		if ch < '0' || ch > '9' {
			break
		}
		n = n*10 + int(ch-'0')
	}
	return n
}

// parseCents parses a DECIMAL(x,2) column ("12.34", "-10.00") into cents.
func parseCents(b []byte) int64 {
	neg := len(b) > 0 && b[0] == '-'
	if neg {
		b = b[1:]
	}
	var v int64
	frac := -1
	for _, ch := range b {
		switch {
		case ch == '.':
			frac = 0
		case ch >= '0' && ch <= '9' && frac < 2:
			v = v*10 + int64(ch-'0')
			if frac >= 0 {
				frac++
			}
		}
	}
	if frac < 0 {
		frac = 0
	}
	for ; frac < 2; frac++ {
		v *= 10
	}
	if neg {
		v = -v
	}
	return v
}

func appendInts(b []byte, vs ...int) []byte {
	for _, v := range vs {
		b = appendInt(b, v)
		b = append(b, ' ')
	}
	return b
}

func appendInt(b []byte, v int) []byte {
	if v >= 10 {
		b = appendInt(b, v/10)
	}
	return append(b, byte('0'+v%10))
}
