package tpcc

import "math/rand/v2"

// Cardinalities of tpcc-mysql's tpc.h.
const (
	maxItems      = 100000
	stockPerWH    = 100000
	distPerWH     = 10
	custPerDist   = 3000
	ordPerDist    = 3000
	firstNewOrder = 2101 // orders above 2100 are undelivered (in new_orders)
	notFoundItem  = maxItems + 1
)

// rng is one random stream: a task's during the load, a client's during a run.
type rng struct{ r *rand.Rand }

func newRNG(seed, stream uint64) rng {
	return rng{rand.New(rand.NewPCG(seed, stream))}
}

// num returns a uniform integer in [lo, hi].
func (g rng) num(lo, hi int) int { return lo + g.r.IntN(hi-lo+1) }

// nurand is TPC-C's non-uniform random NURand(A, x, y) with constant c.
func (g rng) nurand(a, x, y, c int) int {
	return (((g.num(0, a) | g.num(x, y)) + c) % (y - x + 1)) + x
}

const alnum = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"

// appendAString appends a random alphanumeric string of lo..hi characters.
// Letters and digits only, so the load's SQL needs no escaping.
func (g rng) appendAString(b []byte, lo, hi int) []byte {
	n := g.num(lo, hi)
	for i := 0; i < n; i++ {
		b = append(b, alnum[g.r.IntN(len(alnum))])
	}
	return b
}

// appendNString appends n random digits.
func (g rng) appendNString(b []byte, n int) []byte {
	for i := 0; i < n; i++ {
		b = append(b, byte('0'+g.r.IntN(10)))
	}
	return b
}

// appendData appends i_data / s_data: 26..50 characters, 10 % of them with
// "original" at a random position (tpcc-mysql writes it in lower case).
func (g rng) appendData(b []byte) []byte {
	start := len(b)
	b = g.appendAString(b, 26, 50)
	if g.num(1, 10) == 1 {
		n := len(b) - start
		pos := start + g.num(0, n-8)
		copy(b[pos:], "original")
	}
	return b
}

var syllables = [10]string{"BAR", "OUGHT", "ABLE", "PRI", "PRES", "ESE", "ANTI", "CALLY", "ATION", "EING"}

// appendLastName appends the c_last of number n (0..999): its three decimal
// digits as syllables.
func appendLastName(b []byte, n int) []byte {
	b = append(b, syllables[n/100]...)
	b = append(b, syllables[n/10%10]...)
	return append(b, syllables[n%10]...)
}

// constants are the NURand C values. tpcc-mysql draws them at random per
// process and does not coordinate the load's with the run's; here they come
// from the seed.
type constants struct{ last, id, item int }

func newConstants(seed uint64) constants {
	g := newRNG(seed, 1<<62)
	return constants{last: g.num(0, 255), id: g.num(0, 1023), item: g.num(0, 8191)}
}
