package duelogic

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"golang.org/x/sync/errgroup"

	"github.com/duelogic/duelogic/engine"
	"github.com/duelogic/duelogic/llm"
)

// FormatName names the Duelogic podcast format in a debate's first record.
const FormatName = "duelogic"

// Podcast is the Duelogic podcast debate as an [engine.Format]: make one
// with [NewPodcast] (or by name, engine.Open("duelogic", config)) and play
// it with engine.Run, or through an [Orchestrator], which adds manual
// interjections. &Podcast{} is the Format to resume with (engine.Resume):
// the stored configuration replaces its Config. engine.ResumeStored needs
// none.
//
// Its Config is stored with the debate as the Config's own JSON (the
// object engine.Open takes; see [Podcast.MarshalJSON]); the catalog the
// config is checked against is not ([WithCatalog] gives it again on
// resume).
type Podcast struct {
	Config Config `json:"config"`

	cat     *Catalog
	pending *pending // manual interjections, when an Orchestrator plays it
}

// The podcast registers itself: [engine.Open] decodes a JSON [Config] over
// [DefaultConfig] (the chairs given replace the default ones) and checks
// it; an unknown field or an invalid configuration is an
// [*engine.ValidationError].
func init() {
	engine.Register(FormatName, engine.ConfigOpener(FormatName, DefaultConfig, decodeConfig,
		func(c Config) (engine.Format[*Outcome], error) {
			p := &Podcast{Config: c}
			return p, p.Validate()
		}))
}

// configFields is a Config without its UnmarshalJSON method, so that
// engine.DecodeConfig sees its fields (and refuses unknown ones).
type configFields Config

// decodeConfig decodes config over cfg strictly: an unknown field or a
// wrong type is a [*ValidationError]; a "chairs" array replaces the chairs.
func decodeConfig(config json.RawMessage, cfg *Config) error {
	if hasKey(config, "chairs") {
		cfg.Chairs = nil
	}
	return engine.DecodeConfig(FormatName, config, (*configFields)(cfg))
}

// hasKey reports whether data is a JSON object with the key, matched as
// encoding/json matches field names (without regard to case).
func hasKey(data []byte, key string) bool {
	var probe map[string]json.RawMessage
	if json.Unmarshal(data, &probe) != nil {
		return false
	}
	for k := range probe {
		if strings.EqualFold(k, key) {
			return true
		}
	}
	return false
}

// MarshalJSON writes the podcast's configuration: its Config's JSON, the
// object [engine.Open] takes, so that a stored debate's configuration can
// be opened again, or patched with a JSON merge patch first.
func (p Podcast) MarshalJSON() ([]byte, error) { return json.Marshal(p.Config) }

// UnmarshalJSON reads a configuration written by [Podcast.MarshalJSON]
// over p.Config (see [Config.UnmarshalJSON]), or one in the shape stored by
// earlier versions, {"config": {...}}, so that their debates still resume.
func (p *Podcast) UnmarshalJSON(data []byte) error {
	var old struct {
		Config *json.RawMessage `json:"config"`
	}
	if json.Unmarshal(data, &old) == nil && old.Config != nil {
		data = *old.Config
	}
	if err := json.Unmarshal(data, &p.Config); err != nil {
		return fmt.Errorf("duelogic: decode the podcast's configuration: %w", err)
	}
	return nil
}

// NewPodcast returns the podcast format for cfg, checked against the
// default catalog (a [WithCatalog] option given to engine.Run checks it
// against another). A field of cfg left at its zero value takes
// [DefaultConfig]'s value where zero is no setting (the chairs, the models,
// the levels and styles, the exchanges, the aggressiveness, the tone, the
// show name) and keeps it where zero is a setting (booleans: off;
// TargetDurationMinutes: no pacing; CooldownSeconds: none), except that a
// whole zero Config is DefaultConfig(): NewPodcast(Config{}) is the
// default debate. It fails with a [*ValidationError] if the result is
// invalid.
func NewPodcast(cfg Config) (*Podcast, error) {
	p := &Podcast{Config: cfg.withDefaults()}
	if err := p.Validate(); err != nil {
		return nil, err
	}
	return p, nil
}

