// Package mysqlconn is one client connection to a MySQL or MariaDB server:
// the driver's connection used directly (no database/sql pool), its socket
// (raw read(2)/write(2), read-ahead, the server's connection id for KILL,
// a prepared statement's parameter types sent once as the C client does,
// prepared statements executed without the driver's execute on plain
// sockets: lean.go)
// and the client library's wording of connection errors. The engine and the
// workloads use it; it knows nothing of command lines.
package mysqlconn

import (
	"context"
	"database/sql/driver"
	"errors"
	"fmt"
	"io"
	"net"
	"strings"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/go-sql-driver/mysql"
)

// Conn is one client connection: the driver's connection used directly,
// without database/sql's pool, so a statement costs one COM_QUERY round trip
// and no per-call context machinery.
type Conn struct {
	drv     driver.Conn
	queryer driver.Queryer
	execer  driver.Execer
	sock    *socket // the socket, for the wording of connection failures
}

// Connector opens Conns for one driver configuration.
type Connector struct {
	cfg *mysql.Config
	// blockingOK: the configuration allows the threaded path (threads.go):
	// no compression, no driver read/write time-outs. withTLS: TLS is
	// configured (required, or preferred and then used when the server
	// offers it), which keeps such connections on the netpoller path.
	blockingOK  bool
	withTLS     bool
	compress    bool
	initCommand string // --init-command, run after every (re)connect
	// handshakeTimeout is HandshakeTimeout except in tests.
	handshakeTimeout time.Duration
	// driverExecute keeps prepared statements on the driver's execute
	// path (tests comparing it with the lean path).
	driverExecute bool
}

// dialStateKey carries a *dialState through Connect's context into dial.
type dialStateKey struct{}

// dialState is one Connect's link to its dial: the slot to record the
// socket in (may be nil), the handshake time limit, and the socket dialled.
type dialState struct {
	slot    *Slot
	timeout time.Duration
	sock    *socket
}

// HandshakeTimeout bounds the connect and the handshake (greeting and
// authentication) of every connection: the server's own connect_timeout
// defaults to 10 s too, so a healthy server never takes longer, and a
// listener that is not a MySQL server (or never speaks) cannot hang goslap.
// mysqlslap has no option for it; libmariadb's wording on expiry is
// "Lost connection to server at 'handshake: reading initial communication
// packet', system error: 110".
const HandshakeTimeout = 10 * time.Second

// Slot records the socket of a client's current connection and the
// server's id for it, so an abort can close the socket and KILL the
// server-side thread of a client stuck in a long statement.
type Slot struct {
	conn atomic.Pointer[socket]
	// blocking: the slot's client runs on the threaded path (Threads.Enter),
	// so Connect makes its sockets blocking. Only its own goroutine uses it.
	blocking bool
}

// Break shuts the socket of the slot's current connection down, which wakes
// a client blocked in a read (raw blocking or netpoller), and returns the server's id for the connection
// (0 when unknown or when there is none) so the caller can KILL a statement
// the server is still running.
func (s *Slot) Break() (serverID uint32) {
	sc := s.conn.Load()
	if sc == nil {
		return 0
	}
	sc.shutdown()
	return sc.id.Load()
}

// NewConnector validates cfg and returns a Connector for it. initCommand
// (may be "") runs after every connect.
func NewConnector(cfg *mysql.Config, initCommand string) (*Connector, error) {
	cfg = cfg.Clone()
	netw := cfg.Net
	badHost := bracketedHost(netw, cfg.Addr)
	cfg.DialFunc = func(ctx context.Context, network, addr string) (net.Conn, error) {
		if badHost != "" {
			// libmariadb looks "[::1]" up as a name and finds nothing; the
			// driver would append a second port to the address instead.
			return nil, &net.DNSError{Name: badHost, Err: "no such host", IsNotFound: true}
		}
		st, _ := ctx.Value(dialStateKey{}).(*dialState)
		if st == nil {
			st = &dialState{timeout: HandshakeTimeout}
		}
		d := net.Dialer{Timeout: st.timeout}
		c, err := d.DialContext(ctx, netw, addr)
		if err != nil {
			return nil, err
		}
		tc := &socket{Conn: c}
		if sc, ok := c.(syscall.Conn); ok {
			if raw, err := sc.SyscallConn(); err == nil {
				tc.setRaw(raw)
			}
		}
		st.sock = tc
		if st.slot != nil {
			st.slot.conn.Store(tc)
		}
		// Cleared by Connect once the driver's handshake is done.
		_ = c.SetDeadline(time.Now().Add(st.timeout))
		if err := tc.readGreeting(); err != nil {
			c.Close()
			return nil, err
		}
		return tc, nil
	}
	// Validate the configuration now; connect makes a Connector per connection.
	if _, err := mysql.NewConnector(cfg); err != nil {
		return nil, err
	}
	compress := strings.Contains(cfg.FormatDSN(), "compress=true")
	blockingOK := cfg.ReadTimeout == 0 && cfg.WriteTimeout == 0 && !compress
	withTLS := cfg.TLS != nil || cfg.TLSConfig != "" && cfg.TLSConfig != "false"
	return &Connector{cfg: cfg, initCommand: initCommand, handshakeTimeout: HandshakeTimeout,
		blockingOK: blockingOK, withTLS: withTLS, compress: compress}, nil
}

