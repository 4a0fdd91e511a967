// Command openai runs a Duelogic debate against any OpenAI-compatible
// endpoint — OpenAI, OpenRouter, Ollama, vLLM, LM Studio, a llama.cpp server —
// streaming it to the terminal and recording it as JSONL so a stopped debate
// can be resumed.
//
// The endpoint and key come from the environment, the rest from flags:
//
//	DUELOGIC_BASE_URL  base URL (default https://api.openai.com/v1)
//	DUELOGIC_API_KEY   API key (none for a local server)
//
// Each chair may be a different model: -chair-models lists one model ID per
// chair. With -route, model IDs with a given prefix go to another endpoint
// (the prefix is removed from the model ID sent there), so one debate can
// seat a hosted model against a local one.
//
//	DUELOGIC_BASE_URL=https://openrouter.ai/api/v1 DUELOGIC_API_KEY=sk-or-... \
//	  go run ./examples/openai -preset three_way_ethics \
//	  -chair-models anthropic/claude-sonnet-4,x-ai/grok-3,openai/gpt-4o -arbiter-model openai/gpt-4o
//
//	DUELOGIC_BASE_URL=http://localhost:11434/v1 \
//	  go run ./examples/openai -chair-models llama3.1,qwen2.5 -arbiter-model llama3.1
//
//	go run ./examples/openai -resume dl-0123456789abcdef
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/signal"
	"strings"

	"github.com/duelogic/duelogic"
	"github.com/duelogic/duelogic/examples/internal/render"
	"github.com/duelogic/duelogic/llm"
	"github.com/duelogic/duelogic/llm/openai"
	"github.com/duelogic/duelogic/store"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	if err := run(ctx, os.Args[1:], os.Getenv, os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "openai:", err)
		if errors.Is(err, flag.ErrHelp) {
			os.Exit(2)
		}
		os.Exit(1)
	}
}

// routes collects repeated -route prefix=baseURL flags.
type routes []string

func (r *routes) String() string     { return strings.Join(*r, ",") }
func (r *routes) Set(v string) error { *r = append(*r, v); return nil }

