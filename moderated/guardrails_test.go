package moderated

import (
	"context"
	"errors"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/duelogic/duelogic/catalog"
	"github.com/duelogic/duelogic/engine"
	"github.com/duelogic/duelogic/llm"
	"github.com/duelogic/duelogic/llm/llmtest"
	"github.com/duelogic/duelogic/store"
)

func TestTokenBudget(t *testing.T) {
	tests := []struct {
		name            string
		budget          int
		argCap, rebCap  int
		wantOverBudget  bool
		wantMaxArgument int // most tokens an argument may keep
	}{
		{"unlimited", 0, MaxTokensDebater, MaxTokensDebater, false, 1 << 30},
		{"roomy", 2000, MaxTokensDebater, MaxTokensDebater, false, 1200},
		{"tight", 100, 60, 40, true, 60},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := llmtest.New()
			f.OnPurpose(PurposeAnalysis).Reply(analysisTwo)
			f.OnPurpose(PurposeJudgment).Reply(judgeAgree)
			f.OnPurpose(PurposeSynthesis).Reply(synthesisOK)
			// Replies of 200 completion tokens, whatever MaxTokens says.
			long := texts("long", 2)
			f.OnPurpose(PurposeArgument).Respond(llm.Response{Content: long[0], Usage: llm.Usage{PromptTokens: 500, CompletionTokens: 200}})
			f.OnPurpose(PurposeRebuttal).Respond(llm.Response{Content: long[1], Usage: llm.Usage{PromptTokens: 500, CompletionTokens: 200}})
			cfg := testConfig()
			cfg.TokenBudget = tt.budget
			res := mustRun(t, f, cfg, cachingQuestion, nil)
			for _, r := range requests(f, PurposeArgument) {
				if r.MaxTokens != tt.argCap {
					t.Errorf("argument MaxTokens %d, want %d", r.MaxTokens, tt.argCap)
				}
			}
			for _, r := range requests(f, PurposeRebuttal) {
				if r.MaxTokens != tt.rebCap {
					t.Errorf("rebuttal MaxTokens %d, want %d", r.MaxTokens, tt.rebCap)
				}
			}
			r := res.Rounds[0]
			for i, a := range append(r.Arguments, r.Rebuttals...) {
				if a.OverBudget != tt.wantOverBudget {
					t.Errorf("%s %s: over budget %v", a.Perspective, a.Kind, a.OverBudget)
				}
				limit := tt.wantMaxArgument
				if a.Kind == KindRebuttal && tt.budget > 0 {
					limit = tt.budget - r.Arguments[i%2].Tokens
				}
				if a.Tokens > limit {
					t.Errorf("%s %s kept %d tokens; budget allows %d", a.Perspective, a.Kind, a.Tokens, limit)
				}
				if tt.wantOverBudget {
					full := long[0]
					if a.Kind == KindRebuttal {
						full = long[1]
					}
					// The kept share of the text follows the kept share of tokens.
					share := float64(len([]rune(a.Content))) / float64(len([]rune(full)))
					if !strings.HasSuffix(a.Content, " […]") || !strings.HasPrefix(full, strings.TrimSuffix(a.Content, " […]")) ||
						share > float64(a.Tokens)/200+0.05 {
						t.Errorf("%s %s not cut to its budget: %q", a.Perspective, a.Kind, a.Content)
					}
				}
			}
			// Usage is what the model spent, cut or not.
			if got := res.UsageBySpeaker[string(catalog.PerformanceAdvocate)].CompletionTokens; got != 400 {
				t.Errorf("performance advocate charged %d completion tokens, want 400", got)
			}
		})
	}
}

func TestTruncate(t *testing.T) {
	text := "one two three four five six seven eight nine ten"
	tests := []struct {
		used, max int
		want      string
	}{
		{10, 10, text},
		{10, 5, "one two three four five […]"},
		{10, 1, "one […]"},
		{1000, 1, " […]"},
	}
	for _, tt := range tests {
		if got := truncate(text, tt.used, tt.max); got != strings.TrimSpace(tt.want) && got != tt.want {
			t.Errorf("truncate(%d/%d) = %q, want %q", tt.max, tt.used, got, tt.want)
		}
	}
}

