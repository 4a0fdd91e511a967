package moderated

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/duelogic/duelogic/catalog"
)

func TestRepetition(t *testing.T) {
	base := "Redis keeps hot keys in memory so reads stay under a millisecond at peak load."
	tests := []struct {
		name      string
		prev, cur string
		want      float64
	}{
		{"identical", base, base, 1},
		{"case and punctuation ignored", base, strings.ToUpper(strings.ReplaceAll(base, " ", " , ")), 1},
		{"nothing shared", base, "Operational simplicity matters more than raw speed for a team of four.", 0},
		{"empty current", base, "", 0},
		{"empty previous", "", base, 0},
		// The 13 trigrams of the 15-word base, and 4 new ones.
		{"extended", base, base + " Yet we must budget.", 13.0 / 17},
		{"half new", "alpha beta gamma delta epsilon", "alpha beta gamma zeta eta", 1.0 / 3},
		{"same words, new order", "one two three four", "four three two one", 0},
		{"short texts compare words", "speed matters", "speed", 1},
		{"two words", "speed matters", "matters speed", 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := Repetition(tt.prev, tt.cur); fmt.Sprintf("%.4f", got) != fmt.Sprintf("%.4f", tt.want) {
				t.Errorf("Repetition = %.4f, want %.4f", got, tt.want)
			}
		})
	}
}

func TestRepeatsThreshold(t *testing.T) {
	prev := "a1 a2 a3 a4 a5 a6 a7 a8 a9 a10 a11 a12"
	tests := []struct {
		cur  string
		want bool
	}{
		// 10 trigrams, 6 repeated: exactly 60% is not more than 60%.
		{"a1 a2 a3 a4 a5 a6 a7 a8 b1 b2 b3 b4", false},
		// 10 trigrams, 7 repeated.
		{"a1 a2 a3 a4 a5 a6 a7 a8 a9 b1 b2 b3", true},
		{prev, true},
	}
	for _, tt := range tests {
		if got := Repeats(prev, tt.cur); got != tt.want {
			t.Errorf("Repeats(%q) = %v (%.2f), want %v", tt.cur, got, Repetition(prev, tt.cur), tt.want)
		}
	}
}

func FuzzRepetition(f *testing.F) {
	f.Add("Redis is fast.", "Redis is fast, really.")
	f.Add("", "x")
	f.Add("ünïcode wörds here", "ÜNÏCODE WÖRDS here again")
	f.Fuzz(func(t *testing.T, prev, cur string) {
		r := Repetition(prev, cur)
		if r < 0 || r > 1 {
			t.Fatalf("Repetition = %v", r)
		}
		if len(wordsOf(cur)) > 0 && Repetition(cur, cur) != 1 {
			t.Fatalf("a text does not fully repeat itself: %v", Repetition(cur, cur))
		}
	})
}

func TestEndOf(t *testing.T) {
	tests := []struct {
		name          string
		j             Judgment
		round, active int
		want          EndReason
	}{
		{"goes on", Judgment{NewGround: true}, 2, 2, ""},
		{"agreement at once", Judgment{Converging: true}, 1, 3, EndAgreement},
		{"clear winner", Judgment{ClearWinner: catalog.SecurityAdvocate}, 2, 2, EndClearWinner},
		{"moderator sees stagnation", Judgment{Stagnating: true}, 2, 2, EndStagnation},
		{"every debater repeats", Judgment{Repeating: []catalog.Framework{"a", "b"}}, 2, 2, EndStagnation},
		{"one of two repeats", Judgment{Repeating: []catalog.Framework{"a"}}, 2, 2, ""},
		{"round cap", Judgment{NewGround: true}, 5, 2, EndMaxRounds},
		{"agreement beats the cap", Judgment{Converging: true}, 5, 2, EndAgreement},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := endOf(tt.j, tt.round, 5, tt.active); got != tt.want {
				t.Errorf("endOf = %q, want %q", got, tt.want)
			}
		})
	}
}

