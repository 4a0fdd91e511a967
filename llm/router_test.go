package llm_test

import (
	"context"
	"errors"
	"strings"
	"sync"
	"testing"

	"github.com/duelogic/duelogic/llm"
	"github.com/google/go-cmp/cmp"
)

// named returns a client that answers with its name.
func named(name string) llm.Client {
	return llm.ClientFunc(func(ctx context.Context, req llm.Request) (llm.Response, error) {
		return llm.Response{Content: name, Model: req.Model}, nil
	})
}

func TestRouter(t *testing.T) {
	routes := []struct{ pattern, client string }{
		{"openai/gpt-4o", "exact-gpt-4o"},
		{"openai/", "openai"},
		{"openai/gpt-4*", "gpt-4-family"},
		{"anthropic/*", "anthropic"},
		{"anthropic/claude-opus*", "opus"},
		{"x-ai/grok-3", "grok"},
		{"local", "local-exact"},
	}
	tests := []struct {
		model   string
		def     bool
		want    string
		wantErr bool
	}{
		{model: "openai/gpt-4o", want: "exact-gpt-4o"},
		{model: "openai/gpt-4o-mini", want: "gpt-4-family"},
		{model: "openai/gpt-4.1", want: "gpt-4-family"},
		{model: "openai/o3", want: "openai"},
		{model: "openai/", want: "openai"},
		{model: "anthropic/claude-sonnet-4", want: "anthropic"},
		{model: "anthropic/claude-opus-4", want: "opus"},
		{model: "x-ai/grok-3", want: "grok"},
		{model: "x-ai/grok-3-mini", wantErr: true},
		{model: "x-ai/grok-3-mini", def: true, want: "default"},
		{model: "local", want: "local-exact"},
		{model: "local/llama", wantErr: true},
		{model: "", wantErr: true},
		{model: "", def: true, want: "default"},
		{model: "OpenAI/gpt-4o", wantErr: true}, // matching is case-sensitive
	}
	for _, tt := range tests {
		var def llm.Client
		if tt.def {
			def = named("default")
		}
		r := llm.NewRouter(def)
		for _, rt := range routes {
			r.Handle(rt.pattern, named(rt.client))
		}
		for _, call := range []struct {
			name string
			do   func() (llm.Response, error)
		}{
			{"Complete", func() (llm.Response, error) {
				return r.Complete(context.Background(), llm.Request{Model: tt.model})
			}},
			{"Stream", func() (llm.Response, error) {
				return r.Stream(context.Background(), llm.Request{Model: tt.model}, nil)
			}},
		} {
			resp, err := call.do()
			if tt.wantErr {
				if !errors.Is(err, llm.ErrNoRoute) || !strings.Contains(err.Error(), `"`+tt.model+`"`) {
					t.Errorf("%s(%q, default=%v) error = %v, want ErrNoRoute naming the model", call.name, tt.model, tt.def, err)
				}
				continue
			}
			if err != nil || resp.Content != tt.want {
				t.Errorf("%s(%q, default=%v) = %q, %v; want %q", call.name, tt.model, tt.def, resp.Content, err, tt.want)
			}
		}
	}
}

func TestRouterHandleReplaces(t *testing.T) {
	r := llm.NewRouter(nil).
		Handle("a/", named("first")).
		Handle("a/*", named("second")). // the same prefix as "a/"
		Handle("a/x", named("x1")).
		Handle("a/x", named("x2"))
	for model, want := range map[string]string{"a/y": "second", "a/x": "x2"} {
		resp, err := r.Complete(context.Background(), llm.Request{Model: model})
		if err != nil || resp.Content != want {
			t.Errorf("Complete(%q) = %q, %v; want %q", model, resp.Content, err, want)
		}
	}
}

func TestRouterRoute(t *testing.T) {
	r := llm.NewRouter(nil).Handle("anthropic/", named("a"))
	if c, err := r.Route("anthropic/claude-sonnet-4"); err != nil || c == nil {
		t.Errorf("Route(anthropic/claude-sonnet-4) = %v, %v; want a client", c, err)
	}
	if _, err := r.Route("openai/gpt-4o"); !errors.Is(err, llm.ErrNoRoute) {
		t.Errorf("Route(openai/gpt-4o) error = %v, want ErrNoRoute", err)
	}
	if got, want := llm.ErrNoRoute.Error(), "llm: no route for model"; got != want {
		t.Errorf("ErrNoRoute = %q, want %q", got, want)
	}
}

func TestRouterHandlePanics(t *testing.T) {
	tests := []struct {
		name    string
		pattern string
		client  llm.Client
	}{
		{"empty pattern", "", named("x")},
		{"nil client", "a/", nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			defer func() {
				if recover() == nil {
					t.Errorf("Handle(%q, %v) did not panic", tt.pattern, tt.client)
				}
			}()
			llm.NewRouter(nil).Handle(tt.pattern, tt.client)
		})
	}
}

func TestRouterStream(t *testing.T) {
	r := llm.NewRouter(completer{content: "whole answer"}).
		Handle("stream/", streamer{deltas: []string{"one", " two"}})
	tests := []struct {
		model string
		want  []string
	}{
		{"stream/m", []string{"one", " two"}},
		{"plain/m", []string{"whole answer"}}, // a non-streaming route still streams, as one delta
	}
	for _, tt := range tests {
		var got []string
		resp, err := r.Stream(context.Background(), llm.Request{Model: tt.model}, func(d string) error {
			got = append(got, d)
			return nil
		})
		if err != nil {
			t.Fatalf("Stream(%q): %v", tt.model, err)
		}
		if diff := cmp.Diff(tt.want, got); diff != "" {
			t.Errorf("Stream(%q) deltas (-want +got):\n%s", tt.model, diff)
		}
		if resp.Content != strings.Join(tt.want, "") {
			t.Errorf("Stream(%q) Content = %q", tt.model, resp.Content)
		}
	}
}

// TestRouterConcurrent registers routes while requests are in flight; run
// with -race.
func TestRouterConcurrent(t *testing.T) {
	r := llm.NewRouter(named("default"))
	var wg sync.WaitGroup
	wg.Go(func() {
		for _, p := range []string{"a/", "b/*", "c", "a/", "d/x*"} {
			r.Handle(p, named(p))
		}
	})
	for range 4 {
		wg.Go(func() {
			for _, m := range []string{"a/1", "b/2", "c", "d/xy", "e"} {
				if _, err := r.Complete(context.Background(), llm.Request{Model: m}); err != nil {
					t.Errorf("Complete(%q): %v", m, err)
				}
			}
		})
	}
	wg.Wait()
	resp, _ := r.Complete(context.Background(), llm.Request{Model: "d/xy"})
	if resp.Content != "d/x*" {
		t.Errorf("after registration, d/xy went to %q, want d/x*", resp.Content)
	}
}
