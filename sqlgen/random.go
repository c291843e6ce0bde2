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
