package engine_test

import (
	"context"
	"encoding/json"
	"errors"
	"slices"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/duelogic/duelogic/engine"
	"github.com/duelogic/duelogic/llm"
	"github.com/duelogic/duelogic/llm/llmtest"
	"github.com/duelogic/duelogic/store"
)

// TestEventOfReadsEarlierLayouts: a podcast evaluation event stored by an
// earlier version kept its payload in the event's "evaluation" field; it
// is the event's Data now, so replaying an old log gives the same events
// a new one does.
func TestEventOfReadsEarlierLayouts(t *testing.T) {
	const eval = `{"adherenceScore":70,"steelManning":{"attempted":true,"quality":"strong"}}`
	tests := []struct {
		name, data string
		wantData   string
	}{
		{"earlier layout", `{"key":"k","event":{"type":"evaluation","speaker":"chair_1","evaluation":` + eval + `}}`, eval},
		{"current layout", `{"key":"k","event":{"type":"evaluation","speaker":"chair_1","data":` + eval + `}}`, eval},
		{"data wins", `{"key":"k","event":{"type":"evaluation","data":{"a":1},"evaluation":` + eval + `}}`, `{"a":1}`},
		{"unscored", `{"key":"k","event":{"type":"evaluation","speaker":"chair_1","evaluation":null}}`, ``},
		{"no payload", `{"key":"k","event":{"type":"evaluation","speaker":"chair_1"}}`, ``},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e, ok, err := engine.EventOf(store.Record{DebateID: "d", Seq: 4, Type: "duelogic_evaluation", Data: json.RawMessage(tt.data)})
			if err != nil || !ok {
				t.Fatalf("EventOf = %v, %v", ok, err)
			}
			if string(e.Data) != tt.wantData {
				t.Errorf("Data = %s, want %s", e.Data, tt.wantData)
			}
			if e.Type != "evaluation" || e.Seq != 4 || e.DebateID != "d" {
				t.Errorf("event = %+v", e)
			}
		})
	}
}

// TestValidateDebateNamesEveryProblem: ValidateDebate's error names each
// problem by its field, for a host to show beside its input, and reads as
// one sentence.
func TestValidateDebateNamesEveryProblem(t *testing.T) {
	tests := []struct {
		name   string
		d      engine.Debate
		fields []string
		text   string
	}{
		{"valid", engine.Debate{ID: "a-1", Proposition: "Why?", Context: "c"}, nil, ""},
		{"empty proposition", engine.Debate{Proposition: "  "}, []string{"proposition"}, "engine: invalid debate: proposition is empty"},
		{"all three", engine.Debate{ID: ".x", Proposition: "\xff", Context: strings.Repeat("c", engine.MaxContextRunes+1)},
			[]string{"id", "proposition", "context"},
			`engine: invalid debate: id ".x": use 1-128 of A-Z a-z 0-9 . _ - not starting with '.'; proposition is not valid UTF-8; context has 20001 characters; at most 20000`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := engine.ValidateDebate(tt.d)
			if tt.fields == nil {
				if err != nil {
					t.Fatal(err)
				}
				return
			}
			var de *engine.DebateError
			if !errors.As(err, &de) || !errors.Is(err, engine.ErrInvalidDebate) {
				t.Fatalf("ValidateDebate = %v, want a *DebateError wrapping ErrInvalidDebate", err)
			}
			var fields []string
			for _, v := range de.Violations {
				fields = append(fields, v.Field)
			}
			if !slices.Equal(fields, tt.fields) || err.Error() != tt.text {
				t.Errorf("fields %q, text %q; want %q, %q", fields, err, tt.fields, tt.text)
			}
		})
	}
}

