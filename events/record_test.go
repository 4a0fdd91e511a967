package events_test

import (
	"context"
	"encoding/json"
	"errors"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/duelogic/duelogic"
	"github.com/duelogic/duelogic/events"
	"github.com/duelogic/duelogic/llm"
	"github.com/duelogic/duelogic/llm/llmtest"
	"github.com/duelogic/duelogic/store"
)

// asReplayed reduces live events to what their records hold, as FromRecord
// documents: no tokens, the interrupted utterance without its content, the
// result without its transcript.
func asReplayed(live []duelogic.Event) []duelogic.Event {
	var out []duelogic.Event
	for _, e := range nonTokens(live) {
		switch e.Type {
		case duelogic.EventInterruption:
			u := e.Utterance
			e.Utterance = &duelogic.Utterance{Seq: u.Seq, Speaker: u.Speaker, Segment: u.Segment,
				Interrupted: u.Interrupted, InterruptedBy: u.InterruptedBy}
		case duelogic.EventDebateEnded:
			r := e.Result
			e.Result = &duelogic.Result{DebateID: r.DebateID, Usage: r.Usage, Metrics: r.Metrics}
		}
		out = append(out, e)
	}
	return out
}

func TestFromRecordMatchesLiveEvents(t *testing.T) {
	tests := []struct {
		name string
		mod  func(*duelogic.Config)
	}{
		{"default", nil},
		{"relaxed: unannounced evaluation records", func(c *duelogic.Config) {
			c.Arbiter.AccountabilityLevel = duelogic.Relaxed
		}},
		{"strict, three chairs, eager interruptions", func(c *duelogic.Config) {
			*c = duelogic.Presets()[2].Apply(*c)
			c.Arbiter.AccountabilityLevel = duelogic.Strict
			c.Interruptions.Aggressiveness = 5
			c.Interruptions.CooldownSeconds = 0
			c.Flow.MaxExchanges = 5
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			st := store.NewMemory()
			var live collector
			runDebate(t, t.Context(), "d1", llm.NewStub(7), st, &live, tt.mod)
			want := jsonOf(t, asReplayed(live.all()))
			got := jsonOf(t, replayed(t, st, "d1", 0))
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("replayed events differ from live ones (-live +replayed):\n%s", diff)
			}
		})
	}
}

func TestFromRecordCoversEveryKind(t *testing.T) {
	// The strict three-way debate above must exercise every record type, or
	// the comparison proves little.
	st := store.NewMemory()
	runDebate(t, t.Context(), "d1", llm.NewStub(7), st, nil, func(c *duelogic.Config) {
		*c = duelogic.Presets()[2].Apply(*c)
		c.Arbiter.AccountabilityLevel = duelogic.Strict
		c.Interruptions.Aggressiveness = 5
		c.Interruptions.CooldownSeconds = 0
		c.Flow.MaxExchanges = 5
	})
	seen := map[duelogic.EventType]int{}
	kinds := map[duelogic.UtteranceKind]int{}
	for _, e := range replayed(t, st, "d1", 0) {
		seen[e.Type]++
		if e.Utterance != nil && e.Type == duelogic.EventUtterance {
			kinds[e.Utterance.Kind]++
		}
	}
	for _, typ := range []duelogic.EventType{duelogic.EventDebateStarted, duelogic.EventSegmentStarted, duelogic.EventSegmentEnded,
		duelogic.EventUtterance, duelogic.EventEvaluation, duelogic.EventInterruption, duelogic.EventDebateEnded} {
		if seen[typ] == 0 {
			t.Errorf("no %s event replayed; have %v", typ, seen)
		}
	}
	for _, k := range []duelogic.UtteranceKind{duelogic.KindInterruption, duelogic.KindInterjection} {
		if kinds[k] == 0 {
			t.Errorf("no %s utterance replayed; have %v", k, kinds)
		}
	}
}

// tally is a small format: a segment, two utterances, a step announced
// with an event of its own type and one announced with none.
type tally struct {
	Rounds int `json:"rounds"`
}

func (tally) Name() string { return "tally" }

type score struct {
	Points int    `json:"points"`
	Note   string `json:"note"`
}

func (f tally) Play(ctx context.Context, s *duelogic.Session) error {
	return s.Segment(ctx, "count", func(ctx context.Context) error {
		for i := range f.Rounds {
			key := string(rune('a' + i))
			u, err := s.Say(ctx, key, duelogic.Utterance{Speaker: "counter", Segment: "count", Kind: "number"},
				llm.Request{Model: "m", Purpose: "count", Messages: []llm.Message{{Role: llm.User, Content: key}}})
			if err != nil {
				return err
			}
			var sc score
			if _, err := s.Step(ctx, "score:"+key, "score", "judge", &sc, func(context.Context) (any, llm.Usage, error) {
				return score{Points: len(u.Content), Note: "ok"}, llm.Usage{PromptTokens: 1}, nil
			}, func(int64) *duelogic.Event {
				return &duelogic.Event{Type: "score", Speaker: "judge", Data: sc}
			}); err != nil {
				return err
			}
		}
		_, err := s.Step(ctx, "quiet", "note", "judge", nil, func(context.Context) (any, llm.Usage, error) {
			return "unannounced", llm.Usage{}, nil
		}, nil)
		return err
	})
}

