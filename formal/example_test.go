package formal_test

import (
	"context"
	"encoding/json"
	"fmt"
	"log"
	"strings"
	"time"

	"github.com/duelogic/duelogic/engine"
	"github.com/duelogic/duelogic/formal"
	"github.com/duelogic/duelogic/llm"
	"github.com/duelogic/duelogic/store"
)

// A formal debate on the offline stub model, played by the engine. The
// default verifier checks sources with the LLM judge alone (JudgeOnly), so
// nothing is fetched; set cfg.OutputDir to have the documents written. The
// session clock is pinned so that the entries' timestamps and the sources'
// dates are too; the stub's debate takes the same course whatever the date.
func Example() {
	cfg := formal.DefaultConfig()
	cfg.MinRounds, cfg.MaxRounds = 1, 2
	f, err := formal.New(cfg)
	if err != nil {
		log.Fatal(err)
	}
	now := func() time.Time { return time.Date(2026, 1, 2, 15, 4, 5, 0, time.UTC) }
	res, err := engine.Run(context.Background(), llm.NewStub(2), f,
		engine.Debate{Proposition: "Cities should ban cars from their centres."}, engine.WithClock(now))
	if err != nil {
		log.Fatal(err)
	}
	for _, u := range res.Transcript[:6] {
		fmt.Printf("%s: %s\n", u.Speaker, u.Kind)
	}
	out := res.Detail
	fmt.Println("entries:", len(out.Entries), "said:", len(res.Transcript))
	fmt.Println("rounds:", out.Rounds, out.EndedBy)
	fmt.Println("verdict:", out.Decision, "-", out.Verdict().Summary)
	fmt.Println("struck entries:", len(out.Redactions))
	fmt.Println("blog post:", out.Docs.BlogPost != "")
	// Output:
	// arbiter: setup
	// arbiter: announcement
	// promoter: opening_statement
	// detractor: opening_statement
	// arbiter: announcement
	// verifier: verification_result
	// entries: 31 said: 31
	// rounds: 2 max_rounds
	// verdict: affirmative_wins - promoter wins
	// struck entries: 0
	// blog post: true
}

// Any format by name: engine.Open takes the configuration as JSON (what it
// leaves out takes DefaultConfig's values), the outcome says who won and
// holds the documents in the terms every format shares, and a debate is
// resumed by its ID alone — here a finished one, which gives its result
// again without calling a model.
func Example_open() {
	ctx := context.Background()
	f, err := engine.Open(formal.FormatName, json.RawMessage(`{"minRounds": 1, "maxRounds": 2}`))
	if err != nil {
		log.Fatal(err)
	}
	st := store.NewMemory()
	now := func() time.Time { return time.Date(2026, 1, 2, 15, 4, 5, 0, time.UTC) }
	d := engine.Debate{ID: "fd-example", Proposition: "Cities should ban private cars from their centres."}
	res, err := engine.Run(ctx, llm.NewStub(0), f, d, engine.WithStore(st), engine.WithClock(now))
	if err != nil {
		log.Fatal(err) // res, if not nil, holds the debate so far: engine.ResumeStored finishes it
	}
	v := res.Detail.Verdict()
	fmt.Printf("%s: winner %q\n", v.Summary, v.Winner)
	for _, doc := range res.Detail.Documents() {
		fmt.Printf("%s (%s)\n", doc.Name, doc.Title)
	}
	again, err := engine.ResumeStored(ctx, llm.NewStub(0), d.ID, engine.WithStore(st))
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println("resumed:", again.Detail.Verdict().Summary)
	// Output:
	// promoter wins: winner "promoter"
	// transcript.md (Transcript)
	// summary.md (Summary)
	// blog-post.md (Blog post)
	// assessor-report.md (Assessor's report)
	// resumed: promoter wins
}

// The log in the seed's JSONL schema, and back.
func ExampleExportLog() {
	at := time.Date(2026, 2, 21, 14, 0, 0, 0, time.UTC)
	entries := []formal.Entry{
		{Seq: 0, Timestamp: at, Phase: formal.PhaseSystem, Speaker: formal.SpeakerChair, Type: formal.TypeSetup,
			Content: "Debate session initialised. Chair is ready."},
		{Seq: 1, Timestamp: at, Phase: formal.PhaseOpening, Speaker: formal.SpeakerPromoter, Type: formal.TypeOpeningStatement,
			Content: "Traffic fell by 40%.", Sources: []formal.Source{{URL: "https://example.org/r", Title: "R", Accessed: "2026-02-21"}}},
	}
	var b strings.Builder
	if err := formal.ExportLog(&b, entries); err != nil {
		log.Fatal(err)
	}
	fmt.Print(b.String())
	back, err := formal.ImportLog(strings.NewReader(b.String()))
	fmt.Println(len(back), err)

	_, err = formal.ImportLog(strings.NewReader(strings.Replace(b.String(), `"seq":1`, `"seq":2`, 1)))
	fmt.Println(err)
	// Output:
	// {"seq":0,"timestamp":"2026-02-21T14:00:00Z","phase":"system","speaker":"chair","type":"setup","content":"Debate session initialised. Chair is ready.","sources":null,"rebuttal_to_seq":null,"target_seq":null}
	// {"seq":1,"timestamp":"2026-02-21T14:00:00Z","phase":"opening","speaker":"promoter","type":"opening_statement","content":"Traffic fell by 40%.","sources":[{"url":"https://example.org/r","title":"R","accessed":"2026-02-21"}],"rebuttal_to_seq":null,"target_seq":null}
	// 2 <nil>
	// formal: invalid log: line 2: seq 2, want 1
}

// Sources are fetched, never from a private, loopback or link-local
// address.
func ExampleHTTPVerifier() {
	v := formal.NewHTTPVerifier(formal.HTTPOptions{Timeout: 5 * time.Second})
	res, err := v.Verify(context.Background(), formal.Source{URL: "http://169.254.169.254/latest/meta-data/", Title: "Metadata"}, "")
	fmt.Println(res.Status, err)
	fmt.Println(res.Reason)
	// Output:
	// unreliable <nil>
	// The URL leads to a private, loopback or otherwise non-public address, which is not checked.
}
