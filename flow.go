package duelogic

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"
	"time"

	"golang.org/x/sync/errgroup"

	"github.com/duelogic/duelogic/argumentation"
	"github.com/duelogic/duelogic/llm"
	"github.com/duelogic/duelogic/store"
)

// recordVersion is the version of the record layout written by this package.
const recordVersion = 1

// formatDuelogic names the Duelogic podcast format in a debate's first record.
const formatDuelogic = "duelogic"

type debateRecord struct {
	Key     string `json:"key"`
	Version int    `json:"version"`
	Format  string `json:"format"`
	Debate  Debate `json:"debate"`
	// Config is the Duelogic config; Spec the configuration of another
	// format.
	Config Config          `json:"config"`
	Spec   json.RawMessage `json:"spec,omitempty"`
	// Mapping reports whether the debate maps its arguments.
	Mapping bool `json:"mapping,omitempty"`
}

type segmentRecord struct {
	Key     string  `json:"key"`
	Segment Segment `json:"segment"`
}

type utteranceRecord struct {
	Key          string        `json:"key"`
	Utterance    Utterance     `json:"utterance"`
	Usage        llm.Usage     `json:"usage"`
	Interjection *Interjection `json:"interjection,omitempty"`
}

// evaluationRecord is the arbiter's review of one exchange response: the
// evaluation (nil when none was made or it could not be parsed) and the
// interrupt check with the engine's decision on it.
type evaluationRecord struct {
	Key          string              `json:"key"`
	UtteranceSeq int64               `json:"utteranceSeq"`
	Speaker      string              `json:"speaker"`
	Evaluation   *ResponseEvaluation `json:"evaluation"`
	Evaluated    bool                `json:"evaluated"`
	EvalError    string              `json:"evalError,omitempty"`
	Check        *InterruptDecision  `json:"check,omitempty"`
	CheckError   string              `json:"checkError,omitempty"`
	Interrupt    *InterruptCandidate `json:"interrupt,omitempty"`
	Rejected     string              `json:"rejected,omitempty"`
	Usage        llm.Usage           `json:"usage"`
}

type interruptionRecord struct {
	Key          string             `json:"key"`
	UtteranceSeq int64              `json:"utteranceSeq"`
	Candidate    InterruptCandidate `json:"candidate"`
}

type endedRecord struct {
	Key     string    `json:"key"`
	Usage   llm.Usage `json:"usage"`
	Metrics Metrics   `json:"metrics"`
}

// run is one execution (or resumption) of a debate.
type run struct {
	o      *Orchestrator
	cfg    Config
	cat    *Catalog
	d      Debate
	p      *pending
	j      *journal
	rec    *recorder
	stream bool

	seg           Segment
	transcript    []Utterance
	index         map[int64]int
	usageMu       sync.Mutex
	usage         map[string]llm.Usage
	lastInterrupt map[string]time.Time
	interruptions []InterruptCandidate
	systems       map[string]string
	boundaries    int
	mapper        *mapper
	mapSem        *argumentation.Semantics // nil: no argument mapping
	argMap        *ArgumentMap
}

func (o *Orchestrator) newRun(d Debate, cfg Config, p *pending, j *journal) *run {
	_, streams := o.client.(llm.Streamer)
	return &run{
		o: o, cfg: cfg, cat: o.cat, d: d, p: p, j: j, stream: streams,
		rec:           &recorder{id: d.ID, st: o.store, sink: o.sink, now: o.now, logger: o.logger},
		index:         map[int64]int{},
		usage:         map[string]llm.Usage{},
		lastInterrupt: map[string]time.Time{},
		systems:       map[string]string{},
	}
}

func (r *run) execute(ctx context.Context) (*Result, error) {
	r.rec.start(ctx)
	mctx, cancel := context.WithCancel(ctx)
	r.startMapper(mctx)
	stopped := false
	defer func() {
		if !stopped { // a panic: the mapper and the writer still end first
			cancel()
			r.finishMapping()
			r.rec.stop()
		}
	}()
	res, err := r.play(ctx)
	if err != nil {
		cancel()
	}
	r.finishMapping()
	cancel()
	stopped = true
	if serr := r.rec.stop(); serr != nil {
		return nil, serr
	}
	if err != nil {
		return nil, err
	}
	return res, nil
}

