package mysqlconn

import (
	"bytes"
	"database/sql/driver"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"net"
	"reflect"
	"testing"

	"github.com/go-sql-driver/mysql"
)

// pkt frames payload as a packet with sequence number seq.
func pkt(seq byte, payload ...byte) []byte {
	n := len(payload)
	return append([]byte{byte(n), byte(n >> 8), byte(n >> 16), seq}, payload...)
}

// colDef is a column definition packet's payload of type typ.
func colDef(typ byte, flags uint16, decimals byte) []byte {
	b := []byte{3, 'd', 'e', 'f', 0, 0, 0, 1, 'c', 0, 0x0c, 8, 0, 0, 1, 0, 0, typ}
	b = binary.LittleEndian.AppendUint16(b, flags)
	return append(b, decimals, 0, 0)
}

func okPayload(affected byte, status uint16) []byte {
	return binary.LittleEndian.AppendUint16([]byte{0, affected, 0}, status)
	// (warnings left out: the server sends them, the path does not read them)
}

// leanPipe is a statement on the lean path over an in-memory connection
// whose other end answers each request with the next reply, recording the
// requests, and hangs up after the last one (nil: at once).
type leanPipe struct {
	st       *Stmt
	requests chan []byte
}

func newLeanPipe(t *testing.T, ls *leanStmt, deprecateEOF, cacheMetadata bool, replies ...[]byte) *leanPipe {
	t.Helper()
	client, server := net.Pipe()
	t.Cleanup(func() { client.Close(); server.Close() })
	sock := &socket{Conn: client, plain: true, leanOK: true, offersDeprecateEOF: deprecateEOF, cacheMetadata: cacheMetadata}
	p := &leanPipe{st: &Stmt{sock: sock, lean: ls, bound: boundTypes{params: ls.params}}, requests: make(chan []byte, len(replies)+1)}
	go func() {
		defer server.Close() // after the last reply: a lost connection
		for _, r := range replies {
			var hdr [4]byte
			if _, err := io.ReadFull(server, hdr[:]); err != nil {
				return
			}
			req := make([]byte, 4+int(hdr[0])|int(hdr[1])<<8|int(hdr[2])<<16)
			copy(req, hdr[:])
			if _, err := io.ReadFull(server, req[4:]); err != nil {
				return
			}
			p.requests <- req
			if r == nil { // hang up
				server.Close()
				return
			}
			if _, err := server.Write(r); err != nil {
				return
			}
		}
	}()
	return p
}

func hexOf(b []byte) string { return hex.EncodeToString(b) }

// TestLeanExecutePackets: the execute packets the lean path writes, byte
// for byte: 32-bit integers as LONG, larger ones as LONGLONG, NULLs in the
// bitmap, the types only with the first execute and after they change.
func TestLeanExecutePackets(t *testing.T) {
	ok := pkt(1, okPayload(0, 2)...)
	tests := []struct {
		name   string
		params int
		args   [][]driver.NamedValue
		want   []string // hex of each request
	}{
		{"no parameters", 0, [][]driver.NamedValue{nil},
			[]string{"0a00000017070000000001000000"}},
		{"ints, types once", 2, [][]driver.NamedValue{args(int64(5), int64(-1)), args(int64(6), int64(2147483647))},
			[]string{
				"1800000017070000000001000000" + "00" + "01" + "03000300" + "05000000" + "ffffffff",
				"1400000017070000000001000000" + "00" + "00" + "06000000" + "ffffff7f",
			}},
		{"a type changes", 1, [][]driver.NamedValue{args(int64(1)), args(int64(1) << 32), args(int64(1) << 32)},
			[]string{
				"1200000017070000000001000000" + "00" + "01" + "0300" + "01000000",
				"1600000017070000000001000000" + "00" + "01" + "0800" + "0000000001000000",
				"1400000017070000000001000000" + "00" + "00" + "0000000001000000",
			}},
		{"every encoded type", 9, [][]driver.NamedValue{args(nil, []byte(nil), []byte{}, []byte("ab"), "c", 1.5, true, uint64(7), int64(-2147483649))},
			[]string{
				"3e00000017070000000001000000" + "0300" + "01" +
					"0600" + "0600" + "fe00" + "fe00" + "fe00" + "0500" + "0100" + "0880" + "0800" +
					"00" + "026162" + "0163" + "000000000000f83f" + "01" + "0700000000000000" + "ffffff7fffffffff",
			}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			replies := make([][]byte, len(tc.args))
			for i := range replies {
				replies[i] = ok
			}
			p := newLeanPipe(t, &leanStmt{id: 7, params: tc.params, longMin: 1 << 20}, true, true, replies...)
			for i, a := range tc.args {
				if err := p.st.Exec(a); err != nil {
					t.Fatal(err)
				}
				if got := hexOf(<-p.requests); got != tc.want[i] {
					t.Errorf("execute %d:\n got %s\nwant %s", i, got, tc.want[i])
				}
			}
		})
	}
}

