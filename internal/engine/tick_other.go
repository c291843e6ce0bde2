//go:build !linux

package engine

import "time"

// ticker is what the reporter waits on between intervals: until a time or
// until stop wakes it (tick_linux.go says why Linux avoids a timer).
type ticker struct {
	quit chan struct{}
}

func newTicker() (*ticker, error) { return &ticker{quit: make(chan struct{})}, nil }

// until waits until t or until wake; true when woken.
func (k *ticker) until(t time.Time) bool {
	timer := time.NewTimer(time.Until(t))
	defer timer.Stop()
	select {
	case <-k.quit:
		return true
	case <-timer.C:
		return false
	}
}

func (k *ticker) wake() { close(k.quit) }

func (k *ticker) close() {}
