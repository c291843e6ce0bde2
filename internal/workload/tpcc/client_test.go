package tpcc

import (
	"database/sql/driver"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/go-sql-driver/mysql"

	"github.com/goslap/goslap/internal/workload"
)

// recorder is an executor that records each statement with its arguments
// and answers queries from a function, so transactions run without a server.
type recorder struct {
	log    []string
	answer func(id int, args []driver.NamedValue) ([][][]byte, error)
	fail   func(id int) error // error for an exec (nil: none)
}

func (r *recorder) record(id int, args []driver.NamedValue) {
	parts := make([]string, len(args))
	for i, a := range args {
		switch v := a.Value.(type) {
		case []byte:
			parts[i] = string(v)
		default:
			parts[i] = fmt.Sprint(v)
		}
	}
	r.log = append(r.log, Statements[id].Name+"("+strings.Join(parts, ",")+")")
}

func (r *recorder) query(id int, args []driver.NamedValue) ([][][]byte, error) {
	r.record(id, args)
	if r.fail != nil {
		if err := r.fail(id); err != nil {
			return nil, err
		}
	}
	return r.answer(id, args)
}

func (r *recorder) exec(id int, args []driver.NamedValue) (int64, error) {
	r.record(id, args)
	if r.fail != nil {
		if err := r.fail(id); err != nil {
			return 0, err
		}
	}
	return 1, nil
}

func (r *recorder) commit() error   { r.log = append(r.log, "COMMIT"); return nil }
func (r *recorder) rollback() error { r.log = append(r.log, "ROLLBACK"); return nil }

func cols(vs ...string) [][][]byte {
	row := make([][]byte, len(vs))
	for i, v := range vs {
		if v != "NULL" {
			row[i] = []byte(v)
		}
	}
	return [][][]byte{row}
}

// answers returns plausible rows for every query: credit is the customer's
// c_credit, minNewOrder the Delivery's MIN(no_o_id) per district ("NULL"
// for none), named the number of customers with a last name.
func answers(credit string, minNewOrder func(d int64) string, named int) func(int, []driver.NamedValue) ([][][]byte, error) {
	return func(id int, args []driver.NamedValue) ([][][]byte, error) {
		switch id {
		case sNOCustomer:
			return cols("0.10", "BARBARBAR", "GC", "0.05"), nil
		case sNODistrict:
			return cols("3001", "0.07"), nil
		case sNOItem:
			if args[0].Value.(int64) == notFoundItem {
				return nil, nil
			}
			return cols("12.34", "name", "data"), nil
		case sNOStock:
			return cols("50", "sdata", "d01", "d02", "d03", "d04", "d05", "d06", "d07", "d08", "d09", "d10"), nil
		case sPayWarehouse:
			return cols("s1", "s2", "city", "ST", "123456789", "WNAME"), nil
		case sPayDistrict:
			return cols("s1", "s2", "city", "ST", "123456789", "DNAME"), nil
		case sCountByName:
			return cols(fmt.Sprint(named)), nil
		case sListByName:
			var rows [][][]byte
			for i := 0; i < named; i++ {
				rows = append(rows, [][]byte{[]byte(fmt.Sprint(100 + i))})
			}
			return rows, nil
		case sPayCustomer:
			return cols("f", "OE", "l", "a", "b", "c", "ST", "z", "p", credit, "50000", "0.1", "-10.00", "2026-01-01"), nil
		case sPayCData:
			return cols("olddata"), nil
		case sOSCustomer:
			return cols("-10.00", "f", "OE", "l"), nil
		case sOSOrder:
			return cols("2999", "2026-01-01 00:00:00", "NULL"), nil
		case sDelMinNewOrder:
			return cols(minNewOrder(args[0].Value.(int64))), nil
		case sDelOrderCustomer:
			return cols("77"), nil
		case sDelSumLines:
			return cols("123.45"), nil
		case sSLDistrict:
			return cols("3001"), nil
		case sSLItems:
			return [][][]byte{{[]byte("5")}, {[]byte("9")}, {[]byte("12")}}, nil
		case sSLCount:
			return cols("0"), nil
		}
		return nil, nil
	}
}

// testClient is a client of a load of warehouses whose deck always deals op.
func testClient(warehouses int, seed uint64, r *recorder) *client {
	l := newLoad(warehouses, seed)
	c := newClient(l, 0)
	c.ex = r
	return c
}

