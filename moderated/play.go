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

	"github.com/duelogic/duelogic"
	"github.com/duelogic/duelogic/llm"
)

// format is the moderated debate as a [duelogic.Format]: Config is stored
// at start; hooks are the host's; the rest is the state of Play.
type format struct {
	Config Config `json:"config"`

	hooks Hooks

	ps         *perspectives
	analysis   Analysis
	seats      []Perspective
	rounds     []Round
	guidance   []string // all guidance given, in order
	pending    string   // guidance for the next round
	muted      map[duelogic.Framework]bool
	end        EndReason
	synthesis  Synthesis
	followedUp bool
	spent      time.Duration // time spent in this call, on the session's clock
	now        func() time.Time
}

// Name is [FormatName].
func (f *format) Name() string { return FormatName }

// turn is a debater's reply as stored by its step.
type turn struct {
	Content    string `json:"content"`
	Model      string `json:"model"`
	Tokens     int    `json:"tokens"`
	OverBudget bool   `json:"overBudget,omitempty"`
}

// checkpointRecord is a stored checkpoint outcome: a decision, or a pause.
type checkpointRecord struct {
	Decision
	Paused bool `json:"paused,omitempty"`
}

// Play analyses the question, runs rounds until the moderator, the round
// cap or a checkpoint ends them, and writes the synthesis.
func (f *format) Play(ctx context.Context, s *duelogic.Session) error {
	if err := f.Config.Validate(); err != nil {
		return err
	}
	ps, err := newPerspectives(f.Config)
	if err != nil {
		return err
	}
	*f = format{Config: f.Config, hooks: f.hooks, ps: ps, muted: map[duelogic.Framework]bool{}, now: s.Now}
	if err := s.Segment(ctx, SegmentAnalysis, func(ctx context.Context) error {
		return f.timed(ctx, 0, nil, func(ctx context.Context) error { return f.analyse(ctx, s) })
	}); err != nil {
		return err
	}
	if err := s.Segment(ctx, SegmentRounds, func(ctx context.Context) error { return f.playRounds(ctx, s) }); err != nil {
		return err
	}
	return s.Segment(ctx, SegmentSynthesis, func(ctx context.Context) error { return f.synthesize(ctx, s) })
}

// timed runs body with a deadline: limit (when positive), or what is left
// of the total time if that is less. A body stopped by that deadline returns
// an error wrapping limitErr or ErrTotalTimeout.
func (f *format) timed(ctx context.Context, limit time.Duration, limitErr error, body func(context.Context) error) error {
	left := f.Config.TotalTimeout - f.spent
	if left <= 0 {
		return fmt.Errorf("%w: %v used", ErrTotalTimeout, f.Config.TotalTimeout)
	}
	d, cause := left, ErrTotalTimeout
	if limit > 0 && limit < left {
		d, cause = limit, limitErr
	}
	// The deadline is real time; what the budget has spent is read on the
	// session's clock (WithClock), the host's time.
	start := f.now()
	tctx, cancel := context.WithTimeoutCause(ctx, d, cause)
	defer cancel()
	err := body(tctx)
	f.spent += f.now().Sub(start)
	if err != nil && ctx.Err() == nil && errors.Is(context.Cause(tctx), cause) {
		return fmt.Errorf("%w after %v: %w", cause, d, err)
	}
	return err
}

// event announces a stored value.
func event(typ string, v func() any) func(int64) *duelogic.Event {
	return func(int64) *duelogic.Event { return &duelogic.Event{Type: duelogic.EventType(typ), Data: v()} }
}

// ask calls the moderator until parse accepts a reply, at most MaxAttempts
// times; ok is false when no reply was accepted.
func ask[T any](ctx context.Context, s *duelogic.Session, f *format, seg duelogic.Segment, req llm.Request, parse func(string) (T, error)) (v T, usage llm.Usage, ok bool, err error) {
	var last error
	for range f.Config.MaxAttempts {
		resp, err := s.Call(ctx, req, seg, SpeakerModerator)
		if err != nil {
			return v, usage, false, err
		}
		usage = usage.Add(resp.Usage)
		v, err := parse(resp.Content)
		if err == nil {
			return v, usage, true, nil
		}
		last = err
		req = retry(req, resp.Content, err.Error())
	}
	s.Logger().Warn("moderated: no usable reply", "debate", s.DebateID(), "purpose", req.Purpose, "attempts", f.Config.MaxAttempts, "err", last)
	return v, usage, false, nil
}

