package mysqlslap

import (
	"io"

	"github.com/goslap/goslap/internal/results/slapreport"
)

// OpenCSV opens the --csv destination (spec 3.1 step 2, 4.2): nil without
// --csv; stdout for a bare --csv or a value beginning with "-"; otherwise the
// file, created with mode 0660 minus the umask and appended to, never
// truncated. close is never nil. The error is mysqlslap's
// "Could not open csv file: <name>" — without the stray "n" mysqlslap
// prints after the name (a broken "\n" in its source), since nobody can
// depend on a typo that makes the message harder to read.
func OpenCSV(o *Options, stdout io.Writer) (w io.Writer, close func() error, err error) {
	w, close, err = slapreport.OpenCSV(o.CSVSet, o.CSV, stdout)
	if err != nil {
		return nil, close, exitWith(err)
	}
	return w, close, nil
}
