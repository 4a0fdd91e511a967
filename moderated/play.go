package moderated

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"
	"unicode/utf8"

	"golang.org/x/sync/errgroup"

	"github.com/duelogic/duelogic/catalog"
	"github.com/duelogic/duelogic/engine"
	"github.com/duelogic/duelogic/internal/jsonsec"
	"github.com/duelogic/duelogic/llm"
)

// maxParallelArguments bounds the debaters writing their arguments at once,
// so a store failure wastes at most the calls in flight: the engine's
// promise of at most three.
const maxParallelArguments = 3

// game is one play of a moderated debate: the format's configuration and
// hooks, and the state Play builds. Every Play starts a fresh game, so a
// [Format] can be run and resumed any number of times, even at once.
type game struct {
	cfg          Config
	checkpointer Checkpointer
	clarifier    Clarifier
	approver     Approver
	followUp     func(context.Context, Synthesis) error

	ps        *perspectives
	analysis  Analysis
	seats     []Perspective
	rounds    []Round
	guidance  []string // all guidance given, in order
	pending   string   // guidance for the next round
	muted     map[catalog.Framework]bool
	end       EndReason
	synthesis Synthesis
	// rejected are the syntheses the people rejected before synthesis:
	// the first, when the moderator revised it.
	rejected   []Synthesis
	followedUp bool
	// clarification is what came of the moderator's clarifying question,
	// nil when the prompt was clear.
	clarification *Clarification
	// spent is the time the debate has spent, on the session's clock: the
	// last stored elapsed record, plus what this call spent since.
	spent time.Duration
	now   func() time.Time
}

// elapsed is the value of a RecordElapsed record: the time spent, in
// seconds; a record of an earlier version holds nanoseconds in SpentNs.
type elapsed struct {
	Spent   jsonsec.Seconds `json:"spent"`
	SpentNs *int64          `json:"spentNs,omitempty"`
}

// duration is the time e holds.
func (e elapsed) duration() time.Duration { return elapsedOf(e.Spent, e.SpentNs) }

// turn is a debater's reply as stored by its step.
type turn struct {
	Content    string `json:"content"`
	Model      string `json:"model"`
	Tokens     int    `json:"tokens"`
	OverBudget bool   `json:"overBudget,omitempty"`
	// Truncated: the model stopped at the request's token cap.
	Truncated bool `json:"truncated,omitempty"`
}

// Play analyses the question, runs rounds until the moderator, the round
// cap or a checkpoint ends them, and writes the synthesis. It implements
// [engine.Format]; hosts call [engine.Run] and [engine.Resume], not Play.
func (f *Format) Play(ctx context.Context, s *engine.Session) (*Outcome, error) {
	if err := f.Config.Validate(); err != nil {
		return nil, err
	}
	ps, err := newPerspectives(f.Config)
	if err != nil {
		return nil, err
	}
	g := &game{
		cfg: f.Config, checkpointer: f.checkpointer, clarifier: f.clarifier, approver: f.approver, followUp: f.followUp,
		ps: ps, muted: map[catalog.Framework]bool{}, now: s.Now,
	}
	if err := g.play(ctx, s); err != nil {
		return nil, err
	}
	return g.outcome(), nil
}

func (g *game) play(ctx context.Context, s *engine.Session) error {
	if err := s.Segment(ctx, SegmentAnalysis, func(ctx context.Context) error {
		if err := g.clarify(ctx, s); err != nil {
			return err
		}
		if err := g.timed(ctx, 0, nil, true, func(ctx context.Context) error { return g.analyse(ctx, s) }); err != nil {
			return err
		}
		return g.storeElapsed(ctx, s, "analysis:elapsed")
	}); err != nil {
		return err
	}
	if err := s.Segment(ctx, SegmentRounds, func(ctx context.Context) error { return g.playRounds(ctx, s) }); err != nil {
		return err
	}
	return s.Segment(ctx, SegmentSynthesis, func(ctx context.Context) error { return g.synthesize(ctx, s) })
}

// timed runs body with a deadline: limit (when positive), or, when total
// is set, what is left of the total time if that is less. A body stopped by
// that deadline returns an error wrapping limitErr or ErrTotalTimeout. The
// time body takes is added to the time spent.
func (g *game) timed(ctx context.Context, limit time.Duration, limitErr error, total bool, body func(context.Context) error) error {
	d, cause := limit, limitErr
	if total {
		left := g.cfg.TotalTimeout - g.spent
		if left <= 0 {
			return fmt.Errorf("%w: %v used", ErrTotalTimeout, g.cfg.TotalTimeout)
		}
		if limit <= 0 || left < limit {
			d, cause = left, ErrTotalTimeout
		}
	}
	// The deadline is real time; what the budget has spent is read on the
	// session's clock (WithClock), the host's time.
	start := g.now()
	tctx, cancel := context.WithTimeoutCause(ctx, d, cause)
	defer cancel()
	err := body(tctx)
	g.spent += max(g.now().Sub(start), 0)
	if err != nil && ctx.Err() == nil && errors.Is(context.Cause(tctx), cause) {
		return fmt.Errorf("%w after %v: %w", cause, d, err)
	}
	return err
}

