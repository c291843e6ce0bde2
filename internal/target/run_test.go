package target

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"github.com/goslap/goslap/internal/results/matrix"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"sync"
	"testing"
	"time"
)

func TestParseTarget(t *testing.T) {
	tests := []struct {
		spec    string
		want    Target
		wantErr string
	}{
		{spec: "a:sandbox", want: Target{Label: "a", Kind: Sandbox}},
		{spec: "my8:sandbox:/opt/mysql-8.0/bin/mysqld", want: Target{Label: "my8", Kind: Sandbox, Binary: "/opt/mysql-8.0/bin/mysqld"}},
		{spec: "bp1G:sandbox,innodb_buffer_pool_size=1G,--skip-innodb-adaptive-hash-index",
			want: Target{Label: "bp1G", Kind: Sandbox, ServerOptions: []string{"innodb_buffer_pool_size=1G", "skip-innodb-adaptive-hash-index"}}},
		{spec: `m:sandbox:mariadbd,sql_mode=STRICT_ALL_TABLES\,NO_ZERO_DATE`,
			want: Target{Label: "m", Kind: Sandbox, Binary: "mariadbd", ServerOptions: []string{"sql_mode=STRICT_ALL_TABLES,NO_ZERO_DATE"}}},
		{spec: "here:server", want: Target{Label: "here", Kind: Server}},
		{spec: "r:server:db2.example:3307", want: Target{Label: "r", Kind: Server, Host: "db2.example", Port: 3307}},
		{spec: "r:server:db2.example", want: Target{Label: "r", Kind: Server, Host: "db2.example"}},
		{spec: "s:server:/run/mysqld/mysqld.sock,user=bench,password=", want: Target{Label: "s", Kind: Server, Socket: "/run/mysqld/mysqld.sock", User: "bench", PasswordSet: true}},
		{spec: "p:SERVER,host=127.0.0.1,port=3306,password=a=b", want: Target{Label: "p", Kind: Server, Host: "127.0.0.1", Port: 3306, Password: "a=b", PasswordSet: true}},
		{spec: "nolabel", wantErr: "want LABEL:sandbox"},
		{spec: ":sandbox", wantErr: "want LABEL:sandbox"},
		{spec: "x:cloud", wantErr: `unknown kind "cloud"`},
		{spec: "x:sandbox,", wantErr: "empty server option"},
		{spec: "x:server:h:99999", wantErr: "not a TCP port"},
		{spec: "x:server,colour=blue", wantErr: `unknown server setting "colour"`},
		{spec: "x:server,host", wantErr: "is not NAME=VALUE"},
	}
	for _, tt := range tests {
		t.Run(tt.spec, func(t *testing.T) {
			got, err := ParseTarget(tt.spec)
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("ParseTarget(%q) error = %v, want one containing %q", tt.spec, err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatalf("ParseTarget(%q): %v", tt.spec, err)
			}
			if !reflect.DeepEqual(got, tt.want) {
				t.Fatalf("ParseTarget(%q) = %+v, want %+v", tt.spec, got, tt.want)
			}
		})
	}
}

func TestTargetStringHidesPassword(t *testing.T) {
	tg, err := ParseTarget("p:server:db:3306,password=sekrit")
	if err != nil {
		t.Fatal(err)
	}
	if s := tg.String(); strings.Contains(s, "sekrit") || s != "server db:3306" {
		t.Fatalf("String() = %q", s)
	}
}

