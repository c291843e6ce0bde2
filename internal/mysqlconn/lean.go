package mysqlconn

import (
	"bytes"
	"database/sql/driver"
	"encoding/binary"
	"errors"
	"math"
	"strconv"

	"github.com/go-sql-driver/mysql"
)

// The lean execute path: on a plain socket (no TLS, no compression) a
// prepared statement's COM_STMT_EXECUTE is written here into a buffer the
// connection keeps, and its reply (OK, ERR, result sets of binary rows) is
// read here into buffers the caller keeps, without the driver's statement
// execute, its rows object, its []driver.Value rows and their boxing: ~32 µs
// of TPC-C's client CPU per transaction and most of its allocations went
// there (BENCHMARKS.md, "TPC-C client cost"). The driver still does the
// handshake, the prepare (whose reply the socket copies on its way to the
// driver, so the statement's id, parameter count and column types are known
// here), text statements and everything else; a connection that is not
// plain, or an argument this path does not encode (a time, a value long
// enough for the driver's long-data packets), takes the driver's path.
//
// Integers that fit in 32 bits go out as LONG, 4 bytes, as tpcc-mysql and
// sysbench bind them (the driver sends every int64 as an 8-byte LONGLONG),
// and the parameter types only when they differ from the ones the server
// holds for the statement (boundTypes). Errors are the driver's: the
// server's ERR packet as a *mysql.MySQLError, a lost connection as
// mysql.ErrInvalidConn after the socket recorded the failure (so that
// connectionFailure words it as for the driver), the connection closed.

// Protocol constants this path uses.
const (
	iOK                     = 0x00
	iEOF                    = 0xfe
	iERR                    = 0xff
	iLocalInFile            = 0xfb
	statusMoreResultsExists = 0x0008
	flagUnsigned            = 0x0020
	clientMySQLCap          = 1 // CLIENT_MYSQL: absent in MariaDB's greeting
	mariaCacheMetadata      = 1 << 4
)

// Column types (MYSQL_TYPE_*) the path encodes or decodes.
const (
	typeDecimal    = 0x00
	typeTiny       = 0x01
	typeShort      = 0x02
	typeLong       = 0x03
	typeFloat      = 0x04
	typeDouble     = 0x05
	typeNULL       = 0x06
	typeTimestamp  = 0x07
	typeLongLong   = 0x08
	typeInt24      = 0x09
	typeDate       = 0x0a
	typeTime       = 0x0b
	typeDateTime   = 0x0c
	typeYear       = 0x0d
	typeNewDate    = 0x0e
	typeVarChar    = 0x0f
	typeBit        = 0x10
	typeVector     = 0xf2
	typeJSON       = 0xf5
	typeNewDecimal = 0xf6
	typeEnum       = 0xf7
	typeSet        = 0xf8
	typeTinyBLOB   = 0xf9
	typeMediumBLOB = 0xfa
	typeLongBLOB   = 0xfb
	typeBLOB       = 0xfc
	typeVarString  = 0xfd
	typeString     = 0xfe
	typeGeometry   = 0xff
)

// handshakeOffersCacheMetadata reports whether a protocol-10 handshake
// packet is MariaDB's (CLIENT_MYSQL clear) and announces the metadata
// cache in its extended capabilities: the 4 bytes after the upper
// capability bits, the auth data length and 6 reserved bytes.
func handshakeOffersCacheMetadata(p []byte) bool {
	if len(p) < 5 || p[4] != 10 {
		return false
	}
	rest := p[5:]
	nul := bytes.IndexByte(rest, 0)
	low := nul + 1 + 4 + 8 + 1
	ext := low + 2 + 1 + 2 + 2 + 1 + 6
	if nul < 0 || len(rest) < ext+4 {
		return false
	}
	if binary.LittleEndian.Uint16(rest[low:])&clientMySQLCap != 0 {
		return false
	}
	return binary.LittleEndian.Uint32(rest[ext:])&mariaCacheMetadata != 0
}

// column is what decoding a binary row needs of a column definition.
type column struct {
	typ      byte
	flags    uint16
	decimals byte
}

