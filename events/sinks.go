package events

import (
	"context"
	"log/slog"
	"unicode/utf8"

	"github.com/duelogic/duelogic/engine"
)

// FanOut returns a sink that gives every event to each of sinks in order
// (nil sinks are skipped). A sink that panics does not keep the event from
// the sinks after it: the first panic is raised again once all have been
// called, for the engine to recover and log.
func FanOut(sinks ...engine.EventSink) engine.EventSink {
	var ss []engine.EventSink
	for _, s := range sinks {
		if s != nil {
			ss = append(ss, s)
		}
	}
	return fanOut(ss)
}

type fanOut []engine.EventSink

func (f fanOut) Emit(ctx context.Context, e engine.Event) {
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
// argument moves applied and rejected, the podcast interruption's parties,
// reason and urgency, or the debate's format and tokens (and, for a podcast
// debate, its metrics). Token events are logged at [slog.LevelDebug], when
// the logger is enabled for it, with the delta's length; a nil logger logs
// nothing. An event's Data is decoded only when the event is logged.
func Slog(logger *slog.Logger, level slog.Level) engine.EventSink {
	if logger == nil {
		logger = slog.New(slog.DiscardHandler)
	}
	return slogSink{l: logger, level: level}
}

type slogSink struct {
	l     *slog.Logger
	level slog.Level
}

func (s slogSink) Emit(ctx context.Context, e engine.Event) {
	level := s.level
	if e.Type == engine.EventToken {
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
	case engine.EventToken:
		attrs = append(attrs, slog.Int("bytes", len(e.Delta)))
	case engine.EventUtterance:
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
	case engine.EventArgumentMap:
		if m, err := engine.DataAs[engine.MovesUpdate](e); err == nil {
			attrs = append(attrs, slog.Int64("utterance", m.UtteranceSeq), slog.Int("applied", len(m.Applied)),
				slog.Int("illegal", len(m.Illegal)))
			if m.Error != "" {
				attrs = append(attrs, slog.String("error", m.Error))
			}
		}
	case engine.EventDebateEnded:
		if r, err := engine.DataAs[engine.Ended](e); err == nil {
			attrs = append(attrs, slog.String("format", r.Format), slog.Int("prompt_tokens", r.Usage.PromptTokens),
				slog.Int("completion_tokens", r.Usage.CompletionTokens))
			if v := r.Verdict; v != nil {
				attrs = append(attrs, slog.String("verdict", v.Summary))
				if v.Winner != "" {
					attrs = append(attrs, slog.String("winner", v.Winner))
				}
			}
		}
	default:
		// A format's own event: its data as JSON, clipped.
		if len(e.Data) > 0 {
			attrs = append(attrs, slog.String("data", clip(string(e.Data), maxLoggedData)))
		}
	}
	s.l.LogAttrs(ctx, level, "duelogic event", attrs...)
}

// maxLoggedData bounds the bytes of a format event's data the slog sink
// logs.
const maxLoggedData = 512

// clip cuts s to at most n bytes, at a rune boundary, marking the cut.
func clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n] + "…"
}
