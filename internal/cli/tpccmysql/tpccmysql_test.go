package tpccmysql

import (
	"bytes"
	"context"
	"reflect"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/goslap/goslap/internal/sandbox"
	"github.com/goslap/goslap/internal/sandbox/servertest"
)

// A buffer pool and redo log that hold a warehouse keep the load in seconds.
var serverConfig = sandbox.Config{Options: []string{
	"innodb-buffer-pool-size=256M", "innodb-log-file-size=256M", "innodb-flush-log-at-trx-commit=2",
}}

func TestMain(m *testing.M) {
	servertest.Main(m, serverConfig, func(s *sandbox.Server) error {
		db, err := s.OpenDB("")
		if err != nil {
			return err
		}
		defer db.Close()
		for _, schema := range []string{"tpcc", "tpcc_empty", "tpcc_other"} {
			if _, err := db.Exec("CREATE DATABASE " + schema); err != nil {
				return err
			}
		}
		_, err = db.Exec("CREATE TABLE tpcc_other.mine (a int); INSERT INTO tpcc_other.mine VALUES (1), (2)")
		return err
	})
}

func run(t *testing.T, s *sandbox.Server, command string, args ...string) (stdout, stderr string, code int) {
	t.Helper()
	var o, e bytes.Buffer
	args = append([]string{"-S", s.Socket, "-u", "root", "-p", ""}, args...)
	code = Main(command, args, Env{Stdout: &o, Stderr: &e, Context: context.Background()})
	return o.String(), e.String(), code
}

func count(t *testing.T, s *sandbox.Server, q string) int {
	t.Helper()
	db, err := s.OpenDB("")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	var n int
	if err := db.QueryRow(q).Scan(&n); err != nil {
		t.Fatalf("%s: %v", q, err)
	}
	return n
}

func tableCount(t *testing.T, s *sandbox.Server, schema string) int {
	return count(t, s, "SELECT COUNT(*) FROM information_schema.tables WHERE table_schema = '"+schema+"'")
}

