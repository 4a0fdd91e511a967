// Package render prints a debate's events as a readable live transcript on a
// terminal or into a file: segment headers, speaker labels, streamed text,
// the arbiter's evaluations, interruptions and interjections, and the
// metrics at the end. It is shared by the example programs.
package render

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"slices"
	"strings"
	"sync"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/duelogic/duelogic"
	"github.com/duelogic/duelogic/engine"
	"github.com/duelogic/duelogic/formal"
	"github.com/duelogic/duelogic/llm"
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
	// Settled prints only what is not taken back: a speech that another
	// speaker may cut off while it streams (a podcast chair's response in
	// the exchange, with interruptions on) is printed whole with its
	// utterance rather than live, so that what is printed does not depend
	// on how fast the checks beside the stream decided. For output that
	// is kept (a file, a pipe); a terminal shows such a speech live, and
	// says so when a cut takes back what it showed.
	Settled bool
}

// Renderer is a [duelogic.EventSink] that prints a debate's events. Its
// methods are safe for concurrent use. It is the one writer of its output:
// a program writes its own lines ([Renderer.Println]) and its questions to
// a person ([Renderer.Prompt]) through it, so that they come whole, in
// order with the events. The text of models, people and stores is printed
// through [Sanitize]: it cannot rewrite the terminal.
type Renderer struct {
	w   io.Writer
	opt Options

	mu       sync.Mutex
	cfg      duelogic.Config
	labels   func(string) string                // a format's speaker names (SetLabels), nil for the podcast
	live     func(after *engine.Utterance) bool // SetLive
	last     *engine.Utterance                  // the last utterance received
	debateID string
	open     bool // a line of text is printed without its newline

	// The speech printed live: speaker's tokens, from the first that did
	// not start with white space, and how many bytes of them are printed.
	speaker  string
	speech   []byte
	shown    int
	reheader bool            // the program wrote a line of its own: name the speaker again
	held     map[string]bool // speakers whose speech is held until its utterance
	queue    []engine.Event  // events that wait for the live speech to end

	segment    duelogic.Segment
	segHead    bool // the segment's header is still to print, before its first line
	exchange   int
	tokens     int
	start      time.Time
	statusShow bool
	spent      func() string // what the debate spent so far, for the status line

	// A person is being asked (Prompt): the events that come wait in
	// asked until Answered.
	prompting bool
	asked     []engine.Event
	// printed are the events shown (not tokens), in order, for Await;
	// progress is closed and replaced whenever one is.
	printed  []engine.Event
	progress chan struct{}
}

// maxQueue bounds the events that wait for the live speech to end; past it
// the speech is given up (see abandon).
const maxQueue = 1024

// maxHeld is the most of a live speech held back while no sentence ends: a
// longer run is printed up to its last space.
const maxHeld = 400

// New returns a renderer writing to w, naming speakers after cfg's chairs.
func New(w io.Writer, cfg duelogic.Config, opt Options) *Renderer {
	if opt.Now == nil {
		opt.Now = time.Now
	}
	return &Renderer{w: w, cfg: cfg, opt: opt, start: opt.Now(), held: map[string]bool{}, progress: make(chan struct{})}
}

// SetLive says which speeches are printed live, token by token: live
// reports it of the speeches streamed after the utterance after (nil
// before the first). A format that generates several speeches at once
// refuses theirs, so that each is printed whole with its utterance, in the
// order the utterances are recorded, and what is printed does not depend on
// which speech streamed first. Without it (nil) every speech may be
// printed live; still only one at a time: the tokens of another speaker
// are held, and that speech is printed whole with its utterance.
func (r *Renderer) SetLive(live func(after *engine.Utterance) bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.live = live
}

// SetSpent has the status line show spent(), what the debate has spent so
// far (its tokens, its cost), in place of the count of tokens streamed.
// spent is called with the renderer locked: it must not call the renderer.
func (r *Renderer) SetSpent(spent func() string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.spent = spent
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

func (r *Renderer) label(speaker string) string { return Sanitize(r.rawLabel(speaker)) }

func (r *Renderer) rawLabel(speaker string) string {
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
	if r.open {
		fmt.Fprintln(r.w)
		r.open = false
	}
}

// Emit implements duelogic.EventSink. One speech is printed at a time:
// while a speech is printed live, the tokens of other speakers are held
// (their speeches are printed whole with their utterances) and the other
// events wait for the live speech's utterance, so that they follow it in
// the order they came.
func (r *Renderer) Emit(_ context.Context, e duelogic.Event) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.prompting {
		r.hold(e)
		return
	}
	r.emit(e)
}

