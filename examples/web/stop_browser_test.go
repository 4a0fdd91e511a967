package main

import (
	"strings"
	"testing"

	"github.com/chromedp/chromedp"

	"github.com/duelogic/duelogic"
	"github.com/duelogic/duelogic/store"
)

// TestBrowserStop: the page's Stop button, shown while a debate runs,
// stops it: the page shows it stopped on request, with what it said, and
// Resume in place of Stop; Resume finishes it.
func TestBrowserStop(t *testing.T) {
	ctx := deadline(t, browser(t))
	g := newGate(duelogic.PurposeResponse)
	s := newServer(g, store.NewMemory(), nil)
	hs := serve(t, s)
	t.Cleanup(func() { s.shutdown(0) }) // before serve's: ends a run the gate holds
	startFromPage(t, ctx, hs.URL, "duelogic", "Should cities ban private cars from their centres?",
		chromedp.WaitReady(chromedp.CSS(`#preset option[value="three_way_ethics"]`)),
		chromedp.SetValue(chromedp.ID("preset"), "three_way_ethics"),
		chromedp.SetValue(chromedp.ID("exchanges"), "3"))
	select {
	case <-g.reached: // the openings are said; the first response waits
	case <-ctx.Done():
		t.Fatal("the debate never reached its first response")
	}
	const shown = `((id) => !document.getElementById(id).hidden)`
	const cards = `document.querySelectorAll('#timeline .card:not(.streaming)').length`
	waitFor(t, ctx, "the Stop button and the openings", shown+`('stop') && !`+shown+`('resume') && `+cards+` > 1`)
	before := eval[int](t, ctx, cards)
	if err := chromedp.Do(ctx, chromedp.Click(chromedp.ID("stop"))); err != nil {
		t.Fatal(err)
	}
	waitFor(t, ctx, "the stopped debate", `document.getElementById('status').textContent === 'stopped' && `+shown+`('resume') && !`+shown+`('stop')`)
	reason := eval[string](t, ctx, `document.getElementById('stop-reason').textContent`)
	if !strings.Contains(reason, errStopRequested.Error()) {
		t.Errorf("the page says %q; want why the debate stopped: %q", reason, errStopRequested)
	}
	if got := eval[int](t, ctx, cards); got < before {
		t.Errorf("%d cards after the stop; want the %d shown before it", got, before)
	}
	screenshot(t, ctx, "web-stopped.png")

	close(g.open)
	if err := chromedp.Do(ctx, chromedp.Click(chromedp.ID("resume"))); err != nil {
		t.Fatal(err)
	}
	waitFor(t, ctx, "the end", finished+` && !`+shown+`('stop') && !`+shown+`('resume')`)
}

// TestBrowserHistoryStop: a running debate's row in the history has a Stop
// button; clicking it stops the debate, and the row shows it stopped, with
// Resume.
func TestBrowserHistoryStop(t *testing.T) {
	ctx := deadline(t, browser(t))
	g := newGate(duelogic.PurposeResponse)
	s := newServer(g, store.NewMemory(), nil)
	hs := serve(t, s)
	t.Cleanup(func() { s.shutdown(0) }) // before serve's: ends a run the gate holds
	id := create(t, hs.URL, "duelogic", `{"proposition": "Should cities ban private cars from their centres?"}`)
	select {
	case <-g.reached: // the openings are said; the first response waits
	case <-ctx.Done():
		t.Fatal("the debate never reached its first response")
	}
	row := `#history-table tr[data-id="` + id + `"]`
	if err := chromedp.Do(ctx,
		chromedp.Navigate(hs.URL+"/"),
		chromedp.Click(chromedp.ID("nav-history")),
		chromedp.WaitVisible(chromedp.CSS(row+`[data-status="running"] button`)),
		chromedp.Click(chromedp.CSS(row+` button`)),
		chromedp.WaitVisible(chromedp.CSS(row+`[data-status="stopped"] button`)),
	); err != nil {
		t.Fatal(err)
	}
	if got := eval[string](t, ctx, `document.querySelector('`+row+` button').textContent`); got != "Resume" {
		t.Errorf("the stopped row's button says %q; want Resume", got)
	}
	if v := getView(t, hs.URL, id); v.Status != statusStopped || v.Error != errStopRequested.Error() {
		t.Errorf("status %s (%q); want stopped on request", v.Status, v.Error)
	}
}
