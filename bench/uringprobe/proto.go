//go:build linux

package main

import (
	"encoding/binary"
	"errors"
	"fmt"
	"syscall"
)

// The MySQL client/server protocol, just as much as the probe's event loops
// need beside internal/mysqlconn/ring (the COM_QUERY packet, the reply
// parser): a handshake as root without a password (blocking, before the
// loop takes the socket over).

// Capability flags (the protocol's CLIENT_* bits).
const (
	capLongPassword  = 1 << 0
	capLongFlag      = 1 << 2
	capConnectWithDB = 1 << 3
	capProtocol41    = 1 << 9
	capTransactions  = 1 << 13
	capSecureConn    = 1 << 15
	capPluginAuth    = 1 << 19
	capDeprecateEOF  = 1 << 24
	maxPayload       = 0xffffff
	charsetUTF8MB4   = 45 // utf8mb4_general_ci
)

// loginError is an ERR packet received during the login.
func loginError(pkt []byte) error {
	if len(pkt) < 3 {
		return fmt.Errorf("malformed ERR packet % x", pkt)
	}
	msg := pkt[3:]
	if len(msg) >= 6 && msg[0] == '#' {
		msg = msg[6:]
	}
	return fmt.Errorf("server error %d: %s", binary.LittleEndian.Uint16(pkt[1:]), msg)
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
		return false, fmt.Errorf("server refused the connection: %v", loginError(greet))
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
			return false, fmt.Errorf("login refused: %v", loginError(pkt))
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
