package ring

import (
	"bytes"
	"database/sql/driver"
	"encoding/binary"
)

// The binary protocol's execute, for statements prepared on the
// connection before it was handed over (the driver's Prepare; the id from
// mysqlconn.Stmt.ServerID). Its reply is a binary result set, which ends
// as the text one does (Parser): rows start with 0x00, never 0xFE or 0xFF.

// Command bytes and field types, as the driver writes them.
const (
	ComStmtExecute = 0x17
	typeNULL       = 0x06
	typeLongLong   = 0x08
	typeString     = 0xfe
	executeFixed   = 1 + 4 + 1 + 4 // command, statement id, cursor flags, iteration count
)

// AppendExecute appends the payload of a COM_STMT_EXECUTE of statement id
// with args (int64, []byte or nil values, in order) to dst, as
// go-sql-driver/mysql writes it: no cursor, one iteration, the NULL
// bitmap, new-params-bound 1 and the parameter types (LONGLONG, STRING,
// NULL), then the values. Bound.Append may take the types out again.
func AppendExecute(dst []byte, id uint32, args []driver.NamedValue) []byte {
	dst = append(dst, ComStmtExecute, byte(id), byte(id>>8), byte(id>>16), byte(id>>24), 0, 1, 0, 0, 0)
	n := len(args)
	if n == 0 {
		return dst
	}
	mask := len(dst)
	for range (n + 7) / 8 {
		dst = append(dst, 0)
	}
	dst = append(dst, 1)
	for i := range args {
		switch v := args[i].Value.(type) {
		case int64:
			dst = append(dst, typeLongLong, 0)
		case []byte:
			if v != nil {
				dst = append(dst, typeString, 0)
				break
			}
			dst[mask+i/8] |= 1 << (i & 7)
			dst = append(dst, typeNULL, 0)
		default: // nil
			dst[mask+i/8] |= 1 << (i & 7)
			dst = append(dst, typeNULL, 0)
		}
	}
	for i := range args {
		switch v := args[i].Value.(type) {
		case int64:
			dst = binary.LittleEndian.AppendUint64(dst, uint64(v))
		case []byte:
			if v != nil {
				dst = appendLenenc(dst, uint64(len(v)))
				dst = append(dst, v...)
			}
		}
	}
	return dst
}

func appendLenenc(dst []byte, n uint64) []byte {
	switch {
	case n < 0xfb:
		return append(dst, byte(n))
	case n <= 0xffff:
		return append(dst, 0xfc, byte(n), byte(n>>8))
	case n <= 0xffffff:
		return append(dst, 0xfd, byte(n), byte(n>>8), byte(n>>16))
	}
	return binary.LittleEndian.AppendUint64(append(dst, 0xfe), n)
}

// Bound is what the server holds of one prepared statement's parameter
// types: the types its last execute sent. As the C client library does
// (and mysqlconn's driver path), an execute whose types equal them
// leaves them out (new-params-bound 0).
type Bound struct {
	types []byte
	ok    bool
}

// Forget makes the next execute send its types: after a failed execute,
// and for a statement prepared anew.
func (b *Bound) Forget() { b.ok = false }

// Append appends p, an AppendExecute payload of a statement with params
// parameters, to dst: without its types when the server already holds
// them, else as it is (and the types are remembered).
func (b *Bound) Append(dst, p []byte, params int) []byte {
	flag := executeFixed + (params+7)/8
	if params == 0 || len(p) < flag+1+2*params || p[0] != ComStmtExecute || p[flag] != 1 {
		return append(dst, p...)
	}
	types := p[flag+1 : flag+1+2*params]
	if !b.ok || !bytes.Equal(b.types, types) {
		b.types, b.ok = append(b.types[:0], types...), true
		return append(dst, p...)
	}
	dst = append(dst, p[:flag]...)
	dst = append(dst, 0)
	return append(dst, p[flag+1+2*params:]...)
}
