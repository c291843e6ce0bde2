package mysqlslap

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/goslap/goslap/internal/merge"
	"github.com/goslap/goslap/internal/results/jsondoc"
	"github.com/goslap/goslap/internal/sandbox"
	"github.com/goslap/goslap/internal/sandbox/servertest"
)

// TestShardedMysqlslapSendsWhatOneMachineSends: two shards (in one
// process, meeting at the barrier) insert exactly the rows one process
// inserts with the same seed, in every load: each client's template
// stream is keyed by its global id, the per-client counts are those of
// all clients, and shard 0's --post-query (which copies the load's rows
// out before the schema is dropped) runs only after both shards finished.
func TestShardedMysqlslapSendsWhatOneMachineSends(t *testing.T) {
	s := servertest.Require(t)
	db, err := s.OpenDB("")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	for _, tc := range []struct {
		name string
		args []string
	}{
		{"per-client limit", []string{"-c", "4,6", "--number-of-queries=40", "--iterations=2"}},
		{"exact count", []string{"-c", "5", "--number-of-queries=23", "--exact-count"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			rows := func(run string, shards int) []string {
				keep := "shard_keep_" + run
				for _, stmt := range []string{"DROP SCHEMA IF EXISTS " + keep, "CREATE SCHEMA " + keep, "CREATE TABLE " + keep + ".kept (v BIGINT)"} {
					if _, err := db.Exec(stmt); err != nil {
						t.Fatal(err)
					}
				}
				args := append([]string{"--create-schema=shard_streams_" + run, "--create=CREATE TABLE t (v BIGINT)",
					"--query=INSERT INTO t VALUES ({number:1,1000000000})", "--templates", "--seed=7",
					"--post-query=INSERT INTO " + keep + ".kept SELECT v FROM t"}, tc.args...)
				runShards(t, s, shards, func(i int) []string {
					if shards == 1 {
						return args
					}
					return append(slices.Clone(args), fmt.Sprintf("--shard=%d/%d", i, shards), "--start-at=barrier+100ms", "--run-id=streams-"+run, "--shard-wait=30s")
				})
				r, err := db.Query("SELECT v FROM " + keep + ".kept ORDER BY v")
				if err != nil {
					t.Fatal(err)
				}
				defer r.Close()
				var out []string
				for r.Next() {
					var v string
					if err := r.Scan(&v); err != nil {
						t.Fatal(err)
					}
					out = append(out, v)
				}
				db.Exec("DROP SCHEMA " + keep)
				var left int
				if err := db.QueryRow("SELECT COUNT(*) FROM information_schema.schemata WHERE schema_name LIKE 'shard_streams_%'").Scan(&left); err != nil || left != 0 {
					t.Errorf("%d schemas left after the run (%v)", left, err)
				}
				return out
			}
			one, split := rows("one", 1), rows("split", 2)
			if len(one) == 0 || !slices.Equal(one, split) {
				t.Errorf("one process inserted %d rows, two shards %d; equal: %v", len(one), len(split), slices.Equal(one, split))
			}
		})
	}
}

// TestShardedMysqlslapRate: each shard paces its share of --rate (in
// proportion to its clients), its document says so, and the merged one
// has the whole rate over all clients.
func TestShardedMysqlslapRate(t *testing.T) {
	s := servertest.Require(t)
	dir := t.TempDir()
	var files []string
	for i := range 2 {
		files = append(files, filepath.Join(dir, fmt.Sprintf("shard-%d.json", i)))
	}
	runShards(t, s, 2, func(i int) []string {
		return []string{"--query=SELECT 1", "--create-schema=shard_rate", "--create=CREATE TABLE t (id INT)", "-c", "5", "--rate=200", "--run-time=1s",
			fmt.Sprintf("--shard=%d/2", i), "--start-at=barrier+100ms", "--run-id=rate", "--shard-wait=30s", "--json=" + files[i]}
	})
	for i, want := range []struct {
		clients int
		rate    float64
	}{{2, 80}, {3, 120}} {
		data, err := os.ReadFile(files[i])
		if err != nil {
			t.Fatal(err)
		}
		d, err := jsondoc.Decode(bytes.NewReader(data))
		if err != nil {
			t.Fatal(err)
		}
		b := d.Benchmarks[0]
		if b.Concurrency != want.clients || b.Rate == nil || b.Rate.Target != want.rate || b.Executed == 0 {
			t.Errorf("shard %d: %d clients, rate %+v, executed %d; want %d clients at %g/s", i, b.Concurrency, b.Rate, b.Executed, want.clients, want.rate)
		}
	}
	// The shards' documents merge (package merge, which goslap merge runs).
	var in []merge.Input
	for _, f := range files {
		data, err := merge.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		d, err := merge.Decode(f, data)
		if err != nil {
			t.Fatal(err)
		}
		in = append(in, merge.Input{Name: f, Doc: d})
	}
	res, err := merge.Merge(in, merge.Options{})
	if err != nil {
		t.Fatalf("merge: %v", err)
	}
	if d := res.Doc; d.Benchmarks[0].Concurrency != 5 || d.Benchmarks[0].Rate == nil || d.Benchmarks[0].Rate.Target != 200 {
		t.Errorf("merged: %+v", d.Benchmarks)
	}
}

// runShards runs n goslap shard processes' command lines (argsOf(i)) at
// once, in this process, against s, and fails the test if any fails.
func runShards(t *testing.T, s *sandbox.Server, n int, argsOf func(i int) []string) {
	t.Helper()
	var wg sync.WaitGroup
	errs := make([]string, n)
	for i := range n {
		args := argsOf(i)
		wg.Add(1)
		go func() {
			defer wg.Done()
			if code, _, stderr := runMain(t, s, args...); code != 0 {
				errs[i] = fmt.Sprintf("shard %d: exit %d: %s", i, code, stderr)
			}
		}()
	}
	wg.Wait()
	if msg := strings.Join(errs, ""); msg != "" {
		t.Fatal(msg)
	}
}
