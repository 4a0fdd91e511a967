package formal

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/duelogic/duelogic/engine"
	"github.com/duelogic/duelogic/llm"
	"github.com/duelogic/duelogic/llm/jsonschema"
	"github.com/duelogic/duelogic/llm/llmtest"
	"github.com/duelogic/duelogic/store"
)

// Tests of the seed's requirements (seeds/001-formal-debate-with-verifier.md),
// each quoting the line it satisfies.

// "At the start of each round, review pending Verifier findings: ... If a
// fabricated source was reported: issue a `redaction` ruling immediately
// before the round begins." The promoter, disqualified by it (rule 12),
// speaks no more: round 2 never begins.
func TestFabricationStruckAtNextRoundStart(t *testing.T) {
	f := newFake(3, func(f *llmtest.Fake) {
		p := turns(SpeakerPromoter, 3)
		p[1] = reply("new_point", "Traffic fell.", nil, src("fabricated-r1")) // round 1
		f.OnModel("promoter-model").Reply(p...)
	})
	cfg := testConfig()
	cfg.MinRounds, cfg.MaxRounds = 3, 3
	res := mustRun(t, f, cfg)
	es := res.Detail.Entries
	at := func(content string) int {
		return slices.IndexFunc(es, func(e Entry) bool { return e.Content == content })
	}
	red := ofType(es, TypeRedaction)
	if len(red) != 1 {
		t.Fatalf("%d redactions, want 1", len(red))
	}
	round1 := at("Round 1 of 3 beginning.")
	point := slices.IndexFunc(es, func(e Entry) bool { return e.Speaker == SpeakerPromoter && e.Type == TypeNewPoint })
	audience := slices.IndexFunc(es, func(e Entry) bool { return e.Type == TypeAudienceQuestion })
	end := at("Phase 2 ends after 1 round: the promoter is disqualified under rule 12. Proceeding to Phase 3: the detractor's closing statement.")
	if !(round1 < point && point < red[0].Seq && red[0].Seq < end) || *red[0].TargetSeq != point || audience >= 0 {
		t.Errorf("round 1 at %d, the point at %d, its redaction at %d, the end of the rounds at %d: want the redaction right before round 2 would begin",
			round1, point, red[0].Seq, end)
	}
	if r := at("Round 2 of 3 beginning."); r >= 0 {
		t.Errorf("round 2 begins at %d", r)
	}
	// No turn after the redaction sees the struck content.
	for _, r := range requestsOf(f, PurposeTurn) {
		if strings.Contains(text(r), "Your turn: Deliver your closing") && strings.Contains(text(r), "Traffic fell.") {
			t.Errorf("%s's closing prompt shows the struck entry", r.Model)
		}
	}
}

