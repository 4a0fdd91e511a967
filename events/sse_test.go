package events_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/duelogic/duelogic"
	"github.com/duelogic/duelogic/engine"
	"github.com/duelogic/duelogic/events"
	"github.com/duelogic/duelogic/llm"
	"github.com/duelogic/duelogic/llm/llmtest"
	"github.com/duelogic/duelogic/store"
)

// gated is the stub model that answers nothing until open is closed.
type gated struct {
	*llm.Stub
	open chan struct{}
}

func newGated() *gated { return &gated{Stub: llm.NewStub(3), open: make(chan struct{})} }

func (g *gated) wait(ctx context.Context) error {
	select {
	case <-g.open:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

func (g *gated) Complete(ctx context.Context, req llm.Request) (llm.Response, error) {
	if err := g.wait(ctx); err != nil {
		return llm.Response{}, err
	}
	return g.Stub.Complete(ctx, req)
}

func (g *gated) Stream(ctx context.Context, req llm.Request, onDelta func(string) error) (llm.Response, error) {
	if err := g.wait(ctx); err != nil {
		return llm.Response{}, err
	}
	return g.Stub.Stream(ctx, req, onDelta)
}

// sseServer serves SSE for the debates of hub and st.
func sseServer(t *testing.T, h *events.Hub, st store.Store) *httptest.Server {
	mux := http.NewServeMux()
	mux.Handle("/debates/{id}/events", &events.SSE{Hub: h, Store: st, Retry: 10 * time.Millisecond})
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	return srv
}

// get opens the event stream of id, after the event ID last (0: none).
func get(t testing.TB, ctx context.Context, srv *httptest.Server, id string, last int64) *http.Response {
	t.Helper()
	resp, err := open(ctx, srv, id, last)
	if err != nil {
		t.Fatal(err)
	}
	return resp
}

func open(ctx context.Context, srv *httptest.Server, id string, last int64) (*http.Response, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, srv.URL+"/debates/"+id+"/events", nil)
	if err != nil {
		return nil, err
	}
	if last > 0 {
		req.Header.Set("Last-Event-ID", strconv.FormatInt(last, 10))
	}
	return srv.Client().Do(req)
}

// readAll reads a whole stream.
func readAll(t testing.TB, resp *http.Response) []sseEvent {
	t.Helper()
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("status %s", resp.Status)
	}
	if ct := resp.Header.Get("Content-Type"); ct != "text/event-stream" {
		t.Errorf("Content-Type %q", ct)
	}
	evs, _, err := readSSE(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return evs
}

// checkTokens checks that each run of tokens belongs to the utterance that
// follows it.
func checkTokens(t testing.TB, es []engine.Event, whole bool) {
	t.Helper()
	var run []engine.Event
	for _, e := range es {
		switch e.Type {
		case engine.EventToken:
			run = append(run, e)
			continue
		case engine.EventUtterance:
			var text strings.Builder
			if e.Utterance.Cut {
				// Cut off mid-turn: the tokens may run past the cut
				// (the check ended after the speaker moved on); what
				// stands is the content, up to the dash.
				for _, tok := range run {
					text.WriteString(tok.Delta)
				}
				if said := strings.TrimSuffix(e.Utterance.Content, engine.CutMark); whole && !strings.HasPrefix(strings.TrimSpace(text.String()), said) {
					t.Errorf("tokens of cut utterance %d = %q; want them to begin with %q", e.Seq, text.String(), said)
				}
				run = nil
				continue
			}
			for _, tok := range run {
				if tok.Speaker != e.Speaker || !strings.Contains(e.Utterance.Content, strings.TrimSpace(tok.Delta)) {
					t.Errorf("token %q of %s before utterance %d of %s: %q", tok.Delta, tok.Speaker, e.Seq, e.Speaker, e.Utterance.Content)
					return
				}
				text.WriteString(tok.Delta)
			}
			if whole && e.Utterance.Model != "" && strings.TrimSpace(text.String()) != e.Utterance.Content {
				t.Errorf("tokens of utterance %d = %q; want its content %q", e.Seq, text.String(), e.Utterance.Content)
			}
		default:
			if len(run) > 0 {
				t.Errorf("tokens followed by %s %d, not by their utterance", e.Type, e.Seq)
			}
		}
		run = nil
	}
}

func TestSSEStreamsWholeDebateLive(t *testing.T) {
	ctx := t.Context()
	// A buffer the whole debate fits in: the client is never dropped.
	h, st := events.NewHub(1<<14), store.NewMemory()
	srv := sseServer(t, h, st)
	g := newGated()
	h.Open("d1")
	done := make(chan error, 1)
	p := podcast(t, nil)
	go func() {
		_, err := engine.Run(ctx, g, p, engine.Debate{ID: "d1", Proposition: proposition}, engine.WithStore(st), engine.WithSink(h))
		h.Close("d1", err)
		done <- err
	}()
	resp := get(t, ctx, srv, "d1", 0) // subscribed once the headers are in
	close(g.open)
	got := decode(t, readAll(t, resp))
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	if diff := diffEvents(replayed(t, st, "d1", 0), nonTokens(got)); diff != "" {
		t.Errorf("streamed events (-records +streamed):\n%s", diff)
	}
	checkTokens(t, got, true)
	if n := len(got) - len(nonTokens(got)); n < 100 {
		t.Errorf("%d tokens streamed; want the whole debate's", n)
	}
}

func TestSSEReplaysAfterLastEventID(t *testing.T) {
	ctx := t.Context()
	h, st := events.NewHub(0), store.NewMemory()
	srv := sseServer(t, h, st)
	runDebate(t, ctx, "d1", llm.NewStub(2), st, h, nil)
	all := replayed(t, st, "d1", 0)
	last := all[len(all)-1].Seq
	for _, after := range []int64{0, 1, 2, last / 2, last - 1} {
		t.Run(fmt.Sprint(after), func(t *testing.T) {
			evs := readAll(t, get(t, ctx, srv, "d1", after))
			if diff := diffEvents(replayed(t, st, "d1", after), decode(t, evs)); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}

// TestSSEAfterTheEnd: a client that has seen debate_ended gets 204, which
// tells an EventSource to stop reconnecting.
func TestSSEAfterTheEnd(t *testing.T) {
	ctx := t.Context()
	h, st := events.NewHub(0), store.NewMemory()
	srv := sseServer(t, h, st)
	runDebate(t, ctx, "d1", llm.NewStub(2), st, h, nil)
	all := replayed(t, st, "d1", 0)
	resp := get(t, ctx, srv, "d1", all[len(all)-1].Seq)
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusNoContent {
		t.Errorf("status %s, want 204 No Content", resp.Status)
	}
}

// TestSSEReconnectingClientsSeeEveryEventOnce races clients joining at many
// points, and being dropped by a hub with tiny buffers, against a debate
// running at full speed: each client, reconnecting with its Last-Event-ID
// like an EventSource, must see every announced record once, in order.
func TestSSEReconnectingClientsSeeEveryEventOnce(t *testing.T) {
	ctx := t.Context()
	h, st := events.NewHub(4), store.NewMemory()
	srv := sseServer(t, h, st)

	type client struct {
		got   []engine.Event
		conns int
	}
	var (
		wg      sync.WaitGroup
		mu      sync.Mutex
		clients []*client
	)
	follow := func() {
		c := &client{}
		mu.Lock()
		clients = append(clients, c)
		mu.Unlock()
		wg.Go(func() {
			var last int64
			for c.conns < 1000 {
				c.conns++
				resp, err := open(ctx, srv, "d1", last)
				if err != nil {
					t.Error(err)
					return
				}
				evs, _, err := readSSE(resp.Body)
				resp.Body.Close()
				if err != nil {
					t.Error(err)
					return
				}
				for _, e := range decode(t, evs) {
					c.got = append(c.got, e)
					if e.Type != engine.EventToken {
						last = max(last, e.Seq)
					}
					if e.Type == engine.EventDebateEnded {
						return
					}
				}
				if len(evs) > 0 && evs[len(evs)-1].Type == events.StoppedEvent {
					t.Errorf("stopped: %s", evs[len(evs)-1].Data)
					return
				}
			}
		})
	}
	h.Open("d1")
	follow()
	joinAt := map[int64]bool{2: true, 5: true, 9: true, 14: true, 20: true, 27: true}
	sink := engine.SinkFunc(func(_ context.Context, e engine.Event) {
		if e.Type != engine.EventToken && joinAt[e.Seq] {
			follow()
		}
	})
	runDebate(t, ctx, "d1", llm.NewStub(5), st, events.FanOut(h, sink), func(c *duelogic.Config) { c.Flow.MaxExchanges = 4 })
	wg.Wait()

	want := replayed(t, st, "d1", 0)
	conns := 0
	for i, c := range clients {
		conns += c.conns
		if diff := diffEvents(want, nonTokens(c.got)); diff != "" {
			t.Errorf("client %d (%d connections) (-records +seen):\n%s", i, c.conns, diff)
		}
		checkTokens(t, c.got, false)
	}
	t.Logf("%d clients, %d connections", len(clients), conns)
}

func TestSSEStoppedDebates(t *testing.T) {
	ctx := t.Context()
	h, st := events.NewHub(0), store.NewMemory()
	srv := sseServer(t, h, st)

	// A debate whose model fails at the first opening, watched live.
	f := llmtest.New()
	f.OnPurpose(duelogic.PurposeOpening).Fail(errors.New("model down"))
	h.Open("fail")
	resp := get(t, ctx, srv, "fail", 0)
	_, runErr := engine.Run(ctx, f, podcast(t, nil), engine.Debate{ID: "fail", Proposition: "Will it fail?"},
		engine.WithStore(st), engine.WithSink(h))
	if runErr == nil {
		t.Fatal("debate did not fail")
	}
	h.Close("fail", runErr)
	evs := readAll(t, resp)
	stop := evs[len(evs)-1]
	wantStop := sseEvent{Type: events.StoppedEvent, Data: fmt.Sprintf(`{"debateId":"fail","error":%q}`, runErr.Error())}
	if diff := cmp.Diff(wantStop, stop); diff != "" {
		t.Errorf("last event (-want +got):\n%s", diff)
	}
	if diff := diffEvents(replayed(t, st, "fail", 0), nonTokens(decode(t, evs))); diff != "" {
		t.Errorf("(-records +streamed):\n%s", diff)
	}

	// Later, nobody runs it: the records, then stopped without an error.
	evs = readAll(t, get(t, ctx, srv, "fail", 0))
	if diff := cmp.Diff(sseEvent{Type: events.StoppedEvent, Data: `{"debateId":"fail"}`}, evs[len(evs)-1]); diff != "" {
		t.Errorf("last event (-want +got):\n%s", diff)
	}
	if diff := diffEvents(replayed(t, st, "fail", 0), decode(t, evs)); diff != "" {
		t.Errorf("(-records +streamed):\n%s", diff)
	}
}

func TestSSERequestErrors(t *testing.T) {
	h, st := events.NewHub(0), store.NewMemory()
	runDebate(t, t.Context(), "d1", llm.NewStub(1), st, h, nil)
	// "bad": a debate whose third record cannot be read.
	for i, r := range records(t, st, "d1")[:4] {
		r.DebateID = "bad"
		if i == 2 {
			r.Data = json.RawMessage(`[]`)
		}
		if err := st.Append(t.Context(), r); err != nil {
			t.Fatal(err)
		}
	}
	h.Open("starting") // known to the hub, nothing stored yet
	srv := sseServer(t, h, st)
	tests := []struct {
		method, id, lastID string
		want               int
	}{
		{http.MethodGet, "nope", "", http.StatusNotFound},
		{http.MethodGet, "bad", "", http.StatusInternalServerError},
		{http.MethodHead, "starting", "", http.StatusOK},
		{http.MethodGet, "d1", "x", http.StatusBadRequest},
		{http.MethodGet, "d1", "-3", http.StatusBadRequest},
		{http.MethodPost, "d1", "", http.StatusMethodNotAllowed},
		{http.MethodHead, "d1", "", http.StatusOK},
	}
	for _, tt := range tests {
		t.Run(tt.method+" "+tt.id+" "+tt.lastID, func(t *testing.T) {
			req, _ := http.NewRequest(tt.method, srv.URL+"/debates/"+tt.id+"/events", nil)
			if tt.lastID != "" {
				req.Header.Set("Last-Event-ID", tt.lastID)
			}
			resp, err := srv.Client().Do(req)
			if err != nil {
				t.Fatal(err)
			}
			resp.Body.Close()
			if resp.StatusCode != tt.want {
				t.Errorf("status %d; want %d", resp.StatusCode, tt.want)
			}
		})
	}
}

// recorder is a ResponseWriter for handlers run inside a synctest bubble;
// while hold is open, writes block.
type recorder struct {
	mu     sync.Mutex
	header http.Header
	buf    bytes.Buffer
	hold   chan struct{}
}

func (r *recorder) Header() http.Header { return r.header }
func (r *recorder) WriteHeader(int)     {}
func (r *recorder) Flush()              {}
func (r *recorder) Write(p []byte) (int, error) {
	if r.hold != nil {
		<-r.hold
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.buf.Write(p)
}
func (r *recorder) String() string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.buf.String()
}

// serve runs the handler for debate id in a goroutine; cancel ends it.
func serve(h *events.SSE, w http.ResponseWriter, id string) (cancel func(), done chan struct{}) {
	ctx, cancel := context.WithCancel(context.Background())
	req := httptest.NewRequestWithContext(ctx, http.MethodGet, "/debates/"+id+"/events", nil)
	req.SetPathValue("id", id)
	done = make(chan struct{})
	go func() {
		defer close(done)
		h.ServeHTTP(w, req)
	}()
	return cancel, done
}

func TestSSEHeartbeatAndCancel(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		hub, st := events.NewHub(0), store.NewMemory()
		hub.Open("d")
		w := &recorder{header: http.Header{}}
		cancel, done := serve(&events.SSE{Hub: hub, Store: st, Heartbeat: time.Second}, w, "d")
		time.Sleep(2500 * time.Millisecond)
		synctest.Wait()
		_, comments, _ := readSSE(strings.NewReader(w.String()))
		if diff := cmp.Diff([]string{"heartbeat", "heartbeat"}, comments); diff != "" {
			t.Errorf("comments after 2.5 heartbeats (-want +got):\n%s", diff)
		}
		cancel()
		<-done // the handler returns; synctest fails on a leaked goroutine
		if got := w.header.Get("Content-Type"); got != "text/event-stream" {
			t.Errorf("Content-Type %q", got)
		}
	})
}

func TestSSESlowClientIsDroppedNotWaitedFor(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ctx := context.Background()
		hub, st := events.NewHub(2), store.NewMemory()
		hub.Open("d")
		w := &recorder{header: http.Header{}}
		_, done := serve(&events.SSE{Hub: hub, Store: st, Heartbeat: -1}, w, "d")
		synctest.Wait() // subscribed, headers written
		w.hold = make(chan struct{})
		hub.Emit(ctx, engine.Event{DebateID: "d", Type: engine.EventToken, Delta: "a"})
		synctest.Wait() // the handler is stuck writing it
		for range 5 {
			hub.Emit(ctx, engine.Event{DebateID: "d", Type: engine.EventToken, Delta: "b"}) // never blocks
		}
		close(w.hold)
		<-done // dropped: the stream ends for the client to reconnect
		evs, _, _ := readSSE(strings.NewReader(w.String()))
		var types []string
		for _, e := range evs {
			types = append(types, e.Type)
		}
		if diff := cmp.Diff([]string{"token", "token", "token"}, types); diff != "" {
			t.Errorf("events (-want +got):\n%s", diff)
		}
	})
}
