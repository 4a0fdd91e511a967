package acceptance

import (
	"context"
	"encoding/json"
	"os"
	"sort"
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
	if err != nil || len(req.Schema) == 0 {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	c.asked[req.Purpose]++
	if cerr := jsonschema.Check(req.Schema, []byte(r.Content)); cerr != nil {
		c.violating[req.Purpose]++
		c.example[req.Purpose] = cerr.Error()
	}
}

// TestLlamaServerDebates plays a podcast and a formal debate to the end
// against a real llama.cpp server through llm/openai, streaming, with the
// formats' schemas: the server's grammar holds even random weights to the
// shape asked for, so every judgment parses the first time, the formal
// debaters' turns included. The same debates with the
// prompt alone are played for comparison; their judgments default and the
// debates still end. The parse rates per purpose are logged.
func TestLlamaServerDebates(t *testing.T) {
	base := llamaURL(t)
	podcast := func() (engine.Format[*duelogic.Outcome], error) {
		cfg := duelogic.DefaultConfig()
		cfg.Chairs = cfg.Chairs[:2]
		cfg.Flow.MaxExchanges = 3
		cfg.Interruptions.CheckMinChars = 10 // the tiny model's replies are short
		return duelogic.NewPodcast(cfg)
	}
	debate := engine.Debate{Proposition: "Should cities ban cars from their centres?"}
	for _, mode := range []string{"schema", "prompt only"} {
		t.Run(mode, func(t *testing.T) {
			oc := openai.New(openai.Config{BaseURL: base, MaxRetries: 1})
			var inner llm.Client = oc
			if mode == "prompt only" {
				inner = promptOnly{oc}
			}
			c := &shapeCheck{Client: inner, asked: map[string]int{}, violating: map[string]int{}, example: map[string]string{}}
			ctx, cancel := context.WithTimeout(t.Context(), 10*time.Minute)
			defer cancel()

			p, err := podcast()
			if err != nil {
				t.Fatal(err)
			}
			pr, err := engine.Run(ctx, c, p, debate)
			if err != nil {
				t.Fatalf("podcast: %v", err)
			}
			if pr.Detail == nil || len(pr.Transcript) == 0 || pr.Transcript[len(pr.Transcript)-1].Kind != duelogic.KindClosing {
				t.Fatalf("podcast did not end with the closing: %d utterances", len(pr.Transcript))
			}
			fcfg := formal.DefaultConfig()
			fcfg.MinRounds, fcfg.MaxRounds = 1, 1
			ff, err := formal.New(fcfg)
			if err != nil {
				t.Fatal(err)
			}
			fr, err := engine.Run(ctx, c, ff, debate)
			if err != nil {
				t.Fatalf("formal: %v", err)
			}
			if fr.Detail == nil || fr.Detail.Decision == "" {
				t.Fatalf("formal ended without a verdict: %+v", fr.Detail)
			}
			for name, j := range map[string]map[string]engine.JudgmentCounts{"podcast": pr.Judgments, "formal": fr.Judgments} {
				purposes := make([]string, 0, len(j))
				for p := range j {
					purposes = append(purposes, p)
				}
				sort.Strings(purposes)
				for _, p := range purposes {
					n := j[p]
					all := n.First + n.Reasked + n.Defaulted
					b, _ := json.Marshal(n)
					t.Logf("%s %s: %d of %d parsed first time %s", name, p, n.First, all, b)
					// Every judgment's schema says what its parser requires
					// (a formal turn's: non-empty text, http(s) URLs,
					// real dates, a challenge of a challengeable source),
					// so the grammar holds even random weights to it.
					if mode == "schema" && n.First != all {
						t.Errorf("%s %s: with the schema, %d of %d judgments parsed first time; want all", name, p, n.First, all)
					}
				}
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
