package duelogic

import (
	"context"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/duelogic/duelogic/llm"
)

// TestTurnRange: seed 000's chair prompt says
//
//   - Aim for 150-300 words per response
//
// and its config has "/** Flow and pacing */ ... targetDurationMinutes:
// number;". The target paces the turns within the seed's range: the
// default config keeps 150-300, a target the debate is running long for
// shortens the turns (never below 150-200), and a debate that falls behind
// again is lengthened back (never past 300).
func TestTurnRange(t *testing.T) {
	def := DefaultConfig()
	withTarget := func(minutes int) Config {
		c := DefaultConfig()
		c.Flow.TargetDurationMinutes = minutes
		return c
	}
	tests := []struct {
		name              string
		cfg               Config
		spoken, turnsLeft int
		lo, hi            int
	}{
		{"no target", withTarget(0), 0, 18, 150, 300},
		// 45 minutes, 2 chairs, 8 exchanges: 330 words a turn wanted,
		// more than the seed allows.
		{"default config, first opening", def, 275, 18, 150, 300},
		{"default config, last response", def, 5000, 1, 150, 300},
		{"default config, far over its target", def, 6500, 2, 150, 200},
		// 20 minutes for 18 turns: 127 words a turn, under the seed's
		// least.
		{"short target", withTarget(20), 275, 18, 150, 200},
		{"share 200: the range's middle is the share", withTarget(10), 1500 - 425 - 200*4, 4, 150, 250},
		{"share 225: the seed's range", withTarget(10), 1500 - 425 - 225*2, 2, 150, 300},
		{"running long: shortened", withTarget(20), 2500, 6, 150, 200},
		{"fallen behind again: lengthened back", withTarget(20), 1400, 6, 150, 240},
		{"no turns left", def, 0, 0, 150, 300},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			lo, hi := turnRange(tt.cfg, tt.spoken, tt.turnsLeft)
			if lo != tt.lo || hi != tt.hi {
				t.Errorf("turnRange(%d min, spoken %d, %d left) = %d-%d, want %d-%d",
					tt.cfg.Flow.TargetDurationMinutes, tt.spoken, tt.turnsLeft, lo, hi, tt.lo, tt.hi)
			}
		})
	}
	for minutes := 0; minutes <= 120; minutes += 7 {
		for spoken := 0; spoken <= 20000; spoken += 333 {
			for left := 0; left <= 40; left += 3 {
				lo, hi := turnRange(withTarget(minutes), spoken, left)
				if lo != MinTurnWords || hi < MinTurnWords+50 || hi > MaxTurnWords || hi%10 != 0 {
					t.Fatalf("turnRange(%d min, spoken %d, %d left) = %d-%d: outside the seed's 150-300", minutes, spoken, left, lo, hi)
				}
			}
		}
	}
}

// askedRE reads the words a chair turn's user message asks for.
var askedRE = regexp.MustCompile(`(?:Aim for|Keep it to) (\d+)-(\d+) words[.:]`)

func asked(t *testing.T, req llm.Request) (lo, hi int) {
	t.Helper()
	m := askedRE.FindAllStringSubmatch(req.Messages[len(req.Messages)-1].Content, -1)
	if len(m) != 1 {
		t.Fatalf("%s request asks for %d word ranges, want 1", req.Purpose, len(m))
	}
	lo, _ = strconv.Atoi(m[0][1])
	hi, _ = strconv.Atoi(m[0][2])
	return lo, hi
}

// TestDefaultConfigKeepsTheSeedsRange: with the default config every chair
// prompt says the seed's "Aim for 150-300 words per response" and every
// turn asks for 150-300 words; the metrics estimate the spoken minutes at
// 150 words a minute beside the 45-minute target.
func TestDefaultConfigKeepsTheSeedsRange(t *testing.T) {
	c := newTestClient()
	res, err := mustNew(t, DefaultConfig(), c).Run(context.Background(), prop)
	if err != nil {
		t.Fatal(err)
	}
	turns := 0
	for _, req := range c.requests() {
		if req.Purpose != PurposeOpening && req.Purpose != PurposeResponse {
			continue
		}
		turns++
		if !strings.Contains(req.Messages[0].Content, "- Aim for 150-300 words per response\n") {
			t.Errorf("%s system prompt lacks the seed's range", req.Purpose)
		}
		if lo, hi := asked(t, req); lo != 150 || hi != 300 {
			t.Errorf("%s asks for %d-%d words, want the seed's 150-300", req.Purpose, lo, hi)
		}
		if req.MaxTokens != 2*MaxTurnWords {
			t.Errorf("%s token cap %d, want %d", req.Purpose, req.MaxTokens, 2*MaxTurnWords)
		}
	}
	if turns < 2+8 {
		t.Errorf("%d chair turns asked", turns)
	}
	m := res.Detail.Metrics
	words := 0
	for _, u := range res.Transcript {
		words += len(strings.Fields(u.Content))
	}
	if m.Words != words || m.SpokenMinutes != float64(words)/150 || m.TargetMinutes != 45 {
		t.Errorf("metrics: %d words, %.2f spoken minutes, target %d; want %d words, %.2f minutes, target 45",
			m.Words, m.SpokenMinutes, m.TargetMinutes, words, float64(words)/150)
	}
	chairWords := 0
	for _, c := range m.ByChair {
		chairWords += c.Words
	}
	if chairWords == 0 || chairWords >= m.Words {
		t.Errorf("chairs' words %d of %d", chairWords, m.Words)
	}
}

