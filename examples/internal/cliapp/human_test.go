package cliapp

import (
	"context"
	"errors"
	"io"
	"strings"
	"testing"

	"github.com/duelogic/duelogic/engine"
	"github.com/google/go-cmp/cmp"
)

// prompts keeps what is prompted.
type prompts struct{ strings.Builder }

func (p *prompts) Prompt(text string) { p.WriteString(text) }

// The questions a moderated debate asks, as moderated/human.go words them
// (abridged).
var (
	clarification = engine.Question{Kind: engine.QuestionClarification, Text: "Which options are on the table?\n\nAnswer in text; an empty answer keeps the assumption."}
	checkpoint    = engine.Question{Kind: engine.QuestionCheckpoint, Text: "Round 2 of at most 3 is over.", Choices: []string{"continue", "guide", "end"}}
	approval      = engine.Question{Kind: engine.QuestionApproval, Text: "# Decision\n...", Choices: []string{"skip", "approve", "reject"}}
	workflow      = engine.Question{Kind: engine.QuestionWorkflow, Text: "Would you like me to create a workflow from this decision?", Choices: []string{"yes", "no"}}
)

// TestAskPerson answers each kind of question from input lines: a choice,
// its letter, an empty line (the first choice), an unknown answer (asked
// again), the text that goes with guide and reject, and the end of input,
// which pauses at a checkpoint and takes what nothing else decides
// elsewhere.
func TestAskPerson(t *testing.T) {
	tests := []struct {
		name   string
		q      engine.Question
		in     string
		want   engine.Answer
		paused bool
	}{
		{"checkpoint c", checkpoint, "c\n", engine.Answer{Choice: "continue"}, false},
		{"checkpoint empty", checkpoint, "\n", engine.Answer{Choice: "continue"}, false},
		{"checkpoint E", checkpoint, "E\n", engine.Answer{Choice: "end"}, false},
		{"checkpoint guide", checkpoint, "g\nFocus on our team's PostgreSQL experience\n",
			engine.Answer{Choice: "guide", Text: "Focus on our team's PostgreSQL experience"}, false},
		{"checkpoint guide without guidance", checkpoint, "guide\n\n", engine.Answer{Choice: "continue"}, false},
		{"checkpoint unknown answers", checkpoint, "x\nmaybe\ne\n", engine.Answer{Choice: "end"}, false},
		{"checkpoint end of input", checkpoint, "", engine.Answer{}, true},
		{"checkpoint end of input at guidance", checkpoint, "g\n", engine.Answer{}, true},
		{"checkpoint last line without newline", checkpoint, "continue", engine.Answer{Choice: "continue"}, false},
		{"clarification", clarification, "Redis or PostgreSQL\n", engine.Answer{Text: "Redis or PostgreSQL"}, false},
		{"clarification empty", clarification, "\n", engine.Answer{}, false},
		{"clarification end of input", clarification, "", engine.Answer{}, false},
		{"approve", approval, "a\n", engine.Answer{Choice: "approve"}, false},
		{"reject with a reason", approval, "r\nIt ignores the on-call load\n", engine.Answer{Choice: "reject", Text: "It ignores the on-call load"}, false},
		{"reject at the end of input", approval, "reject\n", engine.Answer{Choice: "reject"}, false},
		{"approval empty", approval, "\n", engine.Answer{Choice: "skip"}, false},
		{"approval end of input", approval, "", engine.Answer{Choice: "skip"}, false},
		{"workflow yes", workflow, "y\n", engine.Answer{Choice: "yes"}, false},
		{"workflow empty", workflow, "\n", engine.Answer{Choice: "yes"}, false},
		{"workflow no", workflow, "NO\n", engine.Answer{Choice: "no"}, false},
		{"workflow end of input", workflow, "", engine.Answer{Choice: "no"}, false},
		{"topic", engine.Question{Kind: engine.QuestionTopic, Text: "What should the debate topic be?"}, "Cars\n", engine.Answer{Text: "Cars"}, false},
		{"topic at the end of input", engine.Question{Kind: engine.QuestionTopic, Text: "What should the debate topic be?"}, "", engine.Answer{}, false},
		{"another kind", engine.Question{Kind: "motion", Text: "What should be debated?"}, "Cars\n", engine.Answer{Text: "Cars"}, false},
		{"another kind at the end of input", engine.Question{Kind: "motion", Text: "What should be debated?"}, "", engine.Answer{}, true},
		{"choices sharing a letter", engine.Question{Kind: "vote", Choices: []string{"stay", "switch"}}, "s\nswitch\n", engine.Answer{Choice: "switch"}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var w prompts
			got, err := askPerson(t.Context(), newLines(strings.NewReader(tt.in)), &w, tt.q)
			if paused := errors.Is(err, engine.ErrPaused); paused != tt.paused || err != nil && !paused {
				t.Fatalf("err %v; want paused %t", err, tt.paused)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("answer (-want +got):\n%s\nprompted:\n%s", diff, w.String())
			}
		})
	}
}

