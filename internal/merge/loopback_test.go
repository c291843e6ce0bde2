package merge

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/goslap/goslap/internal/results/jsondoc"
	"github.com/goslap/goslap/internal/sandbox"
	"github.com/goslap/goslap/internal/sandbox/servertest"
	"github.com/goslap/goslap/internal/shard"
)

func TestMain(m *testing.M) { servertest.Main(m, sandbox.Config{}, nil) }

// goslapBinary builds the goslap command once for the loopback tests.
func goslapBinary(t *testing.T) string {
	t.Helper()
	bin := filepath.Join(t.TempDir(), "goslap")
	cmd := exec.Command("go", "build", "-o", bin, "github.com/goslap/goslap")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("building goslap: %v\n%s", err, out)
	}
	return bin
}

// shards runs N goslap shards from a shell loop, as a user without a
// scheduler would, and returns the documents' paths; kill names a shard
// the loop kills killAfter into the run (-1: none).
func shards(t *testing.T, bin, dir string, n int, args string, kill int, killAfter time.Duration) []string {
	t.Helper()
	s := servertest.Require(t)
	script := fmt.Sprintf(`for i in $(seq 0 %d); do
  JOB_COMPLETION_INDEX=$i "$BIN" --user=root --socket="$SOCK" %s --shard=auto/%d --json="$DIR/shard-$i.json" >"$DIR/out-$i" 2>&1 &
  eval "pid$i=\$!"
done
if [ %d -ge 0 ]; then sleep %.3f; eval "kill -9 \$pid%d"; fi
status=0
for i in $(seq 0 %d); do eval "wait \$pid$i" || status=1; done
exit $status`, n-1, args, n, kill, killAfter.Seconds(), max(kill, 0), n-1)
	cmd := exec.Command("sh", "-c", script)
	cmd.Env = append(os.Environ(), "BIN="+bin, "SOCK="+s.Socket, "DIR="+dir)
	err := cmd.Run()
	var files []string
	for i := 0; i < n; i++ {
		out, _ := os.ReadFile(filepath.Join(dir, fmt.Sprintf("out-%d", i)))
		if kill < 0 {
			t.Logf("shard %d:\n%s", i, out)
		}
		f := filepath.Join(dir, fmt.Sprintf("shard-%d.json", i))
		if _, serr := os.Stat(f); serr == nil {
			files = append(files, f)
		}
	}
	if kill < 0 && err != nil {
		t.Fatalf("the shards failed: %v", err)
	}
	return files
}

// mergeFiles runs `goslap merge` (the command prints through the front
// ends' reporters, which this package cannot import).
func mergeFiles(t *testing.T, bin string, files []string, extra ...string) (code int, stdout, stderr string) {
	t.Helper()
	var out, errb bytes.Buffer
	cmd := exec.Command(bin, append(append([]string{"merge"}, files...), extra...)...)
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	var ee *exec.ExitError
	if err != nil && !errors.As(err, &ee) {
		t.Fatalf("goslap merge: %v", err)
	}
	return cmd.ProcessState.ExitCode(), out.String(), errb.String()
}

