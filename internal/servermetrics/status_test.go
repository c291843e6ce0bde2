package servermetrics

import (
	"reflect"
	"testing"
	"time"

	"github.com/goslap/goslap/internal/procstat"
)

func snap(at int, kv map[string]int64) Snapshot {
	return Snapshot{At: time.Unix(int64(at), 0), Values: kv}
}

func TestDiff(t *testing.T) {
	tests := []struct {
		name         string
		a, b         Snapshot
		wantCounters map[string]int64
		wantGauges   map[string]int64
		wantReset    []string
	}{
		{
			name:         "counters subtract, gauges take the higher, unknown names ignored",
			a:            snap(0, map[string]int64{"Com_select": 10, "Threads_running": 9, "Uptime": 5}),
			b:            snap(1, map[string]int64{"Com_select": 25, "Threads_running": 2, "Uptime": 6}),
			wantCounters: map[string]int64{"Com_select": 15},
			wantGauges:   map[string]int64{"Threads_running": 9},
		},
		{
			name:         "a counter that went backwards is left out and named",
			a:            snap(0, map[string]int64{"Questions": 100, "Com_insert": 1}),
			b:            snap(1, map[string]int64{"Questions": 3, "Com_insert": 4}),
			wantCounters: map[string]int64{"Com_insert": 3},
			wantGauges:   map[string]int64{},
			wantReset:    []string{"Questions"},
		},
		{
			name:         "a counter in one snapshot only has no delta; a gauge in one is kept",
			a:            snap(0, map[string]int64{"Threads_running": 4}),
			b:            snap(1, map[string]int64{"Com_select": 7}),
			wantCounters: map[string]int64{},
			wantGauges:   map[string]int64{"Threads_running": 4},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d := Diff(tt.a, tt.b)
			if !reflect.DeepEqual(d.Counters, tt.wantCounters) || !reflect.DeepEqual(d.Gauges, tt.wantGauges) || !reflect.DeepEqual(d.Reset, tt.wantReset) {
				t.Errorf("Diff = %+v\nwant counters %v gauges %v reset %v", d, tt.wantCounters, tt.wantGauges, tt.wantReset)
			}
			if d.Seconds() != 1 {
				t.Errorf("Seconds = %v", d.Seconds())
			}
		})
	}
}

func TestDeltaAdd(t *testing.T) {
	s0 := snap(0, map[string]int64{"Com_select": 0, "Threads_running": 1})
	s1 := snap(1, map[string]int64{"Com_select": 5, "Threads_running": 7})
	s2 := snap(3, map[string]int64{"Com_select": 6, "Threads_running": 2})
	sum := Diff(s0, s1).Add(Diff(s1, s2))
	whole := Diff(s0, s2)
	if sum.Counters["Com_select"] != whole.Counters["Com_select"] {
		t.Errorf("summed counter %d, whole %d", sum.Counters["Com_select"], whole.Counters["Com_select"])
	}
	// The whole run's maximum is the highest reading, which only the
	// intervals saw.
	if sum.Gauges["Threads_running"] != 7 {
		t.Errorf("gauge max = %d, want 7", sum.Gauges["Threads_running"])
	}
	if !sum.Start.Equal(s0.At) || !sum.End.Equal(s2.At) {
		t.Errorf("bounds %v..%v", sum.Start, sum.End)
	}
	if got := (Delta{}).Add(Diff(s0, s1)); got.Counters["Com_select"] != 5 || !got.Start.Equal(s0.At) {
		t.Errorf("zero Delta plus d = %+v", got)
	}
}

func TestSetIsConsistent(t *testing.T) {
	seen := map[string]bool{}
	for _, d := range Set {
		if seen[d.Name] {
			t.Errorf("%s twice", d.Name)
		}
		seen[d.Name] = true
		if (d.Source == InnoDBMetric) != (len(d.Name) > len(MetricPrefix) && d.Name[:len(MetricPrefix)] == MetricPrefix) {
			t.Errorf("%s: source and prefix disagree", d.Name)
		}
		if d.Why == "" {
			t.Errorf("%s: undocumented", d.Name)
		}
	}
}

