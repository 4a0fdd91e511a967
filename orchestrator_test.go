package duelogic

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"reflect"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/duelogic/duelogic/argumentation"
	"github.com/duelogic/duelogic/engine"
	"github.com/duelogic/duelogic/engine/enginetest"
	"github.com/duelogic/duelogic/llm"
	"github.com/duelogic/duelogic/store"
	"github.com/duelogic/duelogic/store/storetest"
)

// recorder-style client for tests: it answers through next (the stub by
// default), records every request, and can override answers by purpose.
type testClient struct {
	next     llm.Client
	mu       sync.Mutex
	reqs     []llm.Request
	override map[string]func(llm.Request) (string, error)
}

func newTestClient() *testClient {
	return &testClient{next: llm.NewStub(7), override: map[string]func(llm.Request) (string, error){}}
}

func (c *testClient) on(purpose string, f func(llm.Request) (string, error)) *testClient {
	c.override[purpose] = f
	return c
}

func (c *testClient) Complete(ctx context.Context, req llm.Request) (llm.Response, error) {
	c.mu.Lock()
	c.reqs = append(c.reqs, req)
	f := c.override[req.Purpose]
	c.mu.Unlock()
	if f != nil {
		s, err := f(req)
		if err != nil {
			return llm.Response{}, err
		}
		return llm.Response{Content: s, Model: req.Model, Usage: llm.Usage{PromptTokens: 10, CompletionTokens: 5}}, nil
	}
	return c.next.Complete(ctx, req)
}

func (c *testClient) requests() []llm.Request {
	c.mu.Lock()
	defer c.mu.Unlock()
	return append([]llm.Request(nil), c.reqs...)
}

func (c *testClient) count(purpose string) int {
	n := 0
	for _, r := range c.requests() {
		if r.Purpose == purpose {
			n++
		}
	}
	return n
}

// streamingClient adds llm.Streamer through the stub.
type streamingClient struct{ *testClient }

func (c streamingClient) Stream(ctx context.Context, req llm.Request, onDelta func(string) error) (llm.Response, error) {
	c.mu.Lock()
	c.reqs = append(c.reqs, req)
	c.mu.Unlock()
	return c.next.(llm.Streamer).Stream(ctx, req, onDelta)
}

// eventLog is a sink that keeps every event and checks, as each arrives,
// that the record it announces is already stored.
type eventLog struct {
	mu     sync.Mutex
	st     store.Store
	events []Event
	errs   []string
}

func (l *eventLog) Emit(ctx context.Context, e Event) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.events = append(l.events, e)
	if e.Type == EventToken || l.st == nil {
		return
	}
	recs, err := l.st.Records(ctx, e.DebateID)
	if err != nil || int64(len(recs)) < e.Seq || e.Seq == 0 {
		l.errs = append(l.errs, fmt.Sprintf("%s event seq %d emitted before it was stored (%d records, %v)", e.Type, e.Seq, len(recs), err))
	}
}

func (l *eventLog) types() []EventType {
	l.mu.Lock()
	defer l.mu.Unlock()
	var ts []EventType
	for _, e := range l.events {
		if e.Type != EventToken {
			ts = append(ts, e.Type)
		}
	}
	return ts
}

func shortConfig() Config {
	cfg := DefaultConfig()
	cfg.Flow.MaxExchanges = 3
	cfg.Interruptions.CooldownSeconds = 0
	return cfg
}

var prop = Debate{Proposition: "Should cities ban private cars from their centres?"}

func mustNew(t testing.TB, cfg Config, c llm.Client, opts ...Option) *Orchestrator {
	t.Helper()
	o, err := New(cfg, c, opts...)
	if err != nil {
		t.Fatal(err)
	}
	return o
}

// shape is a transcript without contents and sequence numbers.
type shapeRow struct {
	Speaker  string
	Segment  Segment
	Kind     UtteranceKind
	Exchange int
}

func shape(tr []Utterance) []shapeRow {
	out := make([]shapeRow, len(tr))
	for i, u := range tr {
		out[i] = shapeRow{u.Speaker, u.Segment, u.Kind, u.Exchange}
	}
	return out
}

