package servermetrics

import (
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/go-sql-driver/mysql"

	"github.com/goslap/goslap/internal/mysqlconn"
	"github.com/goslap/goslap/internal/procstat"
	"github.com/goslap/goslap/internal/sandbox"
	"github.com/goslap/goslap/internal/sandbox/servertest"
)

// The test server starts with a buffer pool of 8M (the small
// pool), so a table of a few times that does not fit; the buffer-pool test
// grows the pool online to 256M for its second half.
func TestMain(m *testing.M) {
	servertest.Main(m, sandbox.Config{Options: []string{"innodb_buffer_pool_size=8M"}}, nil)
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

func tcpConfig(s *sandbox.Server, user string) *mysql.Config {
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
	load := connect(t, s.RootConfig(""))
	// MariaDB answers the first source; SHOW GLOBAL STATUS is what a
	// server without the others gets, calibrated on the global counters.
	for _, tt := range []struct {
		name   string
		source int
	}{{"first source that answers", -1}, {"SHOW GLOBAL STATUS", len(statusSources) - 1}} {
		t.Run(tt.name, func(t *testing.T) {
			r := NewReader(connect(t, s.RootConfig("")))
			r.source = tt.source
			ownShare(t, r, load)
		})
	}
}

func ownShare(t *testing.T, r *Reader, load *mysqlconn.Conn) {
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
	// A /proc where the server's sockets are not to be seen (another
	// user's process) but its pid is a mariadbd: the pid file decides.
	pid := strconv.Itoa(s.PID())
	hidden := procstat.Proc{Root: t.TempDir()}
	for name, content := range map[string]string{"net/unix": "Num RefCount Protocol Flags Type St Inode Path\n", "net/tcp": "header\n", pid + "/comm": "mariadbd\n"} {
		writeFile(t, hidden.Root, name, content)
	}
	notServer := procstat.Proc{Root: t.TempDir()}
	writeFile(t, notServer.Root, "net/unix", "Num RefCount Protocol Flags Type St Inode Path\n")
	writeFile(t, notServer.Root, pid+"/comm", "bash\n")
	tests := []struct {
		name      string
		cfg       *mysql.Config
		proc      procstat.Proc
		wantPID   int
		wantFound string
		wantWhy   string
	}{
		{"unix socket", s.RootConfig(""), procRoot(), s.PID(), "unix socket owner", ""},
		{"loopback tcp", tcpConfig(s, "root"), procRoot(), s.PID(), "tcp listener owner", ""},
		{"another host", remote, procRoot(), 0, "", "not on a loopback address"},
		{"pid file", s.RootConfig(""), hidden, s.PID(), "pid file", ""},
		{"pid file names another program", s.RootConfig(""), notServer, 0, "", "not a MySQL or MariaDB server"},
	}
	conn := connect(t, s.RootConfig(""))
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			loc := Locate(conn, tt.cfg, tt.proc)
			if loc.PID != tt.wantPID || loc.Found != tt.wantFound || !strings.Contains(loc.Why, tt.wantWhy) {
				t.Errorf("Locate = %+v, want pid %d found %q why ~%q", loc, tt.wantPID, tt.wantFound, tt.wantWhy)
			}
		})
	}
	t.Run("sampler", func(t *testing.T) {
		sm, err := New(Config{Driver: tcpConfig(s, "root"), Proc: procRoot()})
		if err != nil {
			t.Fatal(err)
		}
		defer sm.Close()
		if loc := sm.Locate(context.Background()); loc.PID != s.PID() || sm.Location() != loc {
			t.Errorf("Sampler.Locate = %+v", loc)
		}
		if sm.Sample(context.Background()).Process == nil {
			t.Error("no process figures after Locate")
		}
	})
}

func writeFile(t *testing.T, root, name, content string) {
	t.Helper()
	p := filepath.Join(root, name)
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		t.Fatal(err)
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
	// shows here). The work is fixed, whatever else the machine runs:
	// 160-180 ms of CPU where it was measured, so a tick factor ten times
	// too small shows below 50 ms.
	if cpu < 50*time.Millisecond || cpu > wall+300*time.Millisecond {
		t.Errorf("server CPU %v for a query of %v", cpu, wall)
	}
	if fig.Host == nil || fig.Host.Busy <= 0 {
		t.Errorf("host CPU = %+v", fig.Host)
	}
}