func f(v float64) *float64 { return &v }

func TestFigures(t *testing.T) {
	host := func(at int, busy, idle int64) *procstat.HostCPU {
		return &procstat.HostCPU{At: time.Unix(int64(at), 0), User: time.Duration(busy) * time.Second, Idle: time.Duration(idle) * time.Second, CPUs: 2}
	}
	a := Sample{At: time.Unix(0, 0),
		Server:  snap(0, map[string]int64{"Innodb_buffer_pool_reads": 100, "Innodb_buffer_pool_read_requests": 1000, "Innodb_row_lock_time": 0, "Innodb_deadlocks": 0}),
		Process: &procstat.Process{User: time.Second, System: 0, ReadBytes: 0, WriteBytes: 0},
		Host:    host(0, 10, 10), Client: time.Second}
	b := Sample{At: time.Unix(2, 0),
		Server:  snap(2, map[string]int64{"Innodb_buffer_pool_reads": 400, "Innodb_buffer_pool_read_requests": 6000, "Innodb_row_lock_time": 2, "Innodb_deadlocks": 1}),
		Process: &procstat.Process{User: 2 * time.Second, System: time.Second, ReadBytes: 4096, WriteBytes: 1000},
		Host:    host(2, 13, 11), Client: 1500 * time.Millisecond}
	got := Figures(Between(a, b), 100, "transaction", Location{PID: 42, Found: "sandbox"})
	p := got.PerTransaction
	checks := []struct {
		name string
		got  *float64
		want float64
	}{
		{"cpu_us", p.CPUMicros, 20000},
		{"client_cpu_us", p.ClientCPUMicros, 5000},
		{"disk_reads", p.DiskReads, 3},
		{"read_requests", p.ReadRequests, 50},
		{"row_lock_wait_us", p.RowLockWaitMicros, 20},
		{"deadlocks", p.Deadlocks, 0.01},
		{"storage_write_bytes", p.StorageWriteBytes, 10},
	}
	for _, c := range checks {
		if c.got == nil || *c.got != c.want {
			t.Errorf("%s = %v, want %v", c.name, c.got, c.want)
		}
	}
	if p.RowLockWaits != nil {
		t.Errorf("row_lock_waits was not read, yet present")
	}
	if got.Host == nil || got.Host.Busy != 0.75 || got.Host.ClientShare != 0.125 || *got.Host.ServerShare != 0.5 || got.Host.Saturated {
		t.Errorf("host = %+v", got.Host)
	}
	if got.Process == nil || got.Process.PID != 42 || *got.Process.ReadBytes != 4096 {
		t.Errorf("process = %+v", got.Process)
	}

	// A server goslap cannot see: no CPU, said; zero units: no per-unit figures.
	remote := Figures(Between(Sample{Server: a.Server}, Sample{Server: b.Server}), 0, "query", Location{Why: "on another host"})
	if remote.PerTransaction.CPUMicros != nil || remote.PerTransaction.DiskReads != nil || remote.Process != nil || remote.Host != nil {
		t.Errorf("remote = %+v", remote)
	}
	if len(remote.Notes) != 1 || remote.Notes[0] != "no server CPU or IO: on another host" {
		t.Errorf("notes = %q", remote.Notes)
	}
}

func TestStalls(t *testing.T) {
	tests := []struct {
		in   []float64
		want []bool
	}{
		{[]float64{100, 100, 40, 100, 55}, []bool{false, false, true, false, false}},
		{[]float64{10, 0}, []bool{false, false}},
		{[]float64{0, 0, 0}, []bool{false, false, false}},
		{[]float64{100, 90, 0, 0, 110, 100}, []bool{false, false, true, true, false, false}},
	}
	for _, tt := range tests {
		if got := Stalls(tt.in); !reflect.DeepEqual(got, tt.want) {
			t.Errorf("Stalls(%v) = %v, want %v", tt.in, got, tt.want)
		}
	}
}