// storeElapsed stores the time the debate has spent so far under key or,
// replaying, takes it from the log: so the total timeout counts the time of
// every Run and Resume, and not the time between them.
func (g *game) storeElapsed(ctx context.Context, s *engine.Session, key string) error {
	if legacy(s, key) {
		return nil
	}
	var e elapsed
	if _, err := s.Step(ctx, key, RecordElapsed, SpeakerModerator, &e, func(context.Context) (any, llm.Usage, error) {
		return elapsed{Spent: jsonsec.Seconds(g.spent)}, llm.Usage{}, nil
	}, nil); err != nil {
		return err
	}
	g.spent = e.duration()
	return nil
}

// announce announces a stored value as an event of type typ whose Data is
// v's result, read once the value is decoded.
func announce(typ engine.EventType, seg engine.Segment, speaker string, v func() any) func(int64) *engine.Announcement {
	return func(int64) *engine.Announcement {
		return &engine.Announcement{Type: typ, Segment: seg, Speaker: speaker, Data: v()}
	}
}

// ask asks the moderator for a judgment (see [engine.Judge]): once more
// when the reply cannot be read; ok is false when neither reply could be,
// and the caller applies its documented default.
func ask[T any](ctx context.Context, s *engine.Session, seg engine.Segment, req llm.Request, parse func(string) (T, error)) (v T, usage llm.Usage, ok bool, err error) {
	v, res, usage, err := engine.Judge(ctx, s, req, seg, SpeakerModerator, parse)
	return v, usage, err == nil && !res.Defaulted, err
}

// analyse stores the moderator's analysis and the perspectives assigned.
func (g *game) analyse(ctx context.Context, s *engine.Session) error {
	d := s.Debate()
	if _, err := s.Step(ctx, "analysis", RecordAnalysis, SpeakerModerator, &g.analysis,
		func(ctx context.Context) (any, llm.Usage, error) {
			a, usage, ok, err := ask(ctx, s, SegmentAnalysis, analysisRequest(g.cfg, d, g.clarification, g.ps),
				func(reply string) (Analysis, error) { return parseAnalysis(reply, d.Proposition) })
			if err != nil {
				return nil, usage, err
			}
			if !ok {
				a = fallbackAnalysis(d.Proposition)
			}
			return a, usage, nil
		}, announce(EventAnalysis, SegmentAnalysis, SpeakerModerator, func() any { return g.analysis })); err != nil {
		return err
	}
	if _, err := s.Step(ctx, "assignment", RecordAssignment, SpeakerModerator, &g.seats,
		func(context.Context) (any, llm.Usage, error) { return g.assign(d), llm.Usage{}, nil },
		announce(EventAssignment, SegmentAnalysis, SpeakerModerator, func() any { return g.seats })); err != nil {
		return err
	}
	_, err := s.Record(ctx, "assignment:announce", engine.Utterance{
		Speaker: SpeakerModerator, Segment: SegmentAnalysis, Kind: KindAssignment, Content: g.assignmentText(d),
	})
	return err
}

// assign seats the configured perspectives, or chooses them from the
// analysis and the question's keywords, balanced.
func (g *game) assign(d engine.Debate) []Perspective {
	ids := g.cfg.Perspectives
	if len(ids) == 0 {
		n := g.cfg.Debaters
		if n == 0 {
			n = g.analysis.Debaters
		}
		n = min(max(n, 2), 4)
		text := d.Proposition + "\n" + strings.Join(g.analysis.Constraints, "\n")
		ids = g.ps.choose(text, g.analysis.Domain, g.analysis.Suggested, n)
	}
	seats := make([]Perspective, len(ids))
	for i, id := range ids {
		seats[i] = g.ps.perspective(id, g.cfg.DebaterModels[i%len(g.cfg.DebaterModels)])
	}
	return seats
}

func (g *game) assignmentText(d engine.Debate) string {
	var b strings.Builder
	fmt.Fprintf(&b, "The question (domain: %s): %s", g.analysis.Domain, cut(oneLine(d.Proposition), 300))
	if len(g.analysis.Constraints) > 0 {
		b.WriteString("\nConstraints I read in it: " + strings.Join(g.analysis.Constraints, "; ") + ".")
	}
	b.WriteString("\nArguing it:")
	for _, p := range g.seats {
		fmt.Fprintf(&b, "\n- %s: priorities %s; %s", p.Name, strings.Join(p.Priorities, ", "), lowerFirst(strings.TrimSuffix(p.TradeOffs, ".")))
	}
	return b.String()
}

// name is a perspective's name.
func (g *game) name(id catalog.Framework) string {
	for _, p := range g.seats {
		if p.ID == id {
			return p.Name
		}
	}
	return string(id)
}

// active are the seated perspectives not muted.
func (g *game) active() []Perspective {
	var out []Perspective
	for _, p := range g.seats {
		if !g.muted[p.ID] {
			out = append(out, p)
		}
	}
	return out
}

func (g *game) last() *Round {
	if len(g.rounds) == 0 {
		return nil
	}
	return &g.rounds[len(g.rounds)-1]
}