// emit prints e, or queues it behind the live speech.
func (r *Renderer) emit(e duelogic.Event) {
	r.clearStatus()
	defer r.showStatus()
	if e.Type == duelogic.EventToken {
		r.token(e)
		return
	}
	u := e.Utterance
	if e.Type == duelogic.EventUtterance && u != nil {
		last := *u
		r.last = &last
	}
	switch {
	case e.Type == duelogic.EventDebateEnded:
		r.abandon()
	case r.speaker == "":
	case e.Type == duelogic.EventUtterance && u != nil && u.Speaker == r.speaker:
	case len(r.queue) < maxQueue:
		r.queue = append(r.queue, e)
		return
	default:
		r.abandon()
	}
	r.show(e)
	r.drain()
}

// token prints a token of the live speech, starts a live speech, or holds
// the token of a speech that is not printed live.
func (r *Renderer) token(e duelogic.Event) {
	r.tokens++
	switch {
	case e.Speaker == r.speaker:
	case r.speaker != "" || r.held[e.Speaker] || r.live != nil && !r.live(r.last) || r.opt.Settled && r.cuttable(e):
		// Printed whole with its utterance; the tokens themselves are
		// not kept.
		r.held[e.Speaker] = true
		return
	default:
		r.endLine()
		r.speaker, r.speech, r.shown = e.Speaker, r.speech[:0], 0
		r.header(e.Speaker, "")
	}
	r.say(e.Delta)
	r.release(releasable(r.speech, r.shown))
}

// say adds delta to the live speech.
func (r *Renderer) say(delta string) {
	if len(r.speech) == 0 {
		delta = strings.TrimLeftFunc(delta, unicode.IsSpace)
	}
	r.speech = append(r.speech, delta...)
}

// hold keeps e, which came while a person is asked, for Answered to print.
// A token is not kept: the live speech's is added to what is printed after
// the prompt; another speaker's speech is printed whole with its
// utterance.
func (r *Renderer) hold(e duelogic.Event) {
	if e.Type != duelogic.EventToken {
		r.asked = append(r.asked, e)
		return
	}
	r.tokens++
	if e.Speaker == r.speaker {
		r.say(e.Delta)
		return
	}
	r.held[e.Speaker] = true
}

// cuttable reports whether the speech of token e may be cut off while it
// streams: a podcast chair's in the exchange, with interruptions on.
func (r *Renderer) cuttable(e duelogic.Event) bool {
	i := r.cfg.Interruptions
	if !i.Enabled || !i.AllowChairInterruptions && !i.AllowArbiterInterruptions || e.Segment != duelogic.SegmentExchange {
		return false
	}
	return slices.ContainsFunc(r.cfg.Chairs, func(c duelogic.Chair) bool { return c.Position == e.Speaker })
}

// segmentHead prints the header of the segment when it is still to print.
func (r *Renderer) segmentHead() {
	if r.segHead {
		r.endLine()
		fmt.Fprintf(r.w, "\n%s\n", r.style("══════ "+Sanitize(strings.ToUpper(string(r.segment)))+" ══════", bold))
		r.segHead = false
	}
}

// header names speaker, with a note, above what it says.
func (r *Renderer) header(speaker, note string) {
	r.segmentHead()
	head := "▶ " + r.label(speaker)
	if note != "" {
		head += " (" + Sanitize(note) + ")"
	}
	fmt.Fprintf(r.w, "\n%s\n", r.style(head, r.speakerColor(speaker)))
}

// release prints the live speech up to byte end.
func (r *Renderer) release(end int) {
	if end <= r.shown {
		return
	}
	if r.reheader {
		r.endLine()
		r.header(r.speaker, "continued")
		r.reheader = false
	}
	io.WriteString(r.w, Sanitize(string(r.speech[r.shown:end])))
	r.shown, r.open = end, true
}

