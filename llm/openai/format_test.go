package openai

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"log/slog"
	"net/http"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/duelogic/duelogic/llm"
	"github.com/google/go-cmp/cmp"
)

const strictSchema = `{"type":"object","properties":{"score":{"type":"integer"}},"required":["score"],"additionalProperties":false}`

func schemaReq(purpose, schema string) llm.Request {
	r := userReq("judge this")
	r.Purpose, r.Schema = purpose, json.RawMessage(schema)
	return r
}

func TestSchemaResponseFormat(t *testing.T) {
	loose := `{"type":"object","properties":{"score":{"type":"integer"}}}`
	tests := []struct {
		name   string
		cfg    Config
		req    llm.Request
		stream bool
		want   any // the response_format sent
	}{
		{
			name: "strict schema",
			req:  schemaReq("evaluation", strictSchema),
			want: map[string]any{"type": "json_schema", "json_schema": map[string]any{"name": "evaluation", "strict": true, "schema": decodeJSON(t, strictSchema)}},
		},
		{
			name:   "streamed",
			req:    schemaReq("evaluation", strictSchema),
			stream: true,
			want:   map[string]any{"type": "json_schema", "json_schema": map[string]any{"name": "evaluation", "strict": true, "schema": decodeJSON(t, strictSchema)}},
		},
		{
			name: "a schema outside strict mode is sent as guidance",
			req:  schemaReq("interrupt check/v2", loose),
			want: map[string]any{"type": "json_schema", "json_schema": map[string]any{"name": "interrupt_check_v2", "strict": false, "schema": decodeJSON(t, loose)}},
		},
		{
			name: "the schema wins over Config.ResponseFormat",
			cfg:  Config{ResponseFormat: json.RawMessage(`null`)},
			req:  schemaReq("", strictSchema),
			want: map[string]any{"type": "json_schema", "json_schema": map[string]any{"name": "reply", "strict": true, "schema": decodeJSON(t, strictSchema)}},
		},
		{
			name: "JSON without a schema is json_object",
			req:  llm.Request{Model: "m", Messages: userReq("x").Messages, JSON: true},
			want: map[string]any{"type": "json_object"},
		},
		{
			name: "no JSON, no response_format",
			req:  userReq("x"),
			want: nil,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var got captured
			cfg := tt.cfg
			cfg.BaseURL = capture(t, &got)
			c, _ := testClient(cfg)
			var err error
			if tt.stream {
				_, err = c.Stream(t.Context(), tt.req, nil)
			} else {
				_, err = c.Complete(t.Context(), tt.req)
			}
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.want, got.body["response_format"]); diff != "" {
				t.Errorf("response_format (-want +got):\n%s", diff)
			}
		})
	}
}

func decodeJSON(t *testing.T, s string) any {
	t.Helper()
	var v any
	if err := json.Unmarshal([]byte(s), &v); err != nil {
		t.Fatal(err)
	}
	return v
}

func TestSchemaName(t *testing.T) {
	for purpose, want := range map[string]string{
		"evaluation":                   "evaluation",
		"argument_extraction":          "argument_extraction",
		"speech-act.moves v2":          "speech-act_moves_v2",
		"évaluation":                   "_valuation",
		"":                             "reply",
		"---":                          "reply",
		"日本":                           "reply",
		strings.Repeat("ab", 40) + "!": strings.Repeat("ab", 32),
	} {
		if got := schemaName(purpose); got != want {
			t.Errorf("schemaName(%q) = %q, want %q", purpose, got, want)
		}
	}
}

func TestSchemaNotJSON(t *testing.T) {
	var hits int
	base := serve(t, func(w http.ResponseWriter, r *http.Request) { hits++ }).URL
	c, _ := testClient(Config{BaseURL: base})
	_, err := c.Complete(t.Context(), schemaReq("evaluation", `{"type":`))
	if err == nil || !strings.Contains(err.Error(), "Schema is not valid JSON") || hits != 0 {
		t.Errorf("Complete: %v after %d requests; want an error before any request", err, hits)
	}
}

// formatServer answers 400 to a response_format whose type it refuses, in
// the way the named server words it, and okCompletion otherwise. It records
// the type of each response_format it gets ("" for none).
type formatServer struct {
	refuse map[string]string // type -> error body
	// only, when set, is the one model whose requests are refused.
	only string

	mu   sync.Mutex
	seen []string
	keys []string
}