func (g *game) playRounds(ctx context.Context, s *engine.Session) error {
	for n := 1; ; n++ {
		if g.spent >= g.cfg.TotalTimeout {
			g.end = EndTimeout
			return nil
		}
		// The round's model calls run under its timeout, or what is left
		// of the total when that is less: a total that runs out cuts the
		// round short (see round).
		if err := g.timed(ctx, g.cfg.RoundTimeout, ErrRoundTimeout, true, func(tctx context.Context) error {
			return g.round(ctx, tctx, s, n)
		}); err != nil {
			return fmt.Errorf("moderated: round %d: %w", n, err)
		}
		if err := g.storeElapsed(ctx, s, fmt.Sprintf("round%d:elapsed", n)); err != nil {
			return err
		}
		r := g.last()
		if r.Judgment.End != "" {
			g.end = r.Judgment.End
			return nil
		}
		dec, err := g.checkpoint(ctx, s, n)
		if err != nil {
			return err
		}
		r.Checkpoint = &dec
		switch dec.Action {
		case End:
			g.end = EndHuman
			return nil
		case Guide:
			g.pending = dec.Guidance
			g.guidance = append(g.guidance, dec.Guidance)
			if _, err := s.Record(ctx, fmt.Sprintf("round%d:guidance", n), engine.Utterance{
				Speaker: SpeakerHuman, Segment: SegmentRounds, Kind: KindGuidance, Exchange: n, Content: dec.Guidance,
			}); err != nil {
				return err
			}
		}
	}
}

// The parts of a round that the debate's total time can cut short.
const (
	stageArguments = "arguments"
	stageRebuttals = "rebuttals"
	stageJudgment  = "judgment"
)

// roundCut is the value of a RecordCut record: the debate's total time ran
// out in round Round, during its Stage; Argued are the perspectives whose
// argument was written by then, when that was in the arguments.
type roundCut struct {
	Round  int                 `json:"round"`
	Stage  string              `json:"stage"`
	Argued []catalog.Framework `json:"argued,omitempty"`
}

// round plays round n: the moderator's opening, the arguments (written at
// once, recorded in seat order), the rebuttals in turn, and the judgment.
// Its model calls run under tctx, whose deadline is the round's timeout or
// what is left of the debate's total time; the records are stored under
// ctx. When the total runs out during the round (tctx ends with
// ErrTotalTimeout), the round is cut short there: the cut is stored
// (RecordCut, before the arguments written by then are recorded), what was
// said stays, and the round ends with a judgment of the moderator's that
// says so and ends the debate ([EndTimeout]). A resumed debate finds the
// cut at the same place and plays the round as it was.
func (g *game) round(ctx, tctx context.Context, s *engine.Session, n int) error {
	d := s.Debate()
	active := g.active()
	r := Round{Number: n, Guidance: g.pending}
	g.pending = ""
	r.Opening = g.openingText(d, n, active, r.Guidance)
	if _, err := s.Record(ctx, fmt.Sprintf("round%d:opening", n), engine.Utterance{
		Speaker: SpeakerModerator, Segment: SegmentRounds, Kind: KindOpening, Exchange: n, Content: r.Opening,
	}); err != nil {
		return err
	}

	var cut *roundCut // where the total ran out, if it did
	cutKey := fmt.Sprintf("round%d:cut", n)
	storeCut := func() error {
		_, err := s.Step(ctx, cutKey, RecordCut, SpeakerModerator, cut, func(context.Context) (any, llm.Usage, error) {
			return *cut, llm.Usage{}, nil
		}, nil)
		return err
	}
	// stored reads the cut the log holds here, resuming a round that was
	// cut there.
	stored := func() (bool, error) {
		if !s.Resuming() || !s.Next(cutKey) {
			return false, nil
		}
		cut = &roundCut{}
		return true, storeCut()
	}
	// cutBy stores the cut during stage when err came of the total running
	// out, and returns any other error.
	cutBy := func(stage string, err error, argued []catalog.Framework) (bool, error) {
		if err == nil {
			return false, nil
		}
		if ctx.Err() != nil || !errors.Is(context.Cause(tctx), ErrTotalTimeout) {
			return false, err
		}
		cut = &roundCut{Round: n, Stage: stage, Argued: argued}
		return true, storeCut()
	}

	others := func(p Perspective) []Perspective {
		return slices.DeleteFunc(slices.Clone(active), func(q Perspective) bool { return q.ID == p.ID })
	}
	budget, argCap := g.cfg.TokenBudget, 0
	if budget > 0 {
		argCap = max(budget*3/5, 1)
	}
	argue := func(ctx context.Context, p Perspective, out *turn) error {
		return g.generate(ctx, s, s.SideStep, fmt.Sprintf("round%d:argument:%s:gen", n, p.ID), p, g.argumentRequest(d, p, others(p), n, &r), argCap, out)
	}
	turns := make([]turn, len(active))
	written := make([]bool, len(active))
	stopped, err := stored()
	if err != nil {
		return err
	}
	if !stopped {
		eg, gctx := errgroup.WithContext(tctx)
		eg.SetLimit(maxParallelArguments)
		for i, p := range active {
			eg.Go(func() error {
				err := argue(gctx, p, &turns[i])
				written[i] = err == nil
				return err
			})
		}
		werr := eg.Wait()
		var argued []catalog.Framework
		for i, p := range active {
			if written[i] {
				argued = append(argued, p.ID)
			}
		}
		if stopped, err = cutBy(stageArguments, werr, argued); err != nil {
			return err
		}
	}
	var said string // everything said in the previous round
	if prev := g.last(); prev != nil {
		for _, a := range slices.Concat(prev.Arguments, prev.Rebuttals) {
			said += a.Content + "\n"
		}
	}
	for i, p := range active {
		if stopped && !slices.Contains(cut.Argued, p.ID) {
			continue
		}
		if !written[i] { // the round was cut: the argument is stored
			if err := argue(tctx, p, &turns[i]); err != nil {
				return err
			}
		}
		a, err := g.say(ctx, s, n, p, KindArgument, turns[i])
		if err != nil {
			return err
		}
		a.Repetition = Repetition(said, a.Content)
		r.Arguments = append(r.Arguments, a)
	}

	for i, p := range active {
		if stopped {
			break
		}
		if stopped, err = stored(); err != nil || stopped {
			if err != nil {
				return err
			}
			break
		}
		rebCap := 0
		if budget > 0 {
			rebCap = max(budget-r.Arguments[i].Tokens, 1)
		}
		var t turn
		req := g.rebuttalRequest(d, p, others(p), n, &r)
		gerr := g.generate(tctx, s, s.Step, fmt.Sprintf("round%d:rebuttal:%s:gen", n, p.ID), p, req, rebCap, &t)
		if stopped, err = cutBy(stageRebuttals, gerr, nil); err != nil || stopped {
			if err != nil {
				return err
			}
			break
		}
		a, err := g.say(ctx, s, n, p, KindRebuttal, t)
		if err != nil {
			return err
		}
		a.RespondingTo = respondingTo(a.Content, others(p))
		r.Rebuttals = append(r.Rebuttals, a)
	}

	if !stopped {
		if stopped, err = stored(); err != nil {
			return err
		}
	}
	if !stopped {
		if stopped, err = cutBy(stageJudgment, g.judge(ctx, tctx, s, n, active, &r), nil); err != nil {
			return err
		}
	}
	if stopped {
		if err := g.judgeCut(ctx, s, *cut, &r); err != nil {
			return err
		}
	}
	g.rounds = append(g.rounds, r)
	g.mute(n, active)
	return nil
}

