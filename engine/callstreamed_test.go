package engine_test

import (
	"context"
	"strings"
	"testing"

	"github.com/duelogic/duelogic/engine"
	"github.com/duelogic/duelogic/llm"
	"github.com/duelogic/duelogic/llm/llmtest"
)

// twoCalls asks the same question with Call and with CallStreamed.
type twoCalls struct{}

func (twoCalls) Name() string { return "two-calls" }

func (twoCalls) Play(ctx context.Context, s *engine.Session) (string, error) {
	req := llm.Request{Purpose: "speech", Messages: []llm.Message{{Role: llm.User, Content: "Speak."}}}
	if _, err := s.Call(ctx, req, "talk", "quiet"); err != nil {
		return "", err
	}
	resp, err := s.CallStreamed(ctx, req, "talk", "loud")
	return resp.Content, err
}

// CallStreamed sends a streaming client's reply to the sink as token events
// of its speaker; Call sends none.
func TestCallStreamed(t *testing.T) {
	const reply = "A speech, said as it comes. Then a second sentence."
	fake := llmtest.New()
	fake.OnPurpose("speech").Reply(reply)
	var log sinkLog
	res, err := engine.Run(t.Context(), fake, twoCalls{}, engine.Debate{ID: "t", Proposition: "Speak?"},
		engine.WithSink(&log), engine.WithClock(clock))
	if err != nil {
		t.Fatal(err)
	}
	if res.Detail != reply {
		t.Errorf("reply %q, want %q", res.Detail, reply)
	}
	var loud, quiet strings.Builder
	for _, e := range log.events {
		if e.Type != engine.EventToken {
			continue
		}
		switch e.Speaker {
		case "loud":
			loud.WriteString(e.Delta)
		case "quiet":
			quiet.WriteString(e.Delta)
		}
	}
	if loud.String() != reply || quiet.Len() != 0 {
		t.Errorf("tokens of CallStreamed %q (want the reply), of Call %q (want none)", loud.String(), quiet.String())
	}
}