// leanStmt is what the lean path knows of a prepared statement.
type leanStmt struct {
	id     uint32
	params int
	cols   []column // the prepare's columns, replaced by metadata an execute sends
	// longMin: a string or []byte argument this long goes through the
	// driver, which sends it as long data (its threshold).
	longMin int
}

// leanIO is a connection's lean-path state: the execute being written, the
// reply being read (rbuf[r:w] unread), the sequence number expected next,
// and the outcome of the last execute.
type leanIO struct {
	wbuf  []byte
	types []byte
	rbuf  []byte
	r, w  int
	seq   byte
	big   []byte   // a payload of several packets, joined
	cols  []column // the current result set's columns when it sent them

	status   uint16
	affected int64

	// What the reader keeps of the first result set (leanMode), and the
	// first value it could not decode: the reply is still read to its
	// end, as the driver's rows.Close does, and the error returned.
	valueErr error
	sawSet   bool // a result set with columns came
	row      *Row
	found    bool
	ints     []int64
	count    int64
}

// leanMode is what an execute keeps of its first result set.
type leanMode int

const (
	leanDiscard leanMode = iota // nothing (Exec, Drain)
	leanCount                   // the number of rows
	leanFirst                   // the first row, into leanIO.row
	leanInts                    // the first column of every row, into leanIO.ints
)

// leanReadBuf is the reply buffer's size once a reply outgrew its first,
// leanFirstReadBuf: libmariadb's net_buffer_length, as the socket's
// read-ahead, so that a result of 14 KB (sysbench's range SELECTs) takes
// one read. The first is small because most connections never see such a
// reply (a key SELECT's is a few hundred bytes, an OK packet a dozen) and
// every connection has one: 19000 clients hold 19000 (BENCHMARKS.md,
// "19000 clients"; issue 28's 20 KB per client).
const (
	leanReadBuf      = 16 << 10
	leanFirstReadBuf = 1 << 10
)

// errNoLean is leanExec declining an execute: the driver's path takes it.
var errNoLean = errors.New("mysqlconn: not for the lean path")

// parsePrepareReply decodes a prepare's whole reply as the driver read it
// (OK, the parameter definitions, the column definitions, each list ended
// by an EOF packet unless CLIENT_DEPRECATE_EOF): nil when p is anything
// else, and then the statement keeps the driver's path.
func parsePrepareReply(p []byte, deprecateEOF bool) *leanStmt {
	next := func() []byte {
		if len(p) < 4 {
			return nil
		}
		n := int(p[0]) | int(p[1])<<8 | int(p[2])<<16
		if n == 0 || n >= maxPayload || len(p) < 4+n {
			return nil
		}
		pk := p[4 : 4+n]
		p = p[4+n:]
		return pk
	}
	ok := next()
	if len(ok) < 12 || ok[0] != iOK {
		return nil
	}
	s := &leanStmt{id: binary.LittleEndian.Uint32(ok[1:]), params: int(binary.LittleEndian.Uint16(ok[7:]))}
	ncols := int(binary.LittleEndian.Uint16(ok[5:]))
	lists := [2]int{s.params, ncols}
	for l, n := range lists {
		if n == 0 {
			continue
		}
		for range n {
			def := next()
			if def == nil {
				return nil
			}
			if l == 1 {
				c, ok := parseColumn(def)
				if !ok {
					return nil
				}
				s.cols = append(s.cols, c)
			}
		}
		if !deprecateEOF {
			if eof := next(); len(eof) == 0 || eof[0] != iEOF {
				return nil
			}
		}
	}
	if len(p) != 0 {
		return nil
	}
	return s
}

// parseColumn reads the type, flags and decimals of a column definition:
// six length-encoded strings (catalog, schema, table, original table, name,
// original name), the length of the fixed fields, the character set (2),
// the column length (4), then type, flags (2) and decimals.
func parseColumn(d []byte) (column, bool) {
	pos := 0
	for range 6 {
		n, null, w := lenencInt(d[pos:])
		if w == 0 || null {
			return column{}, false
		}
		pos += w + int(n)
		if pos > len(d) {
			return column{}, false
		}
	}
	_, _, w := lenencInt(d[pos:])
	pos += w
	if w == 0 || len(d) < pos+2+4+1+2+1 {
		return column{}, false
	}
	pos += 6
	return column{typ: d[pos], flags: binary.LittleEndian.Uint16(d[pos+1:]), decimals: d[pos+3]}, true
}

