package shard

import (
	"strings"
	"testing"
	"time"
)

func TestSplitAddsUp(t *testing.T) {
	for c := 0; c <= 64; c++ {
		for n := 1; n <= 64; n++ {
			next, sumEvents := 0, uint64(0)
			var sizes []int
			for i := 0; i < n; i++ {
				s := Spec{Index: i, Count: n}
				first, k := s.Clients(c)
				if first != next {
					t.Fatalf("C=%d N=%d shard %d starts at client %d, want %d (segments must tile)", c, n, i, first, next)
				}
				next += k
				sizes = append(sizes, k)
				sumEvents += s.Events(uint64(c) * 7)
			}
			if next != c || sumEvents != uint64(c)*7 {
				t.Fatalf("C=%d N=%d: clients add up to %d, events to %d", c, n, next, sumEvents)
			}
			lo, hi := sizes[0], sizes[0]
			for _, k := range sizes {
				lo, hi = min(lo, k), max(hi, k)
			}
			if hi-lo > 1 {
				t.Fatalf("C=%d N=%d: shard sizes %v differ by more than one", c, n, sizes)
			}
		}
	}
}

func TestRateKeepsPerClientRate(t *testing.T) {
	sum := 0.0
	for i := 0; i < 3; i++ {
		s := Spec{Index: i, Count: 3}
		_, n := s.Clients(10)
		r := s.Rate(1000, 10)
		if got := r / float64(n); got != 100 {
			t.Errorf("shard %d: %v per client, want 100", i, got)
		}
		sum += r
	}
	if sum != 1000 {
		t.Errorf("rates add up to %v", sum)
	}
	if (Spec{}).Rate(5, 3) != 5 || (Spec{}).Events(9) != 9 {
		t.Error("an unsharded run must keep its limits")
	}
}

func TestEventsHugeTotal(t *testing.T) {
	total := ^uint64(0)
	var sum uint64
	for i := 0; i < 7; i++ {
		sum += Spec{Index: i, Count: 7}.Events(total)
	}
	if sum != total {
		t.Fatalf("sum %d, want %d", sum, total)
	}
}

func TestParse(t *testing.T) {
	env := func(v string) func(string) string {
		return func(k string) string {
			if k == IndexEnv {
				return v
			}
			return ""
		}
	}
	for _, tc := range []struct {
		in, env string
		want    Spec
		err     string
	}{
		{in: "0/1", want: Spec{0, 1}},
		{in: "2/3", want: Spec{2, 3}},
		{in: " 1 / 4 ", want: Spec{1, 4}},
		{in: "auto/3", env: "1", want: Spec{1, 3}},
		{in: "AUTO/3", env: "0", want: Spec{0, 3}},
		{in: "3/3", err: "from 0 to 2"},
		{in: "-1/3", err: "from 0 to 2"},
		{in: "1", err: "want I/N"},
		{in: "1/0", err: "from 1 to"},
		{in: "1/x", err: "from 1 to"},
		{in: "x/2", err: "from 0 to 1"},
		{in: "auto/3", err: "JOB_COMPLETION_INDEX is not set"},
		{in: "auto/3", env: "3", err: "(from JOB_COMPLETION_INDEX)"},
		{in: "0/99999", err: "from 1 to 4096"},
	} {
		got, err := Parse(tc.in, env(tc.env))
		if tc.err != "" {
			if err == nil || !strings.Contains(err.Error(), tc.err) {
				t.Errorf("Parse(%q) = %v, %v; want error with %q", tc.in, got, err, tc.err)
			}
			continue
		}
		if err != nil || got != tc.want {
			t.Errorf("Parse(%q) = %v, %v; want %v", tc.in, got, err, tc.want)
		}
	}
}

func TestCheck(t *testing.T) {
	if err := (Spec{0, 4}).Check(3); err == nil || !strings.Contains(err.Error(), "3 clients cannot be split over 4 shards") {
		t.Errorf("Check = %v", err)
	}
	if err := (Spec{0, 4}).Check(4); err != nil {
		t.Error(err)
	}
}

func TestParseStartAt(t *testing.T) {
	now := time.Date(2026, 12, 3, 16, 0, 0, 0, time.UTC)
	for _, tc := range []struct {
		in      string
		at      time.Time
		barrier bool
		delay   time.Duration
		err     string
	}{
		{in: "now+3s", at: now.Add(3 * time.Second)},
		{in: "NOW+1m30s", at: now.Add(90 * time.Second)},
		{in: "2026-12-03T16:00:05.25Z", at: now.Add(5250 * time.Millisecond)},
		{in: "2026-12-03T17:00:05+01:00", at: now.Add(5 * time.Second)},
		{in: "2026-12-03T16:00:05.123456789Z", at: now.Add(5*time.Second + 123456789)},
		{in: "barrier", barrier: true, delay: DefaultBarrierDelay},
		{in: "barrier+250ms", barrier: true, delay: 250 * time.Millisecond},
		{in: "now", err: "now+DURATION"},
		{in: "now+", err: "now+DURATION"},
		{in: "now-3s", err: "now+DURATION"},
		{in: "now+-3s", err: "now+DURATION"},
		{in: "barrier3s", err: "barrier+DURATION"},
		{in: "2026-12-03 16:00:00", err: "RFC 3339"},
		{in: "tomorrow", err: "RFC 3339"},
	} {
		got, err := ParseStartAt(tc.in, now)
		if tc.err != "" {
			if err == nil || !strings.Contains(err.Error(), tc.err) {
				t.Errorf("ParseStartAt(%q) = %+v, %v; want error with %q", tc.in, got, err, tc.err)
			}
			continue
		}
		if err != nil || !got.At.Equal(tc.at) || got.Barrier != tc.barrier || got.Delay != tc.delay || !got.Active() {
			t.Errorf("ParseStartAt(%q) = %+v, %v", tc.in, got, err)
		}
	}
}

func TestParseLateStartAndRunID(t *testing.T) {
	if f, err := ParseLateStart("fail"); !f || err != nil {
		t.Error(f, err)
	}
	if f, err := ParseLateStart("run"); f || err != nil {
		t.Error(f, err)
	}
	if _, err := ParseLateStart("wait"); err == nil {
		t.Error("wait accepted")
	}
	for _, bad := range []string{"", "a'b", "a b", strings.Repeat("x", 65)} {
		if CheckRunID(bad) == nil {
			t.Errorf("run id %q accepted", bad)
		}
	}
	if err := CheckRunID("run-2026.12:03_a"); err != nil {
		t.Error(err)
	}
}

func TestParseUnix(t *testing.T) {
	got, err := parseUnix("1733241600.000123")
	if err != nil || !got.Equal(time.Unix(1733241600, 123000)) {
		t.Errorf("%v %v", got, err)
	}
	if _, err := parseUnix("x"); err == nil {
		t.Error("x accepted")
	}
}