// TestLoadStartCheckCleanup is tpcc-mysql's flow: load, run, with goslap's
// consistency check after each, then cleanup.
func TestLoadStartCheckCleanup(t *testing.T) {
	s := servertest.Require(t)
	out, errOut, code := run(t, s, "tpcc-load", "-d", "tpcc", "-w", "1", "--connections=4", "--check")
	if code != 0 || errOut != "" {
		t.Fatalf("tpcc-load: exit %d\n%s\n%s", code, out, errOut)
	}
	for _, want := range []string{"  [warehouse]: 1\n", "...DATA LOADING COMPLETED SUCCESSFULLY.\n", "<Consistency Check>",
		"   4: sum(O_OL_CNT) = count(ORDER_LINE) per district [OK]\n"} {
		if !strings.Contains(out, want) {
			t.Errorf("tpcc-load output lacks %q:\n%s", want, out)
		}
	}
	if got := count(t, s, "SELECT COUNT(*) FROM tpcc.stock"); got != 100000 {
		t.Errorf("stock: %d rows", got)
	}
	t.Log(out)

	// Loading again is refused and changes nothing.
	_, errOut, code = run(t, s, "tpcc-load", "-d", "tpcc", "-w", "1")
	if code == 0 || strings.Count(errOut, "\n") != 1 || !strings.Contains(errOut, "already holds TPC-C data") {
		t.Errorf("second tpcc-load: exit %d, stderr %q", code, errOut)
	}

	start := time.Now()
	out, errOut, code = run(t, s, "tpcc-start", "-d", "tpcc", "-w", "1", "-c", "4", "-r", "1", "-l", "6", "-i", "3", "--check")
	if code != 0 || errOut != "" {
		t.Fatalf("tpcc-start: exit %d\n%s\n%s", code, out, errOut)
	}
	t.Logf("tpcc-start ran %s:\n%s", time.Since(start).Round(time.Millisecond), out)
	lines := regexp.MustCompile(`(?m)^ +(\d+), trx: (\d+), 95%: [0-9.]+, 99%: [0-9.]+, max_rt: [0-9.]+(, \d+\|[0-9.]+){4}$`).FindAllStringSubmatch(out, -1)
	if len(lines) != 2 || lines[0][1] != "3" || lines[1][1] != "6" {
		t.Errorf("interval lines %q, want at 3 and 6 s", lines)
	}
	newOrders := 0
	for _, l := range lines {
		n, _ := strconv.Atoi(l[2])
		newOrders += n
	}
	m := regexp.MustCompile(`(?m)^  \[0\] sc:(\d+) lt:(\d+)  rt:\d+  fl:0 avg_rt: [0-9.]+ \(5\)$`).FindStringSubmatch(out)
	if m == nil {
		t.Fatalf("no New-Order raw result in\n%s", out)
	}
	sc, _ := strconv.Atoi(m[1])
	lt, _ := strconv.Atoi(m[2])
	// The intervals and the total count the same New-Orders, but for the
	// ones ending after the last tick.
	if sc+lt < newOrders || sc+lt > newOrders+4 || newOrders == 0 {
		t.Errorf("raw results count %d New-Orders, interval lines %d", sc+lt, newOrders)
	}
	tm := regexp.MustCompile(`(?m)^ +([0-9.]+) TpmC$`).FindStringSubmatch(out)
	if tm == nil {
		t.Fatalf("no TpmC line")
	}
	if got, want := tm[1], strconv.FormatFloat(float64(sc+lt)*60/6, 'f', 3, 64); got != want {
		t.Errorf("TpmC %s, want %s = (sc+lt)*60/6", got, want)
	}
	for _, want := range []string{" in 6 sec.\n", "<Constraint Check> (all must be [OK])", "        Payment: ",
		"<Response time>", "   New-Order    ", "   Stock-Level  ", "\n<Consistency Check>", "per district [OK]\n"} {
		if !strings.Contains(out, want) {
			t.Errorf("tpcc-start output lacks %q", want)
		}
	}

	out, errOut, code = run(t, s, "tpcc-check", "-d", "tpcc")
	if code != 0 || !strings.Contains(out, "   1: W_YTD = sum(D_YTD) per warehouse [OK]\n") {
		t.Errorf("tpcc-check: exit %d\n%s\n%s", code, out, errOut)
	}

	t.Run("check names the failed condition", func(t *testing.T) {
		db, err := s.OpenDB("tpcc")
		if err != nil {
			t.Fatal(err)
		}
		defer db.Close()
		if _, err := db.Exec("UPDATE warehouse SET w_ytd = w_ytd + 5 WHERE w_id = 1"); err != nil {
			t.Fatal(err)
		}
		out, errOut, code := run(t, s, "tpcc-check", "-d", "tpcc")
		if code != 1 || strings.Count(errOut, "\n") != 1 ||
			!strings.HasPrefix(errOut, "goslap tpcc-check: consistency condition 1 (W_YTD = sum(D_YTD) per warehouse) fails: warehouse 1 has W_YTD ") ||
			!strings.Contains(out, "   1: W_YTD = sum(D_YTD) per warehouse [NG]\n") {
			t.Errorf("tpcc-check on a corrupted warehouse: exit %d\n%s\n%s", code, out, errOut)
		}
		if _, err := db.Exec("UPDATE warehouse SET w_ytd = w_ytd - 5 WHERE w_id = 1"); err != nil {
			t.Fatal(err)
		}
	})

	// --server-report samples the server over the measured time and
	// prints its figures per transaction after the report: the sandbox's
	// process is found by its socket, so its CPU is there.
	t.Run("server report", func(t *testing.T) {
		out, errOut, code := run(t, s, "tpcc-start", "-d", "tpcc", "-w", "1", "-c", "2", "-r", "1", "-l", "2", "-i", "1", "--server-report")
		if code != 0 || errOut != "" {
			t.Fatalf("exit %d\n%s\n%s", code, out, errOut)
		}
		re := regexp.MustCompile(`(?m)^Server: per transaction [0-9.]+ µs server CPU, [0-9.]+ µs client CPU, [0-9.]+ disk reads, [0-9.]+ buffer pool reads, .*\nHost: CPU [0-9]+% busy`)
		if !re.MatchString(out) {
			t.Errorf("no Server: and Host: lines after the report:\n%s", out)
		}
	})

	t.Run("more warehouses than loaded", func(t *testing.T) {
		_, errOut, code := run(t, s, "tpcc-start", "-d", "tpcc", "-w", "2", "-c", "1", "-l", "1")
		if code != 1 || errOut != "goslap tpcc-start: -w 2: schema 'tpcc' holds 1 warehouse(s)\n" {
			t.Errorf("exit %d, stderr %q", code, errOut)
		}
	})

	out, errOut, code = run(t, s, "tpcc-cleanup", "-d", "tpcc")
	if code != 0 || tableCount(t, s, "tpcc") != 0 || strings.Count(out, "Dropping table '") != 9 || !strings.HasPrefix(out, "Dropping table 'warehouse'...\n") {
		t.Errorf("tpcc-cleanup: exit %d, %d tables left\n%s\n%s", code, tableCount(t, s, "tpcc"), out, errOut)
	}
}