// lenencInt reads a length-encoded integer: the value, whether it is
// NULL (0xfb) and its width, 0 when b is too short.
func lenencInt(b []byte) (v uint64, null bool, w int) {
	if len(b) == 0 {
		return 0, false, 0
	}
	switch c := b[0]; {
	case c < 0xfb:
		return uint64(c), false, 1
	case c == 0xfb:
		return 0, true, 1
	case c == 0xfc:
		if len(b) < 3 {
			return 0, false, 0
		}
		return uint64(b[1]) | uint64(b[2])<<8, false, 3
	case c == 0xfd:
		if len(b) < 4 {
			return 0, false, 0
		}
		return uint64(b[1]) | uint64(b[2])<<8 | uint64(b[3])<<16, false, 4
	case c == 0xfe:
		if len(b) < 9 {
			return 0, false, 0
		}
		return binary.LittleEndian.Uint64(b[1:]), false, 9
	}
	return 0, false, 0 // 0xff is not a length
}

func appendLenenc(b []byte, n uint64) []byte {
	switch {
	case n < 0xfb:
		return append(b, byte(n))
	case n < 1<<16:
		return append(b, 0xfc, byte(n), byte(n>>8))
	case n < 1<<24:
		return append(b, 0xfd, byte(n), byte(n>>8), byte(n>>16))
	}
	return binary.LittleEndian.AppendUint64(append(b, 0xfe), n)
}

// leanIO returns the socket's lean-path state, made at first use.
func (t *socket) leanIO() *leanIO {
	if t.lean == nil {
		t.lean = &leanIO{wbuf: make([]byte, 0, 256), rbuf: make([]byte, leanFirstReadBuf)}
	}
	return t.lean
}

// encode writes the execute of s with args into l.wbuf, the parameter
// types only when they differ from bt's (then recorded there). false: an
// argument the lean path leaves to the driver (a type it does not encode,
// a value for long data, a packet over 16 MB, a count that does not
// match, which the driver reports).
func (l *leanIO) encode(s *leanStmt, bt *boundTypes, args []driver.NamedValue) bool {
	if len(args) != s.params {
		return false
	}
	b := append(l.wbuf[:0], 0, 0, 0, 0, comStmtExecute)
	b = binary.LittleEndian.AppendUint32(b, s.id)
	b = append(b, 0, 1, 0, 0, 0) // no cursor, one iteration
	if s.params > 0 {
		types := l.types[:0]
		mask := len(b)
		for range (s.params + 7) / 8 {
			b = append(b, 0)
		}
		flag := len(b)
		b = append(b, 1)
		for i := range args {
			switch v := args[i].Value.(type) {
			case nil:
				b[mask+i/8] |= 1 << (i & 7)
				types = append(types, typeNULL, 0)
			case int64:
				if v == int64(int32(v)) {
					types = append(types, typeLong, 0)
				} else {
					types = append(types, typeLongLong, 0)
				}
			case uint64:
				types = append(types, typeLongLong, 0x80)
			case float64:
				types = append(types, typeDouble, 0)
			case bool:
				types = append(types, typeTiny, 0)
			case []byte:
				if v == nil {
					b[mask+i/8] |= 1 << (i & 7)
					types = append(types, typeNULL, 0)
					continue
				}
				if len(v) >= s.longMin {
					return false
				}
				types = append(types, typeString, 0)
			case string:
				if len(v) >= s.longMin {
					return false
				}
				types = append(types, typeString, 0)
			default:
				return false
			}
		}
		l.types = types
		send := !bt.ok || bt.id != s.id || !bytes.Equal(bt.types, types)
		if send {
			b = append(b, types...)
		} else {
			b[flag] = 0
		}
		for i := range args {
			switch v := args[i].Value.(type) {
			case int64:
				if v == int64(int32(v)) {
					b = binary.LittleEndian.AppendUint32(b, uint32(v))
				} else {
					b = binary.LittleEndian.AppendUint64(b, uint64(v))
				}
			case uint64:
				b = binary.LittleEndian.AppendUint64(b, v)
			case float64:
				b = binary.LittleEndian.AppendUint64(b, math.Float64bits(v))
			case bool:
				if v {
					b = append(b, 1)
				} else {
					b = append(b, 0)
				}
			case []byte:
				if v != nil {
					b = append(appendLenenc(b, uint64(len(v))), v...)
				}
			case string:
				b = append(appendLenenc(b, uint64(len(v))), v...)
			}
		}
		if len(b)-4 >= maxPayload {
			l.wbuf = b[:0]
			return false
		}
		if send {
			bt.id, bt.types, bt.ok = s.id, append(bt.types[:0], types...), true
		}
	}
	n := len(b) - 4
	b[0], b[1], b[2] = byte(n), byte(n>>8), byte(n>>16)
	l.wbuf = b
	return true
}

