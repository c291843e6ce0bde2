package orchestrator

import (
	"context"
	"fmt"
	"math"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/go-sql-driver/mysql"

	"github.com/goslap/goslap/internal/mysqlconn"
	"github.com/goslap/goslap/internal/procstat"
	"github.com/goslap/goslap/internal/results/jsondoc"
	"github.com/goslap/goslap/internal/sandbox"
	"github.com/goslap/goslap/internal/sandbox/servertest"
	"github.com/goslap/goslap/internal/workload"
)

func TestMain(m *testing.M) { servertest.Main(m, sandbox.Config{}, nil) }

// updates is a workload of one-row UPDATEs (autocommit), one row per
// client: writes, so FLUSH TABLES WITH READ LOCK holds them up.
type updates struct{}

func (updates) Ops() []string { return []string{"update"} }
func (updates) Setup(context.Context, *workload.Session, workload.Point) error {
	return nil
}
func (updates) BeginIteration(context.Context, *workload.Session, workload.Iteration) error {
	return nil
}
func (updates) EndIteration(context.Context, *workload.Session, workload.Iteration) error {
	return nil
}
func (updates) Teardown(context.Context, *workload.Session, workload.Point) error { return nil }
func (updates) Load(workload.Iteration) (workload.Load, error)                    { return updates{}, nil }
func (updates) Client(id int) workload.Client {
	return &updater{stmt: fmt.Sprintf("UPDATE metrics_t SET v = v + 1 WHERE id = %d", id+1)}
}

type updater struct {
	stmt  string
	tally workload.Tally
}

func (u *updater) Begin(*mysqlconn.Conn) error { return nil }
func (u *updater) End(*mysqlconn.Conn) error   { return nil }
func (u *updater) Tally() workload.Tally       { return u.tally }
func (u *updater) Next(c *mysqlconn.Conn) (workload.Step, error) {
	u.tally.Writes++
	return workload.Step{}, c.Exec(u.stmt)
}

