package mysqlconn

import (
	"bytes"
	"encoding/binary"
)

// boundTypes is what the server holds of one prepared statement's
// parameter types: the types sent with its last COM_STMT_EXECUTE.
//
// The protocol lets a client send the types once: an execute with
// new_params_bound_flag 0 reuses the types of the statement's previous
// execute, and the C client library sends them only after a re-bind. The
// driver sends them with every execute (flag 1), 2 bytes per parameter:
// TPC-C's executes took 54 bytes where tpcc-mysql's take 42. The socket
// (elideTypes) takes the types out of an execute whose types equal the
// ones the server already holds for the statement.
type boundTypes struct {
	id     uint32 // the server's statement id the types were sent for
	params int    // the statement's parameter count
	types  []byte // 2 bytes per parameter; valid only when ok
	ok     bool
}

// forget makes the next execute send its types (after a failed execute:
// whether the server took the types of a statement it rejected is not
// worth guessing).
func (b *boundTypes) forget() { b.ok = false }

// Byte offsets and codes of the COM_STMT_EXECUTE packet as the driver
// writes it: a 4-byte packet header, the command, the statement id, the
// cursor flags and the iteration count, then the NULL bitmap, the
// new-params-bound flag, the types and the values.
const (
	comStmtExecute  = 0x17
	executeFixedLen = 4 + 1 + 4 + 1 + 4
	maxPayload      = 1<<24 - 1
)

// elideTypes rewrites p, one whole packet the driver is about to send,
// when it is an execute of the statement bt describes whose types equal
// the ones sent before: flag 0, types removed (the values move down in
// place). Otherwise it records the packet's types as the statement's and
// returns p unchanged. A packet that is not an execute (a long-data chunk
// before one) makes bt forget its types, so that execute sends them again.
func elideTypes(p []byte, bt *boundTypes) []byte {
	if len(p) < executeFixedLen || p[4] != comStmtExecute {
		bt.forget()
		return p
	}
	payload := int(p[0]) | int(p[1])<<8 | int(p[2])<<16
	n := bt.params
	flag := executeFixedLen + (n+7)/8
	if n == 0 || payload != len(p)-4 || payload >= maxPayload || len(p) < flag+1+2*n || p[flag] != 1 {
		return p
	}
	id := binary.LittleEndian.Uint32(p[5:9])
	types := p[flag+1 : flag+1+2*n]
	if !bt.ok || bt.id != id || !bytes.Equal(bt.types, types) {
		bt.id, bt.types, bt.ok = id, append(bt.types[:0], types...), true
		return p
	}
	copy(p[flag+1:], p[flag+1+2*n:])
	p = p[:len(p)-2*n]
	p[flag] = 0
	payload -= 2 * n
	p[0], p[1], p[2] = byte(payload), byte(payload>>8), byte(payload>>16)
	return p
}
