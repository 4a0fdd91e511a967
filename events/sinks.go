package events

import (
	"context"
	"log/slog"

	"github.com/duelogic/duelogic"
)

// FanOut returns a sink that gives every event to each of sinks in order
// (nil sinks are skipped). A sink that panics does not keep the event from
// the sinks after it: the first panic is raised again once all have been
// called, for the engine to recover and log.
func FanOut(sinks ...duelogic.EventSink) duelogic.EventSink {
	var ss []duelogic.EventSink
	for _, s := range sinks {
		if s != nil {
			ss = append(ss, s)
		}
	}
	return fanOut(ss)
}

type fanOut []duelogic.EventSink

func (f fanOut) Emit(ctx context.Context, e duelogic.Event) {
	var first any
	for _, s := range f {
		func() {
			defer func() {
				if p := recover(); p != nil && first == nil {
					first = p
				}
			}()
			s.Emit(ctx, e)
		}()
	}
	if first != nil {
		panic(first)
	}
}

// Slog returns a sink that logs each event to logger at level, with the
// message "duelogic event" and attributes saying what happened: the debate,
// type, seq, segment and speaker, then per type the utterance's kind,
// exchange, model and length (not its text), the evaluation's scores, the
// interruption's parties, reason and urgency, or the result's tokens and
// metrics. Token events are logged at [slog.LevelDebug], when the logger is
// enabled for it, with the delta's length; a nil logger logs nothing.
func Slog(logger *slog.Logger, level slog.Level) duelogic.EventSink {
	if logger == nil {
		logger = slog.New(slog.DiscardHandler)
	}
	return slogSink{l: logger, level: level}
}

type slogSink struct {
	l     *slog.Logger
	level slog.Level
}

func (s slogSink) Emit(ctx context.Context, e duelogic.Event) {
	level := s.level
	if e.Type == duelogic.EventToken {
		level = slog.LevelDebug
	}
	if !s.l.Enabled(ctx, level) {
		return
	}
	attrs := []slog.Attr{slog.String("debate", e.DebateID), slog.String("type", string(e.Type))}
	if e.Seq != 0 {
		attrs = append(attrs, slog.Int64("seq", e.Seq))
	}
	if e.Segment != "" {
		attrs = append(attrs, slog.String("segment", string(e.Segment)))
	}
	if e.Speaker != "" {
		attrs = append(attrs, slog.String("speaker", e.Speaker))
	}
	switch e.Type {
	case duelogic.EventToken:
		attrs = append(attrs, slog.Int("bytes", len(e.Delta)))
	case duelogic.EventUtterance:
		if u := e.Utterance; u != nil {
			attrs = append(attrs, slog.String("kind", string(u.Kind)), slog.Int("exchange", u.Exchange),
				slog.String("model", u.Model), slog.Int("chars", len([]rune(u.Content))))
			if u.Target != "" {
				attrs = append(attrs, slog.String("target", u.Target))
			}
			if u.Violation != "" {
				attrs = append(attrs, slog.String("violation", string(u.Violation)))
			}
		}
	case duelogic.EventEvaluation:
		if ev := e.Evaluation; ev != nil {
			attrs = append(attrs, slog.Int("adherence", ev.AdherenceScore),
				slog.String("steel_manning", string(ev.SteelManning.Quality)),
				slog.String("self_critique", string(ev.SelfCritique.Quality)),
				slog.Bool("consistent", ev.FrameworkConsistency.Consistent),
				slog.String("honesty", string(ev.IntellectualHonesty.Score)),
				slog.Bool("requires_interjection", ev.RequiresInterjection))
		} else {
			attrs = append(attrs, slog.Bool("unscored", true))
		}
	case duelogic.EventInterruption:
		if c := e.Interrupt; c != nil {
			attrs = append(attrs, slog.String("interrupted", c.InterruptedChair.Position),
				slog.String("reason", string(c.TriggerReason)), slog.Float64("urgency", c.Urgency))
		}
	case duelogic.EventDebateEnded:
		if r := e.Result; r != nil {
			attrs = append(attrs, slog.Int("prompt_tokens", r.Usage.PromptTokens),
				slog.Int("completion_tokens", r.Usage.CompletionTokens),
				slog.Int("responses", r.Metrics.Responses),
				slog.Int("interruptions", r.Metrics.Interruptions),
				slog.Int("interjections", r.Metrics.Interjections))
		}
	}
	s.l.LogAttrs(ctx, level, "duelogic event", attrs...)
}
