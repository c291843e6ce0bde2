// Package verdict answers "is B faster than A, and by how much?" from a few
// rounds of a benchmark: the per-round values of one metric for a baseline
// side A and another side B, paired by round.
//
// # Method: Student's t on the log-ratios
//
// Each round gives one ratio B/A; drift that hits both sides of a round
// alike cancels in it. Ratios are multiplicative, so the statistics work on
// d = ln(B/A): their mean m, standard deviation s and the t interval
// m ± t(0.975, n−1)·s/√n, exponentiated back into a ratio (the geometric
// mean of the ratios and its 95 % confidence interval). The package also
// reports the median ratio, which a single wild round moves less.
//
// Why t and not a bootstrap: benchmark comparisons have 3 to 10 rounds.
// A percentile bootstrap of n = 3 values has only 10 distinct resamples
// and its interval is far too narrow (it covers the truth well below 95 %
// of the time at n ≤ 5); the t interval is exact for log-normal noise,
// close for anything roughly symmetric on the log scale, wide when it
// should be (n = 2 gives t = 12.7), deterministic (no seed) and costs
// nothing. TestCoverage checks the 95 % on synthetic data.
//
// A difference is a verdict only when the interval excludes 1: otherwise
// the answer is "no difference detected", with the half-width of the
// interval as the smallest difference these rounds could have detected.
package verdict

import (
	"errors"
	"fmt"
	"math"
	"slices"
	"strconv"

	"gonum.org/v1/gonum/mathext"
)

// Confidence is the level of every interval this package computes.
const Confidence = 0.95

// Better says which way a metric improves.
type Better int

const (
	// Higher is better: throughput (tps, qps, tpmC).
	Higher Better = iota
	// Lower is better: latency.
	Lower
)

// Outcome is the verdict's kind.
type Outcome int

const (
	// NoVerdict: one round, no interval can be computed.
	NoVerdict Outcome = iota
	// NoDifference: the interval includes 1.
	NoDifference
	// Faster: B is better than A (higher throughput or lower latency) and
	// the interval excludes 1.
	Faster
	// Slower: B is worse than A and the interval excludes 1.
	Slower
)

// NeedRounds is what a comparison of one round says instead of a verdict.
const NeedRounds = "no verdict: one round; a verdict needs --rounds"

// Result is the comparison of B with A over paired rounds.
type Result struct {
	Better Better
	// Ratios are B/A per round, in round order.
	Ratios []float64
	// Median is the median of Ratios; Ratio their geometric mean, the
	// centre of the interval.
	Median, Ratio float64
	// Low and High bound the 95 % confidence interval of the ratio (both
	// equal Ratio when there is one round).
	Low, High float64
	// Detectable is the smallest relative difference these rounds could
	// have detected (the interval's half-width as a fraction: 0.05 is
	// ±5 %); 0 with one round.
	Detectable float64
	Outcome    Outcome
}

// Rounds is the number of paired rounds.
func (r Result) Rounds() int { return len(r.Ratios) }

// HasCI says whether an interval was computed (two rounds or more).
func (r Result) HasCI() bool { return len(r.Ratios) >= 2 }

// Compare compares b with a, paired by round: a[i] and b[i] were measured
// in the same round. Values must be positive and finite.
func Compare(a, b []float64, better Better) (Result, error) {
	if len(a) != len(b) {
		return Result{}, fmt.Errorf("%d rounds of the baseline, %d of the other side: rounds are compared in pairs", len(a), len(b))
	}
	if len(a) == 0 {
		return Result{}, errors.New("no rounds to compare")
	}
	r := Result{Better: better, Ratios: make([]float64, len(a))}
	logs := make([]float64, len(a))
	for i := range a {
		if !(a[i] > 0) || !(b[i] > 0) || math.IsInf(a[i], 0) || math.IsInf(b[i], 0) {
			return Result{}, fmt.Errorf("round %d: values %g and %g: a ratio needs two positive figures", i+1, a[i], b[i])
		}
		r.Ratios[i] = b[i] / a[i]
		logs[i] = math.Log(r.Ratios[i])
	}
	r.Median = median(r.Ratios)
	n := float64(len(logs))
	var sum float64
	for _, d := range logs {
		sum += d
	}
	mean := sum / n
	r.Ratio = math.Exp(mean)
	if len(logs) < 2 {
		r.Low, r.High = r.Ratio, r.Ratio
		return r, nil
	}
	var sq float64
	for _, d := range logs {
		sq += (d - mean) * (d - mean)
	}
	half := TQuantile(1-(1-Confidence)/2, n-1) * math.Sqrt(sq/(n-1)) / math.Sqrt(n)
	r.Low, r.High = math.Exp(mean-half), math.Exp(mean+half)
	r.Detectable = math.Exp(half) - 1
	switch {
	case r.Low > 1:
		r.Outcome = Faster
	case r.High < 1:
		r.Outcome = Slower
	default:
		r.Outcome = NoDifference
	}
	if better == Lower { // a lower latency is the better side
		switch r.Outcome {
		case Faster:
			r.Outcome = Slower
		case Slower:
			r.Outcome = Faster
		}
	}
	return r, nil
}

