package eval_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"

	"github.com/duelogic/duelogic/engine"
	"github.com/duelogic/duelogic/eval"
	"github.com/duelogic/duelogic/llm"
	"github.com/duelogic/duelogic/persuasion"
	"github.com/duelogic/duelogic/store"
)

// byPurpose counts a client's calls by purpose and may answer one purpose
// itself.
type byPurpose struct {
	llm.Client
	mu     sync.Mutex
	calls  map[string]int
	answer map[string]func(llm.Request) (string, error)
}

func newByPurpose(c llm.Client) *byPurpose {
	return &byPurpose{Client: c, calls: map[string]int{}, answer: map[string]func(llm.Request) (string, error){}}
}

func (b *byPurpose) Complete(ctx context.Context, req llm.Request) (llm.Response, error) {
	b.mu.Lock()
	b.calls[req.Purpose]++
	f := b.answer[req.Purpose]
	b.mu.Unlock()
	if f != nil {
		s, err := f(req)
		return llm.Response{Content: s, Model: req.Model, Usage: llm.Usage{PromptTokens: 100, CompletionTokens: 10}}, err
	}
	return b.Client.Complete(ctx, req)
}

func (b *byPurpose) total() int {
	b.mu.Lock()
	defer b.mu.Unlock()
	n := 0
	for _, c := range b.calls {
		n += c
	}
	return n
}

// TestFormatArms: the persuasion verdict, the claim strength of its
// argument graph and the moderated recommendation answer yes/no items;
// each answer is what the stored inner debate's outcome says (the
// recommendation read through a schema of the choices), their tokens and
// calls are those the model was asked for, and a re-run asks nothing.
func TestFormatArms(t *testing.T) {
	items := eval.Claims(6, 3)
	c := newByPurpose(llm.NewStub(3))
	c.answer[eval.PurposeReadRecommendation] = func(req llm.Request) (string, error) {
		// The schema limits the answer to the choices.
		var s struct {
			Properties struct {
				Answer struct {
					Enum []string `json:"enum"`
				} `json:"answer"`
			} `json:"properties"`
		}
		if err := json.Unmarshal(req.Schema, &s); err != nil || strings.Join(s.Properties.Answer.Enum, ",") != "yes,no" {
			return "", fmt.Errorf("the reading's schema %s does not limit the answer to the choices", req.Schema)
		}
		if !strings.Contains(req.Messages[len(req.Messages)-1].Content, "<recommendation>") {
			return "", errors.New("the reading does not show the recommendation")
		}
		return `{"reasoning": "it recommends no", "answer": "No."}`, nil
	}
	st := store.NewMemory()
	cfg := eval.Config{Arms: []string{eval.ArmSingle, eval.ArmPersuasion, eval.ArmClaimStrength, eval.ArmModerated}, Model: "stub", Parallel: 2, Stub: true}
	rep, err := eval.Evaluate(context.Background(), c, st, items, cfg)
	if err != nil {
		t.Fatal(err)
	}
	calls := c.total()
	if !strings.HasSuffix(rep.Note, eval.StubFormatsNote) {
		t.Errorf("the stub report's note does not say how the stub answers the format arms: %q", rep.Note)
	}
	if c.calls[eval.PurposeReadRecommendation] != len(items) {
		t.Errorf("%d readings of a recommendation, want one an item", c.calls[eval.PurposeReadRecommendation])
	}
	sumCalls, sumTokens := 0, 0
	for _, r := range rep.Results {
		for arm, a := range r.Arms {
			sumCalls += a.Calls
			sumTokens += a.Usage.Total()
			if a.Calls == 0 || a.Usage.Total() == 0 {
				t.Errorf("item %s, arm %s: %d calls, %d tokens", r.ID, arm, a.Calls, a.Usage.Total())
			}
		}
		if got := r.Arms[eval.ArmModerated].Answer; got != "no" {
			t.Errorf("item %s: the moderated arm answered %q, want the choice read, no", r.ID, got)
		}
		// The persuasion arm's answer is its stored dialogue's verdict.
		id := r.Arms[eval.ArmPersuasion].DebateID + ".inner"
		res, err := engine.ResumeStored(context.Background(), c, id, engine.WithStore(st))
		if err != nil {
			t.Fatalf("the inner debate %s: %v", id, err)
		}
		want := map[string]string{persuasion.SpeakerPro: "yes", persuasion.SpeakerOpp: "no"}[res.Detail.Verdict().Winner]
		if got := r.Arms[eval.ArmPersuasion].Answer; got != want {
			t.Errorf("item %s: the persuasion arm answered %q; its dialogue's verdict %+v says %q", r.ID, got, res.Detail.Verdict(), want)
		}
		if a := r.Arms[eval.ArmClaimStrength].Answer; a != "yes" && a != "no" {
			t.Errorf("item %s: the claim-strength arm answered %q", r.ID, a)
		}
	}
	if sumCalls != calls {
		t.Errorf("the arms count %d calls; the model was asked %d times", sumCalls, calls)
	}
	if sumTokens != rep.Tokens {
		t.Errorf("the arms count %d tokens, the run %d", sumTokens, rep.Tokens)
	}
	for _, a := range rep.Arms {
		if a.N != len(items) || a.TokensPerItem <= 0 || a.CallsPerItem <= 0 {
			t.Errorf("arm %+v", a)
		}
	}
	again, err := eval.Evaluate(context.Background(), c, st, items, cfg)
	if err != nil {
		t.Fatal(err)
	}
	if got := c.total(); got != calls {
		t.Errorf("the re-run asked %d calls again", got-calls)
	}
	a, _ := rep.JSON()
	b, _ := again.JSON()
	if string(a) != string(b) {
		t.Error("the re-run's report differs")
	}
}

// TestFormatArmsNeedTheirItems: a yes/no arm refuses items that are not
// yes/no, the moderated arm items without choices.
func TestFormatArmsNeedTheirItems(t *testing.T) {
	for _, arm := range eval.FormatArms() {
		_, err := eval.Evaluate(context.Background(), llm.NewStub(1), store.NewMemory(), eval.Arithmetic(2, 1), eval.Config{Arms: []string{arm}})
		if !errors.Is(err, eval.ErrBadConfig) || !strings.Contains(err.Error(), "arm "+arm) {
			t.Errorf("arm %s on arithmetic: %v", arm, err)
		}
	}
}

// cachedClient reports 40 of every call's prompt tokens as cached.
type cachedClient struct{ llm.Client }

func (c cachedClient) Complete(ctx context.Context, req llm.Request) (llm.Response, error) {
	r, err := c.Client.Complete(ctx, req)
	r.Usage.CachedPromptTokens = 40
	return r, err
}

// TestCachedTokensReported: the prompt tokens a server serves from its
// cache are reported per item and arm.
func TestCachedTokensReported(t *testing.T) {
	items := eval.Arithmetic(4, 1)
	rep, err := eval.Evaluate(context.Background(), cachedClient{llm.NewStub(1)}, store.NewMemory(), items,
		eval.Config{Arms: []string{eval.ArmSingle, eval.ArmDebate}, Agents: 2, Rounds: 1})
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]float64{eval.ArmSingle: 40, eval.ArmDebate: 40 * 2 * 2}
	for _, a := range rep.Arms {
		if a.CachedPerItem != want[a.Name] {
			t.Errorf("arm %s: %v cached tokens per item, want %v", a.Name, a.CachedPerItem, want[a.Name])
		}
	}
	js, _ := rep.JSON()
	if !strings.Contains(string(js), `"cachedTokensPerItem": 40`) {
		t.Errorf("report.json lacks the cached tokens:\n%.600s", js)
	}
}