// analyse stores the moderator's analysis and the perspectives assigned.
func (f *format) analyse(ctx context.Context, s *duelogic.Session) error {
	d := s.Debate()
	if _, err := s.Step(ctx, "analysis", RecordAnalysis, SpeakerModerator, &f.analysis,
		func(ctx context.Context) (any, llm.Usage, error) {
			a, usage, ok, err := ask(ctx, s, f, SegmentAnalysis, analysisRequest(f.Config, d, f.ps),
				func(reply string) (Analysis, error) { return parseAnalysis(reply, d.Proposition) })
			if err != nil {
				return nil, usage, err
			}
			if !ok {
				a = fallbackAnalysis(d.Proposition)
			}
			return a, usage, nil
		}, event(RecordAnalysis, func() any { return f.analysis })); err != nil {
		return err
	}
	if _, err := s.Step(ctx, "assignment", RecordAssignment, SpeakerModerator, &f.seats,
		func(context.Context) (any, llm.Usage, error) { return f.assign(d), llm.Usage{}, nil },
		event(RecordAssignment, func() any { return f.seats })); err != nil {
		return err
	}
	_, err := s.Record(ctx, "assignment:announce", duelogic.Utterance{
		Speaker: SpeakerModerator, Segment: SegmentAnalysis, Kind: KindAssignment, Content: f.assignmentText(d),
	})
	return err
}

// assign seats the configured perspectives, or chooses them from the
// analysis and the question's keywords, balanced.
func (f *format) assign(d duelogic.Debate) []Perspective {
	ids := f.Config.Perspectives
	if len(ids) == 0 {
		n := f.Config.Debaters
		if n == 0 {
			n = f.analysis.Debaters
		}
		n = min(max(n, 2), 4)
		text := d.Proposition + "\n" + strings.Join(f.analysis.Constraints, "\n")
		ids = f.ps.choose(text, f.analysis.Suggested, n)
	}
	seats := make([]Perspective, len(ids))
	for i, id := range ids {
		seats[i] = f.ps.perspective(id, f.Config.DebaterModels[i%len(f.Config.DebaterModels)])
	}
	return seats
}

func (f *format) assignmentText(d duelogic.Debate) string {
	var b strings.Builder
	fmt.Fprintf(&b, "The question is a %s decision: %s", f.analysis.Domain, cut(oneLine(d.Proposition), 300))
	if len(f.analysis.Constraints) > 0 {
		b.WriteString("\nConstraints I read in it: " + strings.Join(f.analysis.Constraints, "; ") + ".")
	}
	b.WriteString("\nArguing it:")
	for _, p := range f.seats {
		fmt.Fprintf(&b, "\n- %s: priorities %s; %s", p.Name, strings.Join(p.Priorities, ", "), strings.ToLower(strings.TrimSuffix(p.TradeOffs, ".")))
	}
	return b.String()
}

// name is a perspective's name.
func (f *format) name(id duelogic.Framework) string {
	for _, p := range f.seats {
		if p.ID == id {
			return p.Name
		}
	}
	return string(id)
}

// active are the seated perspectives not muted.
func (f *format) active() []Perspective {
	var out []Perspective
	for _, p := range f.seats {
		if !f.muted[p.ID] {
			out = append(out, p)
		}
	}
	return out
}

func (f *format) last() *Round {
	if len(f.rounds) == 0 {
		return nil
	}
	return &f.rounds[len(f.rounds)-1]
}

func (f *format) playRounds(ctx context.Context, s *duelogic.Session) error {
	for n := 1; ; n++ {
		if err := f.timed(ctx, f.Config.RoundTimeout, ErrRoundTimeout, func(ctx context.Context) error {
			return f.round(ctx, s, n)
		}); err != nil {
			return fmt.Errorf("moderated: round %d: %w", n, err)
		}
		r := f.last()
		if r.Judgment.End != "" {
			f.end = r.Judgment.End
			return nil
		}
		dec, err := f.checkpoint(ctx, s, n)
		if err != nil {
			return err
		}
		r.Checkpoint = &dec
		switch dec.Action {
		case End:
			f.end = EndHuman
			return nil
		case Guide:
			f.pending = dec.Guidance
			f.guidance = append(f.guidance, dec.Guidance)
			if _, err := s.Record(ctx, fmt.Sprintf("round%d:guidance", n), duelogic.Utterance{
				Speaker: SpeakerHuman, Segment: SegmentRounds, Kind: KindGuidance, Exchange: n, Content: dec.Guidance,
			}); err != nil {
				return err
			}
		}
	}
}

