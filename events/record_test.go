package events_test

import (
	"context"
	"encoding/json"
	"errors"
	"reflect"
	"slices"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/duelogic/duelogic"
	"github.com/duelogic/duelogic/argumentation"
	"github.com/duelogic/duelogic/engine"
	"github.com/duelogic/duelogic/events"
	"github.com/duelogic/duelogic/llm"
	"github.com/duelogic/duelogic/llm/llmtest"
	"github.com/duelogic/duelogic/store"
)

// eager is a strict three-chair debate with eager interruptions: every
// event type and utterance kind of the podcast.
func eager(c *duelogic.Config) {
	*c = duelogic.Presets()[2].Apply(*c)
	c.Arbiter.AccountabilityLevel = duelogic.Strict
	c.Interruptions.Aggressiveness = 5
	c.Interruptions.CooldownSeconds = 0
	c.Flow.MaxExchanges = 5
}

// TestReplayEqualsLiveEvents runs podcast debates with a recording sink and
// checks that the events FromRecord and engine.Replay make of the stored
// records are exactly the live events other than tokens: same types, seqs,
// times, utterances, evaluations and Data bytes, in the same order. The
// JSONL store checks that this survives serialization.
func TestReplayEqualsLiveEvents(t *testing.T) {
	tests := []struct {
		name string
		mod  func(*duelogic.Config)
		opts []engine.Option
		// want are the event types the debate must produce, or the
		// comparison proves little.
		want []engine.EventType
	}{
		{"default", nil, nil, []engine.EventType{engine.EventDebateStarted, engine.EventSegmentStarted,
			engine.EventUtterance, duelogic.EventEvaluation, engine.EventSegmentEnded, engine.EventDebateEnded}},
		{"relaxed: unannounced evaluation records", func(c *duelogic.Config) {
			c.Arbiter.AccountabilityLevel = duelogic.Relaxed
		}, nil, []engine.EventType{engine.EventUtterance, engine.EventDebateEnded}},
		{"strict, three chairs, eager interruptions", eager, nil,
			[]engine.EventType{duelogic.EventEvaluation, duelogic.EventInterruption, engine.EventDebateEnded}},
		{"argument map: side steps", nil, []engine.Option{engine.WithArgumentMap(argumentation.Additive)},
			[]engine.EventType{engine.EventArgumentMap, duelogic.EventEvaluation, engine.EventDebateEnded}},
	}
	for _, tt := range tests {
		// The debate is played once, into memory; its records are then
		// appended, in order, to a JSONL store, as the engine appends them,
		// and read back: what the live events are compared with has been
		// serialized.
		var live collector
		var recs []store.Record
		t.Run(tt.name+"/memory", func(t *testing.T) {
			mem := store.NewMemory()
			runDebate(t, t.Context(), "d1", llm.NewStub(7), mem, &live, tt.mod, tt.opts...)
			recs = records(t, mem, "d1")
			checkReplay(t, nonTokens(live.all()), recs, tt.want)
		})
		t.Run(tt.name+"/jsonl", func(t *testing.T) {
			if recs == nil {
				t.Skip("the debate was not played")
			}
			js, err := store.OpenJSONL(t.TempDir())
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { js.Close() })
			for _, r := range recs {
				if err := js.Append(t.Context(), r); err != nil {
					t.Fatal(err)
				}
			}
			checkReplay(t, nonTokens(live.all()), records(t, js, "d1"), tt.want)
		})
	}
}

// checkReplay checks that the events FromRecord and engine.Replay make of
// recs are want, the live events, and that they hold every type of types.
func checkReplay(t *testing.T, want []engine.Event, recs []store.Record, types []engine.EventType) {
	t.Helper()
	var fromRecord []engine.Event
	for _, r := range recs {
		if e, ok := events.FromRecord(r); ok {
			fromRecord = append(fromRecord, e)
		}
	}
	if diff := diffEvents(want, fromRecord); diff != "" {
		t.Errorf("FromRecord events differ from live ones (-live +replayed):\n%s", diff)
	}
	all, err := engine.Replay(recs)
	if err != nil {
		t.Fatal(err)
	}
	if diff := diffEvents(want, all); diff != "" {
		t.Errorf("engine.Replay differs from live events (-live +replayed):\n%s", diff)
	}
	seen := map[engine.EventType]int{}
	for _, e := range all {
		seen[e.Type]++
	}
	for _, typ := range types {
		if seen[typ] == 0 {
			t.Errorf("no %s event; have %v", typ, seen)
		}
	}
}

