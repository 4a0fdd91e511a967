package engine

import (
	"context"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/duelogic/duelogic/argumentation"
	"github.com/duelogic/duelogic/llm"
)

var update = flag.Bool("update", false, "rewrite the golden files")

var goldenDebate = Debate{
	ID:          "golden",
	Proposition: "Major AI labs should voluntarily pause development of frontier models for two years.",
	Context:     "Several labs have published safety frameworks this year.",
}

// TestArgumentExtractionPrompt: the extraction prompt, as a golden file.
func TestArgumentExtractionPrompt(t *testing.T) {
	msgs := ArgumentExtractionPrompt(goldenDebate, "chair_2", "Grok 3 (Virtue Ethics Chair)", []argumentation.Move{
		{ID: "M1", Speaker: "chair_1", Act: argumentation.Claim, Proposition: "A pause saves lives"},
		{ID: "M2", Speaker: "chair_1", Act: argumentation.Since, Proposition: "A pause saves lives", Reasons: []string{"Risks compound", "Governance lags"}},
	}, "Wisdom is not a spreadsheet. Why do risks compound?")
	got := "=== system ===\n" + msgs[0].Content + "\n=== user ===\n" + msgs[1].Content + "\n"
	path := filepath.Join("testdata", "argument_extraction.golden")
	if *update {
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(string(want), got); diff != "" {
		t.Errorf("%s mismatch (-want +got):\n%s", path, diff)
	}
}

// TestStubExtractsMoves: the offline stub answers an extraction with
// moves of the requested shape; a speaker's first turn claims a position
// and argues for it.
func TestStubExtractsMoves(t *testing.T) {
	req := llm.Request{Purpose: PurposeArgumentExtraction, JSON: true,
		Messages: ArgumentExtractionPrompt(goldenDebate, "chair_2", "chair_2", nil, "Wisdom is not a spreadsheet at all. Character decides what the numbers mean here.")}
	for seed := range int64(10) {
		resp, err := llm.NewStub(seed).Complete(context.Background(), req)
		if err != nil {
			t.Fatal(err)
		}
		var out struct {
			Moves []struct {
				Act         string   `json:"act"`
				Proposition string   `json:"proposition"`
				Reasons     []string `json:"reasons"`
				Target      *string  `json:"target"`
				Attack      string   `json:"attack"`
			} `json:"moves"`
		}
		dec := json.NewDecoder(strings.NewReader(resp.Content))
		dec.DisallowUnknownFields()
		if err := dec.Decode(&out); err != nil {
			t.Fatalf("seed %d: %v in %s", seed, err, resp.Content)
		}
		if len(out.Moves) < 2 || out.Moves[0].Act != "claim" || out.Moves[1].Act != "since" || out.Moves[0].Proposition != "Wisdom is not a spreadsheet at all" {
			t.Errorf("seed %d: moves of a first turn = %+v", seed, out.Moves)
		}
	}
}