func TestResolveBinary(t *testing.T) {
	dir := t.TempDir()
	tarball := filepath.Join(dir, "mysql-8.0.40-linux")
	if err := os.MkdirAll(filepath.Join(tarball, "bin"), 0o755); err != nil {
		t.Fatal(err)
	}
	mysqld := filepath.Join(tarball, "bin", "mysqld")
	if err := os.WriteFile(mysqld, []byte("#!/bin/sh\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	plain := filepath.Join(dir, "notexec")
	if err := os.WriteFile(plain, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		in, want, wantErr string
	}{
		{in: mysqld, want: mysqld},
		{in: tarball, want: mysqld},
		{in: filepath.Join(dir, "nope", "mysqld"), wantErr: "does not exist"},
		{in: dir, wantErr: "has no bin/mariadbd"},
		{in: plain, wantErr: "not an executable"},
		{in: "no-such-server-binary-xyz", wantErr: `"no-such-server-binary-xyz" is not on $PATH`},
	}
	for _, tt := range tests {
		got, err := ResolveBinary(tt.in)
		if tt.wantErr != "" {
			if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
				t.Errorf("ResolveBinary(%q) error = %v, want %q", tt.in, err, tt.wantErr)
			}
			continue
		}
		if err != nil || got != tt.want {
			t.Errorf("ResolveBinary(%q) = %q, %v; want %q", tt.in, got, err, tt.want)
		}
	}
}

// fakeSandboxes is a SandboxStarter that records starts and stops.
type fakeSandboxes struct {
	mu      sync.Mutex
	started []string // "binary opts..."
	running int
	maxRun  int
	stops   int
	failOn  string // an option that makes Start fail
}

func (f *fakeSandboxes) start(ctx context.Context, bin string, opts []string, tempDir string) (*Running, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	for _, o := range opts {
		if o == f.failOn {
			return nil, errors.New("server exited during start-up")
		}
	}
	f.started = append(f.started, strings.Join(append([]string{bin}, opts...), " "))
	f.running++
	f.maxRun = max(f.maxRun, f.running)
	var once sync.Once
	return &Running{
		Endpoint: Endpoint{Socket: "/tmp/fake.sock", User: "root", Sandbox: true},
		Version:  "fakemysqld 1.0",
		stop: func() error {
			once.Do(func() {
				f.mu.Lock()
				f.running--
				f.stops++
				f.mu.Unlock()
			})
			return nil
		},
	}, nil
}

func fakePoints(scale float64) []matrix.Point {
	var pts []matrix.Point
	for _, e := range []string{"innodb", "myisam"} {
		for _, c := range []int{1, 4} {
			pts = append(pts, matrix.Point{Engine: e, Concurrency: c, Iterations: 2, AvgSeconds: 1 / scale, QPS: scale * float64(c) * 100})
		}
	}
	return pts
}

func TestRunSequentialAndClean(t *testing.T) {
	bin, err := os.Executable() // any executable file will do for the fake starter
	if err != nil {
		t.Fatal(err)
	}
	targets := []Target{
		{Label: "small", Kind: Sandbox, ServerOptions: []string{"innodb_buffer_pool_size=64M"}},
		{Label: "big", Kind: Sandbox, ServerOptions: []string{"innodb_buffer_pool_size=256M"}},
		{Label: "prod", Kind: Server, Host: "db2", Port: 3307},
	}
	fs := &fakeSandboxes{}
	var eps []Endpoint
	var progress bytes.Buffer
	logf := func(label, msg string) { fmt.Fprintf(&progress, "%s: %s\n", label, msg) }
	outs, err := Run(context.Background(), targets, Config{
		DefaultBinary:  bin,
		SandboxOptions: []string{"max_connections=50"},
		Base:           Endpoint{Host: "localhost", Port: 3306, User: "bench", Password: "pw", PasswordSet: true},
		Start:          fs.start,
		Progress:       logf,
		Bench: func(ctx context.Context, label string, ep Endpoint) ([]matrix.Point, error) {
			eps = append(eps, ep)
			fs.mu.Lock()
			defer fs.mu.Unlock()
			if ep.Sandbox && fs.running != 1 {
				t.Errorf("%s: %d sandboxes running during its benchmark, want 1", label, fs.running)
			}
			return fakePoints(float64(len(eps))), nil
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(outs) != 3 {
		t.Fatalf("got %d outcomes", len(outs))
	}
	wantStarted := []string{bin + " max_connections=50 innodb_buffer_pool_size=64M", bin + " max_connections=50 innodb_buffer_pool_size=256M"}
	if !reflect.DeepEqual(fs.started, wantStarted) {
		t.Errorf("started %q, want %q", fs.started, wantStarted)
	}
	if fs.maxRun != 1 || fs.running != 0 || fs.stops != 2 {
		t.Errorf("max running %d, running %d, stops %d; want 1, 0, 2", fs.maxRun, fs.running, fs.stops)
	}
	if want := (Endpoint{Host: "db2", Port: 3307, User: "bench", Password: "pw", PasswordSet: true}); eps[2] != want {
		t.Errorf("server endpoint %+v, want %+v", eps[2], want)
	}
	if !strings.Contains(progress.String(), "big: sandbox stopped and removed") {
		t.Errorf("progress:\n%s", progress.String())
	}
}

func TestRunFailuresStopSandbox(t *testing.T) {
	bin, _ := os.Executable()
	boom := errors.New("connection refused")
	tests := []struct {
		name    string
		bench   BenchFunc
		targets []Target
		cancel  bool // cancel the context from inside the benchmark
		wantErr string
		want    int // outcomes returned
		stops   int
	}{
		{name: "bench error", wantErr: "target b: connection refused", want: 1, stops: 2,
			targets: []Target{{Label: "a", Kind: Sandbox}, {Label: "b", Kind: Sandbox}, {Label: "c", Kind: Sandbox}},
			bench: func(ctx context.Context, label string, ep Endpoint) ([]matrix.Point, error) {
				if label == "b" {
					return nil, boom
				}
				return fakePoints(1), nil
			}},
		{name: "bench panic", wantErr: "target a: benchmark panicked: oops", want: 0, stops: 1,
			targets: []Target{{Label: "a", Kind: Sandbox}},
			bench:   func(ctx context.Context, label string, ep Endpoint) ([]matrix.Point, error) { panic("oops") }},
		{name: "start failure", wantErr: "target b: server exited during start-up", want: 1, stops: 1,
			targets: []Target{{Label: "a", Kind: Sandbox}, {Label: "b", Kind: Sandbox, ServerOptions: []string{"bad"}}},
			bench: func(ctx context.Context, label string, ep Endpoint) ([]matrix.Point, error) {
				return fakePoints(1), nil
			}},
		{name: "cancel ignored by bench", cancel: true, wantErr: "target a: context canceled", want: 0, stops: 1,
			targets: []Target{{Label: "a", Kind: Sandbox}, {Label: "b", Kind: Sandbox}},
			bench: func(ctx context.Context, label string, ep Endpoint) ([]matrix.Point, error) {
				time.Sleep(time.Hour) // a runner that never looks at ctx
				return nil, nil
			}},
		{name: "cancel honoured by bench", cancel: true, wantErr: "target a: context canceled", want: 0, stops: 1,
			targets: []Target{{Label: "a", Kind: Sandbox}, {Label: "b", Kind: Sandbox}},
			bench: func(ctx context.Context, label string, ep Endpoint) ([]matrix.Point, error) {
				<-ctx.Done()
				return nil, ctx.Err()
			}},
		{name: "missing binary fails before anything starts", wantErr: "target b: sandbox: server binary not found", want: 0, stops: 0,
			targets: []Target{{Label: "a", Kind: Sandbox}, {Label: "b", Kind: Sandbox, Binary: "/nonexistent/mysqld"}},
			bench: func(ctx context.Context, label string, ep Endpoint) ([]matrix.Point, error) {
				return fakePoints(1), nil
			}},
		{name: "refused option fails before anything starts", wantErr: "target b: server option pid_file=/x/p: goslap sets the sandbox's pid_file itself", want: 0, stops: 0,
			targets: []Target{{Label: "a", Kind: Sandbox}, {Label: "b", Kind: Sandbox, ServerOptions: []string{"pid_file=/x/p"}}},
			bench: func(ctx context.Context, label string, ep Endpoint) ([]matrix.Point, error) {
				return fakePoints(1), nil
			}},
		{name: "path option fails before anything starts", wantErr: "target b: server option log_error=../e: ../e is outside the sandbox's directory", want: 0, stops: 0,
			targets: []Target{{Label: "a", Kind: Sandbox}, {Label: "b", Kind: Sandbox, ServerOptions: []string{"log_error=../e"}}},
			bench: func(ctx context.Context, label string, ep Endpoint) ([]matrix.Point, error) {
				return fakePoints(1), nil
			}},
		{name: "duplicate label", wantErr: `two targets are labelled "a"`,
			targets: []Target{{Label: "a", Kind: Sandbox}, {Label: "a", Kind: Server}},
			bench:   func(ctx context.Context, label string, ep Endpoint) ([]matrix.Point, error) { return nil, nil }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			fs := &fakeSandboxes{failOn: "bad"}
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			bench := tt.bench
			if tt.cancel {
				inner := bench
				bench = func(c context.Context, label string, ep Endpoint) ([]matrix.Point, error) {
					cancel()
					return inner(c, label, ep)
				}
			}
			// Only a benchmark that ignores ctx may make Run wait StopGrace.
			stopGrace := 10 * time.Second
			if tt.name == "cancel ignored by bench" {
				stopGrace = 100 * time.Millisecond
			}
			started := time.Now()
			outs, err := Run(ctx, tt.targets, Config{DefaultBinary: bin, Start: fs.start, Bench: bench,
				CancelGrace: 100 * time.Millisecond, StopGrace: stopGrace})
			if d := time.Since(started); d > 2*time.Second {
				t.Errorf("Run took %v", d)
			}
			if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
				t.Fatalf("error = %v, want %q", err, tt.wantErr)
			}
			if len(outs) != tt.want {
				t.Errorf("%d outcomes, want %d", len(outs), tt.want)
			}
			if fs.running != 0 || fs.stops != tt.stops {
				t.Errorf("running %d, stops %d; want 0, %d", fs.running, fs.stops, tt.stops)
			}
		})
	}
}
