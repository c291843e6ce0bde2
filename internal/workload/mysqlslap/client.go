package mysqlslap

import (
	mrand "math/rand"
	"math/rand/v2"
	"strings"
	"unsafe"

	"github.com/goslap/goslap/internal/mysqlconn"
	"github.com/goslap/goslap/internal/templates"
	"github.com/goslap/goslap/internal/workload"
	"github.com/goslap/goslap/sqlgen"
)

// Op ids of the units a client reports.
const (
	// OpQuery is one --query statement (with the COMMIT --commit sends
	// after it, if due).
	OpQuery = iota
	// OpNone is a unit that sends nothing: the reconnect before a client's
	// first statement (--detach), a key statement with no key to choose
	// (mysqlslap counts it as executed but sends nothing), or the one unit
	// of a client with an empty query list.
	OpNone
)

var ops = []string{"query", "none"}

// Ops names the units (workload.Workload).
func (s *Script) Ops() []string { return ops }

// StatementError is a statement that failed, with its text (mysqlslap's
// "Cannot run query <text> ERROR : <error>").
type StatementError struct {
	Text string
	Err  error
}

func (e *StatementError) Error() string {
	return "Cannot run query " + e.Text + " ERROR : " + mysqlconn.ErrorText(e.Err)
}

func (e *StatementError) Unwrap() error { return e.Err }

// Load is one iteration's clients.
type Load struct {
	s       *Script
	clients int
	limit   uint64 // the per-client limit of the plan (spec 2.6)
	load    uint64
	keys    []string
	texts   []string // the query list, read-only for the clients; nil when generated as it goes
	keyed   []bool   // texts[i] needs a key
	n       int      // length of the query list
	// infile: a statement of the list may ask the client for a file
	// (LOAD DATA/XML LOCAL INFILE), a request only the driver answers.
	infile bool
}

// NewLoad returns the clients of the current iteration with clients
// clients; it uses the key list the iteration's steps read.
func (s *Script) NewLoad(clients int) *Load {
	p := s.plan
	l := &Load{s: s, clients: clients, limit: p.PerClientLimit(clients), load: s.load, keys: s.keys,
		n: int(p.QueryLen())}
	l.texts = make([]string, len(p.Query))
	l.keyed = make([]bool, len(p.Query))
	for i, st := range p.Query {
		l.texts[i], l.keyed[i] = st.Text, st.NeedsKey
		l.infile = l.infile || localInfile(st.Text)
	}
	return l
}

// clientLimit is client id's number of statements: the plan's per-client
// limit, or with ExactCount its share of NumberOfQueries (the remainder
// spread over the first clients); 0 = one pass over the list.
func (l *Load) clientLimit(id int) uint64 {
	cfg := &l.s.cfg
	if !cfg.ExactCount || cfg.NumberOfQueries == 0 {
		return l.limit
	}
	n, c := cfg.NumberOfQueries, uint64(l.clients)
	q := n / c
	if uint64(id) < n%c {
		q++
	}
	return q
}

// Statements is the number of --query statements client id runs; 0 when
// it runs until the deadline or has none.
func (l *Load) Statements(id int) uint64 {
	if l.n == 0 || l.s.cfg.TimeBound {
		return 0
	}
	if u := l.clientLimit(id); u != 0 {
		return u
	}
	return uint64(l.n)
}

// Units is the number of units client id runs (engine.Plan's
// PerClientEvents); 0 when it runs until the deadline.
func (l *Load) Units(id int) uint64 {
	if l.n == 0 {
		return 1
	}
	u := l.Statements(id)
	if u != 0 && l.s.plan.Detach > 0 {
		u++ // the reconnect before the first statement
	}
	return u
}

