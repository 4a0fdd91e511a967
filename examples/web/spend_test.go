package main

import (
	"context"
	"errors"
	"io"
	"math"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/duelogic/duelogic/engine"
	"github.com/duelogic/duelogic/llm"
	"github.com/duelogic/duelogic/store"
	"github.com/google/go-cmp/cmp"
)

// testPrice is the price of every model in these tests: dollars per
// million tokens, large enough that a stub debate costs cents.
var testPrice = engine.Price{Input: 1000, CachedInput: 100, Output: 2000}

// storedEnd is the debate_ended data stored for debate id.
func storedEnd(t *testing.T, st store.Store, id string) engine.Ended {
	t.Helper()
	recs, err := st.Records(context.Background(), id)
	if err != nil {
		t.Fatal(err)
	}
	end, ok := dataOf[engine.Ended](recs[len(recs)-1])
	if !ok {
		t.Fatalf("debate %s did not end: last record %s", id, recs[len(recs)-1].Type)
	}
	return end
}

func getSpend(t *testing.T, base, id string) spendResponse {
	t.Helper()
	var sp spendResponse
	if code := call(t, "GET", base+"/api/debates/"+id+"/spend", "", &sp); code != http.StatusOK {
		t.Fatalf("GET spend: %d", code)
	}
	if sp.Spend == nil {
		t.Fatalf("GET spend: no spend in %+v", sp)
	}
	return sp
}

