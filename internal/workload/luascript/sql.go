package luascript

import (
	"database/sql/driver"
	"errors"
	"strconv"
	"strings"

	"github.com/go-sql-driver/mysql"
	lua "github.com/yuin/gopher-lua"

	"github.com/goslap/goslap/internal/mysqlconn"
)

// sysbench.sql.type values (db_driver.h's sql_bind_type_t order).
const (
	typeNone = iota
	typeTinyint
	typeSmallint
	typeInt
	typeBigint
	typeFloat
	typeDouble
	typeTime
	typeDate
	typeDatetime
	typeTimestamp
	typeChar
	typeVarchar
)

var typeNames = []string{"NONE", "TINYINT", "SMALLINT", "INT", "BIGINT", "FLOAT", "DOUBLE", "TIME", "DATE",
	"DATETIME", "TIMESTAMP", "CHAR", "VARCHAR"}

// bulkPacket is sysbench's limit of one multi-row INSERT (BULK_PACKET_SIZE):
// rows are added until the next would pass it, then the INSERT is sent.
const bulkPacket = 512 * 1024

// errUnsupportedPS is ER_UNSUPPORTED_PS: such a statement is sent as text
// with its values inlined, as sysbench does.
const errUnsupportedPS = 1295

// Metatable names.
const (
	mtDriver = "sysbench.sql.driver"
	mtConn   = "sysbench.sql.connection"
	mtStmt   = "sysbench.sql.statement"
	mtParam  = "sysbench.sql.param"
	mtResult = "sysbench.sql.result"
)

// connection is a sql_connection: the engine's connection for a client's
// first connect, or one the state opened itself.
type connection struct {
	th     *thread
	conn   *mysqlconn.Conn
	own    bool // opened by the state: closed by disconnect
	closed bool
	ud     *lua.LUserData

	bulk       []byte
	bulkValues int // length of the INSERT ... VALUES head
	bulkRows   int
	bulkOn     bool
}

type statement struct {
	c        *connection
	sql      string
	st       *mysqlconn.Stmt
	parts    []string // text around the '?' (emulated statements)
	emulated bool
	rows     bool
	params   []*param
	args     []driver.NamedValue
	dest     []driver.Value // row buffer for Count
	text     []byte
	res      *result // the result of the last execution
	resUD    *lua.LUserData
}

type param struct {
	typ    int // typeBigint, typeDouble or typeVarchar
	i      int64
	f      float64
	s      []byte
	maxLen int
	null   bool
}

type result struct {
	rows    [][][]byte
	nrows   int64
	nfields int
	next    int
}

func (th *thread) installSQL(sb *lua.LTable) {
	L := th.L
	sql := L.NewTable()
	types := L.NewTable()
	for i, n := range typeNames {
		types.RawSetString(n, lua.LNumber(i))
	}
	sql.RawSetString("type", types)
	errs := L.NewTable()
	errs.RawSetString("NONE", lua.LNumber(0))
	errs.RawSetString("IGNORABLE", lua.LNumber(1))
	errs.RawSetString("FATAL", lua.LNumber(2))
	sql.RawSetString("error", errs)
	sql.RawSetString("driver", L.NewFunction(th.driver))
	th.strict(sql, "sysbench.sql")
	sb.RawSetString("sql", sql)

	methods := func(name string, fns map[string]lua.LGFunction, tostring string) {
		mt := L.NewTypeMetatable(name)
		index := L.SetFuncs(L.NewTable(), fns)
		th.strict(index, strings.TrimPrefix(tostring, "<")[:len(tostring)-2])
		mt.RawSetString("__index", index)
		mt.RawSetString("__tostring", L.NewFunction(func(L *lua.LState) int {
			L.Push(lua.LString(tostring))
			return 1
		}))
	}
	methods(mtDriver, map[string]lua.LGFunction{
		"connect": th.connect,
		"name": func(L *lua.LState) int {
			L.Push(lua.LString("mysql"))
			return 1
		},
	}, "<sql_driver>")
	methods(mtConn, map[string]lua.LGFunction{
		"query":            th.query,
		"query_row":        th.queryRow,
		"bulk_insert_init": th.bulkInit,
		"bulk_insert_next": th.bulkNext,
		"bulk_insert_done": th.bulkDone,
		"prepare":          th.prepare,
		"disconnect":       th.disconnect,
		"reconnect":        th.reconnect,
	}, "<sql_connection>")
	methods(mtStmt, map[string]lua.LGFunction{
		"bind_create": th.bindCreate,
		"bind_param":  th.bindParam,
		"execute":     th.execute,
		"close":       th.closeStmt,
	}, "<sql_statement>")
	methods(mtParam, map[string]lua.LGFunction{
		"set":          th.paramSet,
		"set_rand_str": th.paramSetRandStr,
	}, "<sql_param>")
	// A result's fields (nrows, nfields) and methods come from one
	// __index function: no table per result.
	rmt := L.NewTypeMetatable(mtResult)
	fetch := L.NewFunction(th.fetchRow)
	free := L.NewFunction(func(L *lua.LState) int { L.Push(lua.LTrue); return 1 })
	rmt.RawSetString("__index", L.NewFunction(func(L *lua.LState) int {
		r := L.CheckUserData(1).Value.(*result)
		switch L.CheckString(2) {
		case "nrows":
			L.Push(lua.LNumber(r.nrows))
		case "nfields":
			L.Push(lua.LNumber(r.nfields))
		case "fetch_row":
			L.Push(fetch)
		case "free":
			L.Push(free)
		default:
			L.Push(lua.LNil)
		}
		return 1
	}))
	rmt.RawSetString("__tostring", L.NewFunction(func(L *lua.LState) int { L.Push(lua.LString("<sql_result>")); return 1 }))
}

