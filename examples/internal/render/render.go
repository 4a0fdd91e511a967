// Package render prints a debate's events as a readable live transcript on a
// terminal or into a file: segment headers, speaker labels, streamed text,
// the arbiter's evaluations, interruptions and interjections, and the
// metrics at the end. It is shared by the example programs.
package render

import (
	"context"
	"fmt"
	"io"
	"strings"
	"sync"
	"time"

	"github.com/duelogic/duelogic"
	"github.com/duelogic/duelogic/engine"
	"github.com/duelogic/duelogic/formal"
)

// Options says how to render.
type Options struct {
	// Color adds ANSI colours; only for a terminal.
	Color bool
	// Progress keeps a status line (segment, exchange, tokens, elapsed time)
	// under the transcript while nothing is streaming; only for a terminal.
	Progress bool
	// Now is the clock of the elapsed time; nil: time.Now.
	Now func() time.Time
}

// Renderer is a [duelogic.EventSink] that prints a debate's events. Its
// methods are safe for concurrent use.
type Renderer struct {
	w   io.Writer
	opt Options

	mu         sync.Mutex
	cfg        duelogic.Config
	labels     func(string) string // a format's speaker names (SetLabels), nil for the podcast
	debateID   string
	speaking   string          // the speaker whose tokens are being printed
	streamed   strings.Builder // what speaking has said so far
	segment    duelogic.Segment
	exchange   int
	tokens     int
	start      time.Time
	statusShow bool
}

// New returns a renderer writing to w, naming speakers after cfg's chairs.
func New(w io.Writer, cfg duelogic.Config, opt Options) *Renderer {
	if opt.Now == nil {
		opt.Now = time.Now
	}
	return &Renderer{w: w, cfg: cfg, opt: opt, start: opt.Now()}
}

// SetConfig changes the config the speakers are named after (a resumed
// debate's stored one).
func (r *Renderer) SetConfig(cfg duelogic.Config) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.cfg = cfg
}

// SetLabels names the speakers of a format other than the podcast (its
// engine.Cast Label); the podcast's chairs are named after the config.
func (r *Renderer) SetLabels(label func(speaker string) string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.labels = label
}

// DebateID is the ID of the debate seen starting, or "".
func (r *Renderer) DebateID() string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.debateID
}

// ANSI styles.
const (
	reset  = "\x1b[0m"
	bold   = "\x1b[1m"
	dim    = "\x1b[2m"
	red    = "\x1b[31m"
	yellow = "\x1b[33m"
	cyan   = "\x1b[36m"
	green  = "\x1b[32m"
)

var chairColors = []string{"\x1b[36m", "\x1b[35m", "\x1b[33m", "\x1b[32m", "\x1b[34m", "\x1b[91m"}

func (r *Renderer) style(s, code string) string {
	if !r.opt.Color || code == "" {
		return s
	}
	return code + s + reset
}

func (r *Renderer) speakerColor(speaker string) string {
	if speaker == duelogic.SpeakerArbiter {
		return bold
	}
	for i, c := range r.cfg.Chairs {
		if c.Position == speaker {
			return bold + chairColors[i%len(chairColors)]
		}
	}
	return bold
}

// Label names a speaker: "ARBITER", or a chair's model and framework.
func (r *Renderer) Label(speaker string) string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.label(speaker)
}

func (r *Renderer) label(speaker string) string {
	for _, c := range r.cfg.Chairs {
		if c.Position == speaker {
			info, _ := duelogic.LookupFramework(c.Framework)
			return fmt.Sprintf("%s · %s", strings.ToUpper(c.DisplayName()), info.Name)
		}
	}
	if r.labels != nil && speaker != engine.SpeakerHuman {
		if l, _, _ := strings.Cut(r.labels(speaker), ":"); l != "" && l != speaker {
			return strings.ToUpper(l)
		}
	}
	if speaker == duelogic.SpeakerArbiter {
		return "ARBITER"
	}
	// Another format's speaker: a perspective, or a role.
	if info, ok := duelogic.LookupFramework(duelogic.Framework(speaker)); ok {
		return strings.ToUpper(info.Name)
	}
	return strings.ToUpper(strings.ReplaceAll(speaker, "_", " "))
}

func (r *Renderer) endLine() {
	if r.speaking != "" {
		fmt.Fprintln(r.w)
		r.speaking = ""
	}
}