// judgeCut stores the judgment of round r, cut short when the debate's
// total time ran out (see round): it ends the debate, and says where the
// round was cut.
func (g *game) judgeCut(ctx context.Context, s *engine.Session, c roundCut, r *Round) error {
	key := fmt.Sprintf("round%d:cut:judgment", c.Round)
	if _, err := s.Step(ctx, key, RecordJudgment, SpeakerModerator, &r.Judgment,
		func(context.Context) (any, llm.Usage, error) {
			return Judgment{
				Round: c.Round, End: EndTimeout, Cut: c.Stage,
				Summary: fmt.Sprintf("The debate's time (%v) ran out during round %d's %s, so the round ends here; what was said stands.",
					g.cfg.TotalTimeout, c.Round, c.Stage),
			}, llm.Usage{}, nil
		}, announce(EventJudgment, SegmentRounds, SpeakerModerator, func() any { return r.Judgment })); err != nil {
		return err
	}
	_, err := s.Record(ctx, key+":say", engine.Utterance{
		Speaker: SpeakerModerator, Segment: SegmentRounds, Kind: KindJudgment, Exchange: c.Round, Content: g.judgmentText(r.Judgment),
	})
	return err
}

// step is Session.Step or Session.SideStep.
type step func(ctx context.Context, key, typ, speaker string, out any, produce engine.StepFunc, announce func(int64) *engine.Announcement) (bool, error)

// generate stores p's reply to req in out, held to a budget of maxTokens
// completion tokens (0: none): the request asks for at most that many, and
// a reply over it is cut to it and flagged. The request carries the
// smaller of that budget and the default cap, MaxTokensDebater.
func (g *game) generate(ctx context.Context, s *engine.Session, st step, key string, p Perspective, req llm.Request, maxTokens int, out *turn) error {
	_, err := st(ctx, key, RecordTurn, string(p.ID), out, func(ctx context.Context) (any, llm.Usage, error) {
		req.MaxTokens = MaxTokensDebater
		if maxTokens > 0 {
			req.MaxTokens = min(maxTokens, MaxTokensDebater)
		}
		resp, err := s.CallStreamed(ctx, req, SegmentRounds, string(p.ID))
		if err != nil {
			return nil, llm.Usage{}, err
		}
		content := strings.TrimSpace(resp.Content)
		if content == "" {
			return nil, resp.Usage, &engine.TurnError{Segment: SegmentRounds, Speaker: string(p.ID), Purpose: req.Purpose, Err: errors.New("empty reply")}
		}
		t := turn{Content: content, Model: resp.Model, Tokens: resp.Usage.CompletionTokens,
			Truncated: s.Truncated(req, resp, SegmentRounds, string(p.ID))}
		if t.Model == "" {
			t.Model = req.Model
		}
		if t.Tokens <= 0 {
			t.Tokens = estimateTokens(content)
		}
		if maxTokens > 0 && t.Tokens > maxTokens {
			t.Content, t.Tokens, t.OverBudget = truncate(content, t.Tokens, maxTokens), maxTokens, true
		}
		return t, resp.Usage, nil
	}, nil)
	return err
}