func (r *run) play(ctx context.Context) (*Result, error) {
	if r.j == nil {
		rec, err := r.rec.append(ctx, RecordDebate, debateRecord{
			Key: RecordDebate, Version: recordVersion, Format: formatDuelogic, Debate: r.d, Config: r.cfg,
			Mapping: r.mapSem != nil,
		})
		if err != nil {
			return nil, err
		}
		r.rec.announce(Event{Type: EventDebateStarted, Seq: rec.Seq})
	}
	steps := []struct {
		seg  Segment
		body func(context.Context) error
	}{
		{SegmentIntroduction, r.introduction},
		{SegmentOpening, r.openings},
		{SegmentExchange, r.exchange},
		{SegmentSynthesis, r.synthesis},
	}
	for _, s := range steps {
		if err := r.segment(ctx, s.seg, s.body); err != nil {
			return nil, err
		}
	}
	res := r.result()
	res.Format = formatDuelogic
	const key = "end"
	if _, ok, err := r.j.must(key); err != nil {
		return nil, err
	} else if ok {
		return res, nil
	}
	rec, err := r.rec.append(ctx, RecordDebateEnded, endedRecord{Key: key, Usage: res.Usage, Metrics: res.Metrics})
	if err != nil {
		return nil, err
	}
	r.rec.announce(Event{Type: EventDebateEnded, Seq: rec.Seq, Result: res})
	if r.j.replaying() {
		return nil, fmt.Errorf("%w: records after the end of debate %s", ErrCorruptLog, r.d.ID)
	}
	return res, nil
}

func (r *run) segment(ctx context.Context, seg Segment, body func(context.Context) error) error {
	r.seg = seg
	if err := r.mark(ctx, RecordSegmentStarted, EventSegmentStarted, seg); err != nil {
		return err
	}
	if err := body(ctx); err != nil {
		return err
	}
	return r.mark(ctx, RecordSegmentEnded, EventSegmentEnded, seg)
}

func (r *run) mark(ctx context.Context, typ string, ev EventType, seg Segment) error {
	key := typ + ":" + string(seg)
	if _, ok, err := r.j.must(key); err != nil || ok {
		return err
	}
	rec, err := r.rec.append(ctx, typ, segmentRecord{Key: key, Segment: seg})
	if err != nil {
		return err
	}
	r.rec.announce(Event{Type: ev, Seq: rec.Seq, Segment: seg})
	return nil
}

// model returns the model ID of a speaker.
func (r *run) model(speaker string) string {
	if ch, ok := r.cfg.chair(speaker); ok {
		return ch.ModelID
	}
	return r.cfg.Arbiter.ModelID
}

func (r *run) request(purpose, speaker string, p Prompt) llm.Request {
	return r.hooked(llm.Request{Model: r.model(speaker), Purpose: purpose, Messages: p.Messages()})
}

// hooked passes req's messages through the host's prompt hook.
func (r *run) hooked(req llm.Request) llm.Request {
	if r.o.hook != nil {
		req.Messages = r.o.hook(req.Purpose, req.Messages)
	}
	return req
}

// charge adds usage to speaker's account; side steps call it from other
// goroutines.
func (r *run) charge(speaker string, usage llm.Usage) {
	r.usageMu.Lock()
	r.usage[speaker] = r.usage[speaker].Add(usage)
	r.usageMu.Unlock()
}

// generate calls the model for u's speaker, streaming tokens.
func (r *run) generate(ctx context.Context, u *Utterance, req llm.Request) (llm.Usage, error) {
	resp, err := r.rec.call(ctx, r.o.client, req, u.Segment, u.Speaker, r.stream)
	if err != nil {
		return llm.Usage{}, err
	}
	u.Content = strings.TrimSpace(resp.Content)
	if u.Content == "" {
		return llm.Usage{}, &TurnError{Segment: u.Segment, Speaker: u.Speaker, Purpose: req.Purpose, Err: errors.New("empty reply")}
	}
	u.Model = req.Model
	if resp.Model != "" {
		u.Model = resp.Model
	}
	return resp.Usage, nil
}

// keep stores a generated utterance and announces it.
func (r *run) keep(ctx context.Context, key string, u Utterance, usage llm.Usage, ij *Interjection) (Utterance, error) {
	rec, err := r.rec.append(ctx, RecordUtterance, utteranceRecord{Key: key, Utterance: u, Usage: usage, Interjection: ij})
	if err != nil {
		return u, err
	}
	u.Seq = rec.Seq
	r.add(u, usage)
	cp := u
	r.rec.announce(Event{Type: EventUtterance, Seq: u.Seq, Segment: u.Segment, Speaker: u.Speaker, Utterance: &cp})
	return u, nil
}

// replayed takes the stored utterance of key, if the log holds it.
func (r *run) replayed(key string) (Utterance, bool, error) {
	rec, ok, err := r.j.must(key)
	if err != nil || !ok {
		return Utterance{}, false, err
	}
	return r.addRecord(rec)
}

