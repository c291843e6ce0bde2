package orchestrator

import (
	"errors"
	"fmt"
	"testing"

	"github.com/goslap/goslap/internal/engine"
)

func TestWordingKeepsTheEngineError(t *testing.T) {
	interrupted := errors.New("interrupted: no report")
	w := Wording{
		Connect:     func(ce *engine.ConnectError) string { return fmt.Sprintf("no connection: %d", ce.Code) },
		Client:      func(cl *engine.ClientError) string { return fmt.Sprintf("client %d: %d", cl.Client, cl.Code) },
		Interrupted: interrupted,
	}
	ce := &engine.ConnectError{Code: 2002, Message: "no socket"}
	cl := &engine.ClientError{Client: 3, Op: "query", Code: 1213, Message: "deadlock"}
	other := errors.New("other")
	tests := []struct {
		name  string
		w     Wording
		err   error
		text  string
		cause error
	}{
		{"connect", w, fmt.Errorf("run: %w", ce), "no connection: 2002", ce},
		{"client", w, cl, "client 3: 1213", cl},
		{"interrupt", w, engine.ErrInterrupted, interrupted.Error(), interrupted},
		{"other", w, other, "other", other},
		{"client, own words", Wording{}, cl, cl.Error(), cl},
		{"connect, own words", Wording{}, ce, ce.Error(), ce},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := tc.w.Word(tc.err)
			if got.Error() != tc.text {
				t.Errorf("text %q, want %q", got.Error(), tc.text)
			}
			if !errors.Is(got, tc.cause) {
				t.Errorf("%v lost its cause %v", got, tc.cause)
			}
		})
	}
}
