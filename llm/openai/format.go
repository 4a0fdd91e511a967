package openai

import (
	"context"
	"crypto/rand"
	"encoding/json"
	"errors"
	"log/slog"
	"net/http"
	"strings"
	"sync/atomic"

	"github.com/duelogic/duelogic/llm"
	"github.com/duelogic/duelogic/llm/jsonschema"
)

// The response_format a request that wants JSON carries, richest first. A
// client stops sending one to a model, for good, once the server has
// refused it for that model (Client.refused): a server that routes to many
// models (a gateway, LM Studio with several loaded) may support structured
// outputs for some of them only.
const (
	formatSchema int32 = iota // json_schema, from llm.Request.Schema
	formatJSON                // Client.jsonFormat: json_object unless configured
	formatNone                // none: the prompt alone asks for JSON
)

var formatNames = [...]string{formatSchema: "json_schema", formatJSON: "json_object", formatNone: "none"}

// responseFormat is the response_format for req, the richest the server has
// not refused, and which of the formats it is (formatNone when there is
// none): json_schema for a request with a Schema, else Client.jsonFormat
// for a request that wants JSON, else none.
func (c *Client) responseFormat(req llm.Request) (json.RawMessage, int32) {
	if !req.WantsJSON() {
		return nil, formatNone
	}
	refused := c.refusals(req.Model).Load()
	if len(req.Schema) > 0 && refused&(1<<formatSchema) == 0 {
		return schemaFormat(req), formatSchema
	}
	if c.jsonFormat != nil && refused&(1<<formatJSON) == 0 {
		return c.jsonFormat, formatJSON
	}
	return nil, formatNone
}

// schemaFormat is the json_schema response_format for req. It asks for
// strict adherence when the schema allows it (jsonschema.Strict), so that a
// schema outside OpenAI's strict subset is still sent, as guidance.
func schemaFormat(req llm.Request) json.RawMessage {
	type jsonSchema struct {
		Name   string          `json:"name"`
		Schema json.RawMessage `json:"schema"`
		Strict bool            `json:"strict"`
	}
	f, _ := json.Marshal(struct {
		Type       string     `json:"type"`
		JSONSchema jsonSchema `json:"json_schema"`
	}{"json_schema", jsonSchema{Name: schemaName(req.Purpose), Schema: req.Schema, Strict: jsonschema.Strict(req.Schema) == nil}})
	return f // the schema is valid JSON: requestBody checked it
}

// schemaName derives json_schema.name from a request's purpose: the letters,
// digits, '_' and '-' OpenAI allows (any other character becomes '_'), at
// most 64 of them; "reply" when the purpose has none.
func schemaName(purpose string) string {
	var b strings.Builder
	letters := false
	for _, r := range purpose {
		if b.Len() == 64 {
			break
		}
		switch {
		case 'a' <= r && r <= 'z', 'A' <= r && r <= 'Z', '0' <= r && r <= '9':
			letters = true
			b.WriteRune(r)
		case r == '-' || r == '_':
			b.WriteRune(r)
		default:
			b.WriteByte('_')
		}
	}
	if !letters {
		return "reply"
	}
	return b.String()
}

// post sends req and returns the first 2xx response; the caller must close
// it. When the server refuses the request's response_format, post makes the
// client stop sending that format (see downgrade) and sends the request
// again at once with the next simpler one, so a request is sent at most
// three times this way, besides the retries of send. Each body gets a fresh Idempotency-Key, which its
// retries share.
func (c *Client) post(ctx context.Context, req llm.Request, stream bool) (*response, error) {
	for {
		body, sent, err := c.requestBody(req, stream)
		if err != nil {
			return nil, err
		}
		a, err := c.send(ctx, body, stream, rand.Text())
		if err == nil || sent == formatNone || !rejectsFormat(err) {
			return a, err
		}
		c.downgrade(ctx, req.Model, sent, err)
	}
}

// refusals are the response_formats the server has refused for model.
func (c *Client) refusals(model string) *atomic.Uint32 {
	if r, ok := c.refused.Load(model); ok {
		return r.(*atomic.Uint32)
	}
	r, _ := c.refused.LoadOrStore(model, new(atomic.Uint32))
	return r.(*atomic.Uint32)
}

// downgrade records that the server refused the response_format rejected
// for the request's model: the client does not send it again for that
// model. The step is logged once, by the call that makes it.
func (c *Client) downgrade(ctx context.Context, model string, rejected int32, err error) {
	refused := c.refusals(model)
	bit := uint32(1) << rejected
	if refused.Or(bit)&bit != 0 || c.logger == nil {
		return // another call has stepped down already
	}
	next := formatNone
	if rejected == formatSchema && c.jsonFormat != nil && refused.Load()&(1<<formatJSON) == 0 {
		next = formatJSON
	}
	c.logger.LogAttrs(ctx, slog.LevelWarn, "openai: the server refused response_format; using a simpler one for this model from now on",
		slog.String("url", c.safeURL), slog.String("model", model), slog.String("refused", formatNames[rejected]),
		slog.String("now", formatNames[next]), slog.String("error", err.Error()))
}

// rejectsFormat reports whether err is the server's refusal of a request's
// response_format: a 400 (or 422) whose error names response_format, a
// JSON schema or structured outputs, or says a schema is not supported.
func rejectsFormat(err error) bool {
	var e *APIError
	if !errors.As(err, &e) || e.StatusCode != http.StatusBadRequest && e.StatusCode != http.StatusUnprocessableEntity || e.contextOverflow() {
		return false
	}
	text := strings.ToLower(strings.Join([]string{e.Param, e.Code, e.Type, e.Message}, " "))
	for _, w := range []string{"response_format", "response format", "json_schema", "json schema", "json_object", "structured output", "grammar"} {
		if strings.Contains(text, w) {
			return true
		}
	}
	return strings.Contains(text, "schema") && strings.Contains(text, "support")
}
