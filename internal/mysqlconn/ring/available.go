package ring

import (
	"runtime"
	"sync"
)

// Available reports whether a ring can be set up here, probed once on an
// OS thread of its own (New must run on a locked thread): the tests of
// every package with a ring path ask it before they require the ring.
var Available = sync.OnceValue(func() bool {
	ok := make(chan bool)
	go func() {
		runtime.LockOSThread()
		defer runtime.UnlockOSThread()
		l, err := New(1)
		if err == nil {
			_ = l.Close()
		}
		ok <- err == nil
	}()
	return <-ok
})
