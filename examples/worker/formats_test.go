package main

import (
	"encoding/json"
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/duelogic/duelogic/engine"
	"github.com/duelogic/duelogic/formal"
	"github.com/duelogic/duelogic/llm"
	"github.com/duelogic/duelogic/moderated"
	"github.com/duelogic/duelogic/persuasion"
	"github.com/duelogic/duelogic/scored"
	"github.com/duelogic/duelogic/store"
	"github.com/duelogic/duelogic/store/storetest"
)

// postFormat starts debate id in format f (made by its New) in st and stops
// it after its first record.
func postFormat[R any](t *testing.T, st store.Store, id string, f engine.Format[R], err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
	// The stub does not settle this question in one moderated round.
	d := engine.Debate{ID: id, Proposition: "Should sign-in use passkeys or passwords?"}
	if _, err := engine.Run(t.Context(), llm.NewStub(1), f, d, engine.WithStore(storetest.FailAfter(st, 1, errStopped))); !errors.Is(err, errStopped) {
		t.Fatalf("post %s: %v", id, err)
	}
}

// A worker finishes the debates of every format, each with its stored
// configuration; a moderated debate, whose checkpoints wait for a person,
// it plays to its first checkpoint only and leaves paused.
func TestWorkerEveryFormat(t *testing.T) {
	dsn := schemaDSN(t)
	st := openStore(t, dsn)
	post(t, st, "pod")
	f, err := formal.New(formal.DefaultConfig())
	postFormat(t, st, "formal", f, err)
	s, err := scored.New(scored.DefaultConfig())
	postFormat(t, st, "scored", s, err)
	p, err := persuasion.New(persuasion.DefaultConfig())
	postFormat(t, st, "persuasion", p, err)
	m, err := moderated.New(moderated.DefaultConfig())
	postFormat(t, st, "moderated", m, err)

	w, lines := startWorker(t, dsn)
	var paused []string
	played := map[string]int{}
	for l := range lines {
		switch f := strings.Fields(l); {
		case len(f) == 2 && f[0] == "paused":
			paused = append(paused, f[1])
		case len(f) == 3 && f[0] == "played":
			played[f[1]]++
		}
	}
	if err := w.Wait(); err != nil {
		t.Fatalf("worker: %v", err)
	}
	for _, id := range []string{"pod", "formal", "scored", "persuasion"} {
		if played[id] != 1 {
			t.Errorf("%s played %d times, want once", id, played[id])
		}
		if sum, err := engine.Inspect(t.Context(), st, id); err != nil || !sum.Finished {
			t.Errorf("%s: finished %v, err %v", id, sum.Finished, err)
		}
	}
	if !slices.Equal(paused, []string{"moderated"}) || played["moderated"] != 0 {
		t.Errorf("paused %v, moderated played %d times; want it paused once, not played", paused, played["moderated"])
	}
	if sum, err := engine.Inspect(t.Context(), st, "moderated"); err != nil || sum.Finished {
		t.Errorf("moderated: finished %v, err %v; want it left at its checkpoint", sum.Finished, err)
	}
}

// unattended is a moderated format stored as the web page stores one
// started with checkpoints off.
type unattended struct{ *moderated.Format }

func (u unattended) MarshalJSON() ([]byte, error) {
	return json.Marshal(struct {
		Config     moderated.Config `json:"config"`
		Unattended bool             `json:"unattended"`
	}{u.Config, true})
}

// A worker leaves a moderated debate paused at its clarifying question (a
// vague one) for its person, and plays one started unattended to its end.
func TestWorkerModeratedPerson(t *testing.T) {
	dsn := schemaDSN(t)
	st := openStore(t, dsn)
	vague, err := moderated.New(moderated.DefaultConfig())
	if err != nil {
		t.Fatal(err)
	}
	if _, err := engine.Run(t.Context(), llm.NewStub(1), vague, engine.Debate{ID: "vague", Proposition: "Redis?"},
		engine.WithStore(storetest.FailAfter(st, 1, errStopped))); !errors.Is(err, errStopped) {
		t.Fatalf("post vague: %v", err)
	}
	m, err := moderated.New(moderated.DefaultConfig())
	postFormat(t, st, "unattended", unattended{m}, err)

	w, lines := startWorker(t, dsn)
	var out []string
	for l := range lines {
		out = append(out, l)
	}
	if err := w.Wait(); err != nil {
		t.Fatalf("worker: %v", err)
	}
	if !slices.Contains(out, "paused vague") {
		t.Errorf("worker printed %q; want the vague debate paused", out)
	}
	list, err := moderated.List(t.Context(), st)
	if err != nil {
		t.Fatal(err)
	}
	found := false
	for _, d := range list {
		if d.DebateID == "vague" {
			found = true
			if d.Status != moderated.StatusPaused || d.Round != 0 || len(d.Perspectives) != 0 {
				t.Errorf("vague: %+v; want paused at its clarifying question, before perspectives are seated", d)
			}
		}
	}
	if !found {
		t.Errorf("vague is not listed: %+v", list)
	}
	if sum, err := engine.Inspect(t.Context(), st, "unattended"); err != nil || !sum.Finished {
		t.Errorf("unattended: finished %v, err %v; want it played to its end", sum.Finished, err)
	}
}
