package slap

import "fmt"

// ProgName is the program name used in messages ("goslap: ..."), as mysqlslap
// uses the basename of argv[0].
var ProgName = "goslap"

// ExitError ends goslap with Code after printing Msg (one or more complete
// lines, without the final newline) to stderr. Every user-facing failure is
// one of these; anything else reaching Main is reported as
// "goslap: <error>" with exit status 1.
type ExitError struct {
	Code int
	Msg  string
}

func (e *ExitError) Error() string { return e.Msg }

// Exitf builds an ExitError whose message is "goslap: " + the formatted text,
// the shape of nearly every mysqlslap error line.
func Exitf(code int, format string, args ...any) *ExitError {
	return &ExitError{Code: code, Msg: ProgName + ": " + fmt.Sprintf(format, args...)}
}