// TQuantile is the p quantile (p > 0.5) of Student's t distribution with
// df degrees of freedom, through the inverse regularised incomplete beta
// function: P(|T| > t) = I_x(df/2, 1/2) with x = df/(df+t²).
func TQuantile(p, df float64) float64 {
	x := mathext.InvRegIncBeta(df/2, 0.5, 2*(1-p))
	return math.Sqrt(df * (1 - x) / x)
}

func median(v []float64) float64 {
	s := slices.Clone(v)
	slices.Sort(s)
	if len(s)%2 == 1 {
		return s[len(s)/2]
	}
	return (s[len(s)/2-1] + s[len(s)/2]) / 2
}

// Change is the difference as a fraction of A in the direction of the
// verdict: for Faster and Slower the size of the improvement or the
// regression (0.10 for "by 10 %"), and its interval in the same terms,
// low ≤ high.
func (r Result) Change() (x, low, high float64) {
	abs := func(v float64) float64 { return math.Abs(v - 1) }
	x = abs(r.Ratio)
	// The interval lies on one side of 1 for a verdict: its ends map to
	// the nearer and the farther change.
	lo, hi := abs(r.Low), abs(r.High)
	if lo > hi {
		lo, hi = hi, lo
	}
	return x, lo, hi
}

// String is the verdict in words: "faster by 10.2 % (95 % CI 8.1–12.3 %)",
// "slower by …", "no difference detected (these 5 rounds could have
// detected about ±3.1 %)", or NeedRounds.
func (r Result) String() string {
	switch r.Outcome {
	case Faster, Slower:
		word := "faster"
		if r.Outcome == Slower {
			word = "slower"
		}
		x, lo, hi := r.Change()
		return fmt.Sprintf("%s by %s %% (95 %% CI %s–%s %%)", word, pct(x), pct(lo), pct(hi))
	case NoDifference:
		if r.Detectable >= 1 {
			// Two rounds of much noise: a percentage past 100 reads as
			// nonsense, a factor does not.
			f := strconv.FormatFloat(1+r.Detectable, 'f', 1, 64)
			if r.Detectable >= 9 {
				f = strconv.FormatFloat(1+r.Detectable, 'f', 0, 64)
			}
			return fmt.Sprintf("no difference detected (these %d rounds could have detected only a ratio beyond ×%s or ÷%s)", r.Rounds(), f, f)
		}
		return fmt.Sprintf("no difference detected (these %d rounds could have detected about ±%s %%)", r.Rounds(), pct(r.Detectable))
	}
	return NeedRounds
}

// pct prints a fraction as a percentage with a precision that suits its
// size: 0.1 % steps below 10 %, whole percents above.
func pct(f float64) string {
	p := f * 100
	if p < 10 {
		return fmt.Sprintf("%.1f", p)
	}
	return fmt.Sprintf("%.0f", p)
}

// Order is the order in which sides (0 = the baseline) run in each of the
// rounds, so that drift, noise and warm-up hit every side alike: round r
// runs the sides rotated by r/2, reversed in odd rounds. Two sides give
// A B, B A, B A, A B, … (each pair of rounds cancels a linear drift, each
// four a quadratic one); k sides take each position equally often over 2k
// rounds.
func Order(sides, rounds int) [][]int {
	out := make([][]int, rounds)
	for r := range out {
		o := make([]int, sides)
		for i := range o {
			o[i] = (i + r/2) % sides
		}
		if r%2 == 1 {
			slices.Reverse(o)
		}
		out[r] = o
	}
	return out
}
