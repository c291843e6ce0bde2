package mysqlconn

import (
	"bytes"
	"io"
	"math/rand/v2"
	"net"
	"testing"
)

// TestTrackedConnReadAhead: the bytes the driver reads through the socket
// wrapper are the bytes sent, whatever the mix of small and large reads,
// before and after the read-ahead buffer is switched on.
func TestTrackedConnReadAhead(t *testing.T) {
	client, server := net.Pipe()
	defer client.Close()
	rng := rand.New(rand.NewPCG(3, 4))
	want := make([]byte, 200000)
	for i := range want {
		want[i] = byte(rng.Uint32())
	}
	go func() {
		rest := want
		for len(rest) > 0 {
			n := min(len(rest), 1+rng.IntN(40000))
			server.Write(rest[:n])
			rest = rest[n:]
		}
		server.Close()
	}()
	tc := &socket{Conn: client}
	got := readInMixedSizes(t, tc)
	if tc.rbuf == nil {
		t.Error("read-ahead never switched on")
	}
	if !bytes.Equal(got, want) {
		t.Fatalf("read %d bytes, differing from the %d sent", len(got), len(want))
	}
}

// readInMixedSizes reads tc to EOF with the driver's mix of small header
// reads, 4 KB reads and large ones.
func readInMixedSizes(t *testing.T, tc *socket) []byte {
	t.Helper()
	var got []byte
	sizes := []int{4, 4096, 100, 4096, 4096, 7, 20000, 4096, 1}
	for i := 0; ; i++ {
		b := make([]byte, sizes[i%len(sizes)])
		n, err := tc.Read(b)
		got = append(got, b[:n]...)
		if err == io.EOF {
			return got
		}
		if err != nil {
			t.Fatal(err)
		}
	}
}
