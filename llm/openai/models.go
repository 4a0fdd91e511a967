package openai

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
)

// Models lists the IDs of the models the server serves (GET /models beside
// the chat completions endpoint), in the server's order. A local server
// (llama.cpp, LM Studio, Ollama, vLLM) names the model it has loaded, which
// a front end can seat instead of a hosted model's ID. The call is not
// retried.
func (c *Client) Models(ctx context.Context) ([]string, error) {
	var list struct {
		Data []struct {
			ID string `json:"id"`
		} `json:"data"`
	}
	if err := c.getJSON(ctx, strings.TrimSuffix(c.endpoint, "/chat/completions")+"/models", "the model list", &list); err != nil {
		return nil, err
	}
	ids := make([]string, 0, len(list.Data))
	for _, m := range list.Data {
		if m.ID != "" {
			ids = append(ids, m.ID)
		}
	}
	return ids, nil
}

// ErrNoSlots: the server does not say how many requests it serves at once
// (it is not a llama.cpp server, or an older one).
var ErrNoSlots = errors.New("openai: the server does not report its slots")

// Slots returns how many requests a llama.cpp server generates at once
// (its slots, llama-server --parallel: total_slots of GET /props at the
// server's root), or ErrNoSlots when the server does not say. A server of
// one slot makes a check that runs beside a stream (the podcast's
// interrupt check) wait until the stream has ended. The call is not
// retried.
func (c *Client) Slots(ctx context.Context) (int, error) {
	base := strings.TrimSuffix(c.endpoint, "/chat/completions")
	base = strings.TrimSuffix(strings.TrimSuffix(base, "/"), "/v1")
	var props struct {
		TotalSlots *int `json:"total_slots"`
	}
	err := c.getJSON(ctx, base+"/props", "the server's properties", &props)
	var apiErr *APIError
	switch {
	case errors.As(err, &apiErr) && apiErr.StatusCode == http.StatusNotFound:
		return 0, ErrNoSlots
	case err != nil:
		return 0, err
	case props.TotalSlots == nil || *props.TotalSlots < 1:
		return 0, ErrNoSlots
	}
	return *props.TotalSlots, nil
}

// getJSON GETs url and decodes its JSON body into v; what names the body in
// errors.
func (c *Client) getJSON(ctx context.Context, url, what string, v any) error {
	if c.cfgErr != nil {
		return c.cfgErr
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return fmt.Errorf("openai: building the request for %s: %w", what, err)
	}
	c.setHeaders(req.Header, false, "")
	req.Header.Del("Content-Type")
	req.Header.Del("Idempotency-Key")
	resp, err := c.hc.Do(req)
	if err != nil {
		return fmt.Errorf("openai: GET %s: %w", redactURL(url), err)
	}
	defer resp.Body.Close()
	data, err := readCapped(resp.Body, c.maxBody)
	if err != nil {
		return fmt.Errorf("openai: GET %s: %w", redactURL(url), err)
	}
	if resp.StatusCode < 200 || resp.StatusCode > 299 {
		_, _ = io.Copy(io.Discard, resp.Body)
		return newAPIError(resp.StatusCode, resp.Header, data, c.now(), c.secrets)
	}
	if err := json.Unmarshal(data, v); err != nil {
		return fmt.Errorf("openai: GET %s: decoding %s: %w", redactURL(url), what, err)
	}
	return nil
}