// TestSpendOfEveryFormat: with -price, a finished debate of every format
// reports on GET /api/debates/{id}/spend and in its view what its
// debate_ended event says it spent, in tokens and money, by purpose and by
// speaker; so does a server that did not play it (a reopened debate, or
// one a worker played), which has no prices of its own.
func TestSpendOfEveryFormat(t *testing.T) {
	bodies := map[string]string{
		"formal":     `{"proposition": "Cities should ban cars from their centres.", "config": {"maxRounds": 3}}`,
		"scored":     `{"proposition": "A meal-planning app.", "config": {"maxAdjustment": 2}}`,
		"moderated":  `{"proposition": "Should we use Redis or PostgreSQL for caching?", "checkpoints": false, "config": {"maxRounds": 2}}`,
		"persuasion": `{"proposition": "Should we rewrite billing in Go?", "config": {"maxRounds": 1}}`,
		"duelogic":   `{"proposition": "Should we?", "config": {"flow": {"maxExchanges": 3}}}`,
	}
	for _, format := range engine.Formats() {
		if format == askerName {
			continue // a test's format, not linked into the server
		}
		t.Run(format, func(t *testing.T) {
			body, ok := bodies[format]
			if !ok {
				t.Fatalf("no request for format %q", format)
			}
			s, hs := testServer(t, llm.NewStub(1))
			s.prices = map[string]engine.Price{"": testPrice}
			id := create(t, hs.URL, format, body)
			eventTypes(t, hs.URL+"/api/debates/"+id+"/events")
			s.wg.Wait()
			end := storedEnd(t, s.store, id)
			if end.Usage.Total() == 0 || end.Cost == 0 || len(end.UsageByPurpose) == 0 || len(end.UsageBySpeaker) == 0 {
				t.Fatalf("debate_ended: %+v; want usage, cost and splits", end)
			}
			if want := testPrice.Cost(end.Usage); math.Abs(end.Cost-want) > 1e-9 {
				t.Errorf("cost %v; want %v at the price given", end.Cost, want)
			}
			want := spendResponse{Status: statusFinished, Spend: &spendView{Usage: end.Usage, Cost: end.Cost, Priced: true, Final: true,
				ByPurpose: end.UsageByPurpose, BySpeaker: end.UsageBySpeaker}}
			if diff := cmp.Diff(want, getSpend(t, hs.URL, id)); diff != "" {
				t.Errorf("GET spend (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(want.Spend, getView(t, hs.URL, id).Spend); diff != "" {
				t.Errorf("the view's spend (-want +got):\n%s", diff)
			}

			fresh := newServer(llm.NewStub(1), s.store, nil)
			fs := httptest.NewServer(fresh.routes())
			defer fs.Close()
			if diff := cmp.Diff(want, getSpend(t, fs.URL, id)); diff != "" {
				t.Errorf("GET spend from a server that did not play it (-want +got):\n%s", diff)
			}
		})
	}
}

// gateClient holds its client's calls from number at on until release
// is closed, telling held when it holds the first.
type gateClient struct {
	llm.Client
	at      int64
	n       *atomic.Int64
	once    *sync.Once
	held    chan struct{}
	release chan struct{}
}

func newGateClient(c llm.Client, at int64) gateClient {
	return gateClient{Client: c, at: at, n: new(atomic.Int64), once: new(sync.Once), held: make(chan struct{}), release: make(chan struct{})}
}

func (c gateClient) Complete(ctx context.Context, req llm.Request) (llm.Response, error) {
	if c.n.Add(1) >= c.at {
		c.once.Do(func() { close(c.held) })
		select {
		case <-c.release:
		case <-ctx.Done():
			return llm.Response{}, ctx.Err()
		}
	}
	return c.Client.Complete(ctx, req)
}

// TestSpendWhileRunning: while a debate runs, GET spend reports what its
// stored steps spent so far (not final, no split yet), with the budget.
func TestSpendWhileRunning(t *testing.T) {
	gate := newGateClient(llm.NewStub(1), 6)
	s, hs := testServer(t, gate)
	s.prices = map[string]engine.Price{"": testPrice}
	s.budget = engine.Budget{Tokens: 1 << 30}
	id := create(t, hs.URL, "formal", `{"proposition": "Cities should ban cars from their centres.", "config": {"maxRounds": 3}}`)
	<-gate.held
	inspect := func() engine.Summary {
		sum, err := engine.Inspect(context.Background(), s.store, id)
		if err != nil {
			t.Fatal(err)
		}
		return sum
	}
	// Calls begun before the gate may still be storing their steps: read
	// until the store holds still around a GET.
	for range 1000 {
		before := inspect()
		sp := getSpend(t, hs.URL, id)
		if inspect().Records != before.Records {
			continue
		}
		if before.Usage.Total() == 0 {
			t.Fatalf("nothing spent after 5 calls: %+v", before)
		}
		want := spendResponse{Status: statusRunning, Spend: &spendView{Usage: before.Usage, Cost: before.Cost, Priced: true,
			Budget: &engine.Budget{Tokens: 1 << 30}}}
		if diff := cmp.Diff(want, sp); diff != "" {
			t.Errorf("GET spend of a running debate (-want +got):\n%s", diff)
		}
		close(gate.release)
		s.wg.Wait()
		if sp := getSpend(t, hs.URL, id); !sp.Spend.Final || sp.Spend.Usage.Total() <= before.Usage.Total() {
			t.Errorf("after the end: %+v", sp.Spend)
		}
		return
	}
	close(gate.release)
	t.Fatal("the store never held still")
}

// TestBudgetStopsADebate: -max-tokens stops a debate at the next step once
// spent; GET spend and the view say it stopped, and why.
func TestBudgetStopsADebate(t *testing.T) {
	s, hs := testServer(t, llm.NewStub(1))
	s.budget = engine.Budget{Tokens: 1500}
	id := create(t, hs.URL, "persuasion", `{"proposition": "Should we rewrite billing in Go?", "config": {"maxRounds": 2}}`)
	types := eventTypes(t, hs.URL+"/api/debates/"+id+"/events")
	s.wg.Wait()
	if len(types) == 0 || types[len(types)-1] == "debate_ended" {
		t.Fatalf("events end with %q; want the debate stopped by its budget", types[max(0, len(types)-1):])
	}
	sp := getSpend(t, hs.URL, id)
	if sp.Status != statusStopped || !strings.Contains(sp.Error, "budget") || sp.Spend.Final {
		t.Errorf("GET spend: status %q, error %q, final %v; want stopped by the budget", sp.Status, sp.Error, sp.Spend.Final)
	}
	if sp.Spend.Usage.Total() < 1500 || sp.Spend.Budget == nil || sp.Spend.Budget.Tokens != 1500 || sp.Spend.Priced {
		t.Errorf("spend %+v; want at least the 1500 tokens of the budget, unpriced", sp.Spend)
	}
	if v := getView(t, hs.URL, id); v.Status != statusStopped || v.Error != sp.Error {
		t.Errorf("view: status %q, error %q; want stopped, %q", v.Status, v.Error, sp.Error)
	}
}

// TestSpendOfARemoteDebate: in enqueue mode the page reads what a debate
// played by a worker spent from what the worker stores: while it runs,
// and by purpose and speaker once it has ended, in money at the worker's
// prices.
func TestSpendOfARemoteDebate(t *testing.T) {
	gate := newGateClient(llm.NewStub(1), 6)
	s, base, pg, _ := enqueueServerWith(t, gate, func(string) []engine.Option {
		return []engine.Option{engine.WithPrices(map[string]engine.Price{"": testPrice})}
	})
	s.budget = engine.Budget{Tokens: 1 << 30} // the server's own: workers keep theirs
	id := create(t, base, "formal", `{"proposition": "Cities should ban cars from their centres.", "config": {"maxRounds": 3}}`)
	<-gate.held
	for i := 0; ; i++ {
		before, err := engine.Inspect(context.Background(), pg, id)
		if err != nil {
			t.Fatal(err)
		}
		sp := getSpend(t, base, id)
		if after, err := engine.Inspect(context.Background(), pg, id); err != nil || after.Records != before.Records {
			if i > 1000 {
				t.Fatal("the store never held still")
			}
			continue
		}
		want := spendResponse{Status: statusRunning, Spend: &spendView{Usage: before.Usage, Cost: before.Cost, Priced: true}}
		if diff := cmp.Diff(want, sp); diff != "" || before.Cost == 0 {
			t.Errorf("GET spend of a debate a worker plays (-want +got):\n%s", diff)
		}
		break
	}
	close(gate.release)
	eventTypes(t, base+"/api/debates/"+id+"/events")
	end := storedEnd(t, pg, id)
	want := spendResponse{Status: statusFinished, Spend: &spendView{Usage: end.Usage, Cost: end.Cost, Priced: true, Final: true,
		ByPurpose: end.UsageByPurpose, BySpeaker: end.UsageBySpeaker}}
	if diff := cmp.Diff(want, getSpend(t, base, id)); diff != "" || end.Cost == 0 {
		t.Errorf("GET spend of a finished remote debate (-want +got):\n%s", diff)
	}
}

// TestRunRejectsBadSpendFlags: -price, -max-cost, -max-tokens and -otlp
// that cannot be used are usage errors, before anything starts.
func TestRunRejectsBadSpendFlags(t *testing.T) {
	tests := []struct {
		args []string
		want string
	}{
		{[]string{"-price", "gpt-4o"}, "MODEL=IN/OUT"},
		{[]string{"-price", "gpt-4o=1/-2"}, "not a number of dollars"},
		{[]string{"-max-cost", "-1", "-price", "*=1/2"}, "-max-cost -1"},
		{[]string{"-max-cost", "NaN", "-price", "*=1/2"}, "-max-cost NaN"},
		{[]string{"-max-cost", "0.5"}, "needs the models' prices"},
		{[]string{"-max-tokens", "-5"}, "-max-tokens -5"},
		{[]string{"-otlp", "localhost:4318"}, "-otlp"},
	}
	for _, tt := range tests {
		err := run(t.Context(), func() {}, append([]string{"-addr", "127.0.0.1:0"}, tt.args...), io.Discard, io.Discard, func(string) string { return "" })
		var ue usageError
		if !errors.As(err, &ue) || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("run %q: %v; want a usage error saying %q", tt.args, err, tt.want)
		}
	}
}
