package tpcc

import (
	"bytes"
	"context"
	"database/sql/driver"
	"fmt"
	"io"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/goslap/goslap/internal/mysqlconn"
	"github.com/goslap/goslap/internal/workload"
)

// batchBytes bounds one multi-row INSERT: far under the server's default
// max_allowed_packet (16 MB on MariaDB 10.11, 64 MB on MySQL 8), large
// enough that per-statement costs vanish.
const batchBytes = 1 << 20

// taskKind is one unit of the load: tpcc_load's parts split finely enough
// that a single warehouse loads over several connections.
type taskKind uint64

const (
	taskItems     taskKind = iota + 1 // items lo..hi
	taskWarehouse                     // a warehouse row and its districts
	taskStock                         // stock lo..hi of a warehouse
	taskCustomers                     // a district's customers and history
	taskOrders                        // a district's orders, order lines, new orders
)

type loadTask struct {
	kind   taskKind
	w, d   int
	lo, hi int
}

// stream keys the task's random stream on what it loads, so the data does
// not depend on which connection ran which task.
func (t loadTask) stream() uint64 {
	return uint64(t.kind)<<56 | uint64(t.w)<<24 | uint64(t.d)<<20 | uint64(t.lo)
}

const chunk = 10000 // items or stock rows per task

func loadTasks(warehouses int) []loadTask {
	// One list per table group, dealt out in turn: connections that run at
	// the same time then mostly fill different tables, each B-tree growing
	// at its end instead of at several points at once (page splits in the
	// middle, latch waits). The largest groups lead, so the tail of the
	// load stays parallel.
	var orders, customers, stock, items []loadTask
	for w := 1; w <= warehouses; w++ {
		for d := 1; d <= distPerWH; d++ {
			orders = append(orders, loadTask{kind: taskOrders, w: w, d: d})
			customers = append(customers, loadTask{kind: taskCustomers, w: w, d: d})
		}
		for lo := 1; lo <= stockPerWH; lo += chunk {
			stock = append(stock, loadTask{kind: taskStock, w: w, lo: lo, hi: lo + chunk - 1})
		}
	}
	for lo := 1; lo <= maxItems; lo += chunk {
		items = append(items, loadTask{kind: taskItems, lo: lo, hi: lo + chunk - 1})
	}
	groups := [][]loadTask{orders, stock, customers, items}
	var ts []loadTask
	for len(ts) < len(orders)+len(customers)+len(stock)+len(items) {
		for i, g := range groups {
			if len(g) > 0 {
				ts = append(ts, g[0])
				groups[i] = g[1:]
			}
		}
	}
	for w := 1; w <= warehouses; w++ {
		ts = append(ts, loadTask{kind: taskWarehouse, w: w})
	}
	return ts
}

// ExpectedRows is the number of rows a load of n warehouses writes, with
// order lines counted at their mean of 10 per order.
func ExpectedRows(warehouses int) int64 {
	perDist := int64(custPerDist*2 + ordPerDist*(1+10) + (ordPerDist - firstNewOrder + 1))
	return maxItems + int64(warehouses)*(1+distPerWH+stockPerWH+distPerWH*perDist)
}

// LoadStats is what a load did.
type LoadStats struct {
	Rows     int64
	SQLBytes int64 // bytes of INSERT text or LOAD DATA stream sent
	Method   LoadMethod
	Elapsed  time.Duration
}

// LastLoad returns the figures of the most recent Setup's load.
func (w *Workload) LastLoad() LoadStats { return w.lastLoad }

// LoadMethod is how the load sends its rows.
type LoadMethod int

const (
	// Batched sends multi-row INSERTs of about 1 MB (goslap's load).
	Batched LoadMethod = iota
	// SingleRow sends each row alone through a prepared INSERT, committing
	// per part, as tpcc_load does: kept only as the baseline the batched
	// load is measured against (bench/tpccbench).
	SingleRow
	// LoadData streams each batch as tab-separated rows through LOAD DATA
	// LOCAL INFILE (the driver's reader handler, as internal/prefill
	// does): the server parses fields instead of SQL literals.
	LoadData
)

// String names what the method sends, for "N MB of ...".
func (m LoadMethod) String() string {
	switch m {
	case SingleRow:
		return "one-row prepared INSERTs"
	case LoadData:
		return "LOAD DATA LOCAL INFILE stream"
	}
	return "multi-row INSERT text"
}

