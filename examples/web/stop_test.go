package main

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/duelogic/duelogic"
	"github.com/duelogic/duelogic/engine"
	"github.com/duelogic/duelogic/llm"
	"github.com/duelogic/duelogic/store"
)

// stopAnswer is the answer of POST /api/debates/{id}/stop.
type stopAnswer struct {
	ID     string `json:"id"`
	Format string `json:"format"`
	Status string `json:"status"`
	Error  string `json:"error"`
}

// TestStopDebate: a podcast running here, stopped from the page while a
// response is being generated, stops at once: 202, its run returns, what
// it said stays, and it shows as stopped on request. Stopped, it cannot be
// stopped again; resumed, it finishes with the verdict of the same debate
// played unbroken.
func TestStopDebate(t *testing.T) {
	const body = `{"proposition": "Should cities ban cars?", "config": {"flow": {"maxExchanges": 3}}}`
	g := newGate(duelogic.PurposeResponse)
	s, hs := testServer(t, g)
	id := create(t, hs.URL, "duelogic", body)
	<-g.reached // the openings are said; the first response waits
	before := getView(t, hs.URL, id)
	if before.Status != statusRunning || len(before.Transcript) == 0 {
		t.Fatalf("before the stop: status %s, %d utterances; want running, some", before.Status, len(before.Transcript))
	}

	var got stopAnswer
	if code := call(t, "POST", hs.URL+"/api/debates/"+id+"/stop", "", &got); code != http.StatusAccepted {
		t.Fatalf("POST stop: %d %+v; want 202", code, got)
	}
	want := stopAnswer{ID: id, Format: "duelogic", Status: statusStopped, Error: errStopRequested.Error()}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("stop answer (-want +got):\n%s", diff)
	}
	if s.running(id) != nil {
		t.Error("the run is still under way after the stop's answer")
	}
	after := getView(t, hs.URL, id)
	if after.Status != statusStopped || after.Error != errStopRequested.Error() {
		t.Errorf("after the stop: status %s, error %q; want stopped, %q", after.Status, after.Error, errStopRequested)
	}
	if n := len(before.Transcript); len(after.Transcript) < n || !cmp.Equal(before.Transcript, after.Transcript[:n]) {
		t.Errorf("after the stop the transcript has %d utterances; want the %d said before it, kept", len(after.Transcript), n)
	}
	var list []debateItem
	call(t, "GET", hs.URL+"/api/debates", "", &list)
	if len(list) != 1 || list[0].Status != statusStopped {
		t.Errorf("history %+v; want the debate stopped", list)
	}
	if code, e := post(t, hs.URL+"/api/debates/"+id+"/stop", ""); code != http.StatusConflict || !strings.Contains(e.Error, "stopped already") {
		t.Errorf("stop again: %d %q; want 409 saying it is stopped already", code, e.Error)
	}

	close(g.open)
	if code := call(t, "POST", hs.URL+"/api/debates/"+id+"/resume", "", nil); code != http.StatusAccepted {
		t.Fatalf("resume: %d", code)
	}
	if types := eventTypes(t, hs.URL+"/api/debates/"+id+"/events"); types[len(types)-1] != "debate_ended" {
		t.Errorf("resumed stream ends with %q", types[len(types)-1])
	}
	s.wg.Wait()
	resumed := getView(t, hs.URL, id)
	if resumed.Status != statusFinished || resumed.Error != "" || resumed.Verdict == nil {
		t.Fatalf("resumed: status %s, error %q, verdict %v; want finished with a verdict", resumed.Status, resumed.Error, resumed.Verdict)
	}

	s2, hs2 := testServer(t, llm.NewStub(1))
	unbroken := create(t, hs2.URL, "duelogic", body)
	s2.wg.Wait()
	whole := getView(t, hs2.URL, unbroken)
	if whole.Verdict == nil || *resumed.Verdict != *whole.Verdict {
		t.Errorf("verdict after a stop and a resume %+v; want the unbroken debate's %+v", resumed.Verdict, whole.Verdict)
	}
	if code, e := post(t, hs.URL+"/api/debates/"+id+"/stop", ""); code != http.StatusConflict || !strings.Contains(e.Error, "finished") {
		t.Errorf("stop a finished debate: %d %q; want 409 saying it is finished", code, e.Error)
	}
}

