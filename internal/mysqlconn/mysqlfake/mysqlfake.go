// Package mysqlfake is an in-process MySQL server for tests: it speaks
// enough of the client/server protocol for goslap's own client
// (mysqlconn over the go-sql-driver) and lets a test script every reply.
//
// The seam between goslap and a server is the wire, not a Go interface:
// workloads and the engine keep calling the concrete *mysqlconn.Conn (no
// interface call per statement on the hot path), and a test that points
// them at a fake server exercises the real client code, packets and all.
// Tests run in milliseconds with no mariadbd.
//
// What it speaks: the protocol-10 handshake with mysql_native_password (any
// password, or one checked), COM_QUERY (OK, error and text result set
// replies), COM_STMT_PREPARE, COM_STMT_EXECUTE (parameters decoded,
// including an execute that reuses the types sent before:
// new_params_bound_flag 0), COM_STMT_CLOSE, COM_STMT_RESET, COM_PING,
// COM_INIT_DB and COM_QUIT. No TLS, no compression, no
// CLIENT_DEPRECATE_EOF (EOF packets are sent), no packets of 16 MB or more.
package mysqlfake

import (
	"bytes"
	"crypto/sha1"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math"
	"net"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/go-sql-driver/mysql"
)

// Kind is the command a Query was.
type Kind int

const (
	KindQuery   Kind = iota // COM_QUERY
	KindPrepare             // COM_STMT_PREPARE
	KindExecute             // COM_STMT_EXECUTE
	KindClose               // COM_STMT_CLOSE
	KindReset               // COM_STMT_RESET
	KindPing                // COM_PING
	KindInitDB              // COM_INIT_DB
	KindQuit                // COM_QUIT
)

var kindNames = [...]string{"query", "prepare", "execute", "close", "reset", "ping", "init_db", "quit"}

func (k Kind) String() string {
	if int(k) < len(kindNames) {
		return kindNames[k]
	}
	return "kind" + strconv.Itoa(int(k))
}

// Query is one command the server received.
type Query struct {
	Conn uint32 // the server's id for the connection (1, 2, ...)
	Kind Kind
	// SQL is the statement: the text of a COM_QUERY, the prepared text for
	// a prepare, an execute, a close or a reset; the schema of COM_INIT_DB.
	SQL string
	// Args are an execute's parameters: int64, uint64, float64, string
	// (strings and byte strings), or nil for NULL.
	Args []any
	// TypesSent: the execute carried its parameter types
	// (new_params_bound_flag 1); false when it reused the previous ones.
	TypesSent bool
}

// Reply is the server's answer to a query, an execute or a prepare: OK,
// Rows, Err or Drop.
type Reply interface{ reply() }

// OK is an OK packet.
type OK struct {
	Affected, InsertID uint64
}

// Rows is a result set: text for a COM_QUERY, binary for an execute.
// Values are formatted as text (nil is NULL); every column is a string
// column to the client.
type Rows struct {
	Columns []string
	Values  [][]any
}

// Err is an error packet. State defaults to HY000.
type Err struct {
	Code    uint16
	State   string
	Message string
}

// Drop closes the connection instead of replying: the client sees its
// connection lost (the engine's reconnect path).
type Drop struct{}

// Stall replies Then (nil: OK{}) after For on top of the server's delay,
// as a long statement or a lock wait would; a closing server cuts it short.
type Stall struct {
	For  time.Duration
	Then Reply
}

func (OK) reply()    {}
func (Rows) reply()  {}
func (Err) reply()   {}
func (Drop) reply()  {}
func (Stall) reply() {}

// Handler decides the reply to each COM_QUERY, COM_STMT_PREPARE (where
// only Err and Drop mean anything; anything else prepares the statement)
// and COM_STMT_EXECUTE. It is called from each connection's goroutine,
// concurrently across connections. A nil Reply is OK{}.
type Handler func(q Query) Reply