func TestRunSegmentsAndModels(t *testing.T) {
	cfg, _ := ConfigForPreset("three_way_ethics")
	cfg.Flow.MaxExchanges = 3
	cfg.Interruptions.Enabled = false
	cfg.Mandates.ArbiterCanInterject = false
	c := newTestClient()
	st := store.NewMemory()
	sink := &eventLog{st: st}
	o := mustNew(t, cfg, c, WithStore(st), WithSink(sink))
	res, err := o.Run(context.Background(), prop)
	if err != nil {
		t.Fatal(err)
	}
	var want []shapeRow
	want = append(want, shapeRow{SpeakerArbiter, SegmentIntroduction, KindIntroduction, 0})
	for _, ch := range cfg.Chairs {
		want = append(want, shapeRow{ch.Position, SegmentOpening, KindOpening, 0})
	}
	for x := 1; x <= 3; x++ {
		for _, ch := range cfg.Chairs {
			want = append(want, shapeRow{ch.Position, SegmentExchange, KindResponse, x})
		}
	}
	want = append(want, shapeRow{SpeakerArbiter, SegmentSynthesis, KindClosing, 0})
	if diff := cmp.Diff(want, shape(res.Transcript)); diff != "" {
		t.Errorf("transcript shape (-want +got):\n%s", diff)
	}
	// Every request carries its speaker's model and a known purpose.
	models := map[string]string{PurposeIntroduction: cfg.Arbiter.ModelID, PurposeClosing: cfg.Arbiter.ModelID,
		PurposeEvaluation: cfg.Arbiter.ModelID}
	chairModels := map[string]bool{}
	for _, ch := range cfg.Chairs {
		chairModels[ch.ModelID] = true
	}
	for _, r := range c.requests() {
		switch r.Purpose {
		case PurposeOpening, PurposeResponse:
			if !chairModels[r.Model] {
				t.Errorf("%s request with model %q", r.Purpose, r.Model)
			}
		case PurposeIntroduction, PurposeClosing, PurposeEvaluation:
			if r.Model != models[r.Purpose] {
				t.Errorf("%s request with model %q, want %q", r.Purpose, r.Model, models[r.Purpose])
			}
		default:
			t.Errorf("unexpected purpose %q", r.Purpose)
		}
	}
	for i, u := range res.Transcript {
		if u.Speaker != SpeakerArbiter {
			ch, _ := cfg.chair(u.Speaker)
			if u.Model != ch.ModelID {
				t.Errorf("utterance %d model %q, want %q", i, u.Model, ch.ModelID)
			}
		}
		if u.Kind == KindResponse && u.Evaluation == nil {
			t.Errorf("response %d unevaluated under moderate accountability", i)
		}
	}
	if got := c.count(PurposeEvaluation); got != 9 {
		t.Errorf("%d evaluations, want 9", got)
	}
	if got := c.count(PurposeInterruptCheck); got != 0 {
		t.Errorf("%d interrupt checks with interruptions off", got)
	}
	// Events: persist, then emit; segments bracket their utterances.
	if len(sink.errs) > 0 {
		t.Errorf("persist-then-emit violations:\n%s", strings.Join(sink.errs, "\n"))
	}
	types := sink.types()
	if types[0] != EventDebateStarted || types[len(types)-1] != EventDebateEnded {
		t.Errorf("first/last events %s/%s", types[0], types[len(types)-1])
	}
	starts := 0
	for _, ty := range types {
		if ty == EventSegmentStarted {
			starts++
		}
	}
	if starts != 4 {
		t.Errorf("%d segment_started events, want 4", starts)
	}
	// Usage adds up over speakers.
	var sum llm.Usage
	for _, u := range res.UsageBySpeaker {
		sum = sum.Add(u)
	}
	if sum != res.Usage || res.Usage.PromptTokens == 0 || res.UsageBySpeaker["chair_3"].CompletionTokens == 0 {
		t.Errorf("usage %+v by speaker %+v", res.Usage, res.UsageBySpeaker)
	}
	if res.Detail.Metrics.Responses != 9 || res.Detail.Metrics.Evaluated != 9 {
		t.Errorf("metrics %+v", res.Detail.Metrics)
	}
}

func TestStreamingTokensReachTheSink(t *testing.T) {
	c := streamingClient{newTestClient()}
	sink := &eventLog{}
	o := mustNew(t, shortConfig(), c, WithSink(sink))
	res, err := o.Run(context.Background(), prop)
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	for _, e := range sink.events {
		if e.Type == EventToken && e.Speaker == SpeakerArbiter && e.Segment == SegmentIntroduction {
			b.WriteString(e.Delta)
		}
	}
	if got, want := strings.TrimSpace(b.String()), res.Transcript[0].Content; got != want {
		t.Errorf("intro tokens concatenate to %q, want %q", got, want)
	}
	// A non-streaming client produces no token events.
	plain := &eventLog{}
	if _, err := mustNew(t, shortConfig(), newTestClient(), WithSink(plain)).Run(context.Background(), prop); err != nil {
		t.Fatal(err)
	}
	for _, e := range plain.events {
		if e.Type == EventToken {
			t.Fatal("token event from a client without streaming")
		}
	}
}

const flaggedEval = `{"adherenceScore": 40, "steelManning": {"attempted": false, "quality": "absent"},
 "selfCritique": {"attempted": true, "quality": "strong"}, "frameworkConsistency": {"consistent": true},
 "intellectualHonesty": {"score": "high"}, "requiresInterjection": true, "interjectionReason": "straw man"}`

const weakEval = `{"adherenceScore": 70, "steelManning": {"attempted": true, "quality": "weak"},
 "selfCritique": {"attempted": true, "quality": "strong"}, "frameworkConsistency": {"consistent": true},
 "intellectualHonesty": {"score": "high"}, "requiresInterjection": false}`

func always(s string) func(llm.Request) (string, error) {
	return func(llm.Request) (string, error) { return s, nil }
}

