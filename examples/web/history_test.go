package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/duelogic/duelogic/engine"
	"github.com/duelogic/duelogic/llm"
	"github.com/duelogic/duelogic/store"
)

// smallDebate plays the cheapest debate the server offers, a one-round
// moderated debate without checkpoints or argument map, on a memory store
// and returns its records.
func smallDebate(tb testing.TB) []store.Record {
	tb.Helper()
	st := store.NewMemory()
	s := newServer(llm.NewStub(1), st, nil)
	hs := httptest.NewServer(s.routes())
	defer func() {
		hs.Close()
		s.shutdown(0)
	}()
	body := `{"proposition": "Should we use Redis or PostgreSQL for caching?", "checkpoints": false, "argumentMap": false, "config": {"maxRounds": 1}}`
	resp, err := http.Post(hs.URL+"/api/debates/moderated", "application/json", strings.NewReader(body))
	if err != nil {
		tb.Fatal(err)
	}
	var created struct {
		ID string `json:"id"`
	}
	err = json.NewDecoder(resp.Body).Decode(&created)
	resp.Body.Close()
	if err != nil || resp.StatusCode != http.StatusCreated {
		tb.Fatalf("POST: %d, %v", resp.StatusCode, err)
	}
	s.wg.Wait()
	recs, err := st.Records(context.Background(), created.ID)
	if err != nil {
		tb.Fatal(err)
	}
	if recs[len(recs)-1].Type != engine.RecordDebateEnded {
		tb.Fatalf("the small debate ends with a %s record", recs[len(recs)-1].Type)
	}
	return recs
}

// appendAs appends recs to st as debate id's, shifted by shift in time.
func appendAs(tb testing.TB, st store.Store, id string, recs []store.Record, shift time.Duration) {
	tb.Helper()
	for _, r := range recs {
		r.DebateID, r.Time = id, r.Time.Add(shift)
		if err := st.Append(context.Background(), r); err != nil {
			tb.Fatal(err)
		}
	}
}

// utterances counts recs' utterances.
func utterances(recs []store.Record) int {
	n := 0
	for _, r := range recs {
		if r.Type == engine.RecordUtterance {
			n++
		}
	}
	return n
}

// countingStore counts the Records calls of each debate.
type countingStore struct {
	store.Store
	mu    sync.Mutex
	reads map[string]int
}

func (c *countingStore) Records(ctx context.Context, id string) ([]store.Record, error) {
	c.mu.Lock()
	c.reads[id]++
	c.mu.Unlock()
	return c.Store.Records(ctx, id)
}

// take returns the counts since the last take and zeroes them.
func (c *countingStore) take() map[string]int {
	c.mu.Lock()
	defer c.mu.Unlock()
	r := c.reads
	c.reads = map[string]int{}
	return r
}

// listed is GET /api/debates on s as "id status utterances" lines.
func listed(t *testing.T, s *server) []string {
	t.Helper()
	w := httptest.NewRecorder()
	s.routes().ServeHTTP(w, httptest.NewRequest("GET", "/api/debates", nil))
	var items []debateItem
	if err := json.Unmarshal(w.Body.Bytes(), &items); err != nil || w.Code != http.StatusOK {
		t.Errorf("GET /api/debates: %d %s", w.Code, w.Body)
		return nil
	}
	var got []string
	for _, it := range items {
		got = append(got, fmt.Sprintf("%s %s %d", it.ID, it.Status, it.Utterances))
		if it.Format != "moderated" || it.Proposition == "" || it.Started.IsZero() || it.Updated.Before(it.Started) {
			t.Errorf("%s: %+v", it.ID, it)
		}
	}
	return got
}