// Options configure a Server; the zero value listens on TCP 127.0.0.1,
// accepts any password and replies at once.
type Options struct {
	// Unix listens on a Unix socket in the test's temporary directory.
	Unix bool
	// Password, when not empty, is the only password accepted (any user).
	Password string
	// Delay is waited before every reply (also settable with SetDelay).
	Delay time.Duration
}

// Server is a running fake server; Start stops it when the test ends.
type Server struct {
	l        net.Listener
	handler  Handler
	password string
	delay    atomic.Int64 // nanoseconds

	ids      atomic.Uint32
	connects atomic.Int64
	done     chan struct{}
	wg       sync.WaitGroup

	mu    sync.Mutex
	conns map[uint32]net.Conn
	log   []Query
}

// Start starts a server for the test t with handler h (nil: OK{} to
// everything) and closes it, and every connection, when t ends.
func Start(t testing.TB, h Handler, o Options) *Server {
	t.Helper()
	network, addr := "tcp", "127.0.0.1:0"
	if o.Unix {
		network, addr = "unix", filepath.Join(t.TempDir(), "fake.sock")
	}
	l, err := net.Listen(network, addr)
	if err != nil {
		t.Fatal(err)
	}
	if h == nil {
		h = func(Query) Reply { return OK{} }
	}
	s := &Server{l: l, handler: h, password: o.Password, done: make(chan struct{}), conns: map[uint32]net.Conn{}}
	s.delay.Store(int64(o.Delay))
	s.wg.Add(1)
	go s.accept()
	t.Cleanup(s.Close)
	return s
}

// Close stops the server and closes every connection; it waits for the
// connections' goroutines.
func (s *Server) Close() {
	select {
	case <-s.done:
		return
	default:
	}
	close(s.done)
	s.l.Close()
	s.BreakAll()
	s.wg.Wait()
}

// Network and Addr are where the server listens ("tcp" or "unix").
func (s *Server) Network() string { return s.l.Addr().Network() }
func (s *Server) Addr() string    { return s.l.Addr().String() }

// Config is a driver configuration for the server, as a front end would
// build it (user root, the server's password).
func (s *Server) Config() *mysql.Config {
	c := mysql.NewConfig()
	c.Net, c.Addr, c.User, c.Passwd = s.Network(), s.Addr(), "root", s.password
	c.Logger = &mysql.NopLogger{}
	return c
}

// SetDelay sets the wait before every reply from now on.
func (s *Server) SetDelay(d time.Duration) { s.delay.Store(int64(d)) }

// Log returns a copy of every command received so far, in arrival order.
func (s *Server) Log() []Query {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]Query(nil), s.log...)
}

// ResetLog forgets the commands received so far.
func (s *Server) ResetLog() {
	s.mu.Lock()
	s.log = nil
	s.mu.Unlock()
}

// Connects is the number of connections that completed the handshake.
func (s *Server) Connects() int64 { return s.connects.Load() }

// BreakAll closes every open connection (the server's side of a lost
// connection); new connections are still accepted.
func (s *Server) BreakAll() {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, c := range s.conns {
		c.Close()
	}
}

func (s *Server) accept() {
	defer s.wg.Done()
	for {
		c, err := s.l.Accept()
		if err != nil {
			return
		}
		id := s.ids.Add(1)
		s.mu.Lock()
		s.conns[id] = c
		s.mu.Unlock()
		s.wg.Add(1)
		go func() {
			defer s.wg.Done()
			defer func() {
				c.Close()
				s.mu.Lock()
				delete(s.conns, id)
				s.mu.Unlock()
			}()
			cn := &conn{s: s, c: c, id: id, stmts: map[uint32]*stmt{}}
			if cn.handshake() {
				cn.serve()
			}
		}()
	}
}

func (s *Server) record(q Query) {
	s.mu.Lock()
	s.log = append(s.log, q)
	s.mu.Unlock()
}

// wait sleeps for the reply delay; false when the server is closing.
func (s *Server) wait() bool { return s.sleep(time.Duration(s.delay.Load())) }