// runOp draws op's input and runs it through Next's retry loop.
func runOp(c *client, op int) error {
	c.draw(op)
	return c.attempt(op)
}

func names(log []string) []string {
	out := make([]string, len(log))
	for i, l := range log {
		out[i], _, _ = strings.Cut(l, "(")
	}
	return out
}

func TestNewOrderStatements(t *testing.T) {
	for seed := uint64(1); seed <= 200; seed++ {
		r := &recorder{answer: answers("GC", nil, 0)}
		c := testClient(3, seed, r)
		err := runOp(c, NewOrder)
		in := c.in
		w, d := in.w, in.d
		want := []string{
			fmt.Sprintf("new_order.customer(%d,%d,%d)", w, d, in.c),
			fmt.Sprintf("new_order.district(%d,%d)", d, w),
			fmt.Sprintf("new_order.update_district(3001,%d,%d)", d, w),
			fmt.Sprintf("new_order.insert_order(3001,%d,%d,%d,%d,%d)", d, w, in.c, in.cnt, in.allLocal),
			fmt.Sprintf("new_order.insert_new_order(3001,%d,%d)", d, w),
		}
		for i := 0; i < in.cnt; i++ {
			ln := in.lines[i]
			if i > 0 && less(ln, in.lines[i-1]) {
				t.Fatalf("seed %d: lines not in (supply, item) order: %v", seed, in.lines[:in.cnt])
			}
			want = append(want, fmt.Sprintf("new_order.item(%d)", ln.item))
			if ln.item == notFoundItem {
				want = append(want, "ROLLBACK")
				break
			}
			newQty := 50 - ln.qty
			if 50 <= ln.qty+10 {
				newQty += 91
			}
			want = append(want,
				fmt.Sprintf("new_order.stock(%d,%d)", ln.item, ln.supply),
				fmt.Sprintf("new_order.update_stock(%d,%d,%d)", newQty, ln.item, ln.supply),
				fmt.Sprintf("new_order.insert_order_line(3001,%d,%d,%d,%d,%d,%d,%d,d%02d)", d, w, i+1, ln.item, ln.supply, ln.qty, int64(ln.qty)*1234, d))
		}
		if in.rollback {
			if err != errRolledBack {
				t.Fatalf("seed %d: rolled-back New-Order returned %v", seed, err)
			}
		} else {
			want = append(want, "COMMIT")
			if err != nil {
				t.Fatal(err)
			}
		}
		if strings.Join(r.log, "\n") != strings.Join(want, "\n") {
			t.Fatalf("seed %d:\ngot\n%s\nwant\n%s", seed, strings.Join(r.log, "\n"), strings.Join(want, "\n"))
		}
		if in.cnt < 5 || in.cnt > 15 || w < 1 || w > 3 || d < 1 || d > 10 || in.c < 1 || in.c > 3000 {
			t.Fatalf("seed %d: input out of range: %+v", seed, in)
		}
	}
}

func TestPaymentStatements(t *testing.T) {
	for _, tc := range []struct {
		credit string
		named  int
	}{{"GC", 3}, {"BC", 4}, {"BC", 1}} {
		seen := map[bool]bool{}
		for seed := uint64(1); seed <= 100; seed++ {
			r := &recorder{answer: answers(tc.credit, nil, tc.named)}
			c := testClient(2, seed, r)
			if err := runOp(c, Payment); err != nil {
				t.Fatal(err)
			}
			in := c.in
			seen[in.byName] = true
			cid := in.c
			want := []string{
				fmt.Sprintf("payment.update_warehouse(%d,%d)", in.amount, in.w),
				fmt.Sprintf("payment.warehouse(%d)", in.w),
				fmt.Sprintf("payment.update_district(%d,%d,%d)", in.amount, in.w, in.d),
				fmt.Sprintf("payment.district(%d,%d)", in.w, in.d),
			}
			if in.byName {
				// the middle one, rounded up, of those listed: 100, 101, ...
				cid = 100 + (tc.named+1)/2 - 1
				want = append(want,
					fmt.Sprintf("customer.count_by_name(%d,%d,%s)", in.cw, in.cd, in.last),
					fmt.Sprintf("customer.list_by_name(%d,%d,%s)", in.cw, in.cd, in.last))
			}
			want = append(want, fmt.Sprintf("payment.customer(%d,%d,%d)", in.cw, in.cd, cid))
			if tc.credit == "BC" {
				data := fmt.Sprintf("%d %d %d %d %d %d.%02d | olddata", cid, in.cd, in.cw, in.d, in.w, in.amount/100, in.amount%100)
				want = append(want,
					fmt.Sprintf("payment.customer_data(%d,%d,%d)", in.cw, in.cd, cid),
					fmt.Sprintf("payment.update_customer_bc(%d,%s,%d,%d,%d)", in.amount, data, in.cw, in.cd, cid))
			} else {
				want = append(want, fmt.Sprintf("payment.update_customer(%d,%d,%d,%d)", in.amount, in.cw, in.cd, cid))
			}
			want = append(want,
				fmt.Sprintf("payment.insert_history(%d,%d,%d,%d,%d,%d,WNAME    DNAME)", in.cd, in.cw, cid, in.d, in.w, in.amount),
				"COMMIT")
			if strings.Join(r.log, "\n") != strings.Join(want, "\n") {
				t.Fatalf("%s seed %d:\ngot\n%s\nwant\n%s", tc.credit, seed, strings.Join(r.log, "\n"), strings.Join(want, "\n"))
			}
			if in.amount < 100 || in.amount > 500000 {
				t.Fatalf("amount %d cents", in.amount)
			}
		}
		if !seen[true] || !seen[false] {
			t.Errorf("100 Payments did not use both by-name and by-id: %v", seen)
		}
	}
}