// TestLeanDeclines: what the lean path leaves to the driver sends nothing.
func TestLeanDeclines(t *testing.T) {
	tests := []struct {
		name string
		args []driver.NamedValue
	}{
		{"argument count", args(int64(1), int64(2))},
		{"long data", args(string(make([]byte, 64)))},
		{"long bytes", args(make([]byte, 100))},
		{"other type", args(struct{}{})},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			p := newLeanPipe(t, &leanStmt{id: 1, params: 1, longMin: 64}, true, true)
			if err := p.st.leanExec(tc.args, leanDiscard); err != errNoLean {
				t.Fatalf("got %v, want errNoLean", err)
			}
			if p.st.bound.ok {
				t.Fatal("types recorded for an execute not sent")
			}
		})
	}
}

// TestLeanReplies: replies read on the lean path, with and without
// CLIENT_DEPRECATE_EOF and MariaDB's metadata cache: OK, ERR, rows with
// NULLs, metadata left out or sent anew, several results, an error among
// the rows, a packet out of sequence and a connection lost mid-reply.
func TestLeanReplies(t *testing.T) {
	intStr := []column{{typ: typeLong}, {typ: typeVarString}}
	// A binary row of (int, string): header, NULL bitmap, values.
	row := func(seq byte, id int32, s string, nullStr bool) []byte {
		b := []byte{0, 0}
		b = binary.LittleEndian.AppendUint32(b, uint32(id))
		if nullStr {
			b[1] = 1 << 3
		} else {
			b = append(append(b, byte(len(s))), s...)
		}
		return pkt(seq, b...)
	}
	// The end of a result set: an OK packet with a 0xfe header (affected
	// rows 0, insert id 0, status) under CLIENT_DEPRECATE_EOF, else an EOF
	// packet (warnings 0, status): the same bytes here.
	end := func(seq byte, _ bool, status uint16) []byte {
		return pkt(seq, binary.LittleEndian.AppendUint16([]byte{0xfe, 0, 0}, status)...)
	}
	eof := func(seq byte) []byte { return pkt(seq, 0xfe, 0, 0, 2, 0) }
	errPkt := func(seq byte) []byte {
		return pkt(seq, append([]byte{0xff, 0x7a, 0x04, '#', '4', '2', 'S', '2', '2'}, "Unknown column"...)...)
	}
	cat := func(ps ...[]byte) []byte { return bytes.Join(ps, nil) }
	serverErr := &mysql.MySQLError{Number: 1146, SQLState: [5]byte{'4', '2', 'S', '2', '2'}, Message: "Unknown column"}

	type want struct {
		found    bool
		values   []string // "NULL" for nil
		affected int64
		err      error
	}
	for _, deprecateEOF := range []bool{true, false} {
		for _, cacheMeta := range []bool{true, false} {
			// The header of a result set of two columns, its metadata
			// left out when the cache allows it.
			header := func(seq byte, skip bool) (b []byte, next byte) {
				if cacheMeta {
					flag := byte(1)
					if skip {
						flag = 0
					}
					b = pkt(seq, 2, flag)
				} else {
					b = pkt(seq, 2)
				}
				seq++
				if !cacheMeta || !skip {
					b = append(b, pkt(seq, colDef(typeLong, 0, 0)...)...)
					b = append(b, pkt(seq+1, colDef(typeVarString, 0, 0)...)...)
					seq += 2
				}
				if !deprecateEOF {
					b = append(b, eof(seq)...)
					seq++
				}
				return b, seq
			}
			h, n := header(1, true)
			rowsReply := cat(h, row(n, 7, "seven", false), row(n+1, 8, "", true), end(n+2, deprecateEOF, 2))
			h, n = header(1, false)
			freshMeta := cat(h, row(n, -1, "x", false), end(n+1, deprecateEOF, 2))
			h, n = header(1, true)
			emptySet := cat(h, end(n, deprecateEOF, 2))
			h, n = header(1, true)
			errAmongRows := cat(h, row(n, 1, "a", false), errPkt(n+1))
			h, n = header(1, true)
			multi := cat(h, row(n, 3, "three", false), end(n+1, deprecateEOF, 2|statusMoreResultsExists),
				pkt(n+2, okPayload(4, 2|statusMoreResultsExists)...), pkt(n+3, okPayload(5, 2)...))
			h, n = header(1, true)
			outOfSeq := cat(h, row(n+5, 1, "a", false))
			h, n = header(1, true)
			cut := cat(h, row(n, 1, "a", false))[:len(h)+3]
			lost := clientError(crServerLost, "Lost connection to server during query")
			tests := []struct {
				name  string
				reply []byte
				want  want
			}{
				{"ok", pkt(1, okPayload(3, 2)...), want{affected: 3}},
				{"error", errPkt(1), want{err: serverErr}},
				{"rows, metadata left out", rowsReply, want{found: true, values: []string{"7", "seven"}}},
				{"rows, metadata sent", freshMeta, want{found: true, values: []string{"-1", "x"}}},
				{"no rows", emptySet, want{values: []string{"NULL", "NULL"}}},
				{"error among rows", errAmongRows, want{found: true, values: []string{"1", "a"}, err: serverErr}},
				{"several results", multi, want{found: true, values: []string{"3", "three"}, affected: 5}},
				{"out of sequence", outOfSeq, want{values: []string{"NULL", "NULL"}, err: lost}},
				{"lost mid-reply", cut, want{values: []string{"NULL", "NULL"}, err: lost}},
			}
			for _, tc := range tests {
				name := fmt.Sprintf("%s/deprecateEOF=%v/cache=%v", tc.name, deprecateEOF, cacheMeta)
				t.Run(name, func(t *testing.T) {
					lostCase := tc.want.err == lost
					replies := [][]byte{tc.reply, tc.reply}
					if lostCase {
						replies = [][]byte{tc.reply} // then the fake hangs up
					}
					p := newLeanPipe(t, &leanStmt{id: 1, params: 1, cols: intStr, longMin: 64}, deprecateEOF, cacheMeta, replies...)
					var r Row
					found, err := p.st.QueryRow(args(int64(1)), &r)
					if !reflect.DeepEqual(err, tc.want.err) {
						t.Fatalf("QueryRow: error %#v, want %#v", err, tc.want.err)
					}
					var got []string
					for _, v := range r.Values {
						if v == nil {
							got = append(got, "NULL")
						} else {
							got = append(got, string(v))
						}
					}
					if found != tc.want.found || !reflect.DeepEqual(got, tc.want.values) {
						t.Errorf("QueryRow: found %v %q, want %v %q", found, got, tc.want.found, tc.want.values)
					}
					if !lostCase {
						affected, err := p.st.ExecAffected(args(int64(1)))
						if !reflect.DeepEqual(err, tc.want.err) || affected != tc.want.affected {
							t.Errorf("ExecAffected: %d %v, want %d %v", affected, err, tc.want.affected, tc.want.err)
						}
					}
					if tc.want.err == lost {
						// The connection is closed, as the driver closes its
						// own, and later statements fail the same way.
						if !p.st.sock.dead {
							t.Fatal("connection not marked dead")
						}
						if err := p.st.Exec(args(int64(1))); !reflect.DeepEqual(err, lost) {
							t.Fatalf("after the loss: %v", err)
						}
						if _, err := p.st.sock.Write([]byte{1}); !errors.Is(err, net.ErrClosed) {
							t.Fatalf("the driver's write after the loss: %v", err)
						}
					}
				})
			}
		}
	}
}