const noInterrupt = `{"shouldInterrupt": false, "urgency": 0.1}`

func TestAccountabilityLevels(t *testing.T) {
	tests := []struct {
		name          string
		level         AccountabilityLevel
		eval          string
		canInterject  bool
		evaluations   int
		interjections int
	}{
		{"relaxed: nothing", Relaxed, flaggedEval, true, 0, 0},
		{"moderate: flagged", Moderate, flaggedEval, true, 6, 6},
		{"moderate: weak but unflagged", Moderate, weakEval, true, 6, 0},
		{"strict: weak", Strict, weakEval, true, 6, 6},
		{"strict: cannot interject", Strict, flaggedEval, false, 6, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cfg := shortConfig()
			cfg.Arbiter.AccountabilityLevel = tt.level
			cfg.Mandates.ArbiterCanInterject = tt.canInterject
			c := newTestClient().on(PurposeEvaluation, always(tt.eval)).on(PurposeInterruptCheck, always(noInterrupt))
			res, err := mustNew(t, cfg, c).Run(context.Background(), prop)
			if err != nil {
				t.Fatal(err)
			}
			if got := c.count(PurposeEvaluation); got != tt.evaluations {
				t.Errorf("%d evaluation calls, want %d", got, tt.evaluations)
			}
			if got := res.Detail.Metrics.Interjections; got != tt.interjections {
				t.Errorf("%d interjections, want %d", got, tt.interjections)
			}
			for i, u := range res.Transcript {
				if u.Kind != KindInterjection {
					continue
				}
				prev := res.Transcript[i-1]
				if u.Target != prev.Speaker || u.ReplyTo != prev.Seq || u.Violation != ViolationStrawManning {
					t.Errorf("interjection %+v does not answer %+v", u, prev)
				}
			}
		})
	}
}

func TestInterjectionPromptNamesViolationAndChair(t *testing.T) {
	cfg := shortConfig()
	c := newTestClient().on(PurposeEvaluation, always(flaggedEval)).on(PurposeInterruptCheck, always(noInterrupt))
	if _, err := mustNew(t, cfg, c).Run(context.Background(), prop); err != nil {
		t.Fatal(err)
	}
	for _, r := range c.requests() {
		if r.Purpose != PurposeInterjection {
			continue
		}
		user := r.Messages[len(r.Messages)-1].Content
		if !strings.Contains(user, "Straw-Manning") || !(strings.Contains(user, "Claude Sonnet 4") || strings.Contains(user, "Grok 3")) {
			t.Fatalf("interjection prompt lacks violation or chair:\n%s", user)
		}
		return
	}
	t.Fatal("no interjection request")
}

// TestInterjectionFollowsItsResponse: as in seed 000's executeExchange, the
// arbiter calls a response out right after it, before the next chair speaks,
// whatever the interruption settings; the next chair's prompt carries it.
func TestInterjectionFollowsItsResponse(t *testing.T) {
	for _, tc := range []struct {
		name                  string
		enabled, allowArbiter bool
	}{
		{"interruptions off", false, false},
		{"arbiter interruptions off", true, false},
		{"arbiter interruptions on", true, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cfg := shortConfig()
			cfg.Interruptions.Enabled = tc.enabled
			cfg.Interruptions.AllowArbiterInterruptions = tc.allowArbiter
			c := newTestClient().on(PurposeEvaluation, always(flaggedEval)).on(PurposeInterruptCheck, always(noInterrupt))
			res, err := mustNew(t, cfg, c).Run(context.Background(), prop)
			if err != nil {
				t.Fatal(err)
			}
			var got []shapeRow
			var interjection string
			for _, u := range res.Transcript {
				if u.Segment == SegmentExchange && u.Exchange == 1 {
					got = append(got, shape([]Utterance{u})...)
					if u.Kind == KindInterjection && interjection == "" {
						interjection = u.Content
					}
				}
			}
			want := []shapeRow{
				{"chair_1", SegmentExchange, KindResponse, 1},
				{SpeakerArbiter, SegmentExchange, KindInterjection, 1},
				{"chair_2", SegmentExchange, KindResponse, 1},
				{SpeakerArbiter, SegmentExchange, KindInterjection, 1},
			}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("exchange 1 (-want +got):\n%s", diff)
			}
			// chair_2's first exchange response is the second response request.
			n := 0
			for _, r := range c.requests() {
				if r.Purpose != PurposeResponse {
					continue
				}
				if n++; n == 2 {
					if !strings.Contains(r.Messages[len(r.Messages)-1].Content, firstLine(interjection)) {
						t.Errorf("chair_2's prompt does not carry the interjection %q", firstLine(interjection))
					}
				}
			}
		})
	}
}

func firstLine(s string) string {
	s, _, _ = strings.Cut(s, "\n")
	if len(s) > 40 {
		s = s[:40]
	}
	return s
}

func interruptBy(pos string, urgency float64) func(llm.Request) (string, error) {
	return always(fmt.Sprintf(`{"shouldInterrupt": true, "interruptingChairPosition": %q, "reason": "pivotal_point", "triggerContent": "the crux", "urgency": %v}`, pos, urgency))
}

