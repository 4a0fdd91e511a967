package engine_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/duelogic/duelogic/argumentation"
	"github.com/duelogic/duelogic/engine"
	"github.com/duelogic/duelogic/llm"
	"github.com/duelogic/duelogic/llm/llmtest"
	"github.com/duelogic/duelogic/store"
	"github.com/duelogic/duelogic/store/storetest"
)

// asker is a registered toy format: Rounds rounds of pro and con, a
// checkpoint question for its person after each, and a verdict.
type asker struct {
	Rounds int    `json:"rounds"`
	Judge  string `json:"judge"` // the model that says each turn
}

// tally is asker's outcome: turns said, and who the person let win.
type tally struct {
	Turns  int    `json:"turns"`
	Winner string `json:"winner"`
}

func (t *tally) Verdict() engine.Verdict {
	if t.Winner == "" {
		return engine.Verdict{Draw: true, Summary: "draw"}
	}
	return engine.Verdict{Winner: t.Winner, Summary: t.Winner + " wins"}
}

func (t *tally) Documents() []engine.Document {
	return []engine.Document{{Name: "summary.md", Title: "Summary", Markdown: fmt.Sprintf("%d turns\n", t.Turns)}}
}

const askerName = "surface-asker"

func init() {
	engine.Register(askerName, func(config json.RawMessage) (engine.Format[engine.Outcome], error) {
		a := asker{Rounds: 2, Judge: "judge-1"}
		if err := engine.DecodeConfig(askerName, config, &a); err != nil {
			return nil, err
		}
		if err := a.Validate(); err != nil {
			return nil, err
		}
		return engine.Erase[*tally](&a), nil
	})
}

func (*asker) Name() string { return askerName }

func (a *asker) Validate() error {
	v := engine.ValidationError{Format: askerName}
	if a.Rounds < 1 || a.Rounds > 5 {
		v.Add("rounds", "%d is outside 1..5", a.Rounds)
	}
	return v.Err()
}

func (a *asker) Play(ctx context.Context, s *engine.Session) (*tally, error) {
	t := &tally{}
	err := s.Segment(ctx, "rounds", func(ctx context.Context) error {
		for r := 1; r <= a.Rounds; r++ {
			for _, side := range []string{"pro", "con"} {
				req := llm.Request{Model: a.Judge, Purpose: "opening", Messages: []llm.Message{{Role: llm.User, Content: fmt.Sprintf("%s, round %d: %s", side, r, s.Debate().Proposition)}}}
				if _, err := s.Say(ctx, fmt.Sprintf("r%d:%s", r, side), engine.Utterance{Speaker: side, Segment: "rounds", Kind: engine.KindResponse, Exchange: r}, req); err != nil {
					return err
				}
				t.Turns++
			}
			ans, err := s.Ask(ctx, fmt.Sprintf("r%d:checkpoint", r), engine.Question{
				Kind: engine.QuestionCheckpoint, Text: fmt.Sprintf("Round %d is over.", r), Choices: []string{"continue", "pro", "con"},
			})
			if err != nil {
				return err
			}
			if ans.Choice != "continue" {
				t.Winner = ans.Choice
				return nil
			}
		}
		return nil
	})
	return t, err
}

