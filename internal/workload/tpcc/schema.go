package tpcc

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"strconv"
	"strings"

	"github.com/goslap/goslap/internal/mysqlconn"
	"github.com/goslap/goslap/internal/ownership"
	"github.com/goslap/goslap/internal/workload"
)

// Tables are tpcc-mysql's nine tables, in the order they are created;
// Teardown drops these names, when they have these layouts, and nothing
// else.
var Tables = []string{"warehouse", "district", "customer", "history", "new_orders", "orders", "order_line", "item", "stock"}

// createTable holds the column layout of tpcc-mysql's create_table.sql
// (the TPC-C specification's columns with its MySQL types).
var createTable = map[string]string{
	"warehouse": `w_id smallint not null, w_name varchar(10), w_street_1 varchar(20), w_street_2 varchar(20),
 w_city varchar(20), w_state char(2), w_zip char(9), w_tax decimal(4,2), w_ytd decimal(12,2),
 primary key (w_id)`,
	"district": `d_id tinyint not null, d_w_id smallint not null, d_name varchar(10), d_street_1 varchar(20),
 d_street_2 varchar(20), d_city varchar(20), d_state char(2), d_zip char(9), d_tax decimal(4,2),
 d_ytd decimal(12,2), d_next_o_id int, primary key (d_w_id, d_id)`,
	"customer": `c_id int not null, c_d_id tinyint not null, c_w_id smallint not null, c_first varchar(16),
 c_middle char(2), c_last varchar(16), c_street_1 varchar(20), c_street_2 varchar(20), c_city varchar(20),
 c_state char(2), c_zip char(9), c_phone char(16), c_since datetime, c_credit char(2), c_credit_lim bigint,
 c_discount decimal(4,2), c_balance decimal(12,2), c_ytd_payment decimal(12,2), c_payment_cnt smallint,
 c_delivery_cnt smallint, c_data text, primary key (c_w_id, c_d_id, c_id)`,
	"history": `h_c_id int, h_c_d_id tinyint, h_c_w_id smallint, h_d_id tinyint, h_w_id smallint,
 h_date datetime, h_amount decimal(6,2), h_data varchar(24)`,
	"new_orders": `no_o_id int not null, no_d_id tinyint not null, no_w_id smallint not null,
 primary key (no_w_id, no_d_id, no_o_id)`,
	"orders": `o_id int not null, o_d_id tinyint not null, o_w_id smallint not null, o_c_id int,
 o_entry_d datetime, o_carrier_id tinyint, o_ol_cnt tinyint, o_all_local tinyint,
 primary key (o_w_id, o_d_id, o_id)`,
	"order_line": `ol_o_id int not null, ol_d_id tinyint not null, ol_w_id smallint not null,
 ol_number tinyint not null, ol_i_id int, ol_supply_w_id smallint, ol_delivery_d datetime,
 ol_quantity tinyint, ol_amount decimal(6,2), ol_dist_info char(24),
 primary key (ol_w_id, ol_d_id, ol_o_id, ol_number)`,
	"item": `i_id int not null, i_im_id int, i_name varchar(24), i_price decimal(5,2), i_data varchar(50),
 primary key (i_id)`,
	"stock": `s_i_id int not null, s_w_id smallint not null, s_quantity smallint,
 s_dist_01 char(24), s_dist_02 char(24), s_dist_03 char(24), s_dist_04 char(24), s_dist_05 char(24),
 s_dist_06 char(24), s_dist_07 char(24), s_dist_08 char(24), s_dist_09 char(24), s_dist_10 char(24),
 s_ytd decimal(8,0), s_order_cnt smallint, s_remote_cnt smallint, s_data varchar(50),
 primary key (s_w_id, s_i_id)`,
}

