package servermetrics

import (
	"context"
	"fmt"
	"math/rand/v2"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/go-sql-driver/mysql"

	"github.com/goslap/goslap/internal/mysqlconn"
	"github.com/goslap/goslap/internal/procstat"
	"github.com/goslap/goslap/internal/testserver"
	"github.com/goslap/goslap/internal/testserver/servertest"
)

// The test server starts with a buffer pool of 8M (the small
// pool), so a table of a few times that does not fit; the buffer-pool test
// grows the pool online to 256M for its second half.
func TestMain(m *testing.M) {
	servertest.Main(m, testserver.Config{Options: []string{"innodb_buffer_pool_size=8M"}}, nil)
}

// connect opens a mysqlconn connection with cfg.
func connect(t *testing.T, cfg *mysql.Config) *mysqlconn.Conn {
	t.Helper()
	cfg = cfg.Clone()
	cfg.Logger = &mysql.NopLogger{}
	c, err := mysqlconn.NewConnector(cfg, "")
	if err != nil {
		t.Fatal(err)
	}
	conn, err := c.Connect(nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(conn.Close)
	return conn
}

func tcpConfig(s *testserver.Server, user string) *mysql.Config {
	cfg := s.RootConfig("")
	cfg.User = user
	cfg.Net, cfg.Addr = "tcp", "127.0.0.1:"+strconv.Itoa(s.Port)
	return cfg
}

// query runs stmt on conn and fails the test on an error.
func query(t *testing.T, conn *mysqlconn.Conn, stmt string) [][][]byte {
	t.Helper()
	rows, err := conn.Query(stmt)
	if err != nil {
		t.Fatalf("%s: %v", stmt, err)
	}
	return rows
}

func exec(t *testing.T, conn *mysqlconn.Conn, stmt string) {
	t.Helper()
	if err := conn.Exec(stmt); err != nil {
		t.Fatalf("%s: %v", stmt, err)
	}
}

// TestReaderTakesOutItsOwnShare: between two snapshots of an otherwise
// idle server, the counters show exactly the statements another client
// sent, none of the reader's own.
func TestReaderTakesOutItsOwnShare(t *testing.T) {
	s := servertest.Require(t)
	r := NewReader(connect(t, s.RootConfig("")))
	load := connect(t, s.RootConfig(""))
	for _, n := range []int{0, 1, 7} {
		a, _, err := r.Snapshot()
		if err != nil {
			t.Fatal(err)
		}
		for range n {
			exec(t, load, "SELECT 1")
		}
		b, _, err := r.Snapshot()
		if err != nil {
			t.Fatal(err)
		}
		d := Diff(a, b)
		for _, name := range []string{"Questions", "Com_select"} {
			if got := d.Counters[name]; got != int64(n) {
				t.Errorf("%d statements: %s = %d", n, name, got)
			}
		}
		for _, name := range []string{"Created_tmp_tables", "Handler_read_rnd_next"} {
			if got, ok := d.Counters[name]; !ok || got != 0 {
				t.Errorf("%d SELECT 1: %s = %d (present %v), want 0: the reader's own share is left in", n, name, got, ok)
			}
		}
		// A client's thread stops running just after its reply is sent:
		// only the idle round shows no thread but the reader's.
		if n == 0 && d.Gauges["Threads_running"] != 0 {
			t.Errorf("Threads_running = %d on an idle server: the reader's own thread is counted", d.Gauges["Threads_running"])
		}
	}
	if len(r.Footprint()) == 0 {
		t.Error("no footprint measured")
	}
	t.Logf("one snapshot adds: %v", r.Footprint())
}

// TestLocate finds the test server's process from its socket and its
// port, and says why for an address that is not on this host.
func TestLocate(t *testing.T) {
	s := servertest.Require(t)
	remote := tcpConfig(s, "root")
	remote.Addr = "192.0.2.1:3306" // TEST-NET-1: never this host
	tests := []struct {
		name      string
		cfg       *mysql.Config
		wantPID   int
		wantFound string
		wantWhy   string
	}{
		{"unix socket", s.RootConfig(""), s.PID(), "unix socket owner", ""},
		{"loopback tcp", tcpConfig(s, "root"), s.PID(), "tcp listener owner", ""},
		{"another host", remote, 0, "", "not on a loopback address"},
	}
	conn := connect(t, s.RootConfig(""))
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			loc := Locate(conn, tt.cfg, procRoot())
			if loc.PID != tt.wantPID || loc.Found != tt.wantFound || !strings.Contains(loc.Why, tt.wantWhy) {
				t.Errorf("Locate = %+v, want pid %d found %q why ~%q", loc, tt.wantPID, tt.wantFound, tt.wantWhy)
			}
		})
	}
}