// TestParsePrepareReply: the prepare's reply as the socket copied it, with
// and without EOF packets; anything else keeps the driver's path.
func TestParsePrepareReply(t *testing.T) {
	okp := func(cols, params uint16) []byte {
		b := []byte{0, 9, 0, 0, 0}
		b = binary.LittleEndian.AppendUint16(b, cols)
		b = binary.LittleEndian.AppendUint16(b, params)
		return append(b, 0, 0, 0)
	}
	eof := []byte{0xfe, 0, 0, 2, 0}
	withEOF := bytes.Join([][]byte{pkt(1, okp(2, 1)...), pkt(2, colDef(typeLongLong, 0, 0)...), pkt(3, eof...),
		pkt(4, colDef(typeLong, flagUnsigned, 0)...), pkt(5, colDef(typeDateTime, 0, 3)...), pkt(6, eof...)}, nil)
	noEOF := bytes.Join([][]byte{pkt(1, okp(2, 1)...), pkt(2, colDef(typeLongLong, 0, 0)...),
		pkt(3, colDef(typeLong, flagUnsigned, 0)...), pkt(4, colDef(typeDateTime, 0, 3)...)}, nil)
	want := &leanStmt{id: 9, params: 1, cols: []column{{typ: typeLong, flags: flagUnsigned}, {typ: typeDateTime, decimals: 3}}}
	tests := []struct {
		name         string
		reply        []byte
		deprecateEOF bool
		want         *leanStmt
	}{
		{"EOF packets", withEOF, false, want},
		{"CLIENT_DEPRECATE_EOF", noEOF, true, want},
		{"no parameters, no columns", pkt(1, okp(0, 0)...), true, &leanStmt{id: 9}},
		{"EOF expected", noEOF, false, nil},
		{"trailing bytes", append(noEOF, 1), true, nil},
		{"error", pkt(1, 0xff, 1, 2, 'x'), true, nil},
		{"short", noEOF[:len(noEOF)-3], true, nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := parsePrepareReply(tc.reply, tc.deprecateEOF); !reflect.DeepEqual(got, tc.want) {
				t.Errorf("got %+v, want %+v", got, tc.want)
			}
		})
	}
}

