package optfile

import (
	"crypto/aes"
	"encoding/binary"
	"errors"
	"fmt"
)

// loginKeyLen is the length of the key stored in ~/.mylogin.cnf's header.
const loginKeyLen = 20

// DecodeLoginFile decrypts MySQL's obfuscated ~/.mylogin.cnf (written by
// mysql_config_editor): 4 unused bytes, a 20-byte key, then records of a
// little-endian int32 length and that many bytes of AES-128-ECB cipher text
// (PKCS#7 padded), each one line of an ordinary option file. The AES key is
// the 20-byte key folded onto 16 bytes with XOR, as my_aes_create_key does.
func DecodeLoginFile(data []byte) ([]byte, error) {
	if len(data) < 4+loginKeyLen {
		return nil, errors.New("file too short for a .mylogin.cnf header")
	}
	var key [16]byte
	for i, b := range data[4 : 4+loginKeyLen] {
		key[i%16] ^= b
	}
	block, err := aes.NewCipher(key[:])
	if err != nil {
		return nil, err
	}
	var plain []byte
	rest := data[4+loginKeyLen:]
	for len(rest) > 0 {
		if len(rest) < 4 {
			return nil, errors.New("truncated record length")
		}
		n := int(binary.LittleEndian.Uint32(rest))
		rest = rest[4:]
		if n <= 0 || n > len(rest) || n%aes.BlockSize != 0 {
			return nil, fmt.Errorf("bad record length %d", n)
		}
		rec := make([]byte, n)
		for off := 0; off < n; off += aes.BlockSize {
			block.Decrypt(rec[off:off+aes.BlockSize], rest[off:off+aes.BlockSize])
		}
		pad := int(rec[n-1])
		if pad == 0 || pad > aes.BlockSize || pad > n {
			return nil, errors.New("bad padding")
		}
		plain = append(plain, rec[:n-pad]...)
		rest = rest[n:]
	}
	return plain, nil
}

// ReadLoginFile returns the option words of an obfuscated login file; a
// missing file gives no words (as in MySQL), an undecodable one an error.
func (r *Reader) ReadLoginFile(path string) ([]string, error) {
	r.init()
	data, err := r.readAll(path)
	if err != nil {
		return nil, nil
	}
	plain, err := DecodeLoginFile(data)
	if err != nil {
		return nil, &Error{Msg: fmt.Sprintf("error: cannot decode login path file %s: %v", path, err)}
	}
	var words []string
	// Options before a group header are rejected as in any option file.
	if err := r.parse(path, plain, loginFileDepth, &words); err != nil {
		return nil, err
	}
	return words, nil
}

// EncodeLoginFile is the inverse of DecodeLoginFile (for tests and tools).
func EncodeLoginFile(key [loginKeyLen]byte, lines []string) []byte {
	var k [16]byte
	for i, b := range key {
		k[i%16] ^= b
	}
	block, _ := aes.NewCipher(k[:])
	out := append(make([]byte, 4), key[:]...)
	for _, line := range lines {
		pad := aes.BlockSize - len(line)%aes.BlockSize
		rec := []byte(line)
		for i := 0; i < pad; i++ {
			rec = append(rec, byte(pad))
		}
		for off := 0; off < len(rec); off += aes.BlockSize {
			block.Encrypt(rec[off:off+aes.BlockSize], rec[off:off+aes.BlockSize])
		}
		out = binary.LittleEndian.AppendUint32(out, uint32(len(rec)))
		out = append(out, rec...)
	}
	return out
}
