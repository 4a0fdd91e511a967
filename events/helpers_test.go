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
	"github.com/duelogic/duelogic/engine"
	"github.com/duelogic/duelogic/events"
	"github.com/duelogic/duelogic/llm"
	"github.com/duelogic/duelogic/store"
)

const proposition = "Should cities ban cars from their centres?"

// collector is a sink that keeps every event.
type collector struct {
	mu     sync.Mutex
	events []engine.Event
}

func (c *collector) Emit(_ context.Context, e engine.Event) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.events = append(c.events, e)
}

func (c *collector) all() []engine.Event {
	c.mu.Lock()
	defer c.mu.Unlock()
	return append([]engine.Event(nil), c.events...)
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

// podcast is the podcast format for testConfig(mod).
func podcast(t testing.TB, mod func(*duelogic.Config)) *duelogic.Podcast {
	t.Helper()
	p, err := duelogic.NewPodcast(testConfig(mod))
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// runDebate runs a podcast debate with id into st through engine.Run, with
// sink (nil: none) and opts.
func runDebate(t testing.TB, ctx context.Context, id string, client llm.Client, st store.Store, sink engine.EventSink, mod func(*duelogic.Config), opts ...engine.Option) *engine.Result[*duelogic.Outcome] {
	t.Helper()
	opts = append([]engine.Option{engine.WithStore(st)}, opts...)
	if sink != nil {
		opts = append(opts, engine.WithSink(sink))
	}
	res, err := engine.Run(ctx, client, podcast(t, mod), engine.Debate{ID: id, Proposition: proposition}, opts...)
	if err != nil {
		t.Fatal(err)
	}
	return res
}

// records reads the records of debate id.
func records(t testing.TB, st store.Store, id string) []store.Record {
	t.Helper()
	recs, err := st.Records(context.Background(), id)
	if err != nil {
		t.Fatal(err)
	}
	return recs
}

// replayed is what the records of debate id after seq after announced.
func replayed(t testing.TB, st store.Store, id string, after int64) []engine.Event {
	t.Helper()
	all, err := engine.Replay(records(t, st, id))
	if err != nil {
		t.Fatal(err)
	}
	var out []engine.Event
	for _, e := range all {
		if e.Seq > after {
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

// decode turns SSE events back into engine events (skipping others),
// checking their SSE fields.
func decode(t testing.TB, evs []sseEvent) []engine.Event {
	t.Helper()
	var out []engine.Event
	for _, se := range evs {
		if se.Type == events.StoppedEvent || se.Data == "" {
			continue
		}
		var e engine.Event
		if err := json.Unmarshal([]byte(se.Data), &e); err != nil {
			t.Errorf("event %q: %v", se.Data, err)
			continue
		}
		if se.Type != string(e.Type) {
			t.Errorf("event: %q, data type %q", se.Type, e.Type)
		}
		if e.Type != engine.EventToken && se.ID != strconv.FormatInt(e.Seq, 10) {
			t.Errorf("event %s seq %d has id %q", e.Type, e.Seq, se.ID)
		}
		if e.Type == engine.EventToken && se.ID != "" {
			t.Errorf("token event has id %q", se.ID)
		}
		out = append(out, e)
	}
	return out
}

// nonTokens drops token events.
func nonTokens(es []engine.Event) []engine.Event {
	var out []engine.Event
	for _, e := range es {
		if e.Type != engine.EventToken {
			out = append(out, e)
		}
	}
	return out
}

// pinned is a fixed clock, so that two runs of a debate give equal events.
func pinned() time.Time { return time.Date(2026, 3, 2, 10, 0, 0, 0, time.UTC) }
