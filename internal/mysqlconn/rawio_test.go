package mysqlconn

import (
	"io"
	"testing"
)

// TestRawIONoAllocs: on the netpoller path a request written and its reply
// read allocate nothing (a closure per raw call cost four allocations per
// statement), whether or not the read has to wait in the netpoller.
func TestRawIONoAllocs(t *testing.T) {
	for _, tc := range []struct {
		name   string
		before bool // the reply is in the socket before the read
	}{{"reply waiting", true}, {"read waits", false}} {
		t.Run(tc.name, func(t *testing.T) {
			c, s := unixPair(t)
			req, reply := make([]byte, 42), make([]byte, 16)
			echo := make(chan bool)
			done := make(chan error, 1)
			go func() {
				buf := make([]byte, len(req))
				for range echo {
					if _, err := io.ReadFull(s, buf); err != nil {
						done <- err
						return
					}
					if _, err := s.Write(buf[:len(reply)]); err != nil {
						done <- err
						return
					}
					done <- nil
				}
			}()
			roundTrip := func() {
				if _, err := c.Write(req); err != nil {
					t.Fatal(err)
				}
				echo <- true
				if tc.before {
					if err := <-done; err != nil {
						t.Fatal(err)
					}
				}
				if _, err := io.ReadFull(c, reply); err != nil {
					t.Fatal(err)
				}
				if !tc.before {
					if err := <-done; err != nil {
						t.Fatal(err)
					}
				}
			}
			roundTrip() // the socket's state is made once
			if n := testing.AllocsPerRun(50, roundTrip); n != 0 {
				t.Errorf("%.1f allocations per round trip, want 0", n)
			}
			close(echo)
		})
	}
}