// sleep waits d; false when the server is closing.
func (s *Server) sleep(d time.Duration) bool {
	if d <= 0 {
		return true
	}
	tm := time.NewTimer(d)
	defer tm.Stop()
	select {
	case <-tm.C:
		return true
	case <-s.done:
		return false
	}
}

// A prepared statement of one connection.
type stmt struct {
	sql    string
	params int
	types  []byte // the types of the last execute that sent them
}

type conn struct {
	s      *Server
	c      net.Conn
	id     uint32
	seq    byte
	stmts  map[uint32]*stmt
	nextID uint32
}

// Protocol constants (the MySQL/MariaDB client/server protocol).
const (
	comQuit        = 0x01
	comInitDB      = 0x02
	comQuery       = 0x03
	comPing        = 0x0e
	comStmtPrepare = 0x16
	comStmtExecute = 0x17
	comStmtClose   = 0x19
	comStmtReset   = 0x1a

	clientLongPassword   = 1 << 0
	clientFoundRows      = 1 << 1
	clientLongFlag       = 1 << 2
	clientConnectWithDB  = 1 << 3
	clientLocalFiles     = 1 << 7
	clientProtocol41     = 1 << 9
	clientTransactions   = 1 << 13
	clientSecureConn     = 1 << 15
	clientMultiStmts     = 1 << 16
	clientMultiResults   = 1 << 17
	clientPSMultiResults = 1 << 18
	clientPluginAuth     = 1 << 19
	clientConnectAttrs   = 1 << 20
	clientPluginAuthLenc = 1 << 21

	serverCaps = clientLongPassword | clientFoundRows | clientLongFlag | clientConnectWithDB |
		clientLocalFiles | clientProtocol41 | clientTransactions | clientSecureConn |
		clientMultiStmts | clientMultiResults | clientPSMultiResults | clientPluginAuth |
		clientConnectAttrs | clientPluginAuthLenc

	statusAutocommit = 0x0002

	typeVarString = 0xfd
	collationUTF8 = 33
)

var scramble = []byte("abcdefghijklmnopqrst") // 20 bytes; fixed: tests need no secrecy

// handshake greets the client and authenticates it; false ends the
// connection.
func (c *conn) handshake() bool {
	var b []byte
	b = append(b, 10)
	b = append(b, "10.11.99-MariaDB-fake\x00"...)
	b = binary.LittleEndian.AppendUint32(b, c.id)
	b = append(b, scramble[:8]...)
	b = append(b, 0)
	b = binary.LittleEndian.AppendUint16(b, uint16(serverCaps&0xffff))
	b = append(b, collationUTF8)
	b = binary.LittleEndian.AppendUint16(b, statusAutocommit)
	b = binary.LittleEndian.AppendUint16(b, uint16(serverCaps>>16))
	b = append(b, byte(len(scramble)+1))
	b = append(b, make([]byte, 10)...)
	b = append(b, scramble[8:]...)
	b = append(b, 0)
	b = append(b, "mysql_native_password\x00"...)
	c.seq = 0
	if c.write(b) != nil {
		return false
	}
	p, err := c.read()
	if err != nil {
		return false
	}
	user, auth, ok := parseHandshakeResponse(p)
	if !ok {
		_ = c.writeErr(Err{Code: 1043, State: "08S01", Message: "Bad handshake"})
		return false
	}
	if c.s.password != "" && !bytes.Equal(auth, nativePassword(scramble, c.s.password)) {
		used := "YES"
		if len(auth) == 0 {
			used = "NO"
		}
		_ = c.writeErr(Err{Code: 1045, State: "28000",
			Message: fmt.Sprintf("Access denied for user '%s'@'localhost' (using password: %s)", user, used)})
		return false
	}
	// Counted before the OK goes out: a client that has its OK may finish
	// its whole load, and its test count the connections, before this
	// goroutine runs again (TestFakeCounts saw 15 of 16 at load 44).
	c.s.connects.Add(1)
	if c.writeOK(OK{}) != nil {
		c.s.connects.Add(-1)
		return false
	}
	return true
}

