package main

import (
	"context"
	"encoding/hex"
	"io"
	"math"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	collogs "go.opentelemetry.io/proto/otlp/collector/logs/v1"
	colmetrics "go.opentelemetry.io/proto/otlp/collector/metrics/v1"
	coltrace "go.opentelemetry.io/proto/otlp/collector/trace/v1"
	commonpb "go.opentelemetry.io/proto/otlp/common/v1"
	metricspb "go.opentelemetry.io/proto/otlp/metrics/v1"
	tracepb "go.opentelemetry.io/proto/otlp/trace/v1"
	"google.golang.org/protobuf/proto"

	"github.com/duelogic/duelogic/engine"
	"github.com/duelogic/duelogic/store/pgstore"
	"github.com/duelogic/duelogic/store/pgstore/pgtest"
)

// otlpReceiver plays an OTLP/HTTP collector: it decodes the protobuf
// bodies posted to /v1/traces and /v1/metrics (and accepts /v1/logs) and
// keeps the spans and metrics.
type otlpReceiver struct {
	*httptest.Server

	mu      sync.Mutex
	spans   []*tracepb.Span
	metrics []*metricspb.Metric
	logs    int
}

func newReceiver(t *testing.T) *otlpReceiver {
	r := &otlpReceiver{}
	handle := func(req, resp proto.Message, keep func(proto.Message)) http.HandlerFunc {
		return func(w http.ResponseWriter, hr *http.Request) {
			body, err := io.ReadAll(hr.Body)
			if err == nil {
				err = proto.Unmarshal(body, req)
			}
			if err != nil || hr.Header.Get("Content-Type") != "application/x-protobuf" {
				t.Errorf("%s: %s: %v", hr.URL.Path, hr.Header.Get("Content-Type"), err)
				http.Error(w, "bad request", http.StatusBadRequest)
				return
			}
			r.mu.Lock()
			keep(req)
			proto.Reset(req)
			r.mu.Unlock()
			out, _ := proto.Marshal(resp)
			w.Header().Set("Content-Type", "application/x-protobuf")
			w.Write(out)
		}
	}
	mux := http.NewServeMux()
	mux.Handle("POST /v1/traces", handle(&coltrace.ExportTraceServiceRequest{}, &coltrace.ExportTraceServiceResponse{}, func(m proto.Message) {
		for _, rs := range m.(*coltrace.ExportTraceServiceRequest).ResourceSpans {
			for _, ss := range rs.ScopeSpans {
				r.spans = append(r.spans, ss.Spans...)
			}
		}
	}))
	mux.Handle("POST /v1/metrics", handle(&colmetrics.ExportMetricsServiceRequest{}, &colmetrics.ExportMetricsServiceResponse{}, func(m proto.Message) {
		for _, rm := range m.(*colmetrics.ExportMetricsServiceRequest).ResourceMetrics {
			for _, sm := range rm.ScopeMetrics {
				r.metrics = append(r.metrics, sm.Metrics...)
			}
		}
	}))
	mux.Handle("POST /v1/logs", handle(&collogs.ExportLogsServiceRequest{}, &collogs.ExportLogsServiceResponse{}, func(m proto.Message) {
		for _, rl := range m.(*collogs.ExportLogsServiceRequest).ResourceLogs {
			for _, sl := range rl.ScopeLogs {
				r.logs += len(sl.LogRecords)
			}
		}
	}))
	r.Server = httptest.NewServer(mux)
	t.Cleanup(r.Close)
	return r
}

func attr(kvs []*commonpb.KeyValue, key string) *commonpb.AnyValue {
	for _, kv := range kvs {
		if kv.Key == key {
			return kv.Value
		}
	}
	return nil
}