func TestOrderStatusStatements(t *testing.T) {
	for seed := uint64(1); seed <= 50; seed++ {
		r := &recorder{answer: answers("GC", nil, 5)}
		c := testClient(1, seed, r)
		if err := runOp(c, OrderStatus); err != nil {
			t.Fatal(err)
		}
		in := c.in
		var want []string
		cid := in.c
		if in.byName {
			cid = 102
			want = append(want,
				fmt.Sprintf("customer.count_by_name(1,%d,%s)", in.d, in.last),
				fmt.Sprintf("customer.list_by_name(1,%d,%s)", in.d, in.last))
		}
		want = append(want,
			fmt.Sprintf("order_status.customer(1,%d,%d)", in.d, cid),
			fmt.Sprintf("order_status.order(1,%d,%d,1,%d,%d)", in.d, cid, in.d, cid),
			fmt.Sprintf("order_status.lines(1,%d,2999)", in.d),
			"COMMIT")
		if strings.Join(r.log, "\n") != strings.Join(want, "\n") {
			t.Fatalf("seed %d:\ngot\n%s\nwant\n%s", seed, strings.Join(r.log, "\n"), strings.Join(want, "\n"))
		}
	}
}

func TestDeliveryStatements(t *testing.T) {
	// Districts 3 and 10 have nothing to deliver: skipped, and the
	// transaction still ends with a commit.
	minNO := func(d int64) string {
		if d == 3 || d == 10 {
			return "NULL"
		}
		return fmt.Sprint(2100 + d)
	}
	r := &recorder{answer: answers("GC", minNO, 0)}
	c := testClient(1, 7, r)
	if err := runOp(c, Delivery); err != nil {
		t.Fatal(err)
	}
	carrier := c.in.carrier
	var want []string
	for d := 1; d <= 10; d++ {
		want = append(want, fmt.Sprintf("delivery.min_new_order(%d,1)", d))
		if d == 3 || d == 10 {
			continue
		}
		o := 2100 + d
		want = append(want,
			fmt.Sprintf("delivery.delete_new_order(%d,%d,1)", o, d),
			fmt.Sprintf("delivery.order_customer(%d,%d,1)", o, d),
			fmt.Sprintf("delivery.update_order(%d,%d,%d,1)", carrier, o, d),
			fmt.Sprintf("delivery.update_lines(%d,%d,1)", o, d),
			fmt.Sprintf("delivery.sum_lines(%d,%d,1)", o, d),
			fmt.Sprintf("delivery.update_customer(123.45,77,%d,1)", d),
			"COMMIT")
	}
	want = append(want, "COMMIT")
	if strings.Join(r.log, "\n") != strings.Join(want, "\n") {
		t.Fatalf("got\n%s\nwant\n%s", strings.Join(r.log, "\n"), strings.Join(want, "\n"))
	}
}