func TestRegistry(t *testing.T) {
	if !slices.Contains(engine.Formats(), askerName) || !slices.IsSorted(engine.Formats()) {
		t.Errorf("Formats() = %v, want it sorted, with %q", engine.Formats(), askerName)
	}
	for _, tc := range []struct {
		name, format, config string
		rounds               int
		wantErr              error
		wantField            string
	}{
		{"nil config", askerName, "", 2, nil, ""},
		{"null", askerName, "null", 2, nil, ""},
		{"empty object", askerName, "{}", 2, nil, ""},
		{"a field overridden", askerName, `{"rounds": 4}`, 4, nil, ""},
		{"unknown format", "no-such-format", "{}", 0, engine.ErrUnknownFormat, ""},
		{"not an object", askerName, `[1]`, 0, engine.ErrInvalidConfig, "config"},
		{"not JSON", askerName, `{"rounds":`, 0, engine.ErrInvalidConfig, "config"},
		{"unknown field", askerName, `{"rouds": 3}`, 0, engine.ErrInvalidConfig, "rouds"},
		{"wrong type", askerName, `{"rounds": "three"}`, 0, engine.ErrInvalidConfig, "rounds"},
		{"invalid value", askerName, `{"rounds": 9}`, 0, engine.ErrInvalidConfig, "rounds"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var cfg json.RawMessage
			if tc.config != "" {
				cfg = json.RawMessage(tc.config)
			}
			f, err := engine.Open(tc.format, cfg)
			if !errors.Is(err, tc.wantErr) {
				t.Fatalf("Open = %v, want %v", err, tc.wantErr)
			}
			if err != nil {
				var ve *engine.ValidationError
				if tc.wantField != "" && (!errors.As(err, &ve) || !strings.Contains(fmt.Sprint(ve.Violations), tc.wantField)) {
					t.Errorf("Open = %v, want a *ValidationError naming %q", err, tc.wantField)
				}
				return
			}
			res, err := engine.Run(t.Context(), llm.NewStub(1), f, engine.Debate{Proposition: "Are toys formats?"})
			if err != nil {
				t.Fatal(err)
			}
			if got := res.Detail.(*tally).Turns; got != 2*tc.rounds {
				t.Errorf("%d turns, want %d", got, 2*tc.rounds)
			}
			if v := res.Detail.Verdict(); !v.Draw || len(res.Detail.Documents()) == 0 {
				t.Errorf("verdict %+v, %d documents", v, len(res.Detail.Documents()))
			}
		})
	}
}

func TestRegisterRefusesMistakes(t *testing.T) {
	open := func(json.RawMessage) (engine.Format[engine.Outcome], error) { return nil, nil }
	for name, call := range map[string]func(){
		"twice":    func() { engine.Register(askerName, open) },
		"no name":  func() { engine.Register("", open) },
		"nil open": func() { engine.Register("surface-nil", nil) },
	} {
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("Register %s did not panic", name)
				}
			}()
			call()
		}()
	}
}

// humanScript answers each question with the next of its answers; past the
// end it pauses.
type humanScript struct {
	answers []engine.Answer
	asked   []engine.Question
}

func (h *humanScript) Ask(_ context.Context, q engine.Question) (engine.Answer, error) {
	h.asked = append(h.asked, q)
	if len(h.answers) == 0 {
		return engine.Answer{}, engine.ErrPaused
	}
	a := h.answers[0]
	h.answers = h.answers[1:]
	return a, nil
}

