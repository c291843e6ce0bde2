package exit

import (
	"errors"
	"fmt"
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
