package openai

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestEndpointURL(t *testing.T) {
	tests := []struct {
		base, want string
	}{
		{"", "https://api.openai.com/v1/chat/completions"},
		{"https://api.openai.com/v1", "https://api.openai.com/v1/chat/completions"},
		{"https://api.openai.com/v1/", "https://api.openai.com/v1/chat/completions"},
		{"https://api.openai.com", "https://api.openai.com/v1/chat/completions"},
		{"https://api.openai.com/", "https://api.openai.com/v1/chat/completions"},
		{"https://openrouter.ai/api/v1", "https://openrouter.ai/api/v1/chat/completions"},
		{"https://openrouter.ai/api/v1/", "https://openrouter.ai/api/v1/chat/completions"},
		{"https://openrouter.ai/api", "https://openrouter.ai/api/v1/chat/completions"},
		{"http://localhost:11434/v1", "http://localhost:11434/v1/chat/completions"},
		{"http://localhost:11434", "http://localhost:11434/v1/chat/completions"},
		{"http://localhost:8000", "http://localhost:8000/v1/chat/completions"},
		{"http://localhost:8000/", "http://localhost:8000/v1/chat/completions"},
		{"http://localhost:8000//", "http://localhost:8000/v1/chat/completions"},
		{"http://localhost:8000/v1", "http://localhost:8000/v1/chat/completions"},
		{"http://127.0.0.1:1234/v1/", "http://127.0.0.1:1234/v1/chat/completions"},
		{"https://api.groq.com/openai/v1", "https://api.groq.com/openai/v1/chat/completions"},
		{"https://generativelanguage.googleapis.com/v1beta/openai/", "https://generativelanguage.googleapis.com/v1beta/openai/chat/completions"},
		{"https://open.bigmodel.cn/api/paas/v4/", "https://open.bigmodel.cn/api/paas/v4/chat/completions"},
		{"https://gateway.ai.cloudflare.com/v1/acct/gw/openai", "https://gateway.ai.cloudflare.com/v1/acct/gw/openai/chat/completions"},
		{"https://api.perplexity.ai/chat/completions", "https://api.perplexity.ai/chat/completions"},
		{"http://localhost:8000/v1/chat/completions/", "http://localhost:8000/v1/chat/completions"},
		{"https://res.openai.azure.com/openai/v1?api-version=preview", "https://res.openai.azure.com/openai/v1/chat/completions?api-version=preview"},
		{"  https://api.openai.com/v1  ", "https://api.openai.com/v1/chat/completions"},
		{"https://proxy.example/vendors/openai", "https://proxy.example/vendors/openai/v1/chat/completions"},
		{"https://api.openai.com/v1#frag", "https://api.openai.com/v1/chat/completions"},
	}
	for _, tt := range tests {
		u, err := endpointURL(tt.base)
		if err != nil {
			t.Errorf("endpointURL(%q): %v", tt.base, err)
			continue
		}
		if diff := cmp.Diff(tt.want, u.String()); diff != "" {
			t.Errorf("endpointURL(%q) (-want +got):\n%s", tt.base, diff)
		}
	}
}

func TestEndpointURLInvalid(t *testing.T) {
	for _, base := range []string{"localhost:8000", "ftp://example.com/v1", "http://", "://x", "/v1", "http://user:s3cr3t@%zz"} {
		_, err := endpointURL(base)
		if err == nil {
			t.Errorf("endpointURL(%q) = nil error, want one", base)
			continue
		}
		if base == "http://user:s3cr3t@%zz" && strings.Contains(err.Error(), "s3cr3t") {
			t.Errorf("error %q shows the URL's password", err)
		}
	}
}

func TestNewInvalidBaseURLFailsEveryCall(t *testing.T) {
	c := New(Config{BaseURL: "not a url"})
	if _, err := c.Complete(t.Context(), userReq("hi")); err == nil {
		t.Error("Complete with a bad BaseURL succeeded")
	}
	if _, err := c.Stream(t.Context(), userReq("hi"), nil); err == nil {
		t.Error("Stream with a bad BaseURL succeeded")
	}
}
