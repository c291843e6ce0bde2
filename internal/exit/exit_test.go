package exit

import (
	"errors"
	"fmt"
	"strings"
	"testing"
)

func TestErrorKeepsItsCause(t *testing.T) {
	cause := errors.New("Error when connecting to server: 2002 no socket")
	tests := []struct {
		name string
		err  error
		text string
		code int
	}{
		{"nil", nil, "", 0},
		{"plain", cause, cause.Error(), 1},
		{"wrapped", Wrap(1, "goslap: ", cause), "goslap: " + cause.Error(), 1},
		{"interrupted", &Error{Code: 130, Msg: "goslap: interrupted", Err: cause}, "goslap: interrupted", 130},
		{"wrapped twice", fmt.Errorf("run: %w", Wrap(2, "", cause)), "run: " + cause.Error(), 2},
		{"no message", &Error{Code: 0}, "", 0},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := Code(tc.err); got != tc.code {
				t.Errorf("Code = %d, want %d", got, tc.code)
			}
			if tc.err == nil {
				return
			}
			if got := tc.err.Error(); got != tc.text {
				t.Errorf("text %q, want %q", got, tc.text)
			}
			if tc.name != "no message" && tc.err != cause && !errors.Is(tc.err, cause) {
				t.Error("the cause is lost")
			}
		})
	}
}

func TestReport(t *testing.T) {
	for _, tc := range []struct {
		err  error
		out  string
		code int
	}{
		{&Error{Code: 13, Msg: "two\nlines"}, "two\nlines\n", 13},
		{&Error{Code: 2}, "", 2},
		{fmt.Errorf("outer: %w", &Error{Code: 7, Msg: "inner"}), "inner\n", 7},
		{errors.New("plain"), "goslap: plain\n", 1},
	} {
		var b strings.Builder
		if code := Report(&b, "goslap", tc.err); code != tc.code || b.String() != tc.out {
			t.Errorf("Report(%v) = %d, %q; want %d, %q", tc.err, code, b.String(), tc.code, tc.out)
		}
	}
}
