package luascript

import (
	"fmt"
	"math"
	"math/bits"

	lua "github.com/yuin/gopher-lua"
)

// LuaJIT's "bit" module (BitOp), which sysbench's scripts may use
// (sysbench-tpcc's NURand calls bit.bor): operations on 32-bit integers,
// results as signed 32-bit numbers, arguments reduced modulo 2^32.

func tobit(L *lua.LState, n int) uint32 {
	f := float64(L.CheckNumber(n))
	return uint32(int64(math.Mod(math.Trunc(f), 4294967296)))
}

func pushBit(L *lua.LState, v uint32) int {
	L.Push(lua.LNumber(int32(v)))
	return 1
}

func (th *thread) installBit() {
	L := th.L
	fold := func(op func(a, b uint32) uint32) lua.LGFunction {
		return func(L *lua.LState) int {
			v := tobit(L, 1)
			for i := 2; i <= L.GetTop(); i++ {
				v = op(v, tobit(L, i))
			}
			return pushBit(L, v)
		}
	}
	shift := func(op func(a uint32, n uint) uint32) lua.LGFunction {
		return func(L *lua.LState) int { return pushBit(L, op(tobit(L, 1), uint(tobit(L, 2)&31))) }
	}
	t := L.SetFuncs(L.NewTable(), map[string]lua.LGFunction{
		"tobit":   func(L *lua.LState) int { return pushBit(L, tobit(L, 1)) },
		"bnot":    func(L *lua.LState) int { return pushBit(L, ^tobit(L, 1)) },
		"bor":     fold(func(a, b uint32) uint32 { return a | b }),
		"band":    fold(func(a, b uint32) uint32 { return a & b }),
		"bxor":    fold(func(a, b uint32) uint32 { return a ^ b }),
		"lshift":  shift(func(a uint32, n uint) uint32 { return a << n }),
		"rshift":  shift(func(a uint32, n uint) uint32 { return a >> n }),
		"arshift": shift(func(a uint32, n uint) uint32 { return uint32(int32(a) >> n) }),
		"rol":     shift(func(a uint32, n uint) uint32 { return bits.RotateLeft32(a, int(n)) }),
		"ror":     shift(func(a uint32, n uint) uint32 { return bits.RotateLeft32(a, -int(n)) }),
		"bswap":   func(L *lua.LState) int { return pushBit(L, bits.ReverseBytes32(tobit(L, 1))) },
		"tohex": func(L *lua.LState) int {
			v, n := tobit(L, 1), L.OptInt(2, 8)
			f := "%0*x"
			if n < 0 {
				f, n = "%0*X", -n
			}
			s := fmt.Sprintf(f, 8, v)
			if n < 8 {
				s = s[8-n:]
			}
			L.Push(lua.LString(s))
			return 1
		},
	})
	L.PreloadModule("bit", func(L *lua.LState) int { L.Push(t); return 1 })
	L.SetGlobal("bit", t)
}
