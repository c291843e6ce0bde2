package mysqlslap

import (
	"fmt"

	"github.com/goslap/goslap/internal/exit"
)

// ProgName is the program name used in messages ("goslap: ..."), as mysqlslap
// uses the basename of argv[0].
var ProgName = "goslap"

// ExitError ends goslap with Code after printing Msg (one or more complete
// lines, without the final newline) to stderr; Err is its cause (Unwrap).
// Every user-facing failure is one of these; anything else reaching Main is
// reported as "goslap: <error>" with exit status 1. It is goslap's one exit
// error (package exit).
type ExitError = exit.Error

// Exitf builds an ExitError whose message is "goslap: " + the formatted text,
// the shape of nearly every mysqlslap error line. The first error among
// args is kept as its cause.
func Exitf(code int, format string, args ...any) *ExitError {
	e := &ExitError{Code: code, Msg: ProgName + ": " + fmt.Sprintf(format, args...)}
	for _, a := range args {
		if err, ok := a.(error); ok {
			e.Err = err
			break
		}
	}
	return e
}

// exitWith is err as an ExitError of status 1, "goslap: " + its text, keeping
// err as the cause.
func exitWith(err error) *ExitError { return exit.Wrap(1, ProgName+": ", err) }
