package engine

import (
	"context"
	"errors"
	"time"

	"github.com/goslap/goslap/internal/mysqlconn"
)

// StartFunc holds the release of connected clients until a shared start:
// a shard of a run split over several machines waits there for the
// others (package shard). It returns when the clock may start; an error
// ends the run before anything is measured. It gets Run's ctx and must
// return when ctx ends.
type StartFunc func(ctx context.Context) error

// awaitStart calls Plan.Start. The clients are connected and parked on
// the release; a failure or an interrupt stops them before the clock
// (ErrInterrupted for ctx, else the start's error).
func (r *run) awaitStart(ctx context.Context) error {
	if r.p.Start == nil {
		return nil
	}
	err := r.p.Start(ctx)
	if err == nil && ctx.Err() != nil {
		err = ctx.Err()
	}
	if err == nil {
		return nil
	}
	r.stop()
	if ctx.Err() != nil && errors.Is(err, ctx.Err()) {
		return ErrInterrupted
	}
	return err
}

// serverFull are the connect errors that say the server (1040, Too many
// connections) or the account (1203, the global max_user_connections;
// 1226, the account's own MAX_USER_CONNECTIONS or hourly limit) has no
// connection to spare. A retry cannot help while this run's own clients
// hold the connections, so the first one ends the connect phase at once
// and every client closes what it opened; retrying instead held every
// open connection for as long as the failing clients' attempts took.
var serverFull = map[int]bool{1040: true, 1203: true, 1226: true}

// connect opens a connection with mysqlslap's retries, giving up early when
// the load is stopped or the server has no connection to spare.
func (r *run) connect(c *client) (*mysqlconn.Conn, error) {
	var err error
	for attempt := 0; attempt < connectAttempts; attempt++ {
		var conn *mysqlconn.Conn
		r.dials <- struct{}{}
		if r.stopped.Load() {
			// Stopped while queued for a dial (a thousand clients
			// connecting when one fails): the error is not the cause.
			<-r.dials
			return nil, errStopped
		}
		conn, err = r.p.Connector.Connect(&c.slot)
		<-r.dials
		if err == nil {
			return conn, nil
		}
		if r.stopped.Load() {
			break
		}
		if code, _ := r.p.Connector.ConnectError(err); serverFull[code] {
			break
		}
		time.Sleep(connectBackoff)
	}
	code, msg := r.p.Connector.ConnectError(err)
	return nil, &ConnectError{Client: c.gid, Code: code, Message: msg}
}