// Client returns client id's statement stream (workload.Load).
func (l *Load) Client(id int) workload.Client {
	s := l.s
	c := &client{l: l, n: l.n, keys: l.keys, commit: uint64(max(s.plan.Commit, 0)), detach: max(s.plan.Detach, 0),
		echo: s.cfg.Echo, cursor: s.plan.NewQueryCursor()}
	c.detachFirst = c.detach > 0 && c.n > 0
	if len(l.keys) > 0 {
		// A source of its own: a shared, locked generator would serialise
		// the clients. Seeded from the run's seed, so key choices are
		// reproducible.
		c.rng = rand.New(rand.NewPCG(s.cfg.Seed, l.load<<24|uint64(id)))
	}
	if s.query != nil {
		c.tmpl = s.query
		c.tmplRand = clientSource(s.cfg.Seed, l.load, id)
		c.tmplBuf = make([]byte, 0, 256)
	}
	return c
}

// clientSource is client id's template source in load number load.
func clientSource(seed, load uint64, id int) *mrand.Rand {
	return templates.NewSource(seed, load<<24|uint64(id))
}

// client is one client's statement stream (spec 3.5). Everything it
// touches from one statement to the next is its own.
type client struct {
	l        *Load
	n        int // length of the query list
	pos      int // next statement
	keys     []string
	rng      *rand.Rand
	tmpl     []*templates.Template
	tmplRand *mrand.Rand
	tmplBuf  []byte
	keyBuf   []byte
	cursor   *sqlgen.QueryCursor // the query list when generated as it goes; nil: l.texts
	queryBuf []byte
	echo     func(string)

	commit, sinceCommit uint64
	detach              int
	// detachFirst: the first unit is the reconnect mysqlslap makes before
	// statement 0; redialing: the next Begin follows a --detach reconnect,
	// after which mysqlslap does not repeat SET AUTOCOMMIT=0.
	detachFirst, redialing bool
	connected              bool
	tally                  workload.Tally

	// sent is the text Statement appended last, in the caller's buffer,
	// until its reply; nil when none is awaited.
	sent []byte
}

func (c *client) Begin(conn *mysqlconn.Conn) error {
	if !c.connected {
		c.connected = true
		if c.echo != nil {
			c.echo("connected!")
		}
	}
	if c.redialing {
		c.redialing = false
		return nil
	}
	if c.commit > 0 {
		return c.send(conn, "SET AUTOCOMMIT=0")
	}
	return nil
}

func (c *client) send(conn *mysqlconn.Conn, stmt string) error {
	if c.echo != nil {
		c.echo(stmt + ";")
	}
	if err := conn.Exec(stmt); err != nil {
		return &StatementError{Text: strings.Clone(stmt), Err: err}
	}
	c.tally.Other++
	return nil
}

func (c *client) Next(conn *mysqlconn.Conn) (workload.Step, error) {
	if c.detachFirst {
		c.detachFirst, c.redialing = false, true
		return workload.Step{Op: OpNone, Reconnect: true}, nil
	}
	if c.n == 0 {
		return workload.Step{Op: OpNone}, nil
	}
	text, op := c.choose()
	step := workload.Step{Op: op}
	if step.Op == OpQuery {
		if c.echo != nil {
			c.echo(text + ";")
		}
		if err := conn.Exec(text); err != nil {
			return step, &StatementError{Text: strings.Clone(text), Err: err}
		}
		c.tally.Other++
	}
	if c.commit > 0 {
		if c.sinceCommit++; c.sinceCommit == c.commit {
			if err := c.send(conn, "COMMIT"); err != nil {
				return step, err
			}
			c.sinceCommit = 0
		}
	}
	if c.detach > 0 && c.pos%c.detach == 0 {
		step.Reconnect, c.redialing = true, true
	}
	return step, nil
}