// TestAppendBinary: binary values as the driver's values read as text.
func TestAppendBinary(t *testing.T) {
	le32 := func(v uint32) []byte { return binary.LittleEndian.AppendUint32(nil, v) }
	le64 := func(v uint64) []byte { return binary.LittleEndian.AppendUint64(nil, v) }
	tests := []struct {
		col  column
		data []byte
		want string
	}{
		{column{typ: typeTiny}, []byte{0xff}, "-1"},
		{column{typ: typeTiny, flags: flagUnsigned}, []byte{0xff}, "255"},
		{column{typ: typeShort}, []byte{0xfe, 0xff}, "-2"},
		{column{typ: typeYear}, []byte{0xe8, 0x07}, "2024"},
		{column{typ: typeInt24}, le32(0xfffffffd), "-3"},
		{column{typ: typeLong, flags: flagUnsigned}, le32(0xffffffff), "4294967295"},
		{column{typ: typeLongLong}, le64(1 << 63), "-9223372036854775808"},
		{column{typ: typeLongLong, flags: flagUnsigned}, le64(1<<64 - 1), "18446744073709551615"},
		{column{typ: typeFloat}, le32(0x3dcccccd), fmt.Sprint(float32(0.1))},
		{column{typ: typeDouble}, le64(0x4415af1d78b58c40), fmt.Sprint(1e20)},
		{column{typ: typeNewDecimal}, []byte{4, '1', '.', '5', '0'}, "1.50"},
		{column{typ: typeDate}, []byte{4, 0xe8, 0x07, 2, 29}, "2024-02-29"},
		{column{typ: typeDate}, []byte{0}, "0000-00-00"},
		{column{typ: typeDateTime}, []byte{7, 0xe8, 0x07, 2, 29, 13, 14, 15}, "2024-02-29 13:14:15"},
		{column{typ: typeDateTime, decimals: 3}, []byte{11, 0xe8, 0x07, 2, 29, 13, 14, 15, 0x40, 0xe2, 0x01, 0}, "2024-02-29 13:14:15.123"},
		{column{typ: typeTimestamp, decimals: 6}, []byte{4, 0xe8, 0x07, 2, 29}, "2024-02-29 00:00:00.000000"},
		{column{typ: typeTime}, []byte{8, 1, 34, 0, 0, 0, 22, 59, 59}, "-838:59:59"},
		{column{typ: typeTime, decimals: 2}, []byte{12, 0, 0, 0, 0, 0, 12, 0, 1, 0x20, 0xa1, 0x07, 0}, "12:00:01.50"},
		{column{typ: typeTime}, []byte{0}, "00:00:00"},
	}
	for _, tc := range tests {
		got, null, n, err := appendBinary(nil, tc.col, tc.data)
		if err != nil || null || string(got) != tc.want || n != len(tc.data) {
			t.Errorf("type %#x % x: %q null=%v n=%d %v, want %q", tc.col.typ, tc.data, got, null, n, err, tc.want)
		}
	}
}
