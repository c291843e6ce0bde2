package oltp

import (
	"context"
	"fmt"
	"testing"

	"github.com/goslap/goslap/internal/engine"
	"github.com/goslap/goslap/internal/workload"
)

// TestRingOnServer: against mariadbd, the built-in workloads run on the
// engine's ring path (GOSLAP_RING=1) as on the goroutine path: from the
// same freshly prepared tables and the same seed, the same events, the
// same tally (reads, writes, other by the server's replies) and, after the
// writes, the same rows in the tables (CHECKSUM TABLE). One client, so
// that the order of the writes is the seed's alone; the ring path must
// have been taken.
func TestRingOnServer(t *testing.T) {
	s, cn, _ := session(t)
	ctx := context.Background()
	for _, tc := range []struct {
		name  string
		words []string
	}{
		{"oltp_point_select", nil},
		{"oltp_read_only", nil},
		{"oltp_read_write", nil},
		{"oltp_read_write", []string{"--db-ps-mode=disable"}},
		{"oltp_write_only", []string{"--tables=2"}},
		{"oltp_insert", nil},
		{"oltp", []string{"--sysbench-compat=0.5"}},
		{"oltp", []string{"--sysbench-compat=0.4"}},
	} {
		t.Run(fmt.Sprint(tc.name, tc.words), func(t *testing.T) {
			type outcome struct {
				before, after string
				events        uint64
				tally         workload.Tally
			}
			run := func(env string) outcome {
				t.Setenv(engine.RingEnv, env)
				words := append([]string{"--table-size=300", "--rand-seed=11"}, tc.words...)
				w := build(t, tc.name, words...)
				p := workload.Point{Clients: 1}
				if err := w.Setup(ctx, s, p); err != nil {
					t.Fatal(err)
				}
				defer func() {
					if err := w.Teardown(ctx, s, p); err != nil {
						t.Error(err)
					}
				}()
				it := workload.Iteration{Point: p, Number: 1}
				if err := w.BeginIteration(ctx, s, it); err != nil {
					t.Fatal(err)
				}
				checksum := func() string {
					var sum string
					for _, tbl := range w.TableNames() {
						v, err := s.Main.Query("CHECKSUM TABLE " + tbl)
						if err != nil {
							t.Fatal(err)
						}
						sum += fmt.Sprintf("%s=%s ", v[0][0], v[0][1])
					}
					return sum
				}
				o := outcome{before: checksum()}
				l, err := w.Load(it)
				if err != nil {
					t.Fatal(err)
				}
				ring0 := engine.RingClients()
				b, err := engine.Run(ctx, engine.Plan{Connector: cn, Workload: w, Load: l, Iteration: it, Clients: 1, Events: 150, Seed: 11})
				if err != nil {
					t.Fatal(err)
				}
				if took := engine.RingClients() - ring0; (env == "1") != (took == 1) {
					t.Fatalf("%s=%s: %d clients on the ring", engine.RingEnv, env, took)
				}
				if err := w.EndIteration(ctx, s, it); err != nil {
					t.Fatal(err)
				}
				o.after, o.events, o.tally = checksum(), b.Events, b.Tally
				return o
			}
			onGoroutines, onRing := run("0"), run("1")
			if onGoroutines.events != 150 || onGoroutines.tally.Reads+onGoroutines.tally.Writes == 0 {
				t.Fatalf("goroutine path: %+v", onGoroutines)
			}
			if onRing != onGoroutines {
				t.Errorf("ring path %+v\ngoroutine path %+v", onRing, onGoroutines)
			}
		})
	}
}
