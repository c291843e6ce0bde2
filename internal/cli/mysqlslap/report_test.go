package mysqlslap

import (
	"bytes"
	"crypto/tls"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// checkGolden compares got with testdata/report/<name>.golden, or rewrites
// the file with -update.
func checkGolden(t *testing.T, name string, got []byte) {
	t.Helper()
	path := filepath.Join("testdata", "report", name+".golden")
	if *update {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run with -update to create it)", err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("%s differs from %s:\ngot:\n%q\nwant:\n%q", name, path, got, want)
	}
}

// reportCases cover the shapes of spec 4.1/4.2: engine or not, an empty
// engine name, seconds ≥ 10, several iterations (integer average).
var reportCases = []struct {
	name string
	res  BenchmarkResult
}{
	{"engine", BenchmarkResult{Engine: "innodb", HasEngine: true, LoadType: "mixed", Concurrency: 1, IterationMillis: []int64{3, 3}}},
	{"no-engine", BenchmarkResult{LoadType: "mixed", Concurrency: 50, QueriesPerClient: 1000, IterationMillis: []int64{1007, 12345, 998}}},
	{"empty-engine", BenchmarkResult{Engine: "", HasEngine: true, LoadType: "READ", Concurrency: 2, QueriesPerClient: 3, IterationMillis: []int64{0, 1}}},
	{"no-iterations", BenchmarkResult{LoadType: "foo", Concurrency: 1}},
}

func TestBenchmarkBlockGolden(t *testing.T) {
	var all bytes.Buffer
	for _, tc := range reportCases {
		if err := WriteBenchmark(&all, &tc.res); err != nil {
			t.Fatal(err)
		}
	}
	checkGolden(t, "benchmark", all.Bytes())
}

func TestCSVLineGolden(t *testing.T) {
	var all bytes.Buffer
	for _, tc := range reportCases {
		if err := WriteCSVLine(&all, &tc.res); err != nil {
			t.Fatal(err)
		}
	}
	checkGolden(t, "csv", all.Bytes())
}

func TestDebugInfoGolden(t *testing.T) {
	ru := syscall.Rusage{
		Utime: syscall.Timeval{Sec: 1, Usec: 234567}, Stime: syscall.Timeval{Usec: 5000},
		Maxrss: 6252, Ixrss: 1, Idrss: 2, Isrss: 3, Minflt: 401, Majflt: 4, Nswap: 0,
		Inblock: 8, Oublock: 16, Msgsnd: 0, Msgrcv: 0, Nsignals: 1, Nvcsw: 7, Nivcsw: 9,
	}
	var b bytes.Buffer
	if err := writeRusage(&b, &ru); err != nil {
		t.Fatal(err)
	}
	checkGolden(t, "debuginfo", b.Bytes())

	b.Reset()
	if err := WriteDebugInfo(&b); err != nil {
		t.Fatal(err)
	}
	if lines := strings.Split(b.String(), "\n"); len(lines) != 7 || lines[0] != "" || !strings.HasPrefix(lines[1], "User time ") {
		t.Errorf("WriteDebugInfo wrote %q", b.String())
	}
}

func TestIterationMillis(t *testing.T) {
	base := time.Date(2024, 1, 1, 0, 0, 10, 0, time.UTC)
	at := func(sec int, usec int) time.Time {
		return base.Add(time.Duration(sec)*time.Second + time.Duration(usec)*time.Microsecond)
	}
	tests := []struct {
		name       string
		start, end time.Time
		want       int64
	}{
		{"same instant", at(0, 0), at(0, 0), 0},
		{"below a millisecond", at(0, 100), at(0, 900), 0},
		{"1.2 ms", at(0, 900), at(0, 2100), 1},
		// Each part truncated on its own: 1 s - 999.8 ms truncates to 1 ms
		// even though only 0.2 ms passed (mysqlslap's arithmetic).
		{"across a second boundary", at(0, 999900), at(1, 100), 1},
		{"1.007 s", at(0, 500000), at(1, 507999), 1007},
		{"whole seconds", at(0, 0), at(12, 345678), 12345},
	}
	for _, tc := range tests {
		if got := iterationMillis(tc.start, tc.end); got != tc.want {
			t.Errorf("%s: %d ms, want %d", tc.name, got, tc.want)
		}
	}
}

func TestOpenCSV(t *testing.T) {
	var stdout bytes.Buffer
	for _, value := range []string{"", "-", "-x"} {
		w, closeFn, err := OpenCSV(&Options{CSVSet: true, CSV: value}, &stdout)
		if err != nil || w != &stdout {
			t.Errorf("--csv=%q: writer %v, err %v; want stdout", value, w, err)
		}
		closeFn()
	}
	if w, _, err := OpenCSV(&Options{}, &stdout); w != nil || err != nil {
		t.Errorf("without --csv: %v, %v", w, err)
	}

	path := filepath.Join(t.TempDir(), "out.csv")
	old := syscall.Umask(0o027)
	defer syscall.Umask(old)
	for i := 0; i < 2; i++ {
		w, closeFn, err := OpenCSV(&Options{CSVSet: true, CSV: path}, &stdout)
		if err != nil {
			t.Fatal(err)
		}
		WriteCSVLine(w, &reportCases[0].res)
		closeFn()
	}
	data, _ := os.ReadFile(path)
	if want := "innodb,mixed,0.003,0.003,0.003,1,0\n"; string(data) != want+want {
		t.Errorf("file holds %q, want two appended lines", data)
	}
	fi, _ := os.Stat(path)
	if fi.Mode().Perm() != 0o640 {
		t.Errorf("mode %v, want 0640 (0660 minus umask 027)", fi.Mode().Perm())
	}
}

