package main

import (
	"encoding/json"
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/duelogic/duelogic/engine"
	"github.com/duelogic/duelogic/llm"
	"github.com/duelogic/duelogic/moderated"
	"github.com/duelogic/duelogic/store"
	"github.com/duelogic/duelogic/store/storetest"
)

// postFormat starts debate d in format f in st and stops it after its
// first record.
func postFormat[R any](t *testing.T, st store.Store, f engine.Format[R], d engine.Debate) {
	t.Helper()
	if _, err := engine.Run(t.Context(), llm.NewStub(1), f, d, engine.WithStore(storetest.FailAfter(st, 1, errStopped))); !errors.Is(err, errStopped) {
		t.Fatalf("post %s: %v", d.ID, err)
	}
}

// lines collects what a worker prints until it ends: the debates it
// paused, and those it played with their verdict lines.
func lines(t *testing.T, out <-chan string) (paused []string, played map[string]int, verdicts map[string]string) {
	t.Helper()
	played, verdicts = map[string]int{}, map[string]string{}
	for l := range out {
		switch f := strings.Fields(l); {
		case len(f) == 2 && f[0] == "paused":
			paused = append(paused, f[1])
		case len(f) == 3 && f[0] == "played":
			played[f[1]]++
		case len(f) >= 2 && f[0] == "verdict":
			verdicts[f[1]] = strings.Join(f[2:], " ")
		}
	}
	return paused, played, verdicts
}

// A worker finishes the debates of every format the engine has, each with
// its stored configuration, and prints its verdict line; a moderated
// debate, whose checkpoints wait for a person, it plays to its first
// checkpoint only and leaves paused.
func TestWorkerEveryFormat(t *testing.T) {
	dsn := schemaDSN(t)
	st := openStore(t, dsn)
	for _, name := range engine.Formats() {
		f, err := engine.Open(name, nil)
		if err != nil {
			t.Fatal(err)
		}
		// The stub does not settle this question in one moderated round.
		postFormat(t, st, f, engine.Debate{ID: name, Proposition: "Should sign-in use passkeys or passwords?"})
	}

	w, out := startWorker(t, dsn)
	paused, played, verdicts := lines(t, out)
	if err := w.Wait(); err != nil {
		t.Fatalf("worker: %v", err)
	}
	for _, id := range engine.Formats() {
		if id == moderated.FormatName {
			continue
		}
		if played[id] != 1 {
			t.Errorf("%s played %d times, want once", id, played[id])
		}
		res, err := engine.ResumeStored(t.Context(), llm.NewStub(1), id, engine.WithStore(st))
		if err != nil {
			t.Errorf("%s: %v", id, err)
			continue
		}
		if want := res.Detail.Verdict().Summary; verdicts[id] != want {
			t.Errorf("%s: verdict line %q; want %q", id, verdicts[id], want)
		}
	}
	if !slices.Equal(paused, []string{moderated.FormatName}) || played[moderated.FormatName] != 0 {
		t.Errorf("paused %v, moderated played %d times; want it paused once, not played", paused, played[moderated.FormatName])
	}
	recs, err := st.Records(t.Context(), moderated.FormatName)
	if err != nil {
		t.Fatal(err)
	}
	if q, ok := engine.Pending(recs); !ok || q.Kind != engine.QuestionCheckpoint {
		t.Errorf("moderated: pending %+v, %t; want it left at its checkpoint", q, ok)
	}
}

// oldPageUnattended is a moderated format stored as earlier versions of the
// web page stored one started with checkpoints off.
type oldPageUnattended struct{ *moderated.Format }

func (u oldPageUnattended) MarshalJSON() ([]byte, error) {
	return json.Marshal(struct {
		Config     moderated.Config `json:"config"`
		Unattended bool             `json:"unattended"`
	}{u.Config, true})
}

// A worker leaves a moderated debate paused at its clarifying question (a
// vague one) for its person — a second worker leaves it as it is, without
// asking again — and plays one started unattended to its end, also one an
// earlier web page stored unattended in its own way.
func TestWorkerModeratedPerson(t *testing.T) {
	dsn := schemaDSN(t)
	st := openStore(t, dsn)
	m, err := moderated.New(moderated.DefaultConfig())
	if err != nil {
		t.Fatal(err)
	}
	postFormat(t, st, m, engine.Debate{ID: "vague", Proposition: "Redis?"})
	postFormat(t, st, m, engine.Debate{ID: "unattended", Proposition: "Redis?", Unattended: true})
	postFormat(t, st, oldPageUnattended{m}, engine.Debate{ID: "legacy", Proposition: "Redis?"})

	w, out := startWorker(t, dsn)
	paused, played, _ := lines(t, out)
	if err := w.Wait(); err != nil {
		t.Fatalf("worker: %v", err)
	}
	if !slices.Equal(paused, []string{"vague"}) {
		t.Errorf("paused %q; want the vague debate paused", paused)
	}
	for _, id := range []string{"unattended", "legacy"} {
		if sum, err := engine.Inspect(t.Context(), st, id); err != nil || !sum.Finished || played[id] != 1 {
			t.Errorf("%s: finished %v, played %d times, err %v; want it played to its end", id, sum.Finished, played[id], err)
		}
	}
	recs, err := st.Records(t.Context(), "vague")
	if err != nil {
		t.Fatal(err)
	}
	if q, ok := engine.Pending(recs); !ok || q.Kind != engine.QuestionClarification {
		t.Fatalf("vague: pending %+v, %t; want its clarifying question", q, ok)
	}

	// Another worker finds it waiting and leaves it: nothing is stored.
	w, out = startWorker(t, dsn)
	paused, played, _ = lines(t, out)
	if err := w.Wait(); err != nil {
		t.Fatalf("second worker: %v", err)
	}
	again, err := st.Records(t.Context(), "vague")
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(paused, []string{"vague"}) || len(played) != 0 || len(again) != len(recs) {
		t.Errorf("second worker: paused %q, played %v, %d records (were %d); want vague left as it is", paused, played, len(again), len(recs))
	}
}
