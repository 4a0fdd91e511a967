package events_test

import (
	"bufio"
	"context"
	"encoding/json"
	"io"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/duelogic/duelogic"
	"github.com/duelogic/duelogic/events"
	"github.com/duelogic/duelogic/llm"
	"github.com/duelogic/duelogic/store"
)

// collector is a sink that keeps every event.
type collector struct {
	mu     sync.Mutex
	events []duelogic.Event
}

func (c *collector) Emit(_ context.Context, e duelogic.Event) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.events = append(c.events, e)
}

func (c *collector) all() []duelogic.Event {
	c.mu.Lock()
	defer c.mu.Unlock()
	return append([]duelogic.Event(nil), c.events...)
}

// testConfig is a short Duelogic debate.
func testConfig(mod func(*duelogic.Config)) duelogic.Config {
	cfg := duelogic.DefaultConfig()
	cfg.Flow.MaxExchanges = 3
	if mod != nil {
		mod(&cfg)
	}
	return cfg
}

// runDebate runs a stub debate with id into st, with sink.
func runDebate(t testing.TB, ctx context.Context, id string, client llm.Client, st store.Store, sink duelogic.EventSink, mod func(*duelogic.Config)) *duelogic.Result {
	t.Helper()
	o, err := duelogic.New(testConfig(mod), client, duelogic.WithStore(st), duelogic.WithSink(sink))
	if err != nil {
		t.Fatal(err)
	}
	res, err := o.Run(ctx, duelogic.Debate{ID: id, Proposition: "Should cities ban cars from their centres?"})
	if err != nil {
		t.Fatal(err)
	}
	return res
}

// replayed is what FromRecord makes of a debate's records after seq after.
func replayed(t testing.TB, st store.Store, id string, after int64) []duelogic.Event {
	t.Helper()
	recs, err := st.Records(context.Background(), id)
	if err != nil {
		t.Fatal(err)
	}
	var out []duelogic.Event
	for _, r := range recs {
		if e, ok := events.FromRecord(r); ok && r.Seq > after {
			out = append(out, e)
		}
	}
	return out
}

// sseEvent is one event read off a text/event-stream.
type sseEvent struct {
	ID, Type, Data string
}

// readSSE parses a text/event-stream until EOF, returning the events and
// the comment lines.
func readSSE(r io.Reader) (evs []sseEvent, comments []string, err error) {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 64<<10), 4<<20)
	var cur sseEvent
	var has bool
	for sc.Scan() {
		line := sc.Text()
		switch {
		case line == "":
			if has {
				evs = append(evs, cur)
			}
			cur, has = sseEvent{}, false
		case strings.HasPrefix(line, ":"):
			comments = append(comments, strings.TrimSpace(line[1:]))
		default:
			field, value, _ := strings.Cut(line, ":")
			value = strings.TrimPrefix(value, " ")
			switch field {
			case "id":
				cur.ID, has = value, true
			case "event":
				cur.Type, has = value, true
			case "data":
				cur.Data, has = value, true
			}
		}
	}
	return evs, comments, sc.Err()
}

// decode turns SSE events back into duelogic events (skipping others).
func decode(t testing.TB, evs []sseEvent) []duelogic.Event {
	t.Helper()
	var out []duelogic.Event
	for _, se := range evs {
		if se.Type == events.StoppedEvent || se.Data == "" {
			continue
		}
		var e duelogic.Event
		if err := json.Unmarshal([]byte(se.Data), &e); err != nil {
			t.Errorf("event %q: %v", se.Data, err)
			continue
		}
		if se.Type != string(e.Type) {
			t.Errorf("event: %q, data type %q", se.Type, e.Type)
		}
		if e.Type != duelogic.EventToken && se.ID != strconv.FormatInt(e.Seq, 10) {
			t.Errorf("event %s seq %d has id %q", e.Type, e.Seq, se.ID)
		}
		if e.Type == duelogic.EventToken && se.ID != "" {
			t.Errorf("token event has id %q", se.ID)
		}
		out = append(out, e)
	}
	return out
}

// jsonOf marshals events for comparison: the JSON a client sees, without
// times.
func jsonOf(t testing.TB, es []duelogic.Event) []string {
	t.Helper()
	out := make([]string, len(es))
	for i, e := range es {
		e.Time = time.Time{}
		b, err := json.Marshal(e)
		if err != nil {
			t.Fatal(err)
		}
		out[i] = string(b)
	}
	return out
}

// nonTokens drops token events.
func nonTokens(es []duelogic.Event) []duelogic.Event {
	var out []duelogic.Event
	for _, e := range es {
		if e.Type != duelogic.EventToken {
			out = append(out, e)
		}
	}
	return out
}