// "12. **No fabricated URLs.** Citing a non-existent URL is an immediate
// disqualification offence." The outcome follows by rule: the other side
// wins, or the debate is void when both fabricated ("`void` — debate cannot
// be fairly concluded (e.g., both debaters had fabricated sources)").
func TestDisqualificationDecidesTheOutcome(t *testing.T) {
	for _, tc := range []struct {
		name         string
		pro, det     string // the sources of the openings
		verdict      Verdict
		disqualified []Speaker
		reason       string
	}{
		{"promoter", "fabricated-p", "fine-d", VerdictNegativeWins, []Speaker{SpeakerPromoter},
			"The promoter cited a fabricated source (1 struck entry) and is disqualified under rule 12; the detractor, who cited none, wins by rule."},
		{"detractor", "fine-p", "fabricated-d", VerdictAffirmativeWins, []Speaker{SpeakerDetractor},
			"The detractor cited a fabricated source (1 struck entry) and is disqualified under rule 12; the promoter, who cited none, wins by rule."},
		{"both", "fabricated-p", "fabricated-d", VerdictVoid, []Speaker{SpeakerPromoter, SpeakerDetractor},
			"Both debaters cited fabricated sources (1 struck entry of the promoter, 1 of the detractor) and are disqualified under rule 12, so the debate cannot be fairly concluded."},
		{"neither", "fine-p", "fine-d", VerdictDraw, nil, "The cases were balanced."},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := newFake(2, func(f *llmtest.Fake) {
				p := turns(SpeakerPromoter, 2)
				p[0] = reply("opening_statement", "promoter opens.", nil, src(tc.pro))
				f.OnModel("promoter-model").Reply(p...)
				d := turns(SpeakerDetractor, 2)
				d[0] = reply("opening_statement", "detractor opens.", nil, src(tc.det))
				f.OnModel("detractor-model").Reply(d...)
				// The chair model would call it a draw: by rule, it is
				// not asked.
			})
			res := mustRun(t, f, testConfig())
			o := res.Detail
			if o.Decision != tc.verdict || o.Reason != tc.reason || !slices.Equal(o.Disqualified, tc.disqualified) {
				t.Errorf("outcome %s %v %q\nwant %s %v %q", o.Decision, o.Disqualified, o.Reason, tc.verdict, tc.disqualified, tc.reason)
			}
			if want := map[bool]int{true: 0, false: 1}[tc.disqualified != nil]; f.Calls(PurposeVerdict) != want {
				t.Errorf("%d verdict requests, want %d", f.Calls(PurposeVerdict), want)
			}
			if c := ofType(o.Entries, TypeConclusion)[0].Content; c != fmt.Sprintf("Debate concluded. Outcome: %s. Reason: %s", tc.verdict, tc.reason) {
				t.Errorf("conclusion %q", c)
			}
			for _, r := range ofType(o.Entries, TypeRuling) {
				if strings.Contains(r.Content, "disqualification") && !strings.Contains(r.Content, "is disqualified: the ") {
					t.Errorf("ruling %q does not say who is disqualified", r.Content)
				}
			}
		})
	}
}

// "Handling interruptions during a round: ... Clarification requests:
// respond immediately, log ruling, resume turn."
func TestClarificationRequest(t *testing.T) {
	const question = "May a rebuttal answer an opening statement?"
	const answer = "Yes: any argument of the other side still on the record may be rebutted."
	script := func(f *llmtest.Fake) {
		p := turns(SpeakerPromoter, 2)
		p = append(p[:1:1], append([]string{reply("clarification_request", question, nil)}, p[1:]...)...)
		f.OnModel("promoter-model").Reply(p...)
		f.OnPurpose(PurposeClarification).Reply(`{"ruling": "` + answer + `"}`)
	}
	f := newFake(2, script)
	res := mustRun(t, f, testConfig())
	es := res.Detail.Entries
	// 5 and 6 review the openings, 7 announces round 1.
	want := []string{"clarification_request:promoter", "ruling:chair", "new_point:promoter", "new_point:detractor"}
	if diff := cmp.Diff(want, types(es[8:12])); diff != "" {
		t.Fatalf("round 1 (-want +got):\n%s", diff)
	}
	if q := es[8]; q.Content != question || q.Phase != PhaseRebuttal || q.Sources != nil {
		t.Errorf("request %+v", q)
	}
	if r := es[9]; *r.TargetSeq != 8 || r.Content != "Ruling on seq 8: the promoter's request for clarification. "+answer {
		t.Errorf("ruling %+v", r)
	}
	if u := res.Transcript[9]; u.Speaker != engine.SpeakerArbiter || u.Target != string(SpeakerPromoter) || u.ReplyTo != res.Transcript[8].Seq {
		t.Errorf("the ruling is said by %s to %s, answering %d", u.Speaker, u.Target, u.ReplyTo)
	}
	// The turn resumed: asked again with the ruling, and without the
	// option of another request.
	var round1 []llm.Request
	for _, r := range requestsOf(f, PurposeTurn) {
		if r.Model == "promoter-model" && strings.Contains(text(r), "Your turn: Round 1 of") {
			round1 = append(round1, r)
		}
	}
	if len(round1) != 2 {
		t.Fatalf("%d promoter round-1 turn requests, want 2", len(round1))
	}
	if !bytes.Contains(round1[0].Schema, []byte(`"clarification_request"`)) || bytes.Contains(round1[1].Schema, []byte(`"clarification_request"`)) {
		t.Errorf("schemas: first %s\nresumed %s", round1[0].Schema, round1[1].Schema)
	}
	if !strings.Contains(text(round1[1]), "The chair's ruling, which is binding:\n<ruling>\n"+answer+"\n</ruling>\nYour turn resumes now.") {
		t.Errorf("resumed prompt:\n%s", text(round1[1]))
	}
	if j := res.Judgments[PurposeClarification]; j.First != 1 {
		t.Errorf("clarification judgments %+v", j)
	}
	if c := requestsOf(f, PurposeClarification); len(c) != 1 || c[0].Model != "chair-model" || !strings.Contains(text(c[0]), "<question>\n"+question+"\n</question>") {
		t.Errorf("clarification requests %+v", c)
	}

	// Stopped right after the chair's answer was stored, the debate
	// resumes with the turn: the chair is not asked again.
	mem := store.NewMemory()
	if _, err := runFake(t, newFake(2, script), testConfig(), engine.WithStore(&stopAfterKey{Store: mem, key: "round1:promoter:clarification"})); !errors.Is(err, errDisk) {
		t.Fatalf("stopped run: %v", err)
	}
	f2 := newFake(2, func(f *llmtest.Fake) {
		f.OnModel("promoter-model").Reply(turns(SpeakerPromoter, 2)[1:]...)
		f.OnModel("detractor-model").Reply(turns(SpeakerDetractor, 2)[1:]...)
	})
	got, err := resumeWith(t, f2, []Option{(&fakeVerifier{}).option()}, engine.WithStore(mem))
	if err != nil {
		t.Fatal(err)
	}
	if f2.Calls(PurposeClarification) != 0 {
		t.Error("the chair was asked again")
	}
	if diff := cmp.Diff(res.Detail.Entries, got.Detail.Entries); diff != "" {
		t.Errorf("resumed log (-uninterrupted +resumed):\n%s", diff)
	}
}

