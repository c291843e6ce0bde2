package merge

import "bytes"

// Markers a shard prints around its document on stdout (--json=-), so
// that documents can be cut out of logs (kubectl logs of every pod).
const (
	DocBegin = "----- goslap shard document begin -----"
	DocEnd   = "----- goslap shard document end -----"
)

// Documents returns the documents between markers in data, or data itself
// when it has no marker.
func Documents(data []byte) [][]byte {
	if !bytes.Contains(data, []byte(DocBegin)) {
		return [][]byte{data}
	}
	var out [][]byte
	for {
		i := bytes.Index(data, []byte(DocBegin))
		if i < 0 {
			return out
		}
		data = data[i+len(DocBegin):]
		j := bytes.Index(data, []byte(DocEnd))
		if j < 0 {
			return append(out, data) // cut short: Decode says so
		}
		out = append(out, data[:j])
		data = data[j+len(DocEnd):]
	}
}