// parseHandshakeResponse returns the user and the auth response of a
// protocol-41 handshake response.
func parseHandshakeResponse(p []byte) (user string, auth []byte, ok bool) {
	if len(p) < 32 {
		return "", nil, false
	}
	caps := binary.LittleEndian.Uint32(p)
	rest := p[32:]
	nul := bytes.IndexByte(rest, 0)
	if nul < 0 {
		return "", nil, false
	}
	user, rest = string(rest[:nul]), rest[nul+1:]
	switch {
	case caps&clientPluginAuthLenc != 0:
		n, w := lenenc(rest)
		if w == 0 || uint64(len(rest)-w) < n {
			return "", nil, false
		}
		auth = rest[w : w+int(n)]
	case caps&clientSecureConn != 0:
		if len(rest) < 1 || len(rest) < 1+int(rest[0]) {
			return "", nil, false
		}
		auth = rest[1 : 1+int(rest[0])]
	default:
		nul := bytes.IndexByte(rest, 0)
		if nul < 0 {
			return "", nil, false
		}
		auth = rest[:nul]
	}
	return user, auth, true
}

// nativePassword is mysql_native_password's answer to the scramble:
// SHA1(password) XOR SHA1(scramble + SHA1(SHA1(password))).
func nativePassword(scramble []byte, password string) []byte {
	s1 := sha1.Sum([]byte(password))
	s2 := sha1.Sum(s1[:])
	h := sha1.New()
	h.Write(scramble)
	h.Write(s2[:])
	out := h.Sum(nil)
	for i := range out {
		out[i] ^= s1[i]
	}
	return out
}

// serve answers commands until the client quits or the connection ends.
func (c *conn) serve() {
	for {
		c.seq = 0
		p, err := c.read()
		if err != nil || len(p) == 0 {
			return
		}
		cmd, body := p[0], p[1:]
		switch cmd {
		case comQuit:
			c.s.record(Query{Conn: c.id, Kind: KindQuit})
			return
		case comQuery:
			q := Query{Conn: c.id, Kind: KindQuery, SQL: string(body)}
			c.s.record(q)
			if !c.answer(q, false) {
				return
			}
		case comPing, comInitDB:
			q := Query{Conn: c.id, Kind: KindPing}
			if cmd == comInitDB {
				q = Query{Conn: c.id, Kind: KindInitDB, SQL: string(body)}
			}
			c.s.record(q)
			if !c.s.wait() || c.writeOK(OK{}) != nil {
				return
			}
		case comStmtPrepare:
			if !c.prepare(string(body)) {
				return
			}
		case comStmtExecute:
			if !c.execute(body) {
				return
			}
		case comStmtClose, comStmtReset:
			if len(body) < 4 {
				return
			}
			id := binary.LittleEndian.Uint32(body)
			st := c.stmts[id]
			q := Query{Conn: c.id, Kind: KindClose}
			if cmd == comStmtReset {
				q.Kind = KindReset
			}
			if st != nil {
				q.SQL = st.sql
			}
			c.s.record(q)
			if cmd == comStmtClose {
				delete(c.stmts, id) // no reply to a close
				continue
			}
			if st == nil {
				if c.writeErr(unknownStmt(id, "mysqld_stmt_reset")) != nil {
					return
				}
				continue
			}
			if c.writeOK(OK{}) != nil {
				return
			}
		default:
			if c.writeErr(Err{Code: 1047, State: "08S01", Message: "Unknown command"}) != nil {
				return
			}
		}
	}
}

func unknownStmt(id uint32, where string) Err {
	return Err{Code: 1243, Message: fmt.Sprintf("Unknown prepared statement handler (%d) given to %s", id, where)}
}

