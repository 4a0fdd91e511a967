package acceptance

import (
	"context"
	"encoding/json"
	"log/slog"
	"maps"
	"os"
	"slices"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/duelogic/duelogic"
	"github.com/duelogic/duelogic/engine"
	"github.com/duelogic/duelogic/formal"
	"github.com/duelogic/duelogic/llm"
	"github.com/duelogic/duelogic/llm/jsonschema"
	"github.com/duelogic/duelogic/llm/openai"
)

// llamaURL is the llama-server .ci/llama.sh started (a tiny synthetic model
// with a real Qwen2 tokenizer and chat template), or the test skips; CI sets
// DUELOGIC_REQUIRE_LLAMACPP=1 so that it cannot skip there.
func llamaURL(t *testing.T) string {
	t.Helper()
	u := os.Getenv("DUELOGIC_LLAMACPP_URL")
	if u == "" {
		if os.Getenv("DUELOGIC_REQUIRE_LLAMACPP") == "1" {
			t.Fatal("DUELOGIC_REQUIRE_LLAMACPP=1 but DUELOGIC_LLAMACPP_URL is unset: start the server with .ci/llama.sh")
		}
		t.Skip("no llama.cpp server: DUELOGIC_LLAMACPP_URL is unset (source .ci/llama.sh to start one)")
	}
	return u
}

// promptOnly is a client that cannot send a schema or a response_format:
// what a model is asked for JSON by the prompt alone, as before the formats
// sent schemas.
type promptOnly struct{ c *openai.Client }

func (p promptOnly) Complete(ctx context.Context, req llm.Request) (llm.Response, error) {
	req.Schema, req.JSON = nil, false
	return p.c.Complete(ctx, req)
}

func (p promptOnly) Stream(ctx context.Context, req llm.Request, onDelta func(string) error) (llm.Response, error) {
	req.Schema, req.JSON = nil, false
	return p.c.Stream(ctx, req, onDelta)
}

// shapeCheck checks every reply to a request with a Schema against it.
type shapeCheck struct {
	llm.Client
	mu               sync.Mutex
	asked, violating map[string]int // by purpose
	example          map[string]string
	usage            map[string]llm.Usage // by purpose
}

func (c *shapeCheck) Complete(ctx context.Context, req llm.Request) (llm.Response, error) {
	r, err := c.Client.Complete(ctx, req)
	c.note(req, r, err)
	return r, err
}

func (c *shapeCheck) Stream(ctx context.Context, req llm.Request, onDelta func(string) error) (llm.Response, error) {
	r, err := llm.Stream(ctx, c.Client, req, onDelta)
	c.note(req, r, err)
	return r, err
}

