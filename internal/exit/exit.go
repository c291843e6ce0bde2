// Package exit is goslap's one error type for ending the program: an
// error that carries the exit status and the message to print, and keeps
// its cause (Unwrap), so that errors.Is and errors.As see through it (as
// k6's errext). Every front end ends with one; Code reads the status of
// any error.
package exit

import (
	"errors"
	"fmt"
	"io"
)

// Error ends goslap with Code after Msg (one or more complete lines,
// without the final newline; "" prints nothing) is printed. Err is the
// cause, nil when the message is the whole story.
type Error struct {
	Code int
	Msg  string
	Err  error
}

// Error is the message, or the cause's when there is no message of its own.
func (e *Error) Error() string {
	if e.Msg == "" && e.Err != nil {
		return e.Err.Error()
	}
	return e.Msg
}

// Unwrap is the cause.
func (e *Error) Unwrap() error { return e.Err }

// Wrap is err with status code, its message prefix followed by err's text.
func Wrap(code int, prefix string, err error) *Error {
	return &Error{Code: code, Msg: prefix + err.Error(), Err: err}
}

// Code is the exit status err calls for: 0 for nil, an Error's Code, else 1.
func Code(err error) int {
	if err == nil {
		return 0
	}
	var e *Error
	if errors.As(err, &e) {
		return e.Code
	}
	return 1
}

// Report prints err on stderr — an Error's own lines, else "prog: " and
// its text — and returns the exit status it calls for.
func Report(stderr io.Writer, prog string, err error) int {
	var e *Error
	if errors.As(err, &e) {
		if e.Msg != "" {
			fmt.Fprintln(stderr, e.Msg)
		}
		return e.Code
	}
	fmt.Fprintf(stderr, "%s: %v\n", prog, err)
	return 1
}