func TestRoundTimeout(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		st := store.NewMemory()
		f := llmtest.New()
		f.OnPurpose(PurposeRebuttal).Delay(3 * time.Minute).Reply(texts("late", 1)...)
		addRules(f, []string{analysisTwo}, texts("argument", 50))
		_, err := run(t.Context(), f, testConfig(), cachingQuestion, nil, engine.WithStore(st))
		if !errors.Is(err, ErrRoundTimeout) || !errors.Is(err, context.DeadlineExceeded) || !strings.Contains(err.Error(), "round 1") {
			t.Fatalf("err = %v, want ErrRoundTimeout in round 1", err)
		}
		var te *engine.TurnError
		if !errors.As(err, &te) || te.Purpose != PurposeRebuttal {
			t.Errorf("err %v names no rebuttal turn", err)
		}
		list, _ := List(t.Context(), st)
		if list[0].Status != StatusInRound || list[0].Round != 1 {
			t.Errorf("list %+v", list)
		}
		// Resume finishes it; what was stored is not asked again.
		g := newFakeArgs(texts("resumed", 50), judgeAgree)
		res, err := resume(t.Context(), g, cachingQuestion.ID, nil, engine.WithStore(st))
		if err != nil {
			t.Fatal(err)
		}
		if g.Calls(PurposeArgument) != 0 || g.Calls(PurposeAnalysis) != 0 || g.Calls(PurposeRebuttal) != 2 || res.EndReason != EndAgreement {
			t.Errorf("resume: %d arguments, %d analyses, %d rebuttals asked; end %s", g.Calls(PurposeArgument), g.Calls(PurposeAnalysis), g.Calls(PurposeRebuttal), res.EndReason)
		}
	})
}

// TestOneRetryLayer: the moderated format adds no retries of its own (the
// client's, or llm.Retry around it, is the one layer): a rate limit stops
// the debate after one call, and llm.Retry rides it out honouring
// Retry-After.
func TestOneRetryLayer(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		limited := llm.Temporary(errors.New("429 too many requests"), 5*time.Second)

		g := llmtest.New()
		g.OnPurpose(PurposeJudgment).Fail(limited).Times(2)
		addRules(g, []string{analysisTwo}, texts("argument", 50), judgeAgree)
		_, err := run(t.Context(), g, testConfig(), cachingQuestion, nil)
		var te *engine.TurnError
		if !errors.As(err, &te) || !errors.Is(err, limited) || te.Purpose != PurposeJudgment {
			t.Errorf("without a retrying client: %v", err)
		}
		if n := g.Calls(PurposeJudgment); n != 1 {
			t.Errorf("%d judgment calls without a retrying client, want 1", n)
		}

		f := llmtest.New()
		f.OnPurpose(PurposeJudgment).Fail(limited).Times(2)
		addRules(f, []string{analysisTwo}, texts("argument", 50), judgeAgree)
		start := time.Now()
		res, err := run(t.Context(), llm.Retry(f, llm.RetryPolicy{}), testConfig(), cachingQuestion, nil)
		if err != nil {
			t.Fatal(err)
		}
		if f.Calls(PurposeJudgment) != 3 || res.EndReason != EndAgreement {
			t.Errorf("%d judgment calls, end %s", f.Calls(PurposeJudgment), res.EndReason)
		}
		if waited := time.Since(start); waited < 10*time.Second {
			t.Errorf("retried after %v; Retry-After asked for 2×5s", waited)
		}
	})
}

