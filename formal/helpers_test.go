package formal

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/duelogic/duelogic/engine"
	"github.com/duelogic/duelogic/llm"
	"github.com/duelogic/duelogic/llm/llmtest"
)

var testDebate = engine.Debate{ID: "fd-1", Proposition: "Cities should ban cars from their centres."}

var testStart = time.Date(2026, 2, 21, 14, 0, 0, 0, time.UTC)

func fixedClock() func() time.Time { return func() time.Time { return testStart } }

// testConfig is a short debate with one model per participant, named after
// it.
func testConfig() Config {
	return Config{
		ChairModel: "chair-model", PromoterModel: "promoter-model", DetractorModel: "detractor-model",
		VerifierModel: "verifier-model", AudienceModel: "audience-model", ReporterModel: "reporter-model",
		AssessorModel: "assessor-model",
		MinRounds:     1, MaxRounds: 2,
	}
}

// src is a source whose URL tells fakeVerifier what to find.
func src(name string) map[string]string {
	return map[string]string{"url": "https://example.org/" + name, "title": "Report " + name, "accessed": "2026-02-20"}
}

// reply encodes a debater turn.
func reply(typ, content string, rebuttal any, sources ...map[string]string) string {
	m := map[string]any{"type": typ, "content": content, "sources": sources, "rebuttal_to_seq": rebuttal}
	if sources == nil {
		m["sources"] = []any{}
	}
	b, _ := json.Marshal(m)
	return string(b)
}

// turns are a debater's replies for a debate of n rounds: an opening, n new
// points and a closing, all sourced.
func turns(who Speaker, n int) []string {
	out := []string{reply("opening_statement", fmt.Sprintf("%s opens.", who), nil, src(string(who)+"-open"))}
	for r := 1; r <= n; r++ {
		out = append(out, reply("new_point", fmt.Sprintf("%s point %d.", who, r), nil, src(fmt.Sprintf("%s-%d", who, r))))
	}
	return append(out, reply("closing_statement", fmt.Sprintf("%s closes.", who), nil, src(string(who)+"-close")))
}

// words is a text of n words.
func words(n int) string { return strings.TrimSpace(strings.Repeat("word ", n)) }

// newFake returns a fake answering every purpose validly: the debaters with
// their turns for a debate of rounds rounds, the chair never ending rounds
// early and declaring a draw. Rules added by script come first and win.
func newFake(rounds int, script func(f *llmtest.Fake)) *llmtest.Fake {
	f := llmtest.New()
	if script != nil {
		script(f)
	}
	f.OnModel("promoter-model").Reply(turns(SpeakerPromoter, rounds)...)
	f.OnModel("detractor-model").Reply(turns(SpeakerDetractor, rounds)...)
	f.OnPurpose(PurposeVerification).Reply(`{"status": "verified", "reason": "The page exists."}`)
	f.OnPurpose(PurposeAudienceQuestions).Reply(`{"questions": []}`)
	f.OnPurpose(PurposeRelay).Reply(`{"relay": [], "reason": "None relayed."}`)
	f.OnPurpose(PurposeConclusionCheck).Reply(`{"concluded": false, "reason": "More to say."}`)
	f.OnPurpose(PurposeVerdict).Reply(`{"outcome": "draw", "reason": "The cases were balanced."}`)
	f.OnPurpose(PurposePointOfOrder).Reply(`{"upheld": false, "ruling": "The entry addresses the argument."}`)
	f.OnPurpose(PurposeAudienceConclusion).Reply(words(250))
	f.OnPurpose(PurposeSummary).Reply("# Summary\n\nBoth sides argued.")
	f.OnPurpose(PurposeBlogPost).Reply("# Blog post\n\nA debate took place.")
	f.OnPurpose(PurposeAssessment).Reply("# Assessment\n\nGood.")
	return f
}

// fakeVerifier finds a source fabricated or unreliable when its URL says
// so, and verified otherwise. It counts its calls.
type fakeVerifier struct {
	mu    sync.Mutex
	calls map[string]int
}

func (v *fakeVerifier) Verify(ctx context.Context, s Source, claim string) (Verification, error) {
	v.mu.Lock()
	if v.calls == nil {
		v.calls = map[string]int{}
	}
	v.calls[s.URL]++
	v.mu.Unlock()
	switch {
	case strings.Contains(s.URL, "fabricated"):
		return Verification{Status: StatusFabricated, Reason: "No such page."}, nil
	case strings.Contains(s.URL, "unreliable"):
		return Verification{Status: StatusUnreliable, Reason: "The page does not support the claim."}, nil
	}
	return Verification{Status: StatusVerified, Reason: "The page exists."}, nil
}