// answer asks the handler and writes its reply (binary rows for an
// execute); false ends the connection.
func (c *conn) answer(q Query, binaryRows bool) bool {
	r := c.s.handler(q)
	if !c.s.wait() {
		return false
	}
	for {
		st, ok := r.(Stall)
		if !ok {
			break
		}
		if !c.s.sleep(st.For) {
			return false
		}
		r = st.Then
	}
	switch r := r.(type) {
	case nil:
		return c.writeOK(OK{}) == nil
	case OK:
		return c.writeOK(r) == nil
	case Err:
		return c.writeErr(r) == nil
	case Rows:
		return c.writeRows(r, binaryRows) == nil
	case Drop:
		return false
	}
	panic(fmt.Sprintf("mysqlfake: unknown reply %T", r))
}

func (c *conn) prepare(sql string) bool {
	q := Query{Conn: c.id, Kind: KindPrepare, SQL: sql}
	c.s.record(q)
	r := c.s.handler(q)
	if !c.s.wait() {
		return false
	}
	switch r := r.(type) {
	case Err:
		return c.writeErr(r) == nil
	case Drop:
		return false
	}
	c.nextID++
	st := &stmt{sql: sql, params: countParams(sql)}
	c.stmts[c.nextID] = st
	var b []byte
	b = append(b, 0)
	b = binary.LittleEndian.AppendUint32(b, c.nextID)
	b = binary.LittleEndian.AppendUint16(b, 0) // columns: told with each result
	b = binary.LittleEndian.AppendUint16(b, uint16(st.params))
	b = append(b, 0, 0, 0)
	if c.write(b) != nil {
		return false
	}
	if st.params > 0 {
		for i := 0; i < st.params; i++ {
			if c.write(columnDef("?")) != nil {
				return false
			}
		}
		if c.writeEOF() != nil {
			return false
		}
	}
	return true
}

// countParams counts the ? placeholders outside quotes and comments.
func countParams(sql string) int {
	n := 0
	for i := 0; i < len(sql); i++ {
		switch ch := sql[i]; ch {
		case '?':
			n++
		case '\'', '"', '`':
			for i++; i < len(sql) && sql[i] != ch; i++ {
				if sql[i] == '\\' && ch != '`' {
					i++
				}
			}
		case '-':
			if strings.HasPrefix(sql[i:], "-- ") {
				for i < len(sql) && sql[i] != '\n' {
					i++
				}
			}
		case '#':
			for i < len(sql) && sql[i] != '\n' {
				i++
			}
		case '/':
			if strings.HasPrefix(sql[i:], "/*") {
				if end := strings.Index(sql[i+2:], "*/"); end >= 0 {
					i += end + 3
				} else {
					i = len(sql)
				}
			}
		}
	}
	return n
}

func (c *conn) execute(body []byte) bool {
	if len(body) < 9 {
		return false
	}
	id := binary.LittleEndian.Uint32(body)
	st := c.stmts[id]
	if st == nil {
		return c.writeErr(unknownStmt(id, "mysqld_stmt_execute")) == nil
	}
	q := Query{Conn: c.id, Kind: KindExecute, SQL: st.sql}
	args, sent, err := decodeParams(body[9:], st)
	q.Args, q.TypesSent = args, sent
	c.s.record(q)
	if err != nil {
		// What the server says to an execute whose types it does not have
		// or whose values it cannot read.
		return c.writeErr(Err{Code: 1210, Message: "Incorrect arguments to mysqld_stmt_execute"}) == nil
	}
	return c.answer(q, true)
}

var errBadParams = errors.New("mysqlfake: malformed parameters")