func (r *run) addRecord(rec store.Record) (Utterance, bool, error) {
	ur, err := decode[utteranceRecord](rec)
	if err != nil {
		return Utterance{}, false, err
	}
	u := ur.Utterance
	u.Seq = rec.Seq
	r.add(u, ur.Usage)
	return u, true, nil
}

// say replays or generates the utterance of key.
func (r *run) say(ctx context.Context, key string, u Utterance, p Prompt, purpose string, ij *Interjection) (Utterance, error) {
	if got, ok, err := r.replayed(key); err != nil || ok {
		return got, err
	}
	usage, err := r.generate(ctx, &u, r.request(purpose, u.Speaker, p))
	if err != nil {
		return u, err
	}
	return r.keep(ctx, key, u, usage, ij)
}

func (r *run) add(u Utterance, usage llm.Usage) {
	r.index[u.Seq] = len(r.transcript)
	r.transcript = append(r.transcript, u)
	r.charge(u.Speaker, usage)
	r.mapTurn(u)
}

func (r *run) chairSystem(position string) string {
	if s, ok := r.systems[position]; ok {
		return s
	}
	s, _ := ChairSystemPrompt(r.cfg, r.cat, position)
	r.systems[position] = s
	return s
}

func (r *run) label(speaker string) string { return speakerLabel(r.cfg, r.cat, speaker) }

// lastChairSpeaker is the position of the last chair who spoke, or "".
func (r *run) lastChairSpeaker() string {
	for i := len(r.transcript) - 1; i >= 0; i-- {
		if s := r.transcript[i].Speaker; s != SpeakerArbiter {
			return s
		}
	}
	return ""
}

func (r *run) introduction(ctx context.Context) error {
	_, err := r.say(ctx, "intro",
		Utterance{Speaker: SpeakerArbiter, Segment: SegmentIntroduction, Kind: KindIntroduction},
		ArbiterIntroPrompt(r.cfg, r.cat, r.d), PurposeIntroduction, nil)
	return err
}

func (r *run) openings(ctx context.Context) error {
	for _, ch := range r.cfg.Chairs {
		if err := r.boundary(ctx); err != nil {
			return err
		}
		p := Prompt{
			System: r.chairSystem(ch.Position),
			User:   chairTurnPrompt(r.cfg, r.d, r.window(), chairTurn{kind: KindOpening}),
		}
		if _, err := r.say(ctx, "open:"+ch.Position,
			Utterance{Speaker: ch.Position, Segment: SegmentOpening, Kind: KindOpening}, p, PurposeOpening, nil); err != nil {
			return err
		}
	}
	return nil
}

func (r *run) exchange(ctx context.Context) error {
	for x := 1; x <= r.cfg.Flow.MaxExchanges; x++ {
		for _, ch := range r.cfg.Chairs {
			if err := r.boundary(ctx); err != nil {
				return err
			}
			if err := r.respond(ctx, x, ch); err != nil {
				return err
			}
		}
	}
	return nil
}