func (th *thread) newUD(v any, mt string) *lua.LUserData {
	ud := th.L.NewUserData()
	ud.Value = v
	th.L.SetMetatable(ud, th.L.GetTypeMetatable(mt))
	return ud
}

// driver is sysbench.sql.driver([name]): goslap drives MySQL and MariaDB.
func (th *thread) driver(L *lua.LState) int {
	if name := L.OptString(1, "mysql"); name != "mysql" {
		L.RaiseError("failed to initialize the DB driver '%s': goslap drives MySQL and MariaDB only (mysql)", name)
	}
	L.Push(th.newUD(th, mtDriver))
	return 1
}

// connect returns the engine's connection on a client's first call, and
// opens another connection otherwise.
func (th *thread) connect(L *lua.LState) int {
	if p := th.primary; p != nil && p.ud == nil {
		p.ud = th.newUD(p, mtConn)
		L.Push(p.ud)
		return 1
	}
	cn, err := th.w.dial()
	if err != nil {
		L.RaiseError("connection creation failed: %s", mysqlconn.ErrorText(err))
	}
	c := &connection{th: th, conn: cn, own: true}
	c.ud = th.newUD(c, mtConn)
	th.conns = append(th.conns, c)
	L.Push(c.ud)
	return 1
}

func checkConn(L *lua.LState) *connection {
	c, ok := L.CheckUserData(1).Value.(*connection)
	if !ok {
		L.ArgError(1, "sql_connection expected")
	}
	if c.closed || c.conn == nil {
		L.RaiseError("attempt to use an already closed connection")
	}
	return c
}

// count adds a statement to the thread's counts by what it returned, as
// sysbench 1.0's MySQL driver does: a result set is a read, rows changed
// a write, anything else other.
func (th *thread) count(rows bool, affected int64) {
	switch {
	case rows:
		th.cnt.reads++
	case affected > 0:
		th.cnt.writes++
	default:
		th.cnt.other++
	}
}

// run sends a text statement and returns its result.
func (c *connection) run(q string) (*result, error) {
	if returnsRows(q) {
		rows, err := c.conn.Query(q)
		if err != nil {
			return nil, err
		}
		c.th.count(true, 0)
		r := &result{rows: rows, nrows: int64(len(rows))}
		if len(rows) > 0 {
			r.nfields = len(rows[0])
		}
		return r, nil
	}
	n, err := c.conn.ExecResult(q)
	if err != nil {
		return nil, err
	}
	c.th.count(false, n)
	return &result{nrows: n}, nil
}

