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

// TestDifferences: which figures a verdict names, in which order and
// words, from fake per-round figures of two sides.
func TestDifferences(t *testing.T) {
	pt := func(cpu, client, disk, reads, locks float64) jsondoc.PerTransaction {
		return jsondoc.PerTransaction{CPUMicros: f(cpu), ClientCPUMicros: f(client), DiskReads: f(disk), ReadRequests: f(reads), RowLockWaits: f(locks)}
	}
	tests := []struct {
		name string
		a, b []jsondoc.PerTransaction
		unit string
		want []string
	}{
		{
			// Disk reads from none come first (both values: a percentage
			// of nothing says nothing); buffer pool reads changed under
			// 10 %; lock waits are noise; client CPU is goslap's.
			name: "one round, the issue's example",
			a:    []jsondoc.PerTransaction{pt(800, 300, 0, 70, 0.001)},
			b:    []jsondoc.PerTransaction{pt(880, 600, 3.1, 71, 0.002)},
			unit: "transaction",
			want: []string{"disk reads per transaction 0.0 → 3.1", "server CPU per transaction +10 %"},
		},
		{
			name: "to none, and a drop",
			a:    []jsondoc.PerTransaction{pt(971, 500, 3.3, 65, 0)},
			b:    []jsondoc.PerTransaction{pt(765, 500, 0, 64, 0)},
			unit: "transaction",
			want: []string{"disk reads per transaction 3.3 → 0.0", "server CPU per transaction -21 %"},
		},
		{
			name: "threefold: both values, with the unit",
			a:    []jsondoc.PerTransaction{pt(250, 0, 0, 10, 0)},
			b:    []jsondoc.PerTransaction{pt(900, 0, 0, 10, 0)},
			unit: "query",
			want: []string{"server CPU per query 250 → 900 µs"},
		},
		{
			// The medians differ by 20 %, but round 2 went the other way.
			name: "inconsistent over paired rounds",
			a:    []jsondoc.PerTransaction{pt(800, 0, 1, 10, 0), pt(1000, 0, 1, 10, 0), pt(800, 0, 1, 10, 0)},
			b:    []jsondoc.PerTransaction{pt(960, 0, 1, 10, 0), pt(900, 0, 1, 10, 0), pt(960, 0, 1, 10, 0)},
			unit: "transaction",
			want: nil,
		},
		{
			// Every round went up, but by 25 %, 1 % and 30 %: the
			// paired interval includes no change.
			name: "within the rounds' noise",
			a:    []jsondoc.PerTransaction{pt(800, 0, 1, 10, 0), pt(800, 0, 1, 10, 0), pt(800, 0, 1, 10, 0)},
			b:    []jsondoc.PerTransaction{pt(1000, 0, 1, 10, 0), pt(808, 0, 1, 10, 0), pt(1040, 0, 1, 10, 0)},
			unit: "transaction",
			want: nil,
		},
		{
			name: "consistent over paired rounds: medians",
			a:    []jsondoc.PerTransaction{pt(800, 0, 3.2, 65, 0), pt(760, 0, 3.4, 65, 0), pt(790, 0, 3.3, 65, 0)},
			b:    []jsondoc.PerTransaction{pt(600, 0, 0, 64, 0), pt(640, 0, 0.001, 63, 0), pt(620, 0, 0, 64, 0)},
			unit: "transaction",
			want: []string{"disk reads per transaction 3.3 → 0.0", "server CPU per transaction -22 %"},
		},
		{
			// A side without process figures (a remote server) has no
			// server CPU to compare.
			name: "figure on one side only",
			a:    []jsondoc.PerTransaction{{DiskReads: f(2)}},
			b:    []jsondoc.PerTransaction{{CPUMicros: f(500), DiskReads: f(1)}},
			unit: "transaction",
			want: []string{"disk reads per transaction -50 %"},
		},
		{name: "nothing sampled", a: nil, b: nil, unit: "transaction", want: nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var got []string
			for _, d := range Differences(tt.a, tt.b, MinChange) {
				got = append(got, d.Words(tt.unit))
			}
			if !reflect.DeepEqual(got, tt.want) {
				t.Errorf("Differences = %q, want %q", got, tt.want)
			}
		})
	}
}
