package mysqlconn

import (
	"github.com/go-sql-driver/mysql"
)

// The lean text path: Conn.Exec's and Conn.ExecResult's COM_QUERY is
// written here into the connection's lean buffer and its reply read and
// discarded here, as the lean execute path does for prepared statements
// (lean.go), without the driver's exec: its result bookkeeping (an
// allocation per statement), its packet reader taking every read through
// socket.Read. The driver still sat on the hot path of every text
// statement outside the ring's own statement loop: mysqlslap's queries at
// 1 to 6 clients (a thread per client) and from 257 (the netpoller),
// TPC-C's COMMIT and ROLLBACK, sysbench's OLTP without prepared statements
// (--db-ps-mode=disable), a Lua script's con:query of a statement that
// returns no rows, the coroutine mode's text statements. Measured against
// the driver's path (BENCHMARKS.md, "Text statements without the
// driver"): mysqlslap's key load at 1000 clients spent up to a tenth less
// client CPU (0-10 % in seven server-set cells, 3 % in eight pairs of one
// binary with and without this path), at 512 as much, at 1 and 4 clients
// as much to 11 % less; TPC-C at 4 connections was level. A statement this
// path leaves to the driver: one that may read a local file
// (mayReadLocalFile), one longer than the driver's max_allowed_packet
// setting or than one packet, one sent while the socket still holds unread
// bytes.

// comQuery is COM_QUERY's command byte.
const comQuery = 0x03

// leanTextKeep is the largest write buffer a connection keeps after a text
// statement: a larger statement's buffer (a prefill's multi-row INSERT) is
// dropped after its write, so that a connection does not hold its largest
// statement's size for the rest of the run.
const leanTextKeep = 64 << 10

// mayReadLocalFile reports whether stmt may be LOAD DATA (or LOAD XML)
// LOCAL INFILE, whose reply is the server's request for the file: only the
// driver serves it (LocalReader's registered readers). Every such
// statement contains the word INFILE (a keyword cannot be split by a
// comment, and LOAD DATA cannot be prepared or run by a stored program);
// other statements that happen to contain it merely take the driver's path.
func mayReadLocalFile(stmt string) bool {
	const word = "infile"
	for i := 0; i+len(word) <= len(stmt); i++ {
		if stmt[i]|0x20 != 'i' { // only 'I' and 'i' give 'i'
			continue
		}
		j := 1
		for ; j < len(word) && stmt[i+j]|0x20 == word[j]; j++ {
		}
		if j == len(word) {
			return true
		}
	}
	return false
}

// leanText sends stmt as a COM_QUERY and reads its whole reply, keeping
// nothing of it: what the driver's Exec does (the first error ends it; an
// ERR is a *mysql.MySQLError and the connection stays in step). errNoLean:
// the driver's path must take it (nothing was sent).
func (c *Conn) leanText(stmt string) error {
	t := c.sock
	if t.dead {
		return mysql.ErrInvalidConn
	}
	if t.r != t.w || len(t.greeting) > 0 || 1+len(stmt) >= maxPayload ||
		(t.maxPacket > 0 && 1+len(stmt) > t.maxPacket) || mayReadLocalFile(stmt) {
		return errNoLean
	}
	l := t.leanIO()
	n := 1 + len(stmt)
	b := append(l.wbuf[:0], byte(n), byte(n>>8), byte(n>>16), 0, comQuery)
	b = append(b, stmt...)
	_, err := t.rawWrite(b)
	if cap(b) > leanTextKeep {
		b = nil
	}
	l.wbuf = b
	if err != nil {
		t.noteFailure("write", err)
		return t.leanLost(mysql.ErrInvalidConn)
	}
	l.seq = 1
	l.r, l.w = 0, 0
	err = l.discardText(t)
	if err == nil && l.r != l.w {
		err = mysql.ErrPktSync // more than the reply: the connection is out of step
	}
	if err != nil && !isServerError(err) {
		return t.leanLost(err)
	}
	return err
}

// discardText reads a text statement's reply up to its end: results until
// one without SERVER_MORE_RESULTS_EXISTS (a CALL's or a multi-statement's
// several), or the first ERR. A result set's column definitions and rows
// are skipped unparsed. l.affected is then the last result's affected rows
// (0 for a result set), what the driver's RowsAffected gives.
func (l *leanIO) discardText(t *socket) error {
	for {
		p, ncols, w, err := l.nextResult(t)
		if err != nil || ncols == 0 {
			return err
		}
		// MariaDB's metadata cache (the driver asks for it) adds a byte
		// saying whether the column definitions follow.
		if !(t.cacheMetadata && len(p) > w && p[w] == 0) {
			for range ncols {
				if _, err := l.packet(t); err != nil {
					return err
				}
			}
		}
		if !t.offersDeprecateEOF {
			if _, err := l.packet(t); err != nil {
				return err
			}
		}
		status, err := l.skipTextRows(t)
		if err != nil {
			return err
		}
		if status&statusMoreResultsExists == 0 {
			return nil
		}
	}
}

// skipTextRows reads a text result set's rows up to its end (an EOF
// packet, or with CLIENT_DEPRECATE_EOF an OK packet with the 0xFE header)
// and returns the server status there. A row can start with 0xFE too (a
// value's 8-byte length), but is then 16 MB or more, as the driver tells
// them apart.
func (l *leanIO) skipTextRows(t *socket) (uint16, error) {
	for {
		p, err := l.packet(t)
		if err != nil {
			return 0, err
		}
		switch {
		case p[0] == iERR:
			return 0, serverError(p)
		case p[0] == iEOF && len(p) <= maxPayload:
			st, _, ok := endStatus(p, !t.offersDeprecateEOF)
			if !ok {
				return 0, mysql.ErrMalformPkt
			}
			return st, nil
		}
	}
}