// TestServerCPU: the test server's CPU seconds grow by about a CPU-heavy
// query's time: present, positive, and not off by the clock-tick factor.
func TestServerCPU(t *testing.T) {
	s := servertest.Require(t)
	conn := connect(t, s.RootConfig(""))
	sm, err := New(Config{Driver: s.RootConfig(""), Location: Location{PID: s.PID(), Found: "sandbox"}, Proc: procRoot()})
	if err != nil {
		t.Fatal(err)
	}
	defer sm.Close()
	ctx := context.Background()
	a := sm.Sample(ctx)
	start := time.Now()
	query(t, conn, "SELECT BENCHMARK(2000000, SHA2('goslap', 256))")
	wall := time.Since(start)
	b := sm.Sample(ctx)
	fig := Figures(Between(a, b), 1, "query", sm.cfg.Location)
	if fig.PerTransaction.CPUMicros == nil {
		t.Fatalf("no server CPU: %v %v", fig.Notes, sm.Warnings())
	}
	cpu := time.Duration(*fig.PerTransaction.CPUMicros) * time.Microsecond
	t.Logf("query took %v, server CPU %v (user %.2fs system %.2fs)", wall, cpu, fig.Process.UserSeconds, fig.Process.SystemSeconds)
	// One thread cannot use more CPU than the wall time, plus what the
	// server's background threads did meanwhile (a tick factor too large
	// shows here); on a shared machine it may get much less, but not a
	// tenth (a tick factor too small).
	if cpu < wall/10 || cpu > wall+300*time.Millisecond {
		t.Errorf("server CPU %v for a query of %v", cpu, wall)
	}
	if fig.Host == nil || fig.Host.Busy <= 0 {
		t.Errorf("host CPU = %+v", fig.Host)
	}
}

// procRoot is the real /proc: these tests look only at the test server's
// own process and at the sockets it listens on.
func procRoot() procstat.Proc { return procstat.Proc{} }

func TestExploreServer(t *testing.T) {
	s := servertest.Require(t)
	conn := connect(t, s.RootConfig(""))
	r := NewReader(conn)
	a, w, err := r.Snapshot()
	t.Log(w, err)
	b, _, _ := r.Snapshot()
	c, _, _ := r.Snapshot()
	t.Logf("%v", Diff(a, b).Counters)
	t.Logf("%v", Diff(b, c).Counters)
	t.Logf("%v", c.Values)
	t.Logf("footprint %v", r.Footprint())
	r2 := NewReader(conn)
	r2.metricsOff = true
	a, _, _ = r2.Snapshot()
	b, _, _ = r2.Snapshot()
	t.Logf("status only: footprint %v", r2.Footprint())
	d := Diff(a, b).Counters
	t.Logf("status only residual: tmp %d rnd %d q %d", d["Created_tmp_tables"], d["Handler_read_rnd_next"], d["Questions"])
	for i := 0; i < 3; i++ {
		x, _ := conn.Query("SHOW SESSION STATUS WHERE Variable_name IN ('Created_tmp_tables','Handler_read_rnd_next','Questions')")
		y, _ := conn.Query("SHOW GLOBAL STATUS WHERE Variable_name IN ('Created_tmp_tables','Handler_read_rnd_next','Questions')")
		t.Logf("session %s %s %s global %s %s %s", x[0][1], x[1][1], x[2][1], y[0][1], y[1][1], y[2][1])
	}
	_ = fmt.Sprint
	_ = strings.Cut
	_ = rand.IntN
	_ = context.Background
	_ = atomic.AddInt64
	_ = time.Second
}