// The offline stub asks the chair for a clarification in some debates (this
// one with seed 3; the conformance suite plays another), and the chair
// answers.
func TestStubAsksForClarification(t *testing.T) {
	cfg := DefaultConfig()
	cfg.MinRounds, cfg.MaxRounds = 1, 2
	res, err := runWith(t, llm.NewStub(3), cfg, nil)
	if err != nil {
		t.Fatal(err)
	}
	es := res.Detail.Entries
	i := slices.IndexFunc(es, func(e Entry) bool { return e.Type == TypeClarificationRequest })
	if i < 0 {
		t.Fatal("no clarification request")
	}
	if r := es[i+1]; r.Type != TypeRuling || *r.TargetSeq != i || !strings.Contains(r.Content, "request for clarification") {
		t.Errorf("after the request: %+v", r)
	}
	if n := es[i+2]; n.Speaker != es[i].Speaker || !n.Type.argument() {
		t.Errorf("the turn did not resume: %+v", n)
	}
	checkLog(t, es)
}

// "If `topic` is empty: use `topic_prompt` from config as the topic".
func TestTopicPrompt(t *testing.T) {
	cfg := DefaultConfig()
	cfg.TopicPrompt = "Should cities ban cars?"
	for _, tc := range []struct{ topic, want string }{
		{"Is remote work better?", "Is remote work better?"},
		{"", "Should cities ban cars?"},
		{"  \n", "Should cities ban cars?"},
	} {
		if got, err := cfg.Topic(tc.topic); got != tc.want || err != nil {
			t.Errorf("Topic(%q) = %q, %v; want %q", tc.topic, got, err, tc.want)
		}
	}
	if _, err := DefaultConfig().Topic(" "); !errors.Is(err, ErrNoTopic) {
		t.Errorf("no topic and no prompt: %v", err)
	}
	cfg.TopicPrompt = strings.Repeat("x", engine.MaxPropositionRunes+1)
	var ve *engine.ValidationError
	if err := cfg.Validate(); !errors.As(err, &ve) || ve.Violations[0].Field != "topicPrompt" {
		t.Errorf("Validate: %v", err)
	}
}

