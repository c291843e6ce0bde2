package engine

import (
	"context"
	"errors"
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
