package openai

import (
	"context"
	"encoding/json"
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
	if c.cfgErr != nil {
		return nil, c.cfgErr
	}
	url := strings.TrimSuffix(c.endpoint, "/chat/completions") + "/models"
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return nil, fmt.Errorf("openai: building models request: %w", err)
	}
	c.setHeaders(req.Header, false, "")
	req.Header.Del("Content-Type")
	req.Header.Del("Idempotency-Key")
	resp, err := c.hc.Do(req)
	if err != nil {
		return nil, fmt.Errorf("openai: GET %s: %w", redactURL(url), err)
	}
	defer resp.Body.Close()
	data, err := readCapped(resp.Body, c.maxBody)
	if err != nil {
		return nil, fmt.Errorf("openai: GET %s: %w", redactURL(url), err)
	}
	if resp.StatusCode < 200 || resp.StatusCode > 299 {
		_, _ = io.Copy(io.Discard, resp.Body)
		return nil, newAPIError(resp.StatusCode, resp.Header, data, c.now(), c.secrets)
	}
	var list struct {
		Data []struct {
			ID string `json:"id"`
		} `json:"data"`
	}
	if err := json.Unmarshal(data, &list); err != nil {
		return nil, fmt.Errorf("openai: GET %s: decoding the model list: %w", redactURL(url), err)
	}
	ids := make([]string, 0, len(list.Data))
	for _, m := range list.Data {
		if m.ID != "" {
			ids = append(ids, m.ID)
		}
	}
	return ids, nil
}
