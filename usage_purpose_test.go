package duelogic

import (
	"context"
	"encoding/json"
	"errors"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/duelogic/duelogic/engine"
	"github.com/duelogic/duelogic/llm"
	"github.com/duelogic/duelogic/store"
)

// endedOf returns the debate_ended event's data of debate id in st.
func endedOf(t *testing.T, st store.Store, id string) engine.Ended {
	t.Helper()
	recs, err := st.Records(context.Background(), id)
	if err != nil {
		t.Fatal(err)
	}
	evs, err := engine.Replay(recs)
	if err != nil {
		t.Fatal(err)
	}
	last := evs[len(evs)-1]
	if last.Type != engine.EventDebateEnded {
		t.Fatalf("last event %s", last.Type)
	}
	e, err := engine.DataAs[engine.Ended](last)
	if err != nil {
		t.Fatal(err)
	}
	return e
}

// TestUsageByPurpose: a podcast's usage is split by the purpose of its
// calls, adding up to its usage, in the result and the debate_ended event;
// a debate stopped by its budget and resumed with a larger one splits it
// as an unbroken run does.
func TestUsageByPurpose(t *testing.T) {
	podcast := func() *Podcast { return mustPodcast(t) }
	whole := store.NewMemory()
	d := prop
	d.ID = "whole"
	want, err := engine.Run(t.Context(), llm.NewStub(7), podcast(), d, engine.WithStore(whole))
	if err != nil {
		t.Fatal(err)
	}
	var sum llm.Usage
	for _, u := range want.UsageByPurpose {
		sum = sum.Add(u)
	}
	if sum != want.Usage {
		t.Errorf("the purposes add up to %+v, the usage is %+v", sum, want.Usage)
	}
	for _, p := range []string{PurposeIntroduction, PurposeOpening, PurposeResponse, PurposeEvaluation, PurposeClosing} {
		if want.UsageByPurpose[p].PromptTokens == 0 {
			t.Errorf("no usage for purpose %q: %v", p, want.UsageByPurpose)
		}
	}
	if _, ok := want.UsageByPurpose[""]; ok {
		t.Errorf("usage of no purpose: %v", want.UsageByPurpose)
	}
	if got := endedOf(t, whole, "whole").UsageByPurpose; !cmp.Equal(got, want.UsageByPurpose) {
		t.Errorf("debate_ended's usage by purpose differs from the result's: %s", cmp.Diff(want.UsageByPurpose, got))
	}

	st := store.NewMemory()
	d.ID = "stopped"
	stopped, err := engine.Run(t.Context(), llm.NewStub(7), podcast(), d, engine.WithStore(st), engine.WithBudget(engine.Budget{Tokens: want.Usage.Total() / 2}))
	if !errors.Is(err, engine.ErrBudget) {
		t.Fatalf("Run = %v, want ErrBudget", err)
	}
	if len(stopped.UsageByPurpose) == 0 {
		t.Error("a stopped debate's result has no usage by purpose")
	}
	got, err := engine.Resume(t.Context(), llm.NewStub(7), &Podcast{}, "stopped", engine.WithStore(st), engine.WithBudget(engine.Budget{Tokens: 10 * want.Usage.Total()}))
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(want.UsageByPurpose, got.UsageByPurpose); diff != "" {
		t.Errorf("resumed usage by purpose (-unbroken +resumed):\n%s", diff)
	}
	if diff := cmp.Diff(want.UsageBySpeaker, got.UsageBySpeaker); diff != "" {
		t.Errorf("resumed usage by speaker (-unbroken +resumed):\n%s", diff)
	}
	if diff := cmp.Diff(want.UsageByPurpose, endedOf(t, st, "stopped").UsageByPurpose); diff != "" {
		t.Errorf("resumed debate_ended usage by purpose (-unbroken +resumed):\n%s", diff)
	}
}

// TestUsageByPurposeOfAnOldLog: a log written before purposes were stored
// still replays; its usage counts under the empty purpose.
func TestUsageByPurposeOfAnOldLog(t *testing.T) {
	st := store.NewMemory()
	d := prop
	d.ID = "new"
	want, err := engine.Run(t.Context(), llm.NewStub(7), mustPodcast(t), d, engine.WithStore(st))
	if err != nil {
		t.Fatal(err)
	}
	recs, err := st.Records(t.Context(), "new")
	if err != nil {
		t.Fatal(err)
	}
	old := store.NewMemory()
	for _, rec := range recs[:len(recs)-1] { // without its end: Resume finishes it
		var data map[string]json.RawMessage
		if err := json.Unmarshal(rec.Data, &data); err != nil {
			t.Fatal(err)
		}
		delete(data, "purposes")
		raw, _ := json.Marshal(data)
		rec.Data, rec.DebateID = raw, "old"
		if err := old.Append(t.Context(), rec); err != nil {
			t.Fatal(err)
		}
	}
	got, err := engine.Resume(t.Context(), llm.NewStub(7), &Podcast{}, "old", engine.WithStore(old))
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(map[string]llm.Usage{"": want.Usage}, got.UsageByPurpose); diff != "" || got.Usage != want.Usage {
		t.Errorf("old log's usage by purpose (-want +got):\n%s", diff)
	}
}

func mustPodcast(t *testing.T) *Podcast {
	t.Helper()
	p, err := NewPodcast(shortConfig())
	if err != nil {
		t.Fatal(err)
	}
	return p
}
