package moderated

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/duelogic/duelogic/engine"
	"github.com/duelogic/duelogic/llm"
)

// TestVerdictAndDocuments: a moderated debate names no winner; its
// verdict's summary is the recommendation with its review, and its
// documents are the decision (always with a Status line) and the
// synthesis — on debates played on the stub and on hand-made outcomes.
func TestVerdictAndDocuments(t *testing.T) {
	played := func(reviews ...engine.Answer) *Outcome {
		t.Helper()
		var eopts []engine.Option
		if len(reviews) > 0 {
			eopts = append(eopts, engine.WithHuman(answers(map[string][]engine.Answer{engine.QuestionApproval: reviews})))
		}
		return mustRun(t, llm.NewStub(3), testConfig(), cachingQuestion, nil, eopts...).Outcome
	}
	stubbed := played()
	rec := cut(oneLine(stubbed.Synthesis.Recommendation), 200)
	if rec == "" {
		t.Fatal("the stub's synthesis has no recommendation")
	}
	rejectedTwice := played(engine.Answer{Choice: ChoiceReject}, engine.Answer{Choice: ChoiceReject, Text: "Still no."})
	revisedApproved := played(engine.Answer{Choice: ChoiceReject, Text: "Too fast."}, engine.Answer{Choice: ChoiceApprove})
	long := &Outcome{Synthesis: Synthesis{Title: "Cache", Recommendation: "Start with PostgreSQL.\n\n" + strings.Repeat("Then measure. ", 30)}}
	tests := []struct {
		name    string
		o       *Outcome
		summary string
		status  string // the decision's Status line
	}{
		{"played, unreviewed", stubbed, "recommendation: " + rec, "**Status:** Unreviewed\n"},
		{"played, approved", played(engine.Answer{Choice: ChoiceApprove, Text: "Agreed."}), "recommendation (approved): " + rec, "**Status:** Approved — Agreed.\n"},
		// Rejected, the synthesis is revised; the revision is reviewed.
		{"played, rejected twice", rejectedTwice, "recommendation (rejected): " + cut(oneLine(rejectedTwice.Synthesis.Recommendation), 200), "**Status:** Rejected — Still no.\n"},
		{"played, the revision approved", revisedApproved, "recommendation (approved): " + cut(oneLine(revisedApproved.Synthesis.Recommendation), 200), "**Status:** Approved\n"},
		{"no synthesis", &Outcome{}, "no recommendation", "**Status:** Unreviewed\n"},
		{"a synthesis nobody could read", &Outcome{Synthesis: fallbackSynthesis()}, "no recommendation: the moderator's synthesis could not be read", "**Status:** Unreviewed\n"},
		{"a long recommendation", long, "recommendation: " + cut(oneLine(long.Synthesis.Recommendation), 200), "**Status:** Unreviewed\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if diff := cmp.Diff(engine.Verdict{Summary: tt.summary}, tt.o.Verdict()); diff != "" {
				t.Errorf("verdict (-want +got):\n%s", diff)
			}
			if s := tt.o.Verdict().Summary; strings.Contains(s, "\n") || len([]rune(s)) > 230 {
				t.Errorf("summary is not one short line: %q", s)
			}
			docs := tt.o.Documents()
			var names []string
			for _, d := range docs {
				names = append(names, d.Name+" "+d.Title)
			}
			if diff := cmp.Diff([]string{"decision.md Decision", "synthesis.md Synthesis"}, names); diff != "" {
				t.Fatalf("documents (-want +got):\n%s", diff)
			}
			decision, synthesis := docs[0].Markdown, docs[1].Markdown
			if synthesis != tt.o.Synthesis.Markdown() {
				t.Errorf("synthesis.md is not the synthesis's Markdown")
			}
			if !strings.HasPrefix(decision, "# Decision: ") || !strings.Contains(decision, "\n**Perspectives:** ") {
				t.Errorf("decision.md:\n%s", decision)
			}
			if i := strings.Index(decision, "**Status:**"); i < 0 || decision[i:i+len(tt.status)] != tt.status || strings.Count(decision, "**Status:**") != 1 {
				t.Errorf("decision.md's status; want %q:\n%s", tt.status, decision)
			}
			// The decision is the synthesis with its status said.
			if strings.Replace(decision, "**Status:** Unreviewed\n", "", 1) != synthesis && !strings.Contains(synthesis, "**Status:**") {
				t.Errorf("decision.md is not the synthesis with a status line:\n%s\n---\n%s", decision, synthesis)
			}
		})
	}
}
