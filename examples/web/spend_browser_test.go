package main

import (
	"context"
	"fmt"
	"maps"
	"math"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"

	"github.com/duelogic/duelogic/engine"
	"github.com/duelogic/duelogic/llm"
	"github.com/duelogic/duelogic/store"
)

// commas writes n as the page does (toLocaleString('en-US')).
func commas(n int) string {
	s := strconv.Itoa(n)
	for i := len(s) - 3; i > 0; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	return s
}

// money writes v as the page does.
func money(v float64) string {
	if v != 0 && math.Abs(v) < 0.01 {
		return fmt.Sprintf("$%.6f", v)
	}
	return fmt.Sprintf("$%.4f", v)
}

// spendRows reads a spend table of the page: each row's key (its data-
// attribute attr) and its cells.
func spendRows(t *testing.T, ctx context.Context, table, attr string) map[string][]string {
	t.Helper()
	return eval[map[string][]string](t, ctx, `Object.fromEntries([...document.querySelectorAll('#`+table+` tbody tr')].map((tr) =>
	  [tr.dataset.`+attr+`, [...tr.cells].map((td) => td.textContent)]))`)
}

// checkSpendTables compares the page's spend panel with the debate_ended
// data end: the total line and a row per purpose and per speaker.
func checkSpendTables(t *testing.T, ctx context.Context, end engine.Ended) {
	t.Helper()
	total := eval[string](t, ctx, `document.getElementById('spend-total').textContent`)
	u := end.Usage
	want := fmt.Sprintf("%s tokens: %s prompt, %s generated; cost %s.", commas(u.Total()), commas(u.PromptTokens), commas(u.CompletionTokens), money(end.Cost))
	if total != want {
		t.Errorf("spend total %q; want %q", total, want)
	}
	for _, tc := range []struct {
		table, attr string
		by          map[string]llm.Usage
	}{{"spend-purpose", "purpose", end.UsageByPurpose}, {"spend-speaker", "speaker", end.UsageBySpeaker}} {
		rows := spendRows(t, ctx, tc.table, tc.attr)
		var keys []string
		for k, u := range tc.by {
			if u.Total() > 0 {
				keys = append(keys, k)
			}
		}
		if got := slices.Sorted(maps.Keys(rows)); !slices.Equal(got, slices.Sorted(slices.Values(keys))) {
			t.Errorf("%s rows %q; want %q", tc.table, got, keys)
		}
		for _, k := range keys {
			u := tc.by[k]
			want := []string{commas(u.PromptTokens), commas(u.CachedPromptTokens), commas(u.CompletionTokens), commas(u.Total())}
			if got := rows[k]; len(got) != 5 || !slices.Equal(got[1:], want) {
				t.Errorf("%s row %q: %q; want [name %q]", tc.table, k, got, want)
			}
		}
	}
}

// TestBrowserShowsSpend: a formal debate on a stub priced with -price
// shows, while it runs, the tokens and money its stored steps spent, and
// at the end its usage by purpose and by speaker and its cost, as its
// debate_ended event says; so does its page opened again from the store.
// A debate with a token budget shows it, and stops at it, saying why.
func TestBrowserShowsSpend(t *testing.T) {
	ctx := deadline(t, browser(t))
	gate := newGateClient(llm.NewStub(1), 8)
	st := store.NewMemory()
	s := newServer(gate, st, nil)
	s.prices = map[string]engine.Price{"": testPrice}
	hs := serve(t, s)
	startFromPage(t, ctx, hs.URL, "formal", "Cities should ban private cars from their centres.")
	<-gate.held
	id := eval[string](t, ctx, `document.getElementById('debate-id').textContent`)
	// Calls begun before the gate may still be storing their steps: read
	// the page until it shows what the store holds, and the store holds
	// still.
	var sum engine.Summary
	for line := ""; ; {
		a, err := engine.Inspect(ctx, st, id)
		if err != nil {
			t.Fatal(err)
		}
		if line == fmt.Sprintf("Spent so far: %s tokens, %s", commas(a.Usage.Total()), money(a.Cost)) {
			if b, err := engine.Inspect(ctx, st, id); err == nil && b.Records == a.Records {
				sum = a
				break
			}
		}
		if ctx.Err() != nil {
			t.Fatalf("the page shows %q; the store holds %d tokens, $%v", line, a.Usage.Total(), a.Cost)
		}
		line = eval[string](t, ctx, `document.getElementById('spend-line').textContent`)
	}
	if sum.Usage.Total() == 0 || sum.Cost == 0 {
		t.Fatalf("nothing spent before the gate: %+v", sum)
	}
	if eval[bool](t, ctx, `!document.getElementById('spend').hidden`) {
		t.Error("the usage tables are shown before the debate ended")
	}
	close(gate.release)
	waitFor(t, ctx, "the end", finished+` && !document.getElementById('spend').hidden`)
	end := storedEnd(t, st, id)
	checkSpendTables(t, ctx, end)
	if got, want := eval[string](t, ctx, `document.getElementById('spend-line').textContent`),
		fmt.Sprintf("Spent %s tokens, %s", commas(end.Usage.Total()), money(end.Cost)); got != want {
		t.Errorf("spend line at the end %q; want %q", got, want)
	}
	scrollTo(t, ctx, "#spend")
	screenshot(t, ctx, "web-spend.png")

	// Opened again: the figures come from the store.
	if err := chromedp.Do(ctx, chromedp.Navigate(hs.URL+"/#"+id)); err != nil {
		t.Fatal(err)
	}
	waitFor(t, ctx, "the reopened debate", finished+` && !document.getElementById('spend').hidden`)
	checkSpendTables(t, ctx, end)

	// A budget: shown in the line, and the debate stops at it.
	s2 := newServer(llm.NewStub(1), store.NewMemory(), nil)
	s2.budget = engine.Budget{Tokens: 1500}
	hs2 := serve(t, s2)
	startFromPage(t, ctx, hs2.URL, "formal", "Cities should ban private cars from their centres.")
	waitFor(t, ctx, "the stop", `document.getElementById('status').textContent === 'stopped' &&
	  document.getElementById('stop-reason').textContent.includes('budget')`)
	reason := eval[string](t, ctx, `document.getElementById('stop-reason').textContent`)
	if !strings.Contains(reason, "budget spent") || !strings.Contains(reason, "of a budget of 1500") {
		t.Errorf("stop reason %q; want the budget", reason)
	}
	waitFor(t, ctx, "the budget in the line", `/^Spent so far: [0-9,]+ tokens of 1,500$/.test(document.getElementById('spend-line').textContent)`)
}