// decodeParams reads an execute's NULL bitmap, new_params_bound_flag,
// types and values; st keeps the types for an execute that leaves them out.
func decodeParams(p []byte, st *stmt) (args []any, typesSent bool, err error) {
	n := st.params
	if n == 0 {
		return nil, false, nil
	}
	nb := (n + 7) / 8
	if len(p) < nb+1 {
		return nil, false, errBadParams
	}
	nulls, flag := p[:nb], p[nb]
	p = p[nb+1:]
	switch flag {
	case 1:
		if len(p) < 2*n {
			return nil, true, errBadParams
		}
		st.types = append(st.types[:0], p[:2*n]...)
		p = p[2*n:]
		typesSent = true
	case 0:
		if len(st.types) != 2*n {
			return nil, false, errBadParams
		}
	default:
		return nil, false, errBadParams
	}
	args = make([]any, n)
	for i := 0; i < n; i++ {
		if nulls[i/8]&(1<<(i%8)) != 0 {
			continue
		}
		typ, unsigned := st.types[2*i], st.types[2*i+1]&0x80 != 0
		var v any
		var w int
		switch typ {
		case 0x06: // NULL
		case 0x01: // TINY
			if len(p) < 1 {
				return nil, typesSent, errBadParams
			}
			v, w = int64(int8(p[0])), 1
			if unsigned {
				v = uint64(p[0])
			}
		case 0x02, 0x0d: // SHORT, YEAR
			if len(p) < 2 {
				return nil, typesSent, errBadParams
			}
			u := binary.LittleEndian.Uint16(p)
			v, w = int64(int16(u)), 2
			if unsigned {
				v = uint64(u)
			}
		case 0x03, 0x09: // LONG, INT24
			if len(p) < 4 {
				return nil, typesSent, errBadParams
			}
			u := binary.LittleEndian.Uint32(p)
			v, w = int64(int32(u)), 4
			if unsigned {
				v = uint64(u)
			}
		case 0x08: // LONGLONG
			if len(p) < 8 {
				return nil, typesSent, errBadParams
			}
			u := binary.LittleEndian.Uint64(p)
			v, w = int64(u), 8
			if unsigned {
				v = u
			}
		case 0x04: // FLOAT
			if len(p) < 4 {
				return nil, typesSent, errBadParams
			}
			v, w = float64(math.Float32frombits(binary.LittleEndian.Uint32(p))), 4
		case 0x05: // DOUBLE
			if len(p) < 8 {
				return nil, typesSent, errBadParams
			}
			v, w = math.Float64frombits(binary.LittleEndian.Uint64(p)), 8
		default: // strings, decimals, blobs and temporal values: length-prefixed
			l, lw := lenenc(p)
			if lw == 0 || uint64(len(p)-lw) < l {
				return nil, typesSent, errBadParams
			}
			v, w = string(p[lw:lw+int(l)]), lw+int(l)
		}
		args[i] = v
		p = p[w:]
	}
	return args, typesSent, nil
}

// lenenc reads a length-encoded integer; w == 0 if p holds none.
func lenenc(p []byte) (v uint64, w int) {
	if len(p) == 0 {
		return 0, 0
	}
	switch p[0] {
	case 0xfc:
		if len(p) < 3 {
			return 0, 0
		}
		return uint64(binary.LittleEndian.Uint16(p[1:])), 3
	case 0xfd:
		if len(p) < 4 {
			return 0, 0
		}
		return uint64(p[1]) | uint64(p[2])<<8 | uint64(p[3])<<16, 4
	case 0xfe:
		if len(p) < 9 {
			return 0, 0
		}
		return binary.LittleEndian.Uint64(p[1:]), 9
	case 0xfb, 0xff:
		return 0, 0
	}
	return uint64(p[0]), 1
}

func appendLenenc(b []byte, v uint64) []byte {
	switch {
	case v < 0xfb:
		return append(b, byte(v))
	case v < 1<<16:
		return binary.LittleEndian.AppendUint16(append(b, 0xfc), uint16(v))
	case v < 1<<24:
		return append(b, 0xfd, byte(v), byte(v>>8), byte(v>>16))
	}
	return binary.LittleEndian.AppendUint64(append(b, 0xfe), v)
}

func appendLenencString(b []byte, s string) []byte {
	return append(appendLenenc(b, uint64(len(s))), s...)
}

