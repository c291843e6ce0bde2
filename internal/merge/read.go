package merge

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"

	"github.com/goslap/goslap/internal/results/jsondoc"
)

// MaxFileBytes caps what merge reads of one file. A shard's document is a
// few kilobytes per benchmark (a 4-client mysqlslap run: 5 KB), so 64 MiB
// holds thousands of benchmarks. Without a cap a 1 GB string took a
// minute and 5 GB of memory before it was refused; a 63 MiB one now
// takes 3.6 s and 560 MB, a larger file nothing.
const MaxFileBytes = 64 << 20

// ReadFile reads path, refusing a file larger than MaxFileBytes without
// reading the rest of it.
func ReadFile(path string) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	tooBig := fmt.Errorf("%s is larger than %d MiB, more than any shard's document: not read", path, MaxFileBytes>>20)
	if info, err := f.Stat(); err == nil && info.Mode().IsRegular() && info.Size() > MaxFileBytes {
		return nil, tooBig
	}
	// A pipe or a growing file: read one byte past the cap to tell.
	data, err := io.ReadAll(io.LimitReader(f, MaxFileBytes+1))
	if err != nil {
		return nil, err
	}
	if len(data) > MaxFileBytes {
		return nil, tooBig
	}
	return data, nil
}

// Decode reads one document from part (a file, or what stood between
// markers in a log): one JSON value and nothing after it but blanks, so
// that a document with something appended (two documents in one file,
// a log's tail) is refused rather than read in part.
func Decode(name string, part []byte) (*jsondoc.Document, error) {
	dec := json.NewDecoder(bytes.NewReader(part))
	var raw json.RawMessage
	if err := dec.Decode(&raw); err != nil {
		return nil, fmt.Errorf("%s: reading the result document: %v", name, err)
	}
	tail := part[dec.InputOffset():]
	if rest := bytes.TrimLeft(tail, " \t\r\n"); len(rest) > 0 {
		return nil, fmt.Errorf("%s: text after the JSON document (at byte %d): not one shard's document",
			name, dec.InputOffset()+int64(len(tail)-len(rest)))
	}
	d, err := jsondoc.Decode(bytes.NewReader(raw))
	if err != nil {
		return nil, fmt.Errorf("%s: %v", name, err)
	}
	return d, nil
}
