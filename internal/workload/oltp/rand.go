package oltp

import (
	"fmt"
	"math"
)

// rng is xoshiro256**: a fast, allocation-free stream per client, seeded by
// splitmix64 from (seed, stream) so every client draws its own sequence and a
// fixed seed reproduces a run's statements.
type rng struct{ s0, s1, s2, s3 uint64 }

func newRNG(seed, stream uint64) rng {
	x := seed ^ (stream+1)*0x9e3779b97f4a7c15
	next := func() uint64 {
		x += 0x9e3779b97f4a7c15
		z := x
		z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9
		z = (z ^ (z >> 27)) * 0x94d049bb133111eb
		return z ^ (z >> 31)
	}
	return rng{next(), next(), next(), next()}
}

func (r *rng) next() uint64 {
	res := bitsRotl(r.s1*5, 7) * 9
	t := r.s1 << 17
	r.s2 ^= r.s0
	r.s3 ^= r.s1
	r.s1 ^= r.s2
	r.s0 ^= r.s3
	r.s2 ^= t
	r.s3 = bitsRotl(r.s3, 45)
	return res
}

func bitsRotl(x uint64, k uint) uint64 { return x<<k | x>>(64-k) }

// u is U(): a uniform double in [0, 1).
func (r *rng) u() float64 { return float64(r.next()>>11) * 0x1p-53 }

// r30 is sysbench 0.4/0.5's R(): lrand48() % 0x3fffffff, an integer in
// [0, 2^30-2].
func (r *rng) r30() int64 { return int64((r.next() >> 33) % 0x3fffffff) }

// digits fills b with uniformly random decimal digits wherever the template
// has '#' and random letters a-z wherever it has '@' (sysbench's
// rand_string); other bytes are left as they are. 18 digits come from one
// 64-bit draw, so a 119-character c costs 6 draws.
func (r *rng) fill(b []byte, tmpl string) {
	var v uint64
	left := 0
	for i := 0; i < len(tmpl); i++ {
		switch tmpl[i] {
		case '#':
			if left == 0 {
				v, left = r.next(), 18
			}
			b[i] = byte('0' + v%10)
			v /= 10
			left--
		case '@':
			b[i] = byte('a' + (r.next()>>32)*26>>32)
		default:
			b[i] = tmpl[i]
		}
	}
}

// Templates of sysbench's c and pad columns (§3.1).
const (
	tmplC119 = "###########-###########-###########-###########-###########-###########-###########-###########-###########-###########"
	tmplP59  = "###########-###########-###########-###########-###########"
)

// Distribution names (--rand-type).
const (
	distUniform  = "uniform"
	distGaussian = "gaussian"
	distSpecial  = "special"
	distPareto   = "pareto"
	distZipfian  = "zipfian"
)

// dist is a configured id distribution of one dialect. Its parameters are
// fixed for a run; the state is the caller's rng.
type dist struct {
	dialect  string
	kind     string
	iter     int64   // --rand-spec-iter
	pct, res float64 // --rand-spec-pct, --rand-spec-res
	paretoP  float64 // ln(h)/ln(1-h)
	zipfExp  float64
}

func newDist(dialect, kind string, iter int64, pct, res, h, zipfExp float64) (dist, error) {
	d := dist{dialect: dialect, kind: kind, iter: iter, pct: pct, res: res, zipfExp: zipfExp}
	switch kind {
	case distUniform, distGaussian, distSpecial:
	case distPareto:
		if h <= 0 || h >= 1 {
			return d, fmt.Errorf("--rand-pareto-h must be between 0 and 1 (exclusive), not %g", h)
		}
		d.paretoP = math.Log(h) / math.Log(1-h)
	case distZipfian:
		if dialect != dialect10 {
			return d, fmt.Errorf("--rand-type=zipfian is a goslap extension of dialect 1.0 only")
		}
		if zipfExp <= 0 {
			return d, fmt.Errorf("--rand-zipfian-exp must be > 0, not %g", zipfExp)
		}
	default:
		return d, fmt.Errorf("unknown --rand-type '%s' (uniform, gaussian, special, pareto, zipfian)", kind)
	}
	if iter < 1 {
		return d, fmt.Errorf("--rand-spec-iter must be >= 1, not %d", iter)
	}
	if pct < 0 || pct > 100 {
		return d, fmt.Errorf("--rand-spec-pct must be between 0 and 100, not %g", pct)
	}
	if res < 0 || res >= 100 {
		return d, fmt.Errorf("--rand-spec-res must be between 0 and 99, not %g", res)
	}
	return d, nil
}

