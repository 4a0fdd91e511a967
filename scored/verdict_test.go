package scored

import (
	"errors"
	"math"
	"math/rand/v2"
	"strconv"
	"strings"
	"testing"

	"github.com/duelogic/duelogic/llm"
	"github.com/google/go-cmp/cmp"
)

func TestParseVerdict(t *testing.T) {
	tests := []struct {
		name  string
		reply string
		want  Verdict
		probs []string // named in the error; nil for a valid verdict
	}{
		{"valid", `{"winner":"advocate","reasoning":"Grounded in evidence.","keyPoints":["a","b"],"confidence":0.8}`,
			Verdict{Winner: WinnerAdvocate, Reasoning: "Grounded in evidence.", KeyPoints: []string{"a", "b"}, Confidence: 0.8}, nil},
		{"fenced with prose and snake case", "Here it is:\n```json\n{\"Winner\": \"Draw\", \"reasoning\": \"Even.\", \"key_points\": [\"x\", \"\"], \"confidence\": \"0.5\"}\n```\nThanks.",
			Verdict{Winner: WinnerDraw, Reasoning: "Even.", KeyPoints: []string{"x"}, Confidence: 0.5}, nil},
		{"key points as one string", `{"winner":"challenger","reasoning":"r","keyPoints":"cost","confidence":1}`,
			Verdict{Winner: WinnerChallenger, Reasoning: "r", KeyPoints: []string{"cost"}, Confidence: 1}, nil},
		{"first object is not the verdict", `{"note": "draft"} {"winner":"draw","reasoning":"r","keyPoints":["k"],"confidence":0}`,
			Verdict{}, []string{"winner is missing", "reasoning is empty", "keyPoints is empty", "confidence is missing"}},
		{"braces inside strings", `{"winner":"draw","reasoning":"a } and a {","keyPoints":["k"],"confidence":0}`,
			Verdict{Winner: WinnerDraw, Reasoning: "a } and a {", KeyPoints: []string{"k"}, Confidence: 0}, nil},
		{"no JSON", "The advocate wins.", Verdict{}, []string{"no JSON object"}},
		{"unbalanced", `{"winner":"draw"`, Verdict{}, []string{"no JSON object"}},
		{"unknown winner", `{"winner":"tie","reasoning":"r","keyPoints":["k"],"confidence":0.5}`, Verdict{}, []string{`unknown winner "tie"`}},
		{"confidence out of range", `{"winner":"draw","reasoning":"r","keyPoints":["k"],"confidence":-0.1}`, Verdict{}, []string{"confidence -0.1 is outside 0..1"}},
		{"confidence as percent", `{"winner":"draw","reasoning":"r","keyPoints":["k"],"confidence":80}`, Verdict{}, []string{"confidence 80 is outside 0..1"}},
		{"confidence not a number", `{"winner":"draw","reasoning":"r","keyPoints":["k"],"confidence":"high"}`, Verdict{}, []string{"confidence is not a number"}},
		{"everything wrong", `{"winner":5,"reasoning":"","keyPoints":[],"confidence":null}`, Verdict{},
			[]string{"winner is missing", "reasoning is empty", "keyPoints is empty", "confidence is not a number"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := ParseVerdict(tt.reply)
			if tt.probs == nil {
				if err != nil {
					t.Fatal(err)
				}
				if diff := cmp.Diff(tt.want, got); diff != "" {
					t.Errorf("verdict (-want +got):\n%s", diff)
				}
				return
			}
			if !errors.Is(err, ErrInvalidVerdict) {
				t.Fatalf("err = %v, want ErrInvalidVerdict", err)
			}
			for _, p := range tt.probs {
				if !strings.Contains(err.Error(), p) {
					t.Errorf("error %q does not name %q", err, p)
				}
			}
		})
	}
}

func FuzzParseVerdict(f *testing.F) {
	for _, s := range []string{
		`{"winner":"advocate","reasoning":"r","keyPoints":["k"],"confidence":0.8}`,
		"```json\n{\"winner\":\"draw\",\"reasoning\":\"r\",\"keyPoints\":\"k\",\"confidence\":\"1\"}\n```",
		`{"a":{"b":"}"}} {"winner":"challenger"}`,
		`{"winner":"x","confidence":1e999}`,
		`{`, ``, `"}{"`,
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, reply string) {
		v, err := ParseVerdict(reply)
		if err != nil {
			if !errors.Is(err, ErrInvalidVerdict) {
				t.Fatalf("error %v does not wrap ErrInvalidVerdict", err)
			}
			return
		}
		switch v.Winner {
		case WinnerAdvocate, WinnerChallenger, WinnerDraw:
		default:
			t.Fatalf("winner %q accepted", v.Winner)
		}
		if v.Reasoning == "" || len(v.KeyPoints) == 0 || !(v.Confidence >= 0 && v.Confidence <= 1) {
			t.Fatalf("invalid verdict accepted: %+v", v)
		}
	})
}