func TestHumanIsAskedOneWay(t *testing.T) {
	open := func(t *testing.T) engine.Format[engine.Outcome] {
		f, err := engine.Open(askerName, json.RawMessage(`{"rounds": 3}`))
		if err != nil {
			t.Fatal(err)
		}
		return f
	}
	t.Run("nobody asked takes the first choice", func(t *testing.T) {
		res, err := engine.Run(t.Context(), llm.NewStub(1), open(t), engine.Debate{Proposition: "x?"})
		if err != nil || res.Detail.(*tally).Turns != 6 {
			t.Fatalf("Run = %v, %+v", err, res)
		}
	})
	t.Run("an answer decides", func(t *testing.T) {
		h := &humanScript{answers: []engine.Answer{{Choice: "continue"}, {Choice: "con"}}}
		res, err := engine.Run(t.Context(), llm.NewStub(1), open(t), engine.Debate{Proposition: "x?"}, engine.WithHuman(h))
		if err != nil {
			t.Fatal(err)
		}
		if v := res.Detail.Verdict(); v.Winner != "con" || res.Detail.(*tally).Turns != 4 {
			t.Errorf("verdict %+v after %d turns, want con after 4", v, res.Detail.(*tally).Turns)
		}
		if len(h.asked) != 2 || h.asked[0].Kind != engine.QuestionCheckpoint || h.asked[0].Text != "Round 1 is over." {
			t.Errorf("asked %+v", h.asked)
		}
	})
	t.Run("unattended asks nobody", func(t *testing.T) {
		h := &humanScript{}
		res, err := engine.Run(t.Context(), llm.NewStub(1), open(t), engine.Debate{Proposition: "x?", Unattended: true}, engine.WithHuman(h))
		if err != nil || len(h.asked) != 0 || res.Detail.(*tally).Turns != 6 {
			t.Fatalf("Run = %v, asked %d", err, len(h.asked))
		}
	})
	t.Run("an answer that is not a choice", func(t *testing.T) {
		h := &humanScript{answers: []engine.Answer{{Choice: "maybe"}}}
		res, err := engine.Run(t.Context(), llm.NewStub(1), open(t), engine.Debate{Proposition: "x?"}, engine.WithHuman(h))
		if err == nil || errors.Is(err, engine.ErrPaused) || res == nil {
			t.Fatalf("Run = %v, want an error naming the answer, and the result so far", err)
		}
	})
	t.Run("pause, then resume where it paused", func(t *testing.T) {
		mem := store.NewMemory()
		h := &humanScript{answers: []engine.Answer{{Choice: "continue"}}}
		res, err := engine.Run(t.Context(), llm.NewStub(1), open(t), engine.Debate{ID: "paused", Proposition: "x?"}, engine.WithStore(mem), engine.WithHuman(h))
		if !errors.Is(err, engine.ErrPaused) {
			t.Fatalf("Run = %v, want ErrPaused", err)
		}
		if res == nil || res.DebateID != "paused" || len(res.Transcript) != 4 || res.Format != askerName {
			t.Fatalf("the paused debate's result: %+v", res)
		}
		recs, _ := mem.Records(t.Context(), "paused")
		q, ok := engine.Pending(recs)
		if !ok || q.Text != "Round 2 is over." {
			t.Fatalf("Pending = %+v, %v", q, ok)
		}
		c := llmtest.New()
		h2 := &humanScript{answers: []engine.Answer{{Choice: "pro"}}}
		done, err := engine.ResumeStored(t.Context(), c, "paused", engine.WithStore(mem), engine.WithHuman(h2))
		if err != nil {
			t.Fatal(err)
		}
		if done.Detail.Verdict().Winner != "pro" || len(c.Requests()) != 0 || len(h2.asked) != 1 {
			t.Errorf("resumed: verdict %+v, %d model calls, asked %d", done.Detail.Verdict(), len(c.Requests()), len(h2.asked))
		}
		recs, _ = mem.Records(t.Context(), "paused")
		if _, ok := engine.Pending(recs); ok {
			t.Error("a finished debate is still pending")
		}
		if _, err := engine.Replay(recs); err != nil {
			t.Errorf("Replay of a paused and resumed debate: %v", err)
		}
	})
}

