package engine_test

import (
	"context"
	"errors"
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

// doneCall asks with a context that is already done, as a format's
// errgroup does after a sibling failed.
type doneCall struct{}

func (doneCall) Name() string { return "done-call" }

func (doneCall) Play(ctx context.Context, s *engine.Session) (string, error) {
	cctx, cancel := context.WithCancel(ctx)
	cancel()
	req := llm.Request{Purpose: "speech", Messages: []llm.Message{{Role: llm.User, Content: "Speak."}}}
	if _, err := s.Call(cctx, req, "talk", "quiet"); err == nil {
		return "", errors.New("a call on a done context succeeded")
	}
	if _, err := s.CallStreamed(cctx, req, "talk", "loud"); err == nil {
		return "", errors.New("a streamed call on a done context succeeded")
	}
	return "", nil
}

// A call whose context is already done never reaches the client: a client
// that ignores the context would otherwise be asked (and paid) for a reply
// no one stores.
func TestNoCallOnADoneContext(t *testing.T) {
	fake := llmtest.New()
	fake.OnPurpose("speech").Reply("A speech.")
	if _, err := engine.Run(t.Context(), ignoringContext{fake}, doneCall{}, engine.Debate{ID: "t", Proposition: "Speak?"},
		engine.WithClock(clock)); err != nil {
		t.Fatal(err)
	}
	if n := len(fake.Requests()); n != 0 {
		t.Errorf("the client was asked %d times on a done context, want 0", n)
	}
}

// ignoringContext answers whatever its context says, as a careless client
// does.
type ignoringContext struct{ c *llmtest.Fake }

func (c ignoringContext) Complete(_ context.Context, req llm.Request) (llm.Response, error) {
	return c.c.Complete(context.Background(), req)
}
