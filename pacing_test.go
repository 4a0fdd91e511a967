package duelogic

import (
	"context"
	"fmt"
	"math"
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
// number;". The target paces the turns within the seed's range: each turn
// is asked for the part of 150-300 words, at least 50 wide, whose middle
// is its share of the words left to the target (less the closing's and
// what is expected beside the exchange responses still to come), at least
// 20 words wide: a debate running long is shortened (never below 150-170),
// one running short is lengthened (never past 280-300).
func TestTurnRange(t *testing.T) {
	def := DefaultConfig()
	def20 := DefaultConfig()
	def20.Flow.TargetDurationMinutes = 20
	// plain has no interjections or interruptions to expect.
	plain := func(minutes int) Config {
		c := DefaultConfig()
		c.Flow.TargetDurationMinutes = minutes
		c.Arbiter.AccountabilityLevel = Relaxed
		c.Interruptions.Enabled = false
		return c
	}
	tests := []struct {
		name                     string
		cfg                      Config
		e                        episode
		turnsLeft, exchangesLeft int
		lo, hi                   int
	}{
		{"no target", plain(0), episode{}, 18, 16, 150, 300},
		// 45 minutes, 2 chairs, 8 exchanges: (6750-275-425-16*30)/18 =
		// 309 words a turn wanted, more than the seed allows.
		{"default config, first opening", def, episode{spoken: 275}, 18, 16, 280, 300},
		{"default config, last response", def, episode{spoken: 5000, responses: 15, extra: 450}, 1, 1, 280, 300},
		{"default config, far over its target", def, episode{spoken: 6500}, 2, 2, 150, 170},
		// 20 minutes for 18 turns: 127 words a turn, under the seed's
		// least.
		{"short target", plain(20), episode{spoken: 275}, 18, 16, 150, 170},
		{"share 200: the range's middle is the share", plain(10), episode{spoken: 1500 - 425 - 200*4}, 4, 4, 150, 250},
		{"share 225: the seed's range", plain(10), episode{spoken: 1500 - 425 - 225*2}, 2, 2, 150, 300},
		{"share 250: the range's middle is the share", plain(10), episode{spoken: 1500 - 425 - 250*2}, 2, 2, 200, 300},
		{"running long: shortened", plain(20), episode{spoken: 2500}, 6, 6, 150, 170},
		{"fallen behind again: lengthened back", plain(20), episode{spoken: 1400}, 6, 6, 150, 240},
		// 20 minutes, (3000-1400-425-6*50)/6 = 145 once 50 words are
		// expected beside each response (100 said beside 2).
		{"what is said beside the responses counts", def20, episode{spoken: 1400, responses: 2, extra: 140}, 6, 6, 150, 170},
		{"share 180", plain(20), episode{spoken: 3000 - 425 - 180*4}, 4, 4, 150, 210},
		{"no turns left", def, episode{}, 0, 0, 150, 300},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			lo, hi := turnRange(tt.cfg, tt.e, tt.turnsLeft, tt.exchangesLeft)
			if lo != tt.lo || hi != tt.hi {
				t.Errorf("turnRange(%d min, %+v, %d left) = %d-%d, want %d-%d",
					tt.cfg.Flow.TargetDurationMinutes, tt.e, tt.turnsLeft, lo, hi, tt.lo, tt.hi)
			}
		})
	}
	for minutes := 0; minutes <= 120; minutes += 7 {
		for spoken := 0; spoken <= 20000; spoken += 333 {
			for left := 0; left <= 40; left += 3 {
				for _, cfg := range []Config{plain(minutes), def} {
					cfg.Flow.TargetDurationMinutes = minutes
					lo, hi := turnRange(cfg, episode{spoken: spoken}, left, left)
					if lo < MinTurnWords || hi > MaxTurnWords || hi-lo < 20 || lo%10 != 0 || hi%10 != 0 {
						t.Fatalf("turnRange(%d min, spoken %d, %d left) = %d-%d: outside the seed's 150-300", minutes, spoken, left, lo, hi)
					}
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
// turn asks for words within it (the 45-minute target wants the longest);
// the metrics estimate the spoken minutes at 150 words a minute beside the
// 45-minute target.
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
		if lo, hi := asked(t, req); lo < 150 || hi > 300 {
			t.Errorf("%s asks for %d-%d words, outside the seed's 150-300", req.Purpose, lo, hi)
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
	// the first opening 100 are said, 8 turns to go: 234 a turn, 170-300.
	// After 800 words, 7 to go: 167, 150-180. Then the turns of 10 words
	// let the share grow back: 194, 231, ...
	want := []int{300, 180, 230, 300, 300, 300, 300, 300}
	if diff := cmp.Diff(want, his); diff != "" {
		t.Errorf("the top of the asked ranges, turn by turn (-want +got):\n%s", diff)
	}
	// Each asked range is turnRange of what was said before the turn.
	left, turn := 8, 0
	for i, u := range res.Transcript {
		if u.Kind == KindOpening || u.Kind == KindResponse {
			if _, hi := turnRange(cfg, measure(res.Transcript[:i]), left, min(left, 6)); turn < len(his) && hi != his[turn] {
				t.Errorf("turn %d asked for up to %d words, turnRange says %d", turn+1, his[turn], hi)
			}
			turn, left = turn+1, left-1
		}
	}
	for _, req := range c.requests() {
		if req.Purpose == PurposeOpening && strings.Contains(req.Messages[1].Content, "Keep it to 150-180 words: the debate is running long for its 16-minute target.") {
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

// TestPlannedExchanges: the turns come first, then the number of
// exchanges. Every exchange the config allows (Flow.MaxExchanges) is
// played while the words left to the target hold them at the shortest
// turns (150-170 words, with what is expected beside each response);
// else as many as they hold, never fewer than the seed's 3 (its
// DUELOGIC_CONSTRAINTS minExchanges) nor than those played, never more
// than Flow.MaxExchanges (30 at the most).
func TestPlannedExchanges(t *testing.T) {
	with := func(minutes, exchanges int) Config {
		c := DefaultConfig()
		c.Flow.TargetDurationMinutes, c.Flow.MaxExchanges = minutes, exchanges
		return c
	}
	// After an introduction and two openings: 625 words said. Each
	// round of 2 chairs costs 2*(160+30) = 380 words at the least.
	said := episode{spoken: 625}
	tests := []struct {
		name     string
		cfg      Config
		e        episode
		played   int
		openings int
		want     int
	}{
		{"no target: every exchange", with(0, 8), said, 0, 0, 8},
		{"45 minutes hold every exchange", with(45, 8), said, 0, 0, 8},
		{"20 minutes hold 5", with(20, 8), said, 0, 0, 5},
		{"10 minutes hold 1: the seed's 3", with(10, 8), said, 0, 0, 3},
		{"never fewer than played", with(20, 8), episode{spoken: 3000}, 4, 0, 4},
		{"never more than Flow.MaxExchanges", with(45, 12), said, 0, 0, 12},
		{"up to 30", with(120, 30), said, 0, 0, 30},
		{"openings to come are kept for", with(20, 8), episode{spoken: 275}, 0, 2, 5},
		{"what is said beside the responses counts", with(20, 8), episode{spoken: 1385, responses: 2, extra: 300}, 1, 0, 3},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := plannedExchanges(tt.cfg, tt.e, tt.played, tt.openings); got != tt.want {
				t.Errorf("plannedExchanges(%d min, %+v, %d played, %d openings) = %d, want %d",
					tt.cfg.Flow.TargetDurationMinutes, tt.e, tt.played, tt.openings, got, tt.want)
			}
		})
	}
}

// TestTargetDurationFitsTheEpisode: "targetDurationMinutes" paces the
// episode. On the stub, a debate's spoken minutes are within 20% of its
// target whenever the bounds pacing works within allow it (the seed's
// ranges of the introduction, the turns and the closing, and 3 to
// Flow.MaxExchanges exchanges), and its metrics say when they do not:
// classic_clash (8 exchanges at the most) at 20 and 45 minutes is on
// target, 20 minutes with fewer exchanges; at 10 minutes even 3 exchanges
// of the shortest turns are too long, and the metrics say so.
func TestTargetDurationFitsTheEpisode(t *testing.T) {
	for _, tt := range []struct {
		preset    string
		minutes   int
		reachable bool
	}{
		{"classic_clash", 10, false},
		{"classic_clash", 20, true},
		{"classic_clash", 45, true},
		{"battle_royale", 20, true},
		{"three_way_ethics", 45, true},
	} {
		t.Run(fmt.Sprintf("%s/%d", tt.preset, tt.minutes), func(t *testing.T) {
			for seed := range int64(3) {
				cfg, _ := ConfigForPreset(tt.preset)
				cfg.Flow.TargetDurationMinutes = tt.minutes
				res, err := mustNew(t, cfg, llm.NewStub(seed)).Run(context.Background(), prop)
				if err != nil {
					t.Fatal(err)
				}
				m := res.Metrics
				t.Logf("seed %d: %d exchanges, %s", seed, m.Exchanges, m.Length())
				if m.Exchanges < MinExchanges || m.Exchanges > cfg.Flow.MaxExchanges {
					t.Errorf("seed %d: %d exchanges, want 3..%d", seed, m.Exchanges, cfg.Flow.MaxExchanges)
				}
				if got := m.TargetReachable(); got != tt.reachable {
					t.Errorf("seed %d: reachable %v (the bounds allow %.1f-%.1f minutes), want %v", seed, got, m.MinMinutes, m.MaxMinutes, tt.reachable)
				}
				switch {
				case m.TargetReachable() && !m.OnTarget:
					t.Errorf("seed %d: %.1f spoken minutes for a %d-minute target the bounds allow", seed, m.SpokenMinutes, tt.minutes)
				case !m.TargetReachable() && !strings.Contains(m.Length(), "out of reach, the bounds allow"):
					t.Errorf("seed %d: the metrics do not say the target is out of reach: %s", seed, m.Length())
				}
				if want := math.Abs(m.SpokenMinutes-float64(tt.minutes)) <= 0.2*float64(tt.minutes); m.OnTarget != want {
					t.Errorf("seed %d: OnTarget %v for %.1f minutes of %d", seed, m.OnTarget, m.SpokenMinutes, tt.minutes)
				}
				if tt.preset == "classic_clash" && tt.minutes == 20 && m.Exchanges >= cfg.Flow.MaxExchanges {
					t.Errorf("seed %d: %d exchanges: 20 minutes of classic_clash hold fewer than %d", seed, m.Exchanges, cfg.Flow.MaxExchanges)
				}
				if tt.minutes == 10 && m.Exchanges != MinExchanges {
					t.Errorf("seed %d: %d exchanges for a target too short for any more than the seed's 3", seed, m.Exchanges)
				}
				if v := res.Detail.Verdict().Summary; !strings.Contains(v, fmt.Sprintf(", %d exchanges;", m.Exchanges)) {
					t.Errorf("seed %d: the verdict %q does not count the exchanges played", seed, v)
				}
			}
		})
	}
}