// fill makes at least need bytes unread in rbuf, reading from the socket.
func (l *leanIO) fill(t *socket, need int) error {
	if l.w-l.r >= need {
		return nil
	}
	if len(l.rbuf)-l.r < need {
		size := 0 // the same buffer, its unread bytes moved to its start
		switch {
		case need > len(l.rbuf):
			size = need + leanReadBuf
		case len(l.rbuf) < leanReadBuf: // a reply outgrew the first buffer
			size = leanReadBuf
		}
		if size > 0 {
			nb := make([]byte, size)
			copy(nb, l.rbuf[l.r:l.w])
			l.rbuf = nb
		} else {
			copy(l.rbuf, l.rbuf[l.r:l.w])
		}
		l.w -= l.r
		l.r = 0
	}
	for l.w-l.r < need {
		n, err := t.sysRead(l.rbuf[l.w:])
		if err != nil {
			return err
		}
		l.w += n
	}
	return nil
}

// packet reads the next packet's payload, valid until the next read:
// errors as the driver's readPacket gives them (mysql.ErrInvalidConn when
// the socket failed, mysql.ErrPktSync for a packet out of sequence that is
// not an error packet).
func (l *leanIO) packet(t *socket) ([]byte, error) {
	var joined []byte
	outOfSeq := false
	for {
		if err := l.fill(t, 4); err != nil {
			return nil, mysql.ErrInvalidConn
		}
		h := l.rbuf[l.r : l.r+4]
		n := int(h[0]) | int(h[1])<<8 | int(h[2])<<16
		if h[3] != l.seq {
			if joined != nil {
				return nil, mysql.ErrPktSyncMul
			}
			outOfSeq = true
		}
		l.seq = h[3] + 1
		if n == 0 && joined == nil {
			return nil, mysql.ErrInvalidConn
		}
		if err := l.fill(t, 4+n); err != nil {
			return nil, mysql.ErrInvalidConn
		}
		p := l.rbuf[l.r+4 : l.r+4+n]
		l.r += 4 + n
		if n < maxPayload {
			if joined != nil {
				p = append(joined, p...)
				l.big = p[:0]
			}
			if outOfSeq && p[0] != iERR {
				return nil, mysql.ErrPktSync
			}
			return p, nil
		}
		if joined == nil {
			joined = l.big[:0]
		}
		joined = append(joined, p...)
	}
}

// serverError decodes an ERR packet as the driver does.
func serverError(p []byte) error {
	if len(p) < 3 {
		return mysql.ErrMalformPkt
	}
	me := &mysql.MySQLError{Number: binary.LittleEndian.Uint16(p[1:3])}
	pos := 3
	if len(p) > pos && p[pos] == '#' {
		if len(p) < 9 {
			return mysql.ErrMalformPkt
		}
		copy(me.SQLState[:], p[4:9])
		pos = 9
	}
	me.Message = string(p[pos:])
	return me
}

