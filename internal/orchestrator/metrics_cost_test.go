package orchestrator

import (
	"context"
	"os"
	"sort"
	"strconv"
	"testing"
	"time"

	"github.com/goslap/goslap/internal/mysqlconn"
	"github.com/goslap/goslap/internal/sandbox/servertest"
	"github.com/goslap/goslap/internal/servermetrics"
	"github.com/goslap/goslap/internal/workload"
)

// selects is a workload of primary-key point selects: the load the
// sampling would disturb most (short units, many per second).
type selects struct{ updates }

func (selects) Ops() []string                                  { return []string{"select"} }
func (selects) Load(workload.Iteration) (workload.Load, error) { return selects{}, nil }
func (selects) Client(id int) workload.Client {
	return &selecter{stmt: "SELECT v FROM metrics_t WHERE id = " + strconv.Itoa(id%4+1)}
}

type selecter struct {
	stmt  string
	tally workload.Tally
}

func (u *selecter) Begin(*mysqlconn.Conn) error { return nil }
func (u *selecter) End(*mysqlconn.Conn) error   { return nil }
func (u *selecter) Tally() workload.Tally       { return u.tally }
func (u *selecter) Next(c *mysqlconn.Conn) (workload.Step, error) {
	u.tally.Reads++
	_, err := c.Query(u.stmt)
	return workload.Step{}, err
}

// TestSamplingCost measures what the sampling costs the load it
// samples: rounds of point selects on two clients through the Loop,
// alternating with the sampling on (1 s, the default) and off (each
// first in turn), GOSLAP_COST_ROUNDS times (default 8) of
// GOSLAP_COST_ROUND (default 3s); it logs the median throughput of each.
// A measurement, not a check: it runs only with GOSLAP_COST=1.
//
//	GOSLAP_COST=1 CI=true go test -count=1 -run SamplingCost -v ./internal/orchestrator
func TestSamplingCost(t *testing.T) {
	if os.Getenv("GOSLAP_COST") != "1" {
		t.Skip("a measurement: set GOSLAP_COST=1 to run it")
	}
	s := servertest.Require(t)
	main, schema := prepare(t, s)
	clients, err := mysqlconn.NewConnector(schema, "")
	if err != nil {
		t.Fatal(err)
	}
	round, rounds := 3*time.Second, 8
	if d, err := time.ParseDuration(os.Getenv("GOSLAP_COST_ROUND")); err == nil && d > 0 {
		round = d
	}
	if n, err := strconv.Atoi(os.Getenv("GOSLAP_COST_ROUNDS")); err == nil && n > 0 {
		rounds = n
	}
	tps := map[bool][]float64{}
	var samples int
	for i := 0; i < rounds; i++ {
		for _, on := range [][]bool{{true, false}, {false, true}}[i%2] {
			l := &Loop{Workload: selects{}, Session: &workload.Session{Main: main}, Clients: clients,
				Concurrency: []int{2}, Iterations: 1, Limits: Limits{Duration: round}}
			if on {
				l.Metrics = &Metrics{Driver: s.RootConfig(""), PID: s.PID(), Found: "sandbox"}
			}
			cells, err := l.Run(context.Background())
			if err != nil {
				t.Fatal(err)
			}
			b := cells[0].Benchmarks[0]
			tps[on] = append(tps[on], float64(b.Events)/b.Elapsed.Seconds())
			if on && cells[0].Servers[0] != nil {
				samples += len(cells[0].Servers[0].Intervals) + 2
			}
		}
	}
	median := func(v []float64) float64 {
		sort.Float64s(v)
		return v[len(v)/2]
	}
	// What one sample costs, on an idle server: its wall time (goslap's
	// sampling goroutine) and the server's CPU it takes.
	sm, err := servermetrics.New(servermetrics.Config{Driver: s.RootConfig(""), Location: servermetrics.Location{PID: s.PID(), Found: "sandbox"}})
	if err != nil {
		t.Fatal(err)
	}
	defer sm.Close()
	ctx := context.Background()
	first := sm.Sample(ctx)
	const n = 50
	start := time.Now()
	var last servermetrics.Sample
	for i := 0; i < n; i++ {
		last = sm.Sample(ctx)
	}
	wall := time.Since(start) / n
	span := servermetrics.Between(first, last)
	t.Logf("one sample: %v wall, %v of the server's CPU (over %d samples of an idle server)", wall,
		(span.ServerUser+span.ServerSystem)/n, n)
	load, _ := os.ReadFile("/proc/loadavg")
	on, off := median(tps[true]), median(tps[false])
	t.Logf("%d rounds of %v, 2 clients: median %.0f/s sampled (%d samples), %.0f/s not: %+.1f%%; load average %s",
		rounds, round, on, samples, off, 100*(on-off)/off, load)
}