// TestCleanupRefusesAShop: tpcc-cleanup drops a table only when it has
// tpcc-mysql's layout: a shop's customer and orders are refused by name,
// nothing is dropped, and their rows stay.
func TestCleanupRefusesAShop(t *testing.T) {
	s := servertest.Require(t)
	db, err := s.OpenDB("")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	for _, q := range []string{"CREATE DATABASE shop", "CREATE TABLE shop.customer (id INT PRIMARY KEY, name VARCHAR(20))",
		"INSERT INTO shop.customer VALUES (1, 'Ann')", "CREATE TABLE shop.orders (id INT PRIMARY KEY, total DECIMAL(8,2))",
		"INSERT INTO shop.orders VALUES (1, 9.5)"} {
		if _, err := db.Exec(q); err != nil {
			t.Fatal(err)
		}
	}
	out, errOut, code := run(t, s, "tpcc-cleanup", "-d", "shop")
	want := "goslap tpcc-cleanup: table shop.customer has columns (id, name), not TPC-C's customer: not dropped; " +
		"table shop.orders has columns (id, total), not TPC-C's orders: not dropped\n"
	if code != 1 || errOut != want || out != "" {
		t.Errorf("tpcc-cleanup: exit %d, stderr %q, stdout %q", code, errOut, out)
	}
	if n := count(t, s, "SELECT (SELECT COUNT(*) FROM shop.customer) + (SELECT COUNT(*) FROM shop.orders)"); n != 2 {
		t.Errorf("the shop holds %d of its 2 rows", n)
	}
}

