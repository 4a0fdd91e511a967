package persuasion

import (
	"context"
	"fmt"
	"os"
	"slices"
	"strings"

	"github.com/duelogic/duelogic/argumentation"
	"github.com/duelogic/duelogic/engine"
	"github.com/duelogic/duelogic/llm"
)

// game is one debate being played: the dialogue so far and the turns.
type game struct {
	cfg   Config
	s     *engine.Session
	dlg   *argumentation.Dialogue
	turns []Turn
}

// Play runs the turns of the schedule one after another, each a stored step
// whose moves are applied to the dialogue and whose text is recorded as an
// utterance, then judges the dialogue, stores the moderator's text and
// renders the report (and writes it, with [WithMarkdownFile]).
func (f *Format) Play(ctx context.Context, s *engine.Session) (*Outcome, error) {
	g := &game{cfg: f.Config, s: s, dlg: newDialogue(f.Config.Protocol)}
	slots := schedule(g.cfg)
	for _, seg := range []engine.Segment{SegmentOpening, SegmentArgumentation, SegmentClosing} {
		err := s.Segment(ctx, seg, func(ctx context.Context) error {
			for _, sl := range slots {
				if in, _ := sl.segment(); in != seg {
					continue
				}
				if err := g.turn(ctx, sl); err != nil {
					return err
				}
			}
			return nil
		})
		if err != nil {
			return nil, err
		}
	}
	var out *Outcome
	err := s.Segment(ctx, SegmentJudgment, func(ctx context.Context) (err error) {
		out, err = g.judge(ctx)
		return err
	})
	if err != nil {
		return nil, err
	}
	if f.markdownFile != "" {
		if err := os.WriteFile(f.markdownFile, []byte(out.Markdown), 0o644); err != nil {
			return nil, fmt.Errorf("persuasion: write the report: %w", err)
		}
	}
	return out, nil
}

// turn plays (or replays) the turn of sl: a step storing the turn, then its
// moves applied to the dialogue and its text recorded as an utterance.
func (g *game) turn(ctx context.Context, sl slot) error {
	s := g.s
	seg, kind := sl.segment()
	var t Turn
	replayed, err := s.Step(ctx, "turn:"+sl.key(), RecordTurn, sl.speaker, &t,
		func(ctx context.Context) (any, llm.Usage, error) { return g.ask(ctx, sl) },
		func(int64) *engine.Announcement {
			return &engine.Announcement{Type: EventTurn, Segment: seg, Speaker: sl.speaker, Data: t}
		})
	if err != nil {
		return err
	}
	if t.Side != sl.side() || t.Round != sl.round {
		return fmt.Errorf("%w: %s: turn %s holds %s's turn of round %d", engine.ErrCorruptLog, s.DebateID(), sl.key(), t.Side, t.Round)
	}
	if err := g.dlg.ApplyAll(t.Moves); err != nil {
		if replayed {
			return fmt.Errorf("%w: %s: stored turn %s: %v", engine.ErrCorruptLog, s.DebateID(), sl.key(), err)
		}
		return fmt.Errorf("persuasion: turn %s: %w", sl.key(), err)
	}
	if err := g.dlg.ApplyAll(t.Challenges); err != nil {
		if replayed {
			return fmt.Errorf("%w: %s: stored turn %s: the protocol's challenges: %v", engine.ErrCorruptLog, s.DebateID(), sl.key(), err)
		}
		return fmt.Errorf("persuasion: turn %s: the protocol's challenges: %w", sl.key(), err)
	}
	exchange := 0
	if sl.phase == PhaseArgumentation {
		exchange = sl.round
	}
	u, err := s.Record(ctx, "say:"+sl.key(), engine.Utterance{
		Speaker: sl.speaker, Segment: seg, Kind: kind, Exchange: exchange, Content: t.Text, Model: t.Model,
		Defaulted: t.Defaulted,
	})
	if err != nil {
		return err
	}
	if u.Speaker != sl.speaker {
		// Stored before the speaker IDs were lowercase: the transcript
		// names the debater by its ID all the same (the record keeps
		// the side label it was stored with).
		s.Amend(u.Seq, func(u *engine.Utterance) { u.Speaker = sl.speaker })
	}
	t.Seq = u.Seq
	g.turns = append(g.turns, t)
	return nil
}

// ask asks sl's debater for its turn: parseable moves, all legal replies,
// with text. An unusable reply is shown back to the model (clipped) with
// its problem and asked for once more; a reply still unusable makes the
// turn a pass (see [Turn].Defaulted).
func (g *game) ask(ctx context.Context, sl slot) (any, llm.Usage, error) {
	cfg, s := g.cfg, g.s
	prior := g.dlg.Moves()
	var lastOther *Turn
	for i := len(g.turns) - 1; i >= 0; i-- {
		if g.turns[i].Side != sl.side() {
			lastOther = &g.turns[i]
			break
		}
	}
	req := turnRequest(cfg, s.Debate(), sl, g.dlg, lastOther)
	seg, _ := sl.segment()
	var rejected []Rejection
	t, res, usage, err := engine.Judge(ctx, s, req, seg, sl.speaker, func(reply string) (Turn, error) {
		t, err := ParseTurn(reply)
		if err == nil {
			t.Moves, err = checkTurn(cfg, sl, prior, t)
		}
		if err != nil {
			rejected = append(rejected, Rejection{Reply: cut(reply, engine.MaxQuotedReply), Problem: err.Error()})
			s.Logger().Info("persuasion: unusable turn", "debate", s.DebateID(), "turn", sl.key(), "problem", err)
		}
		return t, err
	})
	if err != nil {
		return nil, usage, err
	}
	if res.Defaulted {
		t = passTurn(sl, res)
	}
	t.Round, t.Phase, t.Side, t.Model, t.Rejected = sl.round, sl.phase, sl.side(), res.Model, rejected
	t.Challenges = challengesOf(cfg.Protocol, append(slices.Clone(prior), t.Moves...), t)
	return t, usage, nil
}