// TestStopRefuses: a stop of a debate that is not running.
func TestStopRefuses(t *testing.T) {
	g := newGate("")
	st := store.NewMemory()
	s := newServer(g, st, nil)
	hs := serve(t, s)
	// A podcast stopped by a shutdown.
	stopped := create(t, hs.URL, "duelogic", `{"proposition": "Stopped?", "config": {"flow": {"maxExchanges": 3}}}`)
	<-g.reached
	s.shutdown(0)
	s = newServer(llm.NewStub(1), st, nil)
	hs = serve(t, s)
	finished := create(t, hs.URL, "scored", `{"proposition": "Finished?"}`)
	s.wg.Wait()
	paused := create(t, hs.URL, "moderated", `{"proposition": "Should we use Redis or PostgreSQL for caching?"}`)
	s.wg.Wait()

	tests := []struct {
		name, id string
		code     int
		want     string
	}{
		{"unknown", "nope", http.StatusNotFound, "no debate nope"},
		{"invalid ID", ".hidden", http.StatusNotFound, "no debate .hidden"},
		{"finished", finished, http.StatusConflict, "debate " + finished + " is not running: it is finished"},
		{"paused for its person", paused, http.StatusConflict, "debate " + paused + " is not running: it is paused for its person: " +
			"it waits for an answer to its checkpoint question (POST /api/debates/" + paused + "/checkpoint)"},
		{"stopped", stopped, http.StatusConflict, "debate " + stopped + " is not running: it is stopped already (POST /api/debates/" +
			stopped + "/resume continues it)"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			code, got := post(t, hs.URL+"/api/debates/"+tt.id+"/stop", "")
			if code != tt.code || got.Error != tt.want {
				t.Errorf("POST stop: %d %q; want %d %q", code, got.Error, tt.code, tt.want)
			}
		})
	}
}

// TestStopMeetsTheRunsEnd: a stop that reaches a run as it ends by itself
// answers with what the run came to, and the debate keeps the status its
// run gave it.
func TestStopMeetsTheRunsEnd(t *testing.T) {
	f, err := engine.Open("scored", nil)
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name    string
		ends    func(ctx context.Context) error // what the run returns once stopped
		code    int
		want    string // the answer's error, or the debate's
		errText string // the debate's error after
	}{
		{"stopped", func(ctx context.Context) error { return ctx.Err() }, http.StatusAccepted,
			errStopRequested.Error(), errStopRequested.Error()},
		{"finished", func(context.Context) error { return nil }, http.StatusConflict,
			"debate d1 finished before the stop reached it", ""},
		{"paused", func(context.Context) error { return errWaitForPage }, http.StatusConflict,
			"debate d1 paused for its person before the stop reached it", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s, hs := testServer(t, llm.NewStub(1))
			if err := s.store.Append(t.Context(), store.Record{DebateID: "d1", Seq: 1, Type: "debate_started", Data: []byte("null")}); err != nil {
				t.Fatal(err)
			}
			// The run returns as the stop reaches it, with what it came to.
			err := s.launch(engine.Debate{ID: "d1", Proposition: "Why?"}, f, func(ctx context.Context, _ *debateRun, _ []engine.Option) error {
				<-ctx.Done()
				return tt.ends(ctx)
			})
			if err != nil {
				t.Fatal(err)
			}
			var got stopAnswer
			code := call(t, "POST", hs.URL+"/api/debates/d1/stop", "", &got)
			if code != tt.code || got.Error != tt.want {
				t.Errorf("POST stop: %d %q; want %d %q", code, got.Error, tt.code, tt.want)
			}
			s.mu.Lock()
			errText := s.errs["d1"]
			s.mu.Unlock()
			if errText != tt.errText {
				t.Errorf("the debate's error %q; want %q", errText, tt.errText)
			}
		})
	}
}

// TestStopBeforeTheFirstRecord: a debate whose first record is not stored
// yet is not stopped (it would leave nothing to resume).
func TestStopBeforeTheFirstRecord(t *testing.T) {
	f, err := engine.Open("scored", nil)
	if err != nil {
		t.Fatal(err)
	}
	s, hs := testServer(t, llm.NewStub(1))
	release := make(chan struct{})
	unblock := sync.OnceFunc(func() { close(release) })
	defer unblock() // a failed test's run returns too
	err = s.launch(engine.Debate{ID: "d1", Proposition: "Why?"}, f, func(ctx context.Context, _ *debateRun, _ []engine.Option) error {
		select {
		case <-release:
			return nil
		case <-ctx.Done():
			return ctx.Err()
		}
	})
	if err != nil {
		t.Fatal(err)
	}
	code, got := post(t, hs.URL+"/api/debates/d1/stop", "")
	if code != http.StatusConflict || !strings.Contains(got.Error, "is starting") {
		t.Errorf("POST stop: %d %q; want 409 saying it is starting", code, got.Error)
	}
	unblock()
	s.wg.Wait()
	s.mu.Lock()
	errText := s.errs["d1"]
	s.mu.Unlock()
	if errText != "" {
		t.Errorf("the run's error %q; want none: it was not stopped", errText)
	}
}

