package formal_test

import (
	"context"
	"encoding/json"
	"errors"
	"slices"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/duelogic/duelogic/engine"
	"github.com/duelogic/duelogic/formal"
	"github.com/duelogic/duelogic/llm"
	"github.com/duelogic/duelogic/llm/llmtest"
	"github.com/duelogic/duelogic/store"
	"github.com/duelogic/duelogic/store/storetest"
)

var (
	stopDebate = engine.Debate{ID: "fd-stop", Proposition: "Cities should ban private cars from their centres."}
	pinned     = func() time.Time { return time.Date(2026, 2, 21, 14, 0, 0, 0, time.UTC) }
	short      = json.RawMessage(`{"minRounds": 1, "maxRounds": 2}`)
	stubSeed   = int64(1) // a draw: the chair is asked for the verdict
)

// storedSpec is the configuration stored in a debate's first record.
func storedSpec(t *testing.T, recs []store.Record) json.RawMessage {
	t.Helper()
	var head struct {
		Value struct {
			Spec json.RawMessage `json:"spec"`
		} `json:"value"`
	}
	if err := json.Unmarshal(recs[0].Data, &head); err != nil || head.Value.Spec == nil {
		t.Fatalf("first record %s: %v", recs[0].Data, err)
	}
	return head.Value.Spec
}

func TestRegistered(t *testing.T) {
	if !slices.Contains(engine.Formats(), formal.FormatName) {
		t.Errorf("formats %v", engine.Formats())
	}
}

// TestOpen: engine.Open("formal", config) decodes config over the defaults;
// what it opens runs on the stub and stores the Config as JSON; a bad
// configuration opens nothing.
func TestOpen(t *testing.T) {
	def := formal.DefaultConfig()
	partial := def
	partial.MinRounds, partial.MaxRounds, partial.PromoterModel, partial.TimeBudget = 1, 2, "p", 90*time.Second
	noBudget := def
	noBudget.TimeBudget = 0
	for _, tc := range []struct {
		name   string
		config string
		want   formal.Config
		run    bool
	}{
		{"nil", "", def, true},
		{"empty", `{}`, def, false},
		{"partial", `{"minRounds": 1, "maxRounds": 2, "promoterModel": "p", "timeBudget": "90s"}`, partial, true},
		{"a zero model takes its default", `{"chairModel": ""}`, def, false},
		{"no budget", `{"timeBudget": 0}`, noBudget, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var config json.RawMessage
			if tc.config != "" {
				config = json.RawMessage(tc.config)
			}
			f, err := engine.Open(formal.FormatName, config)
			if err != nil {
				t.Fatal(err)
			}
			want, _ := json.Marshal(tc.want)
			if !tc.run {
				ff, err := formal.New(tc.want)
				if err != nil {
					t.Fatal(err)
				}
				got, _ := json.Marshal(ff)
				if string(got) != string(want) {
					t.Errorf("New(%+v) as JSON %s", tc.want, got)
				}
				return
			}
			st := store.NewMemory()
			res, err := engine.Run(t.Context(), llm.NewStub(stubSeed), f, engine.Debate{ID: "fd-open", Proposition: stopDebate.Proposition},
				engine.WithStore(st), engine.WithClock(pinned))
			if err != nil {
				t.Fatal(err)
			}
			o, ok := res.Detail.(*formal.Outcome)
			if !ok || res.Format != formal.FormatName || o.Rounds < tc.want.MinRounds || o.Rounds > tc.want.MaxRounds {
				t.Errorf("%s outcome %T after %d rounds", res.Format, res.Detail, o.Rounds)
			}
			if v := res.Detail.Verdict(); v.Summary == "" || len(res.Detail.Documents()) == 0 {
				t.Errorf("verdict %+v, %d documents", v, len(res.Detail.Documents()))
			}
			recs, _ := st.Records(t.Context(), "fd-open")
			if got := storedSpec(t, recs); string(got) != string(want) {
				t.Errorf("stored configuration %s\nwant %s", got, want)
			}
		})
	}
}