func TestInterruptions(t *testing.T) {
	cfg := shortConfig()
	cfg.Mandates.ArbiterCanInterject = false
	c := newTestClient().on(PurposeInterruptCheck, func(r llm.Request) (string, error) {
		// Whoever speaks, the other chair cuts in.
		if strings.Contains(r.Messages[len(r.Messages)-1].Content, "- chair_2:") {
			return interruptBy("chair_2", 0.95)(r)
		}
		return interruptBy("chair_1", 0.95)(r)
	})
	sink := &eventLog{}
	res, err := mustNew(t, cfg, c, WithSink(sink)).Run(context.Background(), prop)
	if err != nil {
		t.Fatal(err)
	}
	// Each chair cuts into the other's every response, and still gives
	// its own response of the round; the client cannot stream, so each
	// response is checked after it is whole and marked, not cut.
	if res.Detail.Metrics.Interruptions != 6 {
		t.Fatalf("%d interruptions, want 6 (cooldown 0)", res.Detail.Metrics.Interruptions)
	}
	for _, ch := range res.Detail.Metrics.ByChair {
		if ch.Responses != 3 {
			t.Errorf("a chair gave %d responses, want 3", ch.Responses)
		}
	}
	for i, u := range res.Transcript {
		if u.Kind != KindInterruption {
			continue
		}
		prev := res.Transcript[i-1]
		if !prev.Interrupted || prev.InterruptedBy != u.Speaker || u.ReplyTo != prev.Seq || prev.Speaker == u.Speaker || prev.Cut {
			t.Errorf("interruption %d does not mark the previous turn, whole: %+v after %+v", i, u, prev)
		}
		if u.Segment != SegmentExchange {
			t.Errorf("interruption outside the exchange: %+v", u)
		}
	}
	for _, r := range c.requests() {
		if r.Purpose == PurposeInterruption {
			if !strings.Contains(r.Messages[1].Content, "<opener>\nAnd this is exactly") &&
				!strings.Contains(r.Messages[1].Content, "<opener>\nThis is where") &&
				!strings.Contains(r.Messages[1].Content, "<opener>\nLet's not") &&
				!strings.Contains(r.Messages[1].Content, "<opener>\nHere's where") {
				t.Errorf("interruption prompt without a pivotal_point opener:\n%s", r.Messages[1].Content)
			}
			break
		}
	}
	n := 0
	for _, e := range sink.events {
		if e.Type == EventInterruption {
			n++
			if e.Data == nil || e.Utterance == nil || !e.Utterance.Interrupted {
				t.Errorf("interruption event %+v", e)
			}
		}
	}
	if n != 6 {
		t.Errorf("%d interruption events", n)
	}
}

func TestInterruptionCooldownOnInjectedClock(t *testing.T) {
	cfg := shortConfig()
	cfg.Mandates.ArbiterCanInterject = false
	cfg.Interruptions.CooldownSeconds = 60
	var mu sync.Mutex
	now := time.Date(2026, 1, 3, 12, 0, 0, 0, time.UTC)
	clock := func() time.Time { mu.Lock(); defer mu.Unlock(); return now }
	advance := func(d time.Duration) { mu.Lock(); now = now.Add(d); mu.Unlock() }
	c := newTestClient().on(PurposeInterruptCheck, func(r llm.Request) (string, error) {
		if strings.Contains(r.Messages[len(r.Messages)-1].Content, "- chair_2:") {
			return interruptBy("chair_2", 0.95)(r)
		}
		return noInterrupt, nil
	})
	// 20 s pass per exchange response, 40 s per exchange: chair_2 interrupts
	// chair_1 in exchange 1, is cooling down in exchange 2 (40 s later),
	// and may again in exchange 3 (80 s later).
	c.on(PurposeResponse, func(llm.Request) (string, error) { advance(20 * time.Second); return "A response.", nil })
	res, err := mustNew(t, cfg, c, WithClock(clock)).Run(context.Background(), prop)
	if err != nil {
		t.Fatal(err)
	}
	var at []int
	for _, u := range res.Transcript {
		if u.Kind == KindInterruption {
			at = append(at, u.Exchange)
		}
	}
	if diff := cmp.Diff([]int{1, 3}, at); diff != "" {
		t.Errorf("interruptions in exchanges (-want +got):\n%s", diff)
	}
}

func TestInterruptionsOff(t *testing.T) {
	for _, edit := range []func(*Config){
		func(c *Config) { c.Interruptions.Enabled = false },
		func(c *Config) {
			c.Interruptions.AllowChairInterruptions, c.Interruptions.AllowArbiterInterruptions = false, false
		},
	} {
		cfg := shortConfig()
		edit(&cfg)
		c := newTestClient().on(PurposeInterruptCheck, interruptBy("chair_2", 1))
		res, err := mustNew(t, cfg, c).Run(context.Background(), prop)
		if err != nil {
			t.Fatal(err)
		}
		if c.count(PurposeInterruptCheck) != 0 || res.Detail.Metrics.Interruptions != 0 {
			t.Errorf("interruptions off: %d checks, %d interruptions", c.count(PurposeInterruptCheck), res.Detail.Metrics.Interruptions)
		}
	}
}

