package luascript

import (
	"fmt"
	"strconv"
	"strings"

	lua "github.com/yuin/gopher-lua"
)

// strFormat is Lua 5.1's string.format, which follows C's printf:
// gopher-lua hands the format to Go's fmt, which knows no %u or %i, prints
// a number given to %d as "%!d(...)" and gives %g Go's shortest form
// instead of C's six significant digits. sysbench's scripts use all of
// these ("sbtest%u", "%d", ...).
func strFormat(L *lua.LState) int {
	f := L.CheckString(1)
	arg := 2
	var b strings.Builder
	for i := 0; i < len(f); i++ {
		ch := f[i]
		if ch != '%' {
			b.WriteByte(ch)
			continue
		}
		i++
		if i >= len(f) {
			L.RaiseError("invalid option '%%' to 'format'")
		}
		if f[i] == '%' {
			b.WriteByte('%')
			continue
		}
		start := i
		for i < len(f) && strings.IndexByte("-+ #0", f[i]) >= 0 {
			i++
		}
		for i < len(f) && f[i] >= '0' && f[i] <= '9' {
			i++
		}
		hasPrec := false
		if i < len(f) && f[i] == '.' {
			hasPrec = true
			i++
			for i < len(f) && f[i] >= '0' && f[i] <= '9' {
				i++
			}
		}
		if i >= len(f) {
			L.RaiseError("invalid format (missing conversion) to 'format'")
		}
		spec := f[start:i]
		conv := f[i]
		if arg > L.GetTop() && conv != '%' {
			L.ArgError(arg, "no value")
		}
		v := L.Get(arg)
		arg++
		if spec == "" {
			// The common cases without fmt: "%d" of ids, "%s".
			switch conv {
			case 'd', 'i', 'u':
				var num [24]byte
				b.Write(strconv.AppendInt(num[:0], int64(toNumber(L, arg-1, v)), 10))
				continue
			case 's':
				if str, ok := v.(lua.LString); ok {
					b.WriteString(string(str))
					continue
				}
			}
		}
		switch conv {
		case 'd', 'i', 'u':
			fmt.Fprintf(&b, "%"+spec+"d", int64(toNumber(L, arg-1, v)))
		case 'c':
			b.WriteByte(byte(int64(toNumber(L, arg-1, v))))
		case 'o', 'x', 'X':
			n := int64(toNumber(L, arg-1, v))
			fmt.Fprintf(&b, "%"+spec+string(conv), uint64(n))
		case 'e', 'E', 'f':
			fmt.Fprintf(&b, "%"+spec+string(conv), float64(toNumber(L, arg-1, v)))
		case 'g', 'G':
			s := spec
			if !hasPrec {
				s += ".6"
			}
			fmt.Fprintf(&b, "%"+s+string(conv), float64(toNumber(L, arg-1, v)))
		case 's':
			fmt.Fprintf(&b, "%"+spec+"s", L.ToStringMeta(v).String())
		case 'q':
			b.WriteString(strconv.Quote(lua.LVAsString(v)))
		default:
			L.RaiseError("invalid option '%%%c' to 'format'", conv)
		}
	}
	L.Push(lua.LString(b.String()))
	return 1
}

func toNumber(L *lua.LState, n int, v lua.LValue) float64 {
	switch x := v.(type) {
	case lua.LNumber:
		return float64(x)
	case lua.LString:
		if f, err := strconv.ParseFloat(strings.TrimSpace(string(x)), 64); err == nil {
			return f
		}
	}
	L.ArgError(n, "number expected, got "+v.Type().String())
	return 0
}
