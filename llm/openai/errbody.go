package openai

import (
	"bytes"
	"encoding/json"
	"net/http"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/duelogic/duelogic/internal/httperr"
)

const (
	maxMessageLen = 2000 // bytes of a server's error message kept in APIError.Message
	maxTextLen    = 300  // bytes of a plain-text or HTML error body kept
	maxMetadata   = 8 << 10
)

// requestIDHeaders are the response headers that carry a request ID, in order
// of preference: OpenAI, vLLM and most gateways; OpenRouter; others.
var requestIDHeaders = []string{"X-Request-Id", "X-Generation-Id", "Request-Id", "X-Amzn-Requestid", "Cf-Ray"}

// newAPIError builds the error for a non-2xx response from its status,
// headers and (already size-capped) body, with the secrets removed.
func newAPIError(status int, h http.Header, body []byte, now time.Time, secrets []string) *APIError {
	e := &APIError{StatusCode: status, RequestID: requestIDOf(h), RetryAfter: httperr.RetryAfter(h, now)}
	defer e.redact(secrets)
	body = redactBytes(body, secrets) // before any cut, which could leave part of a secret
	switch strings.ToLower(strings.TrimSpace(h.Get("X-Should-Retry"))) {
	case "true":
		e.shouldRetry = 1
	case "false":
		e.shouldRetry = -1
	}
	fillFromBody(e, body)
	if e.Message == "" {
		e.Message = http.StatusText(status)
	}
	return e
}

// errorFromEvent builds the error for an error object found inside a 200
// response — a stream event or a completion body — with the secrets removed.
// A body that is not a recognised error object becomes the message.
func errorFromEvent(data []byte, secrets []string) *APIError {
	e := &APIError{}
	defer e.redact(secrets)
	fillFromBody(e, redactBytes(data, secrets))
	if n, err := strconv.Atoi(e.Code); err == nil && n >= 400 && n <= 599 {
		e.StatusCode = n
	}
	if e.Message == "" {
		e.Message = "the server reported an error"
	}
	return e
}

// fillFromBody fills e's Type, Code, Message, Param, Provider and Metadata
// from an error body of any known shape. It reports whether the body was a
// recognised JSON error; otherwise it uses the body as text.
func fillFromBody(e *APIError, body []byte) bool {
	body = bytes.TrimSpace(body)
	if len(body) == 0 {
		return false
	}
	if body[0] == '[' { // Google's OpenAI-compatible endpoint wraps errors in a list
		var list []json.RawMessage
		if json.Unmarshal(body, &list) == nil && len(list) > 0 {
			body = bytes.TrimSpace(list[0])
		}
	}
	if len(body) > 0 && body[0] == '{' {
		var top map[string]json.RawMessage
		if json.Unmarshal(body, &top) == nil && fillFromObject(e, top) {
			return true
		}
	}
	e.Message = textMessage(body)
	return false
}

func fillFromObject(e *APIError, top map[string]json.RawMessage) bool {
	if raw, ok := top["error"]; ok && !isNull(raw) {
		var s string
		if json.Unmarshal(raw, &s) == nil { // Ollama, LM Studio: {"error":"text"}
			e.Message = clip(s, maxMessageLen)
			return true
		}
		var obj map[string]json.RawMessage
		if json.Unmarshal(raw, &obj) == nil {
			fillFields(e, obj)
			return true
		}
	}
	if _, ok := top["message"]; ok { // vLLM {"object":"error",...}; llama.cpp's bare object
		fillFields(e, top)
		return true
	}
	if raw, ok := top["detail"]; ok { // FastAPI
		e.Message = detailMessage(raw)
		return true
	}
	return false
}

func fillFields(e *APIError, obj map[string]json.RawMessage) {
	e.Message = clip(jsonText(obj["message"]), maxMessageLen)
	e.Type = clip(jsonText(obj["type"]), 200)
	if e.Type == "" {
		e.Type = clip(jsonText(obj["status"]), 200) // Google: "INVALID_ARGUMENT"
	}
	e.Code = clip(jsonText(obj["code"]), 200)
	e.Param = clip(jsonText(obj["param"]), 200)
	var n tokenCount
	if raw, ok := obj["n_prompt_tokens"]; ok && json.Unmarshal(raw, &n) == nil { // llama.cpp
		e.PromptTokens = int(n)
	}
	n = 0
	if raw, ok := obj["n_ctx"]; ok && json.Unmarshal(raw, &n) == nil {
		e.ContextTokens = int(n)
	}
	if raw, ok := obj["metadata"]; ok && !isNull(raw) {
		var meta struct {
			ProviderName string `json:"provider_name"`
		}
		if json.Unmarshal(raw, &meta) == nil {
			e.Provider = clip(meta.ProviderName, 200)
		}
		if len(raw) <= maxMetadata {
			var buf bytes.Buffer
			if json.Compact(&buf, raw) == nil {
				e.Metadata = buf.Bytes()
			}
		}
	}
}

// detailMessage renders FastAPI's detail: a string, or a list of validation
// errors {"loc":[...],"msg":"...","type":"..."}.
func detailMessage(raw json.RawMessage) string {
	var items []struct {
		Msg string `json:"msg"`
	}
	if json.Unmarshal(raw, &items) == nil {
		var msgs []string
		for _, it := range items {
			if it.Msg != "" {
				msgs = append(msgs, it.Msg)
			}
		}
		if len(msgs) > 0 {
			return clip(strings.Join(msgs, "; "), maxMessageLen)
		}
	}
	return clip(jsonText(raw), maxMessageLen)
}

// jsonText renders a JSON value as text: a string's contents, a number or
// other value compacted, "" for null or nothing.
func jsonText(raw json.RawMessage) string {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || isNull(raw) {
		return ""
	}
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s
	}
	var buf bytes.Buffer
	if json.Compact(&buf, raw) == nil {
		return buf.String()
	}
	return string(raw)
}

func isNull(raw json.RawMessage) bool { return string(bytes.TrimSpace(raw)) == "null" }

// textMessage renders a non-JSON error body: an HTML page's title, or the
// text with its whitespace collapsed, cut short.
func textMessage(body []byte) string {
	s := string(body)
	if lower := strings.ToLower(s); strings.Contains(lower, "<html") || strings.HasPrefix(lower, "<!doctype") {
		if i := strings.Index(lower, "<title>"); i >= 0 {
			if j := strings.Index(lower[i:], "</title>"); j >= 0 {
				s = s[i+len("<title>") : i+j]
			}
		}
	}
	return clip(strings.Join(strings.Fields(s), " "), maxTextLen)
}

// clip cuts s to at most n bytes on a rune boundary, marking the cut, and
// replaces invalid UTF-8.
func clip(s string, n int) string {
	s = strings.ToValidUTF8(s, "\uFFFD")
	if len(s) <= n {
		return s
	}
	cut := n
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return s[:cut] + "…"
}

// redact removes every secret from the text fields of e.
func (e *APIError) redact(secrets []string) {
	for _, s := range secrets {
		for _, f := range []*string{&e.Type, &e.Code, &e.Message, &e.Param, &e.Provider, &e.RequestID} {
			*f = strings.ReplaceAll(*f, s, "[redacted]")
		}
	}
	e.Metadata = redactBytes(e.Metadata, secrets)
}

func redactBytes(b []byte, secrets []string) []byte {
	for _, s := range secrets {
		b = bytes.ReplaceAll(b, []byte(s), []byte("[redacted]"))
	}
	return b
}
