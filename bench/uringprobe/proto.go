package main

import (
	"encoding/binary"
	"errors"
	"fmt"
	"syscall"
)

// The MySQL client/server protocol, just as much as the probe's event loops
// need: a handshake as root without a password (blocking, before the loop
// takes the socket over), the COM_QUERY packet, and an incremental parser
// of a text-protocol reply that can be fed whatever bytes a receive brought.

// Capability flags (the protocol's CLIENT_* bits).
const (
	capLongPassword   = 1 << 0
	capLongFlag       = 1 << 2
	capConnectWithDB  = 1 << 3
	capProtocol41     = 1 << 9
	capTransactions   = 1 << 13
	capSecureConn     = 1 << 15
	capPluginAuth     = 1 << 19
	capDeprecateEOF   = 1 << 24
	statusMoreResults = 0x0008 // SERVER_MORE_RESULTS_EXISTS
	maxPayload        = 0xffffff
	charsetUTF8MB4    = 45 // utf8mb4_general_ci
)

// queryPacket is a COM_QUERY packet (sequence 0) for q. The event loops send
// the same bytes for every statement, so the hot path builds nothing.
func queryPacket(q string) []byte {
	n := 1 + len(q)
	p := make([]byte, 4, 4+n)
	p[0], p[1], p[2], p[3] = byte(n), byte(n>>8), byte(n>>16), 0
	p = append(p, 0x03)
	return append(p, q...)
}

// replyParser follows one statement's reply across partial reads: an OK
// packet, an ERR packet, or a result set (column count, column
// definitions, an EOF unless CLIENT_DEPRECATE_EOF was agreed, rows, then
// an EOF or, with CLIENT_DEPRECATE_EOF, an OK packet with the 0xFE header).
type replyParser struct {
	deprecateEOF bool

	state    int
	colsLeft uint64
	rows     int
}

const (
	stFirst = iota
	stColumns
	stColumnsEOF
	stRows
)

// serverError is an ERR packet.
type serverError struct {
	code    uint16
	message string
}

func (e *serverError) Error() string { return fmt.Sprintf("server error %d: %s", e.code, e.message) }

// reset readies the parser for the next statement's reply.
func (p *replyParser) reset() { p.state, p.colsLeft, p.rows = stFirst, 0, 0 }

// feed consumes the complete packets at the start of b. It returns how many
// bytes it consumed and whether the reply ended; rows then holds the number
// of rows (0 for an OK reply). Bytes after the reply's last packet are not
// consumed. An ERR packet, a multi-result reply or a malformed packet is an
// error; the parser must be reset after one.
func (p *replyParser) feed(b []byte) (n int, done bool, err error) {
	for len(b)-n >= 4 {
		size := int(b[n]) | int(b[n+1])<<8 | int(b[n+2])<<16
		if size == maxPayload {
			return n, false, errors.New("reply packet of 16 MB or more (not supported by the probe)")
		}
		if len(b)-n-4 < size {
			return n, false, nil
		}
		pkt := b[n+4 : n+4+size]
		n += 4 + size
		if size == 0 {
			return n, false, errors.New("empty packet in a reply")
		}
		switch p.state {
		case stFirst:
			switch pkt[0] {
			case 0x00:
				if err := checkOK(pkt); err != nil {
					return n, false, err
				}
				return n, true, nil
			case 0xff:
				return n, false, parseErr(pkt)
			case 0xfb:
				return n, false, errors.New("LOCAL INFILE request (not supported by the probe)")
			}
			cols, w := lenenc(pkt)
			if w == 0 || w != len(pkt) || cols == 0 {
				return n, false, fmt.Errorf("malformed column count packet % x", pkt)
			}
			p.colsLeft, p.state = cols, stColumns
		case stColumns:
			if pkt[0] == 0xff {
				return n, false, parseErr(pkt)
			}
			if p.colsLeft--; p.colsLeft == 0 {
				p.state = stRows
				if !p.deprecateEOF {
					p.state = stColumnsEOF
				}
			}
		case stColumnsEOF:
			if pkt[0] != 0xfe || size >= 9 {
				return n, false, fmt.Errorf("expected an EOF packet after the column definitions, got % x", pkt)
			}
			p.state = stRows
		case stRows:
			switch {
			case pkt[0] == 0xff:
				return n, false, parseErr(pkt)
			case pkt[0] == 0xfe && !p.deprecateEOF && size < 9:
				if size < 5 {
					return n, false, fmt.Errorf("short EOF packet % x", pkt)
				}
				if binary.LittleEndian.Uint16(pkt[3:])&statusMoreResults != 0 {
					return n, false, errors.New("multi-result reply (not supported by the probe)")
				}
				return n, true, nil
			case pkt[0] == 0xfe && p.deprecateEOF:
				// A row whose first value has an 8-byte length would be
				// 16 MB or more, which is refused above.
				if err := checkOK(pkt); err != nil {
					return n, false, err
				}
				return n, true, nil
			}
			p.rows++
		}
	}
	return n, false, nil
}

// checkOK checks an OK packet (header 0x00 or 0xFE) and refuses one that
// announces more results.
func checkOK(pkt []byte) error {
	i := 1
	for range 2 { // affected rows, last insert id
		_, w := lenenc(pkt[i:])
		if w == 0 {
			return fmt.Errorf("malformed OK packet % x", pkt)
		}
		i += w
	}
	if len(pkt) < i+2 {
		return fmt.Errorf("malformed OK packet % x", pkt)
	}
	if binary.LittleEndian.Uint16(pkt[i:])&statusMoreResults != 0 {
		return errors.New("multi-result reply (not supported by the probe)")
	}
	return nil
}