func TestTransport(t *testing.T) {
	tests := []struct {
		host, socket, protocol string
		port                   uint32
		wantNet, wantAddr      string
	}{
		{"", "", "", 3306, "unix", DefaultSocket},
		{"localhost", "/tmp/s", "", 3306, "unix", "/tmp/s"},
		{"localhost", "/tmp/s", "TCP", 3307, "tcp", "localhost:3307"},
		{"", "", "TCP", 3307, "tcp", "localhost:3307"},
		{"127.0.0.1", "/tmp/s", "", 3306, "tcp", "127.0.0.1:3306"},
		// libmariadb uses TCP for a remote host even with --protocol=socket.
		{"db.example", "/tmp/s", "SOCKET", 3306, "tcp", "db.example:3306"},
		{"::1", "", "", 3306, "tcp", "[::1]:3306"},
	}
	for _, tc := range tests {
		o := &Options{Host: tc.host, Socket: tc.socket, Protocol: tc.protocol, Port: tc.port}
		if n, a := connectionOf(o).transport(); n != tc.wantNet || a != tc.wantAddr {
			t.Errorf("host %q socket %q protocol %q: %s %s, want %s %s", tc.host, tc.socket, tc.protocol, n, a, tc.wantNet, tc.wantAddr)
		}
	}
}

func TestDriverConfigTLSModes(t *testing.T) {
	tests := []struct {
		name         string
		o            Options
		wantTLS      bool // a *tls.Config is set
		wantFallback bool
		wantConfig   string
		wantVerify   bool // host name verified
	}{
		{"--skip-ssl", Options{}, false, false, "false", false},
		{"MariaDB default --ssl", Options{SSL: true}, false, false, "preferred", false},
		{"--ssl-verify-server-cert", Options{SSL: true, SSLVerifyServerCert: true}, true, false, "", true},
		{"--ssl-mode=REQUIRED", Options{SSLMode: "REQUIRED"}, true, false, "", false},
		{"--ssl-mode=DISABLED wins over --ssl", Options{SSL: true, SSLMode: "DISABLED"}, false, false, "false", false},
		{"--tls-version", Options{SSL: true, TLSVersion: "TLSv1.2,TLSv1.3"}, true, true, "", false},
	}
	for _, tc := range tests {
		c, err := connectionOf(&tc.o).Driver("")
		if err != nil {
			t.Errorf("%s: %v", tc.name, err)
			continue
		}
		if (c.TLS != nil) != tc.wantTLS || c.AllowFallbackToPlaintext != tc.wantFallback || (!tc.wantTLS && c.TLSConfig != tc.wantConfig) {
			t.Errorf("%s: TLS %v fallback %v TLSConfig %q", tc.name, c.TLS != nil, c.AllowFallbackToPlaintext, c.TLSConfig)
		}
		if tc.wantTLS && c.TLS.InsecureSkipVerify == tc.wantVerify {
			t.Errorf("%s: InsecureSkipVerify = %v", tc.name, c.TLS.InsecureSkipVerify)
		}
	}
	c, _ := connectionOf(&Options{SSL: true, TLSVersion: "TLSv1.2,TLSv1.3"}).Driver("")
	if c.TLS.MinVersion != tls.VersionTLS12 || c.TLS.MaxVersion != tls.VersionTLS13 {
		t.Errorf("--tls-version: min %x max %x", c.TLS.MinVersion, c.TLS.MaxVersion)
	}
}

func TestDriverConfigRejectsWhatItCannotHonour(t *testing.T) {
	tests := []struct {
		name string
		o    Options
		want string
	}{
		{"pipe", Options{Protocol: "PIPE"}, "--protocol=PIPE"},
		{"crl", Options{SSLCRL: "/x.crl"}, "--ssl-crl"},
		{"zstd", Options{CompressionAlgorithms: "zstd"}, "zstd"},
		{"auth plugin", Options{DefaultAuth: "authentication_kerberos_client"}, "--default-auth"},
		{"cipher", Options{SSLCipher: "NOT-A-CIPHER"}, "NOT-A-CIPHER"},
		{"tls 1.3 suites", Options{TLSCipherSuites: "TLS_AES_128_GCM_SHA256"}, "--tls-ciphersuites"},
		{"tls version", Options{TLSVersion: "SSLv3"}, "--tls-version"},
	}
	for _, tc := range tests {
		_, err := connectionOf(&tc.o).Driver("")
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: error %v, want one naming %q", tc.name, err, tc.want)
		}
	}
	c, err := connectionOf(&Options{CompressionAlgorithms: "zstd,zlib", DefaultAuth: "caching_sha2_password", SSLCipher: "ECDHE-RSA-AES128-GCM-SHA256"}).Driver("db")
	if err != nil {
		t.Fatal(err)
	}
	if c.DBName != "db" || !c.MultiStatements || c.InterpolateParams || len(c.TLS.CipherSuites) != 1 {
		t.Errorf("config %+v", c)
	}
}