// estimateTokens guesses the tokens of a reply whose client reported none:
// about four characters per token.
func estimateTokens(s string) int { return (utf8.RuneCountInString(s) + 3) / 4 }

// truncate keeps the share maxTokens/used of content, cut at a word
// boundary, and marks the cut.
func truncate(content string, used, maxTokens int) string {
	r := []rune(content)
	keep := len(r) * maxTokens / used
	if keep >= len(r) {
		return content
	}
	head := string(r[:keep])
	if i := strings.LastIndexAny(head, " \n\t"); i > 0 {
		head = head[:i]
	}
	return strings.TrimSpace(head) + " […]"
}

// say records a debater's turn as an utterance.
func (g *game) say(ctx context.Context, s *engine.Session, n int, p Perspective, kind engine.UtteranceKind, t turn) (Argument, error) {
	u, err := s.Record(ctx, fmt.Sprintf("round%d:%s:%s", n, kind, p.ID), engine.Utterance{
		Speaker: string(p.ID), Segment: SegmentRounds, Kind: kind, Exchange: n, Content: t.Content, Model: t.Model,
		Truncated: t.Truncated,
	})
	if err != nil {
		return Argument{}, err
	}
	return Argument{Perspective: p.ID, Kind: kind, Content: u.Content, Model: u.Model, Tokens: t.Tokens, OverBudget: t.OverBudget, Seq: u.Seq}, nil
}

// respondingTo are the perspectives a rebuttal names, or all the others when
// it names none.
func respondingTo(content string, others []Perspective) []catalog.Framework {
	var named, all []catalog.Framework
	text := " " + strings.Join(wordsOf(content), " ") + " "
	for _, p := range others {
		all = append(all, p.ID)
		if strings.Contains(text, " "+strings.Join(wordsOf(p.Name), " ")+" ") {
			named = append(named, p.ID)
		}
	}
	if len(named) == 0 {
		return all
	}
	return named
}

// judge stores the moderator's judgment of round r, with the measured
// repetition and the decision to end; the moderator is asked under tctx.
func (g *game) judge(ctx, tctx context.Context, s *engine.Session, n int, active []Perspective, r *Round) error {
	d := s.Debate()
	var repeating []catalog.Framework
	for _, a := range r.Arguments {
		if a.Repetition > RepetitionThreshold {
			repeating = append(repeating, a.Perspective)
		}
	}
	resolve := func(name string) (catalog.Framework, bool) {
		id, ok := g.ps.resolve(name)
		return id, ok && slices.ContainsFunc(active, func(p Perspective) bool { return p.ID == id })
	}
	if _, err := s.Step(tctx, fmt.Sprintf("round%d:judgment", n), RecordJudgment, SpeakerModerator, &r.Judgment,
		func(ctx context.Context) (any, llm.Usage, error) {
			j, usage, ok, err := ask(ctx, s, SegmentRounds, g.judgmentRequest(d, active, n, r),
				func(reply string) (Judgment, error) { return parseJudgment(reply, resolve) })
			if err != nil {
				return nil, usage, err
			}
			if !ok {
				j = Judgment{Fallback: true, NewGround: len(repeating) < len(active),
					Summary: "The moderator's assessment of this round could not be read; the debate goes on."}
			}
			j.Round, j.Repeating = n, repeating
			j.End = endOf(j, n, g.cfg.MaxRounds, len(active))
			return j, usage, nil
		}, announce(EventJudgment, SegmentRounds, SpeakerModerator, func() any { return r.Judgment })); err != nil {
		return err
	}
	_, err := s.Record(ctx, fmt.Sprintf("round%d:judgment:say", n), engine.Utterance{
		Speaker: SpeakerModerator, Segment: SegmentRounds, Kind: KindJudgment, Exchange: n, Content: g.judgmentText(r.Judgment),
	})
	return err
}

// mute silences the perspectives off topic in round n and the round before,
// as long as two debaters remain.
func (g *game) mute(n int, active []Perspective) {
	if n < 2 {
		return
	}
	cur, prev := &g.rounds[n-1], &g.rounds[n-2]
	left := len(active)
	for _, id := range cur.Judgment.OffTopic {
		if slices.Contains(prev.Judgment.OffTopic, id) && !g.muted[id] && left > 2 {
			g.muted[id] = true
			cur.Muted = append(cur.Muted, id)
			left--
		}
	}
}

// notesFor are the moderator's notes to perspective id after round prev.
func (g *game) notesFor(prev *Round, id catalog.Framework) []string {
	var notes []string
	if slices.Contains(prev.Judgment.OffTopic, id) {
		notes = append(notes, "your last argument drifted from the question; bring it back to the decision at hand.")
	}
	if slices.Contains(prev.Judgment.Repeating, id) {
		notes = append(notes, "most of your last argument repeated the round before; bring new points, or concede.")
	}
	return notes
}

