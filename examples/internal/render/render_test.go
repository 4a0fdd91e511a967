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
	"github.com/duelogic/duelogic/llm"
)

func script() []duelogic.Event {
	return []duelogic.Event{
		{Type: duelogic.EventDebateStarted, DebateID: "d1", Seq: 1},
		{Type: duelogic.EventSegmentStarted, Seq: 2, Segment: duelogic.SegmentExchange},
		{Type: duelogic.EventToken, Speaker: "chair_1", Delta: "Hello"},
		{Type: duelogic.EventToken, Speaker: "chair_1", Delta: " there."},
		{Type: duelogic.EventUtterance, Seq: 3, Speaker: "chair_1", Utterance: &duelogic.Utterance{
			Speaker: "chair_1", Kind: duelogic.KindResponse, Exchange: 2, Content: "Hello there."}},
		{Type: duelogic.EventEvaluation, Seq: 4, Speaker: "chair_1", Data: json.RawMessage(`{"adherenceScore": 80,
			"steelManning": {"quality": "strong"}, "selfCritique": {"quality": "weak"}, "intellectualHonesty": {"score": "high"}}`)},
		{Type: "verdict", Seq: 5, Speaker: "arbiter"},
		{Type: "formal_note", Seq: 6, Speaker: "promoter", Utterance: &duelogic.Utterance{Kind: "opening_statement", Content: "We affirm."}},
		{Type: "round_scored", Seq: 7, Speaker: "performance_advocate"},
	}
}

func TestRender(t *testing.T) {
	now := time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)
	clock := func() time.Time { return now }
	tests := []struct {
		name string
		opt  Options
		want string
	}{
		{"plain", Options{}, "debate d1\n" +
			"\n══════ EXCHANGE ══════\n" +
			"\n▶ CLAUDE SONNET 4 · Utilitarian Chair\nHello there.\n" +
			"  ✓ evaluation: adherence 80 · steel-man strong · self-critique weak · honesty high\n" +
			"\n▶ PROMOTER (opening statement)\nWe affirm.\n"},
		{"terminal", Options{Color: true, Progress: true, Now: clock}, "debate d1\n" +
			"\x1b[2m⏳ 0 tokens · 0:00\x1b[0m\r\x1b[2K" +
			"\x1b[2m⏳ exchange · 0 tokens · 0:00\x1b[0m\r\x1b[2K" +
			"\n\x1b[1m══════ EXCHANGE ══════\x1b[0m\n" +
			"\n\x1b[1m\x1b[36m▶ CLAUDE SONNET 4 · Utilitarian Chair\x1b[0m\nHello there.\n" +
			"\x1b[2m⏳ exchange · exchange 2/8 · 2 tokens · 0:07\x1b[0m\r\x1b[2K" +
			"\x1b[2m  ✓ evaluation: adherence 80 · steel-man strong · self-critique weak · honesty high\x1b[0m\n" +
			"\x1b[2m⏳ exchange · exchange 2/8 · 2 tokens · 0:07\x1b[0m\r\x1b[2K" +
			"\x1b[2m⏳ exchange · exchange 2/8 · 2 tokens · 0:07\x1b[0m\r\x1b[2K" +
			"\n\x1b[1m▶ PROMOTER (opening statement)\x1b[0m\nWe affirm.\n" +
			"\x1b[2m⏳ exchange · exchange 2/8 · 2 tokens · 0:07\x1b[0m\r\x1b[2K" +
			"\x1b[2m⏳ exchange · exchange 2/8 · 2 tokens · 0:07\x1b[0m"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			now = time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)
			var b strings.Builder
			r := New(&b, duelogic.DefaultConfig(), tt.opt)
			for i, e := range script() {
				if i == 4 {
					now = now.Add(7 * time.Second)
				}
				r.Emit(context.Background(), e)
			}
			if diff := cmp.Diff(tt.want, b.String()); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
			if got := r.DebateID(); got != "d1" {
				t.Errorf("DebateID = %q", got)
			}
		})
	}
}

