package scored

import (
	"encoding/json"
	"testing"

	"github.com/duelogic/duelogic/engine/enginetest"
	"github.com/duelogic/duelogic/llm"
	"github.com/duelogic/duelogic/llm/llmtest"
)

func TestSchemasAreStrict(t *testing.T) {
	enginetest.StrictSchema(t, PurposeVerdict, json.RawMessage(verdictSchema))
}

// An argument cut at its token cap is kept, marked truncated.
func TestTruncatedArgumentIsMarked(t *testing.T) {
	f := llmtest.New()
	f.OnPurpose(PurposeArgument).Respond(llm.Response{Content: words(60), FinishReason: llm.FinishLength}, llm.Response{Content: words(60)})
	f.OnPurpose(PurposeRebuttal).Reply(words(45))
	f.OnPurpose(PurposeVerdict).Reply(validVerdict)
	res, err := run(t, f, oneCategory())
	if err != nil {
		t.Fatal(err)
	}
	cut := 0
	for _, u := range res.Transcript {
		if u.Truncated {
			cut++
			if u.Kind != KindArgument {
				t.Errorf("a %s is marked truncated", u.Kind)
			}
		}
	}
	if cut != 1 {
		t.Errorf("%d utterances marked truncated, want 1", cut)
	}
	for _, req := range f.Requests() {
		want := map[string]int{PurposeArgument: MaxTokensArgument, PurposeRebuttal: MaxTokensArgument, PurposeVerdict: MaxTokensVerdict}[req.Purpose]
		if req.MaxTokens != want {
			t.Errorf("%s request MaxTokens %d, want %d", req.Purpose, req.MaxTokens, want)
		}
	}
}