// secondaryIndexes are add_fkey_idx.sql's indexes, added after the load.
var secondaryIndexes = []string{
	"CREATE INDEX idx_customer ON customer (c_w_id, c_d_id, c_last, c_first)",
	"CREATE INDEX idx_orders ON orders (o_w_id, o_d_id, o_c_id, o_id)",
	"CREATE INDEX fkey_stock_2 ON stock (s_i_id)",
	"CREATE INDEX fkey_order_line_2 ON order_line (ol_supply_w_id, ol_i_id)",
}

// foreignKeys are add_fkey_idx.sql's ten foreign keys (TPC-C's references),
// one ALTER per table so each table is rebuilt once.
var foreignKeys = []string{
	"ALTER TABLE district ADD CONSTRAINT fkey_district_1 FOREIGN KEY (d_w_id) REFERENCES warehouse (w_id)",
	"ALTER TABLE customer ADD CONSTRAINT fkey_customer_1 FOREIGN KEY (c_w_id, c_d_id) REFERENCES district (d_w_id, d_id)",
	"ALTER TABLE history ADD CONSTRAINT fkey_history_1 FOREIGN KEY (h_c_w_id, h_c_d_id, h_c_id) REFERENCES customer (c_w_id, c_d_id, c_id)," +
		" ADD CONSTRAINT fkey_history_2 FOREIGN KEY (h_w_id, h_d_id) REFERENCES district (d_w_id, d_id)",
	"ALTER TABLE new_orders ADD CONSTRAINT fkey_new_orders_1 FOREIGN KEY (no_w_id, no_d_id, no_o_id) REFERENCES orders (o_w_id, o_d_id, o_id)",
	"ALTER TABLE orders ADD CONSTRAINT fkey_orders_1 FOREIGN KEY (o_w_id, o_d_id, o_c_id) REFERENCES customer (c_w_id, c_d_id, c_id)",
	"ALTER TABLE order_line ADD CONSTRAINT fkey_order_line_1 FOREIGN KEY (ol_w_id, ol_d_id, ol_o_id) REFERENCES orders (o_w_id, o_d_id, o_id)," +
		" ADD CONSTRAINT fkey_order_line_2 FOREIGN KEY (ol_supply_w_id, ol_i_id) REFERENCES stock (s_w_id, s_i_id)",
	"ALTER TABLE stock ADD CONSTRAINT fkey_stock_1 FOREIGN KEY (s_w_id) REFERENCES warehouse (w_id)," +
		" ADD CONSTRAINT fkey_stock_2 FOREIGN KEY (s_i_id) REFERENCES item (i_id)",
}

// CreateTableSQL returns the CREATE TABLE statement of one of Tables.
func CreateTableSQL(table, engine, engineOptions string) string {
	var b strings.Builder
	b.WriteString("CREATE TABLE " + table + " (\n " + createTable[table] + "\n)")
	if engine == "" {
		engine = "InnoDB"
	}
	b.WriteString(" ENGINE=" + engine)
	if engineOptions != "" {
		b.WriteString(" " + engineOptions)
	}
	return b.String()
}

// schemaState says which of Tables exist in the schema and which other
// tables it holds.
type schemaState struct {
	present, missing, foreign []string
}

func inspect(c *mysqlconn.Conn, schema string) (schemaState, error) {
	q := "SELECT table_name FROM information_schema.tables WHERE table_schema = DATABASE()"
	if schema != "" {
		q = "SELECT table_name FROM information_schema.tables WHERE table_schema = " + mysqlconn.QuoteString(schema)
	}
	names, err := c.QueryStrings(q)
	if err != nil {
		return schemaState{}, fmt.Errorf("cannot list the schema's tables: %w", err)
	}
	ours := map[string]bool{}
	for _, t := range Tables {
		ours[t] = true
	}
	var st schemaState
	have := map[string]bool{}
	for _, n := range names {
		if ours[n] {
			have[n] = true
		} else {
			st.foreign = append(st.foreign, n)
		}
	}
	for _, t := range Tables {
		if have[t] {
			st.present = append(st.present, t)
		} else {
			st.missing = append(st.missing, t)
		}
	}
	sort.Strings(st.foreign)
	return st, nil
}