// fail raises a failed statement's error as sysbench's check_error does:
// an ignorable one (--mysql-ignore-errors) as the RESTART_EVENT error
// table, any other as "SQL error, errno = N, state = 'S': MESSAGE".
func (c *connection) fail(L *lua.LState, err error, q string) {
	th := c.th
	th.lastErr = err
	code, state, msg := sqlError(err)
	if th.w.ignorable(code) {
		th.ignored++
		t := L.NewTable()
		t.RawSetString("connection", c.ud)
		t.RawSetString("query", lua.LString(q))
		t.RawSetString("sql_errno", lua.LNumber(code))
		t.RawSetString("sql_state", lua.LString(state))
		t.RawSetString("sql_errmsg", lua.LString(msg))
		t.RawSetString("errcode", lua.LNumber(restartEvent))
		L.Error(t, 1)
	}
	L.RaiseError("SQL error, errno = %d, state = '%s': %s", code, state, msg)
}

// sqlError is the server's (or client library's) number, SQLSTATE and
// message of err.
func sqlError(err error) (uint16, string, string) {
	var me *mysql.MySQLError
	if errors.As(err, &me) {
		state := string(me.SQLState[:])
		if me.SQLState == [5]byte{} {
			state = "HY000"
		}
		return me.Number, state, me.Message
	}
	return 2013, "HY000", mysqlconn.ErrorText(err)
}

func (th *thread) pushResult(L *lua.LState, r *result) {
	L.Push(th.newUD(r, mtResult))
}

func (th *thread) query(L *lua.LState) int {
	c := checkConn(L)
	q := L.CheckString(2)
	r, err := c.run(q)
	if err != nil {
		c.fail(L, err, q)
	}
	th.pushResult(L, r)
	return 1
}

func (th *thread) queryRow(L *lua.LState) int {
	c := checkConn(L)
	q := L.CheckString(2)
	r, err := c.run(q)
	if err != nil {
		c.fail(L, err, q)
	}
	if len(r.rows) == 0 {
		return 0
	}
	for _, v := range r.rows[0] {
		if v == nil {
			L.Push(lua.LNil)
		} else {
			L.Push(lua.LString(v))
		}
	}
	return len(r.rows[0])
}

func (th *thread) fetchRow(L *lua.LState) int {
	r := L.CheckUserData(1).Value.(*result)
	if r.next >= len(r.rows) {
		L.Push(lua.LNil)
		return 1
	}
	row := r.rows[r.next]
	r.next++
	t := L.CreateTable(len(row), 0)
	for i, v := range row {
		if v != nil {
			t.RawSetInt(i+1, lua.LString(v))
		}
	}
	L.Push(t)
	return 1
}

func (th *thread) bulkInit(L *lua.LState) int {
	c := checkConn(L)
	q := L.CheckString(2)
	if len(q)+1 > bulkPacket {
		L.RaiseError("db_bulk_insert_init() failed: the query is longer than the bulk insert limit (%d)", bulkPacket)
	}
	c.bulk = append(c.bulk[:0], q...)
	c.bulkValues, c.bulkRows, c.bulkOn = len(q), 0, true
	L.Push(lua.LTrue)
	return 1
}

func (th *thread) bulkNext(L *lua.LState) int {
	c := checkConn(L)
	v := L.CheckString(2)
	if !c.bulkOn {
		L.RaiseError("db_bulk_insert_next() failed: bulk_insert_next() before bulk_insert_init()")
	}
	sep := 0
	if c.bulkRows > 0 {
		sep = 1
	}
	if len(c.bulk)+len(v)+1+sep > bulkPacket {
		if c.bulkRows == 0 {
			L.RaiseError("db_bulk_insert_next() failed: the row is longer than the bulk insert limit (%d)", bulkPacket)
		}
		c.bulkFlush(L, "db_bulk_insert_next")
		sep = 0
	}
	if sep == 1 {
		c.bulk = append(c.bulk, ',')
	}
	c.bulk = append(c.bulk, v...)
	c.bulkRows++
	L.Push(lua.LTrue)
	return 1
}

func (c *connection) bulkFlush(L *lua.LState, fn string) {
	if c.bulkRows == 0 {
		return
	}
	if _, err := c.run(string(c.bulk)); err != nil {
		c.th.lastErr = err
		code, state, msg := sqlError(err)
		L.RaiseError("%s() failed: SQL error, errno = %d, state = '%s': %s", fn, code, state, msg)
	}
	c.bulk = c.bulk[:c.bulkValues]
	c.bulkRows = 0
}

func (th *thread) bulkDone(L *lua.LState) int {
	c := checkConn(L)
	if c.bulkOn {
		c.bulkFlush(L, "db_bulk_insert_done")
	}
	c.bulk, c.bulkOn = nil, false
	L.Push(lua.LTrue)
	return 1
}