func TestTickAndClear(t *testing.T) {
	now := time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)
	var b strings.Builder
	r := New(&b, duelogic.DefaultConfig(), Options{Progress: true, Now: func() time.Time { return now }})
	r.Tick() // no status line yet: nothing
	r.Emit(context.Background(), duelogic.Event{Type: duelogic.EventSegmentStarted, Segment: "opening"})
	now = now.Add(65 * time.Second)
	r.Tick()
	r.Clear()
	r.Println("bye")
	want := "⏳ opening · 0 tokens · 0:00\r\x1b[2K⏳ opening · 0 tokens · 1:05\r\x1b[2Kbye\n"
	if diff := cmp.Diff(want, b.String()); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
}

// TestMetricsAgainstTheSeedsTargets: seed 000's success metrics are
//
//   - Steel-manning attempts in >80% of critique responses
//   - Self-critique present in >70% of substantive responses
//
// The metrics show each rate over its own denominator against its target;
// a rate with nothing to count (nothing evaluated under relaxed
// accountability, or no response that critiqued an opponent) is "not
// measured", not a missed 0%. The spoken length is shown beside the
// target duration: on target (within 20%), missed, or out of the reach of
// the bounds pacing works within.
func TestMetricsAgainstTheSeedsTargets(t *testing.T) {
	tests := []struct {
		name string
		m    duelogic.Metrics
		want []string
		not  []string
	}{
		{"none evaluated", duelogic.Metrics{Responses: 6},
			[]string{"steel-manning, self-critique, adherence: not measured (no response was evaluated)\n"},
			[]string{"steel-manning 0%", "self-critique 0%"}},
		{"both measured", duelogic.Metrics{Responses: 6, Evaluated: 6, CritiqueResponses: 5, SubstantiveResponses: 6,
			SteelManningRate: 0.8, SelfCritiqueRate: 5.0 / 6, MeetsSelfCritique: true},
			[]string{"steel-manning 80% of 5 critique responses (target >80%: missed)\n",
				"self-critique 83% of 6 substantive responses (target >70%: met)\n"},
			[]string{"not measured"}},
		{"no critique response", duelogic.Metrics{Responses: 6, Evaluated: 6, SubstantiveResponses: 6, SelfCritiqueRate: 1, MeetsSelfCritique: true},
			[]string{"steel-manning: not measured (no response critiqued an opponent; target >80% of critique responses)\n",
				"self-critique 100% of 6 substantive responses (target >70%: met)\n"},
			[]string{"steel-manning 0%"}},
		{"no substantive response", duelogic.Metrics{Responses: 2, Evaluated: 2, CritiqueResponses: 2, SteelManningRate: 1, MeetsSteelManning: true},
			[]string{"steel-manning 100% of 2 critique responses (target >80%: met)\n",
				"self-critique: not measured (no substantive response; target >70% of substantive responses)\n"},
			[]string{"self-critique 0%"}},
		{"spoken length, on target", duelogic.Metrics{Words: 4755, SpokenMinutes: 31.7, TargetMinutes: 30, OnTarget: true, MinMinutes: 13, MaxMinutes: 46},
			[]string{"length 4755 words, about 31.7 spoken minutes at 150 words a minute (target 30: on target, within 20%)\n"}, nil},
		{"spoken length, target out of reach", duelogic.Metrics{Words: 4755, SpokenMinutes: 31.7, TargetMinutes: 10, MinMinutes: 13.1, MaxMinutes: 46},
			[]string{"length 4755 words, about 31.7 spoken minutes at 150 words a minute (target 10: out of reach, the bounds allow 13.1-46.0 minutes)\n"}, nil},
		{"spoken length, target missed", duelogic.Metrics{Words: 4755, SpokenMinutes: 31.7, TargetMinutes: 45, MinMinutes: 13.1, MaxMinutes: 46},
			[]string{"length 4755 words, about 31.7 spoken minutes at 150 words a minute (target 45: missed by more than 20%)\n"}, nil},
		{"no target", duelogic.Metrics{Words: 300, SpokenMinutes: 2},
			[]string{"length 300 words, about 2.0 spoken minutes at 150 words a minute\n"}, []string{"target 0"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var b strings.Builder
			New(&b, duelogic.DefaultConfig(), Options{}).Metrics(tt.m, llm.Usage{})
			for _, w := range tt.want {
				if !strings.Contains(b.String(), w) {
					t.Errorf("metrics lack %q:\n%s", w, b.String())
				}
			}
			for _, n := range tt.not {
				if strings.Contains(b.String(), n) {
					t.Errorf("metrics say %q:\n%s", n, b.String())
				}
			}
		})
	}
	var b strings.Builder
	New(&b, duelogic.DefaultConfig(), Options{Color: true}).Metrics(duelogic.Metrics{
		Responses: 1, Evaluated: 1, CritiqueResponses: 1, SubstantiveResponses: 1, SteelManningRate: 1, MeetsSteelManning: true}, llm.Usage{})
	if !strings.Contains(b.String(), "(target >80%: \x1b[32mmet\x1b[0m)") || !strings.Contains(b.String(), "(target >70%: \x1b[31mmissed\x1b[0m)") {
		t.Errorf("verdicts not coloured:\n%q", b.String())
	}
}