// Once a debate exists, every failure returns what it has so far; the
// debate resumes by name to the result of an unbroken run.
func TestFailuresKeepTheirDebate(t *testing.T) {
	ctx := context.Background()
	f, _ := engine.Open(askerName, nil)
	clean, err := engine.Run(ctx, llm.NewStub(1), f, engine.Debate{ID: "clean", Proposition: "x?"})
	if err != nil {
		t.Fatal(err)
	}
	boom := errors.New("boom")
	for _, tc := range []struct {
		name   string
		client func(cancel func()) llm.Client
		store  func(store.Store) store.Store
		want   error
	}{
		{"model error", func(func()) llm.Client {
			f := llmtest.New()
			f.OnPurpose("opening").Reply("first").Fail(boom)
			return f
		}, nil, boom},
		{"store error", func(func()) llm.Client { return llm.NewStub(1) }, func(s store.Store) store.Store { return storetest.FailAfter(s, 3, boom) }, boom},
		{"cancel", func(cancel func()) llm.Client {
			var n atomic.Int64
			return llm.ClientFunc(func(ctx context.Context, req llm.Request) (llm.Response, error) {
				if n.Add(1) == 2 {
					cancel()
					return llm.Response{}, ctx.Err()
				}
				return llm.NewStub(1).Complete(ctx, req)
			})
		}, nil, context.Canceled},
	} {
		t.Run(tc.name, func(t *testing.T) {
			mem := store.NewMemory()
			var st store.Store = mem
			if tc.store != nil {
				st = tc.store(mem)
			}
			rctx, cancel := context.WithCancel(ctx)
			defer cancel()
			f, _ := engine.Open(askerName, nil)
			res, err := engine.Run(rctx, tc.client(cancel), f, engine.Debate{ID: "broken", Proposition: "x?"}, engine.WithStore(st))
			if !errors.Is(err, tc.want) {
				t.Fatalf("Run = %v, want %v", err, tc.want)
			}
			if res == nil || res.DebateID != "broken" || res.Format != askerName || res.Debate.Proposition != "x?" || res.Detail != nil {
				t.Fatalf("result of the failed run: %+v", res)
			}
			recs, _ := mem.Records(ctx, "broken")
			if len(res.Transcript) == 0 && len(recs) > 3 {
				t.Errorf("the result has no transcript; the store holds %d records", len(recs))
			}
			done, err := engine.ResumeStored(ctx, llm.NewStub(1), res.DebateID, engine.WithStore(mem))
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(clean.Detail, done.Detail); diff != "" {
				t.Errorf("resumed outcome (-unbroken +resumed):\n%s", diff)
			}
		})
	}
	t.Run("no debate, no result", func(t *testing.T) {
		f, _ := engine.Open(askerName, nil)
		res, err := engine.Run(ctx, llm.NewStub(1), f, engine.Debate{ID: "never", Proposition: "x?"}, engine.WithStore(storetest.FailAfter(store.NewMemory(), 0, boom)))
		if !errors.Is(err, boom) || res != nil {
			t.Errorf("Run whose first record fails = %+v, %v; want no result", res, err)
		}
	})
}

func TestResumeStoredRefusesWhatItCannotOpen(t *testing.T) {
	ctx := context.Background()
	mem := store.NewMemory()
	if _, err := engine.Run(ctx, llm.NewStub(1), &toy{Rounds: 1}, engine.Debate{ID: "toy", Proposition: "x?"}, engine.WithStore(mem)); err != nil {
		t.Fatal(err)
	}
	if _, err := engine.ResumeStored(ctx, llm.NewStub(1), "toy", engine.WithStore(mem)); !errors.Is(err, engine.ErrUnknownFormat) {
		t.Errorf("ResumeStored of an unregistered format = %v, want ErrUnknownFormat", err)
	}
	if _, err := engine.ResumeStored(ctx, llm.NewStub(1), "missing", engine.WithStore(mem)); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("ResumeStored of a missing debate = %v, want store.ErrNotFound", err)
	}
	if _, err := engine.ResumeStored(ctx, llm.NewStub(1), "toy"); err == nil {
		t.Error("ResumeStored without a store succeeded")
	}
}