// The seed's output directory: "output/<timestamp>-<slug>/", named at
// startup ("TIMESTAMP=$(date -u +"%Y%m%dT%H%M%SZ")"), holding the reporter's
// documents, the assessor's report and, here, the log; "Blog post is
// suppressed on void."
func TestWriteOutput(t *testing.T) {
	cfg := testConfig()
	res := mustRun(t, newFake(2, nil), cfg)
	parent := t.TempDir()
	dir, files, err := WriteOutput(parent, testDebate.Proposition, res.Detail)
	if err != nil {
		t.Fatal(err)
	}
	// The recorded start names it, not the time of writing.
	if want := filepath.Join(parent, "20260221T140000Z-cities-should-ban-cars-from-their-centres-"); dir != want {
		t.Errorf("dir %s, want %s", dir, want)
	}
	if !res.Detail.Started.Equal(testStart) {
		t.Errorf("started %v", res.Detail.Started)
	}
	var names []string
	for _, f := range files {
		names = append(names, filepath.Base(f))
	}
	if diff := cmp.Diff([]string{FileTranscript, FileSummary, FileBlogPost, FileAssessorReport, FileLog}, names); diff != "" {
		t.Errorf("files (-want +got):\n%s", diff)
	}
	// The log reads back as the debate's.
	b, err := os.ReadFile(filepath.Join(dir, FileLog))
	if err != nil {
		t.Fatal(err)
	}
	back, err := ImportLog(bytes.NewReader(b))
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(res.Detail.Entries, back); diff != "" {
		t.Errorf("imported log (-debate +file):\n%s", diff)
	}
	if back[0].Seq != 0 || back[0].Type != TypeSetup {
		t.Errorf("first line %+v", back[0])
	}
	// Written again: the same directory, untouched.
	if again, _, err := WriteOutput(parent, testDebate.Proposition, res.Detail); again != dir || err != nil {
		t.Errorf("again: %s, %v", again, err)
	}
	// Another outcome under the same name goes beside it.
	other := *res.Detail
	other.Docs.Summary = "# Another summary\n"
	if d2, _, err := WriteOutput(parent, testDebate.Proposition, &other); d2 != dir+"-2" || err != nil {
		t.Errorf("another outcome: %s, %v", d2, err)
	}
	// On a void debate, no blog post.
	void := *res.Detail
	void.Decision, void.Docs.BlogPost = VerdictVoid, ""
	d3, files, err := WriteOutput(t.TempDir(), testDebate.Proposition, &void)
	if err != nil || len(files) != 4 {
		t.Errorf("void: %v, %v", files, err)
	}
	if _, err := os.Stat(filepath.Join(d3, FileBlogPost)); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("blog post on a void debate: %v", err)
	}
	if _, _, err := WriteOutput(parent, "x", &Outcome{}); err == nil {
		t.Error("an outcome without a start time was written")
	}
}

// The conformance suite's clock reaches the start: two clocks, two names.
func TestWriteOutputNamesTheStart(t *testing.T) {
	later := testStart.Add(26*time.Hour + 3*time.Second)
	res, err := runFake(t, newFake(2, nil), testConfig(), engine.WithClock(func() time.Time { return later }))
	if err != nil {
		t.Fatal(err)
	}
	dir, _, err := WriteOutput(t.TempDir(), "Topic", res.Detail)
	if err != nil || filepath.Base(dir) != "20260222T160003Z-topic" {
		t.Errorf("dir %s, %v", dir, err)
	}
}

