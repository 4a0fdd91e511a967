package engine

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"
	"unicode"
	"unicode/utf8"

	"github.com/duelogic/duelogic/llm"
)

// Watch watches an utterance while it streams, and may cut it off: see
// [Session.SayWatched].
type Watch struct {
	// Check judges what the speaker has said so far, which ends at a
	// sentence boundary, and returns a [Cut] to stop the speaker there, or
	// nil to let them go on, with what the judgment cost. It runs on a
	// goroutine of its own beside the stream, one check at a time; the
	// tokens past the end of the sentence after its checkpoint (where its
	// cut would fall) wait for its verdict before the sink is given them,
	// the others never wait for it. The model calls it makes go through
	// [Session.Call] with the ctx it is given, which is cancelled when the
	// check no longer matters. It must return promptly once ctx is done.
	// An error stops the utterance: SayWatched returns it.
	Check func(ctx context.Context, said string) (*Cut, llm.Usage, error)
	// Speaker is charged the checks' usage.
	Speaker string
	// MinRunes spaces the checks: the first runs at the first sentence
	// boundary reached once at least MinRunes runes are said, and each
	// next one at the first boundary at least MinRunes runes after the
	// previous check's. Values below 1 mean 1.
	MinRunes int
	// MaxChecks bounds the checks of one utterance; 0 (or less) makes
	// SayWatched a plain [Session.Say].
	MaxChecks int
}

// Cut is a check's decision to stop the speaker.
type Cut struct {
	// By is who cuts in: the utterance's InterruptedBy.
	By string
	// Value is what the format needs to go on after the cut (who answers,
	// and why): it is stored as JSON in the utterance's record and given
	// back in [Watched].Cut, also when the debate is resumed, so the
	// format continues from the store alone.
	Value any
}

// Watched is what the checks beside an utterance came to.
type Watched struct {
	// Live reports that the utterance streamed with checks beside it;
	// false when SayWatched was a plain Say (the client cannot stream), so
	// a format checks the whole utterance after the fact.
	Live bool `json:"live"`
	// Checks counts the checks that counted (see [Session.SayWatched]),
	// and Usage is what they cost; both are charged to Watch.Speaker.
	Checks int       `json:"checks"`
	Usage  llm.Usage `json:"usage,omitzero"`
	// Judgments counts the judgments ([Judge]) of the checks that
	// counted, by purpose; stored with the utterance, they count again on
	// resume.
	Judgments map[string]JudgmentCounts `json:"judgments,omitempty"`
	// Cut is the Value of the [Cut] that stopped the utterance, as JSON;
	// nil when the utterance was said whole.
	Cut json.RawMessage `json:"cut,omitempty"`
}

// watchEntry is Watched as the utterance's record keeps it.
type watchEntry struct {
	Speaker string `json:"speaker,omitempty"`
	Watched
}

// CutMark ends the content of an utterance that was cut off.
const CutMark = "—"

// errCut stops a stream that was cut.
var errCut = errors.New("engine: utterance cut")