// A question whose time for an answer runs out (its context ends with
// ErrPaused as the cause) pauses the debate, and the pause is stored.
func TestAskTimeLimitPauses(t *testing.T) {
	mem := store.NewMemory()
	slow := engine.HumanFunc(func(ctx context.Context, q engine.Question) (engine.Answer, error) {
		<-ctx.Done()
		return engine.Answer{}, ctx.Err()
	})
	f := &limited{}
	_, err := engine.Run(t.Context(), llm.NewStub(1), f, engine.Debate{ID: "limited", Proposition: "x?"}, engine.WithStore(mem), engine.WithHuman(slow))
	if !errors.Is(err, engine.ErrPaused) {
		t.Fatalf("Run = %v, want ErrPaused", err)
	}
	recs, _ := mem.Records(t.Context(), "limited")
	if q, ok := engine.Pending(recs); !ok || q.Text != "Now?" {
		t.Errorf("Pending = %+v, %v; want the timed-out question", q, ok)
	}
}

// limited asks one question with no time to answer it.
type limited struct{}

func (*limited) Name() string { return "limited" }

func (*limited) Play(ctx context.Context, s *engine.Session) (int, error) {
	qctx, cancel := context.WithTimeoutCause(ctx, 0, engine.ErrPaused)
	defer cancel()
	_, err := s.Ask(qctx, "q", engine.Question{Kind: engine.QuestionCheckpoint, Text: "Now?", Choices: []string{"continue"}})
	return 0, err
}

// A Human is asked after every event stored before the question has
// reached the sink.
func TestHumanIsAskedAfterTheEventsBeforeIt(t *testing.T) {
	var mu sync.Mutex
	var utterances int
	sink := engine.SinkFunc(func(_ context.Context, e engine.Event) {
		if e.Type == engine.EventUtterance {
			mu.Lock()
			utterances++
			mu.Unlock()
		}
	})
	var seen []int
	h := engine.HumanFunc(func(context.Context, engine.Question) (engine.Answer, error) {
		mu.Lock()
		seen = append(seen, utterances)
		mu.Unlock()
		return engine.Answer{Choice: "continue"}, nil
	})
	f, _ := engine.Open(askerName, json.RawMessage(`{"rounds": 3}`))
	for range 20 {
		mu.Lock()
		utterances, seen = 0, nil
		mu.Unlock()
		if _, err := engine.Run(t.Context(), llm.NewStub(1), f, engine.Debate{Proposition: "x?"}, engine.WithSink(sink), engine.WithHuman(h)); err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(seen, []int{2, 4, 6}) {
			t.Fatalf("the person was asked having seen %v utterances, want [2 4 6]", seen)
		}
	}
}

func TestUnknownFieldsByPath(t *testing.T) {
	type item struct {
		Name string `json:"name"`
	}
	type base struct {
		Rounds int `json:"rounds"`
	}
	type cfg struct {
		base
		Items  []item          `json:"items"`
		ByName map[string]item `json:"byName"`
		Self   selfDecoding    `json:"self"`
		Raw    json.RawMessage `json:"raw"`
		Skip   string          `json:"-"`
	}
	for _, tc := range []struct {
		config string
		want   []string
	}{
		{`{"rounds": 1, "items": [{"name": "a"}]}`, nil},
		{`{"Rounds": 1, "ITEMS": []}`, nil},
		{`{"colour": 1, "items": [{"name": "a"}, {"weight": 2}], "Skip": "x"}`, []string{"Skip", "colour", "items[1].weight"}},
		{`{"byName": {"b": {"name": "b"}, "a": {"weight": 1}}}`, []string{`byName["a"].weight`}},
		{`{"self": {"anything": 1}, "raw": {"anything": 1}}`, nil}, // they decode themselves
		{`{"items": "not a list", "byName": [1]}`, nil},            // the decoder's to report
	} {
		err := engine.UnknownFields("t", json.RawMessage(tc.config), &cfg{})
		var got []string
		var ve *engine.ValidationError
		if errors.As(err, &ve) {
			for _, v := range ve.Violations {
				got = append(got, v.Field)
			}
		}
		if !slices.Equal(got, tc.want) {
			t.Errorf("UnknownFields(%s) names %v, want %v", tc.config, got, tc.want)
		}
		// DecodeConfig names the same fields.
		derr := engine.DecodeConfig("t", json.RawMessage(tc.config), &cfg{})
		if tc.want != nil && (derr == nil || derr.Error() != err.Error()) {
			t.Errorf("DecodeConfig(%s) = %v, want %v", tc.config, derr, err)
		}
	}
}