func TestStockLevelStatements(t *testing.T) {
	r := &recorder{answer: answers("GC", nil, 0)}
	c := testClient(1, 3, r)
	if err := runOp(c, StockLevel); err != nil {
		t.Fatal(err)
	}
	in := c.in
	if in.threshold < 10 || in.threshold > 20 {
		t.Fatalf("threshold %d", in.threshold)
	}
	want := []string{
		fmt.Sprintf("stock_level.district(%d,1)", in.d),
		fmt.Sprintf("stock_level.items(1,%d,3001,3001)", in.d),
		fmt.Sprintf("stock_level.count(1,5,%d)", in.threshold),
		fmt.Sprintf("stock_level.count(1,9,%d)", in.threshold),
		fmt.Sprintf("stock_level.count(1,12,%d)", in.threshold),
		"COMMIT",
	}
	if strings.Join(r.log, "\n") != strings.Join(want, "\n") {
		t.Fatalf("got\n%s\nwant\n%s", strings.Join(r.log, "\n"), strings.Join(want, "\n"))
	}
}

// TestSameSeedSameStatements: a fixed seed fixes every statement.
func TestSameSeedSameStatements(t *testing.T) {
	run := func() []string {
		r := &recorder{answer: answers("BC", func(int64) string { return "2101" }, 3)}
		c := testClient(4, 99, r)
		for i := 0; i < 200; i++ {
			if _, err := c.Next(nil); err != nil {
				t.Fatal(err)
			}
		}
		return r.log
	}
	a, b := run(), run()
	if strings.Join(a, "\n") != strings.Join(b, "\n") {
		t.Fatal("two runs with one seed sent different statements")
	}
	if len(a) < 1000 {
		t.Fatalf("%d statements for 200 transactions", len(a))
	}
}

func TestRetries(t *testing.T) {
	deadlock := &mysql.MySQLError{Number: 1213, Message: "Deadlock found when trying to get lock; try restarting transaction"}
	t.Run("retried with the same input", func(t *testing.T) {
		fails := 2
		r := &recorder{answer: answers("GC", func(int64) string { return "2101" }, 3)}
		r.fail = func(id int) error {
			if id == sSLCount && fails > 0 {
				fails--
				return deadlock
			}
			return nil
		}
		c := testClient(1, 5, r)
		c.l.clients = append(c.l.clients, c)
		before := time.Now()
		op := -1
		for op != StockLevel {
			r.log = nil
			st, err := c.Next(nil)
			if err != nil {
				t.Fatal(err)
			}
			op = st.Op
		}
		if c.counts.Retries[StockLevel] != 2 || c.tally.Retries != 2 || c.counts.Failures[StockLevel] != 0 {
			t.Fatalf("retries %v, tally %+v", c.counts.Retries, c.tally)
		}
		// Counted by time: all in the window that holds them, none after it.
		after := time.Now()
		if got := c.l.counts(before, after); got != c.counts {
			t.Errorf("counts in [before, after] %+v, want %+v", got, c.counts)
		}
		if got := c.l.counts(after.Add(time.Nanosecond), after.Add(time.Hour)); got != (Counts{}) {
			t.Errorf("counts after the retries %+v, want none", got)
		}
		// three attempts of the same statements, two ending in ROLLBACK
		first := fmt.Sprintf("stock_level.district(%d,1)", c.in.d)
		n := 0
		for _, l := range r.log {
			if l == first {
				n++
			}
		}
		if n != 3 || strings.Count(strings.Join(r.log, "\n"), "ROLLBACK") != 2 {
			t.Fatalf("log:\n%s", strings.Join(r.log, "\n"))
		}
	})
	t.Run("failure after MaxRetry", func(t *testing.T) {
		r := &recorder{answer: answers("GC", nil, 0), fail: func(int) error { return deadlock }}
		c := testClient(1, 5, r)
		_, err := c.Next(nil)
		var me *mysql.MySQLError
		if !errors.As(err, &me) || me.Number != 1213 {
			t.Fatalf("Next = %v", err)
		}
		var op int
		for op = 0; op < numTx && c.counts.Failures[op] == 0; op++ {
		}
		if op == numTx || c.counts.Failures[op] != 1 || c.counts.Retries[op] != MaxRetry {
			t.Fatalf("failures %v retries %v", c.counts.Failures, c.counts.Retries)
		}
	})
	t.Run("broken connection is not retried", func(t *testing.T) {
		r := &recorder{answer: answers("GC", nil, 0), fail: func(int) error { return driver.ErrBadConn }}
		c := testClient(1, 5, r)
		if _, err := c.Next(nil); !errors.Is(err, driver.ErrBadConn) {
			t.Fatalf("Next = %v", err)
		}
		if c.tally.Retries != 0 || len(r.log) != 1 {
			t.Fatalf("retries %d, log %v", c.tally.Retries, r.log)
		}
	})
}

