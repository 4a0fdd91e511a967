package duelogic

import (
	"bytes"
	"context"
	"errors"
	"strings"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/duelogic/duelogic/argumentation"
	"github.com/duelogic/duelogic/engine"
	"github.com/duelogic/duelogic/llm"
	"github.com/duelogic/duelogic/store"
)

func TestArgumentMapOnStub(t *testing.T) {
	cfg := shortConfig()
	c := newTestClient()
	var updates []MovesUpdate
	sink := SinkFunc(func(_ context.Context, e Event) {
		if e.Type == EventArgumentMap {
			mu, err := engine.DataAs[MovesUpdate](e)
			if err != nil {
				t.Error(err)
			}
			updates = append(updates, mu)
		}
	})
	d := prop
	d.ID = "mapped"
	mem := store.NewMemory()
	res, err := mustNew(t, cfg, c, WithArgumentMap(argumentation.Additive), WithSink(sink), WithStore(mem)).Run(context.Background(), d)
	if err != nil {
		t.Fatal(err)
	}
	am := res.Arguments
	if am == nil {
		t.Fatal("no argument map")
	}
	chairTurns := 0
	for _, u := range res.Transcript {
		if u.Speaker != SpeakerArbiter {
			chairTurns++
		}
	}
	if got := c.count(PurposeArgumentExtraction); got != chairTurns {
		t.Errorf("%d extractions for %d chair turns", got, chairTurns)
	}
	if len(updates) != chairTurns {
		t.Errorf("%d argument_map events for %d chair turns", len(updates), chairTurns)
	}
	if len(am.Moves) < chairTurns || len(am.Arguments) == 0 || len(am.Relations) == 0 || len(am.Verdict.Sides) != 2 {
		t.Errorf("thin map: %d moves, %d arguments, %d relations, sides %v", len(am.Moves), len(am.Arguments), len(am.Relations), am.Verdict.Sides)
	}
	if am.Verdict.Metrics.Attacks == 0 || am.Verdict.Metrics.Supports == 0 {
		t.Errorf("metrics %+v", am.Verdict.Metrics)
	}
	for _, a := range am.Arguments {
		if a.Score < 0 || a.Score > 1 {
			t.Errorf("argument %s scored %v", a.ID, a.Score)
		}
	}
	// The closing received the strongest surviving arguments.
	for _, r := range c.requests() {
		if r.Purpose == PurposeClosing && len(am.Verdict.Surviving) > 0 && !strings.Contains(r.Messages[1].Content, "Strongest surviving arguments") {
			t.Error("the closing prompt lacks the surviving arguments")
		}
	}
	var md bytes.Buffer
	if err := am.Report.WriteMarkdown(&md); err != nil || !strings.Contains(md.String(), "## Verdict") {
		t.Errorf("markdown: %v", err)
	}
	// Resume of the finished debate rebuilds the same map without a call.
	c2 := newTestClient()
	again, err := mustNew(t, cfg, c2, WithArgumentMap(argumentation.Additive), WithStore(mem)).Resume(context.Background(), "mapped")
	if err != nil {
		t.Fatal(err)
	}
	if len(c2.requests()) != 0 {
		t.Errorf("resume made %d calls", len(c2.requests()))
	}
	if diff := cmp.Diff(am, again.Arguments, cmpopts.IgnoreFields(ArgumentMap{}, "Report")); diff != "" {
		t.Errorf("rebuilt map (-want +got):\n%s", diff)
	}
}

func TestArgumentMapIllegalMovesRecordedNotApplied(t *testing.T) {
	cfg := shortConfig()
	c := newTestClient().on(PurposeArgumentExtraction, func(r llm.Request) (string, error) {
		// A why with no target is illegal; the claim is fine.
		return `{"moves": [{"act": "why", "proposition": "x"}, {"act": "claim", "proposition": "cars harm cities"}]}`, nil
	})
	res, err := mustNew(t, cfg, c, WithArgumentMap(argumentation.Additive)).Run(context.Background(), prop)
	if err != nil {
		t.Fatal(err)
	}
	am := res.Arguments
	if len(am.Illegal) == 0 {
		t.Fatal("no illegal move recorded")
	}
	for _, ill := range am.Illegal {
		if ill.Move.Act == argumentation.Claim && ill.Move.Speaker == "" {
			t.Errorf("illegal %+v", ill)
		}
	}
	for _, m := range am.Moves {
		if m.Act == argumentation.Why {
			t.Errorf("illegal why applied: %+v", m)
		}
	}
}