func (th *thread) prepare(L *lua.LState) int {
	c := checkConn(L)
	q := L.CheckString(2)
	s := &statement{c: c, sql: q, rows: returnsRows(q)}
	if !th.w.psDisable {
		st, err := c.conn.Prepare(q)
		switch {
		case err == nil:
			s.st = st
		case mysqlconn.ServerCode(err) == errUnsupportedPS:
		default:
			c.fail(L, err, q)
		}
	}
	if s.st == nil {
		s.emulated = true
		s.parts = strings.Split(q, "?")
	}
	L.Push(th.newUD(s, mtStmt))
	return 1
}

func checkStmt(L *lua.LState) *statement {
	s, ok := L.CheckUserData(1).Value.(*statement)
	if !ok {
		L.ArgError(1, "sql_statement expected")
	}
	return s
}

func (th *thread) bindCreate(L *lua.LState) int {
	checkStmt(L)
	t := L.CheckInt(2)
	p := &param{}
	switch t {
	case typeTinyint, typeSmallint, typeInt, typeBigint:
		p.typ, p.maxLen = typeBigint, 8
	case typeFloat, typeDouble:
		p.typ, p.maxLen = typeDouble, 8
	case typeChar, typeVarchar:
		p.typ, p.maxLen = typeVarchar, L.CheckInt(3)
		p.s = make([]byte, 0, p.maxLen)
	default:
		L.RaiseError("Unsupported argument type: %d", t)
	}
	L.Push(th.newUD(p, mtParam))
	return 1
}

func (th *thread) bindParam(L *lua.LState) int {
	s := checkStmt(L)
	n := L.GetTop() - 1
	if n < 1 {
		return 0
	}
	s.params = s.params[:0]
	for i := 2; i <= n+1; i++ {
		p, ok := L.CheckUserData(i).Value.(*param)
		if !ok {
			L.ArgError(i, "sql_param expected")
		}
		s.params = append(s.params, p)
	}
	s.args = make([]driver.NamedValue, n)
	for i := range s.args {
		s.args[i].Ordinal = i + 1
	}
	L.Push(lua.LNumber(0))
	return 1
}

func (th *thread) paramSet(L *lua.LState) int {
	p := L.CheckUserData(1).Value.(*param)
	v := L.Get(2)
	if v == lua.LNil {
		p.null = true
		return 0
	}
	p.null = false
	switch p.typ {
	case typeBigint:
		p.i = int64(L.CheckNumber(2))
	case typeDouble:
		p.f = float64(L.CheckNumber(2))
	default:
		s := L.CheckString(2)
		if len(s) > p.maxLen {
			s = s[:p.maxLen]
		}
		p.s = append(p.s[:0], s...)
	}
	return 0
}

func (th *thread) paramSetRandStr(L *lua.LState) int {
	p := L.CheckUserData(1).Value.(*param)
	tmpl := L.CheckString(2)
	if p.typ != typeVarchar {
		L.RaiseError("Unsupported argument type: %d", p.typ)
	}
	p.null = false
	if len(tmpl) > p.maxLen {
		tmpl = tmpl[:p.maxLen]
	}
	p.s = p.s[:len(tmpl)]
	th.rand.r.Fill(p.s, tmpl)
	return 0
}

func (p *param) value() driver.Value {
	switch {
	case p.null:
		return nil
	case p.typ == typeBigint:
		return p.i
	case p.typ == typeDouble:
		return p.f
	}
	return p.s
}

func (th *thread) execute(L *lua.LState) int {
	s := checkStmt(L)
	c := s.c
	if c.closed || c.conn == nil {
		L.RaiseError("attempt to use an already closed connection")
	}
	for i, p := range s.params {
		s.args[i].Value = p.value()
	}
	if s.emulated {
		s.text = inline(s.text[:0], s.parts, s.args)
		r, err := c.run(string(s.text))
		if err != nil {
			c.fail(L, err, s.sql)
		}
		th.pushResult(L, r)
		return 1
	}
	if s.rows {
		// sysbench stores a prepared SELECT's result and tells its row
		// count; fetch_row has nothing to fetch there (its MySQL driver
		// does not fetch prepared results), so neither is kept here.
		n, err := s.st.Count(s.args, &s.dest)
		if err != nil {
			c.fail(L, err, s.sql)
		}
		th.count(true, 0)
		s.pushResult(L, n)
		return 1
	}
	n, err := s.st.ExecAffected(s.args)
	if err != nil {
		c.fail(L, err, s.sql)
	}
	th.count(false, n)
	s.pushResult(L, n)
	return 1
}