// Name is "duelogic".
func (*Podcast) Name() string { return FormatName }

// Purposes are the purposes of the podcast's model calls, for
// [engine.Purposer].
func (*Podcast) Purposes() []string {
	return []string{PurposeIntroduction, PurposeOpening, PurposeResponse, PurposeInterruption,
		PurposeInterjection, PurposeClosing, PurposeEvaluation, PurposeInterruptCheck}
}

// Validate checks the config against the podcast's catalog.
func (p *Podcast) Validate() error { return p.Config.ValidateCatalog(p.catalog()) }

func (p *Podcast) catalog() *Catalog {
	if p.cat == nil {
		return DefaultCatalog()
	}
	return p.cat
}

// Participants are the chairs' positions ([engine.Cast]).
func (p *Podcast) Participants() []string {
	var out []string
	for _, ch := range p.Config.Chairs {
		out = append(out, ch.Position)
	}
	return out
}

// Label names a speaker as transcripts do: "Claude Sonnet 4 (Utilitarian
// Chair)" or "Arbiter" ([engine.Cast]).
func (p *Podcast) Label(speaker string) string { return speakerLabel(p.Config, p.catalog(), speaker) }

// JudgeModel is the arbiter's model, which maps the arguments
// ([engine.Cast]).
func (p *Podcast) JudgeModel() string { return p.Config.Arbiter.ModelID }

// Outcome is what a podcast debate produces beyond its transcript: the
// config it ran with, the metrics checked against the seed's targets and the
// interruptions made. It is the Detail of the engine's result, and an
// [engine.Outcome]: see [Outcome.Verdict] and [Outcome.Documents].
type Outcome struct {
	Config  Config  `json:"config"`
	Metrics Metrics `json:"metrics"`
	// Interruptions are the interruptions made, in order.
	Interruptions []InterruptCandidate `json:"interruptions,omitempty"`

	// Debate and Transcript are the debate and everything said, for
	// [Outcome.Documents]. Play sets them (also when a finished debate is
	// resumed); they are not stored with the outcome, whose result holds
	// them already, so an Outcome decoded from JSON has neither.
	Debate     Debate      `json:"-"`
	Transcript []Utterance `json:"-"`
	// Labels names each speaker as the documents and front ends show it:
	// "Arbiter", "Chair 1 (Utilitarianism)" — the debate's catalog's names.
	Labels map[string]string `json:"labels,omitempty"`
}

// Play runs the segments in order: introduction, openings, exchange,
// synthesis.
func (p *Podcast) Play(ctx context.Context, s *engine.Session) (*Outcome, error) {
	pl := &play{
		s: s, cfg: p.Config, cat: p.catalog(), d: s.Debate(), p: p.pending,
		lastInterrupt: map[string]time.Time{}, systems: map[string]string{}, scopes: map[int64]responseScope{},
	}
	if pl.p == nil {
		pl.p = &pending{}
	}
	pl.p.open(p.Config)
	defer pl.p.close()
	steps := []struct {
		seg  Segment
		body func(context.Context) error
	}{
		{SegmentIntroduction, pl.introduction},
		{SegmentOpening, pl.openings},
		{SegmentExchange, pl.exchange},
		{SegmentSynthesis, pl.synthesis},
	}
	for _, st := range steps {
		pl.seg = st.seg
		if err := s.Segment(ctx, st.seg, st.body); err != nil {
			return nil, err
		}
	}
	tr := s.Transcript()
	return &Outcome{
		Config:        p.Config,
		Metrics:       computeMetrics(p.Config, tr, pl.scopes),
		Interruptions: append([]InterruptCandidate(nil), pl.interruptions...),
		Debate:        s.Debate(),
		Transcript:    tr,
		Labels:        labels(p.Config, p.catalog()),
	}, nil
}