// TestBadInputs: each gives one line on stderr and exit 1, and leaves the
// server's schemas as they were.
func TestBadInputs(t *testing.T) {
	s := servertest.Require(t)
	for _, c := range []struct {
		command string
		args    []string
		stderr  string
	}{
		{"tpcc-load", []string{"-d", "tpcc_empty", "-w", "0"}, "goslap tpcc-load: -w 0: the number of warehouses must be a whole number from 1 to 32767\n"},
		{"tpcc-load", []string{"-d", "tpcc_empty"}, "goslap tpcc-load: -w (warehouses) is required\n"},
		{"tpcc-load", []string{"-d", "tpcc_empty", "-w", "1", "-m", "1"}, "goslap tpcc-load: -m (first warehouse) cannot be honoured: goslap tpcc-load loads warehouses 1..-w at once, in parallel\n"},
		{"tpcc-load", []string{"-d", "tpcc_other", "-w", "1"}, "goslap tpcc-load: schema 'tpcc_other' holds tables TPC-C did not create (mine): use an empty schema\n"},
		{"tpcc-load", []string{"-d", "no_such_db", "-w", "1"}, "goslap tpcc-load: Error when connecting to server: 1049 Unknown database 'no_such_db'\n"},
		{"tpcc-start", []string{"-d", "tpcc_empty", "-w", "1", "-c", "2", "-l", "5"}, "goslap tpcc-start: schema 'tpcc_empty' holds no TPC-C tables: load it first (goslap tpcc-load)\n"},
		{"tpcc-start", []string{"-d", "tpcc_other", "-w", "1", "-c", "2", "-l", "5"}, "goslap tpcc-start: schema 'tpcc_other' holds no TPC-C tables: load it first (goslap tpcc-load)\n"},
		{"tpcc-start", []string{"-d", "tpcc_empty", "-w", "1", "-c", "0", "-l", "5"}, "goslap tpcc-start: -c 0: the number of connections must be a whole number of 1 or more\n"},
		{"tpcc-start", []string{"-d", "tpcc_empty", "-w", "1", "-c", "2"}, "goslap tpcc-start: -l (measure time, seconds) is required\n"},
		{"tpcc-start", []string{"-d", "tpcc_empty", "-w", "1", "-c", "2", "-l", "5", "-f", "out.txt"}, "goslap tpcc-start: -f (report file) cannot be honoured: goslap prints the report on standard output\n"},
		{"tpcc-start", []string{"-d", "tpcc_empty", "-w", "1", "-c", "2", "-l", "5", "-x", "1"}, "goslap tpcc-start: invalid option -- 'x'\n"},
		{"tpcc-start", []string{"-d", "tpcc_empty", "-w", "1", "-c", "2", "-l"}, "goslap tpcc-start: option requires an argument -- 'l'\n"},
		{"tpcc-start", []string{"-d", "tpcc_empty", "-w", "ten"}, "goslap tpcc-start: -w ten: the number of warehouses must be a whole number from 1 to 32767\n"},
		{"tpcc-check", []string{"-d", "tpcc_other"}, "goslap tpcc-check: schema 'tpcc_other' holds no TPC-C tables: load it first (goslap tpcc-load)\n"},
	} {
		out, errOut, code := run(t, s, c.command, c.args...)
		if code != 1 || errOut != c.stderr {
			t.Errorf("%s %v: exit %d, stderr %q, want %q (stdout %q)", c.command, c.args, code, errOut, c.stderr, out)
		}
	}
	if n := tableCount(t, s, "tpcc_empty"); n != 0 {
		t.Errorf("tpcc_empty holds %d tables", n)
	}
	if n := tableCount(t, s, "tpcc_other"); n != 1 || count(t, s, "SELECT COUNT(*) FROM tpcc_other.mine") != 2 {
		t.Errorf("tpcc_other changed: %d tables", n)
	}
	// Cleanup of a schema without TPC-C's tables drops nothing.
	if out, errOut, code := run(t, s, "tpcc-cleanup", "-d", "tpcc_other"); code != 0 || tableCount(t, s, "tpcc_other") != 1 ||
		out != "schema 'tpcc_other' holds no TPC-C tables: nothing to drop\n" {
		t.Errorf("tpcc-cleanup: exit %d\n%s%s", code, out, errOut)
	}
}

func TestParse(t *testing.T) {
	for _, c := range []struct {
		command string
		args    []string
		want    Config
	}{
		{"tpcc-start", strings.Fields("-h 10.0.0.1 -P 3307 -d tpcc100 -u bench -p secret -w 100 -c 16 -r 1800 -l 7200 -i 60"),
			Config{Host: "10.0.0.1", Port: 3307, DB: "tpcc100", User: "bench", Password: "secret", Warehouses: 100, Connections: 16, Rampup: 1800, Measure: 7200, Interval: 60}},
		// getopt(3): values attached to their letter, the default interval.
		{"tpcc-start", []string{"-dtpcc", "-w2", "-c4", "-l10", "-p", ""},
			Config{Host: "localhost", Port: 3306, DB: "tpcc", User: "root", Warehouses: 2, Connections: 4, Measure: 10, Interval: 10}},
		{"tpcc-load", strings.Fields("-S /tmp/s.sock -d tpcc -w 3 --connections=8 --check"),
			Config{Host: "localhost", Port: 3306, Socket: "/tmp/s.sock", DB: "tpcc", User: "root", Warehouses: 3, Connections: 8, Interval: 10, Check: true}},
	} {
		got, err := Parse(c.command, c.args)
		if err != nil {
			t.Errorf("%v: %v", c.args, err)
			continue
		}
		got.set, c.want.set = nil, nil
		c.want.Command = c.command
		if !reflect.DeepEqual(*got, c.want) {
			t.Errorf("%v:\n got %+v\nwant %+v", c.args, *got, c.want)
		}
	}
}
