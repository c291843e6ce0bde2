package mysqlconn

import (
	"runtime"
	"sync"
	"testing"
	"time"
)

// TestNextProcs: the controller's rule raises saturated Ps (doubling, up
// to the ceiling) and leaves the others alone.
func TestNextProcs(t *testing.T) {
	for _, tt := range []struct {
		cores     float64
		cur, ceil int
		want      int
	}{
		{0.3, 1, 2, 1},   // a local server's load: one P is plenty
		{0.79, 1, 2, 1},  // just below pollRaiseAt
		{0.8, 1, 2, 2},   // at it
		{1.0, 1, 2, 2},   // bound by its own CPU
		{1.3, 2, 2, 2},   // at the ceiling already
		{1.0, 1, 16, 2},  // doubling
		{1.9, 2, 16, 4},  // doubling
		{3.2, 4, 16, 8},  // 0.8 of 4
		{3.1, 4, 16, 4},  // below 0.8 of 4
		{7.9, 8, 12, 12}, // doubled past the ceiling
		{5.0, 3, 2, 3},   // above the ceiling (it moved): never lowered
		{0, 1, 1, 1},     // one core
	} {
		if got := nextProcs(tt.cores, tt.cur, tt.ceil); got != tt.want {
			t.Errorf("nextProcs(%v, %d, %d) = %d, want %d", tt.cores, tt.cur, tt.ceil, got, tt.want)
		}
	}
}

// fakeCPU is a process CPU source that uses cores(GOMAXPROCS) CPU seconds
// per second of wall time.
func fakeCPU(cores func(ps int) float64) func() time.Duration {
	var mu sync.Mutex
	var used time.Duration
	last := time.Now()
	return func() time.Duration {
		mu.Lock()
		defer mu.Unlock()
		now := time.Now()
		used += time.Duration(cores(runtime.GOMAXPROCS(0)) * float64(now.Sub(last)))
		last = now
		return used
	}
}

// waitSamples waits until the controller has taken n samples (or 10 s).
func waitSamples(t *testing.T, samples func() int, n int) {
	t.Helper()
	for end := time.Now().Add(10 * time.Second); samples() < n; {
		if time.Now().After(end) {
			t.Fatalf("%d samples in 10 s, want %d", samples(), n)
		}
		time.Sleep(time.Millisecond)
	}
}

// TestProcController: a netpoller load starts on one P, the controller
// raises the Ps only while a fake CPU source shows them saturated, a
// threaded load beside it gets its clients + 1, a user's GOMAXPROCS
// leaves the Ps alone, and the Ps before the load come back after it.
func TestProcController(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(0))
	for _, tt := range []struct {
		name   string
		base   int
		env    string               // GOMAXPROCS in the environment
		cores  func(ps int) float64 // the fake process's CPU use
		during []int                // GOMAXPROCS seen, in order (no repeats)
	}{
		{"idle", 8, "", func(int) float64 { return 0.3 }, []int{1}},
		{"saturated", 8, "", func(ps int) float64 { return float64(ps) }, []int{1, 2, 4, 8}},
		{"one and a half cores", 8, "", func(ps int) float64 { return min(float64(ps), 1.5) }, []int{1, 2}},
		{"two cores, saturated", 2, "", func(ps int) float64 { return float64(ps) }, []int{1, 2}},
		{"user's GOMAXPROCS", 8, "8", func(ps int) float64 { return 0.3 }, []int{8}},
		{"one core", 1, "", func(ps int) float64 { return float64(ps) }, []int{1}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			if tt.env != "" {
				t.Setenv("GOMAXPROCS", tt.env)
			}
			runtime.GOMAXPROCS(tt.base)
			var mu sync.Mutex
			samples := 0
			seen := []int{}
			note := func() {
				if ps := runtime.GOMAXPROCS(0); len(seen) == 0 || seen[len(seen)-1] != ps {
					seen = append(seen, ps)
				}
			}
			p := &procCount{cpu: fakeCPU(tt.cores), every: 2 * time.Millisecond}
			p.observe = func(float64, int) { mu.Lock(); samples++; note(); mu.Unlock() }
			p.addPolled(1)
			mu.Lock()
			note()
			mu.Unlock()
			if tt.env == "" && tt.base > 1 {
				waitSamples(t, func() int { mu.Lock(); defer mu.Unlock(); return samples }, 12)
			} else {
				time.Sleep(30 * time.Millisecond)
			}
			mu.Lock()
			got := append([]int(nil), seen...)
			mu.Unlock()
			if !equalInts(got, tt.during) {
				t.Errorf("GOMAXPROCS during the load %v, want %v", got, tt.during)
			}
			p.addPolled(-1)
			if got := runtime.GOMAXPROCS(0); got != tt.base {
				t.Errorf("after the load GOMAXPROCS %d, want %d", got, tt.base)
			}
		})
	}

	t.Run("threaded load beside", func(t *testing.T) {
		runtime.GOMAXPROCS(2)
		p := &procCount{cpu: fakeCPU(func(int) float64 { return 0.3 }), every: time.Hour}
		p.addPolled(1)
		if got := runtime.GOMAXPROCS(0); got != 1 {
			t.Errorf("netpoller load: GOMAXPROCS %d, want 1", got)
		}
		p.add(3)
		if got := runtime.GOMAXPROCS(0); got != 4 {
			t.Errorf("beside 3 threaded clients: GOMAXPROCS %d, want 4", got)
		}
		p.add(-3)
		if got := runtime.GOMAXPROCS(0); got != 1 {
			t.Errorf("threaded load over: GOMAXPROCS %d, want 1", got)
		}
		p.addPolled(1) // a second netpoller load shares the cap
		p.addPolled(-1)
		if got := runtime.GOMAXPROCS(0); got != 1 {
			t.Errorf("one netpoller load left: GOMAXPROCS %d, want 1", got)
		}
		p.addPolled(-1)
		if got := runtime.GOMAXPROCS(0); got != 2 {
			t.Errorf("after all: GOMAXPROCS %d, want 2", got)
		}
	})
}

