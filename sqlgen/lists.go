package sqlgen

import (
	"fmt"
	"strconv"
	"strings"
)

// ParseEngines splits an --engine value as mysqlslap does (spec 2.2): on
// ',', skipping one whitespace byte after each comma, keeping empty
// elements as engines with an empty name; a trailing comma (or an empty
// value) adds a run without any engine. In each element the first ':'
// separates the name from raw table options.
func ParseEngines(value string) []Engine {
	var engines []Engine
	rest := value
	for {
		comma := strings.IndexByte(rest, ',')
		if comma < 0 {
			break
		}
		engines = append(engines, parseEngine(rest[:comma]))
		rest = rest[comma+1:]
		if rest != "" && isCSpace(rest[0]) {
			rest = rest[1:]
		}
	}
	if rest != "" {
		engines = append(engines, parseEngine(rest))
	} else {
		engines = append(engines, Engine{})
	}
	return engines
}

func parseEngine(element string) Engine {
	name, options, hasOptions := strings.Cut(element, ":")
	return Engine{Name: name, Options: options, HasOptions: hasOptions, Named: true}
}

func containsBlackhole(name string) bool { return strings.Contains(name, "blackhole") }

// ParseConcurrency parses a -c list. mysqlslap runs each element through
// atoi and treats a 0 as the end of the list, or, first, as "1, 2, 3, ...
// forever" — so "-c 0", "-c abc", "-c ”" and "-c 10,,20" hang or silently
// drop values. goslap accepts only positive decimal integers (surrounding
// spaces allowed, as atoi skips leading ones and "-c '1, 2'" is natural)
// and rejects everything else, trailing garbage ("2:3") included.
func ParseConcurrency(value string) ([]int, error) {
	var levels []int
	for element := range strings.SplitSeq(value, ",") {
		n, err := strconv.ParseUint(strings.TrimSpace(element), 10, 31)
		if err != nil || n == 0 {
			return nil, fmt.Errorf("invalid --concurrency value %q: element %q is not a positive integer", value, element)
		}
		levels = append(levels, int(n))
	}
	return levels, nil
}

// Columns is a parsed -x / -y value.
type Columns struct {
	Count   int
	Indexed bool // "N:I" with I ≠ 0: each column gets an INDEX
}

// ParseColumns parses a -x / -y value "N" or "N:I". mysqlslap runs N and I
// through atoi (garbage → 0, "-1" → huge, "3,7" → 3); goslap requires
// non-negative decimal integers and reports anything else. option names the
// option in the error, e.g. "number-int-cols".
func ParseColumns(option, value string) (Columns, error) {
	countText, indexText, hasIndex := strings.Cut(value, ":")
	count, err := strconv.ParseUint(strings.TrimSpace(countText), 10, 31)
	if err != nil {
		return Columns{}, fmt.Errorf("invalid --%s value %q: want N or N:I with non-negative integers", option, value)
	}
	cols := Columns{Count: int(count)}
	if hasIndex {
		index, err := strconv.ParseUint(strings.TrimSpace(indexText), 10, 31)
		if err != nil {
			return Columns{}, fmt.Errorf("invalid --%s value %q: want N or N:I with non-negative integers", option, value)
		}
		cols.Indexed = index != 0
	}
	return cols, nil
}
