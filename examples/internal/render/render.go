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

// Metrics prints the result's metrics and token counts.
func (r *Renderer) Metrics(res *duelogic.Result) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.clearStatus()
	m := res.Metrics
	check := func(ok bool) string {
		if ok {
			return r.style("met", green)
		}
		return r.style("missed", red)
	}
	fmt.Fprintf(r.w, "\n%s\n", r.style("══════ METRICS ══════", bold))
	fmt.Fprintf(r.w, "responses %d, evaluated %d\n", m.Responses, m.Evaluated)
	if m.Evaluated == 0 {
		// Relaxed accountability, or every evaluation unreadable: a rate
		// of nothing is not 0%.
		fmt.Fprintf(r.w, "steel-manning, self-critique, adherence: not measured (no response was evaluated)\n")
	} else {
		fmt.Fprintf(r.w, "steel-manning %.0f%% (target >%.0f%%: %s)\n", 100*m.SteelManningRate, 100*duelogic.SteelManningTarget, check(m.MeetsSteelManning))
		fmt.Fprintf(r.w, "self-critique %.0f%% (target >%.0f%%: %s)\n", 100*m.SelfCritiqueRate, 100*duelogic.SelfCritiqueTarget, check(m.MeetsSelfCritique))
		fmt.Fprintf(r.w, "mean adherence %.1f, framework consistency %.0f%%\n", m.MeanAdherence, 100*m.FrameworkConsistency)
	}
	fmt.Fprintf(r.w, "interruptions %d, interjections %d\n", m.Interruptions, m.Interjections)
	fmt.Fprintf(r.w, "tokens: %d prompt + %d completion\n", res.Usage.PromptTokens, res.Usage.CompletionTokens)
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