// round plays round n: the moderator's opening, the arguments (written at
// once, recorded in seat order), the rebuttals in turn, and the judgment.
func (f *format) round(ctx context.Context, s *duelogic.Session, n int) error {
	d := s.Debate()
	active := f.active()
	r := Round{Number: n, Guidance: f.pending}
	f.pending = ""
	r.Opening = f.openingText(d, n, active, r.Guidance)
	if _, err := s.Record(ctx, fmt.Sprintf("round%d:opening", n), duelogic.Utterance{
		Speaker: SpeakerModerator, Segment: SegmentRounds, Kind: KindOpening, Exchange: n, Content: r.Opening,
	}); err != nil {
		return err
	}

	others := func(p Perspective) []Perspective {
		return slices.DeleteFunc(slices.Clone(active), func(q Perspective) bool { return q.ID == p.ID })
	}
	budget, argCap := f.Config.TokenBudget, 0
	if budget > 0 {
		argCap = max(budget*3/5, 1)
	}
	turns := make([]turn, len(active))
	g, gctx := errgroup.WithContext(ctx)
	for i, p := range active {
		req := f.argumentRequest(d, p, others(p), n, &r)
		g.Go(func() error {
			return f.generate(gctx, s, s.SideStep, fmt.Sprintf("round%d:argument:%s:gen", n, p.ID), p, req, argCap, &turns[i])
		})
	}
	if err := g.Wait(); err != nil {
		return err
	}
	var said string // everything said in the previous round
	if prev := f.last(); prev != nil {
		for _, a := range slices.Concat(prev.Arguments, prev.Rebuttals) {
			said += a.Content + "\n"
		}
	}
	for i, p := range active {
		a, err := f.say(ctx, s, n, p, KindArgument, turns[i])
		if err != nil {
			return err
		}
		a.Repetition = Repetition(said, a.Content)
		r.Arguments = append(r.Arguments, a)
	}

	for i, p := range active {
		rebCap := 0
		if budget > 0 {
			rebCap = max(budget-r.Arguments[i].Tokens, 1)
		}
		var t turn
		req := f.rebuttalRequest(d, p, others(p), n, &r)
		if err := f.generate(ctx, s, s.Step, fmt.Sprintf("round%d:rebuttal:%s:gen", n, p.ID), p, req, rebCap, &t); err != nil {
			return err
		}
		a, err := f.say(ctx, s, n, p, KindRebuttal, t)
		if err != nil {
			return err
		}
		a.RespondingTo = respondingTo(a.Content, others(p))
		r.Rebuttals = append(r.Rebuttals, a)
	}

	if err := f.judge(ctx, s, n, active, &r); err != nil {
		return err
	}
	f.rounds = append(f.rounds, r)
	f.mute(n, active)
	return nil
}

// step is Session.Step or Session.SideStep.
type step func(ctx context.Context, key, typ, speaker string, out any, produce duelogic.StepFunc, event func(int64) *duelogic.Event) (bool, error)