// The turn's schema says what parseTurn requires, so a server whose
// grammar holds a model to it (llama.cpp) gets a turn that parses: the
// simplest reply the schema admits parses.
func TestTurnSchemaSaysTheParsersRules(t *testing.T) {
	rules := roundRules
	rules.allowed = append(slices.Clone(roundRules.allowed), TypeClarificationRequest)
	for name, schema := range map[string]json.RawMessage{
		"opening": turnSchema(openingRules.allowed, nil, nil, nil),
		"round":   turnSchema(rules.allowed, rules.rebuttable, rules.challenge, rules.order),
	} {
		zero, err := jsonschema.Zero(schema)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		r := openingRules
		if name == "round" {
			r = rules
		}
		if _, err := parseTurn(string(zero), r); err != nil {
			t.Errorf("%s: the schema's zero reply %s does not parse: %v", name, zero, err)
		}
	}
	// A schema-shaped reply that the old schema let through fails now.
	round := turnSchema(rules.allowed, rules.rebuttable, rules.challenge, rules.order)
	for _, bad := range []string{
		`{"type": "new_point", "content": "x", "sources": [], "rebuttal_to_seq": null, "source_challenge": null, "point_of_order": {"target_seq": 3, "rule": 6, "complaint": "c"}}`,
		`{"type": "new_point", "content": "x", "sources": [], "rebuttal_to_seq": null, "source_challenge": null, "point_of_order": {"target_seq": 2, "rule": 8, "complaint": "c"}}`,
		`{"type": "new_point", "content": "x", "sources": [], "rebuttal_to_seq": null, "source_challenge": null, "point_of_order": {"target_seq": 2, "rule": 7, "complaint": ""}}`,
		`{"type": "new_point", "content": "", "sources": [], "rebuttal_to_seq": null, "source_challenge": null, "point_of_order": null}`,
		`{"type": "new_point", "content": "x", "sources": [{"url": ", a tiny test model.", "title": "t", "accessed": "2026-02-20"}], "rebuttal_to_seq": null, "source_challenge": null}`,
		`{"type": "new_point", "content": "x", "sources": [{"url": "https://e.org/", "title": "", "accessed": "2026-02-20"}], "rebuttal_to_seq": null, "source_challenge": null}`,
		`{"type": "new_point", "content": "x", "sources": [{"url": "https://e.org/", "title": "t", "accessed": "2026-02-30"}], "rebuttal_to_seq": null, "source_challenge": null}`,
		`{"type": "new_point", "content": "x", "sources": [], "rebuttal_to_seq": null, "source_challenge": {"target_seq": 2, "url": "https://example.org/a", "claim": "c"}}`,
		`{"type": "new_point", "content": "x", "sources": [], "rebuttal_to_seq": null, "source_challenge": {"target_seq": 6, "url": "https://example.org/a", "claim": ""}}`,
	} {
		if jsonschema.Check(round, []byte(bad)) == nil {
			t.Errorf("the schema admits %s", bad)
		}
		if _, err := parseTurn(bad, rules); err == nil {
			t.Errorf("parseTurn accepts %s", bad)
		}
	}
	if err := jsonschema.Check(relaySchema(2), []byte(`{"relay": [3], "reason": ""}`)); err == nil {
		t.Error("the relay schema admits question 3 of 2")
	}
}

// sourceDatePattern matches exactly the dates time.Parse reads.
func TestSourceDatePattern(t *testing.T) {
	re := regexp.MustCompile(sourceDatePattern)
	for _, y := range []int{0, 1900, 1996, 2000, 2023, 2024, 2026, 2100, 2400, 9999} {
		for m := 0; m <= 13; m++ {
			for d := 0; d <= 32; d++ {
				s := fmt.Sprintf("%04d-%02d-%02d", y, m, d)
				_, err := time.Parse(time.DateOnly, s)
				if re.MatchString(s) != (err == nil) {
					t.Errorf("%s: pattern %v, time.Parse %v", s, re.MatchString(s), err)
				}
			}
		}
	}
	for _, s := range []string{"", "2026-1-02", "2026-01-02 ", "x2026-01-02", "20260102"} {
		if re.MatchString(s) {
			t.Errorf("%q matches", s)
		}
	}
}

// Every URL sourceURLPattern matches is one checkSource accepts.
func FuzzSourceURLPattern(f *testing.F) {
	for _, s := range []string{"https://example.org/a?b=c#d", "http://a", "https://a-b.c:8080/%41/x(y)", "https://0/", "ftp://x", "https://", "http://a/%zz"} {
		f.Add(s)
	}
	re := regexp.MustCompile(sourceURLPattern)
	f.Fuzz(func(t *testing.T, s string) {
		if re.MatchString(s) {
			if err := checkSource(Source{URL: s}); err != nil {
				t.Fatalf("%q matches the pattern, but %v", s, err)
			}
		}
	})
}