// labels names the arbiter and every chair of cfg.
func labels(cfg Config, cat *Catalog) map[string]string {
	l := map[string]string{SpeakerArbiter: speakerLabel(cfg, cat, SpeakerArbiter)}
	for _, ch := range cfg.Chairs {
		l[ch.Position] = speakerLabel(cfg, cat, ch.Position)
	}
	return l
}

// play is one play (or replay) of a podcast debate.
type play struct {
	s   *engine.Session
	cfg Config
	cat *Catalog
	d   Debate
	p   *pending

	seg           Segment
	lastInterrupt map[string]time.Time
	interruptions []InterruptCandidate
	systems       map[string]string
	// scopes holds, by utterance Seq, the scope the arbiter judged each
	// evaluated response to have, for the metrics.
	scopes     map[int64]responseScope
	boundaries int
}

// evaluationRecord is the arbiter's review of one exchange response: the
// evaluation (nil when none was made or it could not be parsed) and the
// interrupt check with the engine's decision on it.
type evaluationRecord struct {
	UtteranceSeq int64               `json:"utteranceSeq"`
	Speaker      string              `json:"speaker"`
	Evaluation   *ResponseEvaluation `json:"evaluation"`
	// Scope is what the evaluation says the response counts toward in
	// the metrics; nil when it does not say.
	Scope      *responseScope      `json:"scope,omitempty"`
	Evaluated  bool                `json:"evaluated"`
	EvalError  string              `json:"evalError,omitempty"`
	Check      *InterruptDecision  `json:"check,omitempty"`
	CheckError string              `json:"checkError,omitempty"`
	Interrupt  *InterruptCandidate `json:"interrupt,omitempty"`
	Rejected   string              `json:"rejected,omitempty"`
}

// transcript is what was said so far.
func (r *play) transcript() []Utterance { return r.s.Transcript() }

// model returns the model ID of a speaker.
func (r *play) model(speaker string) string {
	if ch, ok := r.cfg.chair(speaker); ok {
		return ch.ModelID
	}
	return r.cfg.Arbiter.ModelID
}

func (r *play) request(purpose, speaker string, p Prompt) llm.Request {
	return llm.Request{Model: r.model(speaker), Purpose: purpose, MaxTokens: maxTokens(r.cfg, purpose), Messages: p.Messages()}
}

func (r *play) say(ctx context.Context, key string, u Utterance, p Prompt, purpose string) (Utterance, error) {
	return r.s.Say(ctx, key, u, r.request(purpose, u.Speaker, p))
}

func (r *play) chairSystem(position string) string {
	if s, ok := r.systems[position]; ok {
		return s
	}
	s, _ := ChairSystemPrompt(r.cfg, r.cat, position)
	r.systems[position] = s
	return s
}

func (r *play) label(speaker string) string { return speakerLabel(r.cfg, r.cat, speaker) }

// lastChairSpeaker is the position of the last chair who spoke, or "".
func (r *play) lastChairSpeaker() string {
	tr := r.transcript()
	for i := len(tr) - 1; i >= 0; i-- {
		if s := tr[i].Speaker; s != SpeakerArbiter {
			return s
		}
	}
	return ""
}

func (r *play) introduction(ctx context.Context) error {
	_, err := r.say(ctx, "intro",
		Utterance{Speaker: SpeakerArbiter, Segment: SegmentIntroduction, Kind: KindIntroduction},
		ArbiterIntroPrompt(r.cfg, r.cat, r.d), PurposeIntroduction)
	return err
}

// pace returns the words a chair's opening or response is asked for, with
// turnsLeft chair turns to go, this one included, exchangeTurnsLeft of them
// exchange responses: see [turnRange].
func (r *play) pace(turnsLeft, exchangeTurnsLeft int) (lo, hi int) {
	return turnRange(r.cfg, measure(r.transcript()), turnsLeft, exchangeTurnsLeft)
}