// SayWatched is [Session.Say] for an utterance that another speaker may cut
// off. While the reply streams, w.Check runs beside it on the text said so
// far, at sentence boundaries: at most w.MaxChecks times, spaced by
// w.MinRunes (see [Watch]), one check at a time; checkpoints reached while a
// check runs wait their turn in order.
//
// A check that returns a [Cut] stops the speaker at the end of the sentence
// they were saying when the check began: the first sentence boundary after
// the text the check saw. The client's context is cancelled; the utterance
// is stored as said up to that boundary — a final full stop replaced by
// [CutMark] — with Cut, Interrupted and InterruptedBy (the Cut's By) set,
// and the Cut's Value is stored in the same record, so a resumed debate
// replays the utterance as cut and gets the Value back. The sink is never
// given tokens past the cut (see below); the utterance's [EventUtterance]
// carries what stands, its last full stop replaced by CutMark.
// A cut utterance's usage is estimated (four characters a token) from its
// prompt and what it kept.
//
// What is said and cut depends only on the reply and the checks' verdicts,
// never on timing, so a debate replayed against the same model gives the
// same log: a check cuts only if a sentence boundary follows the text it
// saw, the first check (in order) that cuts decides and the checks after it
// are cancelled, and a check whose checkpoint turns out to be in the last
// sentence of the reply cuts nothing and does not count (it is cancelled
// when the reply ends; Watched counts only the checks that counted). When
// the reply ends while a check that counts is still running, SayWatched
// waits for it.
//
// The sink is shown what is stored: while a check is pending, the tokens
// past the end of the sentence after its checkpoint — where its cut would
// fall — are held, and given to the sink once the check has decided not to
// cut (never, when it cuts). A slow check thus delays the tokens past that
// sentence end, never the ones before it; the tokens a reply that fails
// still holds are not shown, as the utterance is not stored.
//
// A sentence boundary is a '.', '!', '?' or '…' (closing quotes and brackets
// may follow), then white space, then a character that is not a lower-case
// letter: it is known once the next sentence has begun.
//
// Without a streaming client, or when w.MaxChecks < 1 or w.Check is nil,
// SayWatched is Say and makes no check.
func (s *Session) SayWatched(ctx context.Context, key string, u Utterance, req llm.Request, w Watch) (Utterance, Watched, error) {
	if err := s.claim(key); err != nil {
		return u, Watched{}, err
	}
	got, en, ok, err := s.replayedEntry(key)
	if err != nil || ok {
		var wd Watched
		if en.Watch != nil {
			wd = en.Watch.Watched
		}
		return got, wd, err
	}
	if !s.stream || w.MaxChecks < 1 || w.Check == nil {
		u, err := s.say(ctx, key, u, req)
		return u, Watched{}, err
	}
	if err := s.mapFailure(); err != nil {
		return u, Watched{}, err
	}
	if err := s.checkBudget(); err != nil {
		return u, Watched{}, err
	}
	req = s.hooked(req)
	ctx, spent := withSpending(s.speaking(ctx, key))
	c := newCutter(w)
	said, cut, err := c.run(ctx, s.rec, s.o.client, req, u.Segment, u.Speaker)
	if err != nil {
		return u, Watched{}, err
	}
	// The next call waits for the utterance's record: a store failure then
	// wastes the stream and its checks, no more.
	defer s.rec.hold()
	wd := c.watched()
	wd.Live = true
	if cut == nil {
		if strings.TrimSpace(said.Content) == "" {
			// Nothing was said, so nothing was checked: ask once more, as
			// Say does.
			if said, err = s.askAgain(ctx, req, said, u); err != nil {
				return u, Watched{}, err
			}
		}
		u.Content = strings.TrimSpace(said.Content)
		u.Model = req.Model
		if said.Model != "" {
			u.Model = said.Model
		}
		u.Truncated = s.Truncated(req, said, u.Segment, u.Speaker)
		u, err = s.keepWatched(ctx, key, u, said.Usage, spent, nil, &watchEntry{Speaker: w.Speaker, Watched: wd})
		return u, wd, err
	}
	raw, err := json.Marshal(cut.Value)
	if err != nil {
		return u, Watched{}, fmt.Errorf("engine: encode the cut of %s: %w", key, err)
	}
	wd.Cut = raw
	u.Content = cutContent(said.Content)
	u.Model = req.Model
	u.Cut, u.Interrupted, u.InterruptedBy = true, true, cut.By
	usage := llm.Usage{PromptTokens: estimateTokens(promptRunes(req)), CompletionTokens: estimateTokens(utf8.RuneCountInString(u.Content))}
	u, err = s.keepWatched(ctx, key, u, usage, spent, &purposeUsage{req.Purpose, usage, s.rec.meter.price(req, llm.Response{Usage: usage})}, &watchEntry{Speaker: w.Speaker, Watched: wd})
	return u, wd, err
}

// cutContent is what was said up to a cut, ending with CutMark.
func cutContent(said string) string {
	said = strings.TrimSpace(said)
	if !strings.HasSuffix(said, "..") {
		said = strings.TrimSuffix(said, ".")
	}
	return said + CutMark
}

func promptRunes(req llm.Request) int {
	n := 0
	for _, m := range req.Messages {
		n += utf8.RuneCountInString(m.Content)
	}
	return n
}

func estimateTokens(runes int) int { return (runes + 3) / 4 }

// cutter runs one watched stream: the stream's side (tap) finds sentence
// boundaries and queues checkpoints; the checker goroutine (check) runs
// the checks in order. mu guards the fields below it; neither side holds
// it across a call or a send that could block (the queue holds every
// checkpoint there can be), nor while it gives the sink tokens (see show).
type cutter struct {
	w     Watch
	queue chan checkpoint
	// emit gives the sink a token event; set by run.
	emit func(delta string)

	mu sync.Mutex
	// The text said so far and its boundaries, written by tap.
	text   []byte
	scan   int // bytes of text scanned
	runes  int // runes scanned
	state  int // scanner state: 0 in a sentence, 1 after its end mark, 2 in the white space after it
	cand   int // end of the sentence whose boundary is being confirmed
	candR  int // runes up to cand
	bounds []int
	queued int // checkpoints queued
	lastR  int // runes at the last checkpoint
	ended  bool

	// What the sink was shown: the first shown bytes of text. cps are
	// the checkpoints queued (the length of the text each check sees),
	// the first decided of them decided; showing is set while a goroutine
	// gives the sink tokens.
	shown   int
	cps     []int
	decided int
	showing bool

	// What the checks came to, written by check.
	results []checkResult
	pending int  // length of the text the cutting check saw; -1: none
	cut     *Cut // the cutting check's verdict
	at      int  // where the cut falls; -1: undecided
	err     error
	stop    context.CancelFunc // cancels the stream
	running *checkpoint        // the check under way
	drop    context.CancelFunc // cancels it
}