// pushResult returns the statement's result, one object per statement
// reused by every execution: in sysbench too a result lives until the
// connection's next statement.
func (s *statement) pushResult(L *lua.LState, nrows int64) {
	if s.resUD == nil {
		s.res = &result{}
		s.resUD = s.c.th.newUD(s.res, mtResult)
	}
	*s.res = result{nrows: nrows}
	L.Push(s.resUD)
}

func (th *thread) closeStmt(L *lua.LState) int {
	s := checkStmt(L)
	if s.st != nil {
		// A statement of a connection that was lost is gone with it.
		_ = s.st.Close()
		s.st = nil
	}
	L.Push(lua.LNumber(0))
	return 1
}

func (th *thread) disconnect(L *lua.LState) int {
	c, ok := L.CheckUserData(1).Value.(*connection)
	if !ok {
		L.ArgError(1, "sql_connection expected")
	}
	c.disconnect()
	L.Push(lua.LTrue)
	return 1
}

// disconnect closes a connection the state opened; the engine's stays open
// for the engine to close.
func (c *connection) disconnect() {
	if c.closed {
		return
	}
	c.closed = true
	if c.own && c.conn != nil {
		c.conn.Close()
	}
	c.conn = nil
}

// reconnect replaces the connection with a new one (the engine's
// connection, if it was that, is left to the engine).
func (th *thread) reconnect(L *lua.LState) int {
	c, ok := L.CheckUserData(1).Value.(*connection)
	if !ok {
		L.ArgError(1, "sql_connection expected")
	}
	cn, err := th.w.dial()
	if err != nil {
		L.RaiseError("reconnect failed: %s", mysqlconn.ErrorText(err))
	}
	if c.own && c.conn != nil && !c.closed {
		c.conn.Close()
	} else if !c.own {
		th.conns = append(th.conns, c)
	}
	c.conn, c.own, c.closed = cn, true, false
	th.cnt.reconnects++
	L.Push(lua.LTrue)
	return 1
}

// inline writes an emulated statement: the values in place of the '?',
// numbers in decimal and strings quoted (sysbench's client-side prepared
// statements).
func inline(dst []byte, parts []string, args []driver.NamedValue) []byte {
	dst = append(dst, parts[0]...)
	for i := 1; i < len(parts); i++ {
		if i-1 < len(args) {
			switch v := args[i-1].Value.(type) {
			case int64:
				dst = strconv.AppendInt(dst, v, 10)
			case float64:
				dst = strconv.AppendFloat(dst, v, 'g', -1, 64)
			case []byte:
				dst = mysqlconn.AppendQuoted(dst, v)
			case nil:
				dst = append(dst, "NULL"...)
			}
		} else {
			dst = append(dst, '?')
		}
		dst = append(dst, parts[i]...)
	}
	return dst
}

// returnsRows tells a statement that returns a result set by its first
// word (after blanks, parentheses and comments): the server's answer is
// then read as rows, otherwise as the number of rows changed, which is
// how sysbench tells reads from writes and other statements.
func returnsRows(q string) bool {
	for {
		q = strings.TrimLeft(q, " \t\r\n(")
		switch {
		case strings.HasPrefix(q, "/*"):
			i := strings.Index(q, "*/")
			if i < 0 {
				return false
			}
			q = q[i+2:]
			continue
		case strings.HasPrefix(q, "-- "), strings.HasPrefix(q, "#"):
			i := strings.IndexByte(q, '\n')
			if i < 0 {
				return false
			}
			q = q[i+1:]
			continue
		}
		break
	}
	end := strings.IndexFunc(q, func(r rune) bool {
		return !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z')
	})
	if end < 0 {
		end = len(q)
	}
	switch strings.ToUpper(q[:end]) {
	case "SELECT", "SHOW", "WITH", "DESCRIBE", "DESC", "EXPLAIN", "VALUES", "TABLE", "HELP",
		"CHECK", "ANALYZE", "OPTIMIZE", "REPAIR", "CHECKSUM":
		return true
	}
	return false
}