// planned is the number of exchange rounds to play, decided before round
// played+1 with openingsLeft openings to come: see [plannedExchanges].
func (r *play) planned(played, openingsLeft int) int {
	return plannedExchanges(r.cfg, measure(r.transcript()), played, openingsLeft)
}

func (r *play) openings(ctx context.Context) error {
	n := len(r.cfg.Chairs)
	for i, ch := range r.cfg.Chairs {
		if err := r.boundary(ctx); err != nil {
			return err
		}
		t := chairTurn{kind: KindOpening}
		x := r.planned(0, n-i)
		t.lo, t.hi = r.pace(n-i+n*x, n*x)
		p := Prompt{
			System: r.chairSystem(ch.Position),
			User:   chairTurnPrompt(r.cfg, r.d, r.window(), t),
		}
		if _, err := r.say(ctx, "open:"+ch.Position,
			Utterance{Speaker: ch.Position, Segment: SegmentOpening, Kind: KindOpening}, p, PurposeOpening); err != nil {
			return err
		}
	}
	return nil
}

// exchange runs the rounds: every chair responds once per round, in chair
// order, as seed 000's executeExchange plays them. An interruption takes no
// turn away: it is an utterance added after the response it cuts into (and
// before the arbiter's interjection on that response, if any), and the
// interrupter still gives its own response when its turn comes, also right
// after its interruption. The rounds are Flow.MaxExchanges, or fewer (3 at
// the least) when the target duration cannot hold them all: the number is
// decided again before each round, from what was said.
func (r *play) exchange(ctx context.Context) error {
	n := len(r.cfg.Chairs)
	for x := 1; ; x++ {
		planned := r.planned(x-1, 0)
		if x > planned {
			return nil
		}
		for i, ch := range r.cfg.Chairs {
			if err := r.boundary(ctx); err != nil {
				return err
			}
			left := n - i + n*(planned-x)
			if err := r.respond(ctx, x, ch, left); err != nil {
				return err
			}
		}
	}
}

// respond runs one chair's exchange turn: the response, with the interrupt
// checks beside its stream; when one cuts it off, the interruption; the
// arbiter's review of it (the evaluation, and when no check was made as it
// streamed, the interrupt check side by side, so that every response gets
// its check), then any interruption and interjection the review calls
// for. turnsLeft counts the chair turns to go, this one included, for the
// pacing.
func (r *play) respond(ctx context.Context, x int, ch Chair, turnsLeft int) error {
	key := fmt.Sprintf("x%d:%s", x, ch.Position)
	t := chairTurn{kind: KindResponse}
	// The turn it answers is the last one by someone else. A chair that
	// has cut into the response before it (its interruption, then maybe
	// the arbiter's call on that response) goes on from its interruption.
	var answered *Utterance
	tr := r.s.Tail(4)
	for i := len(tr) - 1; i >= 0; i-- {
		u := &tr[i]
		if u.Speaker != ch.Position && answered == nil {
			answered = u
		}
		if cut, ok := r.s.Utterance(u.ReplyTo); ok && u.Speaker == ch.Position && u.Kind == KindInterruption {
			t.cutIn = r.label(cut.Speaker)
		}
		if u.Speaker != ch.Position && u.Kind == KindResponse {
			break
		}
	}
	t.lo, t.hi = r.pace(turnsLeft, turnsLeft)
	if answered != nil {
		t.previous = r.label(answered.Speaker)
	}
	p := Prompt{System: r.chairSystem(ch.Position), User: chairTurnPrompt(r.cfg, r.d, r.window(), t)}
	u, cut, checked, err := r.speak(ctx, key, Utterance{Speaker: ch.Position, Segment: SegmentExchange, Kind: KindResponse, Exchange: x}, p)
	if err != nil {
		return err
	}
	if cut != nil {
		// The interrupter answers at once; the review follows.
		if err := r.interruption(ctx, key, u, *cut); err != nil {
			return err
		}
	}
	ev, err := r.reviewStep(ctx, "eval:"+key, u, answered, !checked)
	if err != nil {
		return err
	}
	if ev.Interrupt != nil {
		if err := r.interruption(ctx, key, u, *ev.Interrupt); err != nil {
			return err
		}
		cut = ev.Interrupt
	}
	if cut != nil && cut.InterruptingChair.Position == SpeakerArbiter {
		return nil // the arbiter has already called the response out
	}
	scope := fullScope
	if ev.Scope != nil {
		scope = *ev.Scope
	}
	if vt, ok := interjectionFor(r.cfg, ev.Evaluation, scope, u.Cut); ok {
		ij := Interjection{Type: vt, Target: ch.Position, Reason: ev.Evaluation.InterjectionReason, UtteranceSeq: u.Seq}
		if answered != nil && answered.Speaker != SpeakerArbiter && answered.Speaker != ch.Position {
			ij.Opponent = answered.Speaker
		}
		// Seed 000's executeExchange: the arbiter calls the response out
		// right after it (and after any interruption of it), before the
		// next chair speaks, whatever the interruption settings.
		return r.interject(ctx, key+":ij", ij)
	}
	return nil
}

