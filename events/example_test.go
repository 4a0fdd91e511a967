package events_test

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"time"

	"github.com/duelogic/duelogic"
	"github.com/duelogic/duelogic/events"
	"github.com/duelogic/duelogic/llm"
	"github.com/duelogic/duelogic/store"
)

// pinned is the examples' clock, so they print the same on any day.
func pinned() time.Time { return time.Date(2026, 3, 2, 10, 0, 0, 0, time.UTC) }

// quickConfig is a short debate without evaluations or interruptions.
func quickConfig() duelogic.Config {
	cfg := duelogic.DefaultConfig()
	cfg.Flow.MaxExchanges = 3
	cfg.Arbiter.AccountabilityLevel = duelogic.Relaxed
	cfg.Interruptions.Enabled = false
	return cfg
}

// Ranging over a debate: each utterance as it is said, then the metrics.
func ExampleRun() {
	ctx := context.Background()
	debate := func(ctx context.Context, sink duelogic.EventSink) (*duelogic.Result, error) {
		o, err := duelogic.New(quickConfig(), llm.NewStub(1), duelogic.WithSink(sink), duelogic.WithClock(pinned))
		if err != nil {
			return nil, err
		}
		return o.Run(ctx, duelogic.Debate{Proposition: "Should cities ban cars from their centres?"})
	}
	for e, err := range events.Run(ctx, debate) {
		if err != nil {
			fmt.Println("stopped:", err)
			return
		}
		switch e.Type {
		case duelogic.EventUtterance:
			fmt.Printf("%s: %s\n", e.Speaker, e.Utterance.Kind)
		case duelogic.EventDebateEnded:
			fmt.Println("responses:", e.Result.Metrics.Responses)
		}
	}
	// Output:
	// arbiter: introduction
	// chair_1: opening
	// chair_2: opening
	// chair_1: response
	// chair_2: response
	// chair_1: response
	// chair_2: response
	// chair_1: response
	// chair_2: response
	// arbiter: closing
	// responses: 6
}

// Serving a debate's events to browsers: the hub hears the debate, the SSE
// handler streams it. Here a client reads a finished debate, replayed from
// the store.
func ExampleSSE() {
	ctx := context.Background()
	hub, st := events.NewHub(0), store.NewMemory()
	mux := http.NewServeMux()
	mux.Handle("GET /api/debates/{id}/events", &events.SSE{Hub: hub, Store: st})
	srv := httptest.NewServer(mux)
	defer srv.Close()

	o, err := duelogic.New(quickConfig(), llm.NewStub(1), duelogic.WithStore(st), duelogic.WithSink(hub), duelogic.WithClock(pinned))
	if err != nil {
		panic(err)
	}
	if _, err := o.Run(ctx, duelogic.Debate{ID: "cars", Proposition: "Should cities ban cars from their centres?"}); err != nil {
		panic(err)
	}

	req, _ := http.NewRequest("GET", srv.URL+"/api/debates/cars/events", nil)
	req.Header.Set("Last-Event-ID", "23") // a reconnecting browser's last event
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		panic(err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	for _, line := range strings.Split(string(body), "\n") {
		if strings.HasPrefix(line, "id:") || strings.HasPrefix(line, "event:") {
			fmt.Println(line)
		}
	}
	// Output:
	// id: 24
	// event: utterance
	// id: 25
	// event: segment_ended
	// id: 26
	// event: debate_ended
}

// Sending events to the terminal and to a log at once.
func ExampleFanOut() {
	logger := slog.New(slog.NewTextHandler(os.Stdout, &slog.HandlerOptions{
		ReplaceAttr: func(_ []string, a slog.Attr) slog.Attr {
			if a.Key == slog.TimeKey {
				return slog.Attr{}
			}
			return a
		},
	}))
	segments := duelogic.SinkFunc(func(_ context.Context, e duelogic.Event) {
		if e.Type == duelogic.EventSegmentStarted {
			fmt.Println("==", e.Segment)
		}
	})
	sink := events.FanOut(segments, events.Slog(logger, slog.LevelInfo))
	sink.Emit(context.Background(), duelogic.Event{Type: duelogic.EventSegmentStarted, DebateID: "d1", Seq: 2, Segment: duelogic.SegmentOpening})
	// Output:
	// == opening
	// level=INFO msg="duelogic event" debate=d1 type=segment_started seq=2 segment=opening
}

// Turning a debate's stored records back into events.
func ExampleFromRecord() {
	ctx := context.Background()
	st := store.NewMemory()
	o, err := duelogic.New(quickConfig(), llm.NewStub(1), duelogic.WithStore(st), duelogic.WithClock(pinned))
	if err != nil {
		panic(err)
	}
	if _, err := o.Run(ctx, duelogic.Debate{ID: "cars", Proposition: "Should cities ban cars from their centres?"}); err != nil {
		panic(err)
	}
	recs, err := st.Records(ctx, "cars")
	if err != nil {
		panic(err)
	}
	for _, rec := range recs[:6] {
		if e, ok := events.FromRecord(rec); ok {
			fmt.Println(strings.TrimSpace(fmt.Sprint(e.Seq, " ", e.Type, " ", e.Segment, " ", e.Speaker)))
		}
	}
	s, _ := events.Summarize(recs)
	fmt.Println(s.Format, s.Status, s.Utterances, "utterances")
	// Output:
	// 1 debate_started
	// 2 segment_started introduction
	// 3 utterance introduction arbiter
	// 4 segment_ended introduction
	// 5 segment_started opening
	// 6 utterance opening chair_1
	// duelogic finished 10 utterances
}