func (v *fakeVerifier) option() Option {
	return WithVerifier(func(SourceVerifier) SourceVerifier { return v })
}

// result is a finished formal debate.
type result = engine.Result[*Outcome]

// newFormat returns the format for cfg with opts.
func newFormat(t *testing.T, cfg Config, opts ...Option) *Format {
	t.Helper()
	f, err := New(cfg, opts...)
	if err != nil {
		t.Fatal(err)
	}
	return f
}

// runWith runs testDebate with cfg and the format options fopts on client,
// on a fixed clock unless eopts set another.
func runWith(t *testing.T, client llm.Client, cfg Config, fopts []Option, eopts ...engine.Option) (*result, error) {
	t.Helper()
	f, err := New(cfg, fopts...)
	if err != nil {
		return nil, err
	}
	return engine.Run(t.Context(), client, f, testDebate, append([]engine.Option{engine.WithClock(fixedClock())}, eopts...)...)
}

// resumeWith resumes testDebate with the format options fopts on client, on
// a fixed clock unless eopts set another.
func resumeWith(t *testing.T, client llm.Client, fopts []Option, eopts ...engine.Option) (*result, error) {
	t.Helper()
	return engine.Resume(t.Context(), client, newFormat(t, DefaultConfig(), fopts...), testDebate.ID,
		append([]engine.Option{engine.WithClock(fixedClock())}, eopts...)...)
}

// runFake runs testDebate with cfg on client with a fake verifier and a
// fixed clock.
func runFake(t *testing.T, client llm.Client, cfg Config, eopts ...engine.Option) (*result, error) {
	t.Helper()
	return runWith(t, client, cfg, []Option{(&fakeVerifier{}).option()}, eopts...)
}

func mustRun(t *testing.T, client llm.Client, cfg Config, eopts ...engine.Option) *result {
	t.Helper()
	res, err := runFake(t, client, cfg, eopts...)
	if err != nil {
		t.Fatal(err)
	}
	checkLog(t, res.Detail.Entries)
	checkTranscript(t, res)
	return res
}

// checkTranscript checks that the transcript says the log: one utterance
// per entry, in order, by the entry's speaker (the chair as the arbiter),
// of the entry's type, with its struck content.
func checkTranscript(t *testing.T, res *result) {
	t.Helper()
	type said struct {
		Speaker, Kind, Content string
	}
	var want, got []said
	for _, e := range res.Detail.Entries {
		want = append(want, said{e.Speaker.voice(), string(e.Type), e.Content})
	}
	for _, u := range res.Transcript {
		got = append(got, said{u.Speaker, string(u.Kind), u.Content})
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("the transcript does not say the log (-log +transcript):\n%s", diff)
	}
}

// checkLog checks that entries are a valid log in the seed's schema: they
// export and import back unchanged.
func checkLog(t *testing.T, entries []Entry) {
	t.Helper()
	var buf bytes.Buffer
	if err := ExportLog(&buf, entries); err != nil {
		t.Fatal(err)
	}
	got, err := ImportLog(&buf)
	if err != nil {
		t.Fatalf("the debate's log does not import: %v", err)
	}
	if len(got) != len(entries) {
		t.Fatalf("imported %d entries of %d", len(got), len(entries))
	}
}

// types lists the types of entries, "type:speaker".
func types(entries []Entry) []string {
	var out []string
	for _, e := range entries {
		out = append(out, string(e.Type)+":"+string(e.Speaker))
	}
	return out
}

// ofType returns the entries of type t.
func ofType(entries []Entry, t EntryType) []Entry {
	var out []Entry
	for _, e := range entries {
		if e.Type == t {
			out = append(out, e)
		}
	}
	return out
}

// requestsOf returns the requests with the given purpose.
func requestsOf(f *llmtest.Fake, purpose string) []llm.Request {
	var out []llm.Request
	for _, r := range f.Requests() {
		if r.Purpose == purpose {
			out = append(out, r)
		}
	}
	return out
}

func text(r llm.Request) string {
	var b strings.Builder
	for _, m := range r.Messages {
		b.WriteString(m.Content)
		b.WriteByte('\n')
	}
	return b.String()
}

var errDisk = errors.New("disk full")

// countingClient counts the calls it passes on.
type countingClient struct {
	llm.Client
	mu sync.Mutex
	n  int
}

func (c *countingClient) Complete(ctx context.Context, req llm.Request) (llm.Response, error) {
	c.mu.Lock()
	c.n++
	c.mu.Unlock()
	return c.Client.Complete(ctx, req)
}

func (c *countingClient) calls() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.n
}