func TestFromRecordFormatSteps(t *testing.T) {
	st := store.NewMemory()
	var live collector
	f := llmtest.New()
	f.OnPurpose("count").Reply("one", "two two")
	if _, err := duelogic.RunFormat(t.Context(), f, tally{Rounds: 2}, duelogic.Debate{ID: "t1", Proposition: "How many?"},
		duelogic.WithStore(st), duelogic.WithSink(&live)); err != nil {
		t.Fatal(err)
	}
	got := replayed(t, st, "t1", 0)
	// Replay equals live: the announced steps come back as announced, with
	// their records' Seq, and the unannounced step gives no event.
	want := asReplayed(live.all())
	for i := range want {
		want[i].Seq = 0
	}
	for i := range got {
		got[i].Seq = 0
	}
	if diff := cmp.Diff(jsonOf(t, want), jsonOf(t, got)); diff != "" {
		t.Errorf("replayed format events (-want +got):\n%s", diff)
	}
}

func TestFromRecordRejects(t *testing.T) {
	tests := []struct {
		name string
		rec  store.Record
	}{
		{"utterance not JSON", store.Record{Type: duelogic.RecordUtterance, Data: json.RawMessage(`{`)}},
		{"segment of wrong shape", store.Record{Type: duelogic.RecordSegmentStarted, Data: json.RawMessage(`{"segment":3}`)}},
		{"evaluation not made", store.Record{Type: duelogic.RecordEvaluation, Data: json.RawMessage(`{"key":"e","evaluated":false}`)}},
		{"moves not JSON", store.Record{Type: duelogic.RecordMoves, Data: json.RawMessage(`nope`)}},
		{"unknown record without key", store.Record{Type: "custom", Data: json.RawMessage(`{"value":1}`)}},
		{"unknown record without value", store.Record{Type: "custom", Data: json.RawMessage(`{"key":"k"}`)}},
		{"no type", store.Record{Data: json.RawMessage(`{"key":"k","value":1}`)}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if e, ok := events.FromRecord(tt.rec); ok {
				t.Errorf("FromRecord = %+v, true; want false", e)
			}
		})
	}
}

func TestFromRecordKeepsRecordIdentity(t *testing.T) {
	at := time.Date(2025, 6, 1, 12, 0, 0, 0, time.UTC)
	rec := store.Record{DebateID: "x", Seq: 4, Time: at, Type: duelogic.RecordSegmentEnded,
		Data: json.RawMessage(`{"key":"segment_ended:opening","segment":"opening"}`)}
	got, ok := events.FromRecord(rec)
	want := duelogic.Event{Type: duelogic.EventSegmentEnded, DebateID: "x", Seq: 4, Segment: duelogic.SegmentOpening, Time: at}
	if !ok {
		t.Fatal("FromRecord = false")
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
}

func TestSummarize(t *testing.T) {
	ctx := t.Context()
	st := store.NewMemory()
	res := runDebate(t, ctx, "done", llm.NewStub(1), st, nil, nil)

	// A stopped debate: the first records of another one.
	recs, err := st.Records(ctx, "done")
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range recs[:6] {
		r.DebateID = "half"
		if err := st.Append(ctx, r); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := duelogic.RunFormat(ctx, llmtest.New(), tally{Rounds: 1}, duelogic.Debate{ID: "fmt", Proposition: "Count?"},
		duelogic.WithStore(st)); err != nil {
		t.Fatal(err)
	}

	cfg := testConfig(nil)
	tests := []struct {
		id   string
		want events.Summary
	}{
		{"done", events.Summary{ID: "done", Format: "duelogic", Status: events.StatusFinished, Config: &cfg,
			Debate:  duelogic.Debate{ID: "done", Proposition: "Should cities ban cars from their centres?"},
			Records: len(recs), Utterances: len(res.Transcript)}},
		{"half", events.Summary{ID: "half", Format: "duelogic", Status: events.StatusStopped, Config: &cfg,
			Debate:  duelogic.Debate{ID: "half", Proposition: "Should cities ban cars from their centres?"},
			Records: 6, Utterances: 2}},
		{"fmt", events.Summary{ID: "fmt", Format: "tally", Status: events.StatusFinished, Spec: json.RawMessage(`{"rounds":1}`),
			Debate:  duelogic.Debate{ID: "fmt", Proposition: "Count?"},
			Records: 7, Utterances: 1}},
	}
	for _, tt := range tests {
		t.Run(tt.id, func(t *testing.T) {
			recs, err := st.Records(ctx, tt.id)
			if err != nil {
				t.Fatal(err)
			}
			got, err := events.Summarize(recs)
			if err != nil {
				t.Fatal(err)
			}
			if !got.Started.Equal(recs[0].Time) || !got.Updated.Equal(recs[len(recs)-1].Time) {
				t.Errorf("Started, Updated = %v, %v; want the first and last record times", got.Started, got.Updated)
			}
			got.Started, got.Updated = time.Time{}, time.Time{}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}

	if _, err := events.Summarize(recs[1:]); !errors.Is(err, events.ErrNotDebate) {
		t.Errorf("Summarize(without the first record) = %v; want ErrNotDebate", err)
	}
	if _, err := events.Summarize(nil); !errors.Is(err, events.ErrNotDebate) {
		t.Errorf("Summarize(nil) = %v; want ErrNotDebate", err)
	}
}
