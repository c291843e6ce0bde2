package sqlgen

// GlibcRandom reproduces glibc's random() with its default TYPE_3 state
// (degree 31, separation 3). mysqlslap draws all of its generated SQL from
// random() before calling srandom(time), i.e. from the seed-1 state, so the
// statement text is the same on every run; matching it bit for bit is what
// makes --only-print byte-identical.
//
// The zero value is not seeded; call Seed first (NewGlibcRandom does).
type GlibcRandom struct {
	state       [31]uint32
	front, rear int // glibc's fptr and rptr as indexes into state
}

// NewGlibcRandom returns a generator in the state srandom(seed) leaves.
func NewGlibcRandom(seed uint32) *GlibcRandom {
	g := &GlibcRandom{}
	g.Seed(seed)
	return g
}

// Seed is srandom(seed): a Lehmer sequence (Schrage's method, as glibc
// computes it) fills the state, then 310 outputs are discarded.
func (g *GlibcRandom) Seed(seed uint32) {
	if seed == 0 {
		seed = 1 // glibc: "We must make sure the seed is not 0."
	}
	word := int64(int32(seed))
	g.state[0] = uint32(word)
	for i := 1; i < len(g.state); i++ {
		hi, lo := word/127773, word%127773
		word = 16807*lo - 2836*hi
		if word < 0 {
			word += 2147483647
		}
		word = int64(int32(word))
		g.state[i] = uint32(word)
	}
	g.front, g.rear = 3, 0
	for range 10 * len(g.state) {
		g.Next()
	}
}

// Next is random(): a value in [0, 2^31).
func (g *GlibcRandom) Next() uint32 {
	g.state[g.front] += g.state[g.rear]
	result := g.state[g.front] >> 1
	g.front++
	if g.front == len(g.state) {
		g.front = 0
	}
	g.rear++
	if g.rear == len(g.state) {
		g.rear = 0
	}
	return result
}

// Skip advances g as if Next had been called a*b times, in O(log(a*b))
// polynomial steps instead of a*b calls: mysqlslap draws all unique
// INSERTs before the query list, and with
// --auto-generate-sql-unique-write-number=4294967296 that is 5*10^11 draws.
//
// The generator is the linear recurrence x[k] = x[k-3] + x[k-31] (mod
// 2^32) over its ring of 31 words, oldest at front, so x[t] for the window
// x[0..30] is the combination of the window given by X^t mod
// P(X) = X^31 - X^28 - 1.
func (g *GlibcRandom) Skip(a, b uint64) {
	if a == 0 || b == 0 {
		return
	}
	q := polyPow(polyPow(poly{1: 1}, a), b) // X^(a*b) mod P
	var window [31]uint32
	for j := range window {
		window[j] = g.state[(g.front+j)%31]
	}
	var next [31]uint32
	for i := range next {
		var v uint32
		for j, c := range q {
			v += c * window[j]
		}
		next[i] = v
		q = polyMulX(q)
	}
	// The ring moves by a*b (mod 31) slots, front and rear alike.
	shift := int(mulMod(a, b, 31))
	g.front = (g.front + shift) % 31
	g.rear = (g.rear + shift) % 31
	for j := range next {
		g.state[(g.front+j)%31] = next[j]
	}
}

// poly is a polynomial of degree < 31 with coefficients mod 2^32.
type poly [31]uint32

// polyMulX is p*X mod P.
func polyMulX(p poly) poly {
	var r poly
	top := p[30]
	copy(r[1:], p[:30])
	r[28] += top // X^31 = X^28 + 1
	r[0] += top
	return r
}

func polyMul(a, b poly) poly {
	var prod [61]uint32
	for i, x := range a {
		if x == 0 {
			continue
		}
		for j, y := range b {
			prod[i+j] += x * y
		}
	}
	for d := 60; d >= 31; d-- {
		prod[d-3] += prod[d]
		prod[d-31] += prod[d]
	}
	var r poly
	copy(r[:], prod[:31])
	return r
}

func polyPow(base poly, e uint64) poly {
	result := poly{0: 1}
	for ; e > 0; e >>= 1 {
		if e&1 == 1 {
			result = polyMul(result, base)
		}
		base = polyMul(base, base)
	}
	return result
}

func mulMod(a, b, m uint64) uint64 {
	return (a % m) * (b % m) % m
}