// speak says a chair's exchange response. When interruptions are on, the
// interrupt check watches it as it streams (engine.Session.SayWatched) and
// may cut it off: the candidate that cut is returned, as stored with the
// utterance. checked reports that a check was made beside the stream; when
// none was — a client that cannot stream, or a response that ended before
// its first checkpoint (CheckMinChars) or within the sentence of it — the
// review checks the whole response, which is then marked, not cut.
func (r *play) speak(ctx context.Context, key string, u Utterance, p Prompt) (_ Utterance, cut *InterruptCandidate, checked bool, _ error) {
	req := r.request(PurposeResponse, u.Speaker, p)
	if !r.interruptionsOn() {
		u, err := r.s.Say(ctx, key, u, req)
		return u, nil, false, err
	}
	minChars, maxChecks := r.cfg.Interruptions.checks()
	speaker := u.Speaker
	// Cooldowns are judged at the time of the debate's latest record: the
	// checks run beside the stream, and what they decide must depend
	// neither on when they run nor on whether the debate was resumed.
	now := r.s.RecordTime()
	u, w, err := r.s.SayWatched(ctx, key, u, req, engine.Watch{
		Speaker: SpeakerArbiter, MinRunes: minChars, MaxChecks: maxChecks,
		Check: func(ctx context.Context, said string) (*engine.Cut, llm.Usage, error) {
			d, _, usage, err := r.interruptCheck(ctx, speaker, said)
			if err != nil || d == nil {
				return nil, usage, err
			}
			c, why := candidate(r.cfg, speaker, *d, now, r.lastInterrupt, r.d.ID+key)
			if c == nil {
				if d.ShouldInterrupt {
					r.s.Logger().Debug("duelogic: interruption not made", "debate", r.d.ID, "chair", speaker, "why", why)
				}
				return nil, usage, nil
			}
			return &engine.Cut{By: c.InterruptingChair.Position, Value: c}, usage, nil
		},
	})
	if err != nil || w.Cut == nil {
		return u, nil, w.Live && w.Checks > 0, err
	}
	cut = new(InterruptCandidate)
	if err := json.Unmarshal(w.Cut, cut); err != nil {
		return u, nil, true, fmt.Errorf("%w: the interruption that cut %s: %v", ErrCorruptLog, key, err)
	}
	return u, cut, true, nil
}