// choose advances to the next statement of the list and returns its text
// (it may alias the client's buffers until the next choice) and op: OpNone
// for a key statement with no key to choose.
func (c *client) choose() (string, int) {
	pos := c.pos
	if c.pos++; c.pos == c.n {
		c.pos = 0
	}
	var text string
	var keyed bool
	if c.cursor != nil {
		// The cursor's position is pos: it goes through the list in order
		// and wraps with it.
		c.queryBuf, keyed = c.cursor.Next(c.queryBuf[:0])
		text = unsafe.String(unsafe.SliceData(c.queryBuf), len(c.queryBuf))
	} else {
		text, keyed = c.l.texts[pos], c.l.keyed[pos]
	}
	switch {
	case keyed && len(c.keys) == 0:
		return text, OpNone
	case keyed:
		c.keyBuf = append(c.keyBuf[:0], text...)
		c.keyBuf = append(c.keyBuf, " '"...)
		c.keyBuf = append(c.keyBuf, c.keys[c.rng.IntN(len(c.keys))]...)
		c.keyBuf = append(c.keyBuf, '\'')
		// The driver copies the text into its packet buffer and keeps no
		// reference, so the reused buffer is sent without a copy.
		text = unsafe.String(unsafe.SliceData(c.keyBuf), len(c.keyBuf))
	case c.tmpl != nil && c.tmpl[pos] != nil:
		c.tmplBuf = c.tmpl[pos].Append(c.tmplBuf[:0], c.tmplRand)
		text = unsafe.String(unsafe.SliceData(c.tmplBuf), len(c.tmplBuf))
	}
	return text, OpQuery
}

// Statements (workload.StatementClient): without --commit, --detach, the
// echo of --verbose and LOAD DATA LOCAL INFILE in the list, every unit is
// one statement of the list.
func (c *client) Statements() bool {
	return c.commit == 0 && c.detach == 0 && c.echo == nil && !c.l.infile
}

// localInfile reports whether text may be a LOAD DATA (or XML) LOCAL
// INFILE: the words LOCAL and INFILE in it, in any case. A false alarm
// only keeps the load off the ring path; the lazily generated lists
// (auto-generate-sql) never have one.
func localInfile(text string) bool {
	return containsFold(text, "local") && containsFold(text, "infile")
}

// containsFold is strings.Contains ignoring ASCII case; word is lower
// case.
func containsFold(s, word string) bool {
	for i := 0; i+len(word) <= len(s); i++ {
		j := 0
		for ; j < len(word); j++ {
			if s[i+j]|0x20 != word[j] {
				break
			}
		}
		if j == len(word) {
			return true
		}
	}
	return false
}

// comQuery is COM_QUERY's command byte.
const comQuery = 0x03

// Statement (workload.StatementClient) counts the reply to the statement
// it appended last, or words its error as Next does, and appends Next's
// next statement, not sent. Every unit is one statement.
func (c *client) Statement(dst []byte, reply workload.Reply) ([]byte, workload.StatementStep) {
	var step workload.StatementStep
	step.Ended = true
	if sent := c.sent; sent != nil {
		c.sent = nil
		if reply.Err != nil {
			step.Err = &StatementError{Text: string(sent), Err: reply.Err}
		} else {
			c.tally.Other++
		}
	}
	if c.n == 0 {
		step.Op, step.Skip = OpNone, true
		return dst, step
	}
	text, op := c.choose()
	step.Op = op
	if op != OpQuery {
		step.Skip = true
		return dst, step
	}
	dst = append(dst, comQuery)
	start := len(dst)
	dst = append(dst, text...)
	c.sent = dst[start:]
	return dst, step
}

// Again (workload.StatementClient) appends the statement Statement
// appended last once more.
func (c *client) Again(dst []byte) []byte {
	dst = append(dst, comQuery)
	start := len(dst)
	// The text may be where dst's backing array already holds it: copy
	// moves it as memmove does.
	dst = append(dst, c.sent...)
	c.sent = dst[start:]
	return dst
}

func (c *client) End(conn *mysqlconn.Conn) error {
	if c.commit > 0 {
		return c.send(conn, "COMMIT")
	}
	return nil
}

func (c *client) Tally() workload.Tally { return c.tally }

// CompareMetric: mysqlslap's load compares on statements per second.
func (s *Script) CompareMetric() string { return "qps" }
