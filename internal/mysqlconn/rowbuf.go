package mysqlconn

import (
	"context"
	"database/sql/driver"
	"errors"
	"fmt"
	"io"
	"strconv"
)

// Row is one result row read into buffers the caller keeps: each read
// copies the values into the buffers of the previous read, so that a
// statement run once per transaction allocates nothing of its own per row
// or value once the buffers have grown (Query's fresh slices per row and
// per value were ~15 % of TPC-C's client CPU). The zero Row is ready.
type Row struct {
	// Values is the row, NULL as nil and an empty value as an empty,
	// non-nil slice. It is valid until the next read into the Row.
	Values [][]byte
	bufs   [][]byte
	dest   []driver.Value
}

// QueryRow executes the statement and reads its first row into row; found
// is false, and row.Values unchanged, when the result has no row. The
// driver's rows.Close reads the remaining rows without decoding them.
func (s *Stmt) QueryRow(args []driver.NamedValue, row *Row) (found bool, err error) {
	if s.lean != nil {
		l := s.sock.leanIO()
		l.row = row
		err := s.leanExec(args, leanFirst)
		l.row = nil
		if err != errNoLean {
			return l.found, connectionFailure(err, s.sock)
		}
	}
	defer func() { err = connectionFailure(err, s.sock) }()
	s.begin()
	rows, err := s.qc.QueryContext(context.Background(), args)
	s.end(err)
	if err != nil {
		return false, err
	}
	row.size(len(rows.Columns()))
	if err := rows.Next(row.dest); err != nil {
		rows.Close()
		if err == io.EOF {
			return false, nil
		}
		return false, err
	}
	for i, v := range row.dest {
		if v == nil {
			row.Values[i] = nil
			continue
		}
		b := appendValue(row.bufs[i][:0], v)
		if b == nil {
			b = make([]byte, 0, 8) // an empty value stays apart from NULL
		}
		row.bufs[i] = b
		row.Values[i] = b
		row.dest[i] = nil // the driver's value points into its read buffer
	}
	return true, rows.Close()
}

// size makes the row cols values wide, keeping the buffers it has.
func (r *Row) size(cols int) {
	if cap(r.dest) < cols {
		r.dest = make([]driver.Value, cols)
		r.Values = make([][]byte, cols)
		bufs := make([][]byte, cols)
		copy(bufs, r.bufs)
		r.bufs = bufs
	}
	r.dest, r.Values, r.bufs = r.dest[:cols], r.Values[:cols], r.bufs[:cols]
}

// errIntsNoColumns is QueryInts on a statement whose result has no
// columns.
var errIntsNoColumns = errors.New("mysqlconn: QueryInts on a statement without columns")

// errNullInt is a NULL where QueryInts needs an integer.
var errNullInt = errors.New("mysqlconn: NULL in an integer column")

// QueryInts executes the statement and appends the first column of every
// row, an integer, to dst[:0] (TPC-C's item and customer id lists). buf is
// the caller's row buffer, grown as needed and kept for the next call. A
// NULL or a value that is not an integer is an error.
func (s *Stmt) QueryInts(args []driver.NamedValue, dst []int64, buf *[]driver.Value) (_ []int64, err error) {
	dst = dst[:0]
	if s.lean != nil {
		l := s.sock.leanIO()
		l.ints = dst
		err := s.leanExec(args, leanInts)
		dst, l.ints = l.ints, nil
		if err != errNoLean {
			return dst, connectionFailure(err, s.sock)
		}
	}
	defer func() { err = connectionFailure(err, s.sock) }()
	s.begin()
	rows, err := s.qc.QueryContext(context.Background(), args)
	s.end(err)
	if err != nil {
		return dst, err
	}
	cols := len(rows.Columns())
	if cols == 0 {
		rows.Close()
		return dst, errIntsNoColumns
	}
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
			return dst, err
		}
		n, err := valueInt(dest[0])
		if err != nil {
			rows.Close()
			return dst, err
		}
		dst = append(dst, n)
	}
	clear(dest)
	return dst, rows.Close()
}

// valueInt is v, a driver value of an integer column, as an int64.
func valueInt(v driver.Value) (int64, error) {
	switch v := v.(type) {
	case nil:
		return 0, errNullInt
	case int64:
		return v, nil
	case []byte:
		// Not strconv.ParseInt(string(v)) up to 18 digits, which cannot
		// overflow: the conversion would copy.
		neg := len(v) > 0 && v[0] == '-'
		d := v
		if neg {
			d = v[1:]
		}
		if len(d) == 0 || len(d) > 18 {
			return strconv.ParseInt(string(v), 10, 64)
		}
		var n int64
		for _, c := range d {
			if c < '0' || c > '9' {
				return 0, fmt.Errorf("mysqlconn: %q is not an integer", v)
			}
			n = n*10 + int64(c-'0')
		}
		if neg {
			n = -n
		}
		return n, nil
	case uint64:
		if v <= 1<<63-1 {
			return int64(v), nil
		}
	case string:
		return strconv.ParseInt(v, 10, 64)
	}
	return 0, fmt.Errorf("mysqlconn: %v is not an int64", v)
}

// appendValue appends v as Query's valueBytes writes it; v is not nil.
func appendValue(b []byte, v driver.Value) []byte {
	switch v := v.(type) {
	case []byte:
		return append(b, v...)
	case string:
		return append(b, v...)
	case int64:
		return strconv.AppendInt(b, v, 10)
	case uint64:
		return strconv.AppendUint(b, v, 10)
	case float64:
		return strconv.AppendFloat(b, v, 'g', -1, 64)
	default:
		return fmt.Append(b, v)
	}
}
