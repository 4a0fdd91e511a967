package scored

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/duelogic/duelogic/engine"
	"github.com/duelogic/duelogic/llm"
)

// judgedRound is a hand-made round of category id whose verdict, won by w,
// moved the score from pre to post.
func judgedRound(id string, w Winner, pre, post float64) Round {
	return Round{Category: Category{ID: id, Name: id}, PreScore: pre, PostScore: post, Delta: post - pre,
		Verdict: Verdict{Winner: w, Reasoning: "r", KeyPoints: []string{"k"}, Confidence: 0.5}}
}

func TestVerdict(t *testing.T) {
	defaulted := judgedRound("market", WinnerDraw, 4, 4)
	defaulted.Verdict = defaultVerdict("no JSON object")
	tests := []struct {
		name string
		out  func(t *testing.T) *Outcome
		want engine.Verdict
	}{
		// Real debates on the stub, each of the default configuration.
		{"stub: the challenger wins", stubOutcome(3), engine.Verdict{Winner: SpeakerChallenger,
			Summary: "challenger wins: total score 16.5 → 15.6 (-0.90) over 3 rounds (advocate 1, challenger 2, draw 0)"}},
		{"stub: the advocate wins", stubOutcome(1), engine.Verdict{Winner: SpeakerAdvocate,
			Summary: "advocate wins: total score 16.5 → 16.97 (+0.47) over 3 rounds (advocate 2, challenger 1, draw 0)"}},
		// Hand-made outcomes.
		{"one round won by the advocate", made(judgedRound("problem", WinnerAdvocate, 6, 6.5)), engine.Verdict{Winner: SpeakerAdvocate,
			Summary: "advocate wins: total score 6 → 6.5 (+0.50) over 1 round (advocate 1, challenger 0, draw 0)"}},
		{"more won by the challenger, by less", made(
			judgedRound("problem", WinnerChallenger, 6, 5.9),
			judgedRound("solution", WinnerChallenger, 5, 4.9),
			judgedRound("market", WinnerAdvocate, 4, 4.3),
		), engine.Verdict{Winner: SpeakerAdvocate,
			Summary: "advocate wins: total score 15 → 15.1 (+0.10) over 3 rounds (advocate 1, challenger 2, draw 0)"}},
		{"every round drawn", made(judgedRound("problem", WinnerDraw, 6, 6), judgedRound("solution", WinnerDraw, 5, 5)),
			engine.Verdict{Draw: true, Summary: "draw: total score 11 → 11 (±0.00) over 2 rounds (advocate 0, challenger 0, draw 2)"}},
		{"changes that cancel but for float noise", made(
			judgedRound("problem", WinnerAdvocate, 5.5, 5.6),
			judgedRound("solution", WinnerAdvocate, 5.5, 5.7),
			judgedRound("market", WinnerChallenger, 5.5, 5.2),
		), engine.Verdict{Draw: true,
			Summary: "draw: total score 16.5 → 16.5 (±0.00) over 3 rounds (advocate 2, challenger 1, draw 0)"}},
		{"a win at the top of the scale moves nothing", made(judgedRound("problem", WinnerAdvocate, 10, 10)),
			engine.Verdict{Draw: true, Summary: "draw: total score 10 → 10 (±0.00) over 1 round (advocate 1, challenger 0, draw 0)"}},
		{"a defaulted verdict is a draw", made(judgedRound("problem", WinnerChallenger, 6, 5.5), defaulted),
			engine.Verdict{Winner: SpeakerChallenger,
				Summary: "challenger wins: total score 10 → 9.5 (-0.50) over 2 rounds (advocate 0, challenger 1, draw 1; 1 defaulted)"}},
		{"no rounds: no winner", made(), engine.Verdict{Summary: "no winner: no round was played"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := tt.out(t).Verdict()
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("verdict (-want +got):\n%s", diff)
			}
			if got.Void {
				t.Error("a scored debate is never void")
			}
			if strings.Contains(got.Summary, "\n") {
				t.Errorf("summary %q is not one line", got.Summary)
			}
		})
	}
}

// stubOutcome plays testIdea with the default configuration on the stub of
// seed.
func stubOutcome(seed int64) func(t *testing.T) *Outcome {
	return func(t *testing.T) *Outcome {
		res, err := run(t, llm.NewStub(seed), Config{})
		if err != nil {
			t.Fatal(err)
		}
		return res.Detail
	}
}

// made is a hand-made outcome of rounds, with its score card.
func made(rounds ...Round) func(*testing.T) *Outcome {
	return func(*testing.T) *Outcome { return &Outcome{Rounds: rounds, Scores: scoreCard(rounds)} }
}

func TestDocuments(t *testing.T) {
	res, err := run(t, llm.NewStub(1), testConfig())
	if err != nil {
		t.Fatal(err)
	}
	played := res.Detail
	if played.DebateID != testIdea.ID || played.Proposition != testIdea.Proposition {
		t.Errorf("the outcome holds debate %q, %q; want %q, %q", played.DebateID, played.Proposition, testIdea.ID, testIdea.Proposition)
	}
	tests := []struct {
		name  string
		out   *Outcome
		want  string // the document's Markdown
		lacks string // not in it
	}{
		{"a played debate", played, played.Markdown(res.Debate), ""},
		{"a hand-made outcome of no debate", &Outcome{}, (&Outcome{}).Markdown(engine.Debate{}), "Debate ID"},
		{"a hand-made outcome of a proposition", &Outcome{Proposition: "Clinics\n# need this", Rounds: []Round{judgedRound("problem", WinnerDraw, 5, 5)}},
			(&Outcome{Rounds: []Round{judgedRound("problem", WinnerDraw, 5, 5)}}).Markdown(engine.Debate{Proposition: "Clinics\n# need this"}), "# need this"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			docs := tt.out.Documents()
			if len(docs) != 1 || docs[0].Name != FileDebate || docs[0].Title != "Scored debate" {
				t.Fatalf("documents %+v, want one %s", docs, FileDebate)
			}
			if diff := cmp.Diff(tt.want, docs[0].Markdown); diff != "" {
				t.Errorf("%s (-want +got):\n%s", FileDebate, diff)
			}
			if tt.lacks != "" && strings.Contains(docs[0].Markdown, tt.lacks) {
				t.Errorf("%s has %q:\n%s", FileDebate, tt.lacks, docs[0].Markdown)
			}
		})
	}
	// The document names the debate it holds; Markdown(d) still renders d.
	if md := played.Documents()[0].Markdown; !strings.Contains(md, "# Scored debate: "+testIdea.Proposition) ||
		!strings.Contains(md, "**Debate ID:** "+testIdea.ID) {
		t.Errorf("%s does not name its debate:\n%s", FileDebate, md)
	}
	other := engine.Debate{ID: "other-1", Proposition: "Another idea"}
	if md := played.Markdown(other); !strings.Contains(md, "# Scored debate: Another idea") || !strings.Contains(md, "other-1") {
		t.Errorf("Markdown(d) does not render d:\n%s", md)
	}
}