// TestHistoryKeepsFinishedDebates: the history reads a finished debate's
// records once, and every other debate's on each listing, so a debate that
// finishes, or starts running here, shows it at once; a debate it cannot
// read is left out with a warning each time.
func TestHistoryKeepsFinishedDebates(t *testing.T) {
	recs := smallDebate(t)
	n, cut := utterances(recs), len(recs)/2 // b stops halfway
	st := &countingStore{Store: store.NewMemory(), reads: map[string]int{}}
	appendAs(t, st, "a", recs, 0)
	appendAs(t, st, "b", recs[:cut], time.Minute)
	// c's log does not start with a debate record.
	if err := st.Append(context.Background(), store.Record{DebateID: "c", Seq: 1, Time: recs[0].Time, Type: "note", Data: json.RawMessage(`{}`)}); err != nil {
		t.Fatal(err)
	}
	var logs bytes.Buffer
	s := newServer(llm.NewStub(1), st, slog.New(slog.NewTextHandler(&logs, nil)))
	defer s.shutdown(0)
	half := fmt.Sprint(utterances(recs[:cut]))

	steps := []struct {
		name   string
		before func()
		want   []string
		reads  map[string]int
	}{
		{"first listing reads every debate", nil,
			[]string{"b stopped " + half, fmt.Sprint("a finished ", n)}, map[string]int{"a": 1, "b": 1, "c": 1}},
		{"the finished one is not read again", nil,
			[]string{"b stopped " + half, fmt.Sprint("a finished ", n)}, map[string]int{"b": 1, "c": 1}},
		{"a debate running here shows running, finished or not", func() {
			s.mu.Lock()
			s.runs["a"], s.runs["b"] = &debateRun{}, &debateRun{}
			s.mu.Unlock()
		}, []string{"b running " + half, fmt.Sprint("a running ", n)}, map[string]int{"b": 1, "c": 1}},
		{"b finishes: it shows finished at once", func() {
			appendAs(t, st, "b", recs[cut:], time.Minute)
			s.mu.Lock()
			delete(s.runs, "a")
			delete(s.runs, "b")
			s.mu.Unlock()
		}, []string{fmt.Sprint("b finished ", n), fmt.Sprint("a finished ", n)}, map[string]int{"b": 1, "c": 1}},
		{"then b is not read again either", nil,
			[]string{fmt.Sprint("b finished ", n), fmt.Sprint("a finished ", n)}, map[string]int{"c": 1}},
	}
	for _, step := range steps {
		if step.before != nil {
			step.before()
		}
		logs.Reset()
		got := listed(t, s)
		if diff := cmp.Diff(step.want, got); diff != "" {
			t.Errorf("%s: history (-want +got):\n%s", step.name, diff)
		}
		if diff := cmp.Diff(step.reads, st.take()); diff != "" {
			t.Errorf("%s: Records calls (-want +got):\n%s", step.name, diff)
		}
		if !strings.Contains(logs.String(), "list debates: unreadable debate") || !strings.Contains(logs.String(), "debate=c") {
			t.Errorf("%s: no warning of c in the log:\n%s", step.name, logs.String())
		}
	}
	if k := s.finished.len(); k != 2 {
		t.Errorf("%d finished debates kept; want 2", k)
	}
}

// TestHistoryBound: beyond its bound the server keeps the most recently
// started finished debates and reads the older ones on each listing.
func TestHistoryBound(t *testing.T) {
	recs := smallDebate(t)
	tests := []struct {
		name  string
		max   int
		debs  int
		reads map[string]int // on the second listing
	}{
		{"all kept", 4, 4, map[string]int{}},
		{"the two oldest read again", 2, 4, map[string]int{"d0": 1, "d1": 1}},
		{"the oldest read again", 3, 4, map[string]int{"d0": 1}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			st := &countingStore{Store: store.NewMemory(), reads: map[string]int{}}
			for i := range tt.debs {
				appendAs(t, st, fmt.Sprint("d", i), recs, time.Duration(i)*time.Hour)
			}
			s := newServer(llm.NewStub(1), st, nil)
			defer s.shutdown(0)
			s.finished.max = tt.max
			first := listed(t, s)
			st.take()
			if second := listed(t, s); !cmp.Equal(first, second) {
				t.Errorf("second listing %q; first %q", second, first)
			}
			if diff := cmp.Diff(tt.reads, st.take()); diff != "" {
				t.Errorf("Records calls of the second listing (-want +got):\n%s", diff)
			}
			if k := s.finished.len(); k != min(tt.max, tt.debs) {
				t.Errorf("%d kept; want %d", k, min(tt.max, tt.debs))
			}
		})
	}
}

