package main

import (
	"bytes"
	"errors"
	"strings"
	"testing"
)

// pkt frames a payload as one packet.
func pkt(seq byte, payload ...byte) []byte {
	n := len(payload)
	return append([]byte{byte(n), byte(n >> 8), byte(n >> 16), seq}, payload...)
}

func cat(ps ...[]byte) []byte { return bytes.Join(ps, nil) }

var (
	okPkt       = pkt(1, 0x00, 0x00, 0x00, 0x02, 0x00, 0x00, 0x00) // OK, autocommit
	errPkt      = pkt(1, append([]byte{0xff, 0x7a, 0x04, '#', '4', '2', 'S', '0', '2'}, "Table 'x.t1' doesn't exist"...)...)
	colCount2   = pkt(1, 0x02)
	colDef      = pkt(2, append([]byte{3}, "def"...)...) // contents are skipped
	eofPkt      = pkt(5, 0xfe, 0x00, 0x00, 0x02, 0x00)
	eofMore     = pkt(5, 0xfe, 0x00, 0x00, 0x0a, 0x00) // SERVER_MORE_RESULTS_EXISTS
	row         = pkt(6, append([]byte{0x01, '7', 0x03}, "abc"...)...)
	rowNull     = pkt(7, 0xfb, 0x01, 'x') // first value NULL
	okEndOfRows = pkt(8, 0xfe, 0x00, 0x00, 0x02, 0x00, 0x00, 0x00)
	okEndMore   = pkt(8, 0xfe, 0x00, 0x00, 0x0a, 0x00, 0x00, 0x00)
	okEndInfo   = pkt(8, append([]byte{0xfe, 0x00, 0x00, 0x02, 0x00, 0x00, 0x00}, "info text"...)...) // 9 bytes or more
)

func TestReplyParser(t *testing.T) {
	tests := []struct {
		name         string
		deprecateEOF bool
		reply        []byte
		rows         int
		err          string // "" when the reply is fine
	}{
		{"OK", false, okPkt, 0, ""},
		{"OK with deprecated EOF", true, okPkt, 0, ""},
		{"ERR", false, errPkt, 0, "server error 1146: Table 'x.t1' doesn't exist"},
		{"ERR with deprecated EOF", true, errPkt, 0, "server error 1146"},
		{"result set with EOFs, one row", false, cat(colCount2, colDef, colDef, eofPkt, row, eofPkt), 1, ""},
		{"result set with EOFs, no row", false, cat(colCount2, colDef, colDef, eofPkt, eofPkt), 0, ""},
		{"result set with EOFs, two rows", false, cat(colCount2, colDef, colDef, eofPkt, row, rowNull, eofPkt), 2, ""},
		{"result set without EOF, one row", true, cat(colCount2, colDef, colDef, row, okEndOfRows), 1, ""},
		{"result set without EOF, no row", true, cat(colCount2, colDef, colDef, okEndOfRows), 0, ""},
		{"result set without EOF, OK with info", true, cat(colCount2, colDef, colDef, row, okEndInfo), 1, ""},
		{"result set without EOF, three rows", true, cat(colCount2, colDef, colDef, row, rowNull, row, okEndOfRows), 3, ""},
		{"ERR after rows", false, cat(colCount2, colDef, colDef, eofPkt, row, errPkt), 0, "server error 1146"},
		{"ERR after rows without EOF", true, cat(colCount2, colDef, colDef, row, errPkt), 0, "server error 1146"},
		{"more results after EOF", false, cat(colCount2, colDef, colDef, eofPkt, row, eofMore), 0, "multi-result"},
		{"more results after OK", true, cat(colCount2, colDef, colDef, row, okEndMore), 0, "multi-result"},
		{"missing EOF after columns", false, cat(colCount2, colDef, colDef, row, eofPkt), 0, "expected an EOF packet"},
		{"LOCAL INFILE", false, pkt(1, 0xfb, 'f'), 0, "LOCAL INFILE"},
		{"zero columns", false, pkt(1, 0xfc, 0x00, 0x00), 0, "malformed column count"},
	}
	for _, tt := range tests {
		// Whole, and fed one byte more at a time as partial receives bring it.
		for _, step := range []int{len(tt.reply), 1, 3} {
			p := replyParser{deprecateEOF: tt.deprecateEOF}
			var (
				buf  []byte
				done bool
				err  error
			)
			for i := 0; i < len(tt.reply) && !done && err == nil; i += step {
				buf = append(buf, tt.reply[i:min(i+step, len(tt.reply))]...)
				var n int
				n, done, err = p.feed(buf)
				buf = buf[n:]
			}
			if tt.err != "" {
				if err == nil || !strings.Contains(err.Error(), tt.err) {
					t.Errorf("%s (step %d): error %v, want one containing %q", tt.name, step, err, tt.err)
				}
				continue
			}
			if err != nil || !done || p.rows != tt.rows || len(buf) != 0 {
				t.Errorf("%s (step %d): done %v rows %d err %v, %d bytes left; want done, %d rows, no bytes left",
					tt.name, step, done, p.rows, err, len(buf), tt.rows)
			}
		}
	}
}

// The parser stops at the reply's end: the next reply's bytes are left.
func TestReplyParserStopsAtReplyEnd(t *testing.T) {
	p := replyParser{deprecateEOF: true}
	first := cat(colCount2, colDef, colDef, row, okEndOfRows)
	n, done, err := p.feed(cat(first, okPkt))
	if err != nil || !done || n != len(first) {
		t.Fatalf("consumed %d of %d, done %v, err %v", n, len(first), done, err)
	}
	p.reset()
	if _, done, err := p.feed(okPkt); err != nil || !done || p.rows != 0 {
		t.Fatalf("after reset: done %v rows %d err %v", done, p.rows, err)
	}
}

func TestServerErrorIsTyped(t *testing.T) {
	var p replyParser
	_, _, err := p.feed(errPkt)
	var se *serverError
	if !errors.As(err, &se) || se.code != 1146 {
		t.Fatalf("error %v, want a serverError 1146", err)
	}
}

func TestQueryPacket(t *testing.T) {
	got := queryPacket("SELECT 1")
	want := append([]byte{9, 0, 0, 0, 0x03}, "SELECT 1"...)
	if !bytes.Equal(got, want) {
		t.Fatalf("queryPacket = % x, want % x", got, want)
	}
}