func (s *formatServer) handler(w http.ResponseWriter, r *http.Request) {
	var body struct {
		Model          string `json:"model"`
		ResponseFormat *struct {
			Type string `json:"type"`
		} `json:"response_format"`
		Stream bool `json:"stream"`
	}
	data, _ := io.ReadAll(r.Body)
	json.Unmarshal(data, &body)
	typ := ""
	if body.ResponseFormat != nil {
		typ = body.ResponseFormat.Type
	}
	s.mu.Lock()
	s.seen = append(s.seen, typ)
	s.keys = append(s.keys, r.Header.Get("Idempotency-Key"))
	s.mu.Unlock()
	if e, ok := s.refuse[typ]; ok && (s.only == "" || s.only == body.Model) {
		reply(400, "application/json", e)(w, r)
		return
	}
	if body.Stream {
		sse(chunk("{}")+stopChunk+doneEvent)(w, r)
		return
	}
	reply(200, "application/json", okCompletion)(w, r)
}

func (s *formatServer) take() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	seen := s.seen
	s.seen = nil
	return seen
}

// Error bodies in the shapes servers use to refuse a response_format.
const (
	refuseSchemaOpenAI  = `{"error":{"message":"Invalid parameter: 'response_format' of type 'json_schema' is not supported with this model.","type":"invalid_request_error","param":"response_format","code":null}}`
	refuseSchemaVLLM    = `{"object":"error","message":"json_schema is not supported by this backend","type":"BadRequestError","param":null,"code":400}`
	refuseObjectLMStyle = `{"error":"'response_format.type' must be 'json_schema' or 'text'"}`
	refuseObjectPlain   = `{"error":{"message":"Unsupported value: json_object","type":"invalid_request_error","param":"response_format.type"}}`
)

func TestFormatDowngrade(t *testing.T) {
	schema := schemaReq("evaluation", strictSchema)
	jsonOnly := llm.Request{Model: schema.Model, Messages: userReq("x").Messages, JSON: true}
	type call struct {
		req    llm.Request
		stream bool
		want   []string // the response_format types the server sees
	}
	small := schema
	small.Model = "small"
	tests := []struct {
		name   string
		refuse map[string]string
		only   string
		calls  []call
		logs   []string // the formats logged as refused, in order
	}{
		{
			name:   "json_schema refused: json_object from then on",
			refuse: map[string]string{"json_schema": refuseSchemaOpenAI},
			calls: []call{
				{req: schema, want: []string{"json_schema", "json_object"}},
				{req: schema, want: []string{"json_object"}},
				{req: schema, stream: true, want: []string{"json_object"}},
				{req: jsonOnly, want: []string{"json_object"}},
			},
			logs: []string{"refused=json_schema now=json_object"},
		},
		{
			name:   "both refused: the prompt alone from then on",
			refuse: map[string]string{"json_schema": refuseSchemaVLLM, "json_object": refuseObjectPlain},
			calls: []call{
				{req: schema, stream: true, want: []string{"json_schema", "json_object", ""}},
				{req: schema, want: []string{""}},
				{req: jsonOnly, want: []string{""}},
			},
			logs: []string{"refused=json_schema now=json_object", "refused=json_object now=none"},
		},
		{
			name:   "json_object refused by a schema-only server, json_schema kept",
			refuse: map[string]string{"json_object": refuseObjectLMStyle},
			calls: []call{
				{req: jsonOnly, want: []string{"json_object", ""}},
				{req: schema, want: []string{"json_schema"}},
				{req: jsonOnly, want: []string{""}},
			},
			logs: []string{"refused=json_object now=none"},
		},
		{
			name:   "json_schema refused for one model: the others keep it",
			refuse: map[string]string{"json_schema": refuseSchemaOpenAI},
			only:   "small",
			calls: []call{
				{req: small, want: []string{"json_schema", "json_object"}},
				{req: schema, want: []string{"json_schema"}},
				{req: small, want: []string{"json_object"}},
				{req: schema, stream: true, want: []string{"json_schema"}},
			},
			logs: []string{"refused=json_schema now=json_object"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := &formatServer{refuse: tt.refuse, only: tt.only}
			var logs bytes.Buffer
			c, _ := testClient(Config{BaseURL: serve(t, srv.handler).URL, Logger: slog.New(slog.NewTextHandler(&logs, nil))})
			for i, call := range tt.calls {
				var err error
				if call.stream {
					_, err = c.Stream(t.Context(), call.req, nil)
				} else {
					_, err = c.Complete(t.Context(), call.req)
				}
				if err != nil {
					t.Fatalf("call %d: %v", i, err)
				}
				if diff := cmp.Diff(call.want, srv.take()); diff != "" {
					t.Errorf("call %d: response_format types (-want +got):\n%s", i, diff)
				}
			}
			var gotLogs []string
			for _, line := range strings.Split(strings.TrimSpace(logs.String()), "\n") {
				if i := strings.Index(line, "refused="); i >= 0 {
					gotLogs = append(gotLogs, strings.Join(strings.Fields(line[i:])[:2], " "))
				}
			}
			if diff := cmp.Diff(tt.logs, gotLogs); diff != "" {
				t.Errorf("logged steps (-want +got):\n%s\nlog:\n%s", diff, logs.String())
			}
		})
	}
}

