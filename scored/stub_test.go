package scored

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/duelogic/duelogic/llm"
)

func stubAnswer(t *testing.T, seed int64, req llm.Request) string {
	t.Helper()
	resp, err := llm.NewStub(seed).Complete(t.Context(), req)
	if err != nil {
		t.Fatal(err)
	}
	return resp.Content
}

// TestStubReadsThePrompts runs the stub on this package's prompts, so that
// a change to a prompt that the stub no longer reads fails here.
func TestStubReadsThePrompts(t *testing.T) {
	cfg := testConfig()
	cat := DefaultCategories()[0] // "problem": one piece of evidence shown, one challenge
	tests := []struct {
		name  string
		side  Side
		wants []string // each answer has all of these
	}{
		{"advocate", Advocate, []string{"the problem is real and significant", "scheduling"}},
		{"challenger", Challenger, []string{"the problem is overstated or niche", "the founders have not sold software before"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			req := argumentRequest(cfg, testIdea, cat, tt.side, nil)
			thin := 0
			for seed := range int64(40) {
				text := stubAnswer(t, seed, req)
				if text == "The evidence speaks for itself." { // now and then, to be asked again
					thin++
					if again := stubAnswer(t, seed, retryMessages(req, text, "too short")); again == text {
						t.Errorf("seed %d: asked again, the stub gives the same thin reply", seed)
					}
					continue
				}
				for _, w := range tt.wants {
					if !strings.Contains(text, w) {
						t.Errorf("seed %d: the argument lacks %q:\n%s", seed, w, text)
					}
				}
			}
			if thin == 40 {
				t.Error("every argument is thin")
			}
		})
	}
}

func TestStubVerdict(t *testing.T) {
	g := &roundGen{turns: [4]turn{{Content: "For. It works."}, {Content: "Against. It fails."}, {Content: "Still for."}, {Content: "Still against."}}}
	req := verdictRequest(testConfig(), testIdea, DefaultCategories()[0], g)
	invalid := 0
	for seed := range int64(60) {
		for i, r := range []llm.Request{req, retryMessages(req, "{}", "no winner")} {
			var v struct {
				Winner     string   `json:"winner"`
				Reasoning  string   `json:"reasoning"`
				KeyPoints  []string `json:"keyPoints"`
				Confidence float64  `json:"confidence"`
			}
			text := stubAnswer(t, seed, r)
			if err := json.Unmarshal([]byte(text), &v); err != nil {
				t.Fatalf("seed %d: %v: %s", seed, err, text)
			}
			_, perr := ParseVerdict(text)
			valid := perr == nil
			switch {
			case !valid && i == 1:
				t.Errorf("seed %d: asked again, an invalid verdict: %s", seed, text)
			case !valid:
				invalid++
			case !strings.Contains(v.Reasoning, DefaultCategories()[0].Name):
				t.Errorf("seed %d: the reasoning does not name the category: %s", seed, text)
			}
		}
	}
	if invalid == 0 || invalid > 20 {
		t.Errorf("%d of 60 first verdicts invalid, want a few", invalid)
	}
}