// DriverExecute returns a connector like c whose connections' prepared
// statements keep the driver's statement execute instead of the lean path
// (lean.go): for tests that compare the two paths' results.
func (c *Connector) DriverExecute() *Connector {
	d := *c
	d.driverExecute = true
	return &d
}

// bracketedHost is the host of a TCP address as the user gave it when it
// still has brackets ("[::1]" from -h '[::1]', which net.JoinHostPort
// bracketed again), else "".
func bracketedHost(network, addr string) string {
	i := strings.LastIndexByte(addr, ':')
	if network != "tcp" || i < 0 {
		return ""
	}
	host := addr[:i]
	// net.JoinHostPort brackets a host that contains a colon: undo that.
	if inner, ok := strings.CutPrefix(host, "["); ok && strings.HasSuffix(inner, "]") && strings.Contains(inner, ":") {
		host = inner[:len(inner)-1]
	}
	if strings.ContainsAny(host, "[]") {
		return host
	}
	return ""
}

// Connect opens a connection; slot (may be nil) records its socket. With
// an init command, a failing init command is a connect error.
func (c *Connector) Connect(slot *Slot) (*Conn, error) {
	st := &dialState{slot: slot, timeout: c.handshakeTimeout}
	ctx := context.WithValue(context.Background(), dialStateKey{}, st)
	// A Connector of its own per connection: the driver writes to its
	// Connector's Config during the handshake (TLS=nil when "preferred" TLS
	// falls back to plaintext), a data race when clients connect at once.
	per, err := mysql.NewConnector(c.cfg)
	if err != nil {
		return nil, err
	}
	drv, err := per.Connect(ctx)
	if err != nil {
		var me *mysql.MySQLError
		if st.sock != nil && !errors.As(err, &me) && !strings.Contains(err.Error(), "tls:") && (st.sock.failure != nil ||
			errors.Is(err, mysql.ErrInvalidConn) || errors.Is(err, mysql.ErrMalformPkt) ||
			errors.Is(err, mysql.ErrPktSync) || errors.Is(err, mysql.ErrPktSyncMul)) {
			// The greeting was fine; the rest of the handshake failed.
			return nil, lostAt("reading authorization packet", st.sock.failure)
		}
		return nil, err
	}
	_ = st.sock.SetDeadline(time.Time{})
	st.sock.plain = !c.compress && !(c.withTLS && st.sock.offersTLS)
	// The lean execute path decodes what the driver would for this
	// configuration: no time.Time values (ParseTime), no read-only
	// rejection turned into a bad connection.
	st.sock.leanOK = st.sock.plain && st.sock.raw != nil && !c.cfg.ParseTime && !c.cfg.RejectReadOnly && !c.driverExecute
	st.sock.maxPacket = c.cfg.MaxAllowedPacket
	if slot != nil && slot.blocking && c.blockingOK && !(c.withTLS && st.sock.offersTLS) {
		if err := st.sock.block(); err != nil {
			drv.Close()
			return nil, err
		}
	}
	q, ok := drv.(driver.Queryer)
	e, ok2 := drv.(driver.Execer)
	if !ok || !ok2 {
		drv.Close()
		return nil, errors.New("the MySQL driver does not implement driver.Queryer and driver.Execer")
	}
	dc := &Conn{drv: drv, queryer: q, execer: e, sock: st.sock}
	if c.initCommand != "" {
		if err := dc.Exec(c.initCommand); err != nil {
			dc.Close()
			return nil, err
		}
	}
	return dc, nil
}

// Exec sends one statement (possibly several with multi-statements) and
// reads every result of it, discarding rows without converting them to Go
// values: all result sets of a CALL must be consumed before the connection
// can be used again (mysqlslap Bug #29985).
//
// The driver's Exec does exactly that: it skips column definitions and row
// packets without parsing them and discards every further result set,
// returning the first error. Query would build column metadata (names as
// Go strings) and a rows object for each statement only for us to throw
// them away: 6 allocations per key SELECT against Exec's one. On a plain
// connection the lean text path (leantext.go) does the same without the
// driver.
func (c *Conn) Exec(stmt string) error {
	if c.sock.leanOK {
		if err := c.leanText(stmt); err != errNoLean {
			return connectionFailure(err, c.sock)
		}
	}
	_, err := c.execer.Exec(stmt, nil)
	if err != nil {
		return connectionFailure(err, c.sock)
	}
	return nil
}