// releasable is how much of a live speech may be printed, from shown on:
// the text up to the end of its last sentence known to be over, before the
// mark that ends it (a sentence is over once the next one begins), so that
// a speaker cut off at the end of a sentence — where a cut lands, with the
// full stop replaced by engine.CutMark — never shows words that were taken
// back while the cut was being decided, but for the sentences said past
// it in that time. A run of more than maxHeld bytes without a sentence end
// is printed up to its last space.
func releasable(speech []byte, shown int) int {
	end := shown
	for i := shown; i < len(speech); {
		c, n := utf8.DecodeRune(speech[i:])
		if !endsSentence(c) {
			i += n
			continue
		}
		j := i // past the end marks and closing quotes and brackets
		for j < len(speech) {
			c, n := utf8.DecodeRune(speech[j:])
			if !endsSentence(c) && !strings.ContainsRune(closers, c) {
				break
			}
			j += n
		}
		k := j // past the white space after them
		for k < len(speech) {
			c, n := utf8.DecodeRune(speech[k:])
			if !unicode.IsSpace(c) {
				break
			}
			k += n
		}
		if k == j || k == len(speech) || !utf8.FullRune(speech[k:]) {
			// Not a boundary, or not yet known to be one.
			i = max(j, k)
			continue
		}
		if c, _ := utf8.DecodeRune(speech[k:]); !unicode.IsLower(c) {
			end = i
		}
		i = k
	}
	if len(speech)-end > maxHeld {
		if sp := bytes.LastIndexFunc(speech[end:], unicode.IsSpace); sp > 0 {
			end += sp
		}
	}
	return end
}

// closers may follow a sentence's end mark.
const closers = "\"'”’)]»"

func endsSentence(c rune) bool { return c == '.' || c == '!' || c == '?' || c == '…' }

// abandon ends the live speech unfinished (the debate ended without its
// utterance, or too many events waited for it; an utterance of it still
// to come is printed whole), and prints the events that waited.
func (r *Renderer) abandon() {
	if r.speaker != "" {
		if r.open {
			fmt.Fprint(r.w, " …")
		}
		r.endLine()
		r.held[r.speaker] = true
		r.speaker = ""
	}
	r.drain()
}

// drain prints the events that waited for the live speech, once it is over.
func (r *Renderer) drain() {
	for r.speaker == "" && len(r.queue) > 0 {
		e := r.queue[0]
		r.queue = r.queue[1:]
		r.show(e)
	}
	if len(r.queue) == 0 {
		r.queue = nil
	}
}

// show prints an event other than a token.
func (r *Renderer) show(e duelogic.Event) {
	defer r.recordShown(e)
	switch e.Type {
	case duelogic.EventDebateStarted:
		r.debateID = e.DebateID
		fmt.Fprintf(r.w, "debate %s\n", Sanitize(e.DebateID))
	case duelogic.EventSegmentStarted:
		// Its header goes above the segment's first line, so that a
		// segment that shows nothing (a formal debate's report, kept for
		// the documents) shows no header either.
		r.segment, r.segHead = e.Segment, true
	case duelogic.EventUtterance:
		u := e.Utterance
		if u == nil {
			break
		}
		if u.Exchange > 0 {
			r.exchange = u.Exchange
		}
		if r.speaker != "" && r.speaker == u.Speaker {
			r.finish(u)
		} else {
			r.endLine()
			r.header(u.Speaker, "")
			fmt.Fprint(r.w, Sanitize(strings.TrimSpace(u.Content)))
			r.open = true
		}
		delete(r.held, u.Speaker)
		r.endLine()
		if u.Truncated {
			fmt.Fprintln(r.w, r.style("  … cut short: the model stopped at its length limit", yellow))
		}
		if u.Cut {
			fmt.Fprintln(r.w, r.style("  ✂ cut off by "+r.label(u.InterruptedBy), yellow))
		}
		switch u.Kind {
		case duelogic.KindInterjection:
			fmt.Fprintln(r.w, r.style(fmt.Sprintf("  ⚑ interjection (%s) aimed at %s", Sanitize(string(u.Violation)), r.label(u.Target)), red))
		case duelogic.KindInterruption:
			fmt.Fprintln(r.w, r.style(fmt.Sprintf("  ↯ interruption (%s)", Sanitize(u.Reason)), yellow))
		}
	case duelogic.EventEvaluation:
		r.endLine()
		r.segmentHead()
		// An evaluation the arbiter's reply did not give (unscored) shows
		// nothing: the metrics count it.
		if ev, ok := duelogic.EvaluationOf(e); ok {
			flag := ""
			if ev.RequiresInterjection {
				flag = "  ⚠ " + ev.InterjectionReason
			}
			fmt.Fprintln(r.w, r.style(Sanitize(fmt.Sprintf("  ✓ evaluation: adherence %d · steel-man %s · self-critique %s · honesty %s%s",
				ev.AdherenceScore, ev.SteelManning.Quality, ev.SelfCritique.Quality, ev.IntellectualHonesty.Score, flag)), dim))
		}
	case duelogic.EventInterruption:
		r.endLine()
		r.segmentHead()
		c, err := engine.DataAs[duelogic.InterruptCandidate](e)
		if err != nil {
			break
		}
		fmt.Fprintf(r.w, "\n%s\n", r.style(fmt.Sprintf("  ↯ %s cuts in on %s — %s (urgency %.2f): %q",
			r.label(c.InterruptingChair.Position), r.label(c.InterruptedChair.Position),
			Sanitize(string(c.TriggerReason)), c.Urgency, c.TriggerContent), yellow))
	case duelogic.EventDebateEnded:
		r.endLine()
	case formal.EventSetup:
		// The seed's Step C: echo "Output directory: $OUTPUT_DIR".
		if s, err := engine.DataAs[formal.Setup](e); err == nil && s.Dir != "" {
			r.endLine()
			r.segmentHead()
			fmt.Fprintln(r.w, r.style("  • output directory: "+Sanitize(s.Dir), dim))
		}
	case duelogic.EventSegmentEnded, duelogic.EventArgumentMap, formal.EventEntry, formal.EventVerification, engine.EventAsked:
		// A question to the person and its answer are printed where they
		// are asked (the CLI's prompts), not again as an event. A formal log entry is said as the utterance right behind it. A
		// formal finding on a source is made beside the debate, so where
		// its event falls depends on how the goroutines ran: it is said
		// where the chair reviews it, by the verifier's utterance.
	default:
		// A format's own event: shown like an utterance when it carries a
		// view of one (a formal debate's log entry); otherwise it is the
		// format's bookkeeping (a stored turn, an analysis, a score card),
		// which the utterances and the outcome say for people.
		if u := e.Utterance; u != nil && u.Content != "" {
			r.endLine()
			r.header(e.Speaker, strings.ReplaceAll(string(u.Kind), "_", " "))
			fmt.Fprintf(r.w, "%s\n", Sanitize(u.Content))
		}
	}
}

