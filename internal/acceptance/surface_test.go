package acceptance

import (
	"context"
	"encoding/json"
	"errors"
	"slices"
	"sync/atomic"
	"testing"

	"github.com/google/go-cmp/cmp"

	_ "github.com/duelogic/duelogic" // the formats register themselves
	"github.com/duelogic/duelogic/engine"
	_ "github.com/duelogic/duelogic/formal"
	"github.com/duelogic/duelogic/llm"
	_ "github.com/duelogic/duelogic/moderated"
	_ "github.com/duelogic/duelogic/persuasion"
	_ "github.com/duelogic/duelogic/scored"
	"github.com/duelogic/duelogic/store"
	"github.com/duelogic/duelogic/store/storetest"
)

// failing fails the nth call it is sent, then answers like the stub.
type failing struct {
	llm.Client
	n   atomic.Int64
	at  int64
	err error
}

func (f *failing) Complete(ctx context.Context, req llm.Request) (llm.Response, error) {
	if f.n.Add(1) == f.at {
		return llm.Response{}, f.err
	}
	return f.Client.Complete(ctx, req)
}

// Every registered format opens with its defaults, plays on the stub,
// fails midway keeping its debate, and resumes by name to the outcome of an
// unbroken run.
func TestEveryFormatByName(t *testing.T) {
	names := engine.Formats()
	for _, want := range []string{"duelogic", "formal", "moderated", "persuasion", "scored"} {
		if !slices.Contains(names, want) {
			t.Fatalf("engine.Formats() = %v, want %q among them", names, want)
		}
	}
	ctx := context.Background()
	boom := errors.New("acceptance: boom")
	for _, name := range names {
		t.Run(name, func(t *testing.T) {
			open := func() engine.Format[engine.Outcome] {
				f, err := engine.Open(name, nil)
				if err != nil {
					t.Fatalf("Open(%q, nil): %v", name, err)
				}
				return f
			}
			mem := store.NewMemory()
			clean, err := engine.Run(ctx, llm.NewStub(3), open(), engine.Debate{ID: name + "-clean", Proposition: "Should cities ban private cars from their centres?"}, engine.WithStore(mem))
			if err != nil {
				t.Fatal(err)
			}
			v := clean.Detail.Verdict()
			docs := clean.Detail.Documents()
			if v.Summary == "" || len(docs) == 0 || docs[0].Name == "" || docs[0].Markdown == "" {
				t.Errorf("verdict %+v, documents %d", v, len(docs))
			}
			for _, tc := range []struct {
				kind   string
				client func(cancel func()) llm.Client
				store  func(store.Store) store.Store
				want   error
			}{
				{"model error", func(func()) llm.Client { return &failing{Client: llm.NewStub(3), at: 3, err: boom} }, nil, boom},
				{"store error", func(func()) llm.Client { return llm.NewStub(3) }, func(s store.Store) store.Store { return storetest.FailAfter(s, 5, boom) }, boom},
				{"cancel", func(cancel func()) llm.Client {
					var n atomic.Int64
					return llm.ClientFunc(func(ctx context.Context, req llm.Request) (llm.Response, error) {
						if n.Add(1) == 3 {
							cancel()
							return llm.Response{}, ctx.Err()
						}
						return llm.NewStub(3).Complete(ctx, req)
					})
				}, nil, context.Canceled},
			} {
				t.Run(tc.kind, func(t *testing.T) {
					var st store.Store = mem
					if tc.store != nil {
						st = tc.store(mem)
					}
					rctx, cancel := context.WithCancel(ctx)
					defer cancel()
					id := name + "-" + tc.kind[:5]
					res, err := engine.Run(rctx, tc.client(cancel), open(), engine.Debate{ID: id, Proposition: clean.Debate.Proposition}, engine.WithStore(st))
					if !errors.Is(err, tc.want) {
						t.Fatalf("Run = %v, want %v", err, tc.want)
					}
					if res == nil || res.DebateID != id || res.Format != name {
						t.Fatalf("the failed run's result: %+v", res)
					}
					done, err := engine.ResumeStored(ctx, llm.NewStub(3), id, engine.WithStore(mem))
					if err != nil {
						t.Fatal(err)
					}
					if diff := cmp.Diff(clean.Detail.Verdict(), done.Detail.Verdict()); diff != "" {
						t.Errorf("verdict after resume (-unbroken +resumed):\n%s", diff)
					}
					if len(done.Transcript) != len(clean.Transcript) {
						t.Errorf("%d utterances after resume, %d unbroken", len(done.Transcript), len(clean.Transcript))
					}
				})
			}
			t.Run("fork", func(t *testing.T) {
				recs, _ := mem.Records(ctx, clean.DebateID)
				at := int64(len(recs) / 2)
				id, err := engine.Fork(ctx, mem, clean.DebateID, at, json.RawMessage(`{}`))
				if err != nil {
					t.Fatal(err)
				}
				res, err := engine.ResumeStored(ctx, llm.NewStub(3), id, engine.WithStore(mem))
				if err != nil {
					t.Fatal(err)
				}
				if res.Debate.ForkOf != clean.DebateID || len(res.Transcript) == 0 {
					t.Errorf("fork: %+v", res.Debate)
				}
			})
		})
	}
}