func TestInvalidDebateFailsBeforeAnyCall(t *testing.T) {
	tests := []Debate{
		{Proposition: ""},
		{Proposition: "   \n\t"},
		{Proposition: strings.Repeat("x", MaxPropositionRunes+1)},
		{Proposition: "ok", Context: strings.Repeat("y", MaxContextRunes+1)},
		{Proposition: "ok", ID: "../etc/passwd"},
		{Proposition: "bad \xff utf-8"},
	}
	for _, d := range tests {
		c := newTestClient()
		_, err := mustNew(t, shortConfig(), c).Run(context.Background(), d)
		if !errors.Is(err, ErrInvalidDebate) {
			t.Errorf("Run(%.40q) = %v, want ErrInvalidDebate", d.Proposition, err)
		}
		if n := len(c.requests()); n != 0 {
			t.Errorf("Run(%.40q) made %d model calls", d.Proposition, n)
		}
	}
	// Exactly at the limit is fine.
	c := newTestClient()
	if _, err := mustNew(t, shortConfig(), c).Run(context.Background(), Debate{Proposition: strings.Repeat("é", MaxPropositionRunes)}); err != nil {
		t.Errorf("proposition at the limit: %v", err)
	}
}

func TestRunRejectsExistingID(t *testing.T) {
	o := mustNew(t, shortConfig(), newTestClient())
	d := prop
	d.ID = "same"
	if _, err := o.Run(context.Background(), d); err != nil {
		t.Fatal(err)
	}
	if _, err := o.Run(context.Background(), d); !errors.Is(err, ErrDebateExists) {
		t.Errorf("second Run = %v, want ErrDebateExists", err)
	}
}

func TestManualInterjection(t *testing.T) {
	cfg := shortConfig()
	cfg.Interruptions.Enabled = false
	var o *Orchestrator
	var id string
	c := newTestClient().on(PurposeEvaluation, always(weakEval))
	// While chair_2 gives its opening, a moderator asks the arbiter to step
	// in; the interjection comes at the next turn boundary, before the
	// exchange's first response, aimed at the last chair who spoke.
	c.on(PurposeOpening, func(r llm.Request) (string, error) {
		if r.Model == cfg.Chairs[1].ModelID {
			if err := o.Interject(id, "Define 'centre' before going on.", ""); err != nil {
				t.Error(err)
			}
		}
		return "An opening statement.", nil
	})
	o = mustNew(t, cfg, c, WithSink(SinkFunc(func(_ context.Context, e Event) {})))
	if err := o.Interject("nope", "x", ""); !errors.Is(err, ErrNotRunning) {
		t.Errorf("Interject on an unknown debate = %v", err)
	}
	id = "manual"
	res, err := o.Run(context.Background(), Debate{ID: id, Proposition: prop.Proposition})
	if err != nil {
		t.Fatal(err)
	}
	var got []shapeRow
	for _, u := range res.Transcript[:6] {
		got = append(got, shapeRow{u.Speaker, u.Segment, u.Kind, u.Exchange})
	}
	want := []shapeRow{
		{SpeakerArbiter, SegmentIntroduction, KindIntroduction, 0},
		{"chair_1", SegmentOpening, KindOpening, 0},
		{"chair_2", SegmentOpening, KindOpening, 0},
		{SpeakerArbiter, SegmentExchange, KindInterjection, 0},
		{"chair_1", SegmentExchange, KindResponse, 1},
		{"chair_2", SegmentExchange, KindResponse, 1},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("transcript (-want +got):\n%s", diff)
	}
	u := res.Transcript[3]
	if u.Target != "chair_2" || u.Reason != "Define 'centre' before going on." || u.Violation != ViolationManual || u.ReplyTo != res.Transcript[2].Seq {
		t.Errorf("interjection = %+v", u)
	}
	// Resume replays it in place.
	again, err := mustNew(t, cfg, newTestClient(), WithStore(o.Store())).Resume(context.Background(), id)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(res.Transcript, again.Transcript); diff != "" {
		t.Errorf("resumed (-want +got):\n%s", diff)
	}
}