// finish ends the live speech with its utterance u. What was printed is
// normally the start of u's content, and the rest follows, so that the
// speech reads as if printed whole. When it is not — the speaker went on
// past the end of a sentence where they were cut off before the cut was
// decided, or the format kept another text than the one streamed (a reply
// cut to a token budget) — the printed text stands and a line says what
// the utterance is.
func (r *Renderer) finish(u *engine.Utterance) {
	printed := string(r.speech[:r.shown])
	content := strings.TrimSpace(u.Content)
	reheader := r.reheader
	r.speaker, r.reheader = "", false
	switch {
	case strings.HasPrefix(content, printed):
		if rest := content[len(printed):]; rest != "" {
			if reheader {
				r.endLine()
				r.header(u.Speaker, "continued")
			}
			fmt.Fprint(r.w, Sanitize(rest))
			r.open = true
		}
	case u.Cut:
		tail := []rune(content)
		if len(tail) > 60 {
			tail = append([]rune("…"), tail[len(tail)-60:]...)
		}
		r.endLine()
		fmt.Fprintln(r.w, r.style("  ✂ cut at: "+Sanitize(string(tail))+" (what was streamed past it was taken back)", yellow))
	default:
		r.endLine()
		fmt.Fprintln(r.w, r.style("  ≠ recorded as:", yellow))
		fmt.Fprint(r.w, Sanitize(content))
		r.open = true
	}
}

