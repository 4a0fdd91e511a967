package main

import (
	"context"
	"fmt"
	"io"
	"strings"

	"github.com/duelogic/duelogic"
)

// renderer prints a debate's events as a readable live transcript.
type renderer struct {
	w        io.Writer
	cfg      duelogic.Config
	debateID string
	speaking string // the speaker whose tokens are being printed
}

func newRenderer(w io.Writer, cfg duelogic.Config) *renderer { return &renderer{w: w, cfg: cfg} }

func (r *renderer) label(speaker string) string {
	if speaker == duelogic.SpeakerArbiter {
		return "ARBITER"
	}
	for _, c := range r.cfg.Chairs {
		if c.Position == speaker {
			info, _ := duelogic.LookupFramework(c.Framework)
			return fmt.Sprintf("%s · %s", strings.ToUpper(c.DisplayName()), info.Name)
		}
	}
	return strings.ToUpper(speaker)
}

func (r *renderer) endLine() {
	if r.speaking != "" {
		fmt.Fprintln(r.w)
		r.speaking = ""
	}
}

// Emit implements duelogic.EventSink.
func (r *renderer) Emit(_ context.Context, e duelogic.Event) {
	switch e.Type {
	case duelogic.EventDebateStarted:
		r.debateID = e.DebateID
		fmt.Fprintf(r.w, "debate %s\n", e.DebateID)
	case duelogic.EventSegmentStarted:
		r.endLine()
		fmt.Fprintf(r.w, "\n══════ %s ══════\n", strings.ToUpper(string(e.Segment)))
	case duelogic.EventToken:
		if r.speaking != e.Speaker {
			r.endLine()
			fmt.Fprintf(r.w, "\n▶ %s\n", r.label(e.Speaker))
			r.speaking = e.Speaker
		}
		fmt.Fprint(r.w, e.Delta)
	case duelogic.EventUtterance:
		u := e.Utterance
		if r.speaking != u.Speaker {
			r.endLine()
			fmt.Fprintf(r.w, "\n▶ %s\n%s", r.label(u.Speaker), u.Content)
		}
		r.endLine()
		switch u.Kind {
		case duelogic.KindInterjection:
			fmt.Fprintf(r.w, "  ⚑ interjection (%s) aimed at %s\n", u.Violation, r.label(u.Target))
		case duelogic.KindInterruption:
			fmt.Fprintf(r.w, "  ↯ interruption (%s)\n", u.Reason)
		}
	case duelogic.EventEvaluation:
		r.endLine()
		if ev := e.Evaluation; ev != nil {
			flag := ""
			if ev.RequiresInterjection {
				flag = "  ⚠ " + ev.InterjectionReason
			}
			fmt.Fprintf(r.w, "  ✓ evaluation: adherence %d · steel-man %s · self-critique %s · honesty %s%s\n",
				ev.AdherenceScore, ev.SteelManning.Quality, ev.SelfCritique.Quality, ev.IntellectualHonesty.Score, flag)
		} else {
			fmt.Fprintln(r.w, "  ✓ evaluation: unscored")
		}
	case duelogic.EventInterruption:
		r.endLine()
		c := e.Interrupt
		fmt.Fprintf(r.w, "\n  ↯ %s cuts in on %s — %s (urgency %.2f): %q\n",
			r.label(c.InterruptingChair.Position), r.label(c.InterruptedChair.Position),
			c.TriggerReason, c.Urgency, c.TriggerContent)
	case duelogic.EventDebateEnded:
		r.endLine()
	}
}

func (r *renderer) metrics(res *duelogic.Result) {
	m := res.Metrics
	check := func(ok bool) string {
		if ok {
			return "met"
		}
		return "missed"
	}
	fmt.Fprintf(r.w, "\n══════ METRICS ══════\n")
	fmt.Fprintf(r.w, "responses %d, evaluated %d\n", m.Responses, m.Evaluated)
	fmt.Fprintf(r.w, "steel-manning %.0f%% (target >%.0f%%: %s)\n", 100*m.SteelManningRate, 100*duelogic.SteelManningTarget, check(m.MeetsSteelManning))
	fmt.Fprintf(r.w, "self-critique %.0f%% (target >%.0f%%: %s)\n", 100*m.SelfCritiqueRate, 100*duelogic.SelfCritiqueTarget, check(m.MeetsSelfCritique))
	fmt.Fprintf(r.w, "mean adherence %.1f, framework consistency %.0f%%\n", m.MeanAdherence, 100*m.FrameworkConsistency)
	fmt.Fprintf(r.w, "interruptions %d, interjections %d\n", m.Interruptions, m.Interjections)
	fmt.Fprintf(r.w, "tokens: %d prompt + %d completion\n", res.Usage.PromptTokens, res.Usage.CompletionTokens)
}