// TestEmptySpeechIsAskedAgain: a speech the model answers with nothing is
// asked for once more, the model told it was empty; a second empty reply
// stops the debate with a TurnError wrapping ErrEmptyReply, which a resume
// asks again.
func TestEmptySpeechIsAskedAgain(t *testing.T) {
	tests := []struct {
		name    string
		replies []string
		want    error
		calls   int
	}{
		{"answered the second time", []string{"", "A considered answer."}, nil, 5},
		{"whitespace, then an answer", []string{" \n ", "A considered answer."}, nil, 5},
		{"empty twice", []string{"", ""}, engine.ErrEmptyReply, 2},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := llmtest.New()
			f.OnPurpose("opening").Reply(tt.replies...).Times(len(tt.replies))
			f.Default().Reply("Fine.", "Fine.", "Fine.", "Fine.")
			st := store.NewMemory()
			res, err := engine.Run(t.Context(), f, &toy{Rounds: 2}, engine.Debate{ID: "d", Proposition: "p?"}, engine.WithStore(st))
			if !errors.Is(err, tt.want) {
				t.Fatalf("Run = %v, want %v", err, tt.want)
			}
			if got := len(f.Requests()); got != tt.calls {
				t.Errorf("%d calls, want %d", got, tt.calls)
			}
			if tt.want != nil {
				var te *engine.TurnError
				if !errors.As(err, &te) || te.Speaker != "pro" || !strings.Contains(err.Error(), "answered nothing, twice") {
					t.Errorf("error %v, want a TurnError of pro saying the model answered nothing twice", err)
				}
				if _, err := engine.Resume(t.Context(), llm.NewStub(1), &toy{}, "d", engine.WithStore(st)); err != nil {
					t.Errorf("resume after the empty replies: %v", err)
				}
				return
			}
			if got := res.Transcript[0].Content; got != "A considered answer." {
				t.Errorf("first utterance %q", got)
			}
			again := f.Requests()[1].Messages
			if last := again[len(again)-1]; last.Role != llm.User || !strings.Contains(last.Content, "Your reply was empty") {
				t.Errorf("the second request ends with %+v, want the model told its reply was empty", last)
			}
		})
	}
}

// TestTimingSplitsTheModelsTime: a result says how long its run took and
// how long its calls took by purpose, on the session's clock, in seconds
// in JSON.
func TestTimingSplitsTheModelsTime(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		f := llmtest.New()
		f.OnPurpose("opening").Reply("One.", "Two.", "Three.", "Four.").Delay(2 * time.Second)
		res, err := engine.Run(t.Context(), f, &toy{Rounds: 2}, engine.Debate{Proposition: "p?"})
		if err != nil {
			t.Fatal(err)
		}
		tm := res.Timing
		if tm.Calls["opening"] != 8*time.Second || tm.Wall < 8*time.Second {
			t.Errorf("timing %+v, want 8s of opening calls within a wall of at least 8s", tm)
		}
		if got := tm.Share("opening"); got != 1 {
			t.Errorf("Share(opening) = %v, want 1", got)
		}
		if got := tm.Share("evaluation"); got != 0 {
			t.Errorf("Share(evaluation) = %v, want 0", got)
		}
		raw, err := json.Marshal(tm)
		if err != nil || !strings.Contains(string(raw), `"calls":{"opening":8}`) {
			t.Errorf("JSON %s, %v", raw, err)
		}
		var back engine.Timing
		if err := json.Unmarshal(raw, &back); err != nil || back.Calls["opening"] != tm.Calls["opening"] || back.Wall != tm.Wall {
			t.Errorf("JSON round trip %+v, %v; want %+v", back, err, tm)
		}
	})
	if (engine.Timing{}).Share("x") != 0 {
		t.Error("the share of no time is not 0")
	}
}

// TestRequestsCarryTheDebateAsCacheKey: every call of a debate carries its
// ID as the request's cache key, for a provider's prompt cache.
func TestRequestsCarryTheDebateAsCacheKey(t *testing.T) {
	f := llmtest.New()
	if _, err := engine.Run(t.Context(), f, &toy{Rounds: 1}, engine.Debate{ID: "dl-key", Proposition: "p?"}); err != nil {
		t.Fatal(err)
	}
	reqs := f.Requests()
	if len(reqs) == 0 {
		t.Fatal("no call")
	}
	for _, r := range reqs {
		if r.CacheKey != "dl-key" {
			t.Errorf("a %s call has cache key %q", r.Purpose, r.CacheKey)
		}
	}
}

// seesDebate answers "Said." and keeps the debate each call's context
// names.
type seesDebate struct{ ids []string }

func (c *seesDebate) Complete(ctx context.Context, req llm.Request) (llm.Response, error) {
	id, _ := engine.DebateOf(ctx)
	c.ids = append(c.ids, id)
	return llm.Response{Content: "Said.", FinishReason: "stop"}, nil
}

// TestModelCallsKnowTheirDebate: the context of every model call names the
// debate it belongs to (engine.DebateOf), for a client or a client wrapper
// that traces calls; any other context names none.
func TestModelCallsKnowTheirDebate(t *testing.T) {
	c := &seesDebate{}
	if _, err := engine.Run(t.Context(), c, &toy{Rounds: 1}, engine.Debate{ID: "dl-ctx", Proposition: "p?"}); err != nil {
		t.Fatal(err)
	}
	if len(c.ids) == 0 {
		t.Fatal("no call")
	}
	for _, id := range c.ids {
		if id != "dl-ctx" {
			t.Errorf("a call's context names debate %q", id)
		}
	}
	if id, ok := engine.DebateOf(t.Context()); ok || id != "" {
		t.Errorf("DebateOf(a plain context) = %q, %t", id, ok)
	}
}
