package persuasion

import (
	"context"
	"fmt"
	"strings"

	"github.com/duelogic/duelogic"
	"github.com/duelogic/duelogic/argumentation"
	"github.com/duelogic/duelogic/llm"
)

// maxRejectedReply bounds the reply kept in a Rejection, in runes.
const maxRejectedReply = 4000

// format is the persuasion debate as a [duelogic.Format]: Config is stored
// at start; the rest is the state and result of Play.
type format struct {
	Config Config `json:"config"`

	dlg        *argumentation.Dialogue
	turns      []Turn
	moderation Moderation
	report     argumentation.Report
	markdown   string
}

// Name is [FormatName].
func (f *format) Name() string { return FormatName }

// Play runs the turns of the schedule one after another, each a stored step
// whose moves are applied to the dialogue and whose text is recorded as an
// utterance, then judges the dialogue, stores the moderator's text and
// renders the report.
func (f *format) Play(ctx context.Context, s *duelogic.Session) error {
	cfg := f.Config
	if err := cfg.Validate(); err != nil {
		return err
	}
	f.dlg = argumentation.NewDialogue(SidePro, SideOpp)
	f.turns, f.moderation, f.report, f.markdown = nil, Moderation{}, argumentation.Report{}, ""
	slots := schedule(cfg)
	for _, seg := range []duelogic.Segment{SegmentOpening, SegmentArgumentation, SegmentClosing} {
		err := s.Segment(ctx, seg, func(ctx context.Context) error {
			for _, sl := range slots {
				if in, _ := sl.segment(); in != seg {
					continue
				}
				if err := f.turn(ctx, s, sl); err != nil {
					return err
				}
			}
			return nil
		})
		if err != nil {
			return err
		}
	}
	return s.Segment(ctx, SegmentJudgment, func(ctx context.Context) error { return f.judge(ctx, s) })
}

// turn plays (or replays) the turn of sl: a step storing the turn, then its
// moves applied to the dialogue and its text recorded as an utterance.
func (f *format) turn(ctx context.Context, s *duelogic.Session, sl slot) error {
	seg, kind := sl.segment()
	var t Turn
	replayed, err := s.Step(ctx, "turn:"+sl.key(), RecordTurn, sl.side, &t,
		func(ctx context.Context) (any, llm.Usage, error) { return f.ask(ctx, s, sl) },
		func(int64) *duelogic.Event {
			return &duelogic.Event{Type: EventTurn, Segment: seg, Speaker: sl.side, Data: t}
		})
	if err != nil {
		return err
	}
	if t.Side != sl.side || t.Round != sl.round {
		return fmt.Errorf("%w: %s: turn %s holds %s's turn of round %d", duelogic.ErrCorruptLog, s.DebateID(), sl.key(), t.Side, t.Round)
	}
	if err := f.dlg.ApplyAll(t.Moves); err != nil {
		if replayed {
			return fmt.Errorf("%w: %s: stored turn %s: %v", duelogic.ErrCorruptLog, s.DebateID(), sl.key(), err)
		}
		return fmt.Errorf("persuasion: turn %s: %w", sl.key(), err)
	}
	exchange := 0
	if sl.phase == PhaseArgumentation {
		exchange = sl.round
	}
	u, err := s.Record(ctx, "say:"+sl.key(), duelogic.Utterance{
		Speaker: sl.side, Segment: seg, Kind: kind, Exchange: exchange, Content: t.Text, Model: t.Model,
	})
	if err != nil {
		return err
	}
	t.Seq = u.Seq
	f.turns = append(f.turns, t)
	return nil
}

// ask asks sl's debater for its turn until it gives a usable one: parseable
// moves, all legal replies, with text; an unusable reply is shown back to
// the model with its problem, at most MaxReasks times.
func (f *format) ask(ctx context.Context, s *duelogic.Session, sl slot) (any, llm.Usage, error) {
	cfg := f.Config
	prior := f.dlg.Moves()
	var lastOther *Turn
	for i := len(f.turns) - 1; i >= 0; i-- {
		if f.turns[i].Side != sl.side {
			lastOther = &f.turns[i]
			break
		}
	}
	req := turnRequest(cfg, s.Debate(), sl, prior, f.dlg.Commitments(sl.side), lastOther)
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
func (f *format) judge(ctx context.Context, s *duelogic.Session) error {
	cfg := f.Config
	d := s.Debate()
	sem := cfg.semantics()
	report, err := f.dlg.Judge(sem, argumentation.VerdictOptions{DrawMargin: cfg.DrawMargin})
	if err != nil {
		return fmt.Errorf("persuasion: judge the dialogue: %w", err)
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
	_, err = s.Step(ctx, "moderation", RecordModeration, SideMod, &m,
		func(ctx context.Context) (any, llm.Usage, error) { return f.moderate(ctx, s, report) },
		func(int64) *duelogic.Event {
			return &duelogic.Event{Type: EventVerdict, Segment: SegmentJudgment, Speaker: SideMod,
				Data: Judgment{Winner: v.Winner, Draw: v.Draw, Sides: v.Sides, Moderation: m}}
		})
	if err != nil {
		return err
	}
	report.Rationale, report.Consensus, report.Conditions = m.Rationale, m.Consensus, m.Conditions
	if _, err := s.Record(ctx, "say:verdict", duelogic.Utterance{
		Speaker: SideMod, Segment: SegmentJudgment, Kind: KindVerdict, Content: verdictText(v, sem, m), Model: m.Model,
	}); err != nil {
		return err
	}
	var b strings.Builder
	if err := report.WriteMarkdown(&b); err != nil {
		return fmt.Errorf("persuasion: render the report: %w", err)
	}
	f.moderation, f.report, f.markdown = m, report, b.String()
	return nil
}

// moderate asks the moderator for its text about report's verdict until it
// gives a usable one.
func (f *format) moderate(ctx context.Context, s *duelogic.Session, report argumentation.Report) (any, llm.Usage, error) {
	cfg := f.Config
	req := moderationRequest(cfg, s.Debate(), report)
	attempts := 1 + max(cfg.MaxReasks, 0)
	var usage llm.Usage
	var problem error
	for range attempts {
		resp, err := s.Call(ctx, req, SegmentJudgment, SideMod)
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
func sharedContext(cfg Config, d duelogic.Debate) []string {
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