// TestSegmentHeaderOnlyWithContent: a segment's header is printed above its
// first line, and not at all for a segment that shows nothing (a formal
// debate's report, before the program's OUTCOME).
func TestSegmentHeaderOnlyWithContent(t *testing.T) {
	var b strings.Builder
	r := New(&b, duelogic.Config{}, Options{})
	for _, e := range []duelogic.Event{
		{Type: duelogic.EventSegmentStarted, Segment: "closing"},
		{Type: duelogic.EventUtterance, Speaker: "chair", Utterance: &duelogic.Utterance{Speaker: "chair", Content: "Done."}},
		{Type: duelogic.EventSegmentEnded, Segment: "closing"},
		{Type: duelogic.EventSegmentStarted, Segment: "report"},
		{Type: duelogic.EventSegmentEnded, Segment: "report"},
		{Type: duelogic.EventDebateEnded},
	} {
		r.Emit(context.Background(), e)
	}
	r.Println("\n══════ OUTCOME ══════")
	want := "\n══════ CLOSING ══════\n\n▶ CHAIR\nDone.\n\n══════ OUTCOME ══════\n"
	if diff := cmp.Diff(want, b.String()); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
}

// TestRenderMarksWhatPeopleShouldKnow: a speech cut short at the model's
// length limit says so; an evaluation the arbiter's reply did not give
// (unscored) and a format's bookkeeping events show nothing.
func TestRenderMarksWhatPeopleShouldKnow(t *testing.T) {
	var b strings.Builder
	r := New(&b, duelogic.DefaultConfig(), Options{})
	for _, e := range []duelogic.Event{
		{Type: duelogic.EventUtterance, Seq: 3, Speaker: "chair_1", Utterance: &duelogic.Utterance{
			Speaker: "chair_1", Kind: duelogic.KindResponse, Content: "It was going well until", Truncated: true}},
		{Type: duelogic.EventEvaluation, Seq: 4, Speaker: "chair_1"}, // unscored: no data
		{Type: "persuasion_turn", Seq: 5, Speaker: "pro", Data: json.RawMessage(`{"moves": []}`)},
	} {
		r.Emit(t.Context(), e)
	}
	want := "\n▶ CLAUDE SONNET 4 · Utilitarian Chair\nIt was going well until\n  … cut short: the model stopped at its length limit\n"
	if diff := cmp.Diff(want, b.String()); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
}

// TestTranscriptMarksTruncatedSpeeches: the command's Markdown transcript
// says which speeches the model cut short at its length limit.
func TestTranscriptMarksTruncatedSpeeches(t *testing.T) {
	md := Transcript(Head{ID: "d", Format: "scored"}, []engine.Utterance{
		{Seq: 1, Speaker: "advocate", Segment: "rounds", Kind: "argument", Content: "We should because", Truncated: true},
		{Seq: 2, Speaker: "challenger", Segment: "rounds", Kind: "argument", Content: "No."},
	}, func(s string) string { return s }, "")
	if strings.Count(md, "cut short at the model's length limit") != 1 {
		t.Errorf("the transcript marks %d truncated speeches, want 1:\n%s", strings.Count(md, "cut short"), md)
	}
}