// prepare makes the schema and table of the updates workload.
func prepare(t *testing.T, s *sandbox.Server) (*mysqlconn.Conn, *mysql.Config) {
	t.Helper()
	root := s.RootConfig("")
	root.Logger = &mysql.NopLogger{}
	c, err := mysqlconn.NewConnector(root, "")
	if err != nil {
		t.Fatal(err)
	}
	main, err := c.Connect(nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(main.Close)
	for _, q := range []string{"CREATE DATABASE IF NOT EXISTS metrics_test",
		"CREATE TABLE IF NOT EXISTS metrics_test.metrics_t (id INT PRIMARY KEY, v BIGINT NOT NULL) ENGINE=InnoDB",
		"REPLACE INTO metrics_test.metrics_t VALUES (1,0),(2,0),(3,0),(4,0)"} {
		if err := main.Exec(q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	schema := s.RootConfig("metrics_test")
	schema.Logger = &mysql.NopLogger{}
	return main, schema
}

// run runs the updates workload for d with the sampling m and returns the
// benchmark's document figures and the warnings said.
func run(t *testing.T, s *sandbox.Server, m *Metrics, d time.Duration, during func()) (jsondoc.Benchmark, []string) {
	t.Helper()
	main, schema := prepare(t, s)
	clients, err := mysqlconn.NewConnector(schema, "")
	if err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	var warnings []string
	m.Warn = func(l string) { mu.Lock(); warnings = append(warnings, l); mu.Unlock() }
	l := &Loop{Workload: updates{}, Session: &workload.Session{Main: main}, Clients: clients,
		Concurrency: []int{2}, Iterations: 1, Limits: Limits{Duration: d}, Metrics: m}
	done := make(chan struct{})
	if during != nil {
		go func() { defer close(done); during() }()
	} else {
		close(done)
	}
	cells, err := l.Run(context.Background())
	<-done
	if err != nil {
		t.Fatal(err)
	}
	var b jsondoc.Benchmark
	serverJSON(&b, cells[0].Benchmarks, cells[0].Servers, m.unit())
	return b, warnings
}

// TestSampledRun: a run against a server whose process is known has
// server CPU per transaction, disk reads per transaction, and one
// interval per interval length of the run, each with the server's span.
func TestSampledRun(t *testing.T) {
	s := servertest.Require(t)
	m := &Metrics{Driver: s.RootConfig(""), PID: s.PID(), Found: "sandbox", Interval: 250 * time.Millisecond}
	b, warnings := run(t, s, m, 2*time.Second, nil)
	if b.Server == nil {
		t.Fatalf("no server figures (warnings %q)", warnings)
	}
	p := b.Server.PerTransaction
	if p.CPUMicros == nil || *p.CPUMicros <= 0 || p.DiskReads == nil {
		t.Errorf("per transaction: cpu %v, disk reads %v (notes %q)", p.CPUMicros, p.DiskReads, b.Server.Notes)
	}
	if b.Server.Process == nil || b.Server.Process.Found != "sandbox" {
		t.Errorf("process %+v, want the sandbox's", b.Server.Process)
	}
	if n := len(b.Intervals); n < 7 || n > 8 {
		t.Errorf("%d intervals of 250ms in a 2s run, want 7 or 8", n)
	}
	var units uint64
	for i, iv := range b.Intervals {
		units += iv.Transactions
		if iv.Server == nil || iv.Server.Counters["Handler_update"] == 0 {
			t.Errorf("interval %d: no server span or no updates in it", i)
		}
		if iv.Latency.Count == 0 {
			t.Errorf("interval %d has no latency", i)
		}
	}
	if units == 0 || units > b.Server.Units {
		t.Errorf("intervals hold %d units, the run %d", units, b.Server.Units)
	}
}

// TestServerNotVisible: a server reached over TCP whose process this
// /proc does not show (a decoy tree) gets its counters and says why it
// has no CPU.
func TestServerNotVisible(t *testing.T) {
	s := servertest.Require(t)
	tcp := s.RootConfig("")
	tcp.Net, tcp.Addr = "tcp", "127.0.0.1:"+strconv.Itoa(s.Port)
	m := &Metrics{Driver: tcp, Proc: procstat.Proc{Root: t.TempDir()}}
	b, _ := run(t, s, m, time.Second, nil)
	if b.Server == nil {
		t.Fatal("no server figures")
	}
	if b.Server.PerTransaction.CPUMicros != nil || b.Server.Process != nil {
		t.Errorf("cpu %v process %+v for a server goslap cannot see", b.Server.PerTransaction.CPUMicros, b.Server.Process)
	}
	said := strings.Join(b.Server.Notes, "; ")
	if !strings.Contains(said, "no server CPU or IO") {
		t.Errorf("notes %q do not say why there is no server CPU", b.Server.Notes)
	}
	if b.Server.PerTransaction.DiskReads == nil {
		t.Error("no disk reads: the status counters should still be read")
	}
	lines := strings.Join(ServerLines(&Cell{Benchmarks: nil}, "transaction"), "\n")
	if lines != "" {
		t.Errorf("an unsampled cell has lines %q", lines)
	}
}

// TestStallFlagged: FLUSH TABLES WITH READ LOCK held for 2 s in the middle
// of a run stops the writes; those intervals are flagged as stalls.
func TestStallFlagged(t *testing.T) {
	s := servertest.Require(t)
	m := &Metrics{Driver: s.RootConfig(""), PID: s.PID(), Interval: 250 * time.Millisecond}
	lock := func() {
		time.Sleep(1500 * time.Millisecond)
		c, err := mysqlconn.NewConnector(s.RootConfig(""), "")
		if err != nil {
			t.Error(err)
			return
		}
		conn, err := c.Connect(nil)
		if err != nil {
			t.Error(err)
			return
		}
		defer conn.Close()
		if err := conn.Exec("FLUSH TABLES WITH READ LOCK"); err != nil {
			t.Error(err)
			return
		}
		time.Sleep(2 * time.Second)
		if err := conn.Exec("UNLOCK TABLES"); err != nil {
			t.Error(err)
		}
	}
	b, _ := run(t, s, m, 5*time.Second, lock)
	stalls := 0
	for _, iv := range b.Intervals {
		if iv.Stall {
			stalls++
		}
	}
	// 2 s of 250 ms intervals: about 8 stalled.
	if stalls < 5 || stalls > 10 {
		t.Errorf("%d of %d intervals flagged as stalls, want about 8", stalls, len(b.Intervals))
	}
	if line := stallLine(b.Intervals); !strings.HasPrefix(line, fmt.Sprintf("Stalls: %d of %d intervals", stalls, len(b.Intervals))) {
		t.Errorf("stall line %q", line)
	}
}

// TestNoProcessPrivilege: a user without PROCESS gets one warning line
// however many samples, and a result with the status counters.
func TestNoProcessPrivilege(t *testing.T) {
	s := servertest.Require(t)
	main, _ := prepare(t, s)
	for _, q := range []string{"DROP USER IF EXISTS 'metrics_noproc'@'%'",
		"CREATE USER 'metrics_noproc'@'%' IDENTIFIED BY 'pw'", "GRANT SELECT ON test.* TO 'metrics_noproc'@'%'"} {
		if err := main.Exec(q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	t.Cleanup(func() { _ = main.Exec("DROP USER IF EXISTS 'metrics_noproc'@'%'") })
	cfg := s.RootConfig("")
	cfg.Net, cfg.Addr = "tcp", "127.0.0.1:"+strconv.Itoa(s.Port)
	cfg.User, cfg.Passwd = "metrics_noproc", "pw"
	m := &Metrics{Driver: cfg, PID: s.PID(), Interval: 200 * time.Millisecond}
	b, warnings := run(t, s, m, time.Second, nil)
	if len(warnings) != 1 || !strings.Contains(warnings[0], "PROCESS") {
		t.Errorf("warnings %q, want one about PROCESS", warnings)
	}
	if b.Server == nil || b.Server.PerTransaction.DiskReads == nil || b.Server.PerTransaction.CPUMicros == nil {
		t.Errorf("server figures %+v", b.Server)
	}
}

// TestIntervalsKeptUnsampled: a run keeps its intervals whether or not
// the server is sampled, at the Metrics' interval (1 s by default), as
// many as fit in the run, without server figures; the stall flags are
// computed over them.
func TestIntervalsKeptUnsampled(t *testing.T) {
	s := servertest.Require(t)
	for _, tc := range []struct {
		name  string
		m     *Metrics
		d     time.Duration
		every time.Duration
		want  int
	}{
		{"no sampling configured", nil, 2200 * time.Millisecond, time.Second, 2},
		{"sampling off", &Metrics{Off: true}, 2200 * time.Millisecond, time.Second, 2},
		{"sampling off, 250 ms", &Metrics{Off: true, Interval: 250 * time.Millisecond}, 1100 * time.Millisecond, 250 * time.Millisecond, 4},
	} {
		t.Run(tc.name, func(t *testing.T) {
			main, schema := prepare(t, s)
			clients, err := mysqlconn.NewConnector(schema, "")
			if err != nil {
				t.Fatal(err)
			}
			l := &Loop{Workload: updates{}, Session: &workload.Session{Main: main}, Clients: clients,
				Concurrency: []int{2}, Iterations: 1, Limits: Limits{Duration: tc.d}, Metrics: tc.m}
			cells, err := l.Run(context.Background())
			if err != nil {
				t.Fatal(err)
			}
			var b jsondoc.Benchmark
			serverJSON(&b, cells[0].Benchmarks, cells[0].Servers, "transaction")
			// As many as fit in the measured time (on a loaded machine a
			// run lasts longer than asked: its last unit ends late), the
			// last one possibly lost to the end of the run.
			elapsed := cells[0].Benchmarks[0].Elapsed
			fit := int(elapsed / tc.every)
			if n := len(b.Intervals); n < max(fit-1, 1) || n > fit {
				t.Fatalf("%d intervals of %v in a run of %v, want %d or %d", n, tc.every, elapsed, fit-1, fit)
			}
			var units uint64
			prev := 0.0
			for i, iv := range b.Intervals {
				units += iv.Transactions
				if iv.Iteration != 1 || iv.AtSeconds < float64(i+1)*tc.every.Seconds() || math.Abs(iv.Seconds-(iv.AtSeconds-prev)) > 1e-6 ||
					iv.Queries != iv.Transactions || iv.Latency.Count != int64(iv.Transactions) || iv.Server != nil {
					t.Errorf("interval %d: %+v", i, iv)
				}
				prev = iv.AtSeconds
			}
			if total := cells[0].Benchmarks[0].Events; units > total || units < total/2 {
				t.Errorf("intervals hold %d of the run's %d transactions", units, total)
			}
		})
	}
}