// passTurn is the turn of a debater whose replies could not be used, even
// when asked again: it makes no move, and says what the reply said when
// its text could be read.
func passTurn(sl slot, res engine.JudgmentOutcome) Turn {
	t := Turn{Moves: []argumentation.Move{}, Defaulted: true}
	if read, err := ParseTurn(res.Reply); err == nil {
		t.Text = strings.TrimSpace(read.Text)
	}
	if t.Text == "" {
		t.Text = fmt.Sprintf("(%s passes: its turn could not be used: %s.)", sl.side(), res.Problem)
	}
	return t
}

// judge computes the verdict, stores the moderator's text about it, records
// the moderator's utterance and renders the report.
func (g *game) judge(ctx context.Context) (*Outcome, error) {
	cfg, s := g.cfg, g.s
	d := s.Debate()
	sem := cfg.semantics()
	report, err := g.dlg.Judge(sem, argumentation.VerdictOptions{DrawMargin: cfg.DrawMargin})
	if err != nil {
		return nil, fmt.Errorf("persuasion: judge the dialogue: %w", err)
	}
	report.Topic = d.Proposition
	report.Participants = []argumentation.Participant{
		{Side: SidePro, Persona: cfg.Pro.String()},
		{Side: SideOpp, Persona: cfg.Opp.String()},
		{Side: SideMod, Persona: cfg.Mod.String()},
	}
	report.Context = sharedContext(cfg, d)
	report.Final = true
	v := report.Verdict

	var m Moderation
	_, err = s.Step(ctx, "moderation", RecordModeration, engine.SpeakerArbiter, &m,
		func(ctx context.Context) (any, llm.Usage, error) { return g.moderate(ctx, report) },
		func(int64) *engine.Announcement {
			return &engine.Announcement{Type: EventVerdict, Segment: SegmentJudgment, Speaker: engine.SpeakerArbiter,
				Data: Judgment{Winner: v.Winner, Draw: v.Draw, Sides: v.Sides, Moderation: m}}
		})
	if err != nil {
		return nil, err
	}
	report.Rationale, report.Consensus, report.Conditions = m.Rationale, m.Consensus, m.Conditions
	if _, err := s.Record(ctx, "say:verdict", engine.Utterance{
		Speaker: engine.SpeakerArbiter, Segment: SegmentJudgment, Kind: KindVerdict, Content: verdictText(v, sem, m), Model: m.Model,
		Defaulted: m.Defaulted,
	}); err != nil {
		return nil, err
	}
	var b strings.Builder
	if err := report.WriteMarkdown(&b); err != nil {
		return nil, fmt.Errorf("persuasion: render the report: %w", err)
	}
	out := &Outcome{
		Config: cfg, Turns: g.turns, Computed: v, Moderation: m, Report: report, Markdown: b.String(),
	}
	if gr := report.Graph; gr != nil {
		for _, a := range gr.Arguments() {
			out.Arguments = append(out.Arguments, argumentation.ScoredArgument{Argument: a, Score: report.Scores.Strength[a.ID]})
		}
	}
	return out, nil
}

// moderate asks the moderator for its text about report's verdict, once
// more when the reply is incomplete, and then takes the default moderation.
func (g *game) moderate(ctx context.Context, report argumentation.Report) (any, llm.Usage, error) {
	cfg, s := g.cfg, g.s
	req := moderationRequest(cfg, s.Debate(), report)
	m, res, usage, err := engine.Judge(ctx, s, req, SegmentJudgment, engine.SpeakerArbiter, ParseModeration)
	if err != nil {
		return nil, usage, err
	}
	if res.Defaulted {
		m = defaultModeration(res.Problem)
	}
	m.Model = res.Model
	return m, usage, nil
}

// defaultModeration stands for a moderator whose replies could not be
// used: the computed verdict stands unexplained.
func defaultModeration(problem string) Moderation {
	return Moderation{
		Rationale:  "The moderator's explanation could not be used (" + problem + "); the computed verdict above stands as it is.",
		Conditions: []string{},
		Defaulted:  true,
	}
}

// sharedContext is K as the report lists it: the debate's background, then
// the facts.
func sharedContext(cfg Config, d engine.Debate) []string {
	var k []string
	if c := strings.TrimSpace(d.Context); c != "" {
		k = append(k, c)
	}
	for _, f := range cfg.Facts {
		if f = strings.TrimSpace(f); f != "" {
			k = append(k, f)
		}
	}
	return k
}
