package mysqlslap

// mysqlslap's workload as one shard of a run split over several machines
// (--shard=I/N, package shard).
//
// mysqlslap prepares its data again for every load (engine × concurrency
// value × iteration): shard 0 drops and creates the schema, runs the
// create list (-a's table and inserts, --create) and --pre-query, while
// the other shards wait; then every shard reads the key list, meets at
// the start and runs its segment of the clients; every shard records that
// it finished the load, and shard 0 waits for all of them before it runs
// --post-query and drops the schema for the next load. The waits go
// through rows of the barrier table in the benchmark's schema
// (shard.BarrierTable), on a connection of their own (autocommit on, no
// default schema), so they neither join the main connection's --commit
// transaction nor depend on the schema staying: a row written into a
// schema that is dropped later is only read before the drop. A shard
// that fails writes an abort row before its cleanup (ended), which ends
// the other shards' waits; shard 0 reads the abort rows again before
// every drop of the schema, which takes them with it.

import (
	"context"
	"errors"
	"os"

	"github.com/goslap/goslap/internal/engine"
	"github.com/goslap/goslap/internal/mysqlconn"
	"github.com/goslap/goslap/internal/results/jsondoc"
	"github.com/goslap/goslap/internal/shard"
	slapscript "github.com/goslap/goslap/internal/workload/mysqlslap"
)

// runShardedMysqlslap runs a validated mysqlslap command line with
// --shard: this shard's clients, its report, and its document for merge.
func runShardedMysqlslap(c *Config, env Env) int {
	defer c.Close()
	st := c.Shard
	stdout, buffered := reportStdout(env.Stdout)
	// The report goes beside the document on stdout: to stderr.
	text := stdout
	if c.Outputs.jsonToStdout() {
		text = env.Stderr
	}
	rec := NewRunRecord(c)
	out := Output{Stdout: text, Stderr: env.Stderr, CSV: c.CSV, Target: c.Connection.label(), Record: rec, Shard: st}
	_, err := RunWithSignals(c, out)
	return endRun(c, env, buffered, err, func(err error) error {
		doc, jerr := rec.document(c.options(), err)
		if jerr != nil {
			return jerr
		}
		return writeShardJSON(c.Outputs, stdout, shardSection(doc, st))
	})
}

// shardSection adds the shard's identity, clock and lateness to the
// invocation's document.
func shardSection(d *jsondoc.Document, st *shard.Starter) *jsondoc.Document {
	host, _ := os.Hostname()
	d.Shard = &jsondoc.Shard{Index: st.Spec.Index, Count: st.Spec.Count, RunID: st.RunID, Host: host,
		ClockOffsetMicros: st.Offset.Microseconds(), StartLateMicros: []int64{}}
	for _, l := range st.Late {
		d.Shard.StartLateMicros = append(d.Shard.StartLateMicros, l.Microseconds())
	}
	d.Shard.PlanHash = jsondoc.PlanHash(d)
	return d
}

// shardRun is a mysqlslap run's part of a split run: its coordination
// with the other shards around every load (see the top of this file).
type shardRun struct {
	ctx  context.Context
	st   *shard.Starter
	conn *mysqlconn.Conn // the barrier's
	// ready is the last load whose data this shard has seen prepared.
	ready int
}

// startShardRun opens the barrier's connection; shard 0 forgets what an
// earlier run with the same id left.
func startShardRun(r *runner, st *shard.Starter) (*shardRun, error) {
	c, err := r.mainConn.Connect(nil)
	if err != nil {
		code, msg := r.mainConn.ConnectError(err)
		return nil, Exitf(1, "Error when connecting to server: %d %s", code, msg)
	}
	if err := c.Exec("SET autocommit = 1"); err != nil {
		c.Close()
		return nil, Exitf(1, "the shard barrier's connection: %s", mysqlconn.ErrorText(err))
	}
	st.DB, st.Schema = c, r.p.Schema
	sh := &shardRun{ctx: r.ctx, st: st, conn: c}
	if sh.prepares() {
		if err := st.Reset(); err != nil {
			c.Close()
			return nil, Exitf(1, "resetting the shard barrier: %v", err)
		}
	}
	return sh, nil
}

func (sh *shardRun) close() { sh.conn.Close() }

// prepares says whether this shard prepares the data (shard 0).
func (sh *shardRun) prepares() bool { return sh.st.Spec.Index == 0 }