func (w *Workload) schemaName(c *mysqlconn.Conn) string {
	if w.common.Schema != "" {
		return w.common.Schema
	}
	if n, err := c.QueryStrings("SELECT DATABASE()"); err == nil && len(n) == 1 {
		return n[0]
	}
	return ""
}

// Setup prepares the point's data: into an empty schema it creates and
// loads the nine tables, then adds the indexes and foreign keys. A schema
// already holding all nine with the point's warehouses is used as it is
// (prepare, then run); a schema holding any other table, or only some of
// the nine, is refused untouched.
func (w *Workload) Setup(ctx context.Context, s *workload.Session, p workload.Point) (err error) {
	s, stop := workload.Interruptible(ctx, s) // a load's statements end with ctx
	defer stop()
	w.setupRan = true
	defer func() { w.setupDone = err == nil }()
	schema := w.schemaName(s.Main)
	st, err := inspect(s.Main, w.common.Schema)
	if err != nil {
		return err
	}
	if len(st.foreign) > 0 {
		return fmt.Errorf("schema '%s' holds tables TPC-C did not create (%s): use an empty schema", schema, strings.Join(st.foreign, ", "))
	}
	wh := w.warehouses(p)
	if len(st.missing) == 0 {
		// Reused, never dropped by this run: it must be TPC-C's, and a
		// report labelled with an engine must be about tables of that
		// engine.
		if _, err := ownership.Claim(s.Main, schema, Tables, nil, Shape, "not used"); err != nil {
			return err
		}
		if err := ownership.CheckEngine(s.Main, schema, Tables, p.Engine); err != nil {
			return err
		}
		n, err := s.Main.QueryStrings("SELECT COUNT(*) FROM warehouse")
		if err != nil {
			return err
		}
		if len(n) != 1 || n[0] != strconv.Itoa(wh) {
			return fmt.Errorf("schema '%s' holds TPC-C data for %s warehouses, not %d: run cleanup first", schema, first(n), wh)
		}
		return nil
	}
	if len(st.present) > 0 {
		return fmt.Errorf("schema '%s' holds an incomplete TPC-C schema (missing %s): run cleanup first", schema, strings.Join(st.missing, ", "))
	}
	if err := createTables(s, p, &w.created); err != nil {
		return err
	}
	if err := w.load(ctx, s, p, wh); err != nil {
		return err
	}
	return w.addKeys(ctx, s)
}

func createTables(s *workload.Session, p workload.Point, created *ownership.Ledger) error {
	for _, t := range Tables {
		if err := s.Main.Exec(CreateTableSQL(t, p.Engine, p.EngineOptions)); err != nil {
			return fmt.Errorf("cannot create table %s: %w", t, err)
		}
		created.Add(t)
	}
	return nil
}

func first(s []string) string {
	if len(s) == 0 {
		return "no"
	}
	return s[0]
}

func (w *Workload) addKeys(ctx context.Context, s *workload.Session) error {
	var stmts []string
	if w.settings.Indexes {
		stmts = append(stmts, secondaryIndexes...)
	}
	if w.settings.ForeignKeys {
		stmts = append(stmts, foreignKeys...)
	}
	if len(stmts) == 0 {
		return nil
	}
	// add_fkey_idx.sql's session: the data was just loaded by the rules,
	// so the server need not re-verify it.
	if err := s.Main.Exec("SET SESSION unique_checks = 0, foreign_key_checks = 0"); err != nil {
		return err
	}
	defer s.Main.Exec("SET SESSION unique_checks = 1, foreign_key_checks = 1")
	for _, q := range stmts {
		if err := ctx.Err(); err != nil {
			return err
		}
		s.Log("tpcc: %s", q)
		if err := s.Main.Exec(q); err != nil {
			return fmt.Errorf("%s: %w", q, err)
		}
	}
	return nil
}

