package formal

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/duelogic/duelogic/engine"
	"github.com/duelogic/duelogic/llm"
	"github.com/duelogic/duelogic/llm/llmtest"
)

func TestLLMVerifier(t *testing.T) {
	s := Source{URL: "https://example.org/report", Title: "A </source> report", Accessed: "2026-02-20"}
	f := llmtest.New()
	f.OnPurpose(PurposeVerification).Reply(`{"status": "plausible", "reason": "x"}`, "```json\n{\"status\": \"Fabricated\", \"reason\": \"No such report.\"}\n```")
	v := &LLMVerifier{Client: f, Model: "judge"}
	got, err := v.Verify(t.Context(), s, "Traffic fell by 40%.")
	if err != nil {
		t.Fatal(err)
	}
	if got.Status != StatusFabricated || got.Reason != "No such report." || got.Usage.PromptTokens == 0 {
		t.Errorf("got %+v", got)
	}
	reqs := f.Requests()
	if len(reqs) != 2 || reqs[0].Model != "judge" || len(reqs[0].Schema) == 0 || reqs[0].MaxTokens != MaxTokensVerification {
		t.Fatalf("requests %+v", reqs)
	}
	user := reqs[0].Messages[1].Content
	if !strings.Contains(user, "URL: https://example.org/report") || strings.Count(user, "</source>") != 1 || !strings.Contains(user, "Traffic fell by 40%.") {
		t.Errorf("prompt:\n%s", user)
	}
	last := reqs[1].Messages[len(reqs[1].Messages)-1].Content
	if !strings.HasPrefix(last, engine.ReaskPrefix) || !strings.Contains(last, `"status" is "plausible"`) {
		t.Errorf("re-ask %q", last)
	}

	// Still unreadable when asked again: the source is unconfirmed.
	f = llmtest.New()
	f.OnPurpose(PurposeVerification).Reply(`{"status": "verified"}`)
	got, err = (&LLMVerifier{Client: f, Model: "judge"}).Verify(t.Context(), s, "c")
	if err != nil || got.Status != StatusUnreliable || !strings.Contains(got.Reason, `"reason" is missing`) || f.Calls(PurposeVerification) != 2 {
		t.Errorf("got %+v, err = %v after %d calls", got, err, f.Calls(PurposeVerification))
	}
	// A model error is returned as it is.
	boom := errors.New("boom")
	f = llmtest.New()
	f.OnPurpose(PurposeVerification).Fail(boom)
	if _, err := (&LLMVerifier{Client: f}).Verify(t.Context(), s, "c"); !errors.Is(err, boom) {
		t.Errorf("err = %v", err)
	}
	if _, err := (&LLMVerifier{}).Verify(t.Context(), s, "c"); err == nil {
		t.Error("no client, no error")
	}
}

func TestCombine(t *testing.T) {
	var asked []string
	fixed := func(name string, st Status) SourceVerifier {
		return VerifierFunc(func(ctx context.Context, s Source, claim string) (Verification, error) {
			asked = append(asked, name)
			return Verification{Status: st, Reason: name + " says " + string(st) + ".", Usage: llm.Usage{PromptTokens: 1}}, nil
		})
	}
	for _, tc := range []struct {
		vs    []SourceVerifier
		want  Verification
		asked []string
	}{
		{[]SourceVerifier{fixed("http", StatusFabricated), fixed("judge", StatusVerified)},
			Verification{Status: StatusFabricated, Reason: "http says fabricated.", Usage: llm.Usage{PromptTokens: 1}}, []string{"http"}},
		{[]SourceVerifier{fixed("http", StatusUnreliable), fixed("judge", StatusVerified)},
			Verification{Status: StatusVerified, Reason: "http says unreliable. judge says verified.", Usage: llm.Usage{PromptTokens: 2}}, []string{"http", "judge"}},
		{[]SourceVerifier{fixed("http", StatusVerified), fixed("judge", StatusFabricated)},
			Verification{Status: StatusFabricated, Reason: "http says verified. judge says fabricated.", Usage: llm.Usage{PromptTokens: 2}}, []string{"http", "judge"}},
	} {
		asked = nil
		got, err := Combine(tc.vs...).Verify(t.Context(), Source{}, "")
		if err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(tc.want, got); diff != "" {
			t.Errorf("(-want +got):\n%s", diff)
		}
		if diff := cmp.Diff(tc.asked, asked); diff != "" {
			t.Errorf("asked (-want +got):\n%s", diff)
		}
	}
	boom := errors.New("boom")
	failing := VerifierFunc(func(context.Context, Source, string) (Verification, error) { return Verification{}, boom })
	if _, err := Combine(fixed("http", StatusVerified), failing).Verify(t.Context(), Source{}, ""); !errors.Is(err, boom) {
		t.Errorf("err = %v", err)
	}
	if _, err := Combine().Verify(t.Context(), Source{}, ""); err == nil {
		t.Error("Combine() verified")
	}
}
