package events

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/duelogic/duelogic/engine"
	"github.com/duelogic/duelogic/store"
)

// DefaultHeartbeat is how often [SSE] writes a comment line to an idle
// stream when its Heartbeat is 0, so that proxies keep the connection open.
const DefaultHeartbeat = 15 * time.Second

// DefaultWriteTimeout bounds each write of [SSE] when its WriteTimeout is 0.
const DefaultWriteTimeout = 30 * time.Second

// StoppedEvent is the SSE event type [SSE] sends, before it ends the stream,
// when a debate stops without its debate_ended event: it failed, was
// cancelled, or is not running. Its data is a JSON object
// {"debateId": "...", "error": "..."} (error absent when unknown). A client
// should stop listening (EventSource.close) when it receives it, or after
// debate_ended.
const StoppedEvent = "stopped"

// SSE is an [http.Handler] that streams one debate's events as Server-Sent
// Events (text/event-stream): each event's "event:" is its type, its "data:"
// the event as JSON, and its "id:" the Seq of the record it announces (token
// events have no id). A GET for a debate first replays from the store every
// record after the request's Last-Event-ID header (all of them without the
// header) as the events that announced them ([engine.Replay]: the very
// events the hub heard live, Time and Data included), then continues with the
// hub's live events, skipping those already replayed, so that a browser's
// EventSource that
// reconnects after a network fault, or after the hub dropped it for being
// slow, resumes without a gap or a duplicate. The stream ends after the
// debate_ended event, with a [StoppedEvent] when the debate stops or is not
// running, or when the request's context is done. While idle it writes a
// comment line every Heartbeat. Each event is flushed as soon as no other
// is waiting to be written.
//
// It serves debates of every format alike.
//
// Answers: 404 when the store does not hold the debate and the hub does not
// know it, 400 for a malformed Last-Event-ID, 405 for a method other than GET
// or HEAD, 500 when the store fails or holds records that cannot be read.
type SSE struct {
	// Hub gives the live events; Store the records to replay. Both are
	// required.
	Hub   *Hub
	Store store.Store
	// DebateID names the debate of a request; nil: r.PathValue("id").
	DebateID func(r *http.Request) string
	// Heartbeat is the interval of the comment lines; 0: DefaultHeartbeat;
	// negative: none.
	Heartbeat time.Duration
	// Retry, when positive, is sent as the stream's "retry:" field: how long
	// a browser waits before it reconnects.
	Retry time.Duration
	// WriteTimeout bounds each write to the client, so that a client that
	// stops reading is let go; 0: DefaultWriteTimeout; negative: none.
	WriteTimeout time.Duration
	// Logger receives the store errors and unreadable records; nil: none.
	Logger *slog.Logger
}

// ServeHTTP streams the debate's events; see [SSE].
func (s *SSE) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodGet && r.Method != http.MethodHead {
		w.Header().Set("Allow", "GET, HEAD")
		http.Error(w, "method not allowed", http.StatusMethodNotAllowed)
		return
	}
	id := r.PathValue("id")
	if s.DebateID != nil {
		id = s.DebateID(r)
	}
	after, err := lastEventID(r.Header.Get("Last-Event-ID"))
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	ctx := r.Context()
	// Subscribe before reading the store, so that every event announced
	// after the read reaches the subscription.
	sub := s.Hub.Subscribe(id)
	defer sub.Close()
	recs, err := s.Store.Records(ctx, id)
	if errors.Is(err, store.ErrNotFound) && sub.Live() {
		err = nil // starting: its first record is on its way
	}
	var replay []engine.Event // what the records announced, exactly as live
	if err == nil {
		replay, err = engine.Replay(recs)
	}
	switch {
	case errors.Is(err, store.ErrNotFound), id == "", errors.Is(err, store.ErrInvalidID):
		http.Error(w, "debate not found", http.StatusNotFound)
		return
	case err != nil:
		if s.Logger != nil {
			s.Logger.Error("events: read debate records", "debate", id, "err", err)
		}
		http.Error(w, "cannot read the debate", http.StatusInternalServerError)
		return
	}
	if n := len(recs); n > 0 && recs[n-1].Type == engine.RecordDebateEnded && recs[n-1].Seq <= after {
		// The client has seen the end: 204 tells an EventSource to stop
		// reconnecting.
		w.WriteHeader(http.StatusNoContent)
		return
	}
	h := w.Header()
	h.Set("Content-Type", "text/event-stream")
	h.Set("Cache-Control", "no-cache")
	h.Set("X-Accel-Buffering", "no")
	w.WriteHeader(http.StatusOK)
	if r.Method == http.MethodHead {
		return
	}
	st := &stream{w: bufio.NewWriter(w), rc: http.NewResponseController(w), timeout: s.WriteTimeout}
	if st.timeout == 0 {
		st.timeout = DefaultWriteTimeout
	}
	if s.Retry > 0 {
		fmt.Fprintf(st.w, "retry: %d\n\n", s.Retry.Milliseconds())
	}
	if st.flush() != nil {
		return
	}

	// Replay the stored records the client has not seen. The records after
	// the hub's last event before the subscription are announced later, on
	// the subscription (unless the engine does not announce them); tokens
	// that come before those announcements belong to utterances replayed
	// here, so tokens are held back until the expected announcements are in
	// (or a newer event shows they never will be).
	var stored int64
	if n := len(recs); n > 0 {
		stored = recs[n-1].Seq
	}
	expected := map[int64]bool{}
	for _, e := range replay {
		if sub.Live() && e.Seq > sub.Last() {
			expected[e.Seq] = true
		}
		if e.Seq <= after {
			continue
		}
		if st.event(e) != nil {
			return
		}
		if e.Type == engine.EventDebateEnded {
			st.flush()
			return
		}
	}
	if st.flush() != nil {
		return
	}
	replayed := max(stored, after)

	var tick <-chan time.Time
	if hb := s.heartbeat(); hb > 0 {
		t := time.NewTicker(hb)
		defer t.Stop()
		tick = t.C
	}
	var held []engine.Event
	for {
		// Flush once nothing else is waiting: a burst of tokens goes out in
		// one write, a lone event at once.
		if st.w.Buffered() > 0 && len(sub.Events()) == 0 && st.flush() != nil {
			return
		}
		select {
		case <-ctx.Done():
			return
		case <-tick:
			if st.comment("heartbeat") != nil {
				return
			}
		case e, ok := <-sub.Events():
			if !ok {
				err := sub.Err()
				if errors.Is(err, ErrSlowSubscriber) {
					st.flush()
					return // the client reconnects and catches up from the store
				}
				st.stopped(id, err)
				return
			}
			switch {
			case e.Transient():
				if len(expected) > 0 {
					held = append(held, e)
					continue
				}
			case e.Seq <= replayed:
				if expected[e.Seq] {
					// Held tokens came before a replayed record's
					// announcement: they were replayed with it.
					delete(expected, e.Seq)
					held = held[:0]
				}
				continue
			default:
				clear(expected)
				for _, t := range held {
					if st.event(t) != nil {
						return
					}
				}
				held = held[:0]
			}
			if st.event(e) != nil {
				return
			}
			if e.Type == engine.EventDebateEnded {
				st.flush()
				return
			}
		}
	}
}

