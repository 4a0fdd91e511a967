package scored

import (
	"context"
	"fmt"
	"strings"

	"golang.org/x/sync/errgroup"

	"github.com/duelogic/duelogic/engine"
	"github.com/duelogic/duelogic/llm"
)

// turn is a debater's reply as stored by its side step.
type turn struct {
	Content string `json:"content"`
	Model   string `json:"model"`
	// Truncated: the model stopped at the request's token cap.
	Truncated bool `json:"truncated,omitempty"`
}

// judged is the arbiter's verdict as stored by its side step.
type judged struct {
	Verdict Verdict `json:"verdict"`
	Model   string  `json:"model"`
}

// roundGen is what one round's side steps produced: the advocate's and the
// challenger's arguments, then their rebuttals, then the verdict; err is
// why they could not (set before the round is marked done).
type roundGen struct {
	turns   [4]turn
	verdict judged
	err     error
}

// The order of roundGen.turns.
var turnOrder = [4]struct {
	side Side
	kind engine.UtteranceKind
}{
	{Advocate, KindArgument}, {Challenger, KindArgument}, {Advocate, KindRebuttal}, {Challenger, KindRebuttal},
}

// Play plays the rounds (see the package documentation) and stores the
// score card.
func (f *Format) Play(ctx context.Context, s *engine.Session) (*Outcome, error) {
	out := &Outcome{DebateID: s.DebateID(), Proposition: s.Debate().Proposition, Config: f.Config}
	err := s.Segment(ctx, SegmentRounds, func(ctx context.Context) error {
		rounds, err := f.playRounds(ctx, s)
		if err != nil {
			return err
		}
		out.Rounds = rounds
		card := scoreCard(rounds)
		_, err = s.Step(ctx, "scores", RecordScores, engine.SpeakerArbiter, &out.Scores,
			func(context.Context) (any, llm.Usage, error) { return card, llm.Usage{}, nil },
			func(int64) *engine.Announcement {
				return &engine.Announcement{Type: EventScores, Segment: SegmentRounds, Data: out.Scores}
			})
		return err
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

// playRounds generates the rounds beside the main flow, in category order
// and Config.Parallel at a time, each storing its replies in side steps
// keyed by category; and, on Play's goroutine, records each round as soon as
// it and the rounds before it are generated, so the transcript's order never
// depends on which round finished first. It returns once every generating
// goroutine has ended.
func (f *Format) playRounds(ctx context.Context, s *engine.Session) ([]Round, error) {
	cats := f.Config.Categories
	gens := make([]roundGen, len(cats))
	done := make([]chan struct{}, len(cats))
	for i := range done {
		done[i] = make(chan struct{})
	}
	gctx, cancel := context.WithCancel(ctx)
	defer cancel()
	generated := make(chan error, 1) // the first error of the rounds, once all have ended
	go func() {
		g, gctx := errgroup.WithContext(gctx)
		g.SetLimit(max(1, f.Config.Parallel))
		for i, cat := range cats {
			if err := gctx.Err(); err != nil {
				gens[i].err = err
				close(done[i])
				continue
			}
			g.Go(func() error {
				defer close(done[i])
				gens[i].err = f.generate(gctx, s, cat, &gens[i])
				return gens[i].err
			})
		}
		generated <- g.Wait()
	}()
	rounds := make([]Round, 0, len(cats))
	for i, cat := range cats {
		<-done[i]
		if gens[i].err != nil {
			err := <-generated
			if err == nil { // the round was never started: ctx was cancelled
				err = gens[i].err
			}
			return nil, err
		}
		r, err := f.record(ctx, s, i, cat, &gens[i])
		if err != nil {
			cancel()
			<-generated
			return nil, err
		}
		rounds = append(rounds, r)
	}
	return rounds, <-generated
}

// generate plays one round's model calls: both arguments at once, then both
// rebuttals at once (each answering the other side's argument), then the
// verdict.
func (f *Format) generate(ctx context.Context, s *engine.Session, cat Category, g *roundGen) error {
	for _, phase := range [][2]int{{0, 1}, {2, 3}} {
		eg, ectx := errgroup.WithContext(ctx)
		for _, i := range phase {
			var answering *turn
			if i >= 2 {
				answering = &g.turns[1-(i-2)] // the other side's argument
			}
			eg.Go(func() error { return f.argue(ectx, s, cat, turnOrder[i].side, answering, &g.turns[i]) })
		}
		if err := eg.Wait(); err != nil {
			return err
		}
	}
	return f.judge(ctx, s, cat, g)
}

// argue stores side's argument (or rebuttal of answering) in out, asking
// again while the reply is shorter than MinArgumentWords.
func (f *Format) argue(ctx context.Context, s *engine.Session, cat Category, side Side, answering *turn, out *turn) error {
	cfg := f.Config
	kind := "argument"
	if answering != nil {
		kind = "rebuttal"
	}
	_, err := s.SideStep(ctx, "gen:"+cat.ID+":"+string(side)+":"+kind, RecordTurn, string(side), out,
		func(ctx context.Context) (any, llm.Usage, error) {
			req := argumentRequest(cfg, s.Debate(), cat, side, answering)
			var usage llm.Usage
			var words int
			for range cfg.MaxAttempts {
				resp, err := s.CallStreamed(ctx, req, SegmentRounds, string(side))
				if err != nil {
					return nil, usage, err
				}
				usage = usage.Add(resp.Usage)
				content := strings.TrimSpace(resp.Content)
				if words = len(strings.Fields(content)); words >= max(cfg.MinArgumentWords, 1) {
					cut := s.Truncated(req, resp, SegmentRounds, string(side))
					return turn{Content: content, Model: modelOf(resp, req), Truncated: cut}, usage, nil
				}
				req = retryMessages(req, content, fmt.Sprintf("it has %d words and at least %d are needed", words, cfg.MinArgumentWords))
			}
			return nil, usage, fmt.Errorf("%w: the %s's %s on %s had %d words after %d attempts; at least %d are needed",
				ErrThinArgument, side, kind, cat.ID, words, cfg.MaxAttempts, cfg.MinArgumentWords)
		}, nil)
	return err
}

// judge stores the arbiter's verdict on round g: asked again once when the
// reply is not a valid verdict, and then, still invalid, the default
// verdict (a draw that leaves the score as it was, marked Defaulted).
func (f *Format) judge(ctx context.Context, s *engine.Session, cat Category, g *roundGen) error {
	cfg := f.Config
	_, err := s.SideStep(ctx, "gen:"+cat.ID+":verdict", RecordVerdict, engine.SpeakerArbiter, &g.verdict,
		func(ctx context.Context) (any, llm.Usage, error) {
			req := verdictRequest(cfg, s.Debate(), cat, g)
			v, res, usage, err := engine.Judge(ctx, s, req, SegmentRounds, engine.SpeakerArbiter, ParseVerdict)
			if err != nil {
				return nil, usage, err
			}
			if res.Defaulted {
				v = defaultVerdict(res.Problem)
			}
			return judged{Verdict: v, Model: res.Model}, usage, nil
		}, nil)
	return err
}

// defaultVerdict is the verdict of a round whose arbiter gave no valid one:
// a draw at confidence 0, which moves no score.
func defaultVerdict(problem string) Verdict {
	return Verdict{Winner: WinnerDraw, Defaulted: true, KeyPoints: []string{},
		Reasoning: "The arbiter gave no valid verdict (" + problem + "), so the round counts as a draw and the score is unchanged."}
}

func modelOf(resp llm.Response, req llm.Request) string {
	if resp.Model != "" {
		return resp.Model
	}
	return req.Model
}

// record stores round i's utterances in their fixed order, applies its
// verdict to the category's score and stores that, announced by an
// [EventVerdict].
func (f *Format) record(ctx context.Context, s *engine.Session, i int, cat Category, g *roundGen) (Round, error) {
	r := Round{Number: i + 1, Category: cat}
	for j, t := range g.turns {
		side, kind := turnOrder[j].side, turnOrder[j].kind
		u, err := s.Record(ctx, cat.ID+":"+string(side)+":"+string(kind), engine.Utterance{
			Speaker: string(side), Segment: SegmentRounds, Kind: kind, Exchange: r.Number, Content: t.Content, Model: t.Model,
			Truncated: t.Truncated,
		})
		if err != nil {
			return r, err
		}
		a := Argument{Side: side, Kind: kind, Content: u.Content, Model: u.Model, Seq: u.Seq}
		if side == Advocate {
			r.Advocate = append(r.Advocate, a)
		} else {
			r.Challenger = append(r.Challenger, a)
		}
	}
	r.Verdict = g.verdict.Verdict
	r.PreScore = f.Config.Evaluations[cat.ID].Score
	r.PostScore, r.Delta = Adjust(r.PreScore, r.Verdict, f.Config.MaxAdjustment, f.Config.Scale)
	if _, err := s.Record(ctx, cat.ID+":verdict", engine.Utterance{
		Speaker: engine.SpeakerArbiter, Segment: SegmentRounds, Kind: KindVerdict, Exchange: r.Number,
		Content: verdictText(cat, r.Verdict, r.PreScore, r.PostScore, r.Delta), Model: g.verdict.Model,
		Defaulted: r.Verdict.Defaulted,
	}); err != nil {
		return r, err
	}
	rv := RoundVerdict{Round: r.Number, Category: cat.ID, Verdict: r.Verdict, PreScore: r.PreScore, PostScore: r.PostScore, Delta: r.Delta}
	_, err := s.Step(ctx, cat.ID+":score", RecordRound, engine.SpeakerArbiter, nil,
		func(context.Context) (any, llm.Usage, error) { return rv, llm.Usage{}, nil },
		func(int64) *engine.Announcement {
			return &engine.Announcement{Type: EventVerdict, Segment: SegmentRounds, Speaker: engine.SpeakerArbiter, Data: rv}
		})
	return r, err
}

// scoreCard sums up the rounds' adjustments.
func scoreCard(rounds []Round) ScoreCard {
	c := ScoreCard{Pre: map[string]float64{}, Post: map[string]float64{}, Adjustments: map[string]float64{}}
	for _, r := range rounds {
		id := r.Category.ID
		c.Pre[id], c.Post[id], c.Adjustments[id] = r.PreScore, r.PostScore, r.Delta
		c.Total = tidy(c.Total + r.Delta)
	}
	return c
}
