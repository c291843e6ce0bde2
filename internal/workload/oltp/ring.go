package oltp

import (
	"github.com/goslap/goslap/internal/mysqlconn/ring"
	"github.com/goslap/goslap/internal/workload"
)

// The client as a workload.StatementClient (the engine's ring path,
// docs/architecture.md "The ring path"). An event's statements never
// depend on an earlier reply's values, so the event is drawn whole when
// it starts, as the same code draws it for Next (run in collect mode: the
// statements' packets are encoded into the event's buffer instead of
// sent), and then given to the engine one statement a call, each reply
// awaited, as Next sends them. The replies are counted by Next's rules.
//
// What must stay as Next has it when an event fails part-way: Next stops
// drawing at the failing statement, so every statement keeps the
// generator's state after its own draws, and a failure puts it back
// there (the next event draws what Next's would); the failure is worded
// and counted as run does (0.4's deadlock rule included), and dialect 1.0
// rolls back an open transaction (its reply ignored) before the event
// ends with the error.

// ringStmt is one statement of the event in collect mode.
type ringStmt struct {
	k        kind
	t        int
	off, end int  // its payload in ringEvent.buf
	exec     bool // a COM_STMT_EXECUTE (else COM_QUERY)
	inTrx    bool // Next's inTrx while it runs (a failure rolls back)
	after    genState
}

// genState is what drawing a statement changes in the client.
type genState struct {
	rng            rng
	uniqSeq        uint64
	uniq05, uniq04 int64
	nids, idPos    int
}

func (c *client) genState() genState {
	return genState{rng: c.rng, uniqSeq: c.uniqSeq, uniq05: c.uniq05, uniq04: c.uniq04, nids: len(c.ids), idPos: c.idPos}
}

func (c *client) setGenState(g *genState) {
	c.rng, c.uniqSeq, c.uniq05, c.uniq04, c.idPos = g.rng, g.uniqSeq, g.uniq05, g.uniq04, g.idPos
	if c.ids != nil {
		c.ids = c.ids[:g.nids]
	}
}

// Where the ring's statement in flight is.
const (
	ringIdle     = iota // none: the next call starts an event
	ringStmtSent        // stmts[i]
	ringRollback        // the ROLLBACK after a failure; err ends the event
)

// ringPS is a prepared statement as the ring sends it.
type ringPS struct {
	id     uint32
	params int
	bound  ring.Bound
}

// ringEvent is the client's ring state: the event being sent.
type ringEvent struct {
	collecting bool
	stmts      []ringStmt
	buf        []byte
	i          int
	phase      uint8
	err        error // ringRollback: the event's error
	ps         [numKinds][]ringPS
}

// Statements (workload.StatementClient): every event can be given as
// statements unless --reconnect asks for a new connection between events
// (Next's Step.Reconnect) or a prepared statement does not show its id.
// Asked after each Begin: the ids of its prepares are taken here.
func (c *client) Statements() bool {
	if c.cfg.reconnect > 0 || c.record != nil {
		return false
	}
	e := &c.ring
	for k := range c.prep {
		e.ps[k] = e.ps[k][:0]
		for _, st := range c.prep[k] {
			var ps ringPS
			if st != nil {
				id, params, ok := st.ServerID()
				if !ok {
					return false
				}
				ps = ringPS{id: id, params: params}
			}
			e.ps[k] = append(e.ps[k], ps)
		}
	}
	return true
}

// Statement (workload.StatementClient) counts the reply to the statement
// in flight and appends the event's next one, or the next event's first.
func (c *client) Statement(dst []byte, reply workload.Reply) ([]byte, workload.StatementStep) {
	e := &c.ring
	step := workload.StatementStep{Ended: true}
	switch e.phase {
	case ringStmtSent:
		s := &e.stmts[e.i]
		d := &c.l.stmts[s.k][s.t]
		if reply.Err == nil {
			cl := d.class
			if c.cfg.dialect == dialect10 {
				switch {
				case d.result:
					cl = classRead
				case reply.Affected > 0:
					cl = classWrite
				default:
					cl = classOther
				}
			}
			c.count(cl)
			if e.i++; e.i < len(e.stmts) {
				step.Ended = false
				return c.appendStmt(dst, e.i), step
			}
			c.events++
			break
		}
		if s.exec {
			e.ps[s.k][s.t].bound.Forget()
		}
		if c.cfg.dialect == dialect04 && deadlock04(reply.Err) {
			c.count(d.class)
			c.retry = true
		}
		err := &StatementError{SQL: d.sql, Err: reply.Err}
		c.setGenState(&s.after)
		if s.inTrx && c.cfg.dialect == dialect10 {
			e.phase, e.err = ringRollback, err
			step.Ended = false
			return append(dst, comQuery, 'R', 'O', 'L', 'L', 'B', 'A', 'C', 'K'), step
		}
		step.Err = err
	case ringRollback:
		// Its reply is ignored, as Next ignores it.
		step.Err, e.err = e.err, nil
	}
	c.inTrx = false
	c.collect()
	if len(e.stmts) == 0 {
		e.phase = ringIdle
		c.events++
		step.Skip = true
		return dst, step
	}
	e.phase, e.i = ringStmtSent, 0
	return c.appendStmt(dst, 0), step
}

// comQuery is COM_QUERY's command byte.
const comQuery = 0x03

// Again (workload.StatementClient): the event's first statement again,
// with the ids of the statements Begin prepared since.
func (c *client) Again(dst []byte) []byte {
	e := &c.ring
	for i := range e.stmts {
		if s := &e.stmts[i]; s.exec {
			id := e.ps[s.k][s.t].id
			p := e.buf[s.off:s.end]
			p[1], p[2], p[3], p[4] = byte(id), byte(id>>8), byte(id>>16), byte(id>>24)
		}
	}
	return c.appendStmt(dst, e.i)
}

// appendStmt appends statement i's payload, the types left out of an
// execute whose types the server holds.
func (c *client) appendStmt(dst []byte, i int) []byte {
	e := &c.ring
	s := &e.stmts[i]
	p := e.buf[s.off:s.end]
	if !s.exec {
		return append(dst, p...)
	}
	ps := &e.ps[s.k][s.t]
	return ps.bound.Append(dst, p, ps.params)
}

// collect draws the next event as Next would and encodes its statements.
func (c *client) collect() {
	e := &c.ring
	e.stmts, e.buf = e.stmts[:0], e.buf[:0]
	if c.ids != nil {
		if !c.retry {
			c.ids = c.ids[:0]
		}
		c.idPos, c.retry = 0, false
	}
	e.collecting = true
	_ = c.event() // run never fails while collecting
	e.collecting = false
	c.inTrx = false
}

// collectStmt is run in collect mode: statement k of table t with the
// client's args for k, encoded.
func (c *client) collectStmt(k kind, t int, d *stmtDef) {
	e := &c.ring
	s := ringStmt{k: k, t: t, off: len(e.buf), inTrx: c.inTrx}
	if ps := e.ps[k]; len(ps) > t && c.prep[k] != nil && c.prep[k][t] != nil {
		s.exec = true
		e.buf = ring.AppendExecute(e.buf, ps[t].id, c.args[k])
	} else {
		e.buf = append(e.buf, comQuery)
		e.buf = inline(e.buf, d, c.args[k])
	}
	s.end = len(e.buf)
	s.after = c.genState()
	e.stmts = append(e.stmts, s)
}
