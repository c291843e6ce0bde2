package chart

import (
	"os"
	"unsafe"

	"codeberg.org/go-fonts/liberation/liberationmonobold"
	"codeberg.org/go-fonts/liberation/liberationmonobolditalic"
	"codeberg.org/go-fonts/liberation/liberationmonoitalic"
	"codeberg.org/go-fonts/liberation/liberationmonoregular"
	"codeberg.org/go-fonts/liberation/liberationsansbold"
	"codeberg.org/go-fonts/liberation/liberationsansbolditalic"
	"codeberg.org/go-fonts/liberation/liberationsansitalic"
	"codeberg.org/go-fonts/liberation/liberationsansregular"
	"codeberg.org/go-fonts/liberation/liberationserifbold"
	"codeberg.org/go-fonts/liberation/liberationserifbolditalic"
	"codeberg.org/go-fonts/liberation/liberationserifitalic"
	"codeberg.org/go-fonts/liberation/liberationserifregular"
	"golang.org/x/sys/unix"
)

// gonum/plot's package initialiser parses the 12 embedded Liberation fonts
// (4.9 MB in the executable's data segment) whether or not a chart is ever
// drawn, leaving ~3.8 MB of those file pages resident in every goslap
// process, the load process included: a quarter of goslap's max RSS at 16
// clients (BENCHMARKS.md). A package initialiser cannot be made lazy from
// outside, so once it has run, this one hands the pages back to the kernel
// (madvise MADV_DONTNEED). The font bytes are never written, so the pages
// are clean copies of the executable file: a chart drawn later (--plot)
// faults them back in with the same content.
func init() {
	if os.Getenv("GOSLAP_KEEP_FONT_PAGES") != "" {
		return // for measuring what this saves
	}
	for _, ttf := range [][]byte{
		liberationserifregular.TTF, liberationserifitalic.TTF, liberationserifbold.TTF, liberationserifbolditalic.TTF,
		liberationsansregular.TTF, liberationsansitalic.TTF, liberationsansbold.TTF, liberationsansbolditalic.TTF,
		liberationmonoregular.TTF, liberationmonoitalic.TTF, liberationmonobold.TTF, liberationmonobolditalic.TTF,
	} {
		releasePages(ttf)
	}
}

// releasePages drops the whole pages inside b from the resident set; the
// partial pages at its ends may hold other variables and are kept.
func releasePages(b []byte) {
	page := uintptr(os.Getpagesize())
	if len(b) == 0 {
		return
	}
	start := uintptr(unsafe.Pointer(unsafe.SliceData(b)))
	first := (start + page - 1) &^ (page - 1)
	last := (start + uintptr(len(b))) &^ (page - 1)
	if last <= first {
		return
	}
	_ = unix.Madvise(b[first-start:last-start], unix.MADV_DONTNEED)
}