func TestInterjectValidation(t *testing.T) {
	block := make(chan struct{})
	started := make(chan string, 1)
	c := newTestClient().on(PurposeIntroduction, func(llm.Request) (string, error) { <-block; return "Welcome.", nil })
	sink := SinkFunc(func(_ context.Context, e Event) {
		if e.Type == EventDebateStarted {
			started <- e.DebateID
		}
	})
	o := mustNew(t, shortConfig(), c, WithSink(sink))
	done := make(chan error, 1)
	go func() { _, err := o.Run(context.Background(), prop); done <- err }()
	id := <-started
	for _, tt := range []struct{ reason, target string }{{"", ""}, {strings.Repeat("r", MaxInterjectionReasonRunes+1), ""}, {"ok", "chair_9"}} {
		if err := o.Interject(id, tt.reason, tt.target); err == nil {
			t.Errorf("Interject(%.20q, %q) accepted", tt.reason, tt.target)
		}
	}
	if err := o.Interject(id, "ok", "chair_2"); err != nil {
		t.Error(err)
	}
	// The queue is bounded: the debate is blocked before its first turn
	// boundary, so the interjections pile up until the limit.
	for i := 1; i < MaxPendingInterjections; i++ {
		if err := o.Interject(id, fmt.Sprint("more ", i), ""); err != nil {
			t.Fatalf("interjection %d of %d refused: %v", i+1, MaxPendingInterjections, err)
		}
	}
	if err := o.Interject(id, "one too many", ""); !errors.Is(err, ErrTooManyInterjections) {
		t.Errorf("interjection over the limit: err %v, want ErrTooManyInterjections", err)
	}
	if _, err := o.Run(context.Background(), Debate{ID: id, Proposition: "x"}); err == nil {
		t.Error("second Run of a running debate accepted")
	}
	close(block)
	if err := <-done; err != nil {
		t.Fatal(err)
	}
}

// errDisk is the failure of storetest.FailAfter stores.
var errDisk = errors.New("disk full")

// TestPodcastKeepsTheEngineContract runs engine/enginetest on the podcast:
// a store failing after every record, replay, two clocks, cancellation and
// a panic in Play; with interruptions and interjections, and with argument
// mapping.
func TestPodcastKeepsTheEngineContract(t *testing.T) {
	cfg := shortConfig()
	cfg.Flow.MaxExchanges = 3
	// chair_2 cuts into every response of chair_1 as it streams; the test
	// client evaluates weakly now and then, which calls for interjections.
	// Both are pure functions of the request, as a resumed run needs. (The
	// suite's wrappers stream whatever the client, so a client that cannot
	// stream, checked after the fact, is left to TestInterruptions.)
	interrupting := func() llm.Client {
		return streamingClient{newTestClient().on(PurposeInterruptCheck, func(r llm.Request) (string, error) {
			if strings.Contains(r.Messages[len(r.Messages)-1].Content, "- chair_2:") {
				return interruptBy("chair_2", 0.9)(r)
			}
			return noInterrupt, nil
		})}
	}
	for _, tt := range []struct {
		name   string
		client func() llm.Client
		opts   []Option
	}{
		{"stub", nil, nil},
		{"interruptions and interjections", interrupting, nil},
		{"argument map", nil, []Option{WithArgumentMap(argumentation.Additive)}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			enginetest.Run(t, func() engine.Format[*Outcome] {
				p, err := NewPodcast(cfg)
				if err != nil {
					t.Fatal(err)
				}
				return p
			}, enginetest.Config{Client: tt.client, Options: tt.opts})
		})
	}
}

func TestModelErrorStopsWithTurnErrorAndResumes(t *testing.T) {
	cfg := shortConfig()
	cfg.Interruptions.Enabled = false // every chair responds every round
	fail := errors.New("upstream 503")
	calls := 0
	c := newTestClient().on(PurposeResponse, func(r llm.Request) (string, error) {
		calls++
		if calls == 3 {
			return "", fail
		}
		return "A considered response.", nil
	})
	mem := store.NewMemory()
	d := prop
	d.ID = "flaky"
	stopped, err := mustNew(t, cfg, c, WithStore(mem)).Run(context.Background(), d)
	var te *TurnError
	if !errors.As(err, &te) || !errors.Is(err, fail) {
		t.Fatalf("Run = %v, want a TurnError wrapping the cause", err)
	}
	if stopped == nil || stopped.DebateID != "flaky" || stopped.Detail != nil || !reflect.DeepEqual(stopped.Metrics, Metrics{}) || len(stopped.Transcript) == 0 {
		t.Errorf("stopped result = %+v, want its ID and transcript so far, no detail, zero metrics", stopped)
	}
	if te.Segment != SegmentExchange || te.Speaker != "chair_1" || te.Purpose != PurposeResponse {
		t.Errorf("TurnError = %+v", te)
	}
	for _, s := range []string{"exchange", "chair_1", "upstream 503"} {
		if !strings.Contains(err.Error(), s) {
			t.Errorf("error %q lacks %q", err, s)
		}
	}
	res, err := mustNew(t, cfg, newTestClient(), WithStore(mem)).Resume(context.Background(), "flaky")
	if err != nil {
		t.Fatal(err)
	}
	if res.Detail.Metrics.Responses != 6 {
		t.Errorf("resumed debate has %d responses", res.Detail.Metrics.Responses)
	}
	if !reflect.DeepEqual(res.Metrics, res.Detail.Metrics) {
		t.Errorf("res.Metrics = %+v, want res.Detail.Metrics %+v", res.Metrics, res.Detail.Metrics)
	}
}