// setPool resizes the buffer pool online and waits until the pool has
// that many pages: MariaDB resizes in the background after the SET
// returns, and its resize status is not always filled in.
func setPool(t *testing.T, conn *mysqlconn.Conn, bytes int64) {
	t.Helper()
	exec(t, conn, fmt.Sprintf("SET GLOBAL innodb_buffer_pool_size = %d", bytes))
	deadline := time.Now().Add(60 * time.Second)
	for {
		row := query(t, conn, "SELECT @@innodb_page_size, (SELECT VARIABLE_VALUE FROM information_schema.GLOBAL_STATUS WHERE VARIABLE_NAME = 'INNODB_BUFFER_POOL_PAGES_TOTAL')")[0]
		page, _ := strconv.ParseInt(string(row[0]), 10, 64)
		pages, _ := strconv.ParseInt(string(row[1]), 10, 64)
		if have := page * pages; have > bytes*9/10 && have < bytes*11/10 {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("buffer pool resize to %d not done in 60 s: %d pages of %d bytes", bytes, pages, page)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// fillTable makes test.scan, sysbench's sbtest layout, with 2^doublings
// rows; it is kept for later runs of the test in this server.
func fillTable(t *testing.T, conn *mysqlconn.Conn, doublings int) int64 {
	t.Helper()
	exec(t, conn, "CREATE DATABASE IF NOT EXISTS test")
	exec(t, conn, "CREATE TABLE IF NOT EXISTS test.scan (id INT NOT NULL PRIMARY KEY, k INT NOT NULL, c CHAR(120) NOT NULL, pad CHAR(60) NOT NULL, KEY (k)) ENGINE=InnoDB DEFAULT CHARSET=latin1")
	want := int64(1) << doublings
	n, _ := strconv.ParseInt(string(query(t, conn, "SELECT COUNT(*) FROM test.scan")[0][0]), 10, 64)
	if n == want {
		return n
	}
	exec(t, conn, "TRUNCATE test.scan")
	exec(t, conn, "INSERT INTO test.scan VALUES (1, 1, REPEAT('c', 120), REPEAT('p', 60))")
	for i := 0; i < doublings; i++ {
		exec(t, conn, fmt.Sprintf("INSERT INTO test.scan SELECT id + %d, (id * 7919) %% %d, CONCAT(MD5(id), REPEAT('c', 88)), REPEAT('p', 60) FROM test.scan", 1<<i, want))
	}
	return want
}

// readOnlyTransactions runs n transactions shaped like sysbench's
// oltp_read_only: ten point selects and four ranges of 100 rows at
// random places, in BEGIN ... COMMIT.
func readOnlyTransactions(t *testing.T, conn *mysqlconn.Conn, rows int64, n int) {
	t.Helper()
	rng := rand.New(rand.NewPCG(1, 2))
	for range n {
		exec(t, conn, "BEGIN")
		for range 10 {
			query(t, conn, fmt.Sprintf("SELECT c FROM test.scan WHERE id = %d", 1+rng.Int64N(rows)))
		}
		for range 4 {
			lo := 1 + rng.Int64N(rows-100)
			query(t, conn, fmt.Sprintf("SELECT c FROM test.scan WHERE id BETWEEN %d AND %d", lo, lo+99))
		}
		exec(t, conn, "COMMIT")
	}
}

// TestDiskReadsFollowTheBufferPool: the same read-only transactions on a
// table about four times an 8M buffer pool read from disk several times
// per transaction; after the pool grows to 256M online and the table is
// read once, almost never. One server does both: its pool is resized in
// place (MariaDB and MySQL 5.7+), cheaper than a second server and the
// same data files.
func TestDiskReadsFollowTheBufferPool(t *testing.T) {
	s := servertest.Require(t)
	conn := connect(t, s.RootConfig(""))
	setPool(t, conn, 256<<20) // filling is quicker in a pool it fits
	t0 := time.Now()
	rows := fillTable(t, conn, 17)
	t.Logf("filled in %v", time.Since(t0))
	setPool(t, conn, 8<<20)
	query(t, conn, "ANALYZE TABLE test.scan")
	size, _ := strconv.ParseInt(string(query(t, conn, "SELECT data_length FROM information_schema.TABLES WHERE table_schema = 'test' AND table_name = 'scan'")[0][0]), 10, 64)
	t.Logf("table: %d rows, %d bytes of data", rows, size)
	if size < 3*8<<20 {
		t.Fatalf("the table (%d bytes) is not a few times the 8M pool", size)
	}
	sm, err := New(Config{Driver: s.RootConfig(""), Location: Location{PID: s.PID(), Found: "sandbox"}, Proc: procRoot()})
	if err != nil {
		t.Fatal(err)
	}
	defer sm.Close()
	const n = 100
	measure := func(pool string) (diskReads, readRequests, cpuUS float64) {
		ctx := context.Background()
		a := sm.Sample(ctx)
		readOnlyTransactions(t, conn, rows, n)
		b := sm.Sample(ctx)
		f := Figures(Between(a, b), n, "transaction", sm.cfg.Location)
		p := f.PerTransaction
		if p.DiskReads == nil || p.ReadRequests == nil || p.CPUMicros == nil {
			t.Fatalf("%s: figures missing: %+v %v", pool, p, f.Notes)
		}
		t.Logf("pool %s: per transaction %.2f disk reads, %.1f read requests, %.0f µs server CPU, %.0f µs client CPU",
			pool, *p.DiskReads, *p.ReadRequests, *p.CPUMicros, *p.ClientCPUMicros)
		return *p.DiskReads, *p.ReadRequests, *p.CPUMicros
	}
	small, smallReq, _ := measure("8M")
	setPool(t, conn, 256<<20)
	// Read the table in until a whole scan finds every page in the pool:
	// the grown pool takes a moment to be all usable.
	poolReads := func() int64 {
		v, _ := strconv.ParseInt(string(query(t, conn, "SELECT VARIABLE_VALUE FROM information_schema.GLOBAL_STATUS WHERE VARIABLE_NAME = 'INNODB_BUFFER_POOL_READS'")[0][0]), 10, 64)
		return v
	}
	warm := func() {
		for try := 0; ; try++ {
			before := poolReads()
			query(t, conn, "SELECT COUNT(*), SUM(LENGTH(c)) FROM test.scan FORCE INDEX (PRIMARY)")
			if poolReads() == before {
				return
			}
			if try == 50 {
				t.Fatal("the table never fitted in the 256M pool")
			}
			time.Sleep(100 * time.Millisecond)
		}
	}
	warm()
	large, largeReq, _ := measure("256M")
	// On a busy machine the grown pool can still be settling after the
	// first warm scan (the clean-clone CI run saw 1.89 reads per
	// transaction once): the claim is about the steady state, so warm and
	// measure again, a few times at most.
	for try := 0; try < 3 && large > 0.05; try++ {
		warm()
		large, largeReq, _ = measure("256M")
	}
	setPool(t, conn, 8<<20) // as the other tests expect
	if small < 2 {
		t.Errorf("8M pool: %.2f disk reads per transaction, want several", small)
	}
	if large > 0.05 {
		t.Errorf("256M pool: %.2f disk reads per transaction, want about none", large)
	}
	// The same statements ask for about the same pages either way.
	if largeReq < smallReq/2 || largeReq > smallReq*2 {
		t.Errorf("read requests per transaction %.1f and %.1f differ too much", smallReq, largeReq)
	}
}

// TestNoProcessPrivilege: a user without PROCESS cannot read
// INNODB_METRICS; the sampler says so once, however many samples, and
// keeps the status counters.
func TestNoProcessPrivilege(t *testing.T) {
	s := servertest.Require(t)
	root := connect(t, s.RootConfig(""))
	exec(t, root, "DROP USER IF EXISTS 'metrics_noproc'@'%'")
	exec(t, root, "CREATE USER 'metrics_noproc'@'%' IDENTIFIED BY 'pw'")
	exec(t, root, "GRANT SELECT ON test.* TO 'metrics_noproc'@'%'")
	t.Cleanup(func() { _ = root.Exec("DROP USER IF EXISTS 'metrics_noproc'@'%'") })
	cfg := tcpConfig(s, "metrics_noproc")
	cfg.Passwd = "pw"
	sm, err := New(Config{Driver: cfg, Location: Location{Why: "test"}, Proc: procRoot()})
	if err != nil {
		t.Fatal(err)
	}
	defer sm.Close()
	ctx := context.Background()
	first := sm.Sample(ctx)
	load := connect(t, s.RootConfig(""))
	for range 5 {
		exec(t, load, "SELECT 1")
		sm.Sample(ctx)
	}
	last := sm.Sample(ctx)
	w := sm.Warnings()
	if len(w) != 1 || !strings.Contains(w[0], "INNODB_METRICS") || !strings.Contains(w[0], "PROCESS") {
		t.Errorf("warnings = %q, want one about INNODB_METRICS and PROCESS", w)
	}
	f := Figures(Between(first, last), 5, "query", sm.cfg.Location)
	if f.PerTransaction.Statements == nil || *f.PerTransaction.Statements != 1 || f.PerTransaction.DiskReads == nil {
		t.Errorf("per query: %+v (notes %q): want 1 statement per query and disk reads present", f.PerTransaction, f.Notes)
	}
	for name := range f.Counters {
		if strings.HasPrefix(name, MetricPrefix) {
			t.Errorf("%s read without PROCESS", name)
		}
	}
	// A server whose process goslap cannot see: no CPU, and the reason.
	if f.PerTransaction.CPUMicros != nil || f.Process != nil || len(f.Notes) != 1 || f.Notes[0] != "no server CPU or IO: test" {
		t.Errorf("cpu %v, process %+v, notes %q", f.PerTransaction.CPUMicros, f.Process, f.Notes)
	}
}

// TestStatusRefused: a server that refuses every way of reading the
// status variables (no MariaDB or MySQL user is refused SHOW GLOBAL
// STATUS, so the sources are swapped for statements the server refuses)
// gives one warning; samples go on with nothing from the server.
func TestStatusRefused(t *testing.T) {
	s := servertest.Require(t)
	saved := statusSources
	t.Cleanup(func() { statusSources = saved })
	statusSources = []statusSource{
		{"a missing table", "SELECT a, b FROM test.no_such_status_table", ""},
		{"a refused one", "SELECT a, b FROM mysql.no_such_table_either", ""},
	}
	savedMetrics := metricsQuery
	t.Cleanup(func() { metricsQuery = savedMetrics })
	metricsQuery = "SELECT a, b FROM test.no_such_metrics_table WHERE "
	sm, err := New(Config{Driver: s.RootConfig(""), Location: Location{PID: s.PID()}, Proc: procRoot()})
	if err != nil {
		t.Fatal(err)
	}
	defer sm.Close()
	a := sm.Sample(context.Background())
	sm.Sample(context.Background())
	b := sm.Sample(context.Background())
	w := sm.Warnings()
	if len(w) != 2 || !strings.Contains(w[0], "status variables cannot be read") || !strings.Contains(w[1], "INNODB_METRICS") {
		t.Errorf("warnings = %q, want one for the status and one for INNODB_METRICS", w)
	}
	if len(b.Server.Values) != 0 || b.Process == nil {
		t.Errorf("last sample: %d server values, process %v", len(b.Server.Values), b.Process)
	}
	f := Figures(Between(a, b), 1, "query", sm.Location())
	if f.PerTransaction.DiskReads != nil || f.PerTransaction.CPUMicros == nil || !strings.Contains(strings.Join(f.Notes, "|"), "no server counters") {
		t.Errorf("figures %+v, notes %q", f.PerTransaction, f.Notes)
	}
}

// TestSamplerRun: intervals at the interval asked, covering the run, and
// their counters match the units the caller counted: the statements of a
// load of SELECT 1, none of the sampler's.
func TestSamplerRun(t *testing.T) {
	s := servertest.Require(t)
	var units atomic.Uint64
	sm, err := New(Config{Driver: s.RootConfig(""), Location: Location{PID: s.PID()}, Proc: procRoot(),
		Interval: 100 * time.Millisecond, Units: units.Load})
	if err != nil {
		t.Fatal(err)
	}
	defer sm.Close()
	load := connect(t, s.RootConfig(""))
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { defer close(done); sm.Run(ctx) }()
	// The first sample (and the calibration) happen before the load: a
	// statement done between its status reading and its reading of the
	// units would count for the server and not for the caller (a fixed
	// 50 ms was too short once on a machine at load 30: off by 2).
	for wait := time.Now(); sm.Cost().Samples == 0; time.Sleep(5 * time.Millisecond) {
		if time.Since(wait) > 10*time.Second {
			t.Fatal("no first sample in 10 s")
		}
	}
	time.Sleep(20 * time.Millisecond)
	start := time.Now()
	for time.Since(start) < time.Second {
		exec(t, load, "SELECT 1")
		units.Add(1)
	}
	time.Sleep(150 * time.Millisecond)
	cancel()
	select {
	case <-done:
	case <-time.After(5 * time.Second):
		t.Fatal("Run did not return after its context ended")
	}
	iv := sm.Intervals()
	if len(iv) < 8 || len(iv) > 13 {
		t.Errorf("%d intervals of 100 ms in about 1.2 s", len(iv))
	}
	var sum Span
	var u uint64
	for i, x := range iv {
		if i > 0 && !x.Start.Equal(iv[i-1].End) {
			t.Errorf("interval %d starts at %v, the previous ended at %v", i, x.Start, iv[i-1].End)
		}
		sum = sum.Add(x.Span)
		u += x.Units
	}
	q := sum.Counters.Counters["Questions"]
	if diff := q - int64(u); diff < -1 || diff > 1 || u == 0 {
		t.Errorf("intervals: %d statements counted by the server, %d by the caller", q, u)
	}
	if !sum.HaveProcess || sum.ServerUser+sum.ServerSystem <= 0 {
		t.Errorf("no server CPU over the run: %+v", sum)
	}
	c := sm.Cost()
	cpu, wall := c.PerSample()
	t.Logf("%d intervals, %d units, %d samples, %d queries, CPU %v and wall %v per sample", len(iv), u, c.Samples, c.Queries, cpu, wall)
	if len(sm.Warnings()) != 0 {
		t.Errorf("warnings: %q", sm.Warnings())
	}
}

// TestStallFlagged: writes blocked for 600 ms by FLUSH TABLES WITH READ
// LOCK in the middle of a run show as intervals below half the median.
func TestStallFlagged(t *testing.T) {
	s := servertest.Require(t)
	root := connect(t, s.RootConfig(""))
	exec(t, root, "CREATE DATABASE IF NOT EXISTS test")
	exec(t, root, "CREATE TABLE IF NOT EXISTS test.stall (id INT AUTO_INCREMENT PRIMARY KEY, v INT) ENGINE=InnoDB")
	// No fsync per commit: the machine's disk is shared, and a slow fsync
	// is a stall of its own this test is not about.
	flush := string(query(t, root, "SELECT @@innodb_flush_log_at_trx_commit")[0][0])
	exec(t, root, "SET GLOBAL innodb_flush_log_at_trx_commit = 0")
	t.Cleanup(func() { _ = root.Exec("SET GLOBAL innodb_flush_log_at_trx_commit = " + flush) })
	var units atomic.Uint64
	sm, err := New(Config{Driver: s.RootConfig(""), Proc: procRoot(), Interval: 100 * time.Millisecond, Units: units.Load})
	if err != nil {
		t.Fatal(err)
	}
	defer sm.Close()
	load := connect(t, s.RootConfig(""))
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { defer close(done); sm.Run(ctx) }()
	unlocked := make(chan time.Time, 1)
	go func() {
		time.Sleep(700 * time.Millisecond)
		exec(t, root, "FLUSH TABLES WITH READ LOCK")
		time.Sleep(600 * time.Millisecond)
		exec(t, root, "UNLOCK TABLES")
		unlocked <- time.Now()
	}()
	// The load goes on 1 s past the unlock, however late a busy machine
	// made it: the intervals after the stall are what it is measured
	// against (a fixed 2 s once ended inside a stall that had stretched).
	var until time.Time
	for start := time.Now(); until.IsZero() || time.Now().Before(until); {
		exec(t, load, "INSERT INTO test.stall (v) VALUES (1)")
		units.Add(1)
		select {
		case u := <-unlocked:
			until = u.Add(time.Second)
			if min := start.Add(2 * time.Second); until.Before(min) {
				until = min
			}
		default:
		}
	}
	end := time.Now()
	cancel()
	<-done
	var tput []float64
	for _, x := range sm.Intervals() {
		if x.End.Before(end) { // the load's own intervals
			tput = append(tput, float64(x.Units)/x.Seconds())
		}
	}
	stalls := Stalls(tput)
	t.Logf("throughput per interval: %.0f; stalls %v", tput, stalls)
	// 600 ms of 100 ms intervals: at least four flagged in a row there;
	// a busy machine may slow a few other intervals, not half of them.
	run, longest, n := 0, 0, 0
	for _, st := range stalls {
		if st {
			run++
			n++
		} else {
			run = 0
		}
		longest = max(longest, run)
	}
	if longest < 4 || n > len(stalls)/2 {
		t.Errorf("%d intervals flagged, %d of them in a row; want 4 or more in a row, under half of all", n, longest)
	}
}

// TestSamplerCost measures what a sample costs once connected: goslap's
// CPU (the sampling thread's own clock), the server's CPU (its process,
// otherwise idle) and the statements sent. GOSLAP_COST_SAMPLES sets the
// number of samples (default 200).
func TestSamplerCost(t *testing.T) {
	s := servertest.Require(t)
	samples := 200
	if v, err := strconv.Atoi(os.Getenv("GOSLAP_COST_SAMPLES")); err == nil && v > 0 {
		samples = v
	}
	sm, err := New(Config{Driver: s.RootConfig(""), Location: Location{PID: s.PID()}, Proc: procRoot(), Interval: 5 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	defer sm.Close()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { defer close(done); sm.Run(ctx) }()
	for sm.Cost().Samples < 3 { // connected and calibrated
		time.Sleep(5 * time.Millisecond)
	}
	c0 := sm.Cost()
	p0, err := procRoot().Process(s.PID())
	if err != nil {
		t.Fatal(err)
	}
	for sm.Cost().Samples < c0.Samples+samples {
		time.Sleep(5 * time.Millisecond)
	}
	c1 := sm.Cost()
	p1, _ := procRoot().Process(s.PID())
	cancel()
	<-done
	n := c1.Samples - c0.Samples
	queries := float64(c1.Queries-c0.Queries) / float64(n)
	cpu := (c1.CPU - c0.CPU) / time.Duration(n)
	wall := (c1.Wall - c0.Wall) / time.Duration(n)
	serverCPU := (p1.CPU() - p0.CPU()) / time.Duration(n)
	t.Logf("per sample over %d samples: %.2f statements, goslap CPU %v, wall %v, server CPU %v (the idle server's background threads included)", n, queries, cpu, wall, serverCPU)
	if queries < 1.9 || queries > 2.1 {
		t.Errorf("%.2f statements per sample, want 2 (status and INNODB_METRICS)", queries)
	}
	if w := sm.Warnings(); len(w) != 0 {
		t.Errorf("warnings: %q", w)
	}
}

// procRoot is the real /proc: these tests look only at the test server's
// own process and at the sockets it listens on.
func procRoot() procstat.Proc { return procstat.Proc{} }