// diffEvents is cmp.Diff(a, b), with reflect.DeepEqual first: cmp is slow
// on a whole debate, and only needed to say what differs. The times are
// compared without their monotonic clock readings (a live event's time
// has one, a replayed one's not), as cmp compares them (Time.Equal).
func diffEvents(a, b []engine.Event) string {
	if reflect.DeepEqual(withoutMonotonic(a), withoutMonotonic(b)) {
		return ""
	}
	return cmp.Diff(a, b)
}

// withoutMonotonic is a copy of es whose times hold no monotonic clock
// reading.
func withoutMonotonic(es []engine.Event) []engine.Event {
	out := slices.Clone(es)
	for i := range out {
		out[i].Time = out[i].Time.Round(0)
	}
	return out
}

// TestReplayedPodcastPayloads decodes the podcast's payloads from replayed
// events: the interruption's candidate and the debate's outcome.
func TestReplayedPodcastPayloads(t *testing.T) {
	st := store.NewMemory()
	res := runDebate(t, t.Context(), "d1", llm.NewStub(7), st, nil, eager)
	var cands []duelogic.InterruptCandidate
	kinds := map[engine.UtteranceKind]int{}
	var ended *engine.Ended
	for _, e := range replayed(t, st, "d1", 0) {
		switch e.Type {
		case engine.EventUtterance:
			kinds[e.Utterance.Kind]++
		case duelogic.EventInterruption:
			c, err := engine.DataAs[duelogic.InterruptCandidate](e)
			if err != nil {
				t.Fatal(err)
			}
			if e.Speaker != c.InterruptingChair.Position || e.Utterance == nil || !e.Utterance.Interrupted ||
				e.Utterance.InterruptedBy != e.Speaker || e.Utterance.Content == "" {
				t.Errorf("interruption event %+v: want the interrupted utterance, marked, and its content", e)
			}
			cands = append(cands, c)
		case engine.EventDebateEnded:
			d, err := engine.DataAs[engine.Ended](e)
			if err != nil {
				t.Fatal(err)
			}
			ended = &d
		}
	}
	for _, k := range []engine.UtteranceKind{engine.KindInterruption, engine.KindInterjection} {
		if kinds[k] == 0 {
			t.Errorf("no %s utterance replayed; have %v", k, kinds)
		}
	}
	if diff := cmp.Diff(res.Detail.Interruptions, cands); diff != "" {
		t.Errorf("interruption candidates (-result +replayed):\n%s", diff)
	}
	if ended == nil {
		t.Fatal("no debate_ended event")
	}
	var out duelogic.Outcome
	if err := json.Unmarshal(ended.Detail, &out); err != nil {
		t.Fatal(err)
	}
	// What the outcome holds for its documents is not stored: the result has it.
	if diff := cmp.Diff(*res.Detail, out, cmpopts.IgnoreFields(duelogic.Outcome{}, "Debate", "Transcript")); diff != "" {
		t.Errorf("outcome (-result +replayed):\n%s", diff)
	}
	if ended.Format != duelogic.FormatName || ended.Usage != res.Usage {
		t.Errorf("ended %s with usage %+v; want %s, %+v", ended.Format, ended.Usage, duelogic.FormatName, res.Usage)
	}
}

// tally is a small format: a segment, utterances, a step announced with an
// event of its own type and one announced with none.
type tally struct {
	Rounds int `json:"rounds"`
}

func (*tally) Name() string { return "tally" }

type score struct {
	Points int    `json:"points"`
	Note   string `json:"note"`
}

