package oltp

// Rand is one client's random stream drawing ids with the distributions
// the built-in workloads use (sysbench 1.0's generators), for workloads
// that offer sysbench's random API to a script (package luascript): the
// same --rand-* settings give the same shapes as the built-in tests.
type Rand struct {
	r    rng
	def  dist
	kind [5]dist // uniform, gaussian, special, pareto, zipfian
}

// RandConfig holds sysbench 1.0's --rand-* settings.
type RandConfig struct {
	Type             string // uniform, gaussian, special, pareto, zipfian
	SpecIter         int64
	SpecPct, SpecRes float64
	ParetoH, ZipfExp float64
}

// DefaultRandConfig is sysbench 1.0's defaults.
var DefaultRandConfig = RandConfig{Type: distSpecial, SpecIter: 12, SpecPct: 1, SpecRes: 75, ParetoH: 0.2, ZipfExp: 0.8}

// Distribution kinds for Rand.Draw.
const (
	RandUniform = iota
	RandGaussian
	RandSpecial
	RandPareto
	RandZipfian
)

var kindNames = [5]string{distUniform, distGaussian, distSpecial, distPareto, distZipfian}

// NewRand validates cfg and returns the stream of client stream under seed.
func NewRand(cfg RandConfig, seed, stream uint64) (*Rand, error) {
	x := &Rand{r: newRNG(seed, stream)}
	var err error
	if x.def, err = newDist(dialect10, cfg.Type, cfg.SpecIter, cfg.SpecPct, cfg.SpecRes, cfg.ParetoH, cfg.ZipfExp); err != nil {
		return nil, err
	}
	for i, k := range kindNames {
		if x.kind[i], err = newDist(dialect10, k, cfg.SpecIter, cfg.SpecPct, cfg.SpecRes, cfg.ParetoH, cfg.ZipfExp); err != nil {
			return nil, err
		}
	}
	return x, nil
}

// Default draws from [a, b] with the --rand-type distribution.
func (x *Rand) Default(a, b int64) int64 { return x.def.draw(&x.r, a, b) }

// Draw draws from [a, b] with the distribution kind (RandUniform, ...).
func (x *Rand) Draw(kind int, a, b int64) int64 { return x.kind[kind].draw(&x.r, a, b) }

// Double is a uniform double in [0, 1).
func (x *Rand) Double() float64 { return x.r.u() }

// Uint64 is a uniform 64-bit value.
func (x *Rand) Uint64() uint64 { return x.r.next() }

// Fill writes tmpl into b (len(b) >= len(tmpl)) with every '#' replaced by
// a random digit and every '@' by a random letter a-z (sysbench's
// rand_str).
func (x *Rand) Fill(b []byte, tmpl string) { x.r.fill(b, tmpl) }

// Unique32 is the collision-free 32-bit sequence of oltp_insert: value seq
// of client (of clients).
func Unique32(seq uint64, client, clients int, salt uint32) uint32 {
	return unique32(seq, client, clients, salt)
}
