package getopt

import (
	"fmt"
	"math"
	"math/bits"
	"strings"
)

// parseUnsigned converts a value the way my_getopt's eval_num_suffix_ull and
// getopt_ull_limit_value do: strtoull (leading blanks and '+' allowed, empty
// = 0), one suffix letter K..E checked by its first character only, and
// values above the type's maximum clamped with a warning. Errors are deferred
// (mariadb-slap goes on parsing and exits with the last code at the end).
func (p *Parser) parseUnsigned(name, v string, width int) (uint64, error) {
	errLine := p.errorf("Error while setting value '%s' to '%s'", v, name)
	s := strings.TrimLeft(v, " \t\n\v\f\r")
	if strings.HasPrefix(s, "-") {
		p.soft(ExitArgumentInvalid, fmt.Sprintf("Incorrect unsigned value: '%s' for %s", v, name), errLine)
		return 0, errDeferred
	}
	s = strings.TrimPrefix(s, "+")
	digits := 0
	for digits < len(s) && s[digits] >= '0' && s[digits] <= '9' {
		digits++
	}
	var n uint64
	for _, c := range s[:digits] {
		hi, lo := bits.Mul64(n, 10)
		lo, carry := bits.Add64(lo, uint64(c-'0'), 0)
		if hi != 0 || carry != 0 {
			p.soft(ExitArgumentInvalid, fmt.Sprintf("Integer value out of range for uint64: '%s' for %s", v, name), errLine)
			return 0, errDeferred
		}
		n = lo
	}
	if digits == 0 {
		// strtoull parsed nothing: the suffix check sees the first character of
		// the original text.
		s = v
	} else {
		s = s[digits:]
	}
	if s != "" {
		shift, ok := suffixShift(s[0])
		if !ok {
			p.soft(ExitUnknownSuffix,
				fmt.Sprintf("Unknown suffix '%c' used for variable '%s' (value '%s'). Legal suffix characters are: K, M, G, T, P, E", s[0], name, v),
				errLine)
			return 0, errDeferred
		}
		// my_getopt multiplies without an overflow check, so 16E wraps to 0
		// (and then reads as "unset" or trips a later "at least 1" check);
		// goslap reports it in the words mariadb-slap uses for a number too
		// big without a suffix.
		if n > math.MaxUint64>>shift {
			p.soft(ExitArgumentInvalid, fmt.Sprintf("Integer value out of range for uint64: '%s' for %s", v, name), errLine)
			return 0, errDeferred
		}
		n <<= shift
	}
	if width == 32 && n > math.MaxUint32 {
		p.note(fmt.Sprintf("Warning: option '%s': unsigned value %d adjusted to %d", name, n, uint64(math.MaxUint32)))
		n = math.MaxUint32
	}
	return n, nil
}

var errDeferred = fmt.Errorf("deferred value error")

func suffixShift(c byte) (uint, bool) {
	switch c {
	case 'k', 'K':
		return 10, true
	case 'm', 'M':
		return 20, true
	case 'g', 'G':
		return 30, true
	case 't', 'T':
		return 40, true
	case 'p', 'P':
		return 50, true
	case 'e', 'E':
		return 60, true
	}
	return 0, false
}
