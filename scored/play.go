package scored

import (
	"context"
	"fmt"
	"strings"

	"golang.org/x/sync/errgroup"

	"github.com/duelogic/duelogic"
	"github.com/duelogic/duelogic/llm"
)

// format is the scored debate as a [duelogic.Format]: Config is stored at
// start; the rest is the result of Play.
type format struct {
	Config Config `json:"config"`

	rounds []Round
	scores ScoreCard
}

// Name is [FormatName].
func (f *format) Name() string { return FormatName }

// turn is a debater's reply as stored by its side step.
type turn struct {
	Content string `json:"content"`
	Model   string `json:"model"`
}

// judged is the arbiter's verdict as stored by its side step.
type judged struct {
	Verdict Verdict `json:"verdict"`
	Model   string  `json:"model"`
}

// roundGen is what one round's side steps produced: the advocate's and the
// challenger's arguments, then their rebuttals, then the verdict.
type roundGen struct {
	turns   [4]turn
	verdict judged
}

// The order of roundGen.turns.
var turnOrder = [4]struct {
	side Side
	kind duelogic.UtteranceKind
}{
	{Advocate, KindArgument}, {Challenger, KindArgument}, {Advocate, KindRebuttal}, {Challenger, KindRebuttal},
}

// Play runs every round in its own goroutine, each storing its turns and
// verdict in side steps keyed by category, then records the utterances in
// category order on this goroutine, so the transcript's order does not
// depend on which round finished first, and stores the score card.
func (f *format) Play(ctx context.Context, s *duelogic.Session) error {
	cfg := f.Config
	if err := cfg.Validate(); err != nil {
		return err
	}
	f.rounds, f.scores = nil, ScoreCard{}
	return s.Segment(ctx, SegmentRounds, func(ctx context.Context) error {
		gens := make([]roundGen, len(cfg.Categories))
		g, gctx := errgroup.WithContext(ctx)
		g.SetLimit(max(1, cfg.Parallel))
		for i, cat := range cfg.Categories {
			g.Go(func() error { return f.generate(gctx, s, cat, &gens[i]) })
		}
		if err := g.Wait(); err != nil {
			return err
		}
		for i, cat := range cfg.Categories {
			r, err := f.record(ctx, s, i, cat, &gens[i])
			if err != nil {
				return err
			}
			f.rounds = append(f.rounds, r)
		}
		card := scoreCard(f.rounds)
		_, err := s.Step(ctx, "scores", RecordScores, duelogic.SpeakerArbiter, &f.scores,
			func(context.Context) (any, llm.Usage, error) { return card, llm.Usage{}, nil },
			func(int64) *duelogic.Event {
				return &duelogic.Event{Type: EventScores, Segment: SegmentRounds, Data: f.scores}
			})
		return err
	})
}

// generate plays one round's model calls: both arguments at once, then both
// rebuttals at once (each answering the other side's argument), then the
// verdict.
func (f *format) generate(ctx context.Context, s *duelogic.Session, cat Category, g *roundGen) error {
	for _, phase := range [][2]int{{0, 1}, {2, 3}} {
		eg, ectx := errgroup.WithContext(ctx)
		for _, i := range phase {
			var answering *turn
			if i >= 2 {
				answering = &g.turns[1-(i-2)] // the other side's argument
			}
			eg.Go(func() error { return f.argue(ectx, s, s.Debate(), cat, turnOrder[i].side, answering, &g.turns[i]) })
		}
		if err := eg.Wait(); err != nil {
			return err
		}
	}
	return f.judge(ctx, s, cat, g)
}