// fail is err as the run's error (an interrupt stays one).
func (sh *shardRun) fail(err error) error {
	if sh.ctx.Err() != nil {
		return sh.ctx.Err()
	}
	return exitWith(err)
}

// step says whether this shard performs a main-connection step of load k:
// shard 0 all of them; the others only those that read what shard 0
// prepared (after waiting for it), the --verbose notes and the local
// --pre-system/--post-system commands.
func (sh *shardRun) step(kind slapscript.Kind, k int) (bool, error) {
	if sh.prepares() {
		if kind == slapscript.DropSchema {
			// The drop takes the barrier rows with it: an abort row
			// written since the last wait is read now or never.
			if err := sh.st.CheckAborted(); err != nil {
				return false, sh.fail(err)
			}
		}
		return true, nil
	}
	switch kind {
	case slapscript.DropSchema, slapscript.CreateSchema, slapscript.Statement, slapscript.CreateListDone:
		return false, nil
	case slapscript.SelectSchema, slapscript.KeyList:
		if err := sh.awaitData(k); err != nil {
			return false, err
		}
	}
	return true, nil
}

// awaitData waits until shard 0 has prepared load k.
func (sh *shardRun) awaitData(k int) error {
	if sh.ready >= k {
		return nil
	}
	if err := sh.st.WaitPreparedStep(sh.ctx, k); err != nil {
		return sh.fail(err)
	}
	sh.ready = k
	return nil
}

// plan makes p (load k of the script's Load l) this shard's part: its
// segment of the clients (global ids, so every client's statements are
// those one machine sends it), their per-client counts, its part of the
// rate and the shared start. Shard 0 says the data is ready, the others
// wait for it.
func (sh *shardRun) plan(p *engine.Plan, l *slapscript.Load, k int) error {
	if sh.prepares() {
		if err := sh.st.PreparedStep(k); err != nil {
			return sh.fail(err)
		}
	} else if err := sh.awaitData(k); err != nil {
		return err
	}
	spec, total := sh.st.Spec, p.Clients
	first, n := spec.Clients(total)
	p.FirstClientID, p.Clients = first, n
	p.PerClientEvents = func(id int) uint64 { return l.Units(first + id) }
	p.Rate = spec.Rate(p.Rate, total)
	p.Start = sh.st.Start
	return nil
}

// loaded records that this shard finished load k; shard 0 waits for every
// shard before its steps after the load (--post-query, the drop). A shard
// that has not finished within --shard-wait is taken for dead: shard 0
// goes on with a warning, so the shards that finished keep their results
// (merge then refuses the run without --allow-partial); a later load
// fails at its start, which the dead shard never reaches.
func (sh *shardRun) loaded(k int) error {
	if err := sh.st.FinishedStep(k); err != nil {
		return sh.fail(err)
	}
	if sh.prepares() {
		if err := sh.st.WaitFinishedStep(sh.ctx, k); err != nil {
			if !errors.Is(err, shard.ErrGaveUp) || sh.ctx.Err() != nil {
				return sh.fail(err)
			}
			if sh.st.Log != nil {
				sh.st.Log("warning: %v; going on without the missing shards", err)
			}
		}
	}
	return nil
}

// ended is called when this shard's run ends with err (an interrupt
// too), before the cleanup, which on shard 0 drops the schema and the
// barrier rows with it. It returns the error to report: another shard's
// abort when one came first (shard.Starter.Ended), else err.
func (sh *shardRun) ended(err error) error {
	firstBy, werr := sh.st.Ended(sh.ctx, err)
	if werr != nil && sh.st.Log != nil {
		sh.st.Log("%v", werr)
	}
	if firstBy != nil {
		return Exitf(1, "%v", firstBy)
	}
	return err
}

// share is this shard's part of a benchmark's clients and rate.
func (sh *shardRun) share(clients int, rate float64) loadShare {
	_, n := sh.st.Spec.Clients(clients)
	return loadShare{Clients: n, Rate: sh.st.Spec.Rate(rate, clients)}
}

// end removes the run's barrier rows (shard 0; a dropped schema took them
// already).
func (sh *shardRun) end() error {
	if !sh.prepares() {
		return nil
	}
	if err := sh.st.Forget(); err != nil {
		return Exitf(1, "removing the shard barrier: %v", err)
	}
	return nil
}
