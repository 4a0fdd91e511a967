package render

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/duelogic/duelogic"
)

func script() []duelogic.Event {
	return []duelogic.Event{
		{Type: duelogic.EventDebateStarted, DebateID: "d1", Seq: 1},
		{Type: duelogic.EventSegmentStarted, Seq: 2, Segment: duelogic.SegmentExchange},
		{Type: duelogic.EventToken, Speaker: "chair_1", Delta: "Hello"},
		{Type: duelogic.EventToken, Speaker: "chair_1", Delta: " there."},
		{Type: duelogic.EventUtterance, Seq: 3, Speaker: "chair_1", Utterance: &duelogic.Utterance{
			Speaker: "chair_1", Kind: duelogic.KindResponse, Exchange: 2, Content: "Hello there."}},
		{Type: duelogic.EventEvaluation, Seq: 4, Speaker: "chair_1", Evaluation: &duelogic.ResponseEvaluation{
			AdherenceScore: 80, SteelManning: duelogic.MandateCheck{Quality: "strong"},
			SelfCritique: duelogic.MandateCheck{Quality: "weak"}, IntellectualHonesty: duelogic.IntellectualHonesty{Score: "high"}}},
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
			"  • verdict · ARBITER\n" +
			"\n▶ PROMOTER (opening statement)\nWe affirm.\n" +
			"  • round scored · PERFORMANCE ADVOCATE\n"},
		{"terminal", Options{Color: true, Progress: true, Now: clock}, "debate d1\n" +
			"\x1b[2m⏳ 0 tokens · 0:00\x1b[0m\r\x1b[2K" +
			"\n\x1b[1m══════ EXCHANGE ══════\x1b[0m\n" +
			"\x1b[2m⏳ exchange · 0 tokens · 0:00\x1b[0m\r\x1b[2K" +
			"\n\x1b[1m\x1b[36m▶ CLAUDE SONNET 4 · Utilitarian Chair\x1b[0m\nHello there.\n" +
			"\x1b[2m⏳ exchange · exchange 2/8 · 2 tokens · 0:07\x1b[0m\r\x1b[2K" +
			"\x1b[2m  ✓ evaluation: adherence 80 · steel-man strong · self-critique weak · honesty high\x1b[0m\n" +
			"\x1b[2m⏳ exchange · exchange 2/8 · 2 tokens · 0:07\x1b[0m\r\x1b[2K" +
			"\x1b[2m  • verdict · ARBITER\x1b[0m\n" +
			"\x1b[2m⏳ exchange · exchange 2/8 · 2 tokens · 0:07\x1b[0m\r\x1b[2K" +
			"\n\x1b[1m▶ PROMOTER (opening statement)\x1b[0m\nWe affirm.\n" +
			"\x1b[2m⏳ exchange · exchange 2/8 · 2 tokens · 0:07\x1b[0m\r\x1b[2K" +
			"\x1b[2m  • round scored · PERFORMANCE ADVOCATE\x1b[0m\n" +
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
	want := "\n══════ OPENING ══════\n⏳ opening · 0 tokens · 0:00\r\x1b[2K⏳ opening · 0 tokens · 1:05\r\x1b[2Kbye\n"
	if diff := cmp.Diff(want, b.String()); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
}

// TestMetricsNotMeasured: with no response evaluated (relaxed
// accountability, or every evaluation unreadable) the rates are "not
// measured", not a missed 0%.
func TestMetricsNotMeasured(t *testing.T) {
	tests := []struct {
		name      string
		m         duelogic.Metrics
		want, not string
	}{
		{"none evaluated", duelogic.Metrics{Responses: 6}, "not measured (no response was evaluated)", "steel-manning 0%"},
		{"evaluated", duelogic.Metrics{Responses: 6, Evaluated: 6, SteelManningRate: 0.5}, "steel-manning 50% (target >80%: missed)", "not measured"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var b strings.Builder
			New(&b, duelogic.DefaultConfig(), Options{}).Metrics(&duelogic.Result{Metrics: tt.m})
			if !strings.Contains(b.String(), tt.want) || strings.Contains(b.String(), tt.not) {
				t.Errorf("metrics say:\n%s\nwant %q and not %q", b.String(), tt.want, tt.not)
			}
		})
	}
}