func run(ctx context.Context, args []string, getenv func(string) string, out io.Writer) error {
	fs := flag.NewFlagSet("openai", flag.ContinueOnError)
	fs.SetOutput(out)
	proposition := fs.String("proposition", "Major AI labs should voluntarily pause development of frontier models for two years to allow governance to catch up.", "the proposition to debate")
	background := fs.String("context", "", "optional background for the proposition")
	preset := fs.String("preset", "", "a preset matchup")
	chairs := fs.String("chairs", "", "comma-separated frameworks, one per chair (overrides -preset)")
	chairModels := fs.String("chair-models", getenv("DUELOGIC_CHAIR_MODELS"), "comma-separated model IDs, one per chair (default: the config's)")
	arbiterModel := fs.String("arbiter-model", getenv("DUELOGIC_ARBITER_MODEL"), "the arbiter's model ID (default: the config's)")
	exchanges := fs.Int("exchanges", 4, "exchange rounds (3..30)")
	accountability := fs.String("accountability", "moderate", "relaxed, moderate or strict")
	dir := fs.String("jsonl", "debates", "directory of the JSONL debate logs")
	resume := fs.String("resume", "", "resume the debate with this ID")
	title := fs.String("title", "duelogic", "X-Title header (OpenRouter's app name); empty for none")
	referer := fs.String("referer", "", "HTTP-Referer header (OpenRouter's app URL)")
	retries := fs.Int("max-retries", 0, "retries of retryable failures (0: the client's default; negative: none)")
	var extra routes
	fs.Var(&extra, "route", "prefix=baseURL: send model IDs starting with prefix to another endpoint, without the prefix (repeatable)")
	if err := fs.Parse(args); err != nil {
		return err
	}

	headers := http.Header{}
	if *title != "" {
		headers.Set("X-Title", *title)
	}
	if *referer != "" {
		headers.Set("HTTP-Referer", *referer)
	}
	base := getenv("DUELOGIC_BASE_URL")
	if base == "" {
		base = openai.DefaultBaseURL
	}
	router := llm.NewRouter(openai.New(openai.Config{
		BaseURL: base, APIKey: getenv("DUELOGIC_API_KEY"), Headers: headers, MaxRetries: *retries,
	}))
	for _, r := range extra {
		prefix, url, ok := strings.Cut(r, "=")
		if !ok || prefix == "" || url == "" {
			return fmt.Errorf("-route %q: want prefix=baseURL", r)
		}
		router.Handle(prefix+"*", stripPrefix(prefix, openai.New(openai.Config{BaseURL: url, MaxRetries: *retries})))
	}

	cfg := duelogic.DefaultConfig()
	if *preset != "" {
		p, ok := duelogic.LookupPreset(*preset)
		if !ok {
			return fmt.Errorf("unknown preset %q", *preset)
		}
		cfg = p.Apply(cfg)
	}
	if *chairs != "" {
		var fws []duelogic.Framework
		for _, f := range strings.Split(*chairs, ",") {
			fws = append(fws, duelogic.Framework(strings.TrimSpace(f)))
		}
		cfg = duelogic.Preset{Frameworks: fws}.Apply(cfg)
	}
	if *chairModels != "" {
		models := strings.Split(*chairModels, ",")
		if len(models) != len(cfg.Chairs) {
			return fmt.Errorf("-chair-models lists %d models for %d chairs", len(models), len(cfg.Chairs))
		}
		for i, m := range models {
			cfg.Chairs[i].ModelID, cfg.Chairs[i].ModelDisplayName, cfg.Chairs[i].ProviderName = describe(strings.TrimSpace(m))
		}
	}
	if *arbiterModel != "" {
		cfg.Arbiter.ModelID, cfg.Arbiter.ModelDisplayName, _ = describe(*arbiterModel)
	}
	cfg.Flow.MaxExchanges = *exchanges
	cfg.Arbiter.AccountabilityLevel = duelogic.AccountabilityLevel(*accountability)

	st, err := store.OpenJSONL(*dir)
	if err != nil {
		return err
	}
	defer st.Close()
	if *resume != "" {
		sum, err := duelogic.Inspect(ctx, st, *resume)
		if err != nil {
			return err
		}
		stored, ok := duelogic.ConfigOf(sum)
		if !ok {
			return fmt.Errorf("%s is a %s debate, not a Duelogic one", *resume, sum.Format)
		}
		cfg = stored
	}
	r := render.New(out, cfg, render.Options{})
	o, err := duelogic.New(cfg, router, duelogic.WithStore(st), duelogic.WithSink(r))
	if err != nil {
		return err
	}
	var res *duelogic.Result
	if *resume != "" {
		res, err = o.Resume(ctx, *resume)
	} else {
		res, err = o.Run(ctx, duelogic.Debate{Proposition: *proposition, Context: *background})
	}
	if err != nil {
		if id := r.DebateID(); id != "" {
			fmt.Fprintf(out, "\nstopped; resume with: go run ./examples/openai -jsonl %s -resume %s\n", *dir, id)
		}
		return err
	}
	r.Metrics(res.Metrics, res.Usage)
	fmt.Fprintf(out, "debate %s recorded in %s\n", res.DebateID, *dir)
	return nil
}

// describe names a model: the catalog's display name and provider when it is
// a known model, otherwise the part after the last '/'.
func describe(id string) (model, display, provider string) {
	for _, m := range duelogic.Models() {
		if m.ID == id {
			return id, m.DisplayName, m.Provider
		}
	}
	display = id[strings.LastIndex(id, "/")+1:]
	if i := strings.Index(id, "/"); i > 0 {
		provider = id[:i]
	}
	return id, display, provider
}

// stripPrefix sends requests to c with prefix removed from the model ID.
func stripPrefix(prefix string, c *openai.Client) llm.Client {
	return prefixed{prefix: prefix, c: c}
}

type prefixed struct {
	prefix string
	c      *openai.Client
}

func (p prefixed) Complete(ctx context.Context, req llm.Request) (llm.Response, error) {
	req.Model = strings.TrimPrefix(req.Model, p.prefix)
	return p.c.Complete(ctx, req)
}

func (p prefixed) Stream(ctx context.Context, req llm.Request, onDelta func(string) error) (llm.Response, error) {
	req.Model = strings.TrimPrefix(req.Model, p.prefix)
	return p.c.Stream(ctx, req, onDelta)
}
