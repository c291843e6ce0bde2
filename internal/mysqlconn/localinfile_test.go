package mysqlconn

import (
	"errors"
	"fmt"
	"testing"

	"github.com/go-sql-driver/mysql"
)

func TestLocalInfileRefused(t *testing.T) {
	for _, tc := range []struct {
		err  error
		want bool
	}{
		{&mysql.MySQLError{Number: 1148}, true},
		{fmt.Errorf("load: %w", &mysql.MySQLError{Number: 4166}), true},
		{&mysql.MySQLError{Number: 3948}, true},
		{&mysql.MySQLError{Number: 1146}, false},
		{errors.New("1148 in the text only"), false},
		{nil, false},
	} {
		if got := LocalInfileRefused(tc.err); got != tc.want {
			t.Errorf("LocalInfileRefused(%v) = %v, want %v", tc.err, got, tc.want)
		}
	}
}
