package main

import (
	"bufio"
	"context"
	"encoding/hex"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	collogs "go.opentelemetry.io/proto/otlp/collector/logs/v1"
	colmetrics "go.opentelemetry.io/proto/otlp/collector/metrics/v1"
	coltrace "go.opentelemetry.io/proto/otlp/collector/trace/v1"
	commonpb "go.opentelemetry.io/proto/otlp/common/v1"
	logspb "go.opentelemetry.io/proto/otlp/logs/v1"
	metricspb "go.opentelemetry.io/proto/otlp/metrics/v1"
	tracepb "go.opentelemetry.io/proto/otlp/trace/v1"
	"google.golang.org/protobuf/proto"

	"github.com/duelogic/duelogic/examples/internal/otlp"
	"github.com/duelogic/duelogic/llm"
)

// otlpReceiver plays an OTLP/HTTP collector: it decodes the protobuf
// bodies posted to /v1/traces, /v1/metrics and /v1/logs and keeps what
// they carry.
type otlpReceiver struct {
	*httptest.Server

	mu      sync.Mutex
	spans   []*tracepb.Span
	metrics []*metricspb.Metric
	logs    []*logspb.LogRecord
	service []string // the service.name of every batch
}

func newReceiver(t *testing.T) *otlpReceiver {
	r := &otlpReceiver{}
	mux := http.NewServeMux()
	mux.HandleFunc("POST /v1/traces", receive(t, r, &coltrace.ExportTraceServiceRequest{}, &coltrace.ExportTraceServiceResponse{},
		func(req *coltrace.ExportTraceServiceRequest) {
			for _, rs := range req.ResourceSpans {
				r.service = append(r.service, attr(rs.Resource.GetAttributes(), "service.name").GetStringValue())
				for _, ss := range rs.ScopeSpans {
					r.spans = append(r.spans, ss.Spans...)
				}
			}
		}))
	mux.HandleFunc("POST /v1/metrics", receive(t, r, &colmetrics.ExportMetricsServiceRequest{}, &colmetrics.ExportMetricsServiceResponse{},
		func(req *colmetrics.ExportMetricsServiceRequest) {
			for _, rm := range req.ResourceMetrics {
				for _, sm := range rm.ScopeMetrics {
					r.metrics = append(r.metrics, sm.Metrics...)
				}
			}
		}))
	mux.HandleFunc("POST /v1/logs", receive(t, r, &collogs.ExportLogsServiceRequest{}, &collogs.ExportLogsServiceResponse{},
		func(req *collogs.ExportLogsServiceRequest) {
			for _, rl := range req.ResourceLogs {
				for _, sl := range rl.ScopeLogs {
					r.logs = append(r.logs, sl.LogRecords...)
				}
			}
		}))
	r.Server = httptest.NewServer(mux)
	t.Cleanup(r.Close)
	return r
}

