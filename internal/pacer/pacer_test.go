package pacer

import (
	"testing"
	"time"
)

func TestDueSplitsTheScheduleBetweenClients(t *testing.T) {
	p := Pacer{Rate: 1000, Clients: 4}
	seen := map[time.Duration]bool{}
	for c := range 4 {
		for k := range uint64(25) {
			d := p.Due(c, k)
			if seen[d] {
				t.Fatalf("slot %v scheduled twice", d)
			}
			seen[d] = true
		}
	}
	// 100 slots, 1 ms apart, from 0 to 99 ms.
	for i := range 100 {
		if !seen[time.Duration(i)*time.Millisecond] {
			t.Errorf("slot %d ms missing", i)
		}
	}
	if got := p.Due(3, 10); got != 43*time.Millisecond {
		t.Errorf("Due(3,10) = %v, want 43ms", got)
	}
}

func TestDueFractionalRate(t *testing.T) {
	p := Pacer{Rate: 3, Clients: 1}
	if got, want := p.Due(0, 1), 333333333*time.Nanosecond; got != want {
		t.Errorf("Due = %v, want %v", got, want)
	}
	if got := p.Due(0, 3); got != time.Second {
		t.Errorf("Due(0,3) = %v", got)
	}
}

func TestKept(t *testing.T) {
	p := Pacer{Rate: 200, Clients: 2}
	if !p.Kept(191) || p.Kept(189) {
		t.Errorf("Kept threshold wrong")
	}
}
