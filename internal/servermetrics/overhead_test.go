package servermetrics

import (
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"sort"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/goslap/goslap/internal/mysqlconn"
	"github.com/goslap/goslap/internal/sandbox/servertest"
)

// TestSamplerOverhead measures what sampling costs a load: point selects
// on two connections for rounds of GOSLAP_OVERHEAD_ROUND (default 2s),
// alternating without a sampler, with one at 1 s and with one at 100 ms
// (each first in turn),
// GOSLAP_OVERHEAD_ROUNDS times (default 5); it logs the median
// throughput of each. A measurement, not a check: it runs only with
// GOSLAP_OVERHEAD=1.
//
//	GOSLAP_OVERHEAD=1 CI=true go test -count=1 -run SamplerOverhead -v ./internal/servermetrics
func TestSamplerOverhead(t *testing.T) {
	if os.Getenv("GOSLAP_OVERHEAD") != "1" {
		t.Skip("a measurement: set GOSLAP_OVERHEAD=1 to run it")
	}
	s := servertest.Require(t)
	round, rounds := 2*time.Second, 5
	if d, err := time.ParseDuration(os.Getenv("GOSLAP_OVERHEAD_ROUND")); err == nil && d > 0 {
		round = d
	}
	if n, err := strconv.Atoi(os.Getenv("GOSLAP_OVERHEAD_ROUNDS")); err == nil && n > 0 {
		rounds = n
	}
	root := connect(t, s.RootConfig(""))
	exec(t, root, "CREATE DATABASE IF NOT EXISTS test")
	exec(t, root, "DROP TABLE IF EXISTS test.points")
	exec(t, root, "CREATE TABLE test.points (id INT PRIMARY KEY, c CHAR(120)) ENGINE=InnoDB")
	exec(t, root, "INSERT INTO test.points VALUES (1, REPEAT('c', 120))")
	for i := 0; i < 13; i++ {
		exec(t, root, fmt.Sprintf("INSERT INTO test.points SELECT id + %d, c FROM test.points", 1<<i))
	}
	const clients, rows = 2, 1 << 13
	conns := make([]*mysqlconn.Conn, clients)
	for i := range conns {
		conns[i] = connect(t, s.RootConfig(""))
	}
	load := func() float64 {
		var n atomic.Int64
		var wg sync.WaitGroup
		end := time.Now().Add(round)
		for i, c := range conns {
			wg.Add(1)
			go func() {
				defer wg.Done()
				rng := rand.New(rand.NewPCG(uint64(i), 7))
				for time.Now().Before(end) {
					if _, err := c.Query("SELECT c FROM test.points WHERE id = " + strconv.Itoa(1+rng.IntN(rows))); err != nil {
						t.Error(err)
						return
					}
					n.Add(1)
				}
			}()
		}
		wg.Wait()
		return float64(n.Load()) / round.Seconds()
	}
	kinds := []struct {
		name     string
		interval time.Duration // 0: no sampler
	}{{"no sampler", 0}, {"sampler at 1s", time.Second}, {"sampler at 100ms", 100 * time.Millisecond}}
	got := make([][]float64, len(kinds))
	load() // warm-up
	for r := 0; r < rounds; r++ {
		for i := range kinds {
			k := (i + r) % len(kinds) // each kind goes first in turn: no order effect
			kind := kinds[k]
			if kind.interval == 0 {
				got[k] = append(got[k], load())
				continue
			}
			sm, err := New(Config{Driver: s.RootConfig(""), Location: Location{PID: s.PID()}, Proc: procRoot(), Interval: kind.interval})
			if err != nil {
				t.Fatal(err)
			}
			sm.Sample(context.Background()) // connected and calibrated before the load
			ctx, cancel := context.WithCancel(context.Background())
			done := make(chan struct{})
			go func() { defer close(done); sm.Run(ctx) }()
			got[k] = append(got[k], load())
			cancel()
			<-done
			sm.Close()
		}
	}
	base := medianOf(got[0])
	for k, kind := range kinds {
		m := medianOf(got[k])
		t.Logf("%-17s median %.0f queries/s over %d rounds of %v (%+.1f%% against none): %.0f", kind.name, m, rounds, round, 100*(m-base)/base, got[k])
	}
}

func medianOf(v []float64) float64 {
	s := append([]float64(nil), v...)
	sort.Float64s(s)
	if len(s)%2 == 1 {
		return s[len(s)/2]
	}
	return (s[len(s)/2-1] + s[len(s)/2]) / 2
}