// TestCancellationLeavesResumableLogAndNoGoroutines runs debates inside a
// synctest bubble, which fails if any goroutine started by Run is still alive
// when the test function returns.
func TestCancellationLeavesResumableLogAndNoGoroutines(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		cfg := shortConfig()
		cfg.Interruptions.Enabled = false // every chair responds every round
		mem := store.NewMemory()
		ctx, cancel := context.WithCancel(context.Background())
		evals := 0
		c := newTestClient().on(PurposeEvaluation, func(r llm.Request) (string, error) {
			evals++
			if evals == 2 {
				cancel()
			}
			return weakEval, nil
		})
		d := prop
		d.ID = "cancelled"
		_, err := mustNew(t, cfg, c, WithStore(mem)).Run(ctx, d)
		if !errors.Is(err, context.Canceled) {
			t.Fatalf("Run = %v, want context.Canceled", err)
		}
		res, err := mustNew(t, cfg, newTestClient(), WithStore(mem)).Resume(context.Background(), "cancelled")
		if err != nil {
			t.Fatal(err)
		}
		if res.Detail.Metrics.Responses != 6 {
			t.Errorf("resumed debate has %d responses", res.Detail.Metrics.Responses)
		}
	})
}

// A panicking sink stops the debate with an error naming the event, and
// logs it; what was stored resumes to the debate an unbroken run plays.
func TestPanickingSinkStopsTheDebate(t *testing.T) {
	mem := store.NewMemory()
	sink := SinkFunc(func(context.Context, Event) { panic("boom") })
	var logs bytes.Buffer
	d := prop
	d.ID = "panicky"
	_, err := mustNew(t, shortConfig(), newTestClient(), WithStore(mem), WithSink(sink),
		WithLogger(slog.New(slog.NewTextHandler(&logs, nil)))).Run(context.Background(), d)
	if !errors.Is(err, engine.ErrSinkPanicked) {
		t.Fatalf("Run with a panicking sink = %v, want ErrSinkPanicked", err)
	}
	if !strings.Contains(err.Error(), "debate_started") || !strings.Contains(logs.String(), "panicked") {
		t.Errorf("the error %q or the log %q does not name the event", err, logs.String())
	}
	again, err := mustNew(t, shortConfig(), newTestClient(), WithStore(mem)).Resume(context.Background(), "panicky")
	if err != nil {
		t.Fatal(err)
	}
	clean := prop
	clean.ID = "clean"
	want, err := mustNew(t, shortConfig(), newTestClient(), WithStore(mem)).Run(context.Background(), clean)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(spokenLines(want.Transcript), spokenLines(again.Transcript)); diff != "" {
		t.Errorf("resumed after a panicking sink (-unbroken +resumed):\n%s", diff)
	}
}

// spokenLines is who said what, in order.
func spokenLines(tr []Utterance) []string {
	var lines []string
	for _, u := range tr {
		lines = append(lines, u.Speaker+": "+u.Content)
	}
	return lines
}

func TestStoreErrorEmitsNothingUnstored(t *testing.T) {
	mem := store.NewMemory()
	sink := &eventLog{st: mem}
	_, err := mustNew(t, shortConfig(), newTestClient(), WithStore(storetest.FailAfter(mem, 5, errDisk)), WithSink(sink)).Run(context.Background(), prop)
	if !errors.Is(err, errDisk) {
		t.Fatalf("Run = %v", err)
	}
	if len(sink.errs) > 0 {
		t.Errorf("events for unstored records:\n%s", strings.Join(sink.errs, "\n"))
	}
	if n := len(sink.types()); n != 5 {
		t.Errorf("%d events for 5 stored records", n)
	}
}

func TestResumeErrors(t *testing.T) {
	mem := store.NewMemory()
	o := mustNew(t, shortConfig(), newTestClient(), WithStore(mem))
	if _, err := o.Resume(context.Background(), "missing"); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("Resume(missing) = %v", err)
	}
	mem.Append(context.Background(), store.Record{DebateID: "junk", Seq: 1, Time: time.Now(), Type: "utterance", Data: []byte(`{}`)})
	if _, err := o.Resume(context.Background(), "junk"); !errors.Is(err, ErrCorruptLog) {
		t.Errorf("Resume(junk) = %v", err)
	}
}

// TestPromptsStayBounded checks the prompt window: the largest prompt of a
// 30-exchange debate with 6 chairs is not much larger than one of a
// 10-exchange debate.
func TestPromptsStayBounded(t *testing.T) {
	maxPrompt := func(exchanges int) int {
		cfg := ConfigWithChairs(ptr(DefaultConfig()), 6)
		cfg.Flow.MaxExchanges = exchanges
		c := newTestClient()
		if _, err := mustNew(t, cfg, c).Run(context.Background(), prop); err != nil {
			t.Fatal(err)
		}
		m := 0
		for _, r := range c.requests() {
			n := 0
			for _, msg := range r.Messages {
				n += len(msg.Content)
			}
			m = max(m, n)
		}
		return m
	}
	m10, m30 := maxPrompt(10), maxPrompt(30)
	if float64(m30) > 1.2*float64(m10) {
		t.Errorf("largest prompt grew from %d bytes (10 exchanges) to %d (30)", m10, m30)
	}
}

