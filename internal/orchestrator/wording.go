package orchestrator

import (
	"errors"

	"github.com/goslap/goslap/internal/engine"
)

// Wording is how a front end words the errors of the engine (Loop.Word):
// a load that could not connect, a client's failed statement, an
// interrupt. Word is the one mapping; the front ends give only their words.
type Wording struct {
	// Connect words a connect error; nil keeps the error's own text.
	Connect func(*engine.ConnectError) string
	// Client words a client's failed statement; nil keeps its own text.
	Client func(*engine.ClientError) string
	// Interrupted is returned for a load the context ended; nil keeps the
	// engine's error.
	Interrupted error
}

// Word words err, an error of engine.Run, for the front end. The worded
// error keeps err as its cause (errors.Is and errors.As see the engine's
// error through it).
func (w Wording) Word(err error) error {
	var ce *engine.ConnectError
	var cl *engine.ClientError
	switch {
	case errors.As(err, &ce):
		if w.Connect == nil {
			return ce
		}
		return &wordedError{msg: w.Connect(ce), err: err}
	case errors.As(err, &cl):
		if w.Client == nil {
			return err
		}
		return &wordedError{msg: w.Client(cl), err: err}
	case errors.Is(err, engine.ErrInterrupted) && w.Interrupted != nil:
		return w.Interrupted
	}
	return err
}

// wordedError is an engine error in a front end's words.
type wordedError struct {
	msg string
	err error
}

func (e *wordedError) Error() string { return e.msg }
func (e *wordedError) Unwrap() error { return e.err }