// TestArgumentMappingIsStoredWithTheDebate: Resume maps a debate that was
// mapped and never one that was not, and a finished debate's log does not
// grow.
func TestArgumentMappingIsStoredWithTheDebate(t *testing.T) {
	ctx := context.Background()
	cfg := shortConfig()
	mem := store.NewMemory()
	plain, mapped := prop, prop
	plain.ID, mapped.ID = "plain", "mapped"
	if _, err := mustNew(t, cfg, newTestClient(), WithStore(mem)).Run(ctx, plain); err != nil {
		t.Fatal(err)
	}
	if _, err := mustNew(t, cfg, newTestClient(), WithStore(mem), WithArgumentMap(argumentation.Additive)).Run(ctx, mapped); err != nil {
		t.Fatal(err)
	}
	before, _ := mem.Records(ctx, "plain")
	c := newTestClient()
	_, err := mustNew(t, cfg, c, WithStore(mem), WithArgumentMap(argumentation.Additive)).Resume(ctx, "plain")
	if !errors.Is(err, engine.ErrUnsupportedOption) {
		t.Errorf("resuming an unmapped debate with mapping on: %v, want ErrUnsupportedOption", err)
	}
	after, _ := mem.Records(ctx, "plain")
	if len(c.requests()) != 0 || len(after) != len(before) {
		t.Errorf("resuming an unmapped finished debate with mapping on: %d calls, %d → %d records",
			len(c.requests()), len(before), len(after))
	}
	res, err := mustNew(t, cfg, c, WithStore(mem)).Resume(ctx, "mapped")
	if err != nil || res.Arguments == nil || len(c.requests()) != 0 {
		t.Errorf("resuming a mapped debate without the option: %v, map %v, %d calls", err, res.Arguments != nil, len(c.requests()))
	}
}

// TestArgumentMapEventsCarryTheirRecordSeq: every argument_map event carries
// the Seq of the stored moves record, and events come in Seq order.
func TestArgumentMapEventsCarryTheirRecordSeq(t *testing.T) {
	mem := store.NewMemory()
	var mu sync.Mutex
	var events []Event
	sink := SinkFunc(func(_ context.Context, e Event) { mu.Lock(); events = append(events, e); mu.Unlock() })
	d := prop
	d.ID = "seqs"
	if _, err := mustNew(t, shortConfig(), newTestClient(), WithStore(mem), WithSink(sink), WithArgumentMap(argumentation.Additive)).Run(context.Background(), d); err != nil {
		t.Fatal(err)
	}
	recs, _ := mem.Records(context.Background(), "seqs")
	last, maps := int64(0), 0
	for _, e := range events {
		if e.Type == EventToken {
			continue
		}
		if e.Seq <= last {
			t.Errorf("%s event seq %d after %d", e.Type, e.Seq, last)
		}
		last = e.Seq
		if e.Type == EventArgumentMap {
			maps++
			if recs[e.Seq-1].Type != RecordMoves {
				t.Errorf("argument_map event seq %d names a %s record", e.Seq, recs[e.Seq-1].Type)
			}
		}
	}
	if maps == 0 {
		t.Error("no argument_map event")
	}
}

// TestFailedExtractionStopsTheDebateAtTheNextTurn: a model failure in the
// extraction stops the debate promptly, not at the closing.
func TestFailedExtractionStopsTheDebateAtTheNextTurn(t *testing.T) {
	fail := errors.New("429 rate limited")
	c := newTestClient().on(PurposeArgumentExtraction, func(llm.Request) (string, error) { return "", fail })
	cfg := shortConfig()
	cfg.Flow.MaxExchanges = 10
	_, err := mustNew(t, cfg, c, WithArgumentMap(argumentation.Additive)).Run(context.Background(), prop)
	if !errors.Is(err, fail) {
		t.Fatalf("Run = %v", err)
	}
	if n := c.count(PurposeResponse); n > 2 {
		t.Errorf("%d responses after the extraction failed", n)
	}
}