func TestOpenRejects(t *testing.T) {
	for _, tc := range []struct {
		name, config string
		field        string
	}{
		{"unknown field", `{"minRounds": 1, "nope": 1}`, "nope"},
		{"wrong type", `{"minRounds": "two"}`, "minRounds"},
		{"wrong duration", `{"timeBudget": true}`, "timeBudget"},
		{"invalid value", `{"maxRounds": 50}`, "maxRounds"},
		{"negative budget", `{"timeBudget": -1}`, "timeBudget"},
		{"blank model", `{"chairModel": " "}`, "chairModel"},
		{"not an object", `[1]`, "config"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f, err := engine.Open(formal.FormatName, json.RawMessage(tc.config))
			var ve *engine.ValidationError
			if f != nil || !errors.As(err, &ve) || !errors.Is(err, engine.ErrInvalidConfig) || ve.Format != formal.FormatName {
				t.Fatalf("Open = %v, %v; want a validation error", f, err)
			}
			if len(ve.Violations) != 1 || ve.Violations[0].Field != tc.field {
				t.Errorf("violations %+v; want one of %s", ve.Violations, tc.field)
			}
		})
	}
}

// failing answers requests of purpose from a Fake failing them with err,
// and every other from the stub.
func failing(purpose string, err error) llm.Client {
	fake := llmtest.New()
	fake.OnPurpose(purpose).Fail(err)
	stub := llm.NewStub(stubSeed)
	return llm.ClientFunc(func(ctx context.Context, req llm.Request) (llm.Response, error) {
		if req.Purpose == purpose {
			return fake.Complete(ctx, req)
		}
		return stub.Complete(ctx, req)
	})
}

// canceling is the stub, but the first request of purpose cancels the
// debate instead.
func canceling(purpose string, cancel context.CancelFunc) llm.Client {
	stub := llm.NewStub(stubSeed)
	return llm.ClientFunc(func(ctx context.Context, req llm.Request) (llm.Response, error) {
		if req.Purpose == purpose {
			cancel()
			<-ctx.Done()
			return llm.Response{}, ctx.Err()
		}
		return stub.Complete(ctx, req)
	})
}

// uninterrupted is the outcome of stopDebate played to its end on the stub.
func uninterrupted(t *testing.T) *formal.Outcome {
	t.Helper()
	f, err := engine.Open(formal.FormatName, short)
	if err != nil {
		t.Fatal(err)
	}
	res, err := engine.Run(t.Context(), llm.NewStub(stubSeed), f, stopDebate, engine.WithStore(store.NewMemory()), engine.WithClock(pinned))
	if err != nil {
		t.Fatal(err)
	}
	return res.Detail.(*formal.Outcome)
}

// TestStoppedDebateKeepsItsResult: a debate stopped by a model error, a
// store error or a cancel returns what it said so far beside the error, and
// engine.ResumeStored, on the stub and the same store, finishes it as if it
// had never stopped.
func TestStoppedDebateKeepsItsResult(t *testing.T) {
	want := uninterrupted(t)
	errModel, errDisk := errors.New("model down"), errors.New("disk full")
	for _, tc := range []struct {
		name  string
		setup func(st store.Store, cancel context.CancelFunc) (llm.Client, store.Store)
		is    error
	}{
		{"model error", func(st store.Store, _ context.CancelFunc) (llm.Client, store.Store) {
			return failing(formal.PurposeAudienceQuestions, errModel), st
		}, errModel},
		{"store error", func(st store.Store, _ context.CancelFunc) (llm.Client, store.Store) {
			return llm.NewStub(stubSeed), storetest.FailAfter(st, 12, errDisk)
		}, errDisk},
		{"cancel", func(st store.Store, cancel context.CancelFunc) (llm.Client, store.Store) {
			return canceling(formal.PurposeVerdict, cancel), st
		}, context.Canceled},
	} {
		t.Run(tc.name, func(t *testing.T) {
			st := store.NewMemory()
			ctx, cancel := context.WithCancel(t.Context())
			defer cancel()
			client, runStore := tc.setup(st, cancel)
			f, err := engine.Open(formal.FormatName, short)
			if err != nil {
				t.Fatal(err)
			}
			res, err := engine.Run(ctx, client, f, stopDebate, engine.WithStore(runStore), engine.WithClock(pinned))
			if !errors.Is(err, tc.is) {
				t.Fatalf("Run: %v; want %v", err, tc.is)
			}
			if res == nil || res.DebateID != stopDebate.ID || res.Format != formal.FormatName || len(res.Transcript) == 0 || res.Detail != nil {
				t.Fatalf("result beside the error: %+v", res)
			}
			if tc.name == "model error" {
				var te *engine.TurnError
				if !errors.As(err, &te) || te.Purpose != formal.PurposeAudienceQuestions {
					t.Errorf("not a turn error of the audience's questions: %v", err)
				}
			}
			got, err := engine.ResumeStored(t.Context(), llm.NewStub(stubSeed), stopDebate.ID, engine.WithStore(st), engine.WithClock(pinned))
			if err != nil {
				t.Fatal(err)
			}
			o, ok := got.Detail.(*formal.Outcome)
			if !ok {
				t.Fatalf("detail %T", got.Detail)
			}
			if diff := cmp.Diff(want, o); diff != "" {
				t.Errorf("resumed outcome (-uninterrupted +resumed):\n%s", diff)
			}
			if len(got.Transcript) < len(res.Transcript) {
				t.Errorf("resumed transcript of %d utterances; %d were said before the stop", len(got.Transcript), len(res.Transcript))
			}
		})
	}
}

