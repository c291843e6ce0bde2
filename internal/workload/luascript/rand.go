package luascript

import (
	lua "github.com/yuin/gopher-lua"

	"github.com/goslap/goslap/internal/workload/oltp"
)

// randState is a thread's sysbench.rand: the built-in workloads' random
// stream and distributions, one stream per thread id.
type randState struct {
	r       *oltp.Rand
	uniqSeq uint64
	tid     int
	w       *Workload
	buf     []byte
}

func (rs *randState) init(w *Workload, tid int) error {
	r, err := oltp.NewRand(w.randCfg, w.seed, uint64(tid)+1<<20)
	if err != nil {
		return err
	}
	rs.r, rs.tid, rs.w = r, tid, w
	return nil
}

// bounds reads the (a, b) arguments of a draw as sysbench's uint32s.
func bounds(L *lua.LState) (int64, int64) {
	a, b := int64(L.CheckNumber(1)), int64(L.CheckNumber(2))
	if b < a {
		a, b = b, a
	}
	return a, b
}

func (th *thread) installRand(sb *lua.LTable) {
	L := th.L
	rs := &th.rand
	t := L.NewTable()
	draw := func(kind int) lua.LGFunction {
		return func(L *lua.LState) int {
			a, b := bounds(L)
			L.Push(lua.LNumber(rs.r.Draw(kind, a, b)))
			return 1
		}
	}
	L.SetFuncs(t, map[string]lua.LGFunction{
		"default": func(L *lua.LState) int {
			a, b := bounds(L)
			L.Push(lua.LNumber(rs.r.Default(a, b)))
			return 1
		},
		"uniform":  draw(oltp.RandUniform),
		"gaussian": draw(oltp.RandGaussian),
		"special":  draw(oltp.RandSpecial),
		"pareto":   draw(oltp.RandPareto),
		"zipfian":  draw(oltp.RandZipfian),
		"uniform_uint64": func(L *lua.LState) int {
			L.Push(lua.LNumber(rs.r.Uint64()))
			return 1
		},
		"uniform_double": func(L *lua.LState) int {
			L.Push(lua.LNumber(rs.r.Double()))
			return 1
		},
		"unique": func(L *lua.LState) int {
			L.Push(lua.LNumber(rs.unique()))
			return 1
		},
		"string": func(L *lua.LState) int {
			L.Push(lua.LString(rs.str(L.CheckString(1))))
			return 1
		},
		"varstring": func(L *lua.LState) int {
			lo, hi := int64(L.CheckNumber(1)), int64(L.CheckNumber(2))
			if hi <= 0 {
				L.Push(lua.LString(""))
				return 1
			}
			if lo > hi {
				lo = 1
			}
			n := rs.r.Draw(oltp.RandUniform, lo, hi)
			b := make([]byte, n)
			for i := range b {
				b[i] = byte(rs.r.Draw(oltp.RandUniform, '0', 'z'))
			}
			L.Push(lua.LString(b))
			return 1
		},
	})
	th.strict(t, "sysbench.rand")
	sb.RawSetString("rand", t)
}

// unique is sysbench.rand.unique: a 32-bit sequence without repeats, each
// thread on its own share of it (no state shared between threads).
func (rs *randState) unique() uint32 {
	clients := rs.w.clients
	if clients < 1 {
		clients = 1
	}
	v := oltp.Unique32(rs.uniqSeq, rs.tid%clients, clients, uint32(rs.w.seed))
	rs.uniqSeq++
	return v
}

// str is sysbench.rand.string: fmt with '#' as random digits and '@' as
// random letters.
func (rs *randState) str(tmpl string) string {
	if cap(rs.buf) < len(tmpl) {
		rs.buf = make([]byte, len(tmpl))
	}
	b := rs.buf[:len(tmpl)]
	rs.r.Fill(b, tmpl)
	return string(b)
}

// randUniq is the compat sb_rand_uniq(a, b): unique values within [a, b].
func (th *thread) randUniq(L *lua.LState) int {
	a, b := int64(L.OptNumber(1, 0)), int64(L.OptNumber(2, 4294967295))
	for i := 0; i < 1<<24; i++ {
		v := int64(th.rand.unique())
		if v >= a && v <= b {
			L.Push(lua.LNumber(v))
			return 1
		}
	}
	L.RaiseError("sb_rand_uniq(%d, %d): no unique value in the range after 2^24 draws", a, b)
	return 0
}