func TestAdjust(t *testing.T) {
	scale := Scale{Min: 1, Max: 10}
	tests := []struct {
		name      string
		pre       float64
		v         Verdict
		max       float64
		post, del float64
	}{
		{"advocate wins", 6, Verdict{Winner: WinnerAdvocate, Confidence: 0.8}, 1, 6.8, 0.8},
		{"challenger wins", 6, Verdict{Winner: WinnerChallenger, Confidence: 0.5}, 1, 5.5, -0.5},
		{"draw", 6, Verdict{Winner: WinnerDraw, Confidence: 1}, 1, 6, 0},
		{"no confidence", 6, Verdict{Winner: WinnerAdvocate, Confidence: 0}, 1, 6, 0},
		{"full confidence, larger bound", 5, Verdict{Winner: WinnerAdvocate, Confidence: 1}, 2, 7, 2},
		{"rounded to two decimals", 5, Verdict{Winner: WinnerChallenger, Confidence: 0.333}, 1, 4.67, -0.33},
		{"rounding never exceeds the bound", 5, Verdict{Winner: WinnerAdvocate, Confidence: 1}, 0.335, 5.335, 0.335},
		{"clamped at the top", 9.7, Verdict{Winner: WinnerAdvocate, Confidence: 0.9}, 1, 10, 0.3},
		{"clamped at the bottom", 1.2, Verdict{Winner: WinnerChallenger, Confidence: 1}, 1, 1, -0.2},
		{"unknown winner moves nothing", 6, Verdict{Winner: "both", Confidence: 1}, 1, 6, 0},
	}
	approx := cmp.Comparer(func(a, b float64) bool { return math.Abs(a-b) < 1e-9 })
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			post, del := Adjust(tt.pre, tt.v, tt.max, scale)
			if diff := cmp.Diff([2]float64{tt.post, tt.del}, [2]float64{post, del}, approx); diff != "" {
				t.Errorf("post, delta (-want +got):\n%s", diff)
			}
		})
	}
}

// TestAdjustIsBounded checks the rule's guarantees on many random verdicts:
// no score leaves the scale, no verdict moves one by more than the bound, and
// the score moves towards the winner.
func TestAdjustIsBounded(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	winners := []Winner{WinnerAdvocate, WinnerChallenger, WinnerDraw}
	for range 100000 {
		s := Scale{Min: float64(r.IntN(5)), Max: 5 + float64(r.IntN(100))}
		maxAdj := (s.Max - s.Min) * (0.001 + 0.999*r.Float64())
		pre := s.Min + (s.Max-s.Min)*r.Float64()
		v := Verdict{Winner: winners[r.IntN(3)], Confidence: r.Float64()}
		post, del := Adjust(pre, v, maxAdj, s)
		switch {
		case post < s.Min || post > s.Max:
			t.Fatalf("Adjust(%v, %+v, %v, %+v): post %v leaves the scale", pre, v, maxAdj, s, post)
		case math.Abs(del) > maxAdj+1e-9:
			t.Fatalf("Adjust(%v, %+v, %v, %+v): delta %v exceeds the bound", pre, v, maxAdj, s, del)
		case v.Winner == WinnerAdvocate && del < 0, v.Winner == WinnerChallenger && del > 0, v.Winner == WinnerDraw && del != 0:
			t.Fatalf("Adjust(%v, %+v, %v, %+v): delta %v has the wrong sign", pre, v, maxAdj, s, del)
		case math.Abs(post-pre-del) > 1e-9:
			t.Fatalf("delta %v is not post %v - pre %v", del, post, pre)
		}
	}
}

// TestScoresCarryNoBinaryNoise: the scores, deltas and totals a debate
// reports are the decimals the rule makes (0.72), never a float's
// neighbour of one (0.7199999999999998), over several stub debates.
func TestScoresCarryNoBinaryNoise(t *testing.T) {
	decimals := func(f float64) int {
		s := strconv.FormatFloat(f, 'f', -1, 64)
		if _, frac, ok := strings.Cut(s, "."); ok {
			return len(frac)
		}
		return 0
	}
	cfg := DefaultConfig()
	cfg.Evaluations["problem"] = Evaluation{Score: 4.81, Evidence: []string{"x"}}
	cfg.Evaluations["solution"] = Evaluation{Score: 6.16, Evidence: []string{"y"}}
	for seed := range int64(6) {
		res, err := run(t, llm.NewStub(seed), cfg)
		if err != nil {
			t.Fatal(err)
		}
		var values []float64
		for _, r := range res.Detail.Rounds {
			values = append(values, r.PreScore, r.PostScore, r.Delta)
		}
		sc := res.Detail.Scores
		values = append(values, sc.Total)
		for _, m := range []map[string]float64{sc.Pre, sc.Post, sc.Adjustments} {
			for _, v := range m {
				values = append(values, v)
			}
		}
		for _, v := range values {
			if decimals(v) > 2 {
				t.Errorf("seed %d: score %v has binary noise", seed, v)
			}
		}
	}
}
