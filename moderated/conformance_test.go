package moderated

import (
	"context"
	"strings"
	"sync"
	"testing"

	"github.com/duelogic/duelogic/argumentation"
	"github.com/duelogic/duelogic/engine"
	"github.com/duelogic/duelogic/engine/enginetest"
	"github.com/duelogic/duelogic/llm"
)

// guideOnce guides after round 1 and continues after the others, whichever
// play asks.
var guideOnce = CheckpointFunc(func(_ context.Context, st State) (Decision, error) {
	if st.Round == 1 {
		return Decision{Action: Guide, Guidance: "Mind the budget."}, nil
	}
	return Decision{Action: Continue}, nil
})

// guidingPerson answers every question the same way, whichever play asks:
// the clarification, guidance after round 1 and continue after the
// others, approval, and yes to the workflow.
var guidingPerson = engine.HumanFunc(func(_ context.Context, q engine.Question) (engine.Answer, error) {
	switch q.Kind {
	case engine.QuestionClarification:
		return engine.Answer{Text: "Redis or PostgreSQL."}, nil
	case engine.QuestionCheckpoint:
		if strings.HasPrefix(q.Text, "Round 1 ") {
			return engine.Answer{Choice: string(Guide), Text: "Mind the budget."}, nil
		}
		return engine.Answer{Choice: string(Continue)}, nil
	case engine.QuestionApproval:
		return engine.Answer{Choice: ChoiceApprove, Text: "Go."}, nil
	}
	return engine.Answer{Choice: ChoiceYes}, nil
})

// TestFormatKeepsTheEngineContract runs package enginetest on the default
// configuration, plain and argument-mapped, and on a vague question whose
// people answer every question — through the deprecated hooks (with a
// budget tight enough to cut replies) and through an engine.Human —, with
// a follow-up: a store failing after any record, a cancelled context and a
// resume all end in the records of an uninterrupted debate.
func TestFormatKeepsTheEngineContract(t *testing.T) {
	tests := []struct {
		name   string
		modify func(*Config)
		opts   []Option
		engine []engine.Option
		// extra bounds the calls a store failure may cost (0: the
		// engine's 3). Mapped, a round's arguments (up to
		// maxParallelArguments at once) and an argument extraction beside
		// them can all be in flight when the store fails: 4.
		extra  int
		debate engine.Debate // zero: enginetest's
	}{
		{"plain", nil, nil, nil, 0, engine.Debate{}},
		{"mapped", nil, nil, []engine.Option{engine.WithArgumentMap(argumentation.Additive)}, maxParallelArguments + 1, engine.Debate{}},
		// The deprecated hooks: a vague question clarified, a guided
		// checkpoint, a synthesis rejected, stored as earlier versions
		// stored them.
		{"guided through the deprecated hooks", func(c *Config) { c.TokenBudget = 150 }, []Option{
			WithClarifier(ClarifyFunc(func(context.Context, Clarification) (string, error) { return "Redis or PostgreSQL.", nil })),
			WithApprover(ApproveFunc(func(context.Context, Synthesis) (Approval, error) {
				return Approval{Status: Rejected, Note: "Too early."}, nil
			})),
			WithCheckpointer(guideOnce),
			WithFollowUp(func(context.Context, Synthesis) error { return nil }),
		}, nil, 0, engine.Debate{ID: "enginetest-vague", Proposition: "Which cache?"}},
		// The same through an engine.Human, which also approves and
		// wants the workflow: the answers are stored like any step.
		{"asked through a Human", func(c *Config) { c.MaxRounds = 2 }, []Option{
			WithFollowUp(func(context.Context, Synthesis) error { return nil }),
		}, []engine.Option{engine.WithHuman(guidingPerson)}, 0, engine.Debate{ID: "enginetest-vague", Proposition: "Which cache?"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			cfg := DefaultConfig()
			if tt.modify != nil {
				tt.modify(&cfg)
			}
			enginetest.Run(t, func() engine.Format[*Outcome] {
				f, err := New(cfg, tt.opts...)
				if err != nil {
					t.Fatal(err)
				}
				return f
			}, enginetest.Config{Options: tt.engine, MaxExtraCalls: tt.extra, Debate: tt.debate})
		})
	}
}

// recorder passes requests to a client and keeps them.
type recorder struct {
	llm.Client
	mu   sync.Mutex
	reqs []llm.Request
}

func (r *recorder) Complete(ctx context.Context, req llm.Request) (llm.Response, error) {
	r.mu.Lock()
	r.reqs = append(r.reqs, req)
	r.mu.Unlock()
	return r.Client.Complete(ctx, req)
}

// TestArgumentMap maps a guided debate: the debaters' turns and the human's
// guidance are mapped, by the moderator's model, and the moderator's are
// not.
func TestArgumentMap(t *testing.T) {
	rec := &recorder{Client: llm.NewStub(7)}
	cfg := DefaultConfig()
	cfg.ModeratorModel = "m-mod"
	res := mustRun(t, rec, cfg, cachingQuestion, []Option{WithCheckpointer(guideOnce)}, engine.WithArgumentMap(argumentation.Additive))
	if res.Arguments == nil || len(res.Arguments.Moves) == 0 {
		t.Fatalf("no argument map: %+v", res.Arguments)
	}
	mapped := map[string]bool{}
	for _, p := range res.Perspectives {
		mapped[string(p.ID)] = true
	}
	var turns, guidance int
	for _, u := range res.Transcript {
		switch u.Speaker {
		case SpeakerModerator:
		case SpeakerHuman:
			guidance++
		default:
			turns++
		}
	}
	if guidance == 0 {
		t.Fatalf("the debate had no guidance")
	}
	var extractions int
	for _, r := range rec.reqs {
		if r.Purpose == engine.PurposeArgumentExtraction {
			extractions++
			if r.Model != "m-mod" {
				t.Errorf("extraction by %q, want the moderator's model", r.Model)
			}
		}
	}
	if extractions != turns {
		t.Errorf("%d extractions for %d turns of debaters (the human's guidance is not mapped)", extractions, turns)
	}
	for _, m := range res.Arguments.Moves {
		if !mapped[m.Speaker] {
			t.Errorf("move %s by %q, who is not mapped", m.ID, m.Speaker)
		}
	}
	f, _ := New(cfg)
	for _, p := range res.Arguments.Report.Participants {
		if p.Persona != f.Label(p.Side) {
			t.Errorf("participant %s named %q, want %q", p.Side, p.Persona, f.Label(p.Side))
		}
	}
}

func TestLabel(t *testing.T) {
	f, err := New(hostConfig())
	if err != nil {
		t.Fatal(err)
	}
	for speaker, want := range map[string]string{
		string(perf):     "Performance Advocate perspective",
		string(compl):    "Compliance First perspective",
		SpeakerHuman:     "Human guidance (from the people who asked the question)",
		SpeakerModerator: "Moderator",
		"someone":        "someone",
	} {
		if got := f.Label(speaker); got != want {
			t.Errorf("Label(%q) = %q, want %q", speaker, got, want)
		}
	}
	if f.JudgeModel() != f.Config.ModeratorModel || f.Participants() != nil {
		t.Errorf("judge model %q, participants %v", f.JudgeModel(), f.Participants())
	}
}