// respond runs one chair's exchange turn: the response, the arbiter's review
// of it (evaluation and interrupt check side by side, while the response is
// stored), then any interruption and interjection the review calls for.
func (r *run) respond(ctx context.Context, x int, ch Chair) error {
	key := fmt.Sprintf("x%d:%s", x, ch.Position)
	var answered *Utterance
	if n := len(r.transcript); n > 0 {
		a := r.transcript[n-1]
		answered = &a
	}
	u, replayed, err := r.replayed(key)
	if err != nil {
		return err
	}
	var review *evaluationRecord
	if !replayed {
		u = Utterance{Speaker: ch.Position, Segment: SegmentExchange, Kind: KindResponse, Exchange: x}
		t := chairTurn{kind: KindResponse}
		if answered != nil {
			t.previous = r.label(answered.Speaker)
		}
		p := Prompt{System: r.chairSystem(ch.Position), User: chairTurnPrompt(r.cfg, r.d, r.window(), t)}
		usage, err := r.generate(ctx, &u, r.request(PurposeResponse, ch.Position, p))
		if err != nil {
			return err
		}
		// The review depends only on the content: run it while the
		// utterance is stored and announced.
		rctx, cancel := context.WithCancel(ctx)
		var g errgroup.Group
		content := u.Content
		g.Go(func() error {
			var err error
			review, err = r.review(rctx, ch, answered, content)
			return err
		})
		u, err = r.keep(ctx, key, u, usage, nil)
		if err != nil {
			cancel()
			g.Wait()
			return err
		}
		err = g.Wait()
		cancel()
		if err != nil {
			return err
		}
	}
	ev, err := r.reviewStep(ctx, "eval:"+key, u, answered, review)
	if err != nil {
		return err
	}
	if ev.Interrupt != nil {
		if err := r.interruption(ctx, key, u, *ev.Interrupt); err != nil {
			return err
		}
	}
	if vt, ok := InterjectionFor(r.cfg, ev.Evaluation); ok {
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

// reviewStep replays or stores the review of u (computing it now when the
// response was replayed but its review was not stored).
func (r *run) reviewStep(ctx context.Context, key string, u Utterance, answered *Utterance, review *evaluationRecord) (evaluationRecord, error) {
	if rec, ok, err := r.j.must(key); err != nil {
		return evaluationRecord{}, err
	} else if ok {
		ev, err := decode[evaluationRecord](rec)
		if err != nil {
			return ev, err
		}
		r.applyReview(u.Seq, ev)
		return ev, nil
	}
	if review == nil {
		ch, _ := r.cfg.chair(u.Speaker)
		var err error
		if review, err = r.review(ctx, ch, answered, u.Content); err != nil {
			return evaluationRecord{}, err
		}
	}
	ev := *review
	ev.Key, ev.UtteranceSeq, ev.Speaker = key, u.Seq, u.Speaker
	now := r.rec.now()
	if ev.Check != nil {
		var why interruptRejection
		ev.Interrupt, why = candidate(r.cfg, u.Speaker, *ev.Check, now, r.lastInterrupt, fmt.Sprint(r.d.ID, u.Seq))
		ev.Rejected = string(why)
	}
	rec, err := r.rec.append(ctx, RecordEvaluation, ev)
	if err != nil {
		return ev, err
	}
	r.applyReview(u.Seq, ev)
	if ev.Evaluated {
		r.rec.announce(Event{Type: EventEvaluation, Seq: rec.Seq, Segment: u.Segment, Speaker: u.Speaker, Evaluation: ev.Evaluation})
	}
	return ev, nil
}

func (r *run) applyReview(seq int64, ev evaluationRecord) {
	r.charge(SpeakerArbiter, ev.Usage)
	if i, ok := r.index[seq]; ok {
		r.transcript[i].Evaluation = ev.Evaluation
	}
}

// review evaluates a response and checks for an interruption, side by side.
func (r *run) review(ctx context.Context, ch Chair, answered *Utterance, content string) (*evaluationRecord, error) {
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
			req := r.request(PurposeEvaluation, SpeakerArbiter, EvaluationPrompt(r.cfg, r.cat, ch.Position, prev, content))
			req.JSON, req.Temperature, req.MaxTokens = true, ptr(0.2), 700
			resp, err := r.rec.call(gctx, r.o.client, req, SegmentExchange, SpeakerArbiter, false)
			if err != nil {
				return err
			}
			evalUsage = resp.Usage
			if ev.Evaluation, err = ParseEvaluation(resp.Content); err != nil {
				ev.EvalError = err.Error()
				r.o.logger.Warn("duelogic: evaluation unscored", "debate", r.d.ID, "chair", ch.Position, "err", err)
			}
			return nil
		})
	}
	if r.interruptionsOn() {
		g.Go(func() error {
			req := r.request(PurposeInterruptCheck, SpeakerArbiter, InterruptCheckPrompt(r.cfg, r.cat, r.d, ch.Position, content))
			req.JSON, req.Temperature, req.MaxTokens = true, ptr(0.3), 200
			resp, err := r.rec.call(gctx, r.o.client, req, SegmentExchange, SpeakerArbiter, false)
			if err != nil {
				return err
			}
			checkUsage = resp.Usage
			d, err := ParseInterruptDecision(resp.Content)
			if err != nil {
				ev.CheckError = err.Error()
				r.o.logger.Warn("duelogic: interrupt check unreadable", "debate", r.d.ID, "chair", ch.Position, "err", err)
				return nil
			}
			ev.Check = &d
			return nil
		})
	}
	if err := g.Wait(); err != nil {
		return nil, err
	}
	ev.Usage = evalUsage.Add(checkUsage)
	return ev, nil
}

func (r *run) interruptionsOn() bool {
	i := r.cfg.Interruptions
	return i.Enabled && i.AllowChairInterruptions && len(r.cfg.Chairs) > 1
}

func ptr[T any](v T) *T { return &v }

