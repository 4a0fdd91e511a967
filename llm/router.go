package llm

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
)

// ErrNoRoute is wrapped by the error a [Router] returns for a model ID that
// matches no pattern when the router has no default client.
var ErrNoRoute = errors.New("llm: no route for model")

// Router is a [Client] that sends each request to the client registered for
// its [Request.Model], so that every chair of a debate, and the arbiter, can
// be served by a different provider through one Client.
//
// A pattern is either an exact model ID ("openai/gpt-4o") or a prefix: a
// pattern ending in "/" matches every model ID that starts with it
// ("anthropic/" matches "anthropic/claude-sonnet-4"), and a pattern ending in
// "*" matches every model ID that starts with what comes before the "*"
// ("openai/gpt-4*" matches "openai/gpt-4o" and "openai/gpt-4.1"; "*" alone
// matches everything). A request goes to the exact match if there is one,
// otherwise to the longest matching prefix, otherwise to the default client.
//
// A Router is safe for concurrent use, including calls to [Router.Handle]
// while requests are in flight: a request is routed by the patterns
// registered when it starts.
type Router struct {
	def Client

	mu       sync.RWMutex
	exact    map[string]Client
	prefixes []prefixRoute // longest prefix first
}

var (
	_ Client   = (*Router)(nil)
	_ Streamer = (*Router)(nil)
)

type prefixRoute struct {
	prefix string
	c      Client
}

// NewRouter returns a router that sends requests matching no pattern to def.
// def may be nil, and then such requests fail with [ErrNoRoute].
func NewRouter(def Client) *Router {
	return &Router{def: def, exact: make(map[string]Client)}
}

// Handle registers c for the model IDs that pattern matches (see [Router]) and
// returns r so that registrations can be chained. Registering a pattern again
// replaces its client. Handle panics if pattern is empty or c is nil, both
// programming errors.
func (r *Router) Handle(pattern string, c Client) *Router {
	if pattern == "" {
		panic("llm: Router.Handle: empty pattern")
	}
	if c == nil {
		panic("llm: Router.Handle: nil client for pattern " + pattern)
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	prefix, isPrefix := patternPrefix(pattern)
	if !isPrefix {
		r.exact[pattern] = c
		return r
	}
	for i := range r.prefixes {
		if r.prefixes[i].prefix == prefix {
			r.prefixes[i].c = c
			return r
		}
	}
	r.prefixes = append(r.prefixes, prefixRoute{prefix: prefix, c: c})
	slices.SortStableFunc(r.prefixes, func(a, b prefixRoute) int { return len(b.prefix) - len(a.prefix) })
	return r
}

// patternPrefix reports whether pattern is a prefix pattern and, if so, the
// prefix it stands for.
func patternPrefix(pattern string) (string, bool) {
	switch {
	case strings.HasSuffix(pattern, "*"):
		return strings.TrimSuffix(pattern, "*"), true
	case strings.HasSuffix(pattern, "/"):
		return pattern, true
	}
	return "", false
}

// Route returns the client that a request for model would be sent to, or an
// error wrapping [ErrNoRoute]. A host can call it to check a configuration
// before any model is called.
func (r *Router) Route(model string) (Client, error) {
	r.mu.RLock()
	defer r.mu.RUnlock()
	if c, ok := r.exact[model]; ok {
		return c, nil
	}
	for _, p := range r.prefixes {
		if strings.HasPrefix(model, p.prefix) {
			return p.c, nil
		}
	}
	if r.def != nil {
		return r.def, nil
	}
	return nil, fmt.Errorf("%w %q", ErrNoRoute, model)
}

// Complete sends req to the client routed for req.Model.
func (r *Router) Complete(ctx context.Context, req Request) (Response, error) {
	c, err := r.Route(req.Model)
	if err != nil {
		return Response{}, err
	}
	return c.Complete(ctx, req)
}

// Stream sends req to the client routed for req.Model with [Stream], so that
// a route to a client that cannot stream still delivers its answer as one
// delta.
func (r *Router) Stream(ctx context.Context, req Request, onDelta func(delta string) error) (Response, error) {
	c, err := r.Route(req.Model)
	if err != nil {
		return Response{}, err
	}
	return Stream(ctx, c, req, onDelta)
}
