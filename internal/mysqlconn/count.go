package mysqlconn

import (
	"context"
	"database/sql/driver"
	"io"
)

// Count executes the statement and returns the number of rows of its
// result, read without keeping them (a script's prepared SELECT: sysbench
// stores such a result and tells its row count, never its values). Every
// row is decoded by the driver into one reused slice; only values that do
// not fit an interface word allocate. *dest is the caller's row buffer,
// grown as needed and kept for the next call.
func (s *Stmt) Count(args []driver.NamedValue, buf *[]driver.Value) (n int64, err error) {
	if s.lean != nil {
		if err := s.leanExec(args, leanCount); err != errNoLean {
			return s.sock.lean.count, connectionFailure(err, s.sock)
		}
	}
	defer func() { err = connectionFailure(err, s.sock) }()
	s.begin()
	rows, err := s.qc.QueryContext(context.Background(), args)
	s.end(err)
	if err != nil {
		return 0, err
	}
	cols := len(rows.Columns())
	if cap(*buf) < cols {
		*buf = make([]driver.Value, cols)
	}
	dest := (*buf)[:cols]
	for {
		if err := rows.Next(dest); err != nil {
			if err == io.EOF {
				break
			}
			rows.Close()
			return n, err
		}
		n++
	}
	return n, rows.Close()
}