// Metrics prints a podcast's metrics, m, and the tokens it used, u: the
// seed's success metrics against their targets (a rate with nothing to
// count is "not measured", not 0%), and the spoken length against the
// target duration.
func (r *Renderer) Metrics(m duelogic.Metrics, u llm.Usage) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.clearStatus()
	fmt.Fprintf(r.w, "\n%s\n", r.style("══════ METRICS ══════", bold))
	for _, line := range MetricsLines(m) {
		if line.Met != nil {
			verdict := r.style("missed", red)
			if *line.Met {
				verdict = r.style("met", green)
			}
			line.Text = strings.Replace(line.Text, "{verdict}", verdict, 1)
		}
		fmt.Fprintln(r.w, line.Text)
	}
	fmt.Fprintf(r.w, "tokens: %d prompt + %d completion\n", u.PromptTokens, u.CompletionTokens)
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
			line := rate("self-critique", m.SelfCritiqueRate, m.SubstantiveResponses, "substantive responses", duelogic.SelfCritiqueTarget, m.MeetsSelfCritique)
			if m.CutResponses > 0 {
				// They may have admitted a weakness in what they never said.
				line.Text += fmt.Sprintf("; %d cut off by an interruption not counted", m.CutResponses)
			}
			lines = append(lines, line)
		} else {
			lines = append(lines, text("self-critique: not measured (no substantive response; target >%.0f%% of substantive responses)", 100*duelogic.SelfCritiqueTarget))
		}
		lines = append(lines, text("mean adherence %.1f, framework consistency %.0f%%", m.MeanAdherence, 100*m.FrameworkConsistency))
	}
	lines = append(lines, text("interruptions %d, interjections %d", m.Interruptions, m.Interjections))
	return append(lines, MetricsLine{Text: m.Length()})
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

// Println writes a line of the program's own between the renderer's,
// through [Sanitize] (it may quote a model).
func (r *Renderer) Println(a ...any) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.clearStatus()
	r.interject()
	io.WriteString(r.w, Sanitize(fmt.Sprintln(a...)))
}

// interject ends the line printed, before a line of the program's own.
func (r *Renderer) interject() {
	if r.speaker != "" {
		r.reheader = true // the speech goes on under the program's line
	}
	r.endLine()
}

// Prompt writes text, through [Sanitize], to a person being asked
// something: a question, the prompt after which they answer, the answer
// echoed. From the first Prompt until [Renderer.Answered] nothing else is
// printed: the events that come meanwhile wait, and Answered prints them,
// so that the prompt is whole and the person's answer follows it. To
// print the events that come before the question first, call
// [Renderer.Await] before Prompt.
func (r *Renderer) Prompt(text string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if !r.prompting {
		r.clearStatus()
		r.interject()
		r.segmentHead() // the question is asked in the segment
		r.prompting = true
	}
	io.WriteString(r.w, Sanitize(text))
}

// Answered ends what Prompt began, once the person has answered (or not),
// and prints the events that came meanwhile. Without a Prompt it does
// nothing.
func (r *Renderer) Answered() {
	r.mu.Lock()
	defer r.mu.Unlock()
	if !r.prompting {
		return
	}
	r.prompting = false
	asked := r.asked
	r.asked = nil
	for _, e := range asked {
		r.emit(e)
	}
}

// Await returns true once the renderer has printed an event that match
// reports true of (one printed before the call counts), or false when ctx
// is done or limit has passed first. The engine gives a sink its events on
// a goroutine of its own, after it stores them, while the debate goes on:
// a program that asks a person something after an event waits for that
// event before its Prompt, so that the question follows it. match is
// called with the renderer locked: it must not call the renderer.
func (r *Renderer) Await(ctx context.Context, match func(engine.Event) bool, limit time.Duration) bool {
	t := time.NewTimer(limit)
	defer t.Stop()
	seen := 0
	for {
		r.mu.Lock()
		for ; seen < len(r.printed); seen++ {
			if match(r.printed[seen]) {
				r.mu.Unlock()
				return true
			}
		}
		progress := r.progress
		r.mu.Unlock()
		select {
		case <-progress:
		case <-ctx.Done():
			return false
		case <-t.C:
			return false
		}
	}
}

// recordShown notes that e has been printed, for Await.
func (r *Renderer) recordShown(e duelogic.Event) {
	r.printed = append(r.printed, e)
	close(r.progress)
	r.progress = make(chan struct{})
}

func (r *Renderer) clearStatus() {
	if r.statusShow {
		fmt.Fprint(r.w, "\r\x1b[2K")
		r.statusShow = false
	}
}

// showStatus draws the status line when no text is streaming.
func (r *Renderer) showStatus() {
	if !r.opt.Progress || r.open || r.speaker != "" || r.prompting {
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
	if r.spent != nil {
		parts = append(parts, r.spent())
	} else {
		parts = append(parts, fmt.Sprintf("%d tokens", r.tokens))
	}
	parts = append(parts, fmt.Sprintf("%d:%02d", int(el.Minutes()), int(el.Seconds())%60))
	fmt.Fprint(r.w, r.style("⏳ "+strings.Join(parts, " · "), dim))
	r.statusShow = true
}
