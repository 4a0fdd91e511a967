package moderated

import (
	"context"
	"errors"
	"testing"

	"github.com/duelogic/duelogic/engine"
	"github.com/duelogic/duelogic/llm"
	"github.com/duelogic/duelogic/store"
)

func TestResumeErrors(t *testing.T) {
	st := store.NewMemory()
	if _, err := engine.Run(t.Context(), llm.NewStub(1), &otherFormat{}, engine.Debate{ID: "other", Proposition: "p"}, engine.WithStore(st)); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name string
		id   string
		want error
	}{
		{"unknown debate", "nope", store.ErrNotFound},
		{"a debate of another format", "other", engine.ErrCorruptLog},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if _, err := resume(t.Context(), llm.NewStub(1), tt.id, nil, engine.WithStore(st)); !errors.Is(err, tt.want) {
				t.Errorf("err = %v, want %v", err, tt.want)
			}
		})
	}
}

// otherFormat is a format that says one thing.
type otherFormat struct{}

func (*otherFormat) Name() string { return "other" }

func (*otherFormat) Play(ctx context.Context, s *engine.Session) (struct{}, error) {
	_, err := s.Record(ctx, "hello", engine.Utterance{Speaker: "host", Content: "Hello."})
	return struct{}{}, err
}