func (g *game) openingText(d engine.Debate, n int, active []Perspective, guidance string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "Round %d of at most %d. ", n, g.cfg.MaxRounds)
	prev := g.last()
	if prev == nil {
		fmt.Fprintf(&b, "The question: %s\nArguing: %s. Each perspective gives its argument, then responds to the others.",
			cut(oneLine(d.Proposition), 300), names(active))
		return b.String()
	}
	b.WriteString("Where we stand: " + oneLine(prev.Judgment.Summary))
	if guidance != "" {
		b.WriteString("\nGuidance for this round: " + cut(oneLine(guidance), 500))
	}
	for _, p := range g.seats {
		switch {
		case slices.Contains(prev.Muted, p.ID):
			fmt.Fprintf(&b, "\n%s is muted for the rest of the debate, having gone off topic twice.", p.Name)
		case g.muted[p.ID]:
		default:
			for _, note := range g.notesFor(prev, p.ID) {
				fmt.Fprintf(&b, "\n%s: %s", p.Name, note)
			}
		}
	}
	return b.String()
}

func (g *game) judgmentText(j Judgment) string {
	var signals []string
	for _, s := range []struct {
		on   bool
		text string
	}{
		{j.Converging, "converging"}, {j.Stagnating, "stagnating"}, {j.NewGround, "new ground"},
		{j.ClearWinner != "", "clear winner: " + g.name(j.ClearWinner)},
	} {
		if s.on {
			signals = append(signals, s.text)
		}
	}
	text := j.Summary
	if len(signals) > 0 {
		text += "\nSignals: " + strings.Join(signals, ", ") + "."
	}
	for _, id := range j.Repeating {
		text += "\n" + g.name(id) + " mostly repeated the previous round."
	}
	for _, id := range j.OffTopic {
		text += "\n" + g.name(id) + " went off topic."
	}
	if j.End != "" {
		text += "\nThe debate ends here (" + strings.ReplaceAll(string(j.End), "_", " ") + ")."
	}
	return text
}

// checkpoint asks the people what to do after round n — through the
// engine, or a deprecated Checkpointer — and stores their decision.
func (g *game) checkpoint(ctx context.Context, s *engine.Session, n int) (Decision, error) {
	var out CheckpointOutcome
	done, err := askedTheOldWay(ctx, s, g.checkpointer != nil, fmt.Sprintf("round %d checkpoint", n),
		func(attempt int) string { return fmt.Sprintf("round%d:checkpoint:%d", n, attempt) }, RecordCheckpoint, &out,
		func() bool { return out.Paused },
		func(ctx context.Context) (CheckpointOutcome, error) { return g.decide(ctx, s, n) },
		announce(EventCheckpoint, SegmentRounds, SpeakerHuman, func() any { return out }))
	if err != nil || done {
		return out.Decision, err
	}
	q := engine.Question{Kind: engine.QuestionCheckpoint, Text: g.checkpointText(n), Choices: checkpointChoices}
	a, err := g.ask(ctx, s, fmt.Sprintf("round%d:checkpoint", n), q)
	if err != nil {
		return Decision{}, err
	}
	dec := decision(Decision{Action: Action(a.Choice), Guidance: a.Text})
	dec.Auto = s.Debate().Unattended || dec == Decision{Action: Continue}
	_, err = s.Step(ctx, fmt.Sprintf("round%d:checkpoint:decision", n), RecordCheckpoint, SpeakerHuman, &out,
		func(context.Context) (any, llm.Usage, error) {
			return CheckpointOutcome{Round: n, Decision: dec}, llm.Usage{}, nil
		}, announce(EventCheckpoint, SegmentRounds, SpeakerHuman, func() any { return out }))
	return out.Decision, err
}

// decision is dec as a checkpoint takes it: its guidance trimmed and cut,
// and kept only to guide; Guide without guidance is Continue.
func decision(dec Decision) Decision {
	dec.Guidance = cut(strings.TrimSpace(dec.Guidance), MaxGuidanceRunes)
	switch dec.Action {
	case Continue, End:
		dec.Guidance = ""
	case Guide:
		if dec.Guidance == "" {
			dec.Action = Continue
		}
	}
	return dec
}

// checkpointText is the checkpoint question after round n: the round's
// judgment, as the moderator said it, and the choices.
func (g *game) checkpointText(n int) string {
	return fmt.Sprintf("Round %d of at most %d is over. The moderator's judgment:\n%s\n\n"+
		"What next? %s: play round %d; %s: play it with your guidance (your answer's text), given to the debaters and the moderator; "+
		"%s: stop here and write the synthesis.",
		n, g.cfg.MaxRounds, g.judgmentText(g.last().Judgment), Continue, n+1, Guide, End)
}

// decide consults the Checkpointer, within the checkpoint timeout.
func (g *game) decide(ctx context.Context, s *engine.Session, n int) (CheckpointOutcome, error) {
	cp := g.checkpointer
	cctx, cancel := context.WithTimeoutCause(ctx, g.cfg.CheckpointTimeout, ErrPaused)
	defer cancel()
	dec, err := cp.Checkpoint(cctx, g.state(s, n))
	switch {
	case errors.Is(err, ErrPaused), err != nil && ctx.Err() == nil && errors.Is(context.Cause(cctx), ErrPaused):
		return CheckpointOutcome{Round: n, Paused: true}, nil
	case err != nil:
		return CheckpointOutcome{}, fmt.Errorf("moderated: round %d checkpoint: %w", n, err)
	}
	switch dec.Action {
	case Continue, Guide, End:
	default:
		return CheckpointOutcome{}, fmt.Errorf("moderated: round %d checkpoint: unknown action %q", n, dec.Action)
	}
	dec = decision(dec)
	dec.Auto = false
	return CheckpointOutcome{Round: n, Decision: dec}, nil
}