func TestLoopbackShards(t *testing.T) {
	bin := goslapBinary(t)
	for _, tc := range []struct {
		name, args string
		clients    int
		events     uint64 // 0: time-bound
	}{
		{"start-at", "--workload=oltp_point_select --create-schema=shard_at --tables=1 --table-size=300 -c 7 --number-of-queries=900 --start-at=now+3s", 7, 900},
		{"barrier", "--workload=oltp_point_select --create-schema=shard_barrier --tables=1 --table-size=300 -c 5 --run-time=1s --iterations=2 --start-at=barrier+300ms", 5, 0},
		// mysqlslap's workload prepares again for every load: shard 0
		// creates the schema, the table and its rows, the others wait, and
		// shard 0 drops it only after all have finished.
		{"mysqlslap start-at", "-a --create-schema=shard_slap_at -c 7 --number-of-queries=700 --iterations=2 --start-at=now+3s", 7, 2 * 700},
		{"mysqlslap barrier", "-a --auto-generate-sql-add-autoincrement --auto-generate-sql-load-type=key --create-schema=shard_slap_barrier -c 5 --number-of-queries=5000 --iterations=2 --latency --start-at=barrier+300ms", 5, 2 * 5000},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			files := shards(t, bin, dir, 3, tc.args, -1, 0)
			if len(files) != 3 {
				t.Fatalf("%d shard documents", len(files))
			}
			// Each shard's own report counts its own clients.
			for i := range 3 {
				out, _ := os.ReadFile(filepath.Join(dir, fmt.Sprintf("out-%d", i)))
				_, n := shard.Spec{Index: i, Count: 3}.Clients(tc.clients)
				if want := fmt.Sprintf("\tNumber of clients running queries: %d\n", n); !strings.Contains(string(out), want) {
					t.Errorf("shard %d's report lacks %q:\n%s", i, want, out)
				}
			}
			var sum uint64
			for _, f := range files {
				data, _ := os.ReadFile(f)
				d, err := jsondoc.Decode(bytes.NewReader(data))
				if err != nil {
					t.Fatal(err)
				}
				sum += d.Benchmarks[0].Executed
			}
			merged := filepath.Join(dir, "merged.json")
			code, out, errs := mergeFiles(t, bin, files, "--json="+merged)
			if code != 0 {
				t.Fatalf("merge exit %d: %s", code, errs)
			}
			t.Logf("merged report:\n%s%s", out, errs)
			data, _ := os.ReadFile(merged)
			d, err := jsondoc.Decode(bytes.NewReader(data))
			if err != nil {
				t.Fatal(err)
			}
			b := d.Benchmarks[0]
			clients := tc.clients
			if b.Executed != sum || tc.events > 0 && sum != tc.events || b.Concurrency != clients {
				t.Errorf("merged executed %d, shards' sum %d (want %d), clients %d (want %d)", b.Executed, sum, tc.events, b.Concurrency, clients)
			}
			for it, skew := range d.Merged.StartSkewMicros[0] {
				if skew > 200_000 {
					t.Errorf("iteration %d: start skew %d µs", it+1, skew)
				}
			}
			if !strings.Contains(out, fmt.Sprintf("\tNumber of clients running queries: %d\n", clients)) || !strings.HasPrefix(out, "Benchmark\n\tAverage number of seconds to run all queries: ") {
				t.Errorf("report not a mysqlslap block:\n%s", out)
			}
		})
	}
	for _, tc := range []struct{ name, args string }{
		{"one shard killed", "--workload=oltp_point_select --create-schema=shard_kill --tables=1 --table-size=300 -c 3 --run-time=3s --start-at=now+2s --shard-wait=3s"},
		// Shard 0 waits --shard-wait for the killed shard to finish the
		// load, then goes on (drops the schema) with a warning.
		{"one mysqlslap shard killed", "-a --create-schema=shard_slap_kill -c 3 --run-time=3s --start-at=now+2s --shard-wait=3s"},
	} {
		t.Run(tc.name, func(t *testing.T) { killedShard(t, bin, tc.args) })
	}
}

// killedShard runs 3 shards of args and kills shard 2 mid-run.
func killedShard(t *testing.T, bin, args string) {
	t.Helper()
	dir := t.TempDir()
	files := shards(t, bin, dir, 3, args, 2, 3500*time.Millisecond)
	if len(files) != 2 {
		t.Fatalf("%d documents, want the 2 of the shards not killed", len(files))
	}
	code, _, errs := mergeFiles(t, bin, files)
	if code == 0 || !strings.Contains(errs, "shards [2] of 3 are missing") {
		t.Errorf("merge without --allow-partial: exit %d, %s", code, errs)
	}
	code, out, errs := mergeFiles(t, bin, files, "--allow-partial")
	if !strings.Contains(errs, "PARTIAL: shards [2] missing") || !strings.HasPrefix(out, "Benchmark\n") {
		t.Errorf("--allow-partial: exit %d\n%s%s", code, out, errs)
	}
}