// ExecOwnTransaction runs a statement that is a transaction by itself
// (autocommit on, no transaction open) and sends it again, up to ten
// times, when the server rolled it back as a deadlock victim: concurrent
// multi-row INSERTs into one InnoDB table do deadlock (the prefill and the
// TPC-C load both met it), and the rolled-back statement left nothing
// behind, so sending it again is exactly what the loader meant.
func (c *Conn) ExecOwnTransaction(stmt string) error {
	err := c.Exec(stmt)
	for tries := 0; err != nil && IsDeadlock(err) && tries < 10; tries++ {
		err = c.Exec(stmt)
	}
	return err
}

// QueryStrings runs a query and returns the first column of every row of
// its first result set as strings (the key list, schema inspection).
func (c *Conn) QueryStrings(stmt string) (_ []string, err error) {
	defer func() { err = connectionFailure(err, c.sock) }()
	rows, err := c.queryer.Query(stmt, nil)
	if err != nil {
		return nil, err
	}
	var out []string
	cols := rows.Columns()
	if len(cols) > 0 {
		dest := make([]driver.Value, len(cols))
		for {
			if err := rows.Next(dest); err != nil {
				if err == io.EOF {
					break
				}
				rows.Close()
				return nil, err
			}
			switch v := dest[0].(type) {
			case []byte:
				out = append(out, string(v))
			case nil:
				out = append(out, "")
			default:
				out = append(out, fmt.Sprint(v))
			}
		}
	}
	return out, rows.Close()
}

// Query runs a text-protocol query and returns every row of its first
// result set, NULL as nil. For small results read outside the timed path
// (TPC-C's reads go through prepared statements instead).
func (c *Conn) Query(stmt string) (_ [][][]byte, err error) {
	defer func() { err = connectionFailure(err, c.sock) }()
	rows, err := c.queryer.Query(stmt, nil)
	if err != nil {
		return nil, err
	}
	return collect(rows)
}

// collect reads all rows of rows as byte slices and closes it.
func collect(rows driver.Rows) ([][][]byte, error) {
	var out [][][]byte
	dest := make([]driver.Value, len(rows.Columns()))
	for {
		if err := rows.Next(dest); err != nil {
			if err == io.EOF {
				break
			}
			rows.Close()
			return nil, err
		}
		row := make([][]byte, len(dest))
		for i, v := range dest {
			row[i] = valueBytes(v)
		}
		out = append(out, row)
	}
	return out, rows.Close()
}

func valueBytes(v driver.Value) []byte {
	switch v := v.(type) {
	case nil:
		return nil
	case string:
		return []byte(v) // "" stays a non-nil empty value
	}
	return appendValue(nil, v)
}

// Stmt is a server-side prepared statement of one connection
// (COM_STMT_PREPARE once, COM_STMT_EXECUTE per call).
type Stmt struct {
	st   driver.Stmt
	lean *leanStmt // the lean path's view of it (lean.go); nil: the driver's path
	ex   driver.StmtExecContext
	qc   driver.StmtQueryContext
	sock *socket // the connection's socket, for the wording of failures
	// bound: the parameter types the server holds for the statement, so
	// that an execute with the same types leaves them out (bound.go).
	bound boundTypes
}

// begin makes the socket leave out the types of the execute the driver is
// about to write when the server already holds them; end undoes it, and
// after a failure makes the next execute send them again.
func (s *Stmt) begin() {
	if s.sock != nil && s.sock.plain {
		s.sock.bound = &s.bound
	}
}

func (s *Stmt) end(err error) {
	if s.sock != nil {
		s.sock.bound = nil
	}
	if err != nil {
		s.bound.forget()
	}
}