func (f *tally) Play(ctx context.Context, s *engine.Session) (int, error) {
	total := 0
	err := s.Segment(ctx, "count", func(ctx context.Context) error {
		for i := range f.Rounds {
			key := string(rune('a' + i))
			u, err := s.Say(ctx, key, engine.Utterance{Speaker: "counter", Segment: "count", Kind: "number"},
				llm.Request{Model: "m", Purpose: "count", Messages: []llm.Message{{Role: llm.User, Content: key}}})
			if err != nil {
				return err
			}
			var sc score
			if _, err := s.Step(ctx, "score:"+key, "score", "judge", &sc, func(context.Context) (any, llm.Usage, error) {
				return score{Points: len(u.Content), Note: "ok"}, llm.Usage{PromptTokens: 1}, nil
			}, func(int64) *engine.Announcement {
				return &engine.Announcement{Type: "score", Segment: "count", Speaker: "judge", Data: sc}
			}); err != nil {
				return err
			}
			total += sc.Points
		}
		_, err := s.Step(ctx, "quiet", "note", "judge", nil, func(context.Context) (any, llm.Usage, error) {
			return "unannounced", llm.Usage{}, nil
		}, nil)
		return err
	})
	return total, err
}

// TestReplayFormatSteps: a format's own events come back from its records
// as announced, and a step no event announced gives none.
func TestReplayFormatSteps(t *testing.T) {
	st := store.NewMemory()
	f := llmtest.New()
	f.OnPurpose("count").Reply("one", "two two")
	var live []engine.Event
	for e, err := range events.RunFormat(t.Context(), f, &tally{Rounds: 2}, engine.Debate{ID: "t1", Proposition: "How many?"},
		engine.WithStore(st)) {
		if err != nil {
			t.Fatal(err)
		}
		live = append(live, e)
	}
	got := replayed(t, st, "t1", 0)
	if diff := diffEvents(nonTokens(live), got); diff != "" {
		t.Errorf("replayed format events (-live +replayed):\n%s", diff)
	}
	var types []engine.EventType
	var scores []score
	for _, e := range got {
		types = append(types, e.Type)
		if e.Type == "score" {
			sc, err := engine.DataAs[score](e)
			if err != nil {
				t.Fatal(err)
			}
			scores = append(scores, sc)
		}
	}
	wantTypes := []engine.EventType{engine.EventDebateStarted, engine.EventSegmentStarted, engine.EventUtterance, "score",
		engine.EventUtterance, "score", engine.EventSegmentEnded, engine.EventDebateEnded}
	if diff := cmp.Diff(wantTypes, types); diff != "" {
		t.Errorf("event types (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]score{{3, "ok"}, {7, "ok"}}, scores); diff != "" {
		t.Errorf("scores (-want +got):\n%s", diff)
	}
}

func TestFromRecordRejects(t *testing.T) {
	st := store.NewMemory()
	runDebate(t, t.Context(), "d1", llm.NewStub(1), st, nil, nil)
	good := records(t, st, "d1")[2] // the introduction
	if _, ok := events.FromRecord(good); !ok {
		t.Fatalf("FromRecord(%s) = false", good.Data)
	}
	tests := []struct {
		name    string
		data    string
		wantErr bool // engine.EventOf's verdict: unreadable, or merely unannounced
	}{
		{"not an object", `[]`, true},
		{"not JSON", `{`, true},
		{"event of the wrong shape", `{"key":"k","value":1,"event":{"type":3}}`, true},
		{"no event", `{"key":"k","value":1}`, false},
		{"null event", `{"key":"k","value":1,"event":null}`, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rec := good
			rec.Data = json.RawMessage(tt.data)
			if e, ok := events.FromRecord(rec); ok {
				t.Errorf("FromRecord = %+v, true; want false", e)
			}
			if _, _, err := engine.EventOf(rec); (err != nil) != tt.wantErr {
				t.Errorf("engine.EventOf error %v; want error %v", err, tt.wantErr)
			}
		})
	}
}