func TestFormatDowngradeConcurrent(t *testing.T) {
	srv := &formatServer{refuse: map[string]string{"json_schema": refuseSchemaOpenAI}}
	var logs bytes.Buffer // slog's handler serializes its writes
	c, _ := testClient(Config{BaseURL: serve(t, srv.handler).URL, Logger: slog.New(slog.NewTextHandler(&logs, nil))})
	const n = 16
	errs := make([]error, n)
	var wg sync.WaitGroup
	for i := range n {
		wg.Go(func() { _, errs[i] = c.Complete(t.Context(), schemaReq("evaluation", strictSchema)) })
	}
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		t.Fatal(err)
	}
	if got := strings.Count(logs.String(), "refused=json_schema"); got != 1 {
		t.Errorf("the step down was logged %d times, want once:\n%s", got, logs.String())
	}
	seen := srv.take()
	if objects := strings.Count(strings.Join(seen, " "), "json_object"); objects != n {
		t.Errorf("server saw %v: %d json_object requests, want %d (one answer each)", seen, objects, n)
	}
	if _, err := c.Complete(t.Context(), schemaReq("evaluation", strictSchema)); err != nil || !slices.Equal(srv.take(), []string{"json_object"}) {
		t.Errorf("after the step down: %v; want one json_object request", err)
	}
}

func TestFormatOther400NotResent(t *testing.T) {
	tests := []struct {
		name string
		req  llm.Request
		body string
	}{
		{"another parameter", schemaReq("evaluation", strictSchema), `{"error":{"message":"Unsupported value: 'temperature' does not support 0.2 with this model.","type":"invalid_request_error","param":"temperature","code":"unsupported_value"}}`},
		{"the context overflows", schemaReq("evaluation", strictSchema), `{"error":{"code":400,"message":"the request exceeds the available context size, try increasing it","type":"exceed_context_size_error","n_prompt_tokens":9000,"n_ctx":8192}}`},
		{"no response_format was sent", userReq("x"), refuseSchemaOpenAI},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var hits []string
			var mu sync.Mutex
			base := serve(t, func(w http.ResponseWriter, r *http.Request) {
				data, _ := io.ReadAll(r.Body)
				mu.Lock()
				hits = append(hits, string(data))
				mu.Unlock()
				reply(400, "application/json", tt.body)(w, r)
			}).URL
			c, _ := testClient(Config{BaseURL: base})
			_, err := c.Complete(t.Context(), tt.req)
			var apiErr *APIError
			if !errors.As(err, &apiErr) || apiErr.StatusCode != 400 {
				t.Fatalf("Complete: %v, want the 400", err)
			}
			if len(hits) != 1 {
				t.Fatalf("server got %d requests, want 1", len(hits))
			}
			if got := c.refusals(tt.req.Model).Load(); got != 0 {
				t.Errorf("the client stopped sending formats %b", got)
			}
		})
	}
}

func TestFinishReasonNormalized(t *testing.T) {
	for native, want := range map[string]string{
		"stop": "stop", "length": "length", "LENGTH": "length", "max_tokens": "length", "MAX_TOKENS": "length",
		"end_turn": "stop", "STOP": "stop", "content_filter": "content_filter", "Tool_Calls": "tool_calls", "": "",
	} {
		body := `{"model":"m","choices":[{"index":0,"message":{"role":"assistant","content":"x"},"finish_reason":` + quoteOrNull(native) + `}]}`
		c, _ := testClient(Config{BaseURL: serve(t, reply(200, "application/json", body)).URL})
		resp, err := c.Complete(t.Context(), userReq("x"))
		if err != nil || resp.FinishReason != want {
			t.Errorf("finish_reason %q: got %q, %v; want %q", native, resp.FinishReason, err, want)
		}
		stream := `data: {"choices":[{"index":0,"delta":{"content":"x"},"finish_reason":` + quoteOrNull(native) + "}]}\n\ndata: [DONE]\n\n"
		c, _ = testClient(Config{BaseURL: serve(t, sse(stream)).URL})
		resp, err = c.Stream(t.Context(), userReq("x"), nil)
		if err != nil || resp.FinishReason != want {
			t.Errorf("streamed finish_reason %q: got %q, %v; want %q", native, resp.FinishReason, err, want)
		}
	}
}

func quoteOrNull(s string) string {
	if s == "" {
		return "null"
	}
	return `"` + s + `"`
}