// receive is the handler of one signal: it decodes the request into req,
// hands it to keep under r.mu, and answers resp.
func receive[Req, Resp proto.Message](t *testing.T, r *otlpReceiver, req Req, resp Resp, keep func(Req)) http.HandlerFunc {
	return func(w http.ResponseWriter, hr *http.Request) {
		if ct := hr.Header.Get("Content-Type"); ct != "application/x-protobuf" {
			t.Errorf("%s: Content-Type %q", hr.URL.Path, ct)
		}
		body, err := io.ReadAll(hr.Body)
		if err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		m := proto.Clone(req).(Req)
		if err := proto.Unmarshal(body, m); err != nil {
			t.Errorf("%s: %v", hr.URL.Path, err)
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		r.mu.Lock()
		keep(m)
		r.mu.Unlock()
		out, _ := proto.Marshal(resp)
		w.Header().Set("Content-Type", "application/x-protobuf")
		w.Write(out)
	}
}

// attr is the value of the attribute key of kvs, nil when there is none.
func attr(kvs []*commonpb.KeyValue, key string) *commonpb.AnyValue {
	for _, kv := range kvs {
		if kv.Key == key {
			return kv.Value
		}
	}
	return nil
}

// countingClient counts its client's calls and the prompt tokens they
// reported; it streams when its client does.
type countingClient struct {
	llm.Client
	calls, prompt *atomic.Int64
}

func (c countingClient) Complete(ctx context.Context, req llm.Request) (llm.Response, error) {
	resp, err := c.Client.Complete(ctx, req)
	c.calls.Add(1)
	c.prompt.Add(int64(resp.Usage.PromptTokens))
	return resp, err
}

// exported is what r received for debate id: its debate span, the chat
// spans of its model calls, the input tokens the token usage metric
// counted, and the evaluation events.
type exported struct {
	debate      *tracepb.Span
	chats       []*tracepb.Span
	chatTokens  int64 // gen_ai.usage.input_tokens over the chat spans
	metricCalls uint64
	metricInput float64
	evaluations int
}

func (r *otlpReceiver) of(t *testing.T, id string) exported {
	t.Helper()
	r.mu.Lock()
	defer r.mu.Unlock()
	var x exported
	for _, sp := range r.spans {
		conv := attr(sp.Attributes, "gen_ai.conversation.id").GetStringValue()
		switch {
		case sp.Name == "debate":
			if conv != id {
				t.Errorf("debate span with gen_ai.conversation.id %q; want %q", conv, id)
			}
			x.debate = sp
		case strings.HasPrefix(sp.Name, "chat "):
			if conv != id {
				t.Errorf("span %q with gen_ai.conversation.id %q; want %q", sp.Name, conv, id)
			}
			if got := attr(sp.Attributes, "gen_ai.operation.name").GetStringValue(); got != "chat" {
				t.Errorf("span %q: gen_ai.operation.name %q", sp.Name, got)
			}
			x.chats = append(x.chats, sp)
			x.chatTokens += attr(sp.Attributes, "gen_ai.usage.input_tokens").GetIntValue()
		default:
			t.Errorf("unexpected span %q", sp.Name)
		}
	}
	for _, m := range r.metrics {
		if m.Name != "gen_ai.client.token.usage" {
			continue
		}
		for _, dp := range m.GetHistogram().GetDataPoints() {
			if attr(dp.Attributes, "gen_ai.token.type").GetStringValue() == "input" {
				x.metricCalls += dp.Count
				x.metricInput += dp.GetSum()
			}
		}
	}
	for _, rec := range r.logs {
		if rec.EventName == "gen_ai.evaluation.result" {
			x.evaluations++
		}
	}
	return x
}

// checkTrace checks that x holds the debate span, one chat span per model
// call, each a child of the debate span, and the token usage metric of
// every call, adding up to prompt tokens.
func checkTrace(t *testing.T, x exported, calls, prompt int64) {
	t.Helper()
	if x.debate == nil {
		t.Fatal("no debate span")
	}
	if int64(len(x.chats)) != calls || calls == 0 {
		t.Errorf("%d chat spans; want one per model call, %d", len(x.chats), calls)
	}
	for _, sp := range x.chats {
		if hex.EncodeToString(sp.ParentSpanId) != hex.EncodeToString(x.debate.SpanId) {
			t.Errorf("span %q is not a child of the debate span", sp.Name)
			break
		}
	}
	if x.chatTokens != prompt {
		t.Errorf("the chat spans count %d input tokens; the calls reported %d", x.chatTokens, prompt)
	}
	if int64(x.metricCalls) != calls || int64(x.metricInput) != prompt {
		t.Errorf("gen_ai.client.token.usage: %d calls, %v input tokens; want %d, %d", x.metricCalls, x.metricInput, calls, prompt)
	}
}

// TestServerExportsOTLP: a server instrumented with providers that export
// over OTLP/HTTP sends, for a podcast on the stub, its debate span, a chat
// span per model call with gen_ai.conversation.id = the debate's ID, the
// token usage metric, and the evaluations as log records.
func TestServerExportsOTLP(t *testing.T) {
	recv := newReceiver(t)
	client := countingClient{Client: llm.NewStub(1), calls: new(atomic.Int64), prompt: new(atomic.Int64)}
	s, hs := testServer(t, client)
	tel, err := otlp.New(t.Context(), recv.URL, "duelogic-web-test")
	if err != nil {
		t.Fatal(err)
	}
	s.instrument(tel.Options(), "duelogic.stub")
	id := create(t, hs.URL, "duelogic", `{"proposition": "Should we?", "config": {"flow": {"maxExchanges": 3}}}`)
	eventTypes(t, hs.URL+"/api/debates/"+id+"/events")
	s.wg.Wait()
	if err := tel.Shutdown(t.Context()); err != nil {
		t.Fatal(err)
	}
	x := recv.of(t, id)
	checkTrace(t, x, client.calls.Load(), client.prompt.Load())
	if end := storedEnd(t, s.store, id); int64(end.Usage.PromptTokens) != client.prompt.Load() {
		t.Errorf("the debate spent %d prompt tokens; the calls reported %d", end.Usage.PromptTokens, client.prompt.Load())
	}
	if attr(x.debate.Attributes, "duelogic.format").GetStringValue() != "duelogic" {
		t.Errorf("debate span attributes %v; want its format", x.debate.Attributes)
	}
	if x.evaluations == 0 {
		t.Error("no gen_ai.evaluation.result log records")
	}
	if len(recv.service) == 0 || recv.service[0] != "duelogic-web-test" {
		t.Errorf("service.name %q", recv.service)
	}
}

// TestRunExportsOTLPFromTheEnvironment: with OTEL_EXPORTER_OTLP_ENDPOINT
// set, run exports, and flushes at exit what the debate left.
func TestRunExportsOTLPFromTheEnvironment(t *testing.T) {
	recv := newReceiver(t)
	t.Setenv("OTEL_EXPORTER_OTLP_ENDPOINT", recv.URL)
	t.Setenv("OTEL_SERVICE_NAME", "from-the-env")
	ctx, cancel := context.WithCancel(t.Context())
	pr, pw := io.Pipe()
	done := make(chan error, 1)
	go func() {
		done <- run(ctx, func() {}, []string{"-addr", "127.0.0.1:0", "-stub-delay", "0"}, pw, io.Discard, os.Getenv)
		pw.Close()
	}()
	line, err := bufio.NewReader(pr).ReadString('\n')
	if err != nil {
		t.Fatal(err)
	}
	addr, ok := strings.CutPrefix(strings.TrimSpace(line), "duelogic web: listening on ")
	if !ok {
		t.Fatalf("first line %q", line)
	}
	go io.Copy(io.Discard, pr)
	id := create(t, addr, "formal", `{"proposition": "Cities should ban cars from their centres.", "config": {"maxRounds": 3}}`)
	eventTypes(t, addr+"/api/debates/"+id+"/events")
	v := getView(t, addr, id)
	cancel()
	if err := <-done; err != nil {
		t.Fatalf("run: %v", err)
	}
	x := recv.of(t, id)
	// The stub's calls are not counted here: every call's input tokens
	// add up to what the debate stored.
	checkTrace(t, x, int64(x.metricCalls), int64(v.Usage.PromptTokens))
	if len(recv.service) == 0 || recv.service[0] != "from-the-env" {
		t.Errorf("service.name %q; want OTEL_SERVICE_NAME's", recv.service)
	}
}

func TestOTLPWanted(t *testing.T) {
	tests := []struct {
		flag string
		env  map[string]string
		want bool
	}{
		{want: false},
		{env: map[string]string{"OTEL_EXPORTER_OTLP_HEADERS": "a=b"}, want: false},
		{flag: "http://127.0.0.1:4318", want: true},
		{env: map[string]string{"OTEL_EXPORTER_OTLP_ENDPOINT": "http://c:4318"}, want: true},
		{env: map[string]string{"OTEL_EXPORTER_OTLP_TRACES_ENDPOINT": "http://c:4318/v1/traces"}, want: true},
		{env: map[string]string{"OTEL_EXPORTER_OTLP_METRICS_ENDPOINT": "http://c:4318/v1/metrics"}, want: true},
		{env: map[string]string{"OTEL_EXPORTER_OTLP_LOGS_ENDPOINT": "http://c:4318/v1/logs"}, want: true},
	}
	for _, tt := range tests {
		if got := otlp.Wanted(tt.flag, func(k string) string { return tt.env[k] }); got != tt.want {
			t.Errorf("otlp.Wanted(%q, %v) = %v; want %v", tt.flag, tt.env, got, tt.want)
		}
	}
}