// endStatus is the server status of an OK packet (header 0x00 or, ending a
// result set under CLIENT_DEPRECATE_EOF, 0xfe) or of an EOF packet.
func endStatus(p []byte, eof bool) (status uint16, affected uint64, ok bool) {
	if eof {
		if len(p) < 5 {
			return 0, 0, false
		}
		return binary.LittleEndian.Uint16(p[3:]), 0, true
	}
	a, _, n := lenencInt(p[1:])
	_, _, m := lenencInt(p[1+n:])
	if n == 0 || m == 0 || len(p) < 1+n+m+2 {
		return 0, 0, false
	}
	return binary.LittleEndian.Uint16(p[1+n+m:]), a, true
}

// leanExec executes s with args on the lean path and reads the whole reply,
// keeping what mode says of the first result set in l. errNoLean: the
// driver's path must take it (nothing was sent).
func (s *Stmt) leanExec(args []driver.NamedValue, mode leanMode) error {
	t := s.sock
	if t.dead {
		return mysql.ErrInvalidConn
	}
	if t.r != t.w || len(t.greeting) > 0 {
		return errNoLean
	}
	l := t.leanIO()
	if !l.encode(s.lean, &s.bound, args) {
		return errNoLean
	}
	if _, err := t.rawWrite(l.wbuf); err != nil {
		t.noteFailure("write", err)
		return s.leanFail(mysql.ErrInvalidConn)
	}
	l.seq = 1
	l.r, l.w = 0, 0
	l.found, l.count, l.valueErr, l.sawSet = false, 0, nil, false
	err := s.leanReply(l, mode)
	if err == nil && l.r != l.w {
		err = mysql.ErrPktSync // more than the reply: the connection is out of step
	}
	if err != nil && !isServerError(err) {
		return s.leanFail(err)
	}
	if mode == leanInts && !l.sawSet && err == nil {
		err = errIntsNoColumns
	}
	if l.valueErr != nil {
		err, l.valueErr = l.valueErr, nil
	}
	if err != nil {
		s.bound.forget()
	}
	return err
}

// isServerError reports an error the server sent, after which the
// connection is in step. (Its own function: errors.As moves the target to
// the heap, an allocation per execute where it is declared.)
func isServerError(err error) bool {
	var me *mysql.MySQLError
	return errors.As(err, &me)
}

// leanFail ends the connection after a failure, as the driver closes its
// connection: later statements fail without writing.
func (s *Stmt) leanFail(err error) error {
	s.bound.forget()
	return s.sock.leanLost(err)
}

// leanLost closes the socket after a lean path lost the connection (its
// later reads and writes, the driver's too, fail without writing) and
// returns err.
func (t *socket) leanLost(err error) error {
	t.dead = true
	_ = t.Close()
	return err
}

// nextResult reads a reply up to its next result set, of an execute or of
// a text statement: OK packets announcing more results are passed over
// (each one's status and affected rows kept in l). It returns the result
// set's column count packet p, with the count (ncols) and its width (w,
// after which MariaDB's metadata cache puts a byte); ncols 0: the reply
// ended with an OK. An ERR is the server's error. A result set's affected
// rows are 0, as the driver counts them. A LOCAL INFILE request is
// malformed here: neither lean path sends a statement that may ask for a
// file.
func (l *leanIO) nextResult(t *socket) (p []byte, ncols, w int, err error) {
	for {
		p, err := l.packet(t)
		if err != nil {
			return nil, 0, 0, err
		}
		switch p[0] {
		case iOK:
			st, a, ok := endStatus(p, false)
			if !ok {
				return nil, 0, 0, mysql.ErrMalformPkt
			}
			l.status, l.affected = st, int64(a)
			if st&statusMoreResultsExists != 0 {
				continue
			}
			return p, 0, 0, nil
		case iERR:
			return nil, 0, 0, serverError(p)
		case iLocalInFile:
			return nil, 0, 0, mysql.ErrMalformPkt
		}
		l.affected = 0
		n, _, w := lenencInt(p)
		if w == 0 || n == 0 || n > 1<<16 {
			return nil, 0, 0, mysql.ErrMalformPkt
		}
		return p, int(n), w, nil
	}
}