// loadMethod is the method Setup loads with: LOAD DATA LOCAL INFILE when
// the server accepts it (an empty stream into the empty warehouse table
// asks it), else multi-row INSERTs.
func loadMethod(c *mysqlconn.Conn) (LoadMethod, error) {
	file, release := mysqlconn.LocalReader(func() io.Reader { return bytes.NewReader(nil) })
	defer release()
	err := c.Exec("LOAD DATA LOCAL INFILE " + file + " INTO TABLE warehouse")
	if mysqlconn.LocalInfileRefused(err) {
		return Batched, nil
	}
	if err != nil {
		return Batched, fmt.Errorf("load: LOAD DATA LOCAL INFILE probe: %w", err)
	}
	return LoadData, nil
}

// Fill creates the nine tables in an empty schema and loads the point's
// warehouses with method over conns connections (0: as Setup would),
// without the secondary indexes and foreign keys: the load alone, as the
// loader benchmark measures it. Teardown removes what it made.
func (w *Workload) Fill(ctx context.Context, s *workload.Session, p workload.Point, method LoadMethod, conns int) (_ LoadStats, err error) {
	w.setupRan = true
	defer func() { w.setupDone = err == nil }()
	st, err := inspect(s.Main, w.common.Schema)
	if err != nil {
		return LoadStats{}, err
	}
	if len(st.present) > 0 || len(st.foreign) > 0 {
		return LoadStats{}, fmt.Errorf("schema '%s' is not empty: Fill needs an empty schema", w.schemaName(s.Main))
	}
	if err := createTables(s, p, &w.created); err != nil {
		return LoadStats{}, err
	}
	if conns <= 0 {
		conns = w.loadConnections(p)
	}
	wh := w.warehouses(p)
	return w.runLoad(ctx, s, loadTasks(wh), conns, method, ExpectedRows(wh))
}

// load fills the created tables over several connections.
func (w *Workload) load(ctx context.Context, s *workload.Session, p workload.Point, warehouses int) error {
	s.Log("tpcc: loading %d warehouse(s)", warehouses)
	method, err := loadMethod(s.Main)
	if err != nil {
		return err
	}
	st, err := w.runLoad(ctx, s, loadTasks(warehouses), w.loadConnections(p), method, ExpectedRows(warehouses))
	if err != nil {
		return err
	}
	w.lastLoad = st
	s.Log("tpcc: loaded %d rows (%.1f MB of %s) in %s", st.Rows, float64(st.SQLBytes)/1e6, method, st.Elapsed.Round(time.Millisecond))
	return nil
}

// LoadConnections is how many of asked connections a load of warehouses
// uses: one task runs on one connection at a time, so never more than
// the load has tasks (loadTasks), and at least one.
func LoadConnections(warehouses, asked int) int {
	tasks := warehouses*(2*distPerWH+(stockPerWH+chunk-1)/chunk+1) + (maxItems+chunk-1)/chunk
	return max(min(asked, tasks), 1)
}

// runLoad runs tasks over n connections with method.
func (w *Workload) runLoad(ctx context.Context, s *workload.Session, tasks []loadTask, n int, method LoadMethod, total int64) (LoadStats, error) {
	n = max(min(n, len(tasks)), 1)
	parent := ctx
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	start := time.Now()
	now := start.UTC().Format("2006-01-02 15:04:05")
	consts := newConstants(w.common.Seed)
	var rows, sent atomic.Int64
	queue := make(chan loadTask)
	var (
		wg       sync.WaitGroup
		errOnce  sync.Once
		firstErr error
	)
	fail := func(err error) {
		errOnce.Do(func() { firstErr = err; cancel() })
	}
	for i := 0; i < n; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			c, err := s.Connect()
			if err != nil {
				fail(fmt.Errorf("load: cannot connect: %w", err))
				return
			}
			defer c.Close()
			// tpcc_load's session: the rows are unique and consistent by
			// construction.
			set := "SET SESSION unique_checks = 0, foreign_key_checks = 0"
			if method == SingleRow {
				set += ", autocommit = 0"
			}
			if err := c.Exec(set); err != nil {
				fail(err)
				return
			}
			l := &loader{ctx: ctx, conn: c, now: now, c: consts, seed: w.common.Seed, method: method, rows: &rows, bytes: &sent}
			if method == LoadData {
				// One handler per connection, handing the server the
				// batch being flushed: a fresh reader per request, so a
				// deadlock victim's stream can be sent again.
				var release func()
				l.file, release = mysqlconn.LocalReader(func() io.Reader { return bytes.NewReader(l.stream) })
				defer release()
			}
			for t := range queue {
				if err := l.run(t); err != nil {
					fail(err)
					return
				}
			}
		}()
	}
	done := make(chan struct{})
	go func() {
		defer close(done)
		tick := time.NewTicker(time.Second)
		defer tick.Stop()
		for {
			select {
			case <-tick.C:
				s.Progress("tpcc load", rows.Load(), total)
			case <-ctx.Done():
				return
			}
		}
	}()
