package duelogic

import (
	"context"
	"os"
	"regexp"
	"strconv"
	"sync"
	"testing"

	"github.com/duelogic/duelogic/internal/stubtext"
	"github.com/duelogic/duelogic/llm"
)

// askingClient answers with the stub and keeps every request with the
// length of its reply.
type askingClient struct {
	stub *llm.Stub
	mu   sync.Mutex
	got  []askedReply
}

type askedReply struct {
	req   llm.Request
	reply string
}

func (c *askingClient) Complete(ctx context.Context, req llm.Request) (llm.Response, error) {
	resp, err := c.stub.Complete(ctx, req)
	c.mu.Lock()
	c.got = append(c.got, askedReply{req, resp.Content})
	c.mu.Unlock()
	return resp, err
}

var (
	lengthRE = regexp.MustCompile(`\*\*LENGTH:\*\* (\d+)-(\d+) words`)
	pointRE  = regexp.MustCompile(`make your point in (\d+)-(\d+) words`)
)

// askedRange is the length req asks for, read from the prompt as its
// purpose words it: the arbiter's "**LENGTH:** N-M words", a chair turn's
// "Aim for N-M words." (or "Keep it to N-M words: ..."), an interruption's
// "make your point in N-M words".
func askedRange(t *testing.T, req llm.Request) (lo, hi int) {
	t.Helper()
	var m []string
	switch req.Purpose {
	case PurposeIntroduction, PurposeClosing, PurposeInterjection:
		m = lengthRE.FindStringSubmatch(req.Messages[0].Content)
	case PurposeOpening, PurposeResponse:
		m = askedRE.FindStringSubmatch(req.Messages[len(req.Messages)-1].Content)
	case PurposeInterruption:
		m = pointRE.FindStringSubmatch(req.Messages[len(req.Messages)-1].Content)
	default:
		return 0, 0
	}
	if m == nil {
		t.Fatalf("a %s request asks for no length", req.Purpose)
	}
	lo, _ = strconv.Atoi(m[1])
	hi, _ = strconv.Atoi(m[2])
	return lo, hi
}

// TestStubTextsKeepToTheirLength: the stub's own texts respect the prompts
// they answer. Seed 000's introduction prompt asks "**LENGTH:** 200-350
// words", its closing "**LENGTH:** 350-500 words", its interjection
// "30-75 words", its chair prompt "Aim for 150-300 words per response"
// (each turn's message says the words the pacing asks of it), and an
// interruption is asked for 40-100 words after its opener. Over whole
// debates on several stub seeds, from two chairs to six, in podcast mode
// and out of it (whose introduction and closing ask 100-200 and 250-400),
// with and without a target duration, every text is as long as its
// request asks.
func TestStubTextsKeepToTheirLength(t *testing.T) {
	seeds := int64(3) // 6 with DUELOGIC_EXHAUSTIVE=1, as CI runs it
	if os.Getenv("DUELOGIC_EXHAUSTIVE") == "1" {
		seeds = 6
	}
	configs := map[string]func() Config{
		"classic_clash": func() Config { c, _ := ConfigForPreset("classic_clash"); return c },
		"battle_royale, 10 minutes": func() Config {
			c, _ := ConfigForPreset("battle_royale")
			c.Flow.TargetDurationMinutes = 10
			return c
		},
		"six chairs, no pacing": func() Config {
			c := DefaultConfig()
			c.Chairs = nil
			for i, f := range []Framework{Utilitarian, VirtueEthics, Deontological, Pragmatic, Libertarian, CareEthics} {
				c.Chairs = append(c.Chairs, chairFor(i, f))
			}
			c.Flow.MaxExchanges, c.Flow.TargetDurationMinutes = 3, 0
			return c
		},
		"not a podcast, strict": func() Config {
			c := DefaultConfig()
			c.Podcast.Enabled = false
			c.Arbiter.AccountabilityLevel = Strict
			c.Flow.MaxExchanges = 4
			return c
		},
	}
	for name, cfg := range configs {
		t.Run(name, func(t *testing.T) {
			asked := map[string]int{}
			for seed := range seeds {
				c := &askingClient{stub: llm.NewStub(seed)}
				cf := cfg()
				cf.Interruptions.CooldownSeconds = 0
				if _, err := mustNew(t, cf, c).Run(context.Background(), prop); err != nil {
					t.Fatal(err)
				}
				for _, g := range c.got {
					lo, hi := askedRange(t, g.req)
					if hi == 0 {
						continue
					}
					asked[g.req.Purpose]++
					if n := stubtext.Words(g.reply); n < lo || n > hi {
						t.Errorf("seed %d: a %s of %d words, asked for %d-%d:\n%s", seed, g.req.Purpose, n, lo, hi, g.reply)
					}
				}
			}
			for _, p := range []string{PurposeIntroduction, PurposeOpening, PurposeResponse, PurposeClosing} {
				if asked[p] == 0 {
					t.Errorf("no %s asked", p)
				}
			}
		})
	}
}
