package engine

import (
	"context"
	"errors"
	"testing"
	"time"
)

func TestStartHoldsTheClock(t *testing.T) {
	w := &scripted{next: selectOne}
	p := scriptedPlan(t, w, 4)
	p.Events = 40
	var begunAtStart int64
	var released time.Time
	p.Start = func(ctx context.Context) error {
		begunAtStart = w.begins.Load()
		if w.calls.Load() != 0 {
			t.Error("a client ran a unit before the start")
		}
		time.Sleep(100 * time.Millisecond)
		released = time.Now()
		return nil
	}
	b, err := Run(context.Background(), p)
	if err != nil {
		t.Fatal(err)
	}
	if begunAtStart != 4 {
		t.Errorf("%d of 4 clients begun when Start was called", begunAtStart)
	}
	if b.Start.Before(released) || b.Events != 40 {
		t.Errorf("measured from %v, start returned %v; %d events", b.Start, released, b.Events)
	}
}

func TestStartFailureMeasuresNothing(t *testing.T) {
	refused := errors.New("late for the shared start")
	for _, tc := range []struct {
		name   string
		start  StartFunc
		cancel bool
		want   error
	}{
		{"error", func(context.Context) error { return refused }, false, refused},
		{"interrupt", func(ctx context.Context) error { <-ctx.Done(); return ctx.Err() }, true, ErrInterrupted},
	} {
		t.Run(tc.name, func(t *testing.T) {
			w := &scripted{next: selectOne}
			p := scriptedPlan(t, w, 3)
			p.Events = 10
			p.Start = tc.start
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			if tc.cancel {
				time.AfterFunc(100*time.Millisecond, cancel)
			}
			b, err := Run(ctx, p)
			if !errors.Is(err, tc.want) || b != nil {
				t.Fatalf("Run = %v, %v; want nil, %v", b, err, tc.want)
			}
			if w.calls.Load() != 0 || w.ends.Load() != 3 {
				t.Errorf("%d units ran, %d of 3 clients ended", w.calls.Load(), w.ends.Load())
			}
		})
	}
}
