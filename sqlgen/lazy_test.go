package sqlgen

import (
	"runtime"
	"strings"
	"testing"
)

// TestLazyQueryListMatchesMaterialised: a query list generated as it goes
// is, statement for statement and across the wrap to a second pass, the
// list Build materialises.
func TestLazyQueryListMatchesMaterialised(t *testing.T) {
	for _, load := range []string{"mixed", "write", "update", "key", "read"} {
		cfg := auto(func(c *Config) {
			c.LoadType, c.AddAutoIncrement, c.UniqueQueryNumber, c.UniqueWriteNumber = load, true, 6, 3
			c.IntCols, c.CharCols = "2", "2"
		})
		full, err := Build(cfg)
		if err != nil {
			t.Fatal(err)
		}
		saved := materializeLimit
		materializeLimit = 0
		lazy, err := Build(cfg)
		materializeLimit = saved
		if err != nil {
			t.Fatal(err)
		}
		if lazy.Query != nil || lazy.QueryLen() != uint64(len(full.Query)) || full.NewQueryCursor() != nil {
			t.Fatalf("%s: lazy list not lazy: %d statements held, QueryLen %d", load, len(lazy.Query), lazy.QueryLen())
		}
		cur := lazy.NewQueryCursor()
		var buf []byte
		for pass := range 2 {
			for i, want := range full.Query {
				text, needsKey := cur.Next(buf[:0])
				buf = text
				if string(text) != want.Text || needsKey != want.NeedsKey {
					t.Fatalf("%s pass %d statement %d: %q %v, want %q %v", load, pass, i, text, needsKey, want.Text, want.NeedsKey)
				}
			}
		}
	}
}

// TestHugeCountsStaySmall: counts mysqlslap would try to hold in memory
// (and crash on) build a plan in little time and memory; the create list
// and the query list are produced as they are executed.
func TestHugeCountsStaySmall(t *testing.T) {
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	p, err := Build(auto(func(c *Config) {
		c.WriteNumber, c.UniqueQueryNumber, c.UniqueWriteNumber = 1<<30, 1<<30, 1<<32
	}))
	if err != nil {
		t.Fatal(err)
	}
	runtime.ReadMemStats(&after)
	if grown := after.TotalAlloc - before.TotalAlloc; grown > 1<<20 {
		t.Errorf("Build allocated %d bytes", grown)
	}
	if p.CreateLen() != 1<<30 || p.QueryLen() != 1<<30+1 {
		t.Errorf("CreateLen %d, QueryLen %d", p.CreateLen(), p.QueryLen())
	}
	list := p.CreateList()
	first, _, _ := list.Next()
	second, _, _ := list.Next()
	if !strings.HasPrefix(first.Text, "CREATE TABLE") || !strings.HasPrefix(second.Text, "INSERT INTO t1 VALUES (") {
		t.Errorf("create list starts %q, %q", first.Text, second.Text)
	}
	// The first query INSERT follows all 2^32 unique INSERTs' draws.
	rng := NewGlibcRandom(1)
	rng.Skip(1<<32, 127)
	want := Table{Ints: Columns{Count: 1}, Chars: Columns{Count: 1}}.Insert(rng)
	if got, _ := p.NewQueryCursor().Next(nil); string(got) != want {
		t.Errorf("first query %q, want %q", got, want)
	}
}

// TestBuildRejectsTablesNoServerAccepts: more than 64 indexes or 4096
// columns are refused before anything is generated.
func TestBuildRejectsTablesNoServerAccepts(t *testing.T) {
	bad := map[string]func(*Config){
		"secondary-indexes=1G":       func(c *Config) { c.SecondaryIndexes = 1 << 30 },
		"secondary-indexes=64 + key": func(c *Config) { c.SecondaryIndexes, c.GUIDPrimary = 64, true },
		"-x 100000000":               func(c *Config) { c.CharCols = "100000000" },
		"-y 50000000":                func(c *Config) { c.IntCols = "50000000" },
		"-y 4096 -x 1":               func(c *Config) { c.IntCols = "4096" },
		"-y 60:1 -x 5:1":             func(c *Config) { c.IntCols, c.CharCols = "60:1", "5:1" },
	}
	for name, edit := range bad {
		_, err := Build(auto(edit))
		if err == nil || !strings.Contains(err.Error(), "no server accepts more than") {
			t.Errorf("%s: %v", name, err)
		}
	}
	good := map[string]func(*Config){
		"63 secondary + key": func(c *Config) { c.SecondaryIndexes, c.GUIDPrimary = 63, true },
		"-y 4095 -x 1":       func(c *Config) { c.IntCols = "4095" },
		"-y 32:1 -x 32:1":    func(c *Config) { c.IntCols, c.CharCols = "32:1", "32:1" },
	}
	for name, edit := range good {
		if _, err := Build(auto(edit)); err != nil {
			t.Errorf("%s: %v", name, err)
		}
	}
}