// TestEnqueueStop: in enqueue mode, a debate a worker plays, stopped from
// the page, has its job cancelled: 202, the worker lets it go, its stream
// ends and it shows as stopped (cancelled); resumed, a worker finishes it
// with the verdict of the same debate played unbroken.
func TestEnqueueStop(t *testing.T) {
	const body = `{"proposition": "Should cities ban cars?", "config": {"flow": {"maxExchanges": 3}}}`
	g := newGate(duelogic.PurposeResponse)
	_, base, _, _ := enqueueServer(t, g)
	for _, tt := range []struct {
		id   string
		code int
	}{{"nope", http.StatusNotFound}, {".hidden", http.StatusNotFound}} {
		if code, e := post(t, base+"/api/debates/"+tt.id+"/stop", ""); code != tt.code {
			t.Errorf("stop %s: %d %q; want %d", tt.id, code, e.Error, tt.code)
		}
	}
	id := create(t, base, "duelogic", body)
	<-g.reached // a worker plays it: the openings are said, the first response waits
	var got stopAnswer
	if code := call(t, "POST", base+"/api/debates/"+id+"/stop", "", &got); code != http.StatusAccepted {
		t.Fatalf("POST stop: %d %+v; want 202", code, got)
	}
	want := stopAnswer{ID: id, Format: "duelogic", Status: statusStopped, Error: "cancelled"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("stop answer (-want +got):\n%s", diff)
	}
	// The page's stream ends once no worker plays the debate.
	if evs := readTimed(t, base+"/api/debates/"+id+"/events"); len(evs) == 0 || evs[len(evs)-1].typ != "stopped" {
		t.Fatalf("the stream ends with %v; want stopped", evs)
	}
	v := getView(t, base, id)
	if v.Status != statusStopped || v.Error != "cancelled" || len(v.Transcript) == 0 {
		t.Errorf("after the stop: status %s, error %q, %d utterances; want stopped, cancelled, the openings kept", v.Status, v.Error, len(v.Transcript))
	}
	if code, e := post(t, base+"/api/debates/"+id+"/stop", ""); code != http.StatusConflict || !strings.Contains(e.Error, "stopped already") {
		t.Errorf("stop again: %d %q; want 409 saying it is stopped already", code, e.Error)
	}

	close(g.open)
	if code, e := post(t, base+"/api/debates/"+id+"/resume", ""); code != http.StatusAccepted {
		t.Fatalf("resume: %d %q", code, e.Error)
	}
	if evs := readTimed(t, base+"/api/debates/"+id+"/events"); len(evs) == 0 || evs[len(evs)-1].typ != "debate_ended" {
		t.Fatalf("the resumed stream ends with %v; want debate_ended", evs)
	}
	resumed := getView(t, base, id)
	s2, hs2 := testServer(t, llm.NewStub(1))
	unbroken := create(t, hs2.URL, "duelogic", body)
	s2.wg.Wait()
	whole := getView(t, hs2.URL, unbroken)
	if resumed.Status != statusFinished || resumed.Verdict == nil || whole.Verdict == nil || *resumed.Verdict != *whole.Verdict {
		t.Errorf("resumed: status %s, verdict %+v; want finished with the unbroken debate's %+v", resumed.Status, resumed.Verdict, whole.Verdict)
	}
	if code, e := post(t, base+"/api/debates/"+id+"/stop", ""); code != http.StatusConflict || !strings.Contains(e.Error, "finished") {
		t.Errorf("stop a finished debate: %d %q; want 409 saying it is finished", code, e.Error)
	}
}

// An answer requeued for a debate a worker has played on since the request
// was read (an answer given twice at once) is a conflict, not a failure.
func TestRequeueAnswerOfADebatePlayedOn(t *testing.T) {
	s, base, _, _ := enqueueServer(t, llm.NewStub(1))
	id := create(t, base, "duelogic", `{"proposition": "Should cities ban cars?", "config": {"flow": {"maxExchanges": 3}}}`)
	if evs := readTimed(t, base+"/api/debates/"+id+"/events"); len(evs) == 0 || evs[len(evs)-1].typ != "debate_ended" {
		t.Fatalf("the stream ends with %v; want debate_ended", evs)
	}
	w := httptest.NewRecorder()
	r := httptest.NewRequest("POST", "/api/debates/"+id+"/approval", nil)
	s.requeue(w, r, id, "duelogic", &answering{a: engine.Answer{Choice: "approve"}})
	if w.Code != http.StatusConflict || !strings.Contains(w.Body.String(), "not waiting for an answer") {
		t.Errorf("requeue with an answer: %d %s; want 409 saying it waits for no answer", w.Code, w.Body)
	}
}