func (s *SSE) heartbeat() time.Duration {
	if s.Heartbeat == 0 {
		return DefaultHeartbeat
	}
	return s.Heartbeat
}

// lastEventID parses a Last-Event-ID header: "" is 0.
func lastEventID(v string) (int64, error) {
	v = strings.TrimSpace(v)
	if v == "" {
		return 0, nil
	}
	n, err := strconv.ParseInt(v, 10, 64)
	if err != nil || n < 0 {
		return 0, fmt.Errorf("malformed Last-Event-ID %q: want a record sequence number", v)
	}
	return n, nil
}

// stream writes SSE fields to a client.
type stream struct {
	w       *bufio.Writer
	rc      *http.ResponseController
	timeout time.Duration
	id      int64 // the last id written
}

// event writes e (unflushed). An event that does not encode (Data that is
// not JSON, which no engine event has) is left out.
func (st *stream) event(e engine.Event) error {
	data, err := json.Marshal(e)
	if err != nil {
		return nil
	}
	// IDs only grow, so that a reconnect never asks for what the client
	// has, even behind a sink that reorders events.
	if !e.Transient() && e.Seq > st.id {
		st.id = e.Seq
		fmt.Fprintf(st.w, "id: %d\n", e.Seq)
	}
	fmt.Fprintf(st.w, "event: %s\ndata: %s\n\n", sseField(string(e.Type)), data)
	if st.w.Buffered() >= 32<<10 {
		return st.flush()
	}
	return nil
}

func (st *stream) comment(text string) error {
	fmt.Fprintf(st.w, ": %s\n\n", text)
	return st.flush()
}

func (st *stream) stopped(id string, err error) {
	v := struct {
		DebateID string `json:"debateId"`
		Error    string `json:"error,omitempty"`
	}{DebateID: id}
	if err != nil {
		v.Error = err.Error()
	}
	data, _ := json.Marshal(v)
	fmt.Fprintf(st.w, "event: %s\ndata: %s\n\n", StoppedEvent, data)
	st.flush()
}

// flush sends what is buffered to the client within the write timeout.
func (st *stream) flush() error {
	if st.timeout > 0 {
		// Not every ResponseWriter supports deadlines; without one the
		// request's context still ends the stream. A connection's write
		// deadline is an instant of the operating system's clock, so this
		// reads the wall clock, not the debate's injected one; it paces
		// the network only and reaches no prompt, stub answer or record.
		_ = st.rc.SetWriteDeadline(time.Now().Add(st.timeout))
	}
	if err := st.w.Flush(); err != nil {
		return err
	}
	if err := st.rc.Flush(); err != nil && !errors.Is(err, http.ErrNotSupported) {
		return err
	}
	return nil
}

// sseField keeps a value on one line.
func sseField(s string) string {
	return strings.NewReplacer("\r", " ", "\n", " ").Replace(s)
}