func equalInts(a, b []int) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// TestNetpollerLoadProcs: a real netpoller load (8 clients above the
// threshold of 5) runs on the Ps the rule gives for the process's own CPU
// use, starting from one; with a CPU source that shows them saturated it
// reaches the Ps it started with; a GOMAXPROCS in the environment is left
// alone; the load's end restores GOMAXPROCS.
func TestNetpollerLoadProcs(t *testing.T) {
	c := serverConnectors(t)["unix"]
	const base = 4
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(base))
	for _, tt := range []struct {
		name  string
		env   string
		cpu   func() time.Duration
		final int // GOMAXPROCS at the load's end; 0: the rule's
	}{
		{"own CPU", "", processCPU, 0},
		{"saturated", "", fakeCPU(func(ps int) float64 { return float64(ps) }), base},
		{"user's GOMAXPROCS", "3", processCPU, base},
	} {
		t.Run(tt.name, func(t *testing.T) {
			if tt.env != "" {
				t.Setenv("GOMAXPROCS", tt.env)
			}
			var mu sync.Mutex
			var cores []float64
			procs.Lock()
			cpu, every := procs.cpu, procs.every
			procs.cpu, procs.every = tt.cpu, 20*time.Millisecond
			procs.observe = func(c float64, _ int) { mu.Lock(); cores = append(cores, c); mu.Unlock() }
			procs.Unlock()
			defer func() {
				procs.Lock()
				procs.cpu, procs.every, procs.observe = cpu, every, nil
				procs.Unlock()
			}()

			th := c.StartThreads(8, 5)
			if th.Threaded() {
				th.Stop()
				t.Fatal("8 clients below 5 threaded")
			}
			start := runtime.GOMAXPROCS(0)
			if want := map[bool]int{true: base, false: pollStartProcs}[tt.env != ""]; start != want {
				t.Errorf("at the load's start GOMAXPROCS %d, want %d", start, want)
			}
			var wg sync.WaitGroup
			errc := make(chan error, 8)
			end := time.Now().Add(400 * time.Millisecond)
			for range 8 {
				wg.Add(1)
				go func() {
					defer wg.Done()
					var slot Slot
					th.Enter(&slot)
					defer th.Leave(&slot)
					conn, err := c.Connect(&slot)
					if err != nil {
						errc <- err
						return
					}
					defer conn.Close()
					for time.Now().Before(end) {
						if err := conn.Exec("DO 1"); err != nil {
							errc <- err
							return
						}
					}
				}()
			}
			wg.Wait()
			// Under procs' lock no sample lands between the two reads.
			procs.Lock()
			during := runtime.GOMAXPROCS(0)
			mu.Lock()
			seen := append([]float64(nil), cores...)
			mu.Unlock()
			procs.Unlock()
			th.Stop()
			close(errc)
			for err := range errc {
				t.Fatal(err)
			}
			want := tt.final
			if want == 0 {
				// Replay the rule over the samples the controller took
				// (a sample may land after the clients end).
				want = pollStartProcs
				for _, c := range seen {
					want = nextProcs(c, want, base)
				}
			}
			if during != want {
				t.Errorf("at the load's end GOMAXPROCS %d, want %d (samples %v)", during, want, seen)
			}
			t.Logf("GOMAXPROCS at the end %d, samples %.2f", during, seen)
			if tt.env == "" && len(seen) == 0 {
				t.Error("the controller took no sample in 400 ms")
			}
			if got := runtime.GOMAXPROCS(0); got != base {
				t.Errorf("after the load GOMAXPROCS %d, want %d", got, base)
			}
		})
	}
}