// parseErr is an ERR packet's error (protocol 4.1: code, '#', SQL state).
func parseErr(pkt []byte) error {
	if len(pkt) < 3 {
		return fmt.Errorf("malformed ERR packet % x", pkt)
	}
	e := &serverError{code: binary.LittleEndian.Uint16(pkt[1:])}
	msg := pkt[3:]
	if len(msg) >= 6 && msg[0] == '#' {
		msg = msg[6:]
	}
	e.message = string(msg)
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

// dialUnix opens a blocking Unix socket to path as a raw descriptor.
func dialUnix(path string) (int, error) {
	fd, err := syscall.Socket(syscall.AF_UNIX, syscall.SOCK_STREAM|syscall.SOCK_CLOEXEC, 0)
	if err != nil {
		return -1, err
	}
	if err := syscall.Connect(fd, &syscall.SockaddrUnix{Name: path}); err != nil {
		syscall.Close(fd)
		return -1, err
	}
	return fd, nil
}

// handshake logs in as root without a password on a blocking socket and
// selects db. It asks for CLIENT_DEPRECATE_EOF when wantDeprecateEOF and the
// server offers it, and says whether it was agreed.
func handshake(fd int, db string, wantDeprecateEOF bool) (deprecateEOF bool, err error) {
	var rb []byte
	greet, seq, err := readPacket(fd, &rb)
	if err != nil {
		return false, fmt.Errorf("reading the greeting: %w", err)
	}
	if len(greet) == 0 || greet[0] == 0xff {
		return false, fmt.Errorf("server refused the connection: %v", parseErr(greet))
	}
	if greet[0] != 10 {
		return false, fmt.Errorf("protocol version %d (want 10)", greet[0])
	}
	i := 1
	for i < len(greet) && greet[i] != 0 { // server version
		i++
	}
	i += 1 + 4 + 8 + 1 // NUL, connection id, auth data part 1, filler
	if len(greet) < i+2+1+2+2 {
		return false, errors.New("short greeting")
	}
	serverCaps := uint32(binary.LittleEndian.Uint16(greet[i:])) | uint32(binary.LittleEndian.Uint16(greet[i+5:]))<<16
	if serverCaps&capProtocol41 == 0 {
		return false, errors.New("server lacks protocol 4.1")
	}
	caps := uint32(capLongPassword | capLongFlag | capConnectWithDB | capProtocol41 | capTransactions | capSecureConn | capPluginAuth)
	if wantDeprecateEOF && serverCaps&capDeprecateEOF != 0 {
		caps |= capDeprecateEOF
	}
	resp := make([]byte, 4, 128)
	resp = binary.LittleEndian.AppendUint32(resp, caps)
	resp = binary.LittleEndian.AppendUint32(resp, maxPayload)
	resp = append(resp, charsetUTF8MB4)
	resp = append(resp, make([]byte, 23)...)
	resp = append(resp, "root\x00"...)
	resp = append(resp, 0) // empty auth response (no password)
	resp = append(resp, db...)
	resp = append(resp, 0)
	resp = append(resp, "mysql_native_password\x00"...)
	if err := writePacket(fd, resp, seq+1); err != nil {
		return false, err
	}
	for range 3 {
		pkt, s, err := readPacket(fd, &rb)
		if err != nil {
			return false, fmt.Errorf("reading the login reply: %w", err)
		}
		if len(pkt) == 0 {
			return false, errors.New("empty login reply")
		}
		switch pkt[0] {
		case 0x00:
			return caps&capDeprecateEOF != 0, nil
		case 0xff:
			return false, fmt.Errorf("login refused: %v", parseErr(pkt))
		case 0xfe: // auth switch: no password is an empty response for the plugins root may have
			if err := writePacket(fd, make([]byte, 4), s+1); err != nil {
				return false, err
			}
		default:
			return false, fmt.Errorf("unexpected login reply % x", pkt)
		}
	}
	return false, errors.New("login did not finish after 3 exchanges")
}

// readPacket reads one packet on a blocking socket; rb carries bytes read
// ahead between calls.
func readPacket(fd int, rb *[]byte) ([]byte, byte, error) {
	buf := make([]byte, 4096)
	for {
		b := *rb
		if len(b) >= 4 {
			size := int(b[0]) | int(b[1])<<8 | int(b[2])<<16
			if len(b) >= 4+size {
				pkt := append([]byte(nil), b[4:4+size]...)
				*rb = append(b[:0:0], b[4+size:]...)
				return pkt, b[3], nil
			}
		}
		n, err := syscall.Read(fd, buf)
		if err == syscall.EINTR {
			continue
		}
		if err != nil {
			return nil, 0, err
		}
		if n == 0 {
			return nil, 0, errors.New("connection closed by the server")
		}
		*rb = append(*rb, buf[:n]...)
	}
}

// writePacket writes p (whose first 4 bytes are left for the header).
func writePacket(fd int, p []byte, seq byte) error {
	n := len(p) - 4
	p[0], p[1], p[2], p[3] = byte(n), byte(n>>8), byte(n>>16), seq
	return writeAll(fd, p)
}

func writeAll(fd int, p []byte) error {
	for len(p) > 0 {
		n, err := syscall.Write(fd, p)
		if err == syscall.EINTR {
			continue
		}
		if err != nil {
			return err
		}
		p = p[n:]
	}
	return nil
}