// TestLoopbackShardAbort: one shard of 3 fails on purpose (a --pre-query
// that errors on shard 0, an interrupt of shard 2); the others learn of it
// through its abort row and end within seconds, far below --shard-wait,
// with one line naming the shard and its error and a non-zero exit.
func TestLoopbackShardAbort(t *testing.T) {
	bin := goslapBinary(t)
	const wait = 60 * time.Second
	for _, tc := range []struct {
		name, args string
		extra      map[int]string // a shard's own options
		interrupt  int            // the shard sent SIGINT, -1: none
		existing   bool           // the schema exists before
		failed     int            // the shard the others name
		cause      string
		schema     string
	}{
		{name: "mysqlslap prepare fails", schema: "shard_abort_prep",
			args:  "-a --create-schema=shard_abort_prep -c 3 --number-of-queries=300 --run-id=abort-prep",
			extra: map[int]string{0: "--pre-query=SELECT * FROM no_such_table"}, interrupt: -1, failed: 0, cause: "no_such_table"},
		// Shard 1's clients cannot connect (their --init-command fails).
		{name: "mysqlslap clients refused", schema: "shard_abort_conn",
			args:  "-a --create-schema=shard_abort_conn -c 3 --number-of-queries=300 --iterations=2 --start-at=barrier+200ms --run-id=abort-conn",
			extra: map[int]string{1: "--init-command=SELECT * FROM no_such_table"}, interrupt: -1, failed: 1, cause: "no_such_table"},
		// Shard 2's load fails at its first statement, after the start
		// (in a schema of the user's: --query alone creates none).
		{name: "mysqlslap statement fails", schema: "shard_abort_stmt",
			args:  "--create-schema=shard_abort_stmt -c 3 --number-of-queries=3000 --iterations=2 --start-at=barrier+200ms --run-id=abort-stmt",
			extra: map[int]string{0: "--query=SELECT 1", 1: "--query=SELECT 1", 2: "--query=SELECT * FROM no_such_table"}, interrupt: -1, failed: 2, cause: "no_such_table", existing: true},
		{name: "workload prepare fails", schema: "shard_abort_wlprep",
			args:  "--workload=oltp_point_select --create-schema=shard_abort_wlprep --tables=1 --table-size=300 -c 3 --run-time=1s --run-id=abort-wlprep",
			extra: map[int]string{0: "--engine=no_such_engine"}, interrupt: -1, failed: 0, cause: "no_such_engine"},
		// Shard 1 was given more tables than shard 0 prepared: its
		// run fails before the start.
		{name: "workload shard fails", schema: "shard_abort_wlstmt",
			args:  "--workload=oltp_point_select --create-schema=shard_abort_wlstmt --table-size=300 -c 3 --run-time=1s --iterations=2 --start-at=barrier+200ms --run-id=abort-wlstmt",
			extra: map[int]string{0: "--tables=1", 1: "--tables=2", 2: "--tables=1"}, interrupt: -1, failed: 1, cause: "sbtest2"},
		{name: "mysqlslap shard interrupted", schema: "shard_abort_slap",
			args:      "-a --create-schema=shard_abort_slap -c 3 --run-time=1s --iterations=3 --start-at=barrier+200ms --run-id=abort-slap",
			interrupt: 2, failed: 2, cause: "interrupted"},
		{name: "workload shard interrupted", schema: "shard_abort_wl",
			args:      "--workload=oltp_point_select --create-schema=shard_abort_wl --tables=1 --table-size=300 -c 3 --run-time=1s --iterations=3 --start-at=barrier+200ms --run-id=abort-wl",
			interrupt: 2, failed: 2, cause: "interrupted"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := servertest.Require(t)
			db, err := s.OpenDB("")
			if err != nil {
				t.Fatal(err)
			}
			defer db.Close()
			if tc.existing {
				if _, err := db.Exec("CREATE DATABASE IF NOT EXISTS " + tc.schema); err != nil {
					t.Fatal(err)
				}
				defer db.Exec("DROP DATABASE IF EXISTS " + tc.schema)
			}
			type shardRun struct {
				cmd  *exec.Cmd
				out  bytes.Buffer
				took time.Duration
			}
			runs := make([]*shardRun, 3)
			done := make(chan int, 3)
			t0 := time.Now()
			for i := range runs {
				args := append([]string{"--user=root", "--socket=" + s.Socket, fmt.Sprintf("--shard=%d/3", i), fmt.Sprintf("--shard-wait=%s", wait)},
					strings.Fields(tc.args)...)
				if e := tc.extra[i]; e != "" {
					args = append(args, e)
				}
				r := &shardRun{cmd: exec.Command(bin, args...)}
				r.cmd.Stdout, r.cmd.Stderr = &r.out, &r.out
				if err := r.cmd.Start(); err != nil {
					t.Fatal(err)
				}
				runs[i] = r
				go func() {
					_ = r.cmd.Wait()
					r.took = time.Since(t0)
					done <- i
				}()
			}
			if tc.interrupt >= 0 {
				time.Sleep(1800 * time.Millisecond)
				_ = runs[tc.interrupt].cmd.Process.Signal(os.Interrupt)
			}
			for range runs {
				select {
				case <-done:
				case <-time.After(wait + 10*time.Second):
					for _, r := range runs {
						_ = r.cmd.Process.Kill()
					}
					t.Fatal("the shards did not end")
				}
			}
			line := fmt.Sprintf("goslap: shard %d/3 aborted the run: ", tc.failed)
			for i, r := range runs {
				out := r.out.String()
				t.Logf("shard %d (exit %d after %v):\n%s", i, r.cmd.ProcessState.ExitCode(), r.took.Round(time.Millisecond), out)
				if r.cmd.ProcessState.ExitCode() == 0 {
					t.Errorf("shard %d exited 0", i)
				}
				if i == tc.failed {
					continue
				}
				if !strings.Contains(out, line) || !strings.Contains(out[strings.Index(out, line)+len(line):], tc.cause) {
					t.Errorf("shard %d lacks %q…%s", i, line, tc.cause)
				}
				// Within seconds of the failure, not after --shard-wait.
				if r.took > 15*time.Second {
					t.Errorf("shard %d ended after %v (--shard-wait=%v)", i, r.took, wait)
				}
			}
			// Shard 0 cleaned up what it created.
			var tables int
			if err := db.QueryRow("SELECT COUNT(*) FROM information_schema.tables WHERE table_schema = ? AND table_name <> ?", tc.schema, shard.BarrierTable).Scan(&tables); err != nil {
				t.Fatal(err)
			}
			if tables != 0 {
				t.Errorf("%d tables left in %s", tables, tc.schema)
			}
		})
	}
}