// A moderated debate pauses through a Human and finishes when answered.
func TestModeratedPausesThroughAHuman(t *testing.T) {
	ctx := context.Background()
	mem := store.NewMemory()
	f, err := engine.Open("moderated", nil)
	if err != nil {
		t.Fatal(err)
	}
	pause := engine.HumanFunc(func(ctx context.Context, q engine.Question) (engine.Answer, error) {
		if q.Kind == engine.QuestionCheckpoint {
			return engine.Answer{}, engine.ErrPaused
		}
		if len(q.Choices) > 0 {
			return engine.Answer{Choice: q.Choices[0]}, nil
		}
		return engine.Answer{}, nil
	})
	res, err := engine.Run(ctx, llm.NewStub(3), f, engine.Debate{ID: "mod", Proposition: "Should we use GraphQL or REST for our public API?"}, engine.WithStore(mem), engine.WithHuman(pause))
	if !errors.Is(err, engine.ErrPaused) || res == nil || len(res.Transcript) == 0 {
		t.Fatalf("Run = %v, result %+v; want a pause at the first checkpoint with what was said", err, res)
	}
	recs, _ := mem.Records(ctx, "mod")
	q, ok := engine.Pending(recs)
	if !ok || q.Kind != engine.QuestionCheckpoint || len(q.Choices) == 0 {
		t.Fatalf("Pending = %+v, %v", q, ok)
	}
	end := engine.HumanFunc(func(ctx context.Context, q engine.Question) (engine.Answer, error) {
		if q.Kind == engine.QuestionCheckpoint && slices.Contains(q.Choices, "end") {
			return engine.Answer{Choice: "end"}, nil
		}
		if len(q.Choices) > 0 {
			return engine.Answer{Choice: q.Choices[0]}, nil
		}
		return engine.Answer{}, nil
	})
	done, err := engine.ResumeStored(ctx, llm.NewStub(3), "mod", engine.WithStore(mem), engine.WithHuman(end))
	if err != nil {
		t.Fatal(err)
	}
	if len(done.Detail.Documents()) == 0 {
		t.Error("the finished moderated debate has no documents")
	}
}

// TestOpenNamesUnknownFieldsByPath: a field a format's configuration does
// not have is named by its path at any depth, in every format, and nothing
// opens.
func TestOpenNamesUnknownFieldsByPath(t *testing.T) {
	tests := []struct {
		format, config, field string
	}{
		{"duelogic", `{"arbiter": {"modelID": "m", "mood": "calm"}}`, "arbiter.mood"},
		{"formal", `{"maxRounds": 4, "chairModell": "m"}`, "chairModell"},
		{"scored", `{"challenges": [{"category": "problem", "text": "t", "severity": "low", "weight": 2}]}`, "challenges[0].weight"},
		{"scored", `{"evaluations": {"problem": {"score": 5, "evidence": [], "source": "x"}}}`, `evaluations["problem"].source`},
		{"moderated", `{"customPerspectives": [{"id": "x", "name": "X", "colour": "red"}]}`, "customPerspectives[0].colour"},
		{"persuasion", `{"pro": {"description": "d", "colour": "red"}}`, "pro.colour"},
	}
	for _, tt := range tests {
		t.Run(tt.format+"/"+tt.field, func(t *testing.T) {
			f, err := engine.Open(tt.format, json.RawMessage(tt.config))
			var ve *engine.ValidationError
			if f != nil || !errors.As(err, &ve) {
				t.Fatalf("Open = %v, %v; want a *ValidationError", f, err)
			}
			var fields []string
			for _, v := range ve.Violations {
				fields = append(fields, v.Field)
			}
			if !slices.Equal(fields, []string{tt.field}) {
				t.Errorf("violations name %q, want [%q]", fields, tt.field)
			}
		})
	}
}
