package persuasion

import (
	"context"
	"fmt"
	"os"
	"strings"

	"github.com/duelogic/duelogic/argumentation"
	"github.com/duelogic/duelogic/engine"
	"github.com/duelogic/duelogic/llm"
)

// maxRejectedReply bounds the reply kept in a Rejection, in runes.
const maxRejectedReply = 4000

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
	g := &game{cfg: f.Config, s: s, dlg: argumentation.NewDialogue(SidePro, SideOpp)}
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
	replayed, err := s.Step(ctx, "turn:"+sl.key(), RecordTurn, sl.side, &t,
		func(ctx context.Context) (any, llm.Usage, error) { return g.ask(ctx, sl) },
		func(int64) *engine.Announcement {
			return &engine.Announcement{Type: EventTurn, Segment: seg, Speaker: sl.side, Data: t}
		})
	if err != nil {
		return err
	}
	if t.Side != sl.side || t.Round != sl.round {
		return fmt.Errorf("%w: %s: turn %s holds %s's turn of round %d", engine.ErrCorruptLog, s.DebateID(), sl.key(), t.Side, t.Round)
	}
	if err := g.dlg.ApplyAll(t.Moves); err != nil {
		if replayed {
			return fmt.Errorf("%w: %s: stored turn %s: %v", engine.ErrCorruptLog, s.DebateID(), sl.key(), err)
		}
		return fmt.Errorf("persuasion: turn %s: %w", sl.key(), err)
	}
	exchange := 0
	if sl.phase == PhaseArgumentation {
		exchange = sl.round
	}
	u, err := s.Record(ctx, "say:"+sl.key(), engine.Utterance{
		Speaker: sl.side, Segment: seg, Kind: kind, Exchange: exchange, Content: t.Text, Model: t.Model,
	})
	if err != nil {
		return err
	}
	t.Seq = u.Seq
	g.turns = append(g.turns, t)
	return nil
}

// ask asks sl's debater for its turn until it gives a usable one: parseable
// moves, all legal replies, with text; an unusable reply is shown back to
// the model with its problem, at most MaxReasks times.
func (g *game) ask(ctx context.Context, sl slot) (any, llm.Usage, error) {
	cfg, s := g.cfg, g.s
	prior := g.dlg.Moves()
	var lastOther *Turn
	for i := len(g.turns) - 1; i >= 0; i-- {
		if g.turns[i].Side != sl.side {
			lastOther = &g.turns[i]
			break
		}
	}
	req := turnRequest(cfg, s.Debate(), sl, prior, g.dlg.Commitments(sl.side), lastOther)
	seg, _ := sl.segment()
	attempts := 1 + max(cfg.MaxReasks, 0)
	var usage llm.Usage
	var rejected []Rejection
	var problem error
	for range attempts {
		resp, err := s.Call(ctx, req, seg, sl.side)
		if err != nil {
			return nil, usage, err
		}
		usage = usage.Add(resp.Usage)
		t, err := ParseTurn(resp.Content)
		if err == nil {
			t.Moves, err = checkTurn(cfg, sl, prior, t)
		}
		if err == nil {
			t.Round, t.Phase, t.Side, t.Model, t.Rejected = sl.round, sl.phase, sl.side, modelOf(resp, req), rejected
			return t, usage, nil
		}
		problem = err
		rejected = append(rejected, Rejection{Reply: cut(resp.Content, maxRejectedReply), Problem: err.Error()})
		s.Logger().Info("persuasion: unusable turn asked again", "debate", s.DebateID(), "turn", sl.key(), "problem", err)
		req = reask(req, resp.Content, err, "turn")
	}
	return nil, usage, fmt.Errorf("%w: %s's %s turn in round %d is unusable after %d attempts: %w",
		ErrInvalidTurn, sl.side, sl.phase, sl.round, attempts, problem)
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
	}); err != nil {
		return nil, err
	}
	var b strings.Builder
	if err := report.WriteMarkdown(&b); err != nil {
		return nil, fmt.Errorf("persuasion: render the report: %w", err)
	}
	out := &Outcome{
		Config: cfg, Turns: g.turns, Verdict: v, Moderation: m, Report: report, Markdown: b.String(),
	}
	if gr := report.Graph; gr != nil {
		for _, a := range gr.Arguments() {
			out.Arguments = append(out.Arguments, argumentation.ScoredArgument{Argument: a, Score: report.Scores.Strength[a.ID]})
		}
	}
	return out, nil
}

// moderate asks the moderator for its text about report's verdict until it
// gives a usable one.
func (g *game) moderate(ctx context.Context, report argumentation.Report) (any, llm.Usage, error) {
	cfg, s := g.cfg, g.s
	req := moderationRequest(cfg, s.Debate(), report)
	attempts := 1 + max(cfg.MaxReasks, 0)
	var usage llm.Usage
	var problem error
	for range attempts {
		resp, err := s.Call(ctx, req, SegmentJudgment, engine.SpeakerArbiter)
		if err != nil {
			return nil, usage, err
		}
		usage = usage.Add(resp.Usage)
		m, err := ParseModeration(resp.Content)
		if err == nil {
			m.Model = modelOf(resp, req)
			return m, usage, nil
		}
		problem = err
		s.Logger().Info("persuasion: unusable judgment asked again", "debate", s.DebateID(), "problem", err)
		req = reask(req, resp.Content, err, "judgment")
	}
	return nil, usage, fmt.Errorf("persuasion: the moderator's judgment is unusable after %d attempts: %w", attempts, problem)
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

func modelOf(resp llm.Response, req llm.Request) string {
	if resp.Model != "" {
		return resp.Model
	}
	return req.Model
}
