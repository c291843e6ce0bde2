package servermetrics

import (
	"reflect"
	"strings"
	"testing"

	"github.com/goslap/goslap/internal/results/jsondoc"
)

func TestLines(t *testing.T) {
	share := 0.6
	tests := []struct {
		name string
		fig  jsondoc.ServerFigures
		want []string
	}{
		{
			name: "local sandbox, saturated host",
			fig: jsondoc.ServerFigures{Unit: "transaction",
				PerTransaction: jsondoc.PerTransaction{CPUMicros: f(812.4), ClientCPUMicros: f(320), DiskReads: f(3.1), ReadRequests: f(74.5), RowLockWaits: f(0)},
				Host:           &jsondoc.HostCPU{CPUs: 2, Busy: 0.953, IOWait: 0.02, ClientShare: 0.3, ServerShare: &share, Saturated: true}},
			want: []string{
				"Server: per transaction 812 µs server CPU, 320 µs client CPU, 3.10 disk reads, 74.5 buffer pool reads, 0 row lock waits",
				"Host: CPU 95% busy (saturated), 2% iowait, 0% steal; goslap used 30% of it, the server 60%",
			},
		},
		{
			name: "remote server, per query",
			fig: jsondoc.ServerFigures{Unit: "query", PerTransaction: jsondoc.PerTransaction{DiskReads: f(0.004)},
				Notes: []string{"no server CPU or IO: the server at 192.0.2.1:3306 is not on a loopback address; only its status counters are read"}},
			want: []string{
				"Server: per query 0.0040 disk reads",
				"Server: no server CPU or IO: the server at 192.0.2.1:3306 is not on a loopback address; only its status counters are read",
			},
		},
		{name: "nothing read", fig: jsondoc.ServerFigures{Unit: "query"}, want: nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := Lines(tt.fig); !reflect.DeepEqual(got, tt.want) {
				t.Errorf("Lines =\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(tt.want, "\n"))
			}
		})
	}
}

func TestDifferences(t *testing.T) {
	a := jsondoc.PerTransaction{CPUMicros: f(800), DiskReads: f(0), ReadRequests: f(70), RowLockWaits: f(0.001), ClientCPUMicros: f(300)}
	b := jsondoc.PerTransaction{CPUMicros: f(872), DiskReads: f(3.1), ReadRequests: f(71), RowLockWaits: f(0.002)}
	var got []string
	for _, d := range Differences(a, b, 0.05) {
		got = append(got, d.String())
	}
	// Disk reads from none come first; buffer pool reads changed under
	// 5 %; lock waits are noise; client CPU is on one side only.
	want := []string{"disk reads 0 → 3.10", "server CPU +9%"}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("Differences = %q, want %q", got, want)
	}
}