// state is the debate as a checkpoint after round n sees it.
func (g *game) state(s *engine.Session, n int) State {
	rounds := make([]Round, len(g.rounds))
	for i, r := range g.rounds {
		r.Arguments, r.Rebuttals = slices.Clone(r.Arguments), slices.Clone(r.Rebuttals)
		rounds[i] = r
	}
	return State{
		DebateID: s.DebateID(), Question: s.Debate().Proposition, Status: StatusCheckpoint,
		Round: n, MaxRounds: g.cfg.MaxRounds, Perspectives: slices.Clone(g.seats),
		Rounds: rounds, Guidance: slices.Clone(g.guidance),
	}
}

// synthesize stores the synthesis, records its document, has it approved,
// and hands it to the host's FollowUp. The synthesis has a round's time,
// whatever is left of the total, so that a debate whose time ran out still
// ends with one.
func (g *game) synthesize(ctx context.Context, s *engine.Session) error {
	d := s.Debate()
	if err := g.timed(ctx, g.cfg.RoundTimeout, ErrRoundTimeout, false, func(ctx context.Context) error {
		_, err := s.Step(ctx, "synthesis", RecordSynthesis, SpeakerModerator, &g.synthesis,
			func(ctx context.Context) (any, llm.Usage, error) {
				syn, usage, ok, err := ask(ctx, s, SegmentSynthesis, g.synthesisRequest(d), parseSynthesis)
				if err != nil {
					return nil, usage, err
				}
				if !ok {
					syn = fallbackSynthesis()
				}
				return g.complete(syn, d, s.DebateID(), s.Now()), usage, nil
			}, announce(EventSynthesis, SegmentSynthesis, SpeakerModerator, func() any { return g.synthesis }))
		return err
	}); err != nil {
		return fmt.Errorf("moderated: synthesis: %w", err)
	}
	if err := g.storeElapsed(ctx, s, "synthesis:elapsed"); err != nil {
		return err
	}
	if _, err := s.Record(ctx, "synthesis:document", engine.Utterance{
		Speaker: SpeakerModerator, Segment: SegmentSynthesis, Kind: KindSynthesis, Content: g.synthesis.Markdown(),
	}); err != nil {
		return err
	}
	if err := g.approve(ctx, s, ""); err != nil {
		return err
	}
	// A rejected synthesis goes back to the moderator with the people's
	// reason: it revises it once, and the revision is reviewed in turn.
	// (A log of an earlier version goes on from the rejection to the
	// follow-up.)
	if a := g.synthesis.Approval; a != nil && a.Status == Rejected && !legacy(s, "revision") {
		if err := g.revise(ctx, s); err != nil {
			return err
		}
	}
	// Only a decision the people approved is handed on: the seed's human
	// "approves final synthesis" before the workflow question.
	approved := g.synthesis.Approval != nil && g.synthesis.Approval.Status == Approved
	wanted, err := g.workflow(ctx, s, g.followUp != nil && approved)
	if err != nil {
		return err
	}
	_, err = s.Step(ctx, "followup", RecordFollowUp, SpeakerModerator, &g.followedUp,
		func(ctx context.Context) (any, llm.Usage, error) {
			if g.followUp == nil || !approved || !wanted {
				return false, llm.Usage{}, nil
			}
			switch err := g.followUp(ctx, g.synthesis); {
			case errors.Is(err, ErrDeclined):
				return false, llm.Usage{}, nil
			case err != nil:
				return nil, llm.Usage{}, fmt.Errorf("moderated: follow-up of %s: %w", s.DebateID(), err)
			}
			return true, llm.Usage{}, nil
		}, announce(EventFollowUp, SegmentSynthesis, SpeakerModerator, func() any { return g.followedUp }))
	return err
}

// revise has the moderator revise the synthesis the people rejected, with
// their reason, within a round's time (as the synthesis); stores the
// revision, records its document, and has it reviewed. A revision that
// cannot be read, even when asked again, is replaced as a synthesis is
// ([Synthesis].Fallback).
func (g *game) revise(ctx context.Context, s *engine.Session) error {
	d := s.Debate()
	rejected := g.synthesis
	g.rejected = append(g.rejected, rejected)
	g.synthesis = Synthesis{} // the revision decodes into it
	if err := g.timed(ctx, g.cfg.RoundTimeout, ErrRoundTimeout, false, func(ctx context.Context) error {
		_, err := s.Step(ctx, "revision", RecordSynthesis, SpeakerModerator, &g.synthesis,
			func(ctx context.Context) (any, llm.Usage, error) {
				syn, usage, ok, err := ask(ctx, s, SegmentSynthesis, g.revisionRequest(d, rejected), parseSynthesis)
				if err != nil {
					return nil, usage, err
				}
				if !ok {
					syn = fallbackSynthesis()
				}
				syn = g.complete(syn, d, s.DebateID(), s.Now())
				syn.Revision = &Revision{Reason: rejected.Approval.Note}
				return syn, usage, nil
			}, announce(EventSynthesis, SegmentSynthesis, SpeakerModerator, func() any { return g.synthesis }))
		return err
	}); err != nil {
		return fmt.Errorf("moderated: revision of the rejected synthesis: %w", err)
	}
	if err := g.storeElapsed(ctx, s, "revision:elapsed"); err != nil {
		return err
	}
	if _, err := s.Record(ctx, "revision:document", engine.Utterance{
		Speaker: SpeakerModerator, Segment: SegmentSynthesis, Kind: KindSynthesis, Content: g.synthesis.Markdown(),
	}); err != nil {
		return err
	}
	return g.approve(ctx, s, "revision:")
}