// TestFromRecordKeepsRecordIdentity: the event's DebateID, Seq and Time are
// the record's, whatever the stored event says.
func TestFromRecordKeepsRecordIdentity(t *testing.T) {
	st := store.NewMemory()
	runDebate(t, t.Context(), "d1", llm.NewStub(1), st, nil, nil)
	at := time.Date(2025, 6, 1, 12, 0, 0, 0, time.UTC)
	for _, rec := range records(t, st, "d1") {
		want, ok := events.FromRecord(rec)
		if !ok {
			continue
		}
		rec.DebateID, rec.Seq, rec.Time = "x", rec.Seq+100, at
		got, ok := events.FromRecord(rec)
		if !ok {
			t.Fatalf("record %d: FromRecord = false", rec.Seq)
		}
		want.DebateID, want.Seq, want.Time = "x", rec.Seq, at
		if want.Utterance != nil && want.Type == engine.EventUtterance {
			want.Utterance.Seq = rec.Seq // an utterance event's utterance is the record's
		}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("record %d (-want +got):\n%s", rec.Seq, diff)
		}
	}
}

func TestSummarize(t *testing.T) {
	ctx := t.Context()
	st := store.NewMemory()
	res := runDebate(t, ctx, "done", llm.NewStub(1), st, nil, nil)
	runDebate(t, ctx, "mapped", llm.NewStub(1), st, nil, nil, engine.WithArgumentMap(argumentation.Additive))

	// A stopped debate: the first records of another one.
	recs := records(t, st, "done")
	for _, r := range recs[:6] {
		r.DebateID = "half"
		if err := st.Append(ctx, r); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := engine.Run(ctx, llmtest.New(), &tally{Rounds: 1}, engine.Debate{ID: "fmt", Proposition: "Count?"},
		engine.WithStore(st)); err != nil {
		t.Fatal(err)
	}

	cfg := testConfig(nil)
	tests := []struct {
		id   string
		want events.Summary
	}{
		{"done", events.Summary{ID: "done", Format: "duelogic", Status: events.StatusFinished,
			Debate:  engine.Debate{ID: "done", Proposition: proposition},
			Records: len(recs), Utterances: len(res.Transcript)}},
		{"mapped", events.Summary{ID: "mapped", Format: "duelogic", Status: events.StatusFinished, Mapped: true,
			Debate:  engine.Debate{ID: "mapped", Proposition: proposition},
			Records: len(records(t, st, "mapped")), Utterances: len(res.Transcript)}},
		{"half", events.Summary{ID: "half", Format: "duelogic", Status: events.StatusStopped,
			Debate:  engine.Debate{ID: "half", Proposition: proposition},
			Records: 6, Utterances: 2}},
		{"fmt", events.Summary{ID: "fmt", Format: "tally", Status: events.StatusFinished, Spec: json.RawMessage(`{"rounds":1}`),
			Debate:  engine.Debate{ID: "fmt", Proposition: "Count?"},
			Records: 7, Utterances: 1}},
	}
	for _, tt := range tests {
		t.Run(tt.id, func(t *testing.T) {
			recs := records(t, st, tt.id)
			got, err := events.Summarize(recs)
			if err != nil {
				t.Fatal(err)
			}
			if !got.Started.Equal(recs[0].Time) || !got.Updated.Equal(recs[len(recs)-1].Time) {
				t.Errorf("Started, Updated = %v, %v; want the first and last record times", got.Started, got.Updated)
			}
			got.Started, got.Updated = time.Time{}, time.Time{}
			if tt.want.Format == duelogic.FormatName {
				// The podcast's spec is its configuration.
				var p duelogic.Podcast
				if err := json.Unmarshal(got.Spec, &p); err != nil {
					t.Fatal(err)
				}
				if diff := cmp.Diff(cfg, p.Config); diff != "" {
					t.Errorf("the stored configuration (-want +got):\n%s", diff)
				}
				got.Spec = nil
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}

	errTests := []struct {
		name string
		recs []store.Record
		want error
	}{
		{"nil", nil, engine.ErrCorruptLog},
		{"without the first record", recs[1:], engine.ErrCorruptLog},
		{"first record unreadable", append([]store.Record{{DebateID: "done", Seq: 1, Type: engine.RecordDebate, Data: json.RawMessage(`[]`)}}, recs[1:]...), engine.ErrCorruptLog},
	}
	for _, tt := range errTests {
		t.Run(tt.name, func(t *testing.T) {
			if _, err := events.Summarize(tt.recs); !errors.Is(err, tt.want) {
				t.Errorf("Summarize = %v; want %v", err, tt.want)
			}
		})
	}
}