// leanReply reads an execute's reply: results until one without
// SERVER_MORE_RESULTS_EXISTS, or an error.
func (s *Stmt) leanReply(l *leanIO, mode leanMode) error {
	t := s.sock
	first := true // the first result set (with columns) not yet read
	for {
		p, ncols, w, err := l.nextResult(t)
		if err != nil || ncols == 0 {
			return err
		}
		follows := true
		if t.cacheMetadata {
			if len(p) <= w {
				return mysql.ErrMalformPkt
			}
			follows = p[w] == 1
		}
		cols := s.lean.cols
		if follows {
			l.cols = l.cols[:0]
			for range ncols {
				d, err := l.packet(t)
				if err != nil {
					return err
				}
				c, ok := parseColumn(d)
				if !ok {
					return mysql.ErrMalformPkt
				}
				l.cols = append(l.cols, c)
			}
			cols = l.cols
			if first {
				s.lean.cols = append(s.lean.cols[:0], l.cols...)
				cols = s.lean.cols
			}
		}
		if !t.offersDeprecateEOF {
			if _, err := l.packet(t); err != nil {
				return err
			}
		}
		if len(cols) != ncols {
			return mysql.ErrMalformPkt
		}
		keep := leanDiscard
		if first {
			keep = mode
			l.sawSet = true
			if mode == leanFirst {
				l.row.size(ncols)
			}
		}
		first = false
		if err := s.leanRows(l, cols, keep); err != nil {
			return err
		}
		if l.status&statusMoreResultsExists == 0 {
			return nil
		}
	}
}

// leanRows reads a result set's rows up to its end, keeping what mode
// says.
func (s *Stmt) leanRows(l *leanIO, cols []column, mode leanMode) error {
	t := s.sock
	for {
		p, err := l.packet(t)
		if err != nil {
			return err
		}
		switch p[0] {
		case iEOF:
			st, _, ok := endStatus(p, !t.offersDeprecateEOF)
			if !ok {
				return mysql.ErrMalformPkt
			}
			l.status = st
			return nil
		case iERR:
			return serverError(p)
		case iOK:
		default:
			return mysql.ErrMalformPkt
		}
		switch mode {
		case leanCount:
			l.count++
		case leanFirst:
			if !l.found {
				if err := decodeRow(p, cols, l.row); err != nil {
					l.valueErr, mode = err, leanDiscard
					continue
				}
				l.found = true
			}
		case leanInts:
			v, err := firstInt(p, cols)
			if err != nil {
				l.valueErr, mode = err, leanDiscard
				continue
			}
			l.ints = append(l.ints, v)
		}
	}
}

// nullBit reports whether column i of binary row p is NULL (the bitmap
// after the header byte, offset by 2 bits).
func nullBit(p []byte, i int) bool { return p[1+(i+2)>>3]>>((i+2)&7)&1 == 1 }

// decodeRow copies binary row p into row's buffers, each value as the
// driver's value of it reads as text (Stmt.QueryRow on the driver's path).
func decodeRow(p []byte, cols []column, row *Row) error {
	row.size(len(cols))
	pos := 1 + (len(cols)+7+2)>>3
	if len(p) < pos {
		return mysql.ErrMalformPkt
	}
	for i, c := range cols {
		if nullBit(p, i) || c.typ == typeNULL {
			row.Values[i] = nil
			continue
		}
		b, null, n, err := appendBinary(row.bufs[i][:0], c, p[pos:])
		if err != nil {
			return err
		}
		pos += n
		if null {
			row.Values[i] = nil
			continue
		}
		if b == nil {
			b = make([]byte, 0, 8) // an empty value stays apart from NULL
		}
		row.bufs[i] = b
		row.Values[i] = b
	}
	return nil
}