// TestFinishedItems: the cache keeps the items listed first (started
// last, then by ID), whatever the order they come in.
func TestFinishedItems(t *testing.T) {
	at := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	item := func(id string, hour int) debateItem {
		return debateItem{ID: id, Status: statusFinished, Started: at.Add(time.Duration(hour) * time.Hour)}
	}
	tests := []struct {
		name string
		add  []debateItem
		kept []string
	}{
		{"under the bound", []debateItem{item("a", 1), item("b", 2)}, []string{"a", "b"}},
		{"newest kept", []debateItem{item("a", 1), item("b", 2), item("c", 3), item("d", 4)}, []string{"b", "c", "d"}},
		{"newest kept, backwards", []debateItem{item("d", 4), item("c", 3), item("b", 2), item("a", 1)}, []string{"b", "c", "d"}},
		{"shuffled", []debateItem{item("c", 3), item("a", 1), item("e", 5), item("b", 2), item("d", 4)}, []string{"c", "d", "e"}},
		{"same start: by ID", []debateItem{item("z", 1), item("y", 1), item("x", 1), item("w", 1)}, []string{"w", "x", "y"}},
		{"added twice", []debateItem{item("a", 1), item("a", 1), item("b", 2), item("c", 3)}, []string{"a", "b", "c"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := finishedItems{max: 3}
			for _, it := range tt.add {
				c.add(it)
			}
			var kept []string
			for _, id := range []string{"a", "b", "c", "d", "e", "w", "x", "y", "z"} {
				if _, ok := c.get(id); ok {
					kept = append(kept, id)
				}
			}
			if !cmp.Equal(tt.kept, kept) || c.len() != len(tt.kept) || len(c.oldest) != len(tt.kept) {
				t.Errorf("kept %q (%d, heap %d); want %q", kept, c.len(), len(c.oldest), tt.kept)
			}
		})
	}
}

// TestHistoryConcurrent lists the history from several requests at once
// while debates finish (run it with -race).
func TestHistoryConcurrent(t *testing.T) {
	recs := smallDebate(t)
	st := store.NewMemory()
	for i := range 20 {
		appendAs(t, st, fmt.Sprintf("d%02d", i), recs[:len(recs)-1], time.Duration(i)*time.Minute)
	}
	s := newServer(llm.NewStub(1), st, nil)
	defer s.shutdown(0)
	var wg sync.WaitGroup
	for range 4 {
		wg.Go(func() {
			for range 5 {
				if got := listed(t, s); len(got) != 20 {
					t.Errorf("%d debates listed; want 20", len(got))
				}
			}
		})
	}
	for i := range 20 {
		appendAs(t, st, fmt.Sprintf("d%02d", i), recs[len(recs)-1:], time.Duration(i)*time.Minute)
	}
	wg.Wait()
	for _, line := range listed(t, s) {
		if !strings.Contains(line, " finished ") {
			t.Errorf("after every debate finished: %s", line)
		}
	}
}

// TestHistoryCancelled: a listing whose request is gone stops reading.
func TestHistoryCancelled(t *testing.T) {
	recs := smallDebate(t)
	st := &countingStore{Store: store.NewMemory(), reads: map[string]int{}}
	for i := range 3 {
		appendAs(t, st, fmt.Sprint("d", i), recs, 0)
	}
	s := newServer(llm.NewStub(1), st, nil)
	defer s.shutdown(0)
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	if items, err := s.listItems(ctx, []string{"d0", "d1", "d2"}); !errors.Is(err, context.Canceled) || items != nil {
		t.Errorf("listItems: %v, %v; want context.Canceled", items, err)
	}
	if k := s.finished.len(); k != 0 {
		t.Errorf("%d kept from a cancelled listing", k)
	}
}