// Prepare prepares stmt on the server (binary protocol). Prepare statements
// before the clock starts: it is a round trip.
//
// On a connection the lean path may use, the socket copies the prepare's
// reply on its way to the driver, and the statement's executes take the
// lean path (lean.go).
func (c *Conn) Prepare(stmt string) (*Stmt, error) {
	t := c.sock
	capture := t != nil && t.leanOK && !t.dead && t.r == t.w && len(t.greeting) == 0
	if capture {
		t.capturing, t.captured = true, t.captured[:0]
	}
	st, err := c.drv.Prepare(stmt)
	if capture {
		t.capturing = false
	}
	if err != nil {
		return nil, connectionFailure(err, c.sock)
	}
	ex, ok := st.(driver.StmtExecContext)
	qc, ok2 := st.(driver.StmtQueryContext)
	if !ok || !ok2 {
		st.Close()
		return nil, errors.New("the MySQL driver's statements do not implement the context interfaces")
	}
	s := &Stmt{st: st, ex: ex, qc: qc, sock: c.sock, bound: boundTypes{params: st.NumInput()}}
	if capture {
		if ls := parsePrepareReply(t.captured, t.offersDeprecateEOF); ls != nil && ls.params == st.NumInput() {
			ls.longMin = 64
			if t.maxPacket > 0 {
				ls.longMin = max(t.maxPacket/(ls.params+1), 64)
			}
			s.lean = ls
		}
		if cap(t.captured) > leanReadBuf {
			t.captured = nil // a statement with many columns: not kept for good
		}
	}
	return s, nil
}

// Lean reports whether the statement's executes take the lean path
// (lean.go) rather than the driver's.
func (s *Stmt) Lean() bool { return s.lean != nil }

// Exec executes the statement with args and drains its results. args is
// reused by the caller between calls to avoid an allocation per execution.
func (s *Stmt) Exec(args []driver.NamedValue) error {
	if s.lean != nil {
		if err := s.leanExec(args, leanDiscard); err != errNoLean {
			return connectionFailure(err, s.sock)
		}
	}
	s.begin()
	_, err := s.ex.ExecContext(context.Background(), args)
	s.end(err)
	if err != nil {
		return connectionFailure(err, s.sock)
	}
	return nil
}

// ExecAffected is Exec returning the number of rows changed.
func (s *Stmt) ExecAffected(args []driver.NamedValue) (int64, error) {
	if s.lean != nil {
		if err := s.leanExec(args, leanDiscard); err != errNoLean {
			if err != nil {
				return 0, connectionFailure(err, s.sock)
			}
			return s.sock.lean.affected, nil
		}
	}
	s.begin()
	res, err := s.ex.ExecContext(context.Background(), args)
	s.end(err)
	if err != nil {
		return 0, connectionFailure(err, s.sock)
	}
	return res.RowsAffected()
}

// Query executes the statement and returns all rows of its result.
func (s *Stmt) Query(args []driver.NamedValue) (_ [][][]byte, err error) {
	defer func() { err = connectionFailure(err, s.sock) }()
	s.begin()
	rows, err := s.qc.QueryContext(context.Background(), args)
	s.end(err)
	if err != nil {
		return nil, err
	}
	return collect(rows)
}

// Drain executes the statement and reads its rows without keeping them
// (OLTP's SELECTs: the result must be read, its values are not needed, as
// sysbench stores a result without fetching its values). The driver's
// rows.Close reads the remaining row packets without decoding them (an
// error packet among them is returned); rows.Next would decode every value
// into an interface, one allocation per string or large integer: 311 per
// oltp_read_only transaction.
func (s *Stmt) Drain(args []driver.NamedValue) error {
	if s.lean != nil {
		if err := s.leanExec(args, leanDiscard); err != errNoLean {
			return connectionFailure(err, s.sock)
		}
	}
	s.begin()
	rows, err := s.qc.QueryContext(context.Background(), args)
	s.end(err)
	if err == nil {
		err = rows.Close()
	}
	return connectionFailure(err, s.sock)
}

// Close deallocates the statement on the server.
func (s *Stmt) Close() error { return s.st.Close() }

// ExecResult is Exec on the text protocol returning the rows changed (the
// last result's, 0 for a result set, as the driver counts them).
func (c *Conn) ExecResult(stmt string) (int64, error) {
	if c.sock.leanOK {
		if err := c.leanText(stmt); err != errNoLean {
			if err != nil {
				return 0, connectionFailure(err, c.sock)
			}
			return c.sock.lean.affected, nil
		}
	}
	res, err := c.execer.Exec(stmt, nil)
	if err != nil {
		return 0, connectionFailure(err, c.sock)
	}
	return res.RowsAffected()
}

// Close closes the connection (COM_QUIT); a nil or closed Conn is a no-op.
func (c *Conn) Close() {
	if c != nil && c.drv != nil {
		_ = c.ClearExchanger() // the driver's COM_QUIT is written, not left pending
		_ = c.drv.Close()
		c.drv = nil
	}
}

// ConnectError words a failure of Connect as the client library does (see
// the package function ConnectError) for this connector's transport.
func (c *Connector) ConnectError(err error) (code int, msg string) {
	return ConnectError(err, c.cfg.Net, c.cfg.Addr)
}

// Clear forgets the slot's connection once the client has closed it.
func (s *Slot) Clear() { s.conn.Store(nil) }
