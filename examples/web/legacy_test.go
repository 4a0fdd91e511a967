package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"

	"github.com/duelogic/duelogic/engine"
	"github.com/duelogic/duelogic/llm"
	"github.com/duelogic/duelogic/persuasion"
	"github.com/duelogic/duelogic/store"
)

// legacyPersuasion returns a memory store holding the records of a
// persuasion fixture of the core module (persuasion/testdata): a debate
// stored before its debaters spoke as "pro" and "opp" (they spoke as "PRO"
// and "OPP") and before its configuration named "maxRounds" and the
// personas' "modelId" (it names "rounds" and "model"), and its debate ID.
func legacyPersuasion(t *testing.T, file string) (*store.Memory, string) {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("..", "..", "persuasion", "testdata", file))
	if err != nil {
		t.Fatal(err)
	}
	st := store.NewMemory()
	var id string
	sc := bufio.NewScanner(bytes.NewReader(b))
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		var r store.Record
		if err := json.Unmarshal(sc.Bytes(), &r); err != nil {
			t.Fatal(err)
		}
		if err := st.Append(t.Context(), r); err != nil {
			t.Fatal(err)
		}
		id = r.DebateID
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return st, id
}

// TestLegacyPersuasionDebate: a persuasion debate stored by an earlier
// version shows with its speakers labelled and its configuration under the
// current names, and a stopped one resumes from the page and finishes, the
// turns played after the resume by "pro" and "opp".
func TestLegacyPersuasionDebate(t *testing.T) {
	for _, tt := range []struct {
		name, file string
		resume     bool
	}{
		{"finished", "legacy_finished.jsonl", false},
		{"stopped, resumed", "legacy_cut.jsonl", true},
	} {
		t.Run(tt.name, func(t *testing.T) {
			st, id := legacyPersuasion(t, tt.file)
			s := newServer(llm.NewStub(7), st, nil)
			srv := httptest.NewServer(s.routes())
			t.Cleanup(func() {
				srv.Close()
				s.shutdown(0)
			})
			hs := srv.URL
			if tt.resume {
				if code := call(t, "POST", hs+"/api/debates/"+id+"/resume", "", nil); code != http.StatusAccepted {
					t.Fatalf("resume: %d", code)
				}
				if types := eventTypes(t, hs+"/api/debates/"+id+"/events"); types[len(types)-1] != "debate_ended" {
					t.Fatalf("resumed stream ends with %q", types[len(types)-1])
				}
				s.wg.Wait()
			}
			v := getView(t, hs, id)
			if v.Status != statusFinished || v.Verdict == nil || v.Verdict.Winner != persuasion.SpeakerPro {
				t.Fatalf("status %s, verdict %+v", v.Status, v.Verdict)
			}
			var cfg map[string]json.RawMessage
			if err := json.Unmarshal(v.Config, &cfg); err != nil {
				t.Fatal(err)
			}
			if string(cfg["maxRounds"]) != "1" || cfg["rounds"] != nil || !strings.Contains(string(cfg["pro"]), `"modelId"`) {
				t.Errorf("config %s", v.Config)
			}
			var old, added int
			for _, u := range v.Transcript {
				switch u.Speaker {
				case persuasion.SidePro, persuasion.SideOpp:
					old++
				case persuasion.SpeakerPro, persuasion.SpeakerOpp:
					added++
				}
				want := persuasion.SideOf(persuasion.SpeakerID(u.Speaker)) + ", the "
				if l := v.Labels[u.Speaker]; !strings.HasPrefix(l, want) {
					t.Errorf("speaker %q is labelled %q, want %q…", u.Speaker, l, want)
				}
			}
			if old+added != 6 || tt.resume != (added > 0) {
				t.Errorf("%d utterances as stored by the earlier version, %d after the resume", old, added)
			}
			for _, sp := range []string{persuasion.SpeakerPro, persuasion.SpeakerOpp, engine.SpeakerArbiter} {
				if v.Labels[sp] == "" {
					t.Errorf("no label for %q: %v", sp, v.Labels)
				}
			}
		})
	}
}

// checkPersuasionCards checks a persuasion debate's page: the debaters
// and the moderator named by the seed's side labels, in the roster and on
// the cards, and every debater's card showing its turn's moves, whether
// the debaters spoke as "pro" and "opp" or, stored by an earlier version,
// as "PRO" and "OPP".
func checkPersuasionCards(t *testing.T, ctx context.Context, p page) {
	t.Helper()
	if !slices.Equal(p.Roster, []string{"PRO", "OPP", "MOD"}) {
		t.Errorf("roster %q; want PRO, OPP, MOD", p.Roster)
	}
	if !slices.Equal(p.Names, []string{"PRO", "OPP", "MOD"}) {
		t.Errorf("cards by %q; want PRO, OPP, MOD", p.Names)
	}
	bare := eval[[]string](t, ctx, `[...document.querySelectorAll('.card')]
	  .filter((c) => c.dataset.speaker.toLowerCase() !== 'arbiter' && !c.querySelector('.moves li'))
	  .map((c) => c.dataset.speaker + ' ' + c.dataset.seq)`)
	if len(bare) != 0 {
		t.Errorf("debaters' cards without moves: %q", bare)
	}
}

// TestBrowserLegacyPersuasion: a persuasion debate stored by an earlier
// version, its debaters speaking as "PRO" and "OPP", reads back on the page
// as one of this version does; stopped, it resumes from the page and the
// turns played after the resume, by "pro" and "opp", show the same way.
func TestBrowserLegacyPersuasion(t *testing.T) {
	ctx := deadline(t, browser(t))
	for _, file := range []string{"legacy_finished.jsonl", "legacy_cut.jsonl"} {
		st, id := legacyPersuasion(t, file)
		hs := serve(t, newServer(llm.NewStub(7), st, nil))
		steps := []chromedp.Action[chromedp.Void]{chromedp.Navigate(hs.URL + "/#" + id)}
		if file == "legacy_cut.jsonl" {
			steps = append(steps, chromedp.WaitVisible(chromedp.ID("resume")), chromedp.Click(chromedp.ID("resume")))
		}
		if err := chromedp.Do(ctx, steps...); err != nil {
			t.Fatalf("%s: %v", file, err)
		}
		waitFor(t, ctx, file+" finished", finished+` && !document.getElementById('outcome').hidden`)
		p := readThePage(t, ctx)
		checkPersuasionCards(t, ctx, p)
		if p.Cards != 7 || !strings.Contains(p.Outcome, "PRO wins") {
			t.Errorf("%s: %d cards, outcome %q", file, p.Cards, p.Outcome)
		}
	}
}
