package sqlgen

import "testing"

// Statement generation runs once per run (the lists are built before the
// load starts), so these benchmarks guard start-up cost, not the hot path:
// go test ./sqlgen -run '^$' -bench . -benchmem

func benchConfig(load string) Config {
	return Config{
		AutoGenerate:      true,
		AddAutoIncrement:  true,
		IntCols:           "1",
		CharCols:          "1",
		LoadType:          load,
		UniqueQueryNumber: 10,
		UniqueWriteNumber: 10,
		WriteNumber:       100,
		NumberOfQueries:   100000,
		Delimiter:         "\n",
		Concurrency:       "16",
		Iterations:        1,
		Schema:            "mysqlslap",
	}
}

// BenchmarkBuild is a whole -a plan (create list of 100 statements, 11
// queries) for each load type.
func BenchmarkBuild(b *testing.B) {
	for _, load := range []string{"key", "read", "write", "update", "mixed"} {
		b.Run(load, func(b *testing.B) {
			cfg := benchConfig(load)
			b.ReportAllocs()
			for b.Loop() {
				if _, err := Build(cfg); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkInsert is one auto-generated INSERT with mysqlslap's default
// columns and with wide rows (-x 10 -y 10).
func BenchmarkInsert(b *testing.B) {
	for _, tc := range []struct {
		name        string
		ints, chars int
	}{{"1x1", 1, 1}, {"10x10", 10, 10}} {
		b.Run(tc.name, func(b *testing.B) {
			t := Table{AutoIncrement: true, Ints: Columns{Count: tc.ints}, Chars: Columns{Count: tc.chars}}
			rng := NewGlibcRandom(1)
			b.ReportAllocs()
			for b.Loop() {
				_ = t.Insert(rng)
			}
		})
	}
}

// BenchmarkGlibcRandom is one random() draw.
func BenchmarkGlibcRandom(b *testing.B) {
	rng := NewGlibcRandom(1)
	var sink uint32
	for b.Loop() {
		sink += rng.Next()
	}
	_ = sink
}

// BenchmarkWithKey is the key statement text built the simple way (one
// allocation); the runner appends into a reused per-client buffer instead.
func BenchmarkWithKey(b *testing.B) {
	s := Statement{Text: "SELECT intcol1,charcol1 FROM t1 WHERE id = ", NeedsKey: true}
	b.ReportAllocs()
	for b.Loop() {
		_ = s.WithKey("42")
	}
}