// draw returns a value in [a, b] (a <= b) distributed as the dialect's
// generator of that name does (§4).
func (d *dist) draw(r *rng, a, b int64) int64 {
	switch d.dialect {
	case dialect05:
		return d.draw05(r, a, b)
	case dialect04:
		// 0.4 always draws over 1..N.
		return d.draw04(r, b)
	}
	switch d.kind {
	case distUniform:
		return a + int64(r.u()*float64(b-a+1))
	case distGaussian:
		t := float64(b - a + 1)
		sum := 0.0
		for j := int64(0); j < d.iter; j++ {
			sum += r.u() * t
		}
		return a + int64(sum/float64(d.iter))
	case distSpecial:
		t := float64(b - a)
		m := t * 100 / (100 - d.res)
		u := r.u()
		if u*m < t {
			sum := 0.0
			for j := int64(0); j < d.iter; j++ {
				sum += r.u()
			}
			return a + int64(t*sum/float64(d.iter))
		}
		w := t * d.pct / 100
		// u is reused on purpose: sysbench 1.0 does, which puts the hot
		// window at the upper res % of a (w+1)-wide window.
		return a + int64(u*(w+1)+t/2-t*d.pct/200)
	case distPareto:
		return a + int64(float64(b-a+1)*math.Pow(r.u(), d.paretoP))
	case distZipfian:
		return a + zipf(r, b-a+1, d.zipfExp) - 1
	}
	panic("oltp: unknown distribution " + d.kind)
}

func (d *dist) draw05(r *rng, a, b int64) int64 {
	switch d.kind {
	case distUniform:
		return a + r.r30()%(b-a+1)
	case distGaussian:
		return a + gauss05(r, b-a+1, d.iter)
	case distSpecial:
		if a >= b {
			return 0
		}
		t := b - a + 1
		res := int64(d.res)
		m := t * (100 / (100 - res))
		x := r.r30() % m
		if x < t {
			return a + gauss05(r, t, d.iter)
		}
		pct := int64(d.pct)
		w := max(1, t*pct/100)
		x %= w
		return a + x + t/2 - t*pct/200
	case distPareto:
		return a + int64(float64(b-a+1)*math.Pow(r.u(), d.paretoP))
	}
	panic("oltp: unknown distribution " + d.kind)
}

func gauss05(r *rng, t, iter int64) int64 {
	var sum int64
	for j := int64(0); j < iter; j++ {
		sum += r.r30() % t
	}
	return sum / iter
}

func (d *dist) draw04(r *rng, n int64) int64 {
	switch d.kind {
	case distUniform:
		return 1 + r.r30()%n
	case distGaussian:
		return gauss04(r, n, d.iter)
	case distSpecial:
		if n == 0 {
			return 0
		}
		res := int64(d.res)
		m := n * (100 / (100 - res))
		x := 1 + r.r30()%m
		if x <= n {
			return gauss04(r, n, d.iter)
		}
		pct := int64(d.pct)
		w := max(1, n*pct/100)
		x %= w
		return x + n/2 - n*pct/200
	case distPareto:
		return 1 + int64(float64(n)*math.Pow(r.u(), d.paretoP))
	}
	panic("oltp: unknown distribution " + d.kind)
}

func gauss04(r *rng, n, iter int64) int64 {
	var sum int64
	for j := int64(0); j < iter; j++ {
		sum += 1 + r.r30()%n
	}
	return sum / iter
}

// zipf draws k in [1, n] with P(k) proportional to k^-s by rejection-inversion
// (Hörmann and Derflinger, 1996), the method Apache Commons RNG uses. A goslap
// extension: sysbench 1.0.20 rejects --rand-type=zipfian.
func zipf(r *rng, n int64, s float64) int64 {
	h := func(x float64) float64 { return math.Exp(-s * math.Log(x)) }
	hInt := func(x float64) float64 {
		lx := math.Log(x)
		return helper2((1-s)*lx) * lx
	}
	hIntInv := func(x float64) float64 {
		t := x * (1 - s)
		if t < -1 {
			t = -1
		}
		return math.Exp(helper1(t) * x)
	}
	hx1 := hInt(1.5) - 1
	hn := hInt(float64(n) + 0.5)
	sdiv := 2 - hIntInv(hInt(2.5)-h(2))
	for {
		u := hn + r.u()*(hx1-hn)
		x := hIntInv(u)
		k := int64(x + 0.5)
		if k < 1 {
			k = 1
		} else if k > n {
			k = n
		}
		if float64(k)-x <= sdiv || u >= hInt(float64(k)+0.5)-h(float64(k)) {
			return k
		}
	}
}

// helper1 is log1p(x)/x, continuous at 0.
func helper1(x float64) float64 {
	if math.Abs(x) > 1e-8 {
		return math.Log1p(x) / x
	}
	return 1 - x*(0.5-x*(1.0/3-0.25*x))
}

// helper2 is expm1(x)/x, continuous at 0.
func helper2(x float64) float64 {
	if math.Abs(x) > 1e-8 {
		return math.Expm1(x) / x
	}
	return 1 + x*0.5*(1+x*(1.0/3)*(1+0.25*x))
}

// unique32 is a collision-free 32-bit sequence for oltp_insert without
// auto_inc: client c of n takes the counter values c, c+n, c+2n, ... (no
// state shared between clients) and a bijective mix of 32-bit words makes
// them look random, as sysbench's permuted counter does.
func unique32(seq uint64, client, clients int, salt uint32) uint32 {
	x := uint32(seq*uint64(clients)+uint64(client)) ^ salt
	x ^= x >> 16
	x *= 0x7feb352d
	x ^= x >> 15
	x *= 0x846ca68b
	x ^= x >> 16
	return x
}