feed:
	for _, t := range tasks {
		select {
		case queue <- t:
		case <-ctx.Done():
			break feed
		}
	}
	close(queue)
	wg.Wait()
	cancel()
	<-done
	if firstErr != nil {
		return LoadStats{}, firstErr
	}
	if err := parent.Err(); err != nil {
		return LoadStats{}, err
	}
	s.Progress("tpcc load", rows.Load(), rows.Load())
	return LoadStats{Rows: rows.Load(), SQLBytes: sent.Load(), Elapsed: time.Since(start), Method: method}, nil
}

// loader is one load connection.
type loader struct {
	ctx         context.Context // ends a task between its statements
	conn        *mysqlconn.Conn
	now         string // the load's timestamp
	method      LoadMethod
	file        string // LoadData: the statement's file name for the reader
	stream      []byte // LoadData: the rows the handler hands out
	c           constants
	seed        uint64
	rows, bytes *atomic.Int64
}

// batch accumulates one table's rows into multi-row INSERTs, or into
// tab-separated lines for LOAD DATA (tsv). With a prepared statement
// (single) it sends each row alone through it instead: tpcc_load's
// method, kept only as the baseline the load is measured against
// (BENCHMARKS.md).
type batch struct {
	l     *loader
	table string
	head  string
	buf   []byte
	n     int
	tsv   bool
	sep   byte // after each field: ',' in an INSERT, '\t' in a LOAD DATA line

	single  *mysqlconn.Stmt
	args    []driver.NamedValue
	scratch []byte
}

// columns is the number of columns of each table, for the single-row
// statement's placeholders.
var columns = map[string]int{"warehouse": 9, "district": 11, "customer": 21, "history": 8, "new_orders": 3,
	"orders": 8, "order_line": 10, "item": 5, "stock": 17}

func (l *loader) batch(table string) (*batch, error) {
	b := &batch{l: l, table: table, head: "INSERT INTO " + table + " VALUES ", sep: ','}
	switch l.method {
	case LoadData:
		b.tsv, b.sep, b.head = true, '\t', ""
		fallthrough
	case Batched:
		b.buf = make([]byte, 0, batchBytes+64<<10)
		return b, nil
	}
	q := b.head + "(?" + strings.Repeat(", ?", columns[table]-1) + ")"
	st, err := l.conn.Prepare(q)
	if err != nil {
		return nil, fmt.Errorf("load: %s: %w", q, err)
	}
	b.single = st
	return b, nil
}

// row starts a row; the caller appends its fields, each followed by ','.
func (b *batch) row() {
	if b.single != nil {
		b.args = b.args[:0]
		return
	}
	if b.tsv {
		if b.n == 0 {
			b.buf = b.buf[:0]
		}
		return
	}
	if b.n == 0 {
		b.buf = append(b.buf[:0], b.head...)
	} else {
		b.buf = append(b.buf, ',')
	}
	b.buf = append(b.buf, '(')
}

// end closes the row (its last separator becomes ')', or the line's end)
// and sends the batch when full.
func (b *batch) end() error {
	if b.single != nil {
		if err := b.single.Exec(b.args); err != nil {
			return fmt.Errorf("load: INSERT INTO %s: %w", b.table, err)
		}
		b.n++
		return nil
	}
	if b.tsv {
		b.buf[len(b.buf)-1] = '\n'
	} else {
		b.buf[len(b.buf)-1] = ')'
	}
	b.n++
	if len(b.buf) >= batchBytes {
		return b.flush()
	}
	return nil
}

// flush sends the pending rows (single-row: commits them, as tpcc_load
// commits per part).
func (b *batch) flush() error {
	if b.n == 0 {
		return nil
	}
	if err := b.l.ctx.Err(); err != nil {
		return err
	}
	if b.single != nil {
		if err := b.l.conn.Exec("COMMIT"); err != nil {
			return err
		}
		b.l.rows.Add(int64(b.n))
		b.n = 0
		return nil
	}
	// Autocommit: concurrent loaders' statements into customer (its
	// secondary index) deadlock now and then, and the victim is sent again.
	if b.tsv {
		b.l.stream = b.buf
		err := b.l.conn.ExecOwnTransaction("LOAD DATA LOCAL INFILE " + b.l.file + " INTO TABLE " + b.table)
		b.l.stream = nil
		if err != nil {
			return fmt.Errorf("load: LOAD DATA INTO %s: %w", b.table, err)
		}
	} else if err := b.l.conn.ExecOwnTransaction(string(b.buf)); err != nil {
		return fmt.Errorf("load: INSERT INTO %s: %w", b.table, err)
	}
	b.l.rows.Add(int64(b.n))
	b.l.bytes.Add(int64(len(b.buf)))
	b.n = 0
	return nil
}

