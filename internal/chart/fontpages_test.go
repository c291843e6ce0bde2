package chart

import (
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"os"
	"testing"
	"unsafe"

	"codeberg.org/go-fonts/liberation/liberationserifregular"
)

// resident counts the whole pages inside b mapped in this process
// (/proc/self/pagemap's present bit; mincore would report the page cache).
func resident(t *testing.T, b []byte) (in, total int) {
	t.Helper()
	page := uintptr(os.Getpagesize())
	start := uintptr(unsafe.Pointer(unsafe.SliceData(b)))
	first := (start + page - 1) &^ (page - 1)
	last := (start + uintptr(len(b))) &^ (page - 1)
	f, err := os.Open("/proc/self/pagemap")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	n := int((last - first) / page)
	buf := make([]byte, 8*n)
	if _, err := f.ReadAt(buf, int64(first/page*8)); err != nil {
		t.Fatal(err)
	}
	for i := range n {
		in += int(binary.LittleEndian.Uint64(buf[8*i:]) >> 63)
	}
	return in, n
}

// TestFontPagesReleased: releasePages (run by the package initialiser
// once gonum/plot's has parsed the fonts) takes the font pages out of the
// process's resident set, and reading the font again (a chart drawn with
// --plot) gives the executable's bytes unchanged. The pages are faulted in
// first: other tests of the package draw charts.
func TestFontPagesReleased(t *testing.T) {
	ttf := liberationserifregular.TTF
	const want = "a82e5f4350d6b66d44d1c77f718d7c658a23ae6097c115748f5ab58c0723af59" // LiberationSerif-Regular.ttf, go-fonts/liberation v0.5.0
	for round := range 2 {
		sum := sha256.Sum256(ttf)
		if got := hex.EncodeToString(sum[:]); got != want {
			t.Fatalf("round %d: font bytes sha256 %s, want %s", round, got, want)
		}
		if in, total := resident(t, ttf); in != total {
			t.Fatalf("round %d: reading the font left %d of %d pages resident", round, in, total)
		}
		releasePages(ttf)
		if in, total := resident(t, ttf); in > 0 {
			t.Errorf("round %d: %d of %d font pages resident after releasePages", round, in, total)
		}
	}
}