// reviewStep replays or makes and stores the arbiter's review of u; the
// interrupt check runs only when check is set.
func (r *play) reviewStep(ctx context.Context, key string, u Utterance, answered *Utterance, check bool) (evaluationRecord, error) {
	var ev evaluationRecord
	_, err := r.s.Step(ctx, key, RecordEvaluation, SpeakerArbiter, &ev, func(ctx context.Context) (any, llm.Usage, error) {
		ch, _ := r.cfg.chair(u.Speaker)
		cutBy := ""
		if u.Cut {
			cutBy = r.label(u.InterruptedBy)
		}
		// The evaluation and the check judge u: a tracer puts their
		// results on the span of its speech.
		review, usage, err := r.review(r.s.Judging(ctx, u.Seq), ch, answered, u.Content, cutBy, check)
		if err != nil {
			return nil, usage, err
		}
		review.UtteranceSeq, review.Speaker = u.Seq, u.Speaker
		if review.Check != nil {
			var why interruptRejection
			review.Interrupt, why = candidate(r.cfg, u.Speaker, *review.Check, r.s.Now(), r.lastInterrupt, fmt.Sprint(r.d.ID, u.Seq))
			review.Rejected = string(why)
		}
		return review, usage, nil
	}, func(int64) *engine.Announcement {
		if !ev.Evaluated {
			return nil
		}
		a := &engine.Announcement{Type: EventEvaluation, Segment: u.Segment, Speaker: u.Speaker}
		if ev.Evaluation != nil {
			a.Data = ev.Evaluation
		}
		return a
	})
	if err != nil {
		return ev, err
	}
	r.s.Amend(u.Seq, func(x *Utterance) { x.Evaluation = ev.Evaluation })
	if ev.Scope != nil {
		r.scopes[u.Seq] = *ev.Scope
	}
	return ev, nil
}

// review evaluates a response (cut off by cutBy, a speaker's label, when
// not "") and, when check is set, checks for an interruption, side by side.
func (r *play) review(ctx context.Context, ch Chair, answered *Utterance, content, cutBy string, check bool) (*evaluationRecord, llm.Usage, error) {
	ev := &evaluationRecord{}
	var evalUsage, checkUsage llm.Usage
	g, gctx := errgroup.WithContext(ctx)
	if r.cfg.Arbiter.AccountabilityLevel != Relaxed {
		ev.Evaluated = true
		g.Go(func() error {
			prev := ""
			if answered != nil {
				prev = r.label(answered.Speaker) + ":\n" + truncateRunes(answered.Content, windowTurnRunes)
			}
			var err error
			ev.Evaluation, ev.Scope, ev.EvalError, evalUsage, err = r.evaluate(gctx, ch, prev, content, cutBy)
			return err
		})
	}
	if check && r.interruptionsOn() {
		g.Go(func() error {
			var err error
			ev.Check, ev.CheckError, checkUsage, err = r.interruptCheck(gctx, ch.Position, content)
			return err
		})
	}
	err := g.Wait()
	return ev, evalUsage.Add(checkUsage), err
}

// interruptionsOn reports whether anyone may cut into a response: chairs
// (when there is another chair) or the arbiter.
func (r *play) interruptionsOn() bool {
	i := r.cfg.Interruptions
	return i.Enabled && ((i.AllowChairInterruptions && len(r.cfg.Chairs) > 1) || i.AllowArbiterInterruptions)
}

func ptr[T any](v T) *T { return &v }

// interruption records that c cut into u and gives the interrupter the
// floor: a chair answers the trigger with its opener; the arbiter speaks an
// interjection on the violation.
func (r *play) interruption(ctx context.Context, key string, u Utterance, c InterruptCandidate) error {
	by := c.InterruptingChair.Position
	mark := func(x *Utterance) { x.Interrupted, x.InterruptedBy = true, by }
	var made struct {
		UtteranceSeq int64              `json:"utteranceSeq"`
		Candidate    InterruptCandidate `json:"candidate"`
		At           time.Time          `json:"at"`
	}
	_, err := r.s.Step(ctx, "int:"+key, RecordInterruption, "", &made, func(context.Context) (any, llm.Usage, error) {
		made.UtteranceSeq, made.Candidate, made.At = u.Seq, c, r.s.Now()
		return made, llm.Usage{}, nil
	}, func(int64) *engine.Announcement {
		marked := u
		mark(&marked)
		return &engine.Announcement{Type: EventInterruption, Segment: u.Segment, Speaker: by, Utterance: &marked, Data: c}
	})
	if err != nil {
		return err
	}
	r.lastInterrupt[by] = made.At
	r.interruptions = append(r.interruptions, c)
	r.s.Amend(u.Seq, mark)
	if by == SpeakerArbiter {
		return r.interject(ctx, key+":int", Interjection{
			Type: arbiterViolation(c.TriggerReason), Target: u.Speaker, UtteranceSeq: u.Seq,
			Reason: fmt.Sprintf("%s: %q", c.TriggerReason, c.TriggerContent),
		})
	}
	p := Prompt{
		System: r.chairSystem(by),
		User: chairTurnPrompt(r.cfg, r.d, r.window(), chairTurn{
			kind: KindInterruption, interrupted: r.label(u.Speaker), reason: c.TriggerReason,
			trigger: c.TriggerContent, opener: c.SuggestedOpener,
		}),
	}
	_, err = r.say(ctx, key+":int", Utterance{
		Speaker: by, Segment: u.Segment, Kind: KindInterruption, Exchange: u.Exchange,
		ReplyTo: u.Seq, Reason: string(c.TriggerReason),
	}, p, PurposeInterruption)
	return err
}

