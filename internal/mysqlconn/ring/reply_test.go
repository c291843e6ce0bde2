package ring

import (
	"bytes"
	"errors"
	"strings"
	"testing"

	"github.com/go-sql-driver/mysql"
)

// pkt frames a payload as one packet.
func pkt(seq byte, payload ...byte) []byte {
	n := len(payload)
	return append([]byte{byte(n), byte(n >> 8), byte(n >> 16), seq}, payload...)
}

func cat(ps ...[]byte) []byte { return bytes.Join(ps, nil) }

var (
	okPkt       = pkt(1, 0x00, 0x00, 0x00, 0x02, 0x00, 0x00, 0x00) // OK, autocommit
	okAffected3 = pkt(1, 0x00, 0x03, 0x00, 0x02, 0x00, 0x00, 0x00) // OK, 3 rows affected
	okMore      = pkt(1, 0x00, 0x00, 0x00, 0x0a, 0x00, 0x00, 0x00) // OK announcing more results
	errPkt      = pkt(1, append([]byte{0xff, 0x7a, 0x04, '#', '4', '2', 'S', '0', '2'}, "Table 'x.t1' doesn't exist"...)...)
	colCount2   = pkt(1, 0x02)
	colCount2MD = pkt(1, 0x02, 0x01)                     // MariaDB's cached metadata: the definitions follow
	colCount2NM = pkt(1, 0x02, 0x00)                     // MariaDB's cached metadata: no definitions
	colDef      = pkt(2, append([]byte{3}, "def"...)...) // contents are skipped
	eofPkt      = pkt(5, 0xfe, 0x00, 0x00, 0x02, 0x00)
	eofMore     = pkt(5, 0xfe, 0x00, 0x00, 0x0a, 0x00) // SERVER_MORE_RESULTS_EXISTS
	row         = pkt(6, append([]byte{0x01, '7', 0x03}, "abc"...)...)
	rowNull     = pkt(7, 0xfb, 0x01, 'x') // first value NULL
	okEndOfRows = pkt(8, 0xfe, 0x00, 0x00, 0x02, 0x00, 0x00, 0x00)
	okEndMore   = pkt(8, 0xfe, 0x00, 0x00, 0x0a, 0x00, 0x00, 0x00)
	okEndInfo   = pkt(8, append([]byte{0xfe, 0x00, 0x00, 0x02, 0x00, 0x00, 0x00}, "info text"...)...) // 9 bytes or more
	oneRow      = cat(colCount2, colDef, colDef, row, okEndOfRows)
	// A binary protocol row (an execute's): header 0x00, the NULL bitmap
	// (offset 2), then the values: a LONGLONG and a string.
	binRow     = pkt(6, append([]byte{0x00, 0x00, 7, 0, 0, 0, 0, 0, 0, 0, 0x03}, "abc"...)...)
	binRowNull = pkt(7, 0x00, 0x04, 7, 0, 0, 0, 0, 0, 0, 0) // second value NULL
)