func (c *shapeCheck) note(req llm.Request, r llm.Response, err error) {
	if err != nil {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.usage != nil {
		c.usage[req.Purpose] = c.usage[req.Purpose].Add(r.Usage)
	}
	if len(req.Schema) == 0 {
		return
	}
	c.asked[req.Purpose]++
	if cerr := jsonschema.Check(req.Schema, []byte(r.Content)); cerr != nil {
		c.violating[req.Purpose]++
		c.example[req.Purpose] = cerr.Error()
	}
}

// cacheFloor is the least share of a format's prompt tokens the llama.cpp
// server must serve from its cache, the formats played in the order below
// on a fresh server.
var cacheFloor = map[string]float64{"podcast": 0.52, "persuasion": 0.55, "scored": 0.40, "moderated": 0.20, "formal": 0.15}

// TestLlamaServerDebates plays a debate of every format to the end against
// a real llama.cpp server through llm/openai, streaming, with the formats'
// schemas: the server's grammar holds even random weights to the shape
// asked for, and every schema bounds its texts (so a reply always closes
// within its cap), so at least 95% of each purpose's judgments parse the
// first time. The podcast and the formal debate are played with the
// prompt alone too, for comparison: their judgments default and the
// debates still end. The parse rates per purpose are logged.
func TestLlamaServerDebates(t *testing.T) {
	base := llamaURL(t)
	podcast := func() (engine.Format[engine.Outcome], error) {
		cfg := duelogic.DefaultConfig()
		cfg.Chairs = cfg.Chairs[:2]
		cfg.Flow.MaxExchanges = 3
		cfg.Interruptions.CheckMinChars = 10 // the tiny model's replies are short
		p, err := duelogic.NewPodcast(cfg)
		return engine.Erase(p), err
	}
	byName := func(name, config string) func() (engine.Format[engine.Outcome], error) {
		return func() (engine.Format[engine.Outcome], error) { return engine.Open(name, json.RawMessage(config)) }
	}
	formats := []struct {
		name string
		open func() (engine.Format[engine.Outcome], error)
		both bool // played with the prompt alone too
	}{
		{"podcast", podcast, true},
		{"formal", byName(formal.FormatName, `{"minRounds": 1, "maxRounds": 1}`), true},
		{"scored", byName("scored", `{"minArgumentWords": 1}`), false}, // the tiny model says little
		{"moderated", byName("moderated", `{"maxRounds": 1, "debaters": 2}`), false},
		{"persuasion", byName("persuasion", `{"maxRounds": 1, "exchanges": 1}`), false},
	}
	debate := engine.Debate{Proposition: "Should cities ban cars from their centres?", Unattended: true}
	for _, mode := range []string{"schema", "prompt only"} {
		t.Run(mode, func(t *testing.T) {
			oc := openai.New(openai.Config{BaseURL: base, MaxRetries: 1})
			var inner llm.Client = oc
			if mode == "prompt only" {
				inner = promptOnly{oc}
			}
			c := &shapeCheck{Client: inner, asked: map[string]int{}, violating: map[string]int{}, example: map[string]string{},
				usage: map[string]llm.Usage{}}
			ctx, cancel := context.WithTimeout(t.Context(), 10*time.Minute)
			defer cancel()
			for _, f := range formats {
				if mode != "schema" && !f.both {
					continue
				}
				format, err := f.open()
				if err != nil {
					t.Fatalf("%s: %v", f.name, err)
				}
				var logs strings.Builder
				res, err := engine.Run(ctx, c, format, debate, engine.WithLogger(slog.New(slog.NewTextHandler(&logs, nil))))
				for _, line := range strings.Split(logs.String(), "\n") {
					if strings.Contains(line, "judgment") {
						t.Log(f.name, line)
					}
				}
				if err != nil {
					t.Fatalf("%s: %v", f.name, err)
				}
				if res.Detail == nil || len(res.Transcript) == 0 {
					t.Fatalf("%s did not finish: %d utterances", f.name, len(res.Transcript))
				}
				if f.name == "podcast" && res.Transcript[len(res.Transcript)-1].Kind != duelogic.KindClosing {
					t.Errorf("the podcast did not end with the closing")
				}
				t.Logf("%s: %s; cached %d of %d prompt tokens", f.name, res.Detail.Verdict().Summary, res.Usage.CachedPromptTokens, res.Usage.PromptTokens)
				// The server's prompt cache serves what a debate's prompts
				// repeat: more than half of a podcast's prompt tokens, and
				// of each format's what it reached less a margin
				// (measured: podcast 56-58% since its checks and
				// evaluations share one prefix, 52-55% before; persuasion
				// 61-68%, scored 46-47%, formal 18-30%, moderated 26%;
				// the per-purpose shares are logged below).
				if share := float64(res.Usage.CachedPromptTokens) / float64(max(res.Usage.PromptTokens, 1)); mode == "schema" && share < cacheFloor[f.name] {
					t.Errorf("%s: %.0f%% of the prompt tokens served from the server's cache; want at least %.0f%%", f.name, 100*share, 100*cacheFloor[f.name])
				}
				for _, p := range slices.Sorted(maps.Keys(res.UsageByPurpose)) {
					u := res.UsageByPurpose[p]
					t.Logf("%s %s: %d of %d prompt tokens cached (%.0f%%)", f.name, p, u.CachedPromptTokens, u.PromptTokens, 100*float64(u.CachedPromptTokens)/float64(max(u.PromptTokens, 1)))
				}
				purposes := make([]string, 0, len(res.Judgments))
				for p := range res.Judgments {
					purposes = append(purposes, p)
				}
				sort.Strings(purposes)
				for _, p := range purposes {
					n := res.Judgments[p]
					all := n.First + n.Reasked + n.Defaulted
					b, _ := json.Marshal(n)
					t.Logf("%s %s: %d of %d parsed first time %s", f.name, p, n.First, all, b)
					// Every judgment's schema says what its parser requires
					// and bounds its texts, so the grammar holds even random
					// weights to it and a reply always closes. A persuasion
					// turn is also checked against the dialogue's protocol
					// (which move may answer which), more than a grammar can
					// hold random weights to: its replies must close in shape
					// (below, and never truncated), their legality is logged.
					if mode != "schema" {
						continue
					}
					if n.Truncated > 0 {
						t.Errorf("%s %s: %d replies cut at their cap", f.name, p, n.Truncated)
					}
					// 95% of a handful of judgments is all of them: one
					// miss is allowed while fewer than 20 were made. (The
					// podcast's interrupt check missed one or two of six
					// in a few CI runs, "no JSON object" for replies in the
					// schema's shape. Its urgency is an unbounded number,
					// which the server's grammar lets a model write with
					// an exponent beyond float64 (1e999): the one reply the
					// schema check took and the parser refused. The
					// parser, llmtext.Object, reads it now.)
					allowed := max(1, all/20)
					if misses := all - n.First; p != "persuasion_turn" && misses > allowed {
						t.Errorf("%s %s: with the schema, %d of %d judgments parsed first time; want at least 95%% (%d misses allowed while fewer than 20)", f.name, p, n.First, all, allowed)
					}
				}
			}
			for p, u := range c.usage {
				t.Logf("%s: %d of %d prompt tokens cached (%.0f%%)", p, u.CachedPromptTokens, u.PromptTokens, 100*float64(u.CachedPromptTokens)/float64(max(u.PromptTokens, 1)))
			}
			for p, n := range c.asked {
				t.Logf("%s: %d of %d replies in the schema's shape", p, n-c.violating[p], n)
				if mode == "schema" && c.violating[p] > 0 {
					t.Errorf("%s: %d of %d replies break the schema the server was given, e.g. %s", p, c.violating[p], n, c.example[p])
				}
			}
		})
	}
}