// Emit implements duelogic.EventSink.
func (r *Renderer) Emit(_ context.Context, e duelogic.Event) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.clearStatus()
	defer r.showStatus()
	switch e.Type {
	case duelogic.EventDebateStarted:
		r.debateID = e.DebateID
		fmt.Fprintf(r.w, "debate %s\n", e.DebateID)
	case duelogic.EventSegmentStarted:
		r.endLine()
		r.segment = e.Segment
		fmt.Fprintf(r.w, "\n%s\n", r.style("══════ "+strings.ToUpper(string(e.Segment))+" ══════", bold))
	case duelogic.EventToken:
		r.tokens++
		if r.speaking != e.Speaker {
			r.endLine()
			fmt.Fprintf(r.w, "\n%s\n", r.style("▶ "+r.label(e.Speaker), r.speakerColor(e.Speaker)))
			r.speaking = e.Speaker
			r.streamed.Reset()
		}
		r.streamed.WriteString(e.Delta)
		fmt.Fprint(r.w, e.Delta)
	case duelogic.EventUtterance:
		u := e.Utterance
		if u.Exchange > 0 {
			r.exchange = u.Exchange
		}
		if r.speaking != u.Speaker {
			r.endLine()
			fmt.Fprintf(r.w, "\n%s\n%s", r.style("▶ "+r.label(u.Speaker), r.speakerColor(u.Speaker)), u.Content)
			r.speaking = u.Speaker
			r.streamed.Reset()
			r.streamed.WriteString(u.Content)
		}
		if u.Cut {
			r.cut(u)
		}
		r.endLine()
		switch u.Kind {
		case duelogic.KindInterjection:
			fmt.Fprintln(r.w, r.style(fmt.Sprintf("  ⚑ interjection (%s) aimed at %s", u.Violation, r.label(u.Target)), red))
		case duelogic.KindInterruption:
			fmt.Fprintln(r.w, r.style(fmt.Sprintf("  ↯ interruption (%s)", u.Reason), yellow))
		}
	case duelogic.EventEvaluation:
		r.endLine()
		if ev := e.Evaluation; ev != nil {
			flag := ""
			if ev.RequiresInterjection {
				flag = "  ⚠ " + ev.InterjectionReason
			}
			fmt.Fprintln(r.w, r.style(fmt.Sprintf("  ✓ evaluation: adherence %d · steel-man %s · self-critique %s · honesty %s%s",
				ev.AdherenceScore, ev.SteelManning.Quality, ev.SelfCritique.Quality, ev.IntellectualHonesty.Score, flag), dim))
		} else {
			fmt.Fprintln(r.w, r.style("  ✓ evaluation: unscored", dim))
		}
	case duelogic.EventInterruption:
		r.endLine()
		c, err := engine.DataAs[duelogic.InterruptCandidate](e)
		if err != nil {
			break
		}
		fmt.Fprintf(r.w, "\n%s\n", r.style(fmt.Sprintf("  ↯ %s cuts in on %s — %s (urgency %.2f): %q",
			r.label(c.InterruptingChair.Position), r.label(c.InterruptedChair.Position),
			c.TriggerReason, c.Urgency, c.TriggerContent), yellow))
	case duelogic.EventDebateEnded:
		r.endLine()
	case duelogic.EventSegmentEnded, duelogic.EventArgumentMap, formal.EventEntry:
		// A formal log entry is said as the utterance right behind it.
	default:
		r.endLine()
		// A format's own event: shown like an utterance when it carries a
		// view of one (a formal debate's log entry), else by its type and
		// who it concerns (a verdict, a score card).
		if u := e.Utterance; u != nil && u.Content != "" {
			head := "▶ " + r.label(e.Speaker)
			if u.Kind != "" {
				head += " (" + strings.ReplaceAll(string(u.Kind), "_", " ") + ")"
			}
			fmt.Fprintf(r.w, "\n%s\n%s\n", r.style(head, r.speakerColor(e.Speaker)), u.Content)
			break
		}
		line := "  • " + strings.ReplaceAll(string(e.Type), "_", " ")
		if e.Speaker != "" {
			line += " · " + r.label(e.Speaker)
		}
		fmt.Fprintln(r.w, r.style(line, dim))
	}
}

// cut shows where u was cut off: the text stops with a dash when what was
// streamed is what stands; when the speaker had streamed on past the cut
// (the check ended late), the words that stand are repeated up to the cut.
func (r *Renderer) cut(u *engine.Utterance) {
	said := strings.TrimSuffix(u.Content, engine.CutMark)
	streamed := strings.TrimSpace(r.streamed.String())
	switch {
	case streamed == strings.TrimSpace(u.Content):
		// Printed whole already (a replayed or unstreamed utterance).
	case strings.TrimSuffix(streamed, ".") == said || streamed == said:
		fmt.Fprint(r.w, engine.CutMark)
	default:
		tail := []rune(said)
		if len(tail) > 60 {
			tail = append([]rune("…"), tail[len(tail)-60:]...)
		}
		r.endLine()
		fmt.Fprint(r.w, r.style("  ✂ cut at: "+string(tail)+engine.CutMark, yellow))
		r.speaking = u.Speaker
	}
	r.endLine()
	fmt.Fprint(r.w, r.style("  ✂ cut off by "+r.label(u.InterruptedBy), yellow))
	r.speaking = u.Speaker // endLine below ends the line
}