// interruption records that c cut into u and gives the interrupter the floor.
func (r *run) interruption(ctx context.Context, key string, u Utterance, c InterruptCandidate) error {
	ikey := "int:" + key
	rec, ok, err := r.j.must(ikey)
	if err != nil {
		return err
	}
	if !ok {
		rec, err = r.rec.append(ctx, RecordInterruption, interruptionRecord{Key: ikey, UtteranceSeq: u.Seq, Candidate: c})
		if err != nil {
			return err
		}
	}
	by := c.InterruptingChair.Position
	r.lastInterrupt[by] = rec.Time
	r.interruptions = append(r.interruptions, c)
	var marked Utterance
	if i, ok := r.index[u.Seq]; ok {
		r.transcript[i].Interrupted, r.transcript[i].InterruptedBy = true, by
		marked = r.transcript[i]
	}
	if !ok {
		cc := c
		r.rec.announce(Event{Type: EventInterruption, Seq: rec.Seq, Segment: u.Segment, Speaker: by, Interrupt: &cc, Utterance: &marked})
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
	}, p, PurposeInterruption, nil)
	return err
}

// interject has the arbiter call a chair out.
func (r *run) interject(ctx context.Context, key string, ij Interjection) error {
	offending := ""
	if i, ok := r.index[ij.UtteranceSeq]; ok {
		offending = r.transcript[i].Content
	}
	x := 0
	if r.seg == SegmentExchange {
		for i := len(r.transcript) - 1; i >= 0; i-- {
			if r.transcript[i].Exchange > 0 {
				x = r.transcript[i].Exchange
				break
			}
		}
	}
	_, err := r.say(ctx, key, Utterance{
		Speaker: SpeakerArbiter, Segment: r.seg, Kind: KindInterjection, Exchange: x,
		ReplyTo: ij.UtteranceSeq, Reason: ij.Reason, Violation: ij.Type, Target: ij.Target,
	}, InterjectionPrompt(r.cfg, r.cat, ij, offending), PurposeInterjection, &ij)
	return err
}

// boundary is a turn boundary: the manual interjections stored for it are
// replayed, or, live, those queued by Interject are delivered.
func (r *run) boundary(ctx context.Context) error {
	if err := r.mapper.failure(); err != nil {
		return err
	}
	r.boundaries++
	n := 0
	key := func() string { return fmt.Sprintf("b%d:manual:%d", r.boundaries, n) }
	for ; r.j.replaying(); n++ {
		rec, ok := r.j.take(key())
		if !ok {
			return nil
		}
		if _, _, err := r.addRecord(rec); err != nil {
			return err
		}
	}
	for _, ij := range r.p.drain() {
		if ij.Target == "" {
			ij.Target = r.lastChairSpeaker()
		}
		if ij.Target == "" && len(r.cfg.Chairs) > 0 {
			ij.Target = r.cfg.Chairs[0].Position
		}
		for i := len(r.transcript) - 1; i >= 0; i-- {
			if r.transcript[i].Speaker == ij.Target {
				ij.UtteranceSeq = r.transcript[i].Seq
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

func (r *run) synthesis(ctx context.Context) error {
	if err := r.boundary(ctx); err != nil {
		return err
	}
	r.p.close()
	m := r.closingMaterial()
	if r.mapper != nil {
		if err := r.finishMapping(); err != nil {
			return err
		}
		am, err := r.mapper.argumentMap()
		if err != nil {
			return fmt.Errorf("duelogic: score the argument map of %s: %w", r.d.ID, err)
		}
		r.argMap = am
		args, clashes := am.closingArguments(r.label)
		m.Arguments = args
		m.Clashes = append(m.Clashes, clashes...)
	}
	_, err := r.say(ctx, "closing",
		Utterance{Speaker: SpeakerArbiter, Segment: SegmentSynthesis, Kind: KindClosing},
		ArbiterClosingPrompt(r.cfg, r.cat, r.d, m), PurposeClosing, nil)
	return err
}

func (r *run) session() *Session { return &Session{r: r} }

func (r *run) result() *Result {
	res := &Result{
		DebateID:       r.d.ID,
		Debate:         r.d,
		Config:         r.cfg,
		Transcript:     append([]Utterance(nil), r.transcript...),
		UsageBySpeaker: map[string]llm.Usage{},
		Interruptions:  append([]InterruptCandidate(nil), r.interruptions...),
	}
	r.usageMu.Lock()
	for s, u := range r.usage {
		res.UsageBySpeaker[s] = u
		res.Usage = res.Usage.Add(u)
	}
	r.usageMu.Unlock()
	res.Metrics = computeMetrics(r.cfg, res.Transcript)
	res.Arguments = r.argMap
	return res
}