// TestTargetDurationPaces: the target acts as pacing, turn by turn, on
// what was actually said: a chair that runs long makes the next turns
// shorter (within the seed's bounds), and short turns after it lengthen
// them back; each turn asks for exactly turnRange of the words spoken
// before it.
func TestTargetDurationPaces(t *testing.T) {
	words := func(n int) string { return strings.TrimSpace(strings.Repeat("word ", n)) }
	var mu sync.Mutex
	openings := 0
	c := newTestClient().
		on(PurposeIntroduction, func(llm.Request) (string, error) { return words(100), nil }).
		on(PurposeOpening, func(llm.Request) (string, error) {
			mu.Lock()
			defer mu.Unlock()
			if openings++; openings == 1 {
				return words(700), nil // the first chair runs long
			}
			return words(10), nil
		}).
		on(PurposeResponse, func(llm.Request) (string, error) { return words(10) + ".", nil })
	cfg := DefaultConfig()
	cfg.Flow.MaxExchanges, cfg.Flow.TargetDurationMinutes = 3, 16
	cfg.Arbiter.AccountabilityLevel = Relaxed
	cfg.Interruptions.Enabled = false
	res, err := mustNew(t, cfg, c).Run(context.Background(), prop)
	if err != nil {
		t.Fatal(err)
	}
	var his []int
	for _, req := range c.requests() {
		if req.Purpose == PurposeOpening || req.Purpose == PurposeResponse {
			_, hi := asked(t, req)
			his = append(his, hi)
		}
	}
	// 16 minutes are 2,400 words; 425 are kept for the closing. Before
	// the first opening 100 are said, 8 turns to go: 234 a turn, the
	// seed's range. After 800 words, 7 to go: 167, the shortest range.
	// Then the turns of 10 words let the share grow back: 194, 231, ...
	want := []int{300, 200, 230, 300, 300, 300, 300, 300}
	if diff := cmp.Diff(want, his); diff != "" {
		t.Errorf("the top of the asked ranges, turn by turn (-want +got):\n%s", diff)
	}
	// Each asked range is turnRange of the words said before the turn.
	spoken, left, turn := 0, 8, 0
	for _, u := range res.Transcript {
		if u.Kind == KindOpening || u.Kind == KindResponse {
			if _, hi := turnRange(cfg, spoken, left); turn < len(his) && hi != his[turn] {
				t.Errorf("turn %d asked for up to %d words, turnRange says %d", turn+1, his[turn], hi)
			}
			turn, left = turn+1, left-1
		}
		spoken += len(strings.Fields(u.Content))
	}
	for _, req := range c.requests() {
		if req.Purpose == PurposeOpening && strings.Contains(req.Messages[1].Content, "Keep it to 150-200 words: the debate is running long for its 16-minute target.") {
			return
		}
	}
	t.Error("no opening was told the debate is running long for its target")
}

// TestFlowStyle: seed 000's "flow: { style: 'structured' | 'conversational';
// ... }". A structured response is asked for the steel-man, the critique,
// the self-critique and where the chair now stands, in that order; a
// conversational one to answer what was just said directly. Openings are
// the same in both.
func TestFlowStyle(t *testing.T) {
	const (
		structured     = "Structure your response: first the strongest version of the position you answer, then your critique from your framework, then where your own framework struggles here, then where you now stand."
		conversational = "Answer what was just said directly, as in a live conversation, and move the disagreement forward rather than repeating your opening."
	)
	openings := map[FlowStyle]string{}
	for _, tt := range []struct {
		style     FlowStyle
		want, not string
	}{
		{Structured, structured, conversational},
		{Conversational, conversational, structured},
	} {
		t.Run(string(tt.style), func(t *testing.T) {
			c := newTestClient()
			cfg := shortConfig()
			cfg.Flow.Style = tt.style
			if _, err := mustNew(t, cfg, c).Run(context.Background(), prop); err != nil {
				t.Fatal(err)
			}
			responses := 0
			for _, req := range c.requests() {
				user := req.Messages[len(req.Messages)-1].Content
				switch req.Purpose {
				case PurposeResponse:
					responses++
					if !strings.Contains(user, tt.want) || strings.Contains(user, tt.not) {
						t.Errorf("a %s response is not asked in the %s style:\n%s", tt.style, tt.style, user)
					}
				case PurposeOpening:
					if strings.Contains(user, structured) || strings.Contains(user, conversational) {
						t.Errorf("an opening is asked in a flow style:\n%s", user)
					}
					if _, ok := openings[tt.style]; !ok {
						openings[tt.style] = user
					}
				}
			}
			if responses == 0 {
				t.Fatal("no response asked")
			}
		})
	}
	if openings[Structured] != openings[Conversational] {
		t.Errorf("the first opening differs by flow style:\n%s\n---\n%s", openings[Structured], openings[Conversational])
	}
}