// generate stores p's reply to req in out, held to a budget of maxTokens
// completion tokens (0: none): the request asks for at most that many, and
// a reply over it is cut to it and flagged.
func (f *format) generate(ctx context.Context, s *duelogic.Session, st step, key string, p Perspective, req llm.Request, maxTokens int, out *turn) error {
	_, err := st(ctx, key, RecordTurn, string(p.ID), out, func(ctx context.Context) (any, llm.Usage, error) {
		req.MaxTokens = maxTokens
		resp, err := s.Call(ctx, req, SegmentRounds, string(p.ID))
		if err != nil {
			return nil, llm.Usage{}, err
		}
		content := strings.TrimSpace(resp.Content)
		if content == "" {
			return nil, resp.Usage, &duelogic.TurnError{Segment: SegmentRounds, Speaker: string(p.ID), Purpose: req.Purpose, Err: errors.New("empty reply")}
		}
		t := turn{Content: content, Model: resp.Model, Tokens: resp.Usage.CompletionTokens}
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
func (f *format) say(ctx context.Context, s *duelogic.Session, n int, p Perspective, kind duelogic.UtteranceKind, t turn) (Argument, error) {
	u, err := s.Record(ctx, fmt.Sprintf("round%d:%s:%s", n, kind, p.ID), duelogic.Utterance{
		Speaker: string(p.ID), Segment: SegmentRounds, Kind: kind, Exchange: n, Content: t.Content, Model: t.Model,
	})
	if err != nil {
		return Argument{}, err
	}
	return Argument{Perspective: p.ID, Kind: kind, Content: u.Content, Model: u.Model, Tokens: t.Tokens, OverBudget: t.OverBudget, Seq: u.Seq}, nil
}

// respondingTo are the perspectives a rebuttal names, or all the others when
// it names none.
func respondingTo(content string, others []Perspective) []duelogic.Framework {
	var named, all []duelogic.Framework
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
// repetition and the decision to end.
func (f *format) judge(ctx context.Context, s *duelogic.Session, n int, active []Perspective, r *Round) error {
	d := s.Debate()
	var repeating []duelogic.Framework
	for _, a := range r.Arguments {
		if a.Repetition > RepetitionThreshold {
			repeating = append(repeating, a.Perspective)
		}
	}
	resolve := func(name string) (duelogic.Framework, bool) {
		id, ok := f.ps.resolve(name)
		return id, ok && slices.ContainsFunc(active, func(p Perspective) bool { return p.ID == id })
	}
	if _, err := s.Step(ctx, fmt.Sprintf("round%d:judgment", n), RecordJudgment, SpeakerModerator, &r.Judgment,
		func(ctx context.Context) (any, llm.Usage, error) {
			j, usage, ok, err := ask(ctx, s, f, SegmentRounds, f.judgmentRequest(d, active, n, r),
				func(reply string) (Judgment, error) { return parseJudgment(reply, resolve) })
			if err != nil {
				return nil, usage, err
			}
			if !ok {
				j = Judgment{Fallback: true, NewGround: len(repeating) < len(active),
					Summary: "The moderator's assessment of this round could not be read; the debate goes on."}
			}
			j.Repeating = repeating
			j.End = endOf(j, n, f.Config.MaxRounds, len(active))
			return j, usage, nil
		}, event(RecordJudgment, func() any { return r.Judgment })); err != nil {
		return err
	}
	_, err := s.Record(ctx, fmt.Sprintf("round%d:judgment:say", n), duelogic.Utterance{
		Speaker: SpeakerModerator, Segment: SegmentRounds, Kind: KindJudgment, Exchange: n, Content: f.judgmentText(r.Judgment),
	})
	return err
}

// mute silences the perspectives off topic in round n and the round before,
// as long as two debaters remain.
func (f *format) mute(n int, active []Perspective) {
	if n < 2 {
		return
	}
	cur, prev := &f.rounds[n-1], &f.rounds[n-2]
	left := len(active)
	for _, id := range cur.Judgment.OffTopic {
		if slices.Contains(prev.Judgment.OffTopic, id) && !f.muted[id] && left > 2 {
			f.muted[id] = true
			cur.Muted = append(cur.Muted, id)
			left--
		}
	}
}

// notesFor are the moderator's notes to perspective id after round prev.
func (f *format) notesFor(prev *Round, id duelogic.Framework) []string {
	var notes []string
	if slices.Contains(prev.Judgment.OffTopic, id) {
		notes = append(notes, "your last argument drifted from the question; bring it back to the decision at hand.")
	}
	if slices.Contains(prev.Judgment.Repeating, id) {
		notes = append(notes, "most of your last argument repeated the round before; bring new points, or concede.")
	}
	return notes
}

func (f *format) openingText(d duelogic.Debate, n int, active []Perspective, guidance string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "Round %d of at most %d. ", n, f.Config.MaxRounds)
	prev := f.last()
	if prev == nil {
		fmt.Fprintf(&b, "The question: %s\nArguing: %s. Each perspective gives its argument, then responds to the others.",
			cut(oneLine(d.Proposition), 300), names(active))
		return b.String()
	}
	b.WriteString("Where we stand: " + oneLine(prev.Judgment.Summary))
	if guidance != "" {
		b.WriteString("\nGuidance for this round: " + cut(oneLine(guidance), 500))
	}
	for _, p := range f.seats {
		switch {
		case slices.Contains(prev.Muted, p.ID):
			fmt.Fprintf(&b, "\n%s is muted for the rest of the debate, having gone off topic twice.", p.Name)
		case f.muted[p.ID]:
		default:
			for _, note := range f.notesFor(prev, p.ID) {
				fmt.Fprintf(&b, "\n%s: %s", p.Name, note)
			}
		}
	}
	return b.String()
}

func (f *format) judgmentText(j Judgment) string {
	var signals []string
	for _, s := range []struct {
		on   bool
		text string
	}{
		{j.Converging, "converging"}, {j.Stagnating, "stagnating"}, {j.NewGround, "new ground"},
		{j.ClearWinner != "", "clear winner: " + f.name(j.ClearWinner)},
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
		text += "\n" + f.name(id) + " mostly repeated the previous round."
	}
	for _, id := range j.OffTopic {
		text += "\n" + f.name(id) + " went off topic."
	}
	if j.End != "" {
		text += "\nThe debate ends here (" + strings.ReplaceAll(string(j.End), "_", " ") + ")."
	}
	return text
}

// checkpoint stores the decision taken after round n. A stored pause is
// skipped on resume, so the checkpoint is asked again; a fresh pause stops
// the debate with ErrPaused.
func (f *format) checkpoint(ctx context.Context, s *duelogic.Session, n int) (Decision, error) {
	for attempt := 1; ; attempt++ {
		var rec checkpointRecord
		replayed, err := s.Step(ctx, fmt.Sprintf("round%d:checkpoint:%d", n, attempt), RecordCheckpoint, SpeakerHuman, &rec,
			func(ctx context.Context) (any, llm.Usage, error) {
				rec, err := f.decide(ctx, s, n)
				return rec, llm.Usage{}, err
			}, event(RecordCheckpoint, func() any { return rec }))
		if err != nil {
			return Decision{}, err
		}
		if !rec.Paused {
			return rec.Decision, nil
		}
		if !replayed {
			return Decision{}, fmt.Errorf("moderated: debate %s, round %d checkpoint: %w", s.DebateID(), n, ErrPaused)
		}
	}
}

// decide consults the Checkpointer, within the checkpoint timeout.
func (f *format) decide(ctx context.Context, s *duelogic.Session, n int) (checkpointRecord, error) {
	cp := f.hooks.Checkpointer
	if cp == nil {
		return checkpointRecord{Decision: Decision{Action: Continue, Auto: true}}, nil
	}
	cctx, cancel := context.WithTimeoutCause(ctx, f.Config.CheckpointTimeout, ErrPaused)
	defer cancel()
	dec, err := cp.Checkpoint(cctx, f.state(s, n))
	switch {
	case errors.Is(err, ErrPaused), err != nil && ctx.Err() == nil && errors.Is(context.Cause(cctx), ErrPaused):
		return checkpointRecord{Paused: true}, nil
	case err != nil:
		return checkpointRecord{}, fmt.Errorf("moderated: round %d checkpoint: %w", n, err)
	}
	dec.Auto = false
	dec.Guidance = cut(strings.TrimSpace(dec.Guidance), MaxGuidanceRunes)
	switch dec.Action {
	case Continue, End:
		dec.Guidance = ""
	case Guide:
		if dec.Guidance == "" {
			dec.Action = Continue
		}
	default:
		return checkpointRecord{}, fmt.Errorf("moderated: round %d checkpoint: unknown action %q", n, dec.Action)
	}
	return checkpointRecord{Decision: dec}, nil
}

// state is the debate as a checkpoint after round n sees it.
func (f *format) state(s *duelogic.Session, n int) State {
	rounds := make([]Round, len(f.rounds))
	for i, r := range f.rounds {
		r.Arguments, r.Rebuttals = slices.Clone(r.Arguments), slices.Clone(r.Rebuttals)
		rounds[i] = r
	}
	return State{
		DebateID: s.DebateID(), Question: s.Debate().Proposition, Status: StatusCheckpoint,
		Round: n, MaxRounds: f.Config.MaxRounds, Perspectives: slices.Clone(f.seats),
		Rounds: rounds, Guidance: slices.Clone(f.guidance),
	}
}

// synthesize stores the synthesis, records its document, and hands it to
// the host's FollowUp.
func (f *format) synthesize(ctx context.Context, s *duelogic.Session) error {
	d := s.Debate()
	if err := f.timed(ctx, 0, nil, func(ctx context.Context) error {
		_, err := s.Step(ctx, "synthesis", RecordSynthesis, SpeakerModerator, &f.synthesis,
			func(ctx context.Context) (any, llm.Usage, error) {
				syn, usage, ok, err := ask(ctx, s, f, SegmentSynthesis, f.synthesisRequest(d), parseSynthesis)
				if err != nil {
					return nil, usage, err
				}
				if !ok {
					return nil, usage, fmt.Errorf("%w: no usable reply after %d attempts", ErrInvalidSynthesis, f.Config.MaxAttempts)
				}
				return f.complete(syn, d, s.DebateID(), s.Now()), usage, nil
			}, event(RecordSynthesis, func() any { return f.synthesis }))
		return err
	}); err != nil {
		return err
	}
	if _, err := s.Record(ctx, "synthesis:document", duelogic.Utterance{
		Speaker: SpeakerModerator, Segment: SegmentSynthesis, Kind: KindSynthesis, Content: f.synthesis.Markdown(),
	}); err != nil {
		return err
	}
	_, err := s.Step(ctx, "followup", RecordFollowUp, SpeakerModerator, &f.followedUp,
		func(ctx context.Context) (any, llm.Usage, error) {
			if f.hooks.FollowUp == nil {
				return false, llm.Usage{}, nil
			}
			if err := f.hooks.FollowUp(ctx, f.synthesis); err != nil {
				return nil, llm.Usage{}, fmt.Errorf("moderated: follow-up of %s: %w", s.DebateID(), err)
			}
			return true, llm.Usage{}, nil
		}, event(RecordFollowUp, func() any { return f.followedUp }))
	return err
}

// complete fills in the synthesis's facts — date, ID, rounds, question, end
// reason — gives every seated perspective its entry in seat order, and
// notes Low confidence when the rounds ran out without convergence.
func (f *format) complete(syn Synthesis, d duelogic.Debate, id string, now time.Time) Synthesis {
	syn.Date, syn.DebateID, syn.Rounds, syn.Question, syn.EndReason = now, id, len(f.rounds), d.Proposition, f.end
	if syn.Title == "" {
		syn.Title = cut(oneLine(d.Proposition), 120)
	}
	var ordered []PerspectiveSummary
	for _, p := range f.seats {
		i := slices.IndexFunc(syn.Perspectives, func(ps PerspectiveSummary) bool {
			got, ok := f.ps.resolve(ps.Name)
			return ok && got == p.ID
		})
		var sum PerspectiveSummary
		if i >= 0 {
			sum = syn.Perspectives[i]
		}
		sum.Name = p.Name
		if len(sum.KeyArguments) == 0 {
			sum.KeyArguments = f.keyArguments(p.ID)
		}
		if len(sum.TradeOffsAccepted) == 0 && p.TradeOffs != "" {
			sum.TradeOffsAccepted = []string{p.TradeOffs}
		}
		ordered = append(ordered, sum)
	}
	syn.Perspectives = ordered
	if f.end == EndMaxRounds {
		syn.Confidence = ConfidenceLow
		syn.Caveats = append(syn.Caveats, fmt.Sprintf("The debate reached its limit of %d rounds without converging; the tensions above are unresolved.", f.Config.MaxRounds))
	}
	return syn
}

// keyArguments is the first sentence of the last argument of id, for a
// perspective the moderator's synthesis left out.
func (f *format) keyArguments(id duelogic.Framework) []string {
	for i := len(f.rounds) - 1; i >= 0; i-- {
		for _, a := range f.rounds[i].Arguments {
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

func (f *format) result(res *duelogic.Result) *Result {
	return &Result{
		Result: res, Config: f.Config, Analysis: f.analysis, Perspectives: f.seats, Rounds: f.rounds,
		EndReason: f.end, Synthesis: f.synthesis, FollowedUp: f.followedUp,
	}
}