type checkpoint struct {
	said string
}

type checkResult struct {
	at     int // length of the text the check saw
	usage  llm.Usage
	judged map[string]JudgmentCounts
}

func newCutter(w Watch) *cutter {
	if w.MinRunes < 1 {
		w.MinRunes = 1
	}
	return &cutter{w: w, queue: make(chan checkpoint, w.MaxChecks), pending: -1, at: -1}
}

// run streams req with the checks beside it and returns the reply (its
// Content is the text said up to the cut, when there is one) and the cut.
func (c *cutter) run(ctx context.Context, rec *recorder, cl llm.Client, req llm.Request, seg Segment, speaker string) (llm.Response, *Cut, error) {
	wctx := context.WithValue(ctx, watchKey{}, true)
	if sub, ok := SpeakingOf(ctx); ok {
		wctx = judging(wctx, sub) // the checks judge the speech
	}
	wctx, cancel := context.WithCancel(wctx)
	sctx, stop := context.WithCancel(ctx)
	c.stop = stop
	c.emit = func(delta string) {
		rec.emit(ctx, Event{Type: EventToken, Segment: seg, Speaker: speaker, Delta: delta, Time: rec.now()})
	}
	done := make(chan struct{})
	var panicked any
	go func() {
		defer close(done)
		defer func() {
			if panicked = recover(); panicked != nil {
				stop()
			}
		}()
		c.check(wctx)
	}()
	closed := false
	defer func() {
		// Also when the client panics: no goroutine outlives the call.
		cancel()
		stop()
		if !closed {
			close(c.queue)
		}
		<-done
	}()

	resp, err := rec.tapped(sctx, cl, req, seg, speaker, c.tap)

	c.mu.Lock()
	c.ended = true
	switch {
	case c.at >= 0:
		// Cut: no check runs after the one that cut.
	case err != nil:
		cancel() // the stream failed: no check matters
	case c.running != nil && !c.counts(len(c.running.said)):
		c.drop() // its checkpoint is in the last sentence
	}
	c.mu.Unlock()
	close(c.queue)
	closed = true
	<-done
	if panicked != nil {
		panic(panicked)
	}

	c.mu.Lock()
	defer c.mu.Unlock()
	switch {
	case ctx.Err() != nil:
		return llm.Response{}, nil, &TurnError{Segment: seg, Speaker: speaker, Purpose: req.Purpose, Err: ctx.Err()}
	case c.err != nil:
		return llm.Response{}, nil, c.err
	case c.at >= 0:
		c.show(c.at)
		return llm.Response{Content: string(c.text[:c.at])}, c.cut, nil
	case err == nil:
		// Said whole: the sink gets what it was not shown yet.
		c.show(len(c.text))
	}
	return resp, nil, err
}

// showable is how much of the text the sink may be shown: up to the cut,
// once one is decided; while a check is pending (or a cut is decided whose
// place is not yet known), up to the end of the sentence after the pending
// checkpoint, where its cut would fall, or, that end not yet known, up to
// what was scanned; else all of it. c.mu is held.
func (c *cutter) showable() int {
	switch {
	case c.at >= 0:
		return c.at
	case c.pending >= 0:
		return c.scan
	case c.decided < len(c.cps):
		if b := c.after(c.cps[c.decided]); b >= 0 {
			return b
		}
		return c.scan
	}
	return len(c.text)
}

// show gives the sink the text up to end (to showable, when end is -1)
// that it was not shown yet, in order, from whichever goroutine calls it:
// the first to find nobody showing shows, c.mu released while the sink
// takes each delta, and goes on while there is more to show; the others
// leave it to that one. c.mu is held on entry and on return.
func (c *cutter) show(end int) {
	if c.showing {
		return
	}
	c.showing = true
	for {
		to := end
		if to < 0 {
			to = c.showable()
		}
		if to <= c.shown {
			break
		}
		delta := string(c.text[c.shown:to])
		c.shown = to
		c.mu.Unlock()
		c.emit(delta)
		c.mu.Lock()
	}
	c.showing = false
}

// counts reports whether a check of the first n bytes counts: whether a
// sentence boundary follows them. Once the stream has ended, the
// boundaries are final. c.mu is held.
func (c *cutter) counts(n int) bool {
	return len(c.bounds) > 0 && c.bounds[len(c.bounds)-1] > n
}

// after returns the first boundary after n bytes, or -1. c.mu is held.
func (c *cutter) after(n int) int {
	for _, b := range c.bounds {
		if b > n {
			return b
		}
	}
	return -1
}