func TestParseJudgment(t *testing.T) {
	ps, _ := newPerspectives(DefaultConfig())
	active := []catalog.Framework{catalog.PerformanceAdvocate, catalog.SimplicityAdvocate}
	resolve := func(name string) (catalog.Framework, bool) {
		id, ok := ps.resolve(name)
		return id, ok && slices.Contains(active, id)
	}
	tests := []struct {
		name  string
		reply string
		want  Judgment
		err   string
	}{
		{"full", `{"converging":false,"stagnating":true,"newGround":false,"clearWinner":"Simplicity Advocate","offTopic":["performance_advocate","Security Advocate","nobody"],"summary":"S."}`,
			Judgment{Stagnating: true, ClearWinner: catalog.SimplicityAdvocate, OffTopic: []catalog.Framework{catalog.PerformanceAdvocate}, Summary: "S."}, ""},
		{"loose types and keys", "```json\n{\"Converging\":\"yes\",\"new_ground\":1,\"clear_winner\":\"none\",\"off_topic\":\"the Performance Advocate perspective\",\"summary\":\" S. \"}\n```",
			Judgment{Converging: true, NewGround: true, OffTopic: []catalog.Framework{catalog.PerformanceAdvocate}, Summary: "S."}, ""},
		{"no summary", `{"converging":true}`, Judgment{}, "summary is empty"},
		{"prose", "They are converging.", Judgment{}, "no JSON object"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := parseJudgment(tt.reply, resolve)
			if tt.err != "" {
				if err == nil || !strings.Contains(err.Error(), tt.err) {
					t.Fatalf("err = %v, want %q", err, tt.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("judgment (-want +got):\n%s", diff)
			}
		})
	}
}

// TestConvergenceSignals runs debates whose moderator reports each signal.
func TestConvergenceSignals(t *testing.T) {
	winner := `{"clearWinner":"Performance Advocate","summary":"Performance carried it."}`
	tests := []struct {
		name      string
		judgments []string
		argument  string // every argument, when set (a debater repeating itself)
		rounds    int
		end       EndReason
		conf      Confidence // "" when the moderator's stands
	}{
		{"agreement at once ends after round 1", []string{judgeAgree}, "", 1, EndAgreement, ""},
		{"agreement later", []string{judgeOn, judgeOn, judgeAgree}, "", 3, EndAgreement, ""},
		{"clear winner", []string{judgeOn, winner}, "", 2, EndClearWinner, ""},
		{"moderator sees stagnation", []string{judgeOn, judgeStagnant}, "", 2, EndStagnation, ""},
		{"measured repetition", []string{judgeOn}, texts("same", 1)[0], 2, EndStagnation, ""},
		{"max rounds without convergence", []string{judgeOn}, "", 4, EndMaxRounds, ConfidenceLow},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			args := texts("argument", 50)
			if tt.argument != "" {
				args = []string{tt.argument}
			}
			f := newFakeArgs(args, tt.judgments...)
			cfg := testConfig()
			cfg.MaxRounds = 4
			res := mustRun(t, f, cfg, cachingQuestion, nil)
			if len(res.Rounds) != tt.rounds || res.EndReason != tt.end {
				t.Fatalf("%d rounds ending in %q, want %d ending in %q", len(res.Rounds), res.EndReason, tt.rounds, tt.end)
			}
			if f.Calls(PurposeSynthesis) != 1 || res.Synthesis.Recommendation != "Start with PostgreSQL." {
				t.Errorf("no synthesis: %+v", res.Synthesis)
			}
			want := ConfidenceMedium
			if tt.conf != "" {
				want = tt.conf
			}
			if res.Synthesis.Confidence != want {
				t.Errorf("confidence %s, want %s", res.Synthesis.Confidence, want)
			}
			if tt.end == EndMaxRounds && !slices.ContainsFunc(res.Synthesis.Caveats, func(c string) bool { return strings.Contains(c, "without converging") }) {
				t.Errorf("caveats %q do not note the missing convergence", res.Synthesis.Caveats)
			}
			if tt.argument != "" {
				j := res.Rounds[1].Judgment
				if diff := cmp.Diff([]catalog.Framework{catalog.PerformanceAdvocate, catalog.SimplicityAdvocate}, j.Repeating); diff != "" {
					t.Errorf("repeating (-want +got):\n%s", diff)
				}
				if res.Rounds[1].Arguments[0].Repetition != 1 {
					t.Errorf("repetition %v", res.Rounds[1].Arguments[0].Repetition)
				}
				if !strings.Contains(lastUser(requests(f, PurposeJudgment)[1]), "Performance Advocate: 100% (repeats)") {
					t.Errorf("the moderator is not told of the repetition")
				}
			}
			if got := res.Synthesis.Markdown(); !strings.Contains(got, fmt.Sprintf("**Rounds:** %d\n", tt.rounds)) {
				t.Errorf("synthesis document:\n%s", got)
			}
		})
	}
}