func (b *batch) close() {
	if b.single != nil {
		_ = b.single.Close()
	}
}

func (b *batch) arg(v any) {
	b.args = append(b.args, driver.NamedValue{Ordinal: len(b.args) + 1, Value: v})
}

// text adds a field from f's output: quoted in a multi-row INSERT, bare
// in a LOAD DATA line (the generators write letters, digits, spaces, '-',
// ':' and '.' only, which neither format escapes), a string argument for
// the single-row statement.
func (b *batch) text(f func([]byte) []byte) {
	if b.single != nil {
		b.scratch = f(b.scratch[:0])
		b.arg(string(b.scratch))
		return
	}
	if b.tsv {
		b.buf = f(b.buf)
		b.buf = append(b.buf, '\t')
		return
	}
	b.buf = append(b.buf, '\'')
	b.buf = f(b.buf)
	b.buf = append(b.buf, '\'', ',')
}

func (b *batch) int(v int) {
	if b.single != nil {
		b.arg(int64(v))
		return
	}
	b.buf = strconv.AppendInt(b.buf, int64(v), 10)
	b.buf = append(b.buf, b.sep)
}

// lit adds a constant string field (without quotes).
func (b *batch) lit(s string) {
	b.text(func(d []byte) []byte { return append(d, s...) })
}

func (b *batch) null() {
	if b.single != nil {
		b.arg(nil)
		return
	}
	if b.tsv {
		b.buf = append(b.buf, '\\', 'N', '\t')
		return
	}
	b.buf = append(b.buf, "NULL,"...)
}

func (b *batch) cents(v int) {
	if b.single != nil {
		b.arg(string(appendCents(b.scratch[:0], int64(v))))
		return
	}
	b.buf = appendCents(b.buf, int64(v))
	b.buf = append(b.buf, b.sep)
}

func (b *batch) astr(g rng, lo, hi int) {
	b.text(func(d []byte) []byte { return g.appendAString(d, lo, hi) })
}

func (b *batch) nstr(g rng, n int) {
	b.text(func(d []byte) []byte { return g.appendNString(d, n) })
}

func (b *batch) data(g rng) { b.text(g.appendData) }

// address appends street_1, street_2, city, state, zip (zip: 9 random
// digits, tpcc-mysql's rule; the TPC-C specification has 4 + "11111").
func (b *batch) address(g rng) {
	b.astr(g, 10, 20)
	b.astr(g, 10, 20)
	b.astr(g, 10, 20)
	b.text(func(d []byte) []byte { return append(d, byte('A'+g.num(0, 25)), byte('A'+g.num(0, 25))) })
	b.nstr(g, 9)
}

// appendCents appends v/100 with two decimals.
func appendCents(b []byte, v int64) []byte {
	if v < 0 {
		b = append(b, '-')
		v = -v
	}
	b = strconv.AppendInt(b, v/100, 10)
	return append(b, '.', byte('0'+v%100/10), byte('0'+v%10))
}

func (l *loader) run(t loadTask) error {
	g := newRNG(l.seed, t.stream())
	switch t.kind {
	case taskItems:
		return l.items(g, t)
	case taskWarehouse:
		return l.warehouse(g, t)
	case taskStock:
		return l.stock(g, t)
	case taskCustomers:
		return l.customers(g, t)
	case taskOrders:
		return l.orders(g, t)
	}
	return fmt.Errorf("load: unknown task %d", t.kind)
}

func (l *loader) items(g rng, t loadTask) error {
	b, err := l.batch("item")
	if err != nil {
		return err
	}
	defer b.close()
	for id := t.lo; id <= t.hi; id++ {
		b.row()
		b.int(id)
		b.int(g.num(1, 10000))
		b.astr(g, 14, 24)
		b.cents(g.num(100, 10000))
		b.data(g)
		if err := b.end(); err != nil {
			return err
		}
	}
	return b.flush()
}