func columnDef(name string) []byte {
	var b []byte
	b = appendLenencString(b, "def")
	b = appendLenencString(b, "")   // schema
	b = appendLenencString(b, "")   // table
	b = appendLenencString(b, "")   // original table
	b = appendLenencString(b, name) // name
	b = appendLenencString(b, name) // original name
	b = append(b, 0x0c)
	b = binary.LittleEndian.AppendUint16(b, collationUTF8)
	b = binary.LittleEndian.AppendUint32(b, 255) // length
	b = append(b, typeVarString)
	b = binary.LittleEndian.AppendUint16(b, 0) // flags
	b = append(b, 0, 0, 0)                     // decimals, filler
	return b
}

// text formats a value of Rows.Values; ok is false for NULL.
func text(v any) (string, bool) {
	switch v := v.(type) {
	case nil:
		return "", false
	case string:
		return v, true
	case []byte:
		return string(v), true
	}
	return fmt.Sprint(v), true
}

func (c *conn) writeRows(r Rows, binaryRows bool) error {
	if err := c.write(appendLenenc(nil, uint64(len(r.Columns)))); err != nil {
		return err
	}
	for _, name := range r.Columns {
		if err := c.write(columnDef(name)); err != nil {
			return err
		}
	}
	if err := c.writeEOF(); err != nil {
		return err
	}
	for _, row := range r.Values {
		if len(row) != len(r.Columns) {
			panic(fmt.Sprintf("mysqlfake: a row of %d values for %d columns", len(row), len(r.Columns)))
		}
		var b []byte
		if binaryRows {
			// Header, then the NULL bitmap (offset 2), then the non-NULL values.
			b = append(b, 0)
			bitmap := len(b)
			b = append(b, make([]byte, (len(row)+7+2)/8)...)
			for i, v := range row {
				s, ok := text(v)
				if !ok {
					b[bitmap+(i+2)/8] |= 1 << ((i + 2) % 8)
					continue
				}
				b = appendLenencString(b, s)
			}
		} else {
			for _, v := range row {
				s, ok := text(v)
				if !ok {
					b = append(b, 0xfb)
					continue
				}
				b = appendLenencString(b, s)
			}
		}
		if err := c.write(b); err != nil {
			return err
		}
	}
	return c.writeEOF()
}

func (c *conn) writeOK(r OK) error {
	b := []byte{0}
	b = appendLenenc(b, r.Affected)
	b = appendLenenc(b, r.InsertID)
	b = binary.LittleEndian.AppendUint16(b, statusAutocommit)
	b = binary.LittleEndian.AppendUint16(b, 0) // warnings
	return c.write(b)
}

func (c *conn) writeEOF() error {
	b := []byte{0xfe, 0, 0}
	b = binary.LittleEndian.AppendUint16(b, statusAutocommit)
	return c.write(b)
}

func (c *conn) writeErr(e Err) error {
	state := e.State
	if len(state) != 5 {
		state = "HY000"
	}
	b := []byte{0xff}
	b = binary.LittleEndian.AppendUint16(b, e.Code)
	b = append(b, '#')
	b = append(b, state...)
	b = append(b, e.Message...)
	return c.write(b)
}

// write sends one packet with the next sequence number.
func (c *conn) write(payload []byte) error {
	if len(payload) >= 1<<24-1 {
		return errors.New("mysqlfake: packet too large")
	}
	n := len(payload)
	b := make([]byte, 4, 4+n)
	b[0], b[1], b[2], b[3] = byte(n), byte(n>>8), byte(n>>16), c.seq
	c.seq++
	_, err := c.c.Write(append(b, payload...))
	return err
}

// read reads one packet (not a multi-packet one) and checks its sequence.
func (c *conn) read() ([]byte, error) {
	var h [4]byte
	if _, err := io.ReadFull(c.c, h[:]); err != nil {
		return nil, err
	}
	n := int(h[0]) | int(h[1])<<8 | int(h[2])<<16
	if h[3] != c.seq {
		return nil, fmt.Errorf("mysqlfake: packet sequence %d, want %d", h[3], c.seq)
	}
	if n == 1<<24-1 {
		return nil, errors.New("mysqlfake: packets of 16 MB or more are not supported")
	}
	c.seq++
	p := make([]byte, n)
	_, err := io.ReadFull(c.c, p)
	return p, err
}
