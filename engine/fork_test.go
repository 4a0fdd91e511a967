package engine_test

import (
	"context"
	"encoding/json"
	"errors"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/duelogic/duelogic/engine"
	"github.com/duelogic/duelogic/llm"
	"github.com/duelogic/duelogic/llm/llmtest"
	"github.com/duelogic/duelogic/store"
)

func TestFork(t *testing.T) {
	ctx := context.Background()
	mem := store.NewMemory()
	f, _ := engine.Open(askerName, json.RawMessage(`{"rounds": 3}`))
	src, err := engine.Run(ctx, llm.NewStub(1), f, engine.Debate{ID: "src", Proposition: "x?"}, engine.WithStore(mem))
	if err != nil {
		t.Fatal(err)
	}
	recs, _ := mem.Records(ctx, "src")
	// Up to round 1's second speech: forks from there play rounds 2 and 3 again.
	var at int64
	for _, r := range recs {
		if r.Type == engine.RecordUtterance && at == 0 {
			at = r.Seq + 1
		}
	}

	t.Run("unpatched, the rest replays to the same debate", func(t *testing.T) {
		id, err := engine.Fork(ctx, mem, "src", at, nil)
		if err != nil {
			t.Fatal(err)
		}
		got, _ := mem.Records(ctx, id)
		if len(got) != int(at) {
			t.Fatalf("the fork holds %d records, want %d", len(got), at)
		}
		res, err := engine.ResumeStored(ctx, llm.NewStub(1), id, engine.WithStore(mem))
		if err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(spoken(src.Transcript), spoken(res.Transcript)); diff != "" {
			t.Errorf("fork played on (-source +fork):\n%s", diff)
		}
		if res.Debate.ForkOf != "src" || res.Debate.ForkAt != at || res.DebateID != id {
			t.Errorf("the fork's debate says %+v", res.Debate)
		}
	})

	t.Run("patched, the rest plays with the new configuration", func(t *testing.T) {
		id, err := engine.Fork(ctx, mem, "src", at, json.RawMessage(`{"judge": "judge-2"}`))
		if err != nil {
			t.Fatal(err)
		}
		c := llmtest.New()
		res, err := engine.ResumeStored(ctx, c, id, engine.WithStore(mem))
		if err != nil {
			t.Fatal(err)
		}
		reqs := c.Requests()
		if len(reqs) != 4 { // rounds 2 and 3
			t.Errorf("%d calls after the fork, want 4", len(reqs))
		}
		for _, r := range reqs {
			if r.Model != "judge-2" {
				t.Errorf("a call after the fork went to %q, want judge-2", r.Model)
			}
		}
		if res.Transcript[0] != src.Transcript[0] {
			t.Errorf("the first speech changed: %+v", res.Transcript[0])
		}
	})

	for _, tc := range []struct {
		name  string
		id    string
		at    int64
		patch string
		want  error
	}{
		{"no such debate", "missing", 1, "", store.ErrNotFound},
		{"at 0", "src", 0, "", engine.ErrBadFork},
		{"past the end", "src", int64(len(recs)) + 1, "", engine.ErrBadFork},
		{"patch not an object", "src", 2, `[1]`, engine.ErrBadFork},
		{"patch not JSON", "src", 2, `{"judge"`, engine.ErrBadFork},
		{"patch makes it invalid", "src", 2, `{"rounds": 0}`, engine.ErrInvalidConfig},
		{"patch names an unknown field", "src", 2, `{"roundz": 2}`, engine.ErrInvalidConfig},
	} {
		t.Run(tc.name, func(t *testing.T) {
			before, _ := mem.Debates(ctx)
			_, err := engine.Fork(ctx, mem, tc.id, tc.at, json.RawMessage(tc.patch))
			if !errors.Is(err, tc.want) {
				t.Errorf("Fork = %v, want %v", err, tc.want)
			}
			if after, _ := mem.Debates(ctx); len(after) != len(before) {
				t.Errorf("a refused fork stored a debate: %v → %v", before, after)
			}
		})
	}

	t.Run("a patch of an unregistered format", func(t *testing.T) {
		if _, err := engine.Run(ctx, llm.NewStub(1), &toy{Rounds: 1}, engine.Debate{ID: "toy", Proposition: "x?"}, engine.WithStore(mem)); err != nil {
			t.Fatal(err)
		}
		if _, err := engine.Fork(ctx, mem, "toy", 2, json.RawMessage(`{"rounds": 2}`)); !errors.Is(err, engine.ErrUnknownFormat) {
			t.Errorf("Fork = %v, want ErrUnknownFormat", err)
		}
		id, err := engine.Fork(ctx, mem, "toy", 2, nil)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := engine.Resume(ctx, llm.NewStub(1), &toy{}, id, engine.WithStore(mem)); err != nil {
			t.Errorf("resume an unpatched fork of an unregistered format: %v", err)
		}
	})
}

// spoken is who said what, in order.
func spoken(tr []engine.Utterance) []string {
	var lines []string
	for _, u := range tr {
		lines = append(lines, u.Speaker+": "+u.Content)
	}
	return lines
}

// misuser breaks one rule of the Session.
type misuser struct {
	Rule    string
	reached chan struct{} // closed by the client when a call reaches it
}

func (*misuser) Name() string { return "misuser" }

func (m *misuser) Play(ctx context.Context, s *engine.Session) (int, error) {
	req := llm.Request{Purpose: "opening", Messages: []llm.Message{{Role: llm.User, Content: "hi"}}}
	u := engine.Utterance{Speaker: "pro", Segment: "s", Kind: engine.KindResponse}
	switch m.Rule {
	case "key twice":
		if _, err := s.Say(ctx, "k", u, req); err != nil {
			return 0, err
		}
		_, err := s.Say(ctx, "k", u, req)
		return 0, err
	case "engine's record type":
		_, err := s.Step(ctx, "k", engine.RecordUtterance, "pro", nil, func(context.Context) (any, llm.Usage, error) { return 1, llm.Usage{}, nil }, nil)
		return 0, err
	case "call after Play":
		go s.Call(context.WithoutCancel(ctx), req, "s", "pro")
		<-m.reached
		return 0, nil
	}
	return 0, nil
}

func TestSessionRefusesMisuse(t *testing.T) {
	for _, rule := range []string{"key twice", "engine's record type"} {
		t.Run(rule, func(t *testing.T) {
			_, err := engine.Run(t.Context(), llm.NewStub(1), &misuser{Rule: rule}, engine.Debate{Proposition: "x?"})
			if !errors.Is(err, engine.ErrMisuse) {
				t.Errorf("Run = %v, want ErrMisuse", err)
			}
		})
	}
	t.Run("call after Play", func(t *testing.T) {
		block, reached := make(chan struct{}), make(chan struct{})
		defer close(block)
		c := llm.ClientFunc(func(ctx context.Context, req llm.Request) (llm.Response, error) {
			close(reached)
			<-block
			return llm.Response{Content: "late"}, nil
		})
		_, err := engine.Run(t.Context(), c, &misuser{Rule: "call after Play", reached: reached}, engine.Debate{Proposition: "x?"})
		if !errors.Is(err, engine.ErrMisuse) {
			t.Errorf("Run = %v, want ErrMisuse", err)
		}
	})
}