// firstInt is the first column of binary row p as QueryInts reads it.
func firstInt(p []byte, cols []column) (int64, error) {
	pos := 1 + (len(cols)+7+2)>>3
	if len(cols) == 0 || len(p) < pos {
		return 0, mysql.ErrMalformPkt
	}
	if nullBit(p, 0) || cols[0].typ == typeNULL {
		return 0, errNullInt
	}
	c, d := cols[0], p[pos:]
	unsigned := c.flags&flagUnsigned != 0
	switch c.typ {
	case typeTiny, typeShort, typeYear, typeInt24, typeLong:
		v, _, ok := fixedInt(c, d)
		if !ok {
			return 0, mysql.ErrMalformPkt
		}
		return v, nil
	case typeLongLong:
		if len(d) < 8 {
			return 0, mysql.ErrMalformPkt
		}
		u := binary.LittleEndian.Uint64(d)
		if !unsigned || u <= math.MaxInt64 {
			return int64(u), nil
		}
		return valueInt(strconv.AppendUint(nil, u, 10))
	case typeFloat:
		if len(d) < 4 {
			return 0, mysql.ErrMalformPkt
		}
		return valueInt(math.Float32frombits(binary.LittleEndian.Uint32(d)))
	case typeDouble:
		if len(d) < 8 {
			return 0, mysql.ErrMalformPkt
		}
		return valueInt(math.Float64frombits(binary.LittleEndian.Uint64(d)))
	}
	var scratch [32]byte
	b, null, _, err := appendBinary(scratch[:0], c, d)
	if err != nil {
		return 0, err
	}
	if null {
		return 0, errNullInt
	}
	if b == nil {
		b = scratch[:0]
	}
	return valueInt(b)
}

// fixedInt reads an integer column of at most 4 bytes: its value, width.
func fixedInt(c column, d []byte) (v int64, n int, ok bool) {
	unsigned := c.flags&flagUnsigned != 0
	switch c.typ {
	case typeTiny:
		if len(d) < 1 {
			return 0, 0, false
		}
		if unsigned {
			return int64(d[0]), 1, true
		}
		return int64(int8(d[0])), 1, true
	case typeShort, typeYear:
		if len(d) < 2 {
			return 0, 0, false
		}
		u := binary.LittleEndian.Uint16(d)
		if unsigned {
			return int64(u), 2, true
		}
		return int64(int16(u)), 2, true
	default: // INT24, LONG
		if len(d) < 4 {
			return 0, 0, false
		}
		u := binary.LittleEndian.Uint32(d)
		if unsigned {
			return int64(u), 4, true
		}
		return int64(int32(u)), 4, true
	}
}

// appendBinary appends the text of the binary value at the start of d, a
// value of column c that is not NULL in the bitmap: what the driver's
// value of it reads as through appendValue. It returns the bytes, whether
// the value is a NULL all the same (a length-encoded NULL) and the bytes of
// d it took.
func appendBinary(b []byte, c column, d []byte) ([]byte, bool, int, error) {
	switch c.typ {
	case typeTiny, typeShort, typeYear, typeInt24, typeLong:
		v, n, ok := fixedInt(c, d)
		if !ok {
			return b, false, 0, mysql.ErrMalformPkt
		}
		return strconv.AppendInt(b, v, 10), false, n, nil
	case typeLongLong:
		if len(d) < 8 {
			return b, false, 0, mysql.ErrMalformPkt
		}
		u := binary.LittleEndian.Uint64(d)
		if c.flags&flagUnsigned != 0 {
			return strconv.AppendUint(b, u, 10), false, 8, nil
		}
		return strconv.AppendInt(b, int64(u), 10), false, 8, nil
	case typeFloat:
		if len(d) < 4 {
			return b, false, 0, mysql.ErrMalformPkt
		}
		return strconv.AppendFloat(b, float64(math.Float32frombits(binary.LittleEndian.Uint32(d))), 'g', -1, 32), false, 4, nil
	case typeDouble:
		if len(d) < 8 {
			return b, false, 0, mysql.ErrMalformPkt
		}
		return strconv.AppendFloat(b, math.Float64frombits(binary.LittleEndian.Uint64(d)), 'g', -1, 64), false, 8, nil
	case typeDecimal, typeNewDecimal, typeVarChar, typeBit, typeEnum, typeSet, typeTinyBLOB,
		typeMediumBLOB, typeLongBLOB, typeBLOB, typeVarString, typeString, typeGeometry, typeJSON, typeVector:
		n, null, w := lenencInt(d)
		if w == 0 || uint64(len(d)-w) < n {
			return b, false, 0, mysql.ErrMalformPkt
		}
		if null {
			return b, true, w, nil
		}
		return append(b, d[w:w+int(n)]...), false, w + int(n), nil
	case typeDate, typeNewDate, typeTime, typeTimestamp, typeDateTime:
		n, null, w := lenencInt(d)
		if w == 0 || uint64(len(d)-w) < n {
			return b, false, 0, mysql.ErrMalformPkt
		}
		if null {
			return b, true, w, nil
		}
		src := d[w : w+int(n)]
		var err error
		if c.typ == typeTime {
			b, err = appendTime(b, src, c.decimals)
		} else {
			b, err = appendDateTime(b, src, c.typ == typeDate || c.typ == typeNewDate, c.decimals)
		}
		return b, false, w + int(n), err
	}
	return b, false, 0, errors.New("unknown field type " + strconv.Itoa(int(c.typ)))
}

