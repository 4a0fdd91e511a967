package events_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"

	"github.com/duelogic/duelogic"
	"github.com/duelogic/duelogic/engine"
	"github.com/duelogic/duelogic/events"
	"github.com/duelogic/duelogic/llm"
	"github.com/duelogic/duelogic/store"
)

// quickPodcast is a short podcast debate without evaluations or
// interruptions.
func quickPodcast() *duelogic.Podcast {
	cfg := duelogic.DefaultConfig()
	cfg.Flow.MaxExchanges = 3
	cfg.Arbiter.AccountabilityLevel = duelogic.Relaxed
	cfg.Interruptions.Enabled = false
	p, err := duelogic.NewPodcast(cfg)
	if err != nil {
		panic(err)
	}
	return p
}

// Ranging over a debate: each utterance as it is said, then the podcast's
// metrics, from the outcome the debate_ended event carries.
func ExampleRunFormat() {
	ctx := context.Background()
	d := engine.Debate{Proposition: "Should cities ban cars from their centres?"}
	for e, err := range events.RunFormat(ctx, llm.NewStub(1), quickPodcast(), d, engine.WithClock(pinned)) {
		if err != nil {
			fmt.Println("stopped:", err)
			return
		}
		switch e.Type {
		case engine.EventUtterance:
			fmt.Printf("%s: %s\n", e.Speaker, e.Utterance.Kind)
		case engine.EventDebateEnded:
			ended, err := engine.DataAs[engine.Ended](e)
			if err != nil {
				panic(err)
			}
			var out duelogic.Outcome
			if err := json.Unmarshal(ended.Detail, &out); err != nil {
				panic(err)
			}
			fmt.Println(ended.Format, "responses:", out.Metrics.Responses)
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
	// duelogic responses: 6
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

	d := engine.Debate{ID: "cars", Proposition: "Should cities ban cars from their centres?"}
	if _, err := engine.Run(ctx, llm.NewStub(1), quickPodcast(), d,
		engine.WithStore(st), engine.WithSink(hub), engine.WithClock(pinned)); err != nil {
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
	segments := engine.SinkFunc(func(_ context.Context, e engine.Event) {
		if e.Type == engine.EventSegmentStarted {
			fmt.Println("==", e.Segment)
		}
	})
	sink := events.FanOut(segments, events.Slog(logger, slog.LevelInfo))
	sink.Emit(context.Background(), engine.Event{Type: engine.EventSegmentStarted, DebateID: "d1", Seq: 2, Segment: duelogic.SegmentOpening})
	// Output:
	// == opening
	// level=INFO msg="duelogic event" debate=d1 type=segment_started seq=2 segment=opening
}

// Turning a debate's stored records back into the events announced live,
// and summarizing it.
func ExampleFromRecord() {
	ctx := context.Background()
	st := store.NewMemory()
	d := engine.Debate{ID: "cars", Proposition: "Should cities ban cars from their centres?"}
	if _, err := engine.Run(ctx, llm.NewStub(1), quickPodcast(), d, engine.WithStore(st), engine.WithClock(pinned)); err != nil {
		panic(err)
	}
	recs, err := st.Records(ctx, "cars")
	if err != nil {
		panic(err)
	}
	for _, rec := range recs[:6] {
		if e, ok := events.FromRecord(rec); ok {
			fmt.Println(strings.TrimSpace(fmt.Sprint(e.Seq, " ", e.Time.Format("15:04"), " ", e.Type, " ", e.Segment, " ", e.Speaker)))
		}
	}
	s, err := events.Summarize(recs)
	if err != nil {
		panic(err)
	}
	fmt.Println(s.Format, s.Status, s.Utterances, "utterances,", s.Records, "records")
	// Output:
	// 1 10:00 debate_started
	// 2 10:00 segment_started introduction
	// 3 10:00 utterance introduction arbiter
	// 4 10:00 segment_ended introduction
	// 5 10:00 segment_started opening
	// 6 10:00 utterance opening chair_1
	// duelogic finished 10 utterances, 26 records
}