func TestParser(t *testing.T) {
	tests := []struct {
		name         string
		deprecateEOF bool
		reply        []byte
		rows         uint64
		affected     uint64
		err          string // "" when the reply is fine
		protocol     bool   // the error is a *ProtocolError (else a *mysql.MySQLError)
	}{
		{name: "OK", reply: okPkt},
		{name: "OK with deprecated EOF", deprecateEOF: true, reply: okPkt},
		{name: "OK with affected rows", reply: okAffected3, affected: 3},
		{name: "ERR", reply: errPkt, err: "Error 1146 (42S02): Table 'x.t1' doesn't exist"},
		{name: "ERR with deprecated EOF", deprecateEOF: true, reply: errPkt, err: "Error 1146"},
		{name: "result set with EOFs, one row", reply: cat(colCount2, colDef, colDef, eofPkt, row, eofPkt), rows: 1},
		{name: "result set with EOFs, no row", reply: cat(colCount2, colDef, colDef, eofPkt, eofPkt)},
		{name: "result set with EOFs, two rows", reply: cat(colCount2, colDef, colDef, eofPkt, row, rowNull, eofPkt), rows: 2},
		{name: "result set without EOF, one row", deprecateEOF: true, reply: oneRow, rows: 1},
		{name: "metadata flag: definitions follow", deprecateEOF: true, reply: cat(colCount2MD, colDef, colDef, row, okEndOfRows), rows: 1},
		{name: "metadata flag: definitions follow, EOFs", reply: cat(colCount2MD, colDef, colDef, eofPkt, row, row, eofPkt), rows: 2},
		{name: "metadata flag: no definitions", deprecateEOF: true, reply: cat(colCount2NM, row, okEndOfRows), rows: 1},
		{name: "metadata flag: no definitions, EOFs", reply: cat(colCount2NM, eofPkt, row, eofPkt), rows: 1},
		{name: "column count with two bytes more", reply: cat(pkt(1, 0x02, 0x01, 0x00)), err: "malformed column count", protocol: true},
		{name: "result set without EOF, no row", deprecateEOF: true, reply: cat(colCount2, colDef, colDef, okEndOfRows)},
		{name: "result set without EOF, OK with info", deprecateEOF: true, reply: cat(colCount2, colDef, colDef, row, okEndInfo), rows: 1},
		{name: "result set without EOF, three rows", deprecateEOF: true, reply: cat(colCount2, colDef, colDef, row, rowNull, row, okEndOfRows), rows: 3},
		{name: "ERR after rows", reply: cat(colCount2, colDef, colDef, eofPkt, row, errPkt), err: "Error 1146"},
		{name: "ERR after rows without EOF", deprecateEOF: true, reply: cat(colCount2, colDef, colDef, row, errPkt), err: "Error 1146"},
		{name: "more results after EOF", reply: cat(colCount2, colDef, colDef, eofPkt, row, eofMore, colCount2, colDef, colDef, eofPkt, row, row, eofPkt), rows: 3},
		{name: "more results after OK", deprecateEOF: true, reply: cat(colCount2, colDef, colDef, row, okEndMore, oneRow), rows: 2},
		{name: "more results after a plain OK", reply: cat(okMore, okAffected3), affected: 3},
		{name: "a CALL: a result set, then its OK", reply: cat(colCount2, colDef, colDef, eofPkt, row, eofMore, okPkt), rows: 1},
		{name: "ERR in the second result", reply: cat(colCount2, colDef, colDef, eofPkt, row, eofMore, errPkt), err: "Error 1146"},
		{name: "missing EOF after columns", reply: cat(colCount2, colDef, colDef, row, eofPkt), err: "expected an EOF packet", protocol: true},
		{name: "binary rows with EOFs", reply: cat(colCount2, colDef, colDef, eofPkt, binRow, binRowNull, eofPkt), rows: 2},
		{name: "binary rows without EOF", deprecateEOF: true, reply: cat(colCount2, colDef, colDef, binRow, okEndOfRows), rows: 1},
		{name: "binary rows, metadata left out", deprecateEOF: true, reply: cat(colCount2NM, binRow, binRowNull, binRow, okEndOfRows), rows: 3},
		{name: "binary rows, metadata left out, EOFs", reply: cat(colCount2NM, eofPkt, binRow, eofPkt), rows: 1},
		{name: "LOCAL INFILE", reply: pkt(1, 0xfb, 'f'), err: "LOCAL INFILE", protocol: true},
		{name: "zero columns", reply: pkt(1, 0xfc, 0x00, 0x00), err: "malformed column count", protocol: true},
		{name: "16 MB packet", reply: []byte{0xff, 0xff, 0xff, 1, 0}, err: "16 MB", protocol: true},
		{name: "empty packet", reply: pkt(1), err: "empty packet", protocol: true},
	}
	for _, tt := range tests {
		// Whole, and fed a few bytes more at a time as partial receives bring it.
		for _, step := range []int{len(tt.reply), 1, 3} {
			p := Parser{DeprecateEOF: tt.deprecateEOF}
			var (
				buf  []byte
				done bool
				err  error
			)
			for i := 0; i < len(tt.reply) && !done && err == nil; i += step {
				buf = append(buf, tt.reply[i:min(i+step, len(tt.reply))]...)
				var n int
				n, done, err = p.Feed(buf)
				buf = buf[n:]
			}
			if tt.err != "" {
				var pe *ProtocolError
				var me *mysql.MySQLError
				switch {
				case err == nil || !strings.Contains(err.Error(), tt.err):
					t.Errorf("%s (step %d): error %v, want one containing %q", tt.name, step, err, tt.err)
				case tt.protocol && !errors.As(err, &pe), !tt.protocol && !errors.As(err, &me):
					t.Errorf("%s (step %d): error %T, want protocol error %v", tt.name, step, err, tt.protocol)
				case done:
					t.Errorf("%s (step %d): done with an error", tt.name, step)
				}
				continue
			}
			if err != nil || !done || p.Rows() != tt.rows || p.Affected() != tt.affected || len(buf) != 0 {
				t.Errorf("%s (step %d): done %v rows %d affected %d err %v, %d bytes left; want done, %d rows, %d affected, no bytes left",
					tt.name, step, done, p.Rows(), p.Affected(), err, len(buf), tt.rows, tt.affected)
			}
		}
	}
}

// The parser stops at the reply's end: the next reply's bytes are left.
func TestParserStopsAtReplyEnd(t *testing.T) {
	p := Parser{DeprecateEOF: true}
	n, done, err := p.Feed(cat(oneRow, okPkt))
	if err != nil || !done || n != len(oneRow) {
		t.Fatalf("consumed %d of %d, done %v, err %v", n, len(oneRow), done, err)
	}
	p.Reset()
	if _, done, err := p.Feed(okPkt); err != nil || !done || p.Rows() != 0 {
		t.Fatalf("after Reset: done %v rows %d err %v", done, p.Rows(), err)
	}
}

func TestServerErrorIsTheDriversType(t *testing.T) {
	var p Parser
	_, _, err := p.Feed(errPkt)
	var me *mysql.MySQLError
	if !errors.As(err, &me) || me.Number != 1146 || string(me.SQLState[:]) != "42S02" || me.Message != "Table 'x.t1' doesn't exist" {
		t.Fatalf("error %#v, want MySQLError 1146 42S02", err)
	}
}

func TestAppendQuery(t *testing.T) {
	got := AppendQuery([]byte("x"), "SELECT 1")
	want := append([]byte{'x', 9, 0, 0, 0, 0x03}, "SELECT 1"...)
	if !bytes.Equal(got, want) {
		t.Fatalf("AppendQuery = % x, want % x", got, want)
	}
}