// TestOffTopicRedirectAndMute: a perspective off topic is redirected in
// the next round, and muted after twice in a row while two others remain.
func TestOffTopicRedirectAndMute(t *testing.T) {
	offSec := `{"offTopic":["Security Advocate"],"summary":"Security wandered."}`
	f := newFakeWith([]string{`{"debaters":3,"perspectives":["Security Advocate","User Experience","Performance Advocate"]}`},
		texts("argument", 50), offSec, offSec, judgeOn)
	cfg := testConfig()
	cfg.MaxRounds = 3
	res := mustRun(t, f, cfg, cachingQuestion, nil)
	if diff := cmp.Diff([]catalog.Framework{sec, ux, perf}, idsOf(res.Perspectives)); diff != "" {
		t.Fatalf("perspectives (-want +got):\n%s", diff)
	}
	r1, r2, r3 := res.Rounds[0], res.Rounds[1], res.Rounds[2]
	if !strings.Contains(r2.Opening, "Security Advocate: your last argument drifted from the question") {
		t.Errorf("round 2 opening does not redirect: %q", r2.Opening)
	}
	var redirected int
	for _, r := range requests(f, PurposeArgument) {
		if strings.Contains(lastUser(r), "Round: 2 of") && strings.Contains(lastUser(r), "The moderator asks you: your last argument drifted") {
			redirected++
			if !strings.Contains(r.Messages[0].Content, "Perspective: Security Advocate\n") {
				t.Errorf("the redirection went to the wrong debater")
			}
		}
	}
	if redirected != 1 {
		t.Errorf("%d round-2 arguments redirected, want 1", redirected)
	}
	if len(r1.Muted) != 0 || !cmp.Equal(r2.Muted, []catalog.Framework{sec}) {
		t.Errorf("muted after round 1 %v, after round 2 %v", r1.Muted, r2.Muted)
	}
	if len(r3.Arguments) != 2 || len(r3.Rebuttals) != 2 || !strings.Contains(r3.Opening, "Security Advocate is muted") {
		t.Errorf("round 3: %d arguments, %d rebuttals, opening %q", len(r3.Arguments), len(r3.Rebuttals), r3.Opening)
	}

	// With two debaters, nobody is muted.
	g := newFake(`{"offTopic":["Performance Advocate"],"summary":"Off."}`)
	res = mustRun(t, g, cfg, cachingQuestion, nil)
	for _, r := range res.Rounds {
		if len(r.Muted) != 0 || len(r.Arguments) != 2 {
			t.Errorf("round %d: muted %v, %d arguments", r.Number, r.Muted, len(r.Arguments))
		}
	}
}

func TestUnreadableModerator(t *testing.T) {
	// Judgments that never parse: the debate goes on, on the measured
	// signals alone, to the round cap.
	f := newFake("The round was fine.")
	res := mustRun(t, f, testConfig(), cachingQuestion, nil)
	if len(res.Rounds) != 3 || !res.Rounds[0].Judgment.Fallback || res.EndReason != EndMaxRounds {
		t.Errorf("%d rounds, judgment %+v, end %s", len(res.Rounds), res.Rounds[0].Judgment, res.EndReason)
	}
	if f.Calls(PurposeJudgment) != 6 {
		t.Errorf("%d judgment calls, want 2 per round", f.Calls(PurposeJudgment))
	}
	again := requests(f, PurposeJudgment)[1].Messages
	if len(again) != 4 || !strings.HasPrefix(again[3].Content, retryMarker+"no JSON object") {
		t.Errorf("the second judgment request does not ask again: %+v", again[2:])
	}

	// A synthesis that never parses is replaced by the format's own, and
	// counted as defaulted.
	g := llmtest.New()
	g.OnPurpose(PurposeSynthesis).Reply(`{"recommendation":""}`)
	addRules(g, []string{analysisTwo}, texts("argument", 50), judgeAgree)
	full, err := run(t.Context(), g, testConfig(), cachingQuestion, nil)
	if err != nil || g.Calls(PurposeSynthesis) != 2 {
		t.Fatalf("err = %v after %d calls", err, g.Calls(PurposeSynthesis))
	}
	syn := full.Detail.Synthesis
	if !syn.Fallback || syn.Confidence != ConfidenceLow || len(syn.Perspectives) != 2 || len(syn.Perspectives[0].KeyArguments) == 0 {
		t.Errorf("synthesis %+v", syn)
	}
	if got := full.Judgments[PurposeSynthesis]; got != (engine.JudgmentCounts{Defaulted: 1}) {
		t.Errorf("synthesis judgments %+v", got)
	}
}