// TestAskPersonShows: a question is its kind as a heading, its text and its
// choices with their letters and the default; the approval's text, the
// synthesis printed just before it, is not printed again.
func TestAskPersonShows(t *testing.T) {
	tests := []struct {
		q    engine.Question
		in   string
		want string
	}{
		{checkpoint, "x\nc\n", "\n═══ Checkpoint ═══\nRound 2 of at most 3 is over.\n" +
			"\n[C]ontinue  [G]uide  [E]nd  (Enter: continue)\n> x\n\"x\": answer c, g or e\n" +
			"\n[C]ontinue  [G]uide  [E]nd  (Enter: continue)\n> c\n"},
		{clarification, "\n", "\n═══ Clarifying question ═══\nWhich options are on the table?\n\nAnswer in text; an empty answer keeps the assumption.\n> \n"},
		{approval, "r\nno\n", "\n═══ Your decision ═══\nApprove or reject the synthesis above, or skip the review.\n" +
			"\n[S]kip  [A]pprove  [R]eject  (Enter: skip)\n> r\nWhy (optional): no\n"},
		{workflow, "", "\n═══ Workflow ═══\nWould you like me to create a workflow from this decision?\n\n[Y]es  [N]o  (Enter: yes)\n> \n"},
		{engine.Question{Kind: "vote", Text: "Which?", Choices: []string{"stay", "switch"}}, "s\n",
			"\n═══ Vote ═══\nWhich?\n\nstay  switch  (Enter: stay)\n> s\n\"s\": answer stay or switch\n\nstay  switch  (Enter: stay)\n> \n"},
	}
	for _, tt := range tests {
		t.Run(tt.q.Kind, func(t *testing.T) {
			var w prompts
			askPerson(t.Context(), newLines(strings.NewReader(tt.in)), &w, tt.q)
			if diff := cmp.Diff(tt.want, w.String()); diff != "" {
				t.Errorf("prompted (-want +got):\n%s", diff)
			}
		})
	}
}

// TestAskPersonHonoursContext: a question whose context ends while it
// waits for input that never comes is not answered, whatever its kind
// (issue 24: the workflow question waited for the end of input): when the
// time the debate gives an answer runs out (the context's cause is
// engine.ErrPaused) the debate pauses there; when the debate is stopped,
// the error is the context's.
func TestAskPersonHonoursContext(t *testing.T) {
	for _, q := range []engine.Question{clarification, checkpoint, approval, workflow, {Kind: "topic", Text: "What should be debated?"}} {
		for _, cause := range []error{engine.ErrPaused, context.Canceled} {
			t.Run(q.Kind+"/"+cause.Error(), func(t *testing.T) {
				pr, pw := io.Pipe() // input that never comes
				defer pw.Close()
				ctx, cancel := context.WithCancelCause(t.Context())
				cancel(cause)
				a, err := askPerson(ctx, newLines(pr), new(prompts), q)
				if !errors.Is(err, cause) || cause != engine.ErrPaused && errors.Is(err, engine.ErrPaused) || a != (engine.Answer{}) {
					t.Errorf("answer %+v, err %v; want no answer and %v", a, err, cause)
				}
			})
		}
	}
}