// The worker with -otlp exports, for each debate it plays, the span of its
// attempt and a child "chat" span per model call carrying
// gen_ai.conversation.id = the debate's ID, whose input tokens add up to
// what the debate stored; the token usage metric counts every call; with
// -price each debate stores what it cost.
func TestWorkerExportsOTLP(t *testing.T) {
	dsn := pgtest.SchemaDSN(t, "worker_test")
	ids := enqueue(t, dsn)
	recv := newReceiver(t)
	out := &lineWriter{ch: make(chan string, 100)}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	done := make(chan error, 1)
	go func() {
		done <- run(ctx, []string{"-dsn", dsn, "-stub", "-concurrency", "4", "-id", "test", "-otlp", recv.URL, "-price", "*=1000/2000"}, out, io.Discard, noEnv)
	}()
	verdicts := 0
	timeout := time.After(time.Minute)
	for verdicts < len(ids) {
		select {
		case l := <-out.ch:
			f := strings.Fields(l)
			switch {
			case len(f) >= 2 && f[0] == "verdict":
				verdicts++
			case len(f) >= 2 && (f[0] == "failed" || f[0] == "retry"):
				t.Fatalf("worker: %s", l)
			}
		case err := <-done:
			t.Fatalf("the worker stopped: %v", err)
		case <-timeout:
			t.Fatalf("%d verdicts after a minute; want %d", verdicts, len(ids))
		}
	}
	cancel()
	if err := <-done; err != nil {
		t.Fatalf("the worker stopped with %v", err)
	}
	st, err := pgstore.Open(context.Background(), dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()

	recv.mu.Lock()
	defer recv.mu.Unlock()
	debates := map[string]*tracepb.Span{}
	chats := map[string][]*tracepb.Span{}
	for _, sp := range recv.spans {
		id := attr(sp.Attributes, "gen_ai.conversation.id").GetStringValue()
		switch {
		case sp.Name == "debate":
			if debates[id] != nil {
				t.Errorf("two debate spans of %s", id)
			}
			debates[id] = sp
		case strings.HasPrefix(sp.Name, "chat "):
			chats[id] = append(chats[id], sp)
		default:
			t.Errorf("unexpected span %q", sp.Name)
		}
	}
	total := 0
	for id := range ids {
		recs, err := st.Records(context.Background(), id)
		if err != nil {
			t.Fatal(err)
		}
		e, ok, err := engine.EventOf(recs[len(recs)-1])
		if !ok || err != nil {
			t.Fatalf("%s: last record %s: %v", id, recs[len(recs)-1].Type, err)
		}
		end, err := engine.DataAs[engine.Ended](e)
		if err != nil {
			t.Fatal(err)
		}
		if want := (engine.Price{Input: 1000, Output: 2000}).Cost(end.Usage); end.Cost == 0 || math.Abs(end.Cost-want) > 1e-9 {
			t.Errorf("%s cost %v; want %v at -price", id, end.Cost, want)
		}
		d := debates[id]
		if d == nil {
			t.Errorf("%s: no debate span", id)
			continue
		}
		if f := attr(d.Attributes, "duelogic.format").GetStringValue(); f != end.Format {
			t.Errorf("%s: debate span's format %q; want %q", id, f, end.Format)
		}
		var input int64
		cut := 0
		for _, c := range chats[id] {
			input += attr(c.Attributes, "gen_ai.usage.input_tokens").GetIntValue()
			if attr(c.Attributes, "error.type") != nil {
				cut++ // a speech cut by an interruption: its stream was cancelled
			}
			if hex.EncodeToString(c.ParentSpanId) != hex.EncodeToString(d.SpanId) || hex.EncodeToString(c.TraceId) != hex.EncodeToString(d.TraceId) {
				t.Errorf("%s: span %q is not a child of the debate span", id, c.Name)
				break
			}
		}
		// A cut speech's cancelled call reports no usage, so its span
		// carries none, while the debate stores the speech's estimate:
		// with cuts, the spans count less than the store.
		if len(chats[id]) == 0 || cut == 0 && input != int64(end.Usage.PromptTokens) || cut > 0 && input >= int64(end.Usage.PromptTokens) {
			t.Errorf("%s: %d chat spans (%d cut) of %d input tokens; the debate stored %d", id, len(chats[id]), cut, input, end.Usage.PromptTokens)
		}
		total += len(chats[id]) - cut
	}
	if n := len(chats[""]); n > 0 {
		t.Errorf("%d chat spans without a conversation ID", n)
	}
	var calls uint64
	for _, m := range recv.metrics {
		if m.Name != "gen_ai.client.token.usage" {
			continue
		}
		for _, dp := range m.GetHistogram().GetDataPoints() {
			if attr(dp.Attributes, "gen_ai.token.type").GetStringValue() == "input" {
				calls += dp.Count
			}
		}
	}
	if int(calls) != total {
		t.Errorf("gen_ai.client.token.usage counts %d calls; %d chat spans with usage", calls, total)
	}
}
