package sqlgen

// Generated lists too large to hold (--auto-generate-sql-write-number=1G,
// --auto-generate-sql-unique-query-number=1G) are produced while they are
// executed, from the same seed-1 draws, so their text is what mysqlslap
// would have built in memory (and run out of it doing so).

// materializeLimit: a query list whose estimated text is above this many
// bytes (or with more statements) is generated lazily by each client.
var materializeLimit uint64 = 64 << 20 // a variable for the tests

// rowBytes is a generous estimate of one generated INSERT or UPDATE.
func (t Table) rowBytes() uint64 {
	return 64 + 16*uint64(t.SecondaryIndexes) + 24*uint64(t.Ints.Count) + 150*uint64(t.Chars.Count)
}

// insertCycle is the create list's INSERTs: the unique ones, drawn in
// order from seed 1 and cycled.
type insertCycle struct {
	table  Table
	unique uint64
}

// CreateList iterates over the create list in execution order.
type CreateList struct {
	p    *Plan
	i    uint64 // statements returned so far
	k    uint64 // position in the INSERT cycle
	rng  GlibcRandom
	buf  []byte
	seed bool
}

// CreateLen is the number of statements the create list executes.
func (p *Plan) CreateLen() uint64 {
	if p.inserts != nil {
		return p.createLen
	}
	return uint64(len(p.Create))
}

// CreateList starts an iteration over the create list.
func (p *Plan) CreateList() *CreateList { return &CreateList{p: p} }

// Next returns the next statement of the create list and the index of its
// text in Plan.Create (for per-statement templates), -1 for a generated
// INSERT; ok is false at the end.
func (c *CreateList) Next() (s Statement, index int, ok bool) {
	p := c.p
	if c.i >= p.CreateLen() {
		return Statement{}, 0, false
	}
	i := c.i
	c.i++
	if p.inserts == nil || i == 0 {
		return p.Create[i], int(i), true
	}
	if c.k == 0 {
		c.rng.Seed(1) // the unique INSERTs are the first draws of the run
	}
	c.buf = p.inserts.table.AppendInsert(c.buf[:0], &c.rng)
	if c.k++; c.k == p.inserts.unique {
		c.k = 0
	}
	return Statement{Text: string(c.buf)}, -1, true
}

// queryGen is an auto-generated query list: n statements of kind drawn
// from start, the generator's state after the unique INSERTs.
type queryGen struct {
	table Table
	kind  loadType
	n     uint64
	start GlibcRandom
}

// QueryLen is the number of statements in the query list.
func (p *Plan) QueryLen() uint64 {
	if p.queries != nil {
		return p.queries.n
	}
	return uint64(len(p.Query))
}

// QueryCursor generates a lazily built query list in order, wrapping to
// its first statement after the last: each client has its own.
type QueryCursor struct {
	g   *queryGen
	rng GlibcRandom
	pos uint64
}

// NewQueryCursor returns a cursor over the query list when it is generated
// lazily, nil when Plan.Query holds it.
func (p *Plan) NewQueryCursor() *QueryCursor {
	if p.queries == nil {
		return nil
	}
	return p.queries.cursor()
}

func (g *queryGen) cursor() *QueryCursor { return &QueryCursor{g: g, rng: g.start} }

// Reset moves the cursor back to the first statement.
func (c *QueryCursor) Reset() { c.pos, c.rng = 0, c.g.start }

// Next appends the text of the statement at the cursor to dst, returns it
// with the statement's NeedsKey, and moves on (wrapping at the end: the
// same draws again, as the list a client cycles through is fixed).
func (c *QueryCursor) Next(dst []byte) (text []byte, needsKey bool) {
	g := c.g
	t := g.table
	i := c.pos
	if c.pos++; c.pos == g.n {
		defer func() { c.pos, c.rng = 0, g.start }()
	}
	switch {
	case g.kind == loadRead:
		return appendSelect(dst, t, false)
	case g.kind == loadKey:
		return appendSelect(dst, t, true)
	case g.kind == loadWrite:
		return t.AppendInsert(dst, &c.rng), false
	case g.kind == loadUpdate:
		return t.AppendUpdate(dst, &c.rng), t.HasPrimaryKey()
	case i%2 == 0: // mixed: INSERT, SELECT, INSERT, ...
		return t.AppendInsert(dst, &c.rng), false
	default:
		return appendSelect(dst, t, true)
	}
}

func appendSelect(dst []byte, t Table, withKey bool) ([]byte, bool) {
	s := t.Select(withKey)
	return append(dst, s.Text...), s.NeedsKey
}