// interject has the arbiter call a chair out.
func (r *play) interject(ctx context.Context, key string, ij Interjection) error {
	offending, cutBy := "", ""
	if u, ok := r.s.Utterance(ij.UtteranceSeq); ok {
		offending = u.Content
		if u.Cut {
			cutBy = r.label(u.InterruptedBy)
		}
	}
	x := 0
	if r.seg == SegmentExchange {
		tr := r.transcript()
		for i := len(tr) - 1; i >= 0; i-- {
			if tr[i].Exchange > 0 {
				x = tr[i].Exchange
				break
			}
		}
	}
	_, err := r.say(ctx, key, Utterance{
		Speaker: SpeakerArbiter, Segment: r.seg, Kind: KindInterjection, Exchange: x,
		ReplyTo: ij.UtteranceSeq, Reason: ij.Reason, Violation: ij.Type, Target: ij.Target,
	}, interjectionPrompt(r.cfg, r.cat, ij, offending, cutBy), PurposeInterjection)
	return err
}

// boundary is a turn boundary: the manual interjections stored for it are
// replayed, or, live, those queued by Interject are delivered.
func (r *play) boundary(ctx context.Context) error {
	r.boundaries++
	n := 0
	key := func() string { return fmt.Sprintf("b%d:manual:%d", r.boundaries, n) }
	for ; r.s.Next(key()); n++ {
		if _, err := r.s.Record(ctx, key(), Utterance{}); err != nil {
			return err
		}
	}
	if r.s.Resuming() {
		return nil
	}
	for _, ij := range r.p.drain() {
		if ij.Target == "" {
			ij.Target = r.lastChairSpeaker()
		}
		if ij.Target == "" && len(r.cfg.Chairs) > 0 {
			ij.Target = r.cfg.Chairs[0].Position
		}
		tr := r.transcript()
		for i := len(tr) - 1; i >= 0; i-- {
			if tr[i].Speaker == ij.Target {
				ij.UtteranceSeq = tr[i].Seq
				break
			}
		}
		if err := r.interject(ctx, key(), ij); err != nil {
			return err
		}
		n++
	}
	return nil
}

func (r *play) synthesis(ctx context.Context) error {
	if err := r.boundary(ctx); err != nil {
		return err
	}
	r.p.close()
	m := r.closingMaterial()
	am, err := r.s.ArgumentMap(ctx)
	if err != nil {
		return err
	}
	if am != nil {
		args, clashes := am.Closing(r.label)
		m.Arguments = args
		m.Clashes = append(m.Clashes, clashes...)
	}
	m.MinWords, m.MaxWords = closingRange(r.cfg, measure(r.transcript()).spoken)
	_, err = r.say(ctx, "closing",
		Utterance{Speaker: SpeakerArbiter, Segment: SegmentSynthesis, Kind: KindClosing},
		ArbiterClosingPrompt(r.cfg, r.cat, r.d, m), PurposeClosing)
	return err
}
