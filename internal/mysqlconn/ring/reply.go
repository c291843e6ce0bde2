package ring

import (
	"encoding/binary"
	"fmt"

	"github.com/go-sql-driver/mysql"
)

// Protocol constants the loop needs.
const (
	statusMoreResults = 0x0008 // SERVER_MORE_RESULTS_EXISTS
	maxPayload        = 0xffffff
	comQuery          = 0x03
)

// AppendQuery appends the COM_QUERY packet of q (sequence 0) to dst. A
// statement of 16 MB or more needs a split packet, which the loop does not
// send: Start refuses it.
func AppendQuery(dst []byte, q string) []byte {
	n := 1 + len(q)
	dst = append(dst, byte(n), byte(n>>8), byte(n>>16), 0, comQuery)
	return append(dst, q...)
}

// ProtocolError is a reply the parser cannot follow (malformed, 16 MB or
// more, a LOCAL INFILE request): the connection's stream
// is out of step and the connection is unusable.
type ProtocolError struct{ Msg string }

func (e *ProtocolError) Error() string { return e.Msg }

func protoErr(format string, args ...any) error {
	return &ProtocolError{Msg: fmt.Sprintf(format, args...)}
}

// Parser follows one statement's text-protocol reply across partial reads
// (a CALL's several results one after the other, as the driver's Exec
// reads them, the first ERR ending it): an OK packet, an ERR packet, or a
// result set (column count, column
// definitions, an EOF unless CLIENT_DEPRECATE_EOF was agreed, rows, then
// an EOF or, with CLIENT_DEPRECATE_EOF, an OK packet with the 0xFE header).
type Parser struct {
	// DeprecateEOF: the connection agreed CLIENT_DEPRECATE_EOF.
	DeprecateEOF bool

	state    uint8
	colsLeft uint64
	rows     uint64
	affected uint64
}

const (
	stFirst = iota
	stColumns
	stColumnsEOF
	stRows
)

// Reset readies the parser for the next statement's reply.
func (p *Parser) Reset() { p.state, p.colsLeft, p.rows, p.affected = stFirst, 0, 0, 0 }

// Rows is the number of rows of a finished reply, summed over its results
// (a CALL's result sets; 0 after an OK).
func (p *Parser) Rows() uint64 { return p.rows }

// Affected is a finished reply's affected rows, summed over its OK
// packets (0 after a result set).
func (p *Parser) Affected() uint64 { return p.affected }

// Feed consumes the complete packets at the start of b. It returns how
// many bytes it consumed and whether the reply ended. Bytes after the
// reply's last packet are not consumed. An ERR packet is a
// *mysql.MySQLError (the connection stays usable); anything the parser
// cannot follow is a *ProtocolError. The parser must be Reset after an
// error or a finished reply.
func (p *Parser) Feed(b []byte) (n int, done bool, err error) {
	for len(b)-n >= 4 {
		size := int(b[n]) | int(b[n+1])<<8 | int(b[n+2])<<16
		if size == maxPayload {
			return n, false, protoErr("a packet of 16 MB or more (not supported)")
		}
		if len(b)-n-4 < size {
			return n, false, nil
		}
		pkt := b[n+4 : n+4+size]
		n += 4 + size
		if size == 0 {
			return n, false, protoErr("empty packet")
		}
		switch p.state {
		case stFirst:
			switch pkt[0] {
			case 0x00:
				affected, more, err := checkOK(pkt)
				p.affected += affected
				if more && err == nil {
					continue // the next result's first packet
				}
				return n, err == nil, err
			case 0xff:
				return n, false, parseErr(pkt)
			case 0xfb:
				return n, false, protoErr("LOCAL INFILE request (not supported)")
			}
			// With MariaDB's MARIADB_CLIENT_CACHE_METADATA, which the
			// driver asks for, one more byte follows the count: 1 when
			// the column definitions follow, 0 when the server left them
			// out (then only the EOF after them, if any, is sent).
			cols, w := lenenc(pkt)
			if w == 0 || len(pkt) > w+1 || cols == 0 {
				return n, false, protoErr("malformed column count packet % x", pkt)
			}
			p.colsLeft, p.state = cols, stColumns
			if len(pkt) == w+1 && pkt[w] == 0 {
				p.colsLeft, p.state = 0, stRows
				if !p.DeprecateEOF {
					p.state = stColumnsEOF
				}
			}
		case stColumns:
			if pkt[0] == 0xff {
				return n, false, parseErr(pkt)
			}
			if p.colsLeft--; p.colsLeft == 0 {
				p.state = stRows
				if !p.DeprecateEOF {
					p.state = stColumnsEOF
				}
			}
		case stColumnsEOF:
			if pkt[0] != 0xfe || size >= 9 {
				return n, false, protoErr("expected an EOF packet after the column definitions, got % x", pkt)
			}
			p.state = stRows
		case stRows:
			switch {
			case pkt[0] == 0xff:
				return n, false, parseErr(pkt)
			case pkt[0] == 0xfe && !p.DeprecateEOF && size < 9:
				if size < 5 {
					return n, false, protoErr("short EOF packet % x", pkt)
				}
				if binary.LittleEndian.Uint16(pkt[3:])&statusMoreResults != 0 {
					p.state = stFirst
					continue
				}
				return n, true, nil
			case pkt[0] == 0xfe && p.DeprecateEOF:
				// A row whose first value has an 8-byte length would be
				// 16 MB or more, which is refused above.
				_, more, err := checkOK(pkt)
				if more && err == nil {
					p.state = stFirst
					continue
				}
				return n, err == nil, err
			}
			p.rows++
		}
	}
	return n, false, nil
}

// checkOK checks an OK packet (header 0x00 or 0xFE) and returns its
// affected rows and whether it announces more results.
func checkOK(pkt []byte) (affected uint64, more bool, err error) {
	i := 1
	for k := range 2 { // affected rows, last insert id
		v, w := lenenc(pkt[i:])
		if w == 0 {
			return 0, false, protoErr("malformed OK packet % x", pkt)
		}
		if k == 0 {
			affected = v
		}
		i += w
	}
	if len(pkt) < i+2 {
		return 0, false, protoErr("malformed OK packet % x", pkt)
	}
	return affected, binary.LittleEndian.Uint16(pkt[i:])&statusMoreResults != 0, nil
}

// parseErr is an ERR packet's error (protocol 4.1: code, '#', SQL state),
// as the driver reports it, so that the engine classifies both alike.
func parseErr(pkt []byte) error {
	if len(pkt) < 3 {
		return protoErr("malformed ERR packet % x", pkt)
	}
	e := &mysql.MySQLError{Number: binary.LittleEndian.Uint16(pkt[1:])}
	msg := pkt[3:]
	if len(msg) >= 6 && msg[0] == '#' {
		copy(e.SQLState[:], msg[1:6])
		msg = msg[6:]
	}
	e.Message = string(msg)
	return e
}

// lenenc decodes a length-encoded integer; w is its width (0: malformed).
func lenenc(b []byte) (v uint64, w int) {
	if len(b) == 0 {
		return 0, 0
	}
	switch c := b[0]; {
	case c < 0xfb:
		return uint64(c), 1
	case c == 0xfc && len(b) >= 3:
		return uint64(binary.LittleEndian.Uint16(b[1:])), 3
	case c == 0xfd && len(b) >= 4:
		return uint64(b[1]) | uint64(b[2])<<8 | uint64(b[3])<<16, 4
	case c == 0xfe && len(b) >= 9:
		return binary.LittleEndian.Uint64(b[1:]), 9
	}
	return 0, 0
}
