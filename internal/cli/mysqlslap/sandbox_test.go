package mysqlslap

import (
	"strings"
	"testing"

	"github.com/goslap/goslap/internal/latency"
	"github.com/goslap/goslap/internal/mysqlconn"
	"github.com/goslap/goslap/internal/results/matrix"
	"github.com/goslap/goslap/internal/target"
)

func TestComparePoints(t *testing.T) {
	tests := []struct {
		name string
		r    BenchmarkResult
		want matrix.Point
	}{
		{name: "measured", r: BenchmarkResult{Engine: "innodb", HasEngine: true, Concurrency: 4, QueriesPerClient: 50,
			IterationMillis: []int64{100, 300}, Measurements: Measurements{Executed: 400, Seconds: 0.4, QPS: 1000, Latency: latency.Percentiles{P99: 2500}}},
			want: matrix.Point{Engine: "innodb", Concurrency: 4, Iterations: 2, AvgSeconds: 0.2, QPS: 1000, P99Millis: 2.5}},
		{name: "approximated without measurements", r: BenchmarkResult{Engine: "x", Concurrency: 4, QueriesPerClient: 50, IterationMillis: []int64{100, 300}},
			want: matrix.Point{Concurrency: 4, Iterations: 2, AvgSeconds: 0.2, QPS: 1000}},
		{name: "sub-millisecond iterations are unknown", r: BenchmarkResult{Concurrency: 1, QueriesPerClient: 10, IterationMillis: []int64{0}},
			want: matrix.Point{Concurrency: 1, Iterations: 1}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := ComparePoints([]BenchmarkResult{tt.r})
			if len(got) != 1 || got[0] != tt.want {
				t.Fatalf("ComparePoints = %+v, want %+v", got, tt.want)
			}
		})
	}
}

// A sandbox must only ever be reached through its own socket, whatever
// connection options the command line or an option file gave.
func TestOptionsForSandboxIgnoresConnectionOptions(t *testing.T) {
	o := &Options{Host: "prod.example", Port: 3307, Socket: "/run/mysqld/mysqld.sock", Protocol: "TCP",
		User: "app", Password: "secret", PasswordSet: true, SSL: true, SSLCA: "/ca.pem", SSLMode: "VERIFY_IDENTITY",
		DefaultAuth: "caching_sha2_password", Iterations: 3, Concurrency: "10,50"}
	sb := connectionOf(o).to(target.Endpoint{Socket: "/tmp/gs/mysqld.sock", Port: 40000, User: "root", PasswordSet: true, Sandbox: true})
	network, addr := sb.transport()
	if network != "unix" || addr != "/tmp/gs/mysqld.sock" {
		t.Errorf("sandbox transport %s %s, want unix /tmp/gs/mysqld.sock", network, addr)
	}
	if sb.User != "root" || sb.Password != "" || sb.TLS != (mysqlconn.TLS{Mode: "DISABLED"}) || sb.Auth != (mysqlconn.Auth{}) {
		t.Errorf("sandbox connection keeps the command line's credentials or TLS: %+v", sb)
	}
	if o.Host != "prod.example" {
		t.Error("the command line's options modified")
	}
	srv := connectionOf(o).to(target.Endpoint{Host: "db2", Port: 3308, User: "app", Password: "secret", PasswordSet: true})
	if network, addr := srv.transport(); network != "tcp" || addr != "db2:3308" || srv.TLS.Mode != "VERIFY_IDENTITY" {
		t.Errorf("server target transport %s %s (tls %v), want tcp db2:3308 with the command line's TLS", network, addr, srv.TLS.Mode)
	}
}

func TestCheckSandbox(t *testing.T) {
	tests := []struct {
		name    string
		s       SandboxOptions
		o       Options
		wantErr string
	}{
		{name: "plain run"},
		{name: "sandbox", s: SandboxOptions{SandboxSet: true, ServerOptions: []string{"innodb_buffer_pool_size=1G"}}},
		{name: "targets", s: SandboxOptions{Targets: []string{"a:sandbox", "b:server"}, Plot: "x.svg"}},
		{name: "plot alone", s: SandboxOptions{Plot: "x.svg"}},
		{name: "server option without sandbox", s: SandboxOptions{ServerOptions: []string{"x=1"}}, wantErr: "--sandbox-option needs --sandbox"},
		{name: "only-print", s: SandboxOptions{SandboxSet: true}, o: Options{OnlyPrint: true}, wantErr: "--only-print runs nothing"},
		{name: "bad target", s: SandboxOptions{Targets: []string{"a:cloud"}}, wantErr: `goslap: --target: target "a": unknown kind "cloud"`},
		{name: "bare server option", s: SandboxOptions{SandboxSet: true, ServerOptions: []string{"skip-name-resolve", "innodb.x=1", "x=b c"}}},
		{name: "server option with a space", s: SandboxOptions{SandboxSet: true, ServerOptions: []string{"innodb_buffer_pool_size 1G"}},
			wantErr: "goslap: --sandbox-option=innodb_buffer_pool_size 1G: not NAME=VALUE"},
		{name: "server option without a name", s: SandboxOptions{SandboxSet: true, ServerOptions: []string{"=1"}}, wantErr: "--sandbox-option==1: not NAME=VALUE"},
		{name: "empty server option", s: SandboxOptions{SandboxSet: true, ServerOptions: []string{""}}, wantErr: "--sandbox-option=: not NAME=VALUE"},
		{name: "target server option with a space", s: SandboxOptions{Targets: []string{"a:sandbox,bad name=1"}},
			wantErr: `goslap: --target a: server option "bad name=1" is not NAME=VALUE`},
		{name: "bare --sandbox with targets", s: SandboxOptions{SandboxSet: true, Targets: []string{"a:sandbox", "b:server"}},
			wantErr: "goslap: --sandbox does nothing with --target: add a sandbox target instead"},
		{name: "--sandbox=BIN with targets that do not use it", s: SandboxOptions{SandboxSet: true, Sandbox: "mysqld", Targets: []string{"a:sandbox:mariadbd", "b:server"}},
			wantErr: "goslap: --sandbox=mysqld is used by no --target"},
		{name: "--sandbox=BIN as the binary of a target", s: SandboxOptions{SandboxSet: true, Sandbox: "mysqld", Targets: []string{"a:sandbox", "b:server"}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tt.o.Ext.Sandbox = tt.s
			_, err := sandboxTargets(&tt.o)
			if tt.wantErr == "" {
				if err != nil {
					t.Fatal(err)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
				t.Fatalf("error = %v, want %q", err, tt.wantErr)
			}
		})
	}
}
