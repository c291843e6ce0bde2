package jsondoc

import (
	"encoding/json"
	"strings"
	"testing"
)

// TestServerFiguresJSON: the keys a results reader relies on, and a
// figure goslap could not see left out rather than written as 0.
func TestServerFiguresJSON(t *testing.T) {
	cpu, reads := 812.5, 3.1
	tests := []struct {
		name    string
		fig     ServerFigures
		want    []string
		notWant []string
	}{
		{
			name: "local server",
			fig:  ServerFigures{Unit: "transaction", Units: 10, PerTransaction: PerTransaction{CPUMicros: &cpu, DiskReads: &reads}, Process: &ServerProcess{PID: 7, Found: "sandbox"}},
			want: []string{`"per_transaction":{"cpu_us":812.5,"disk_reads":3.1}`, `"unit":"transaction"`, `"process":{"pid":7,"found":"sandbox"`},
		},
		{
			name:    "remote server",
			fig:     ServerFigures{Unit: "query", PerTransaction: PerTransaction{DiskReads: &reads}, Notes: []string{"no server CPU or IO: elsewhere"}},
			want:    []string{`"per_transaction":{"disk_reads":3.1}`, `"notes":["no server CPU or IO: elsewhere"]`},
			notWant: []string{"cpu_us", `"process"`, `"host"`},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			b, err := json.Marshal(tt.fig)
			if err != nil {
				t.Fatal(err)
			}
			for _, w := range tt.want {
				if !strings.Contains(string(b), w) {
					t.Errorf("%s lacks %s", b, w)
				}
			}
			for _, w := range tt.notWant {
				if strings.Contains(string(b), w) {
					t.Errorf("%s has %s", b, w)
				}
			}
			var back ServerFigures
			if err := json.Unmarshal(b, &back); err != nil || (back.PerTransaction.DiskReads == nil) != (tt.fig.PerTransaction.DiskReads == nil) {
				t.Errorf("read back: %+v, %v", back, err)
			}
		})
	}
}