// tap takes each delta of the stream: it finds the sentence boundaries the
// delta completes, queues the checkpoints among them, shows the sink what
// it may be shown (see showable), and stops the stream at the cut once a
// check has decided one. It leaves the recorder nothing to show: the
// cutter shows the tokens itself.
func (c *cutter) tap(delta string) (string, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.at >= 0 {
		return "", errCut
	}
	c.text = append(c.text, delta...)
	for c.scan < len(c.text) {
		if !utf8.FullRune(c.text[c.scan:]) {
			break // the rest of the rune comes with the next delta
		}
		r, size := utf8.DecodeRune(c.text[c.scan:])
		c.step(r, size)
		if c.at >= 0 {
			c.stop()
			c.show(-1)
			return "", errCut
		}
	}
	c.show(-1)
	return "", nil
}

// step moves the boundary scanner over one rune. c.mu is held.
func (c *cutter) step(r rune, size int) {
	c.scan += size
	c.runes++
	switch c.state {
	case 1:
		switch {
		case endMark(r) || closer(r):
			c.cand, c.candR = c.scan, c.runes
			return
		case unicode.IsSpace(r):
			c.state = 2
			return
		}
		c.state = 0
	case 2:
		if unicode.IsSpace(r) {
			return
		}
		c.state = 0
		if !unicode.IsLower(r) {
			c.boundary()
			if c.at >= 0 {
				return
			}
		}
	}
	if endMark(r) {
		c.state, c.cand, c.candR = 1, c.scan, c.runes
	}
}

// boundary records the sentence boundary c.cand, just confirmed: it is
// where a decided cut falls, or maybe a checkpoint. c.mu is held.
func (c *cutter) boundary() {
	b := c.cand
	c.bounds = append(c.bounds, b)
	if c.pending >= 0 && b > c.pending {
		c.at = b
		return
	}
	if c.queued < c.w.MaxChecks && c.candR-c.lastR >= c.w.MinRunes {
		c.queued++
		c.lastR = c.candR
		c.cps = append(c.cps, b)
		c.queue <- checkpoint{said: string(c.text[:b])} // never blocks: the queue holds MaxChecks
	}
}

func endMark(r rune) bool { return r == '.' || r == '!' || r == '?' || r == '…' }

func closer(r rune) bool {
	return strings.ContainsRune("\"'”’»)]", r)
}

// check runs the checks in order until one cuts, one fails, or the queue
// is closed and drained.
func (c *cutter) check(ctx context.Context) {
	for cp := range c.queue {
		c.mu.Lock()
		skip := c.pending >= 0 || c.err != nil || (c.ended && !c.counts(len(cp.said)))
		var cctx context.Context
		if !skip {
			cctx, c.drop = context.WithCancel(ctx)
			c.running = &cp
		}
		if skip {
			c.decide()
			c.mu.Unlock()
			continue
		}
		c.mu.Unlock()
		tctx, judged := withTally(cctx)
		cut, usage, err := c.w.Check(tctx, cp.said)
		c.mu.Lock()
		dropped := cctx.Err() != nil
		c.drop()
		c.running, c.drop = nil, nil
		if ctx.Err() != nil || (dropped && c.ended && !c.counts(len(cp.said))) {
			// Cancelled with the utterance, or its checkpoint is in the
			// last sentence: it does not count.
			c.decide()
			c.mu.Unlock()
			continue
		}
		if err != nil {
			c.err = err
			c.stop()
			c.mu.Unlock()
			continue
		}
		c.results = append(c.results, checkResult{at: len(cp.said), usage: usage, judged: judged.counts()})
		if cut != nil {
			c.cut, c.pending = cut, len(cp.said)
			if b := c.after(len(cp.said)); b >= 0 {
				c.at = b
				c.stop()
			}
		}
		c.decide()
		c.mu.Unlock()
	}
}

// decide marks the next checkpoint decided and shows the sink what that
// lets it see, unless the stream has ended (run shows the rest, once every
// check is done) or a check failed. c.mu is held.
func (c *cutter) decide() {
	c.decided++
	if !c.ended && c.err == nil {
		c.show(-1)
	}
}

// watched is what the checks that counted came to: those whose checkpoint a
// sentence boundary followed, in the text as finally said (up to the cut).
func (c *cutter) watched() Watched {
	c.mu.Lock()
	defer c.mu.Unlock()
	var w Watched
	for _, r := range c.results {
		if c.at >= 0 || c.counts(r.at) {
			w.Checks++
			w.Usage = w.Usage.Add(r.usage)
			for p, n := range r.judged {
				if w.Judgments == nil {
					w.Judgments = map[string]JudgmentCounts{}
				}
				w.Judgments[p] = w.Judgments[p].add(n)
			}
		}
	}
	return w
}
