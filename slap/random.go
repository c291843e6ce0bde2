package slap

import (
	mrand "math/rand"

	"github.com/goslap/goslap/internal/templates"
	"github.com/goslap/goslap/sqlgen"
)

// runRandom is a run's source of variation: its seed, the random streams
// derived from it and the parsed --templates statements. Run and
// OnlyPrint build it once, before anything connects, so both send the same
// statements for the same --seed.
type runRandom struct {
	seed uint64

	// Parsed --templates statements, parallel to the Plan's lists; nil
	// without --templates, nil entries for statements without placeholders.
	query, create, pre, post []*templates.Template
	// loadSeq numbers the load phases of the run: the random streams of
	// iteration n are derived from (seed, n, client), so a rerun with the
	// same --seed sends the same statements.
	loadSeq  uint64
	mainRand *mrand.Rand
}

func newRunRandom(o *Options, p *sqlgen.Plan, seed uint64) (*runRandom, error) {
	rr := &runRandom{seed: seed}
	if !o.Ext.Templates {
		return rr, nil
	}
	var err error
	for _, l := range []struct {
		dst  *[]*templates.Template
		list []sqlgen.Statement
	}{{&rr.query, p.Query}, {&rr.create, p.Create}, {&rr.pre, p.PreQuery}, {&rr.post, p.PostQuery}} {
		if *l.dst, err = parseTemplates(l.list); err != nil {
			return nil, Exitf(1, "--templates: %v", err)
		}
	}
	return rr, nil
}

// parseTemplates parses a statement list; nil when none has placeholders.
func parseTemplates(list []sqlgen.Statement) ([]*templates.Template, error) {
	var out []*templates.Template
	for i, s := range list {
		t, err := templates.Parse(s.Text)
		if err != nil {
			return nil, err
		}
		if t.Static() {
			continue
		}
		if out == nil {
			out = make([]*templates.Template, len(list))
		}
		out[i] = t
	}
	return out, nil
}

// nextLoad starts a new load phase's random streams and returns its number.
func (rr *runRandom) nextLoad() uint64 {
	rr.loadSeq++
	rr.mainRand = nil
	return rr.loadSeq
}

// clientRand is client's template source in load phase seq.
func (rr *runRandom) clientRand(seq uint64, client int) *mrand.Rand {
	return templates.NewSource(rr.seed, seq<<24|uint64(client))
}

// mainText renders statement i of a main-connection list (create, pre,
// post) for the current load phase; text is returned as is without a
// template.
func (rr *runRandom) mainText(list []*templates.Template, i int, text string) string {
	if rr == nil || list == nil || list[i] == nil {
		return text
	}
	if rr.mainRand == nil {
		rr.mainRand = templates.NewSource(rr.seed, 1<<63|rr.loadSeq)
	}
	return list[i].Render(rr.mainRand)
}