// Teardown drops the TPC-C tables goslap can show are TPC-C's own
// (package ownership), saying each. When Setup ran in this process it drops
// only the tables Setup created — a full run over a schema loaded before
// leaves it as it was — and after a failed or interrupted prepare it says
// what was dropped or left. Otherwise (cleanup) it drops the nine tables
// that exist, after checking that each has tpcc-mysql's columns and keys:
// any other is refused, by name, before anything is dropped. A schema's
// other tables are never looked at.
func (w *Workload) Teardown(ctx context.Context, s *workload.Session, p workload.Point) error {
	schema := w.schemaName(s.Main)
	if w.setupRan {
		return w.created.DropCreated(s.Main, schema, w.setupDone, s.Sayf)
	}
	v, err := ownership.Claim(s.Main, schema, Tables, nil, Shape, "not dropped")
	if err != nil {
		return err
	}
	if len(v.Present) == 0 {
		s.Sayf("schema '%s' holds no TPC-C tables: nothing to drop", schema)
		return nil
	}
	_, err = ownership.Drop(s.Main, schema, v.Present, s.Sayf)
	return err
}

// layouts are tpcc-mysql's nine tables as create_table.sql makes them:
// their columns, types and primary keys (the indexes and foreign keys
// add_fkey_idx.sql adds after the load are not compared: a load can stop
// before them, and the server adds indexes of its own for foreign keys).
var layouts = func() map[string]ownership.Layout {
	out := map[string]ownership.Layout{}
	for _, t := range Tables {
		l := ownership.Layout{What: "TPC-C's " + t}
		for _, item := range splitTop(createTable[t]) {
			f := strings.Fields(item)
			if len(f) >= 3 && strings.EqualFold(f[0], "primary") && strings.EqualFold(f[1], "key") {
				cols := strings.Trim(strings.Join(f[2:], ""), "()")
				l.PrimaryKey = strings.Split(cols, ",")
				continue
			}
			l.Columns = append(l.Columns, ownership.Column{Name: f[0], Type: ownership.NormalType(f[1])})
		}
		out[t] = l
	}
	return out
}()

// splitTop splits a column list at the commas outside parentheses.
func splitTop(s string) []string {
	var out []string
	depth, start := 0, 0
	for i, r := range s {
		switch r {
		case '(':
			depth++
		case ')':
			depth--
		case ',':
			if depth == 0 {
				out = append(out, strings.TrimSpace(s[start:i]))
				start = i + 1
			}
		}
	}
	return append(out, strings.TrimSpace(s[start:]))
}

// Shape is the check that a table has the layout of the TPC-C table of its
// name (package ownership).
func Shape(t *ownership.Table) string {
	l, ok := layouts[t.Name]
	if !ok {
		return "is not one of TPC-C's tables"
	}
	return l.Mismatch(t)
}

// ErrNotLoaded is returned by Loaded for a schema without the nine tables.
var ErrNotLoaded = errors.New("holds no TPC-C tables")

// Loaded returns the number of warehouses loaded in the connection's
// current schema: an error wrapping ErrNotLoaded when any of the nine
// tables is missing.
func Loaded(c *mysqlconn.Conn) (int, error) {
	st, err := inspect(c, "")
	if err != nil {
		return 0, err
	}
	if len(st.present) == 0 {
		return 0, ErrNotLoaded
	}
	if len(st.missing) > 0 {
		return 0, fmt.Errorf("%w (missing %s)", ErrNotLoaded, strings.Join(st.missing, ", "))
	}
	n, err := c.QueryStrings("SELECT COUNT(*) FROM warehouse")
	if err != nil {
		return 0, err
	}
	if len(n) != 1 {
		return 0, errors.New("SELECT COUNT(*) FROM warehouse returned no row")
	}
	return strconv.Atoi(n[0])
}
