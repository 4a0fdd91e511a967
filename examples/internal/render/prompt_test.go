package render

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/duelogic/duelogic"
	"github.com/duelogic/duelogic/engine"
)

// TestPromptIsWhole: from the first Prompt until Answered the events that
// come wait, and are printed after the answer in the order they came; a
// live speech under way goes on after it, under its speaker's name again.
func TestPromptIsWhole(t *testing.T) {
	note := engine.Event{Type: "moderated_approval", Speaker: "human"}
	tests := []struct {
		name                  string
		before, during, after []engine.Event
		want                  string
	}{
		{"events wait for the answer", []engine.Event{utt("a", "Said.")}, []engine.Event{note, utt("b", "Next.")}, nil,
			"\n▶ A\nSaid.\n\nQuestion?\n> yes\n\n▶ B\nNext.\n"},
		{"a live speech goes on after it", []engine.Event{tok("a", "One. Two")}, []engine.Event{tok("a", ". Three."), tok("b", "Other.")},
			[]engine.Event{utt("a", "One. Two. Three."), utt("b", "Other.")},
			"\n▶ A\nOne\n\nQuestion?\n> yes\n\n▶ A (continued)\n. Two. Three.\n\n▶ B\nOther.\n"},
		{"a speech begun meanwhile is printed whole", nil, []engine.Event{tok("b", "Other. Words.")}, []engine.Event{utt("b", "Other. Words.")},
			"\nQuestion?\n> yes\n\n▶ B\nOther. Words.\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var b strings.Builder
			r := New(&b, duelogic.Config{}, Options{})
			ctx := context.Background()
			for _, e := range tt.before {
				r.Emit(ctx, e)
			}
			r.Prompt("\nQuestion?\n> ")
			for _, e := range tt.during {
				r.Emit(ctx, e)
			}
			r.Prompt("yes\n")
			r.Answered()
			r.Answered() // again: nothing
			for _, e := range tt.after {
				r.Emit(ctx, e)
			}
			if diff := cmp.Diff(tt.want, b.String()); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}

// TestPromptWithProgress: the status line is cleared for a prompt and not
// drawn inside it, even by a tick.
func TestPromptWithProgress(t *testing.T) {
	now := time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)
	var b strings.Builder
	r := New(&b, duelogic.Config{}, Options{Progress: true, Now: func() time.Time { return now }})
	r.Emit(context.Background(), engine.Event{Type: engine.EventDebateStarted, DebateID: "d1"})
	r.Prompt("Q? ")
	r.Tick()
	r.Emit(context.Background(), utt("arbiter", "Verdict."))
	r.Prompt("yes\n")
	r.Answered()
	want := "debate d1\n⏳ 0 tokens · 0:00\r\x1b[2KQ? yes\n\n▶ ARBITER\nVerdict.\n⏳ 0 tokens · 0:00"
	if diff := cmp.Diff(want, b.String()); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
}

// TestAwait: Await returns once an event it matches is printed, before or
// after the call; not for one that waits behind a live speech; false when
// the limit passes or ctx is done first.
func TestAwait(t *testing.T) {
	ctx := context.Background()
	var b strings.Builder
	r := New(&b, duelogic.Config{}, Options{})
	isVerdict := func(e engine.Event) bool { return e.Type == "verdict" }
	r.Emit(ctx, engine.Event{Type: "verdict", Speaker: "arbiter"})
	if !r.Await(ctx, isVerdict, time.Hour) {
		t.Error("an event printed before the call: Await = false")
	}
	isScore := func(e engine.Event) bool { return e.Type == "score" }
	r.Emit(ctx, tok("a", "Live. Speech"))
	r.Emit(ctx, engine.Event{Type: "score"}) // waits for the live speech
	if r.Await(ctx, isScore, 0) {
		t.Error("an event not yet printed: Await = true")
	}
	done := make(chan bool)
	go func() { done <- r.Await(ctx, isScore, time.Hour) }()
	r.Emit(ctx, utt("a", "Live. Speech."))
	if !<-done {
		t.Error("an event printed while waiting: Await = false")
	}
	cancelled, cancel := context.WithCancel(ctx)
	cancel()
	if r.Await(cancelled, func(engine.Event) bool { return false }, time.Hour) {
		t.Error("Await = true with ctx done")
	}
}

// TestSettledHoldsCuttableSpeeches: with Settled, a podcast chair's
// response in the exchange, which another may cut off while it streams,
// is printed whole with its utterance; without interruptions, or out of
// the exchange, a speech is printed live.
func TestSettledHoldsCuttableSpeeches(t *testing.T) {
	cfg := duelogic.DefaultConfig()
	chair := cfg.Chairs[0].Position
	stream := func(seg duelogic.Segment) engine.Event {
		return engine.Event{Type: engine.EventToken, Speaker: chair, Segment: seg, Delta: "One. Two. Three"}
	}
	off := cfg
	off.Interruptions.Enabled = false
	tests := []struct {
		name string
		cfg  duelogic.Config
		seg  duelogic.Segment
		live bool
	}{
		{"a chair's response in the exchange", cfg, duelogic.SegmentExchange, false},
		{"without interruptions", off, duelogic.SegmentExchange, true},
		{"the opening", cfg, duelogic.SegmentOpening, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var b strings.Builder
			r := New(&b, tt.cfg, Options{Settled: true})
			r.Emit(context.Background(), stream(tt.seg))
			if live := b.Len() > 0; live != tt.live {
				t.Errorf("printed live %t, want %t: %q", live, tt.live, b.String())
			}
		})
	}
}

// TestNoControlCharactersReachTheOutput: what models, people and stores
// say is printed with its control characters neutralised.
func TestNoControlCharactersReachTheOutput(t *testing.T) {
	const evil = "Q?\x1b[2J\x1b]0;PWNED\x07\u009b31m"
	var b strings.Builder
	r := New(&b, duelogic.Config{}, Options{})
	ctx := context.Background()
	for _, e := range []engine.Event{
		{Type: engine.EventDebateStarted, DebateID: "d1"},
		tok("a", evil+". Next. "),
		utt("a", evil+". Next. More"+evil),
		{Type: engine.EventUtterance, Speaker: evil, Utterance: &engine.Utterance{Speaker: evil, Content: evil, Kind: engine.KindInterruption, Reason: evil}},
		{Type: duelogic.EventEvaluation, Speaker: "a", Data: mustJSON(t, &engine.ResponseEvaluation{RequiresInterjection: true, InterjectionReason: evil})},
		{Type: engine.EventType(evil), Speaker: evil},
		{Type: "formal_note", Speaker: "b", Utterance: &engine.Utterance{Kind: engine.UtteranceKind(evil), Content: evil}},
	} {
		r.Emit(ctx, e)
	}
	r.Println(evil)
	r.Prompt(evil)
	r.Answered()
	out := b.String()
	if strings.ContainsFunc(out, unsafe) || !strings.Contains(out, "Q?␛[2J␛]0;PWNED␇") {
		t.Errorf("output:\n%q", out)
	}
}

// mustJSON is v as JSON, for an event's Data.
func mustJSON(t *testing.T, v any) json.RawMessage {
	t.Helper()
	raw, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return raw
}