// Metrics prints the result's metrics and token counts: the seed's success
// metrics against their targets (a rate with nothing to count is "not
// measured", not 0%), and the spoken length against the target duration.
func (r *Renderer) Metrics(res *duelogic.Result) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.clearStatus()
	fmt.Fprintf(r.w, "\n%s\n", r.style("══════ METRICS ══════", bold))
	for _, line := range MetricsLines(res.Metrics) {
		if line.Met != nil {
			verdict := r.style("missed", red)
			if *line.Met {
				verdict = r.style("met", green)
			}
			line.Text = strings.Replace(line.Text, "{verdict}", verdict, 1)
		}
		fmt.Fprintln(r.w, line.Text)
	}
	fmt.Fprintf(r.w, "tokens: %d prompt + %d completion\n", res.Usage.PromptTokens, res.Usage.CompletionTokens)
}

// MetricsLine is a line of a podcast's metrics as the examples show them.
type MetricsLine struct {
	// Text is the line; a measured rate's has "{verdict}" where "met" or
	// "missed" goes.
	Text string
	// Met is whether a measured rate meets its target; nil for the other
	// lines.
	Met *bool
}

// MetricsLines are the lines of m, for a terminal or a document: the
// responses, steel-manning over the critique responses and self-critique
// over the substantive ones against the seed's targets ("not measured" when
// there is nothing to count), adherence and consistency, interruptions and
// interjections, and the spoken length.
func MetricsLines(m duelogic.Metrics) []MetricsLine {
	text := func(format string, args ...any) MetricsLine { return MetricsLine{Text: fmt.Sprintf(format, args...)} }
	rate := func(name string, rate float64, n int, of string, target float64, met bool) MetricsLine {
		return MetricsLine{Text: fmt.Sprintf("%s %.0f%% of %d %s (target >%.0f%%: {verdict})", name, 100*rate, n, of, 100*target), Met: &met}
	}
	lines := []MetricsLine{text("responses %d, evaluated %d", m.Responses, m.Evaluated)}
	switch {
	case m.Evaluated == 0:
		// Relaxed accountability, or every evaluation unreadable: a rate
		// of nothing is not 0%.
		lines = append(lines, text("steel-manning, self-critique, adherence: not measured (no response was evaluated)"))
	default:
		if m.SteelManningMeasured() {
			lines = append(lines, rate("steel-manning", m.SteelManningRate, m.CritiqueResponses, "critique responses", duelogic.SteelManningTarget, m.MeetsSteelManning))
		} else {
			lines = append(lines, text("steel-manning: not measured (no response critiqued an opponent; target >%.0f%% of critique responses)", 100*duelogic.SteelManningTarget))
		}
		if m.SelfCritiqueMeasured() {
			lines = append(lines, rate("self-critique", m.SelfCritiqueRate, m.SubstantiveResponses, "substantive responses", duelogic.SelfCritiqueTarget, m.MeetsSelfCritique))
		} else {
			lines = append(lines, text("self-critique: not measured (no substantive response; target >%.0f%% of substantive responses)", 100*duelogic.SelfCritiqueTarget))
		}
		lines = append(lines, text("mean adherence %.1f, framework consistency %.0f%%", m.MeanAdherence, 100*m.FrameworkConsistency))
	}
	lines = append(lines, text("interruptions %d, interjections %d", m.Interruptions, m.Interjections))
	length := text("length %d words, about %.1f spoken minutes at %d words a minute", m.Words, m.SpokenMinutes, duelogic.SpokenWordsPerMinute)
	if m.TargetMinutes > 0 {
		length.Text += fmt.Sprintf(" (target %d)", m.TargetMinutes)
	}
	return append(lines, length)
}

// Tick redraws the status line, to move its clock on while the debate waits
// for a model.
func (r *Renderer) Tick() {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.statusShow {
		r.clearStatus()
		r.showStatus()
	}
}

// Clear erases the status line, before a program writes to the terminal
// itself (a prompt); the next event draws it again.
func (r *Renderer) Clear() {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.clearStatus()
}

// Println writes a line of the program's own between the renderer's.
func (r *Renderer) Println(a ...any) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.clearStatus()
	r.endLine()
	fmt.Fprintln(r.w, a...)
}

func (r *Renderer) clearStatus() {
	if r.statusShow {
		fmt.Fprint(r.w, "\r\x1b[2K")
		r.statusShow = false
	}
}

// showStatus draws the status line when no text is streaming.
func (r *Renderer) showStatus() {
	if !r.opt.Progress || r.speaking != "" {
		return
	}
	parts := []string{}
	if r.segment != "" {
		parts = append(parts, string(r.segment))
	}
	if r.exchange > 0 {
		x := fmt.Sprintf("exchange %d", r.exchange)
		if n := r.cfg.Flow.MaxExchanges; n > 0 {
			x += fmt.Sprintf("/%d", n)
		}
		parts = append(parts, x)
	}
	el := r.opt.Now().Sub(r.start).Round(time.Second)
	parts = append(parts, fmt.Sprintf("%d tokens", r.tokens), fmt.Sprintf("%d:%02d", int(el.Minutes()), int(el.Seconds())%60))
	fmt.Fprint(r.w, r.style("⏳ "+strings.Join(parts, " · "), dim))
	r.statusShow = true
}