// fraction is the number of fractional digits a temporal column shows:
// its decimals, none for 0 and 0x1f (not given).
func fraction(decimals byte) (int, error) {
	switch {
	case decimals == 0 || decimals == 0x1f:
		return 0, nil
	case decimals <= 6:
		return int(decimals), nil
	}
	return 0, errors.New("protocol error, illegal decimals value " + strconv.Itoa(int(decimals)))
}

func append2(b []byte, v int) []byte { return append(b, byte('0'+v/10%10), byte('0'+v%10)) }

// appendMicros appends digits fractional digits of the microseconds in
// src (4 bytes, or none: zeros).
func appendMicros(b, src []byte, digits int) []byte {
	if digits == 0 {
		return b
	}
	us := 0
	if len(src) >= 4 {
		us = int(binary.LittleEndian.Uint32(src))
	}
	var f [6]byte
	for i := 5; i >= 0; i-- {
		f[i] = byte('0' + us%10)
		us /= 10
	}
	return append(append(b, '.'), f[:digits]...)
}

// appendDateTime appends a binary DATE, DATETIME or TIMESTAMP (0, 4, 7 or
// 11 bytes) as "YYYY-MM-DD[ hh:mm:ss[.f]]".
func appendDateTime(b, src []byte, date bool, decimals byte) ([]byte, error) {
	digits := 0
	if !date {
		var err error
		if digits, err = fraction(decimals); err != nil {
			return b, err
		}
	}
	switch len(src) {
	case 0, 4, 7, 11:
	default:
		return b, errors.New("illegal DATETIME packet length " + strconv.Itoa(len(src)))
	}
	var y, mo, d, h, mi, s int
	if len(src) >= 4 {
		y, mo, d = int(binary.LittleEndian.Uint16(src)), int(src[2]), int(src[3])
	}
	if len(src) >= 7 {
		h, mi, s = int(src[4]), int(src[5]), int(src[6])
	}
	b = append2(append2(b, y/100), y%100)
	b = append2(append(b, '-'), mo)
	b = append2(append(b, '-'), d)
	if date {
		return b, nil
	}
	b = append2(append(b, ' '), h)
	b = append2(append(b, ':'), mi)
	b = append2(append(b, ':'), s)
	var us []byte
	if len(src) == 11 {
		us = src[7:]
	}
	return appendMicros(b, us, digits), nil
}

// appendTime appends a binary TIME (0, 8 or 12 bytes) as
// "[-]hh:mm:ss[.f]", hours past 99 in full.
func appendTime(b, src []byte, decimals byte) ([]byte, error) {
	digits, err := fraction(decimals)
	if err != nil {
		return b, err
	}
	switch len(src) {
	case 0, 8, 12:
	default:
		return b, errors.New("invalid TIME packet length " + strconv.Itoa(len(src)))
	}
	var h int64
	var mi, s int
	if len(src) >= 8 {
		if src[0] == 1 {
			b = append(b, '-')
		}
		h = int64(binary.LittleEndian.Uint32(src[1:]))*24 + int64(src[5])
		mi, s = int(src[6]), int(src[7])
	}
	if h >= 100 {
		b = strconv.AppendInt(b, h, 10)
	} else {
		b = append2(b, int(h))
	}
	b = append2(append(b, ':'), mi)
	b = append2(append(b, ':'), s)
	var us []byte
	if len(src) == 12 {
		us = src[8:]
	}
	return appendMicros(b, us, digits), nil
}