func (l *loader) warehouse(g rng, t loadTask) error {
	b, err := l.batch("warehouse")
	if err != nil {
		return err
	}
	defer b.close()
	b.row()
	b.int(t.w)
	b.astr(g, 6, 10)
	b.address(g)
	b.cents(g.num(0, 20))
	b.cents(300000 * 100)
	if err := b.end(); err != nil {
		return err
	}
	if err := b.flush(); err != nil {
		return err
	}
	db, err := l.batch("district")
	if err != nil {
		return err
	}
	defer db.close()
	b = db
	for d := 1; d <= distPerWH; d++ {
		b.row()
		b.int(d)
		b.int(t.w)
		b.astr(g, 6, 10)
		b.address(g)
		b.cents(g.num(0, 20))
		b.cents(30000 * 100)
		b.int(ordPerDist + 1)
		if err := b.end(); err != nil {
			return err
		}
	}
	return b.flush()
}

func (l *loader) stock(g rng, t loadTask) error {
	b, err := l.batch("stock")
	if err != nil {
		return err
	}
	defer b.close()
	for id := t.lo; id <= t.hi; id++ {
		b.row()
		b.int(id)
		b.int(t.w)
		b.int(g.num(10, 100))
		for i := 0; i < 10; i++ {
			b.astr(g, 24, 24)
		}
		b.int(0)
		b.int(0)
		b.int(0)
		b.data(g)
		if err := b.end(); err != nil {
			return err
		}
	}
	return b.flush()
}

func (l *loader) customers(g rng, t loadTask) error {
	cb, err := l.batch("customer")
	if err != nil {
		return err
	}
	defer cb.close()
	hb, err := l.batch("history")
	if err != nil {
		return err
	}
	defer hb.close()
	for id := 1; id <= custPerDist; id++ {
		cb.row()
		cb.int(id)
		cb.int(t.d)
		cb.int(t.w)
		cb.astr(g, 8, 16)
		cb.lit("OE")
		n := id - 1
		if id > 1000 {
			n = g.nurand(255, 0, 999, l.c.last)
		}
		cb.text(func(d []byte) []byte { return appendLastName(d, n) })
		cb.address(g)
		cb.nstr(g, 16)
		cb.lit(l.now)
		// 50 % bad credit: tpcc-mysql's RandomNumber(0,1); TPC-C has 10 %.
		if g.num(0, 1) == 0 {
			cb.lit("BC")
		} else {
			cb.lit("GC")
		}
		cb.int(50000)
		cb.cents(g.num(0, 50))
		cb.cents(-1000)
		cb.cents(1000)
		cb.int(1)
		cb.int(0)
		cb.astr(g, 300, 500)
		if err := cb.end(); err != nil {
			return err
		}
		hb.row()
		hb.int(id)
		hb.int(t.d)
		hb.int(t.w)
		hb.int(t.d)
		hb.int(t.w)
		hb.lit(l.now)
		hb.cents(1000)
		hb.astr(g, 12, 24)
		if err := hb.end(); err != nil {
			return err
		}
	}
	if err := cb.flush(); err != nil {
		return err
	}
	return hb.flush()
}

func (l *loader) orders(g rng, t loadTask) error {
	var perm [ordPerDist]int
	for i := range perm {
		perm[i] = i + 1
	}
	g.r.Shuffle(len(perm), func(i, j int) { perm[i], perm[j] = perm[j], perm[i] })
	var bs [3]*batch
	for i, t := range []string{"orders", "order_line", "new_orders"} {
		b, err := l.batch(t)
		if err != nil {
			return err
		}
		defer b.close()
		bs[i] = b
	}
	ob, lb, nb := bs[0], bs[1], bs[2]
	for id := 1; id <= ordPerDist; id++ {
		delivered := id < firstNewOrder
		cnt := g.num(5, 15)
		ob.row()
		ob.int(id)
		ob.int(t.d)
		ob.int(t.w)
		ob.int(perm[id-1])
		ob.lit(l.now)
		if delivered {
			ob.int(g.num(1, 10))
		} else {
			ob.null()
		}
		ob.int(cnt)
		ob.int(1)
		if err := ob.end(); err != nil {
			return err
		}
		for n := 1; n <= cnt; n++ {
			lb.row()
			lb.int(id)
			lb.int(t.d)
			lb.int(t.w)
			lb.int(n)
			lb.int(g.num(1, maxItems))
			lb.int(t.w)
			if delivered {
				lb.lit(l.now)
			} else {
				lb.null()
			}
			lb.int(5)
			if delivered {
				lb.cents(0)
			} else {
				lb.cents(g.num(1, 999999))
			}
			lb.astr(g, 24, 24)
			if err := lb.end(); err != nil {
				return err
			}
		}
		if !delivered {
			nb.row()
			nb.int(id)
			nb.int(t.d)
			nb.int(t.w)
			if err := nb.end(); err != nil {
				return err
			}
		}
	}
	for _, b := range []*batch{ob, lb, nb} {
		if err := b.flush(); err != nil {
			return err
		}
	}
	return nil
}