// workflow asks the people the seed's "Would you like me to create a
// workflow from this decision?" when the debate has a follow-up to hand
// the decision to (ask), and reports whether they want it: yes, unless
// they said no. A resumed debate asks when its log holds the question
// (whatever the Format's follow-up), and not when it goes straight to the
// follow-up's record — as a log written before the question existed does.
func (g *game) workflow(ctx context.Context, s *engine.Session, ask bool) (bool, error) {
	if s.Resuming() {
		ask = !s.Next("followup")
	}
	if !ask {
		return true, nil
	}
	q := engine.Question{Kind: engine.QuestionWorkflow, Choices: workflowChoices,
		Text: "Would you like me to create a workflow from this decision?\nThe recommendation: " + cut(oneLine(g.synthesis.Recommendation), 500) +
			"\n\n" + ChoiceYes + " hands the decision on to the workflow; " + ChoiceNo + " keeps it a document."}
	a, err := g.ask(ctx, s, "workflow", q)
	return a.Choice != ChoiceNo, err
}

// complete fills in the synthesis's facts — date, ID, rounds, question, end
// reason — gives every seated perspective its entry in seat order, and
// notes Low confidence when the rounds ran out without convergence.
func (g *game) complete(syn Synthesis, d engine.Debate, id string, now time.Time) Synthesis {
	syn.Date, syn.DebateID, syn.Rounds, syn.Question, syn.EndReason = now, id, len(g.rounds), d.Proposition, g.end
	syn.Clarification = g.clarification
	if syn.Title == "" {
		syn.Title = cut(oneLine(d.Proposition), 120)
	}
	var ordered []PerspectiveSummary
	for _, p := range g.seats {
		i := slices.IndexFunc(syn.Perspectives, func(ps PerspectiveSummary) bool {
			got, ok := g.ps.resolve(ps.Name)
			return ok && got == p.ID
		})
		var sum PerspectiveSummary
		if i >= 0 {
			sum = syn.Perspectives[i]
		}
		sum.Name = p.Name
		if len(sum.KeyArguments) == 0 {
			sum.KeyArguments = g.keyArguments(p.ID)
		}
		if len(sum.TradeOffsAccepted) == 0 && p.TradeOffs != "" {
			sum.TradeOffsAccepted = []string{p.TradeOffs}
		}
		ordered = append(ordered, sum)
	}
	syn.Perspectives = ordered
	switch g.end {
	case EndMaxRounds:
		syn.Confidence = ConfidenceLow
		syn.Caveats = append(syn.Caveats, fmt.Sprintf("The debate reached its limit of %d rounds without converging; the tensions above are unresolved.", g.cfg.MaxRounds))
	case EndTimeout:
		syn.Confidence = ConfidenceLow
		rounds := fmt.Sprintf("%d rounds", len(g.rounds))
		if len(g.rounds) == 1 {
			rounds = "1 round"
		}
		when := "after " + rounds
		if last := g.last(); last != nil && last.Judgment.Cut != "" {
			when = fmt.Sprintf("during round %d, which it cut short in its %s (what was said before stands)", last.Number, last.Judgment.Cut)
		}
		syn.Caveats = append(syn.Caveats, fmt.Sprintf("The debate ran out of its %v time budget %s without converging; the tensions above are unresolved.", g.cfg.TotalTimeout, when))
	}
	return syn
}

// keyArguments is the first sentence of the last argument of id, for a
// perspective the moderator's synthesis left out.
func (g *game) keyArguments(id catalog.Framework) []string {
	for i := len(g.rounds) - 1; i >= 0; i-- {
		for _, a := range g.rounds[i].Arguments {
			if a.Perspective == id {
				text := oneLine(a.Content)
				if j := strings.IndexAny(text, ".!?"); j > 0 {
					text = text[:j+1]
				}
				return []string{cut(text, 300)}
			}
		}
	}
	return nil
}

// outcome is what the game came to.
func (g *game) outcome() *Outcome {
	return &Outcome{
		Config: g.cfg, Analysis: g.analysis, Perspectives: g.seats, Rounds: g.rounds,
		EndReason: g.end, Synthesis: g.synthesis, Rejected: g.rejected, FollowedUp: g.followedUp,
		Clarification: g.clarification, Elapsed: g.spent,
	}
}