// selfDecoding is a configuration value with its own UnmarshalJSON, which
// accepts any object.
type selfDecoding struct{ n int }

func (s *selfDecoding) UnmarshalJSON(data []byte) error {
	s.n = len(data)
	return nil
}

// storeSignal is a store that closes a record type's channel in appended
// when the first record of that type is appended.
type storeSignal struct {
	store.Store
	appended map[string]chan struct{}
	mu       sync.Mutex
}

func (s *storeSignal) Append(ctx context.Context, rec store.Record) error {
	err := s.Store.Append(ctx, rec)
	s.mu.Lock()
	defer s.mu.Unlock()
	if ch, ok := s.appended[rec.Type]; ok {
		close(ch)
		delete(s.appended, rec.Type)
	}
	return err
}

// pauser says one turn, asks its person, and on a pause waits (a minute
// at most) for the turn's moves to be stored before it returns.
type pauser struct{ moved <-chan struct{} }

func (*pauser) Name() string { return "pauser" }

func (p *pauser) Play(ctx context.Context, s *engine.Session) (int, error) {
	req := llm.Request{Purpose: "opening", Messages: []llm.Message{{Role: llm.User, Content: "pro: " + s.Debate().Proposition}}}
	if _, err := s.Say(ctx, "pro", engine.Utterance{Speaker: "pro", Kind: engine.KindResponse}, req); err != nil {
		return 0, err
	}
	_, err := s.Ask(ctx, "checkpoint", engine.Question{Kind: engine.QuestionCheckpoint, Text: "Go on?", Choices: []string{"continue"}})
	if errors.Is(err, engine.ErrPaused) {
		select {
		case <-p.moved:
		case <-time.After(time.Minute):
		}
	}
	return 0, err
}

// A pause is the last record of its debate, though the turn before it was
// still being mapped when the person paused: Pending finds the question.
func TestPauseEndsTheLog(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		mem := store.NewMemory()
		paused, moved := make(chan struct{}), make(chan struct{})
		st := &storeSignal{Store: mem, appended: map[string]chan struct{}{engine.RecordAsked: paused, engine.RecordMoves: moved}}
		// The person pauses while the turn's extraction is under way; its
		// reply comes once the pause is stored, if the pause is stored
		// without waiting for it (else after a minute).
		extracting := make(chan struct{})
		h := engine.HumanFunc(func(context.Context, engine.Question) (engine.Answer, error) {
			<-extracting
			return engine.Answer{}, engine.ErrPaused
		})
		c := llm.ClientFunc(func(ctx context.Context, req llm.Request) (llm.Response, error) {
			if req.Purpose == engine.PurposeArgumentExtraction {
				close(extracting)
				select {
				case <-paused:
				case <-time.After(time.Minute):
				}
			}
			return llm.NewStub(1).Complete(ctx, req)
		})
		_, err := engine.Run(t.Context(), c, &pauser{moved: moved}, engine.Debate{ID: "mapped", Proposition: "x?"},
			engine.WithStore(st), engine.WithHuman(h), engine.WithArgumentMap(argumentation.Semantics{}))
		if !errors.Is(err, engine.ErrPaused) {
			t.Fatalf("Run = %v, want ErrPaused", err)
		}
		recs, _ := mem.Records(t.Context(), "mapped")
		var types []string
		for _, r := range recs {
			types = append(types, r.Type)
		}
		if q, ok := engine.Pending(recs); !ok || q.Text != "Go on?" || !slices.Contains(types, engine.RecordMoves) {
			t.Errorf("Pending = %+v, %v; want the question, after the turn's moves (records %q)", q, ok, types)
		}
	})
}
