package merge

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/goslap/goslap/internal/results/jsondoc"
)

// TestImpossibleDocumentsRefused: a document whose figures no run could
// produce is refused in one line naming the file, before anything is
// summed.
func TestImpossibleDocumentsRefused(t *testing.T) {
	d := func(i, n int) *jsondoc.Document { return shardDoc(t, i, n, 1, []int64{10, 20}, 0, time.Second) }
	for _, tc := range []struct {
		name   string
		break_ func(*jsondoc.Document)
		err    string
	}{
		{"negative concurrency", func(x *jsondoc.Document) { x.Benchmarks[0].Concurrency = -3 },
			"f1: benchmark 1: concurrency -3: a count of clients cannot be negative"},
		{"executed 2^63", func(x *jsondoc.Document) {
			x.Benchmarks[0].Executed, x.Benchmarks[0].Ops[0].Executed = 1<<63, 1<<63
		}, "f1: benchmark 1: executed 9223372036854775808 is more than any run counts (2^53)"},
		{"total disagrees with its ops", func(x *jsondoc.Document) { x.Benchmarks[0].Executed = 5 },
			"f1: benchmark 1: executed is 5 but its ops add up to 2"},
		{"errors disagree with their ops", func(x *jsondoc.Document) { x.Benchmarks[0].Errors = 9 },
			"f1: benchmark 1: errors is 9 but its ops add up to 1"},
		{"shard index past its count", func(x *jsondoc.Document) { x.Shard.Index = 2 },
			"f1: shard index 2 of 2: an index runs from 0 to the count less one"},
		{"negative shard index", func(x *jsondoc.Document) { x.Shard.Index = -1 }, "f1: shard index -1 of 2"},
		{"iteration ends before it starts", func(x *jsondoc.Document) {
			it := &x.Benchmarks[0].Iterations[0]
			it.End = it.Start.Add(-time.Second)
		}, "f1: benchmark 1: iteration 1 ends"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			bad := d(1, 2)
			tc.break_(bad)
			_, err := Merge([]Input{{"f0", d(0, 2)}, {"f1", bad}}, Options{AllowPartial: true, AllowDisjoint: true})
			if err == nil || !strings.HasPrefix(err.Error(), tc.err) {
				t.Fatalf("Merge = %v, want %q", err, tc.err)
			}
		})
	}
}

// TestDisjointWindowsRefused: two runs that reused one run id ran one
// after the other; merged, the gap between them read as wall time (4.9 s
// for two 0.04 s runs). Shards of one run overlap; the clock offsets move
// each window onto the server's clock first.
func TestDisjointWindowsRefused(t *testing.T) {
	doc := func(i int, start time.Duration, offset time.Duration) *jsondoc.Document {
		x := shardDoc(t, i, 2, 1, []int64{10, 20}, start, 40*time.Millisecond)
		x.Shard.ClockOffsetMicros = offset.Microseconds()
		return x
	}
	for _, tc := range []struct {
		name     string
		a, b     *jsondoc.Document
		disjoint bool
		err      string
	}{
		{"overlapping", doc(0, 0, 0), doc(1, 5*time.Millisecond, 0), false, ""},
		// A busy machine released one shard late: its 40 ms window begins
		// 460 ms after the other's ended, yet they are one run's.
		{"one shard late on a busy machine", doc(0, 0, 0), doc(1, 500*time.Millisecond, 0), false, ""},
		{"one after the other", doc(0, 0, 0), doc(1, 4900*time.Millisecond, 0), false,
			"benchmark 1 iteration 1: shard 1 (b) started 4.86s after shard 0 (a) had ended: these are not the shards of one run"},
		{"forced", doc(0, 0, 0), doc(1, 4900*time.Millisecond, 0), true, ""},
		// b's clock runs 2 s ahead of the server's: on the server's clock
		// the two windows are the same.
		{"apart only by the clocks", doc(0, 0, 0), doc(1, 2*time.Second, -2*time.Second), false, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Merge([]Input{{"a", tc.a}, {"b", tc.b}}, Options{AllowDisjoint: tc.disjoint})
			switch {
			case tc.err == "" && err != nil:
				t.Fatalf("refused: %v", err)
			case tc.err != "" && (err == nil || !strings.Contains(err.Error(), tc.err)):
				t.Fatalf("Merge = %v, want %q", err, tc.err)
			}
		})
	}
}

// TestDecodeRefusesTrailingText: one document per file (or per marked
// block), nothing after it.
func TestDecodeRefusesTrailingText(t *testing.T) {
	var b strings.Builder
	if err := jsondoc.Encode(&b, shardDoc(t, 0, 1, 1, []int64{1}, 0, time.Second)); err != nil {
		t.Fatal(err)
	}
	doc := b.String()
	if _, err := Decode("ok.json", []byte(doc+"\n\n")); err != nil {
		t.Fatalf("a document with trailing blanks: %v", err)
	}
	_, err := Decode("bad.json", []byte(doc+"\n{garbage"))
	if want := "bad.json: text after the JSON document (at byte "; err == nil || !strings.HasPrefix(err.Error(), want) {
		t.Fatalf("Decode = %v, want %q", err, want)
	}
}

// TestReadFileCapped: a file past MaxFileBytes is refused without being
// read into memory.
func TestReadFileCapped(t *testing.T) {
	path := filepath.Join(t.TempDir(), "big.json")
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := f.Truncate(MaxFileBytes + 1); err != nil { // sparse: no disk used
		t.Fatal(err)
	}
	f.Close()
	_, err = ReadFile(path)
	if want := path + " is larger than 64 MiB, more than any shard's document: not read"; err == nil || err.Error() != want {
		t.Fatalf("ReadFile = %v, want %q", err, want)
	}
}
