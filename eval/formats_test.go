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
// recommendation read through a schema of the choices); the two
// persuasion arms read one dialogue per item, each charged the whole of
// it and the run's total once; the tokens and calls are those the model
// was asked for, and a re-run asks nothing.
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
	sumCalls, sumTokens, sharedCalls, sharedTokens := 0, 0, 0, 0
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
		id := dialogueOf(t, st, r.ID)
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
		p, cs := r.Arms[eval.ArmPersuasion], r.Arms[eval.ArmClaimStrength]
		if p.Usage != cs.Usage || p.Calls != cs.Calls || p.Usage != res.Usage {
			t.Errorf("item %s: persuasion charged %+v in %d calls, claimstrength %+v in %d; want both the dialogue's %+v",
				r.ID, p.Usage, p.Calls, cs.Usage, cs.Calls, res.Usage)
		}
		sharedCalls += p.Calls
		sharedTokens += p.Usage.Total()
	}
	if n := countFormat(t, st, persuasion.FormatName); n != len(items) {
		t.Errorf("%d persuasion dialogues stored, want one an item, %d", n, len(items))
	}
	if rep.SharedCalls != sharedCalls || rep.SharedTokens != sharedTokens || sharedTokens == 0 {
		t.Errorf("the report shares %d tokens in %d calls, want the dialogues' %d in %d", rep.SharedTokens, rep.SharedCalls, sharedTokens, sharedCalls)
	}
	if sumCalls != calls+rep.SharedCalls {
		t.Errorf("the arms count %d calls; the model was asked %d times, and %d are shared", sumCalls, calls, rep.SharedCalls)
	}
	if sumTokens != rep.Tokens+rep.SharedTokens {
		t.Errorf("the arms count %d tokens, the run %d, %d shared", sumTokens, rep.Tokens, rep.SharedTokens)
	}
	if md := rep.Markdown(""); !strings.Contains(md, fmt.Sprintf("count %d tokens (%d calls) twice", sharedTokens, sharedCalls)) {
		t.Errorf("the report does not explain the shared dialogue:\n%.800s", md)
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

// dialogueOf is the ID of the one persuasion dialogue st holds for item.
func dialogueOf(t *testing.T, st store.Store, item string) string {
	t.Helper()
	ids, err := st.Debates(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	var found []string
	for _, id := range ids {
		if strings.HasPrefix(id, "dialogue-"+item+"-") && strings.HasSuffix(id, ".persuasion") {
			found = append(found, id)
		}
	}
	if len(found) != 1 {
		t.Fatalf("item %s: dialogues %q, want one", item, found)
	}
	return found[0]
}

// countFormat counts the debates of format in st.
func countFormat(t *testing.T, st store.Store, format string) int {
	t.Helper()
	ids, err := st.Debates(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, id := range ids {
		sum, err := engine.Inspect(context.Background(), st, id)
		if err != nil {
			t.Fatal(err)
		}
		if sum.Format == format {
			n++
		}
	}
	return n
}

// TestPersuasionArmsShareTheDialogue: the claimstrength arm asked in a
// later run than the persuasion arm reads the dialogue the first run
// played, asking nothing; each arm alone counts no shared tokens.
func TestPersuasionArmsShareTheDialogue(t *testing.T) {
	ctx := context.Background()
	items := eval.Claims(4, 5)
	c := newByPurpose(llm.NewStub(4))
	st := store.NewMemory()
	first, err := eval.Evaluate(ctx, c, st, items, eval.Config{Arms: []string{eval.ArmPersuasion}, Model: "stub", Stub: true})
	if err != nil {
		t.Fatal(err)
	}
	calls := c.total()
	if first.SharedTokens != 0 || first.Arms[0].CallsPerItem*float64(len(items)) != float64(calls) {
		t.Errorf("persuasion alone: %d shared tokens, %v calls an item; %d asked", first.SharedTokens, first.Arms[0].CallsPerItem, calls)
	}
	both, err := eval.Evaluate(ctx, c, st, items, eval.Config{Arms: []string{eval.ArmPersuasion, eval.ArmClaimStrength}, Model: "stub", Stub: true})
	if err != nil {
		t.Fatal(err)
	}
	if n := c.total() - calls; n != 0 {
		t.Errorf("the claimstrength arm asked %d calls; the dialogues were stored", n)
	}
	if both.Tokens != first.Tokens || both.SharedTokens != first.Tokens {
		t.Errorf("both arms: the run's %d tokens, %d shared; want the dialogues' %d each", both.Tokens, both.SharedTokens, first.Tokens)
	}
	if n := countFormat(t, st, persuasion.FormatName); n != len(items) {
		t.Errorf("%d persuasion dialogues stored, want %d", n, len(items))
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