// TestResumeFromALogOfAnEarlierVersion: a debate whose stored configuration
// is the flat Config of an earlier version — its time budget in
// nanoseconds, no topicPrompt — resumes with a &formal.Format{} and with
// engine.ResumeStored.
func TestResumeFromALogOfAnEarlierVersion(t *testing.T) {
	const old = `{"chairModel":"anthropic/claude-sonnet-4","promoterModel":"openai/gpt-4o",` +
		`"detractorModel":"google/gemini-2.5-pro","verifierModel":"deepseek/deepseek-chat",` +
		`"audienceModel":"meta-llama/llama-4-maverick","reporterModel":"openai/gpt-4o","assessorModel":"x-ai/grok-3",` +
		`"minRounds":1,"maxRounds":2,"timeBudget":2700000000000,"outputDir":""}`
	want := uninterrupted(t)
	// A debate stopped after 12 records...
	st := store.NewMemory()
	f, _ := engine.Open(formal.FormatName, short)
	if _, err := engine.Run(t.Context(), llm.NewStub(stubSeed), f, stopDebate,
		engine.WithStore(storetest.FailAfter(st, 12, errors.New("disk full"))), engine.WithClock(pinned)); err == nil {
		t.Fatal("the debate did not stop")
	}
	recs, err := st.Records(t.Context(), stopDebate.ID)
	if err != nil {
		t.Fatal(err)
	}
	// ... whose configuration is stored as an earlier version stored it.
	var head map[string]json.RawMessage
	var value map[string]json.RawMessage
	if err := json.Unmarshal(recs[0].Data, &head); err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(head["value"], &value); err != nil {
		t.Fatal(err)
	}
	value["spec"] = json.RawMessage(old)
	head["value"], _ = json.Marshal(value)
	recs[0].Data, _ = json.Marshal(head)
	for _, resume := range []struct {
		name string
		run  func(st store.Store) (engine.Outcome, error)
	}{
		{"Resume", func(st store.Store) (engine.Outcome, error) {
			res, err := engine.Resume(t.Context(), llm.NewStub(stubSeed), &formal.Format{}, stopDebate.ID, engine.WithStore(st), engine.WithClock(pinned))
			if err != nil {
				return nil, err
			}
			return res.Detail, nil
		}},
		{"ResumeStored", func(st store.Store) (engine.Outcome, error) {
			res, err := engine.ResumeStored(t.Context(), llm.NewStub(stubSeed), stopDebate.ID, engine.WithStore(st), engine.WithClock(pinned))
			if err != nil {
				return nil, err
			}
			return res.Detail, nil
		}},
	} {
		t.Run(resume.name, func(t *testing.T) {
			st := store.NewMemory()
			for _, r := range recs {
				if err := st.Append(t.Context(), r); err != nil {
					t.Fatal(err)
				}
			}
			got, err := resume.run(st)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("resumed outcome (-uninterrupted +resumed):\n%s", diff)
			}
		})
	}
}