// argue stores side's argument (or rebuttal of answering) in out, asking
// again while the reply is shorter than MinArgumentWords.
func (f *format) argue(ctx context.Context, s *duelogic.Session, d duelogic.Debate, cat Category, side Side, answering *turn, out *turn) error {
	cfg := f.Config
	kind := "argument"
	if answering != nil {
		kind = "rebuttal"
	}
	_, err := s.SideStep(ctx, "gen:"+cat.ID+":"+string(side)+":"+kind, RecordTurn, string(side), out,
		func(ctx context.Context) (any, llm.Usage, error) {
			req := argumentRequest(cfg, d, cat, side, answering)
			var usage llm.Usage
			var words int
			for range cfg.MaxAttempts {
				resp, err := s.Call(ctx, req, SegmentRounds, string(side))
				if err != nil {
					return nil, usage, err
				}
				usage = usage.Add(resp.Usage)
				content := strings.TrimSpace(resp.Content)
				if words = len(strings.Fields(content)); words >= max(cfg.MinArgumentWords, 1) {
					return turn{Content: content, Model: modelOf(resp, req)}, usage, nil
				}
				req = retryMessages(req, content, fmt.Sprintf("it has %d words and at least %d are needed", words, cfg.MinArgumentWords))
			}
			return nil, usage, fmt.Errorf("%w: the %s's %s on %s had %d words after %d attempts; at least %d are needed",
				ErrThinArgument, side, kind, cat.ID, words, cfg.MaxAttempts, cfg.MinArgumentWords)
		}, nil)
	return err
}

// judge stores the arbiter's verdict on round g, asking again while the
// reply is not a valid verdict.
func (f *format) judge(ctx context.Context, s *duelogic.Session, cat Category, g *roundGen) error {
	cfg := f.Config
	d := s.Debate()
	_, err := s.SideStep(ctx, "gen:"+cat.ID+":verdict", RecordVerdict, duelogic.SpeakerArbiter, &g.verdict,
		func(ctx context.Context) (any, llm.Usage, error) {
			req := verdictRequest(cfg, d, cat, g)
			var usage llm.Usage
			var perr error
			for range cfg.MaxAttempts {
				resp, err := s.Call(ctx, req, SegmentRounds, duelogic.SpeakerArbiter)
				if err != nil {
					return nil, usage, err
				}
				usage = usage.Add(resp.Usage)
				v, err := ParseVerdict(resp.Content)
				if err == nil {
					return judged{Verdict: v, Model: modelOf(resp, req)}, usage, nil
				}
				perr = err
				req = retryMessages(req, resp.Content, strings.TrimPrefix(err.Error(), ErrInvalidVerdict.Error()+": "))
			}
			return nil, usage, fmt.Errorf("round %s: no valid verdict after %d attempts: %w", cat.ID, cfg.MaxAttempts, perr)
		},
		func(int64) *duelogic.Event {
			return &duelogic.Event{Type: EventVerdict, Segment: SegmentRounds, Speaker: duelogic.SpeakerArbiter,
				Data: RoundVerdict{Category: cat.ID, Verdict: g.verdict.Verdict}}
		})
	return err
}

func modelOf(resp llm.Response, req llm.Request) string {
	if resp.Model != "" {
		return resp.Model
	}
	return req.Model
}

// record stores round i's utterances in their fixed order and applies its
// verdict to the category's score.
func (f *format) record(ctx context.Context, s *duelogic.Session, i int, cat Category, g *roundGen) (Round, error) {
	r := Round{Number: i + 1, Category: cat}
	for j, t := range g.turns {
		side, kind := turnOrder[j].side, turnOrder[j].kind
		u, err := s.Record(ctx, cat.ID+":"+string(side)+":"+string(kind), duelogic.Utterance{
			Speaker: string(side), Segment: SegmentRounds, Kind: kind, Exchange: r.Number, Content: t.Content, Model: t.Model,
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
	_, err := s.Record(ctx, cat.ID+":verdict", duelogic.Utterance{
		Speaker: duelogic.SpeakerArbiter, Segment: SegmentRounds, Kind: KindVerdict, Exchange: r.Number,
		Content: verdictText(cat, r.Verdict, r.PreScore, r.PostScore, r.Delta), Model: g.verdict.Model,
	})
	return r, err
}

// scoreCard sums up the rounds' adjustments.
func scoreCard(rounds []Round) ScoreCard {
	c := ScoreCard{Pre: map[string]float64{}, Post: map[string]float64{}, Adjustments: map[string]float64{}}
	for _, r := range rounds {
		id := r.Category.ID
		c.Pre[id], c.Post[id], c.Adjustments[id] = r.PreScore, r.PostScore, r.Delta
		c.Total += r.Delta
	}
	return c
}

func (f *format) result(res *duelogic.Result) *Result {
	return &Result{Result: res, Config: f.Config, Rounds: f.rounds, Scores: f.scores}
}
