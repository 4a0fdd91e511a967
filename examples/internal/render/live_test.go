package render

import (
	"context"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/duelogic/duelogic"
	"github.com/duelogic/duelogic/engine"
)

func tok(speaker, delta string) engine.Event {
	return engine.Event{Type: engine.EventToken, Speaker: speaker, Delta: delta}
}

func utt(speaker, content string) engine.Event {
	return engine.Event{Type: engine.EventUtterance, Speaker: speaker, Utterance: &engine.Utterance{Speaker: speaker, Content: content}}
}

// TestOneSpeechAtATime: two speeches generated at once stream their tokens
// interleaved; the printer prints one of them live and the other whole
// with its utterance, never a speech's words inside another's, and the
// events that come while a speech is printed live follow it.
func TestOneSpeechAtATime(t *testing.T) {
	tests := []struct {
		name   string
		live   func(*engine.Utterance) bool
		events []engine.Event
		want   string
	}{
		{"interleaved, recorded in the order they streamed", nil, []engine.Event{
			tok("advocate", "We should. "), tok("challenger", "We should "), tok("advocate", "It pays. "),
			tok("challenger", "not. It costs. "), tok("advocate", "Really."),
			utt("advocate", "We should. It pays. Really."), utt("challenger", "We should not. It costs."),
		}, "\n▶ ADVOCATE\nWe should. It pays. Really.\n\n▶ CHALLENGER\nWe should not. It costs.\n"},
		{"the held speech recorded first waits for the live one", nil, []engine.Event{
			tok("advocate", "We should. "), tok("challenger", "No. "), tok("advocate", "It pays."),
			utt("challenger", "No."), {Type: "verdict", Speaker: "arbiter"}, utt("advocate", "We should. It pays."),
			tok("arbiter", "Advocate wins."), utt("arbiter", "Advocate wins."),
		}, "\n▶ ADVOCATE\nWe should. It pays.\n\n▶ CHALLENGER\nNo.\n\n▶ ARBITER\nAdvocate wins.\n"},
		{"a speaker's next speech after its held one is live again", nil, []engine.Event{
			tok("a", "One. "), tok("b", "Two. "), utt("a", "One."), utt("b", "Two."),
			tok("b", "Three. Four."), utt("b", "Three. Four."),
		}, "\n▶ A\nOne.\n\n▶ B\nTwo.\n\n▶ B\nThree. Four.\n"},
		{"a format that refuses live speeches", func(*engine.Utterance) bool { return false }, []engine.Event{
			tok("advocate", "We should. "), tok("challenger", "No. "), tok("advocate", "It pays."),
			utt("challenger", "No."), utt("advocate", "We should. It pays."),
		}, "\n▶ CHALLENGER\nNo.\n\n▶ ADVOCATE\nWe should. It pays.\n"},
		{"refused after an opening only", func(after *engine.Utterance) bool { return after == nil || after.Kind != "opening" }, []engine.Event{
			{Type: engine.EventUtterance, Speaker: "moderator", Utterance: &engine.Utterance{Speaker: "moderator", Kind: "opening", Content: "Round 1."}},
			tok("b", "Bee. "), tok("a", "Ay. "),
			utt("a", "Ay."), utt("b", "Bee."),
			tok("a", "Rebut"), tok("a", "tal. Done"), utt("a", "Rebuttal. Done."),
		}, "\n▶ MODERATOR\nRound 1.\n\n▶ A\nAy.\n\n▶ B\nBee.\n\n▶ A\nRebuttal. Done.\n"},
		{"the debate ends inside a live speech", nil, []engine.Event{
			tok("a", "One. Two "), tok("b", "Other."), utt("b", "Other."), {Type: engine.EventDebateEnded},
		}, "\n▶ A\nOne …\n\n▶ B\nOther.\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var b strings.Builder
			r := New(&b, duelogic.Config{}, Options{})
			r.SetLive(tt.live)
			for _, e := range tt.events {
				r.Emit(context.Background(), e)
			}
			if diff := cmp.Diff(tt.want, b.String()); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}

// TestLiveSpeechBySentence: a live speech is printed a sentence at a time,
// without the mark that ends it until the next sentence begins, so that a
// speaker cut off at the end of a sentence shows exactly the utterance
// that stands; when the speaker had gone on past the cut, the printed text
// stays and a line says where the cut fell.
func TestLiveSpeechBySentence(t *testing.T) {
	cut := func(content string) engine.Event {
		return engine.Event{Type: engine.EventUtterance, Speaker: "a", Utterance: &engine.Utterance{
			Speaker: "a", Content: content, Cut: true, Interrupted: true, InterruptedBy: "b"}}
	}
	tests := []struct {
		name   string
		deltas []string
		after  []string // printed after each delta
		end    engine.Event
		want   string
	}{
		{"whole", []string{"  First one", ". Second", " one! \"Third", ".\" Last"},
			[]string{"", "", "First one", "First one. Second one", "First one. Second one! \"Third"},
			utt("a", "First one. Second one! \"Third.\" Last"), "First one. Second one! \"Third.\" Last\n"},
		{"not a boundary", []string{"Use e.g. this", " or that. Then"},
			[]string{"", "", "Use e.g. this or that"},
			utt("a", "Use e.g. this or that. Then."), "Use e.g. this or that. Then.\n"},
		{"cut where the printing stopped", []string{"They are made. That, for me, is"},
			[]string{"", "They are made"},
			cut("They are made—"), "They are made—\n  ✂ cut off by B\n"},
		{"cut before what was printed", []string{"One. Two. Three. Four"},
			[]string{"", "One. Two. Three"},
			cut("One. Two—"), "One. Two. Three\n  ✂ cut at: One. Two— (what was streamed past it was taken back)\n  ✂ cut off by B\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var b strings.Builder
			r := New(&b, duelogic.Config{}, Options{})
			const head = "\n▶ A\n"
			for i, d := range tt.deltas {
				r.Emit(context.Background(), tok("a", d))
				if got := strings.TrimPrefix(b.String(), head); got != tt.after[i+1] {
					t.Errorf("after %q printed %q, want %q", d, got, tt.after[i+1])
				}
			}
			r.Emit(context.Background(), tt.end)
			if diff := cmp.Diff(head+tt.want, b.String()); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}

// TestLongRunWithoutASentenceEnd: a run longer than maxHeld with no
// sentence end is printed up to its last space.
func TestLongRunWithoutASentenceEnd(t *testing.T) {
	var b strings.Builder
	r := New(&b, duelogic.Config{}, Options{})
	r.Emit(context.Background(), tok("a", strings.Repeat("word ", maxHeld/5+10)+"tail"))
	if got := strings.TrimPrefix(b.String(), "\n▶ A\n"); !strings.HasSuffix(got, " word") || strings.Contains(got, "tail") || len(got) < maxHeld {
		t.Errorf("printed %d bytes %q...", len(got), got[:min(len(got), 20)])
	}
}