// TestSlowSinkKeepsStoreIntact: a sink that takes an hour per event (virtual
// time) delays the debate but changes nothing stored.
func TestSlowSinkKeepsStoreIntact(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		mem := store.NewMemory()
		slow := SinkFunc(func(context.Context, Event) { time.Sleep(time.Hour) })
		d := prop
		d.ID = "slow"
		res, err := mustNew(t, shortConfig(), newTestClient(), WithStore(mem), WithSink(slow)).Run(context.Background(), d)
		if err != nil {
			t.Fatal(err)
		}
		again, err := mustNew(t, shortConfig(), newTestClient(), WithStore(mem)).Resume(context.Background(), "slow")
		if err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(res.Transcript, again.Transcript); diff != "" {
			t.Errorf("(-want +got):\n%s", diff)
		}
	})
}

func TestInspect(t *testing.T) {
	mem := store.NewMemory()
	cfg := shortConfig()
	d := prop
	d.ID = "insp"
	if _, err := mustNew(t, cfg, newTestClient(), WithStore(storetest.FailAfter(mem, 6, errDisk))).Run(context.Background(), d); err == nil {
		t.Fatal("expected the store to fail")
	}
	s, err := Inspect(context.Background(), mem, "insp")
	if err != nil {
		t.Fatal(err)
	}
	if s.Format != "duelogic" || s.Finished || s.Records != 6 || s.Debate.Proposition != prop.Proposition || !strings.Contains(string(s.Spec), `"maxExchanges":3`) {
		t.Errorf("summary of a stopped debate: %+v", s)
	}
	if _, err := mustNew(t, cfg, newTestClient(), WithStore(mem)).Resume(context.Background(), "insp"); err != nil {
		t.Fatal(err)
	}
	if s, _ = Inspect(context.Background(), mem, "insp"); !s.Finished || s.Updated.Before(s.Started) {
		t.Errorf("summary of a finished debate: %+v", s)
	}
	if _, err := Inspect(context.Background(), mem, "none"); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("Inspect(none) = %v", err)
	}
}

// TestInterjectDuringTheClosingIsRefused: past the last turn boundary an
// interjection could never be delivered, so it is refused.
func TestInterjectDuringTheClosingIsRefused(t *testing.T) {
	var o *Orchestrator
	var got error
	hook := func(purpose string, msgs []llm.Message) []llm.Message {
		if purpose == PurposeClosing {
			got = o.Interject("closing", "one more thing", "")
		}
		return msgs
	}
	o = mustNew(t, shortConfig(), newTestClient(), WithPromptHook(hook))
	if _, err := o.Run(context.Background(), Debate{ID: "closing", Proposition: prop.Proposition}); err != nil {
		t.Fatal(err)
	}
	if !errors.Is(got, ErrNotRunning) {
		t.Errorf("Interject during the closing = %v, want ErrNotRunning", got)
	}
}

// notPodcast is a format that is not the podcast.
type notPodcast struct{}

func (notPodcast) Name() string { return "not_podcast" }

func (notPodcast) Play(context.Context, *engine.Session) (int, error) { return 0, nil }

// TestWithCatalogOnlyForThePodcast: another format given WithCatalog does
// not start.
func TestWithCatalogOnlyForThePodcast(t *testing.T) {
	c := newTestClient()
	_, err := engine.Run(context.Background(), c, engine.Format[int](notPodcast{}), prop, WithCatalog(DefaultCatalog()))
	if !errors.Is(err, ErrUnsupportedOption) || !strings.Contains(err.Error(), "WithCatalog") {
		t.Errorf("err %v, want ErrUnsupportedOption naming WithCatalog", err)
	}
	if n := len(c.requests()); n != 0 {
		t.Errorf("%d model calls", n)
	}
	// The podcast takes it, and checks its config against it.
	p, err := NewPodcast(shortConfig())
	if err != nil {
		t.Fatal(err)
	}
	if _, err := engine.Run(context.Background(), llm.NewStub(1), p, prop, WithCatalog(&Catalog{})); !errors.Is(err, ErrInvalidConfig) {
		t.Errorf("a config checked against an empty catalog: err %v, want ErrInvalidConfig", err)
	}
}

// TestResultCountsJudgments: the podcast's result says how its judgments
// went, so a host sees a weak model's effect.
func TestResultCountsJudgments(t *testing.T) {
	cfg := DefaultConfig()
	cfg.Flow.MaxExchanges = 3
	res, err := mustNew(t, cfg, llm.NewStub(1)).Run(context.Background(), prop)
	if err != nil {
		t.Fatal(err)
	}
	ev := res.Judgments[PurposeEvaluation]
	if n := ev.First + ev.Reasked + ev.Defaulted; n == 0 || n != res.Detail.Metrics.Responses || ev.Defaulted != res.Detail.Metrics.Responses-res.Detail.Metrics.Evaluated {
		t.Errorf("evaluation judgments %+v for %d responses", ev, res.Detail.Metrics.Responses)
	}
}