// TestDeckMix: every 23 consecutive deals across concurrent clients hold
// exactly 10/10/1/1/1, and the order differs between shuffles.
func TestDeckMix(t *testing.T) {
	l := newLoad(1, 11)
	const clients, per = 8, 23 * 500
	dealt := make([]int, clients*per) // by deal index
	var (
		wg    sync.WaitGroup
		mu    sync.Mutex
		total [numTx]int
	)
	for i := 0; i < clients; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			var h hand
			var mine [numTx]int
			for j := 0; j < per; j++ {
				mine[l.deck.deal(&h)]++
			}
			mu.Lock()
			for op, n := range mine {
				total[op] += n
			}
			mu.Unlock()
		}()
	}
	wg.Wait()
	// 4000 whole decks dealt concurrently: exactly 10/10/1/1/1 each.
	if d := clients * per / deckSize; total != [numTx]int{10 * d, 10 * d, d, d, d} {
		t.Fatalf("concurrent deals: %v", total)
	}
	// Re-deal single-threaded from a fresh deck with the same seed: the
	// card at each index is a function of the index alone.
	l2 := newLoad(1, 11)
	var h hand
	counts := [numTx]int{}
	orders := map[string]bool{}
	for k := range dealt {
		dealt[k] = l2.deck.deal(&h)
		counts[dealt[k]]++
		if k%deckSize == deckSize-1 {
			var round [numTx]int
			var key strings.Builder
			for _, op := range dealt[k-deckSize+1 : k+1] {
				round[op]++
				key.WriteByte(byte('0' + op))
			}
			if round != [numTx]int{10, 10, 1, 1, 1} {
				t.Fatalf("deck %d: %v", k/deckSize, round)
			}
			orders[key.String()] = true
		}
	}
	if len(orders) < 3500 {
		t.Errorf("%d distinct shuffles in 4000 decks", len(orders))
	}
	if got := l.deck.next.Load(); got != clients*per {
		t.Fatalf("%d deals", got)
	}
	// Per client the mix stays near 43.5/43.5/4.35/4.35/4.35 %.
	for op, n := range counts {
		want := float64(len(dealt)) * float64([]int{10, 10, 1, 1, 1}[op]) / 23
		if d := float64(n) - want; d < -0.5 || d > 0.5 {
			t.Errorf("%s: %d of %d", OpNames[op], n, len(dealt))
		}
	}
}

// TestClientMix: one client among several draws its share near the deck's
// proportions.
func TestClientMix(t *testing.T) {
	l := newLoad(1, 3)
	var hs [4]hand
	var counts [4][numTx]int
	for i := 0; i < 4*23*1000; i++ {
		c := i % 4
		counts[c][l.deck.deal(&hs[c])]++
	}
	for c := range counts {
		for op, n := range counts[c] {
			want := 23000 * []float64{10, 10, 1, 1, 1}[op] / 23
			if tol := want * 0.1; float64(n) < want-tol || float64(n) > want+tol {
				t.Errorf("client %d %s: %d, want %.0f ± 10 %%", c, OpNames[op], n, want)
			}
		}
	}
}

// TestThreadedClaim: a TPC-C load claims the engine's threaded range
// (workload.ThreadedClient) on one warehouse only, where it was measured
// to gain; on more warehouses it keeps the coroutine mode.
func TestThreadedClaim(t *testing.T) {
	for _, tc := range []struct {
		warehouses int
		want       bool
	}{
		{1, true},
		{2, false},
		{4, false},
		{100, false},
	} {
		c, ok := newLoad(tc.warehouses, 1).Client(0).(workload.ThreadedClient)
		if !ok {
			t.Fatal("a TPC-C client is not a workload.ThreadedClient")
		}
		if !c.Coroutine() {
			t.Errorf("%d warehouses: the client does not claim the coroutine mode", tc.warehouses)
		}
		if got := c.Threaded(); got != tc.want {
			t.Errorf("%d warehouses: Threaded() = %v, want %v", tc.warehouses, got, tc.want)
		}
	}
}
