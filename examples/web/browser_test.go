package main

import (
	"context"
	"fmt"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/chromedp"

	"github.com/duelogic/duelogic"
	"github.com/duelogic/duelogic/engine"
	"github.com/duelogic/duelogic/formal"
	"github.com/duelogic/duelogic/llm"
	"github.com/duelogic/duelogic/llm/llmtest"
	"github.com/duelogic/duelogic/store"
)

// browser returns a tab of a fresh headless browser, or skips the test when
// none is installed (.ci/browser.sh installs Chromium) unless
// DUELOGIC_REQUIRE_BROWSER is set. A script error in the page fails the
// test.
func browser(t *testing.T) context.Context {
	t.Helper()
	var path string
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome", "google-chrome-stable"} {
		if p, err := exec.LookPath(name); err == nil {
			path = p
			break
		}
	}
	if path == "" {
		const msg = "no browser found (chromium, chromium-browser or google-chrome); run .ci/browser.sh to install Chromium"
		if os.Getenv("DUELOGIC_REQUIRE_BROWSER") != "" {
			t.Fatal(msg) // CI runs this test; it must not skip there
		}
		t.Skip(msg)
	}
	profile := t.TempDir()
	alloc, cancelAlloc := chromedp.NewExecAllocator(context.Background(),
		chromedp.ExecPath(path),
		chromedp.Headless,
		chromedp.NoSandbox,
		chromedp.DisableGPU,
		chromedp.Flag("disable-background-networking", true),
		chromedp.Flag("disable-component-update", true),
		chromedp.Flag("disable-sync", true),
		chromedp.Flag("disable-dev-shm-usage", true),
		chromedp.Flag("hide-scrollbars", true),
		chromedp.NoFirstRun,
		chromedp.UserDataDir(profile),
		chromedp.WindowSize(1200, 1500),
	)
	ctx, cancelTab := chromedp.NewContext(alloc)
	var mu sync.Mutex
	var errs []string
	if err := chromedp.Listen(ctx, func(ev any) {
		if e, ok := ev.(*runtime.EventExceptionThrown); ok {
			mu.Lock()
			d := e.ExceptionDetails
			msg := d.Text
			if d.Exception != nil {
				msg += " " + d.Exception.Description
			}
			errs = append(errs, fmt.Sprintf("%s:%d:%d: %s", d.URL, d.LineNumber+1, d.ColumnNumber+1, msg))
			mu.Unlock()
		}
	}); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		mu.Lock()
		for _, e := range errs {
			t.Errorf("script error in the page: %s", e)
		}
		mu.Unlock()
		cancelTab()
		cancelAlloc()
	})
	if err := chromedp.Do(ctx); err != nil { // start the browser
		t.Fatalf("start %s: %v", path, err)
	}
	return ctx
}

// serve serves s over httptest until the test ends.
func serve(t *testing.T, s *server) *httptest.Server {
	hs := httptest.NewServer(s.routes())
	t.Cleanup(func() {
		hs.Close()
		s.shutdown(0)
	})
	return hs
}

// deadline is the test's context for ctx: its deadline, or two minutes.
func deadline(t *testing.T, ctx context.Context) context.Context {
	d, ok := t.Deadline()
	if !ok {
		d = time.Now().Add(2 * time.Minute)
	}
	tctx, cancel := context.WithDeadline(ctx, d.Add(-5*time.Second))
	t.Cleanup(cancel)
	return tctx
}

// startFromPage picks format on the page at base, sets the proposition,
// runs setup (the format's fields), and starts the debate.
func startFromPage(t *testing.T, ctx context.Context, base, format, proposition string, setup ...chromedp.Action[chromedp.Void]) {
	t.Helper()
	steps := []chromedp.Action[chromedp.Void]{
		chromedp.Navigate(base),
		chromedp.WaitReady(chromedp.CSS(`input[name=format][value="` + format + `"]`)),
		chromedp.Click(chromedp.CSS(`input[name=format][value="` + format + `"]`)),
		chromedp.SetValue(chromedp.ID("proposition"), proposition),
	}
	steps = append(steps, setup...)
	steps = append(steps, chromedp.Click(chromedp.ID("start")), chromedp.WaitVisible(chromedp.ID("debate")))
	if err := chromedp.Do(ctx, steps...); err != nil {
		t.Fatalf("start a %s debate from the page: %v", format, err)
	}
}

// waitFor polls the page until the JavaScript expression is truthy.
func waitFor(t *testing.T, ctx context.Context, what, expr string) {
	t.Helper()
	if _, err := chromedp.Run(ctx, chromedp.Poll[chromedp.Void](expr, chromedp.WithPollingTimeout(0))); err != nil {
		t.Fatalf("waiting for %s: %v", what, err)
	}
}

// eval evaluates expr in the page into a T.
func eval[T any](t *testing.T, ctx context.Context, expr string) T {
	t.Helper()
	v, err := chromedp.Run(ctx, chromedp.Evaluate[T](expr))
	if err != nil {
		t.Fatalf("evaluate %.60s: %v", expr, err)
	}
	return v
}

const finished = `document.getElementById('status').textContent === 'finished'`

// page is what a person sees of a debate.
type page struct {
	Status       string   `json:"status"`
	Title        string   `json:"title"`
	Intro        int      `json:"intro"`
	Closing      int      `json:"closing"`
	Names        []string `json:"names"`
	Roster       []string `json:"roster"`
	EvalBadges   int      `json:"evalBadges"`
	ScoreBadges  int      `json:"scoreBadges"` // evaluations with an adherence score
	Streaming    int      `json:"streaming"`
	Metrics      string   `json:"metrics"`
	MetricsShown bool     `json:"metricsShown"`
	ArgMap       string   `json:"argmap"`
	GraphNodes   int      `json:"graphNodes"`
	GraphEdges   int      `json:"graphEdges"`
	MapArguments int      `json:"mapArguments"`
	MapRelations int      `json:"mapRelations"`
	Texts        []string `json:"texts"`
	Images       int      `json:"images"`
	TitleNodes   int      `json:"titleNodes"`
	Cards        int      `json:"cards"`
	Outcome      string   `json:"outcome"`
	Documents    []string `json:"documents"`
}

const readPage = `(() => {
  const all = (sel) => [...document.querySelectorAll(sel)];
  const shown = (id) => !document.getElementById(id).hidden;
  return {
    status: document.getElementById('status').textContent,
    title: document.getElementById('title').textContent,
    intro: all('.card.kind-introduction').length,
    closing: all('.card.kind-closing').length,
    names: [...new Set(all('.card .name').map((n) => n.textContent))],
    roster: all('#roster strong').map((n) => n.textContent),
    evalBadges: all('.card .badge.eval').length,
    scoreBadges: all('.card .badge.eval.score').length,
    streaming: all('.card.streaming').length,
    metrics: document.getElementById('metrics').textContent,
    metricsShown: shown('metrics'),
    argmap: shown('argmap') ? document.getElementById('argmap').textContent : '',
    graphNodes: all('#argmap-graph g.argmap-node').length,
    graphEdges: all('#argmap-graph .argmap-edges .argmap-edge').length,
    ...(() => {
      // The map the server holds, to compare the drawing with.
      const id = document.getElementById('debate-id').textContent;
      if (!id) return { mapArguments: -1, mapRelations: -1 };
      const x = new XMLHttpRequest();
      x.open('GET', '/api/debates/' + encodeURIComponent(id), false);
      x.send();
      const am = (JSON.parse(x.responseText).arguments) || {};
      return { mapArguments: (am.arguments || []).length, mapRelations: (am.relations || []).length };
    })(),
    texts: all('.card .text').map((n) => n.textContent),
    images: all('img').length,
    titleNodes: document.getElementById('title').children.length,
    cards: all('.card').length,
    outcome: shown('outcome') ? document.getElementById('outcome').textContent : '',
    documents: shown('documents') ? all('#document-list a').map((a) => a.textContent) : [],
  };
})()`

func readThePage(t *testing.T, ctx context.Context) page {
	t.Helper()
	return eval[page](t, ctx, readPage)
}

// checkArgumentMap checks the argument map panel of a finished debate: its
// table, and the drawing when argmap.js is there.
func checkArgumentMap(t *testing.T, p page) {
	t.Helper()
	for _, want := range []string{"Argument map", "Strength", "Clashes", "moves"} {
		if !strings.Contains(p.ArgMap, want) {
			t.Errorf("argument map lacks %q:\n%.300s", want, p.ArgMap)
		}
	}
	// Issue 16: "the argument map SVG has the right number of nodes and
	// edges" — one node per argument, one edge per relation of the map the
	// server returns.
	if p.MapArguments <= 0 || p.GraphNodes != p.MapArguments || p.GraphEdges != p.MapRelations {
		t.Errorf("the drawing has %d nodes and %d edges; the map has %d arguments and %d relations", p.GraphNodes, p.GraphEdges, p.MapArguments, p.MapRelations)
	}
}

// screenshot saves the page in the test's temporary directory and, when
// DUELOGIC_SCREENSHOT names a file, there too.
func screenshot(t *testing.T, ctx context.Context, name string) {
	t.Helper()
	png, err := chromedp.Run(ctx, chromedp.CaptureScreenshot())
	if err != nil {
		t.Fatalf("screenshot: %v", err)
	}
	paths := []string{filepath.Join(t.TempDir(), name)}
	if p := os.Getenv("DUELOGIC_SCREENSHOT"); p != "" {
		// DUELOGIC_SCREENSHOT names the first picture; others go beside it,
		// named after it: web.png, web-argmap.png, web-formal.png.
		if name != "web.png" {
			ext := filepath.Ext(p)
			p = strings.TrimSuffix(p, ext) + "-" + strings.TrimPrefix(name, "web-")
		}
		paths = append(paths, p)
	}
	for _, p := range paths {
		if err := os.WriteFile(p, png, 0o644); err != nil {
			t.Fatal(err)
		}
		t.Logf("screenshot: %s", p)
	}
}

// scrollTo scrolls so that the element sel is at the top, under the sticky
// header.
func scrollTo(t *testing.T, ctx context.Context, sel string) {
	t.Helper()
	eval[bool](t, ctx, `(() => {
	  const n = document.querySelector(`+"`"+sel+"`"+`);
	  const head = document.querySelector('.debate-top').getBoundingClientRect().height;
	  window.scrollTo(0, n.getBoundingClientRect().top + window.scrollY - head - 24);
	  return true;
	})()`)
}

// debateInBrowser serves a server with client, starts a podcast of preset
// from the page with proposition, waits for its end and reads the page.
func debateInBrowser(t *testing.T, client llm.Client, preset, proposition string, setup ...chromedp.Action[chromedp.Void]) (context.Context, page) {
	ctx := browser(t)
	hs := serve(t, newServer(client, store.NewMemory(), nil))
	tctx := deadline(t, ctx)
	setup = append([]chromedp.Action[chromedp.Void]{
		chromedp.WaitReady(chromedp.CSS(`#preset option[value="` + preset + `"]`)),
		chromedp.SetValue(chromedp.ID("preset"), preset),
		chromedp.SetValue(chromedp.ID("exchanges"), "3"),
	}, setup...)
	startFromPage(t, tctx, hs.URL, "duelogic", proposition, setup...)
	waitFor(t, tctx, "the metrics", `!document.getElementById('metrics').hidden && !document.getElementById('documents').hidden`)
	if err := chromedp.Do(tctx, chromedp.Evaluate[chromedp.Void](`window.scrollTo(0, 0)`)); err != nil {
		t.Fatal(err)
	}
	return tctx, readThePage(t, tctx)
}

func TestBrowserWatchesADebate(t *testing.T) {
	stub := llm.NewStub(2)
	stub.TokenDelay = time.Millisecond // stream, but quickly
	ctx, p := debateInBrowser(t, stub, "three_way_ethics", "Should cities ban private cars from their centres?")
	// The picture: the exchange, under the debate's sticky header.
	eval[bool](t, ctx, `(() => {
	  const seg = [...document.querySelectorAll('.segment')].find((s) => s.textContent === 'The exchange');
	  const head = document.querySelector('.debate-head').getBoundingClientRect().height;
	  window.scrollTo(0, seg.getBoundingClientRect().top + window.scrollY - head - 24);
	  return true;
	})()`)
	screenshot(t, ctx, "web.png")
	screenshot(t, ctx, "web-duelogic.png")
	if err := chromedp.Do(ctx, chromedp.Evaluate[chromedp.Void](`document.getElementById('argmap').scrollIntoView()`)); err != nil {
		t.Fatal(err)
	}
	screenshot(t, ctx, "web-argmap.png")

	if p.Status != "finished" {
		t.Errorf("status %q; want finished", p.Status)
	}
	if p.Title != "Should cities ban private cars from their centres?" {
		t.Errorf("title %q", p.Title)
	}
	if p.Intro != 1 || p.Closing != 1 {
		t.Errorf("%d introduction and %d closing cards; want one each", p.Intro, p.Closing)
	}
	for _, name := range []string{"Arbiter", "Claude Sonnet 4", "Grok 3", "GPT-4o"} {
		if !slices.Contains(p.Names, name) {
			t.Errorf("no card by %s; speakers %q", name, p.Names)
		}
	}
	if want := []string{"Claude Sonnet 4", "Grok 3", "GPT-4o"}; !slices.Equal(p.Roster, want) {
		t.Errorf("roster %q; want %q", p.Roster, want)
	}
	if p.EvalBadges == 0 || p.ScoreBadges == 0 {
		t.Errorf("%d evaluation badges, %d adherence scores; want some of each", p.EvalBadges, p.ScoreBadges)
	}
	if p.Streaming != 0 {
		t.Errorf("%d cards still streaming after the end", p.Streaming)
	}
	if !p.MetricsShown {
		t.Error("metrics panel hidden")
	}
	// Issue 14, seed 000's success metrics: "steel-manning attempted in
	// more than 80% of critique responses", self-critique above 70%.
	for _, want := range []string{"Steel-manning", "target above 80%", "Self-critique", "target above 70%", "Mean adherence", "Interjections"} {
		if !strings.Contains(p.Metrics, want) {
			t.Errorf("metrics panel lacks %q:\n%s", want, p.Metrics)
		}
	}
	checkArgumentMap(t, p)
	if !slices.Contains(p.Documents, "transcript.md") {
		t.Errorf("documents %q; want the transcript", p.Documents)
	}
}

func TestBrowserShowsHostileRepliesAsText(t *testing.T) {
	const hostile = `<img src=x onerror=alert(1)>`
	const question = `<b>Bold</b> question? <script>window.pwned = 1</script>`
	f := llmtest.New()
	f.OnPurpose(duelogic.PurposeOpening).Reply(hostile)
	f.OnPurpose(duelogic.PurposeEvaluation).Reply(`{"adherenceScore": 40, "steelManning": {"attempted": false, "quality": "absent", "notes": "` +
		`<img src=y onerror=alert(2)>"}, "selfCritique": {"attempted": true, "quality": "weak"}, "frameworkConsistency": {"consistent": true}, ` +
		`"intellectualHonesty": {"score": "medium"}, "requiresInterjection": false}`)
	ctx, p := debateInBrowser(t, f, "classic_clash", question)

	if p.Images != 0 {
		t.Errorf("%d img elements in the page; model text was parsed as HTML", p.Images)
	}
	if p.Title != question || p.TitleNodes != 0 {
		t.Errorf("title %q with %d child elements; want the literal text", p.Title, p.TitleNodes)
	}
	n := 0
	for _, text := range p.Texts {
		if text == hostile {
			n++
		}
	}
	if n != 2 {
		t.Errorf("%d cards show the literal reply %q; want the two openings", n, hostile)
	}
	if p.EvalBadges == 0 {
		t.Error("no evaluation badge")
	}
	// The history lists the hostile proposition as text too.
	if err := chromedp.Do(ctx, chromedp.Navigate("about:blank")); err != nil {
		t.Fatal(err)
	}
	if pwned := eval[bool](t, ctx, `window.pwned === 1`); pwned {
		t.Error("the proposition's script ran")
	}
}

// cutClient is the stub model whose interrupt checks always have chair_2
// cutting in: the engine lets it cut any other chair (cooldown allowing).
type cutClient struct{ *llm.Stub }

func (c cutClient) Complete(ctx context.Context, req llm.Request) (llm.Response, error) {
	if req.Purpose == duelogic.PurposeInterruptCheck {
		return llm.Response{Content: `{"shouldInterrupt": true, "interruptingChairPosition": "chair_2", "reason": "pivotal_point", ` +
			`"triggerContent": "the crux", "urgency": 0.95, "suggestedOpener": "Wait:"}`, FinishReason: llm.FinishStop}, nil
	}
	return c.Stub.Complete(ctx, req)
}

// TestBrowserShowsACut: issue 13, "the web page and the CLI show the cut as
// a cut (the text stops, the interrupter's card follows)". The streaming
// client delivers a sentence at a time; chair_2 cuts chair_1 off. With
// relaxed accountability nothing is evaluated, and the page says the
// success metrics were not measured rather than missed.
func TestBrowserShowsACut(t *testing.T) {
	client := &llmtest.Paced{Client: cutClient{llm.NewStub(3)}, Latency: time.Millisecond, PerSentence: 2 * time.Millisecond}
	ctx, p := debateInBrowser(t, client, "classic_clash", "Should we tax sugar?",
		chromedp.SetValue(chromedp.ID("accountability"), "relaxed"))
	type cut struct {
		Text     string `json:"text"`
		Badge    string `json:"badge"`
		Next     string `json:"next"`
		NextKind string `json:"nextKind"`
	}
	cuts := eval[[]cut](t, ctx, `[...document.querySelectorAll('.card.cut')].map((c) => {
	  let next = c.nextElementSibling;
	  while (next && !next.classList.contains('card')) next = next.nextElementSibling;
	  return { text: c.querySelector('.text').textContent, badge: c.querySelector('.badges').textContent,
	    next: next ? next.querySelector('.name').textContent : '', nextKind: next ? next.querySelector('.kind').textContent : '' };
	})`)
	if len(cuts) == 0 {
		t.Fatal("no card shows a cut")
	}
	for _, c := range cuts {
		if !strings.HasSuffix(c.Text, "—") || !strings.Contains(c.Badge, "cut off by") {
			t.Errorf("a cut card reads %q … %q with badges %q; want its text to stop with an em dash", c.Text[:min(40, len(c.Text))], c.Text[max(0, len(c.Text)-40):], c.Badge)
		}
		if c.NextKind != "Interruption" {
			t.Errorf("after a cut: %s's %q card; want the interrupter's interruption", c.Next, c.NextKind)
		}
	}
	scrollTo(t, ctx, ".card.cut")
	screenshot(t, ctx, "web-cut.png")
	for _, want := range []string{"Steel-manning", "not measured", "no critique response was evaluated"} {
		if !strings.Contains(p.Metrics, want) {
			t.Errorf("metrics panel lacks %q:\n%s", want, p.Metrics)
		}
	}
	if strings.Contains(p.Metrics, "missed") {
		t.Errorf("metrics with nothing evaluated say missed:\n%s", p.Metrics)
	}
}

// firstFabricated is an engine option that gives a formal debate a source
// verifier that finds the first source it is shown fabricated and every
// other verified, so that the debate has exactly one redaction whatever
// the stub cites; it leaves other formats alone.
func firstFabricated() engine.Option {
	var once sync.Once
	verifier := func(formal.SourceVerifier) formal.SourceVerifier {
		return formal.VerifierFunc(func(ctx context.Context, src formal.Source, claim string) (formal.Verification, error) {
			v := formal.Verification{Status: formal.StatusVerified, Reason: "the page exists and says so"}
			once.Do(func() { v = formal.Verification{Status: formal.StatusFabricated, Reason: "no such page"} })
			return v, nil
		})
	}
	return engine.ForFormat(func(f any) error {
		if ff, ok := f.(*formal.Format); ok {
			formal.WithVerifier(verifier)(ff)
		}
		return nil
	})
}

// TestBrowserFormal: a formal debate from the page, with a fabricated
// source: the entry citing it is struck, the sources show their
// verification, the verdict and the documents are there.
func TestBrowserFormal(t *testing.T) {
	ctx := deadline(t, browser(t))
	s := newServer(llm.NewStub(1), store.NewMemory(), nil)
	s.opts = append(s.opts, firstFabricated())
	hs := serve(t, s)
	startFromPage(t, ctx, hs.URL, "formal", "Cities should ban private cars from their centres.",
		chromedp.SetValue(chromedp.ID("cfg-maxRounds"), "4"))
	waitFor(t, ctx, "the end", finished+` && !document.getElementById('documents').hidden`)
	p := readThePage(t, ctx)
	type struck struct {
		Decoration string   `json:"decoration"`
		Badges     string   `json:"badges"`
		Sources    []string `json:"sources"`
	}
	redacted := eval[[]struck](t, ctx, `[...document.querySelectorAll('.card.redacted')].map((c) => ({
	  decoration: getComputedStyle(c.querySelector('.text')).textDecorationLine,
	  badges: c.querySelector('.badges').textContent,
	  sources: [...c.querySelectorAll('.sources li')].map((li) => li.dataset.status || ''),
	}))`)
	if len(redacted) != 1 {
		t.Fatalf("%d struck cards; want the one citing the fabricated source", len(redacted))
	}
	if r := redacted[0]; r.Decoration != "line-through" || !strings.Contains(r.Badges, "struck from the record") || !slices.Contains(r.Sources, "fabricated") {
		t.Errorf("the redacted entry: decoration %q, badges %q, sources %q", r.Decoration, r.Badges, r.Sources)
	}
	statuses := eval[[]string](t, ctx, `[...document.querySelectorAll('.sources li[data-checked]')].map((li) => li.dataset.status || 'unchecked')`)
	if len(statuses) < 2 || slices.Contains(statuses, "unchecked") || !slices.Contains(statuses, "verified") {
		t.Errorf("source statuses %q; want every source checked", statuses)
	}
	kinds := eval[[]string](t, ctx, `[...document.querySelectorAll('.card .kind')].map((k) => k.textContent)`)
	for _, want := range []string{"opening statement", "redaction", "ruling", "closing statement"} {
		if !slices.ContainsFunc(kinds, func(k string) bool { return strings.HasSuffix(k, want) }) {
			t.Errorf("no %s card; kinds %q", want, kinds)
		}
	}
	if !strings.Contains(p.Outcome, "Verdict") || !strings.Contains(p.Outcome, "Redactions") {
		t.Errorf("outcome panel: %q", p.Outcome)
	}
	if want := []string{"assessor-report.md", "blog-post.md", "summary.md", "transcript.md"}; !slices.Equal(p.Documents, want) {
		t.Errorf("documents %q; want %q", p.Documents, want)
	}
	checkArgumentMap(t, p)
	scrollTo(t, ctx, ".card.redacted")
	screenshot(t, ctx, "web-formal.png")
}

// TestBrowserScored: a scored debate from the page, a category's score set
// in the form; the chart shows the three categories before and after their
// verdicts.
func TestBrowserScored(t *testing.T) {
	ctx := deadline(t, browser(t))
	hs := serve(t, newServer(llm.NewStub(1), store.NewMemory(), nil))
	startFromPage(t, ctx, hs.URL, "scored", "A subscription app that plans weekly meals around what is in your fridge.",
		chromedp.SetValue(chromedp.CSS(`.category-row:first-child .cat-score`), "7"),
		chromedp.SetValue(chromedp.CSS(`.category-row:first-child .cat-evidence`), "40% of households waste food weekly"))
	waitFor(t, ctx, "the end", finished+` && !document.getElementById('documents').hidden`)
	p := readThePage(t, ctx)
	type cat struct {
		Name  string `json:"name"`
		Pre   string `json:"pre"`
		Post  int    `json:"post"`
		Delta string `json:"delta"`
	}
	cats := eval[[]cat](t, ctx, `[...document.querySelectorAll('#scores svg g.cat')].map((g) => ({
	  name: g.querySelector('.cat-name').textContent,
	  pre: (g.querySelector('rect.pre title') || {}).textContent || '',
	  post: g.querySelectorAll('rect.post').length,
	  delta: (g.querySelector('text.delta') || {}).textContent || '',
	}))`)
	if len(cats) != 3 {
		t.Fatalf("the chart has %d categories; want 3: %+v", len(cats), cats)
	}
	for i, c := range cats {
		if c.Post != 1 || c.Delta == "" || c.Pre == "" {
			t.Errorf("category %d %q: %+v; want a bar before and after and the delta", i, c.Name, c)
		}
	}
	if cats[0].Pre != "before: 7" {
		t.Errorf("the first category starts at %q; want the form's 7", cats[0].Pre)
	}
	verdicts := eval[int](t, ctx, `document.querySelectorAll('.card.kind-verdict').length`)
	if verdicts != 3 {
		t.Errorf("%d verdict cards; want 3", verdicts)
	}
	if !slices.Contains(p.Documents, "debate.md") {
		t.Errorf("documents %q", p.Documents)
	}
	checkArgumentMap(t, p)
	if err := chromedp.Do(ctx, chromedp.Evaluate[chromedp.Void](`window.scrollTo(0, 0)`)); err != nil {
		t.Fatal(err)
	}
	screenshot(t, ctx, "web-scored.png")
}

// TestBrowserModeratedCheckpoints: a person answers everything a moderated
// debate asks from the page (seed 004: "Prompt too vague | Moderator asks
// clarifying question before assigning perspectives"; "Human | Initiates
// debate, optional guidance at checkpoints, approves final synthesis").
// The vague question pauses the debate with the moderator's question and
// assumption shown; the answer (kept as text) resumes it; it pauses at its
// checkpoint; the server restarts; the page of the new server shows the
// paused debate, guidance continues it, End & synthesize ends the rounds;
// the synthesis waits for its approval, and Approve, with feedback, ends
// the debate.
func TestBrowserModeratedCheckpoints(t *testing.T) {
	ctx := deadline(t, browser(t))
	st := store.NewMemory()
	s1 := newServer(llm.NewStub(3), st, nil) // a stub whose first round ends at a checkpoint
	hs1 := httptest.NewServer(s1.routes())
	defer hs1.Close()
	// Fewer than five words: the offline stub's moderator finds it vague.
	startFromPage(t, ctx, hs1.URL, "moderated", "Redis or PostgreSQL?",
		chromedp.SetValue(chromedp.ID("cfg-maxRounds"), "4"))
	const paused = `document.getElementById('status').textContent === 'paused'`
	waitFor(t, ctx, "the clarifying question", paused+` && !document.getElementById('clarification').hidden`)
	id := eval[string](t, ctx, `document.getElementById('debate-id').textContent`)
	type question struct {
		Question string `json:"question"`
		Cards    int    `json:"cards"`
		Others   bool   `json:"others"`
	}
	got := eval[question](t, ctx, `({
	  question: document.getElementById('clarification-question').textContent,
	  cards: document.querySelectorAll('.perspective-card').length,
	  others: !document.getElementById('checkpoint').hidden || !document.getElementById('approval').hidden,
	})`)
	// The page shows the question the debate waits for (engine.Pending).
	var want debateView
	if code := call(t, "GET", hs1.URL+"/api/debates/"+id, "", &want); code != 200 {
		t.Fatalf("GET the debate: %d", code)
	}
	if w := want.Question; w == nil || got.Question == "" || got.Question != w.Text {
		t.Errorf("the page asks %q; the debate waits for %+v", got.Question, w)
	}
	if got.Cards != 0 || got.Others {
		t.Errorf("%d perspective cards, other questions shown %t, before the clarification", got.Cards, got.Others)
	}
	// The person's answer is text: markup in it stays as written.
	const answer = `We run <b>PostgreSQL 16</b> & cache sessions <img src=x>`
	if err := chromedp.Do(ctx,
		chromedp.SendKeys(chromedp.ID("clarification-answer"), answer),
		chromedp.Evaluate[chromedp.Void](`window.scrollTo(0, 0)`),
	); err != nil {
		t.Fatal(err)
	}
	screenshot(t, ctx, "web-moderated-clarification.png")
	if err := chromedp.Do(ctx, chromedp.Click(chromedp.ID("cl-answer"))); err != nil {
		t.Fatal(err)
	}
	const atCheckpoint = `!document.getElementById('checkpoint').hidden && ` + paused
	waitFor(t, ctx, "the first checkpoint", atCheckpoint+` && document.getElementById('checkpoint-title').textContent.startsWith('Round 1')`)
	said := eval[[]string](t, ctx, `[...document.querySelectorAll('.card.kind-clarification .text')].map((n) => n.textContent)`)
	if len(said) != 1 || !strings.Contains(said[0], "The answer: "+answer) {
		t.Errorf("the moderator's clarification cards %q; want one with the answer %q", said, answer)
	}
	if n := eval[int](t, ctx, `document.querySelectorAll('#timeline b, #timeline img').length`); n != 0 {
		t.Errorf("the answer's markup made %d elements", n)
	}
	if !eval[bool](t, ctx, `document.getElementById('clarification').hidden`) {
		t.Error("the clarifying question is still shown after the answer")
	}
	cards := eval[int](t, ctx, `document.querySelectorAll('.perspective-card').length`)
	if cards < 2 {
		t.Errorf("%d perspective cards; want the perspectives seated", cards)
	}
	if n := eval[int](t, ctx, `document.querySelectorAll('.signals').length`); n != 1 {
		t.Errorf("%d rounds of convergence signals; want 1", n)
	}
	scrollTo(t, ctx, "#checkpoint")
	screenshot(t, ctx, "web-moderated-checkpoint.png")

	// The server restarts; the paused debate is in the store.
	s1.shutdown(0)
	hs1.Close()
	s2 := newServer(llm.NewStub(1), st, nil)
	hs2 := serve(t, s2)
	const guidance = "Consider the cost of running both for a year."
	err := chromedp.Do(ctx,
		chromedp.Navigate(hs2.URL+"/#"+id),
		chromedp.WaitVisible(chromedp.ID("checkpoint")),
		chromedp.Click(chromedp.ID("cp-guide")),
		chromedp.WaitVisible(chromedp.ID("cp-guidance")),
		chromedp.SendKeys(chromedp.ID("cp-guidance"), guidance),
		chromedp.Click(chromedp.ID("cp-send")),
	)
	if err != nil {
		t.Fatalf("guide from the page of the restarted server: %v", err)
	}
	waitFor(t, ctx, "the second checkpoint", atCheckpoint+` && document.getElementById('checkpoint-title').textContent.startsWith('Round 2')`)
	if !eval[bool](t, ctx, `document.getElementById('clarification').hidden`) {
		t.Error("the page read back asks the answered question again")
	}
	human := eval[[]string](t, ctx, `[...document.querySelectorAll('.card[data-speaker="human"] .text')].map((n) => n.textContent)`)
	if !slices.Contains(human, guidance) {
		t.Errorf("the guidance cards %q lack %q", human, guidance)
	}
	if err := chromedp.Do(ctx, chromedp.Click(chromedp.ID("cp-end"))); err != nil {
		t.Fatal(err)
	}

	// The synthesis is shown, and waits for the person's review.
	waitFor(t, ctx, "the approval", paused+` && !document.getElementById('approval').hidden && !document.getElementById('outcome').hidden`)
	if !eval[bool](t, ctx, `document.getElementById('checkpoint').hidden && document.getElementById('documents').hidden`) {
		t.Error("the checkpoint, or the documents of a finished debate, are shown while the synthesis waits for its review")
	}
	if o := eval[string](t, ctx, `document.getElementById('outcome').textContent`); !strings.Contains(o, "Recommendation") {
		t.Errorf("the synthesis to review is not shown: %.300s", o)
	}
	scrollTo(t, ctx, "#outcome")
	screenshot(t, ctx, "web-moderated-approval.png")
	const feedback = "Agreed: start with the session cache."
	if err := chromedp.Do(ctx,
		chromedp.SendKeys(chromedp.ID("approval-feedback"), feedback),
		chromedp.Click(chromedp.ID("ap-approve")),
	); err != nil {
		t.Fatal(err)
	}
	waitFor(t, ctx, "the end", finished+` && !document.getElementById('documents').hidden`)
	p := readThePage(t, ctx)
	for _, want := range []string{"Synthesis", "Recommendation", "Points of agreement", "Key tensions", "ended by human",
		"✔ Approved: this is the decision.", "“" + feedback + "”"} {
		if !strings.Contains(p.Outcome, want) {
			t.Errorf("synthesis lacks %q: %.400s", want, p.Outcome)
		}
	}
	if s := eval[string](t, ctx, `document.querySelector('#outcome .approval-status').dataset.status`); s != "approved" {
		t.Errorf("approval shown as %q", s)
	}
	if n := eval[int](t, ctx, `document.querySelectorAll('.synthesis-section').length`); n < 4 {
		t.Errorf("%d collapsible synthesis sections", n)
	}
	notes := eval[[]string](t, ctx, `[...document.querySelectorAll('.checkpoint-note')].map((n) => n.dataset.action)`)
	if !slices.Equal(notes, []string{"guide", "end"}) {
		t.Errorf("checkpoint decisions shown %q; want guide, end", notes)
	}
	if !eval[bool](t, ctx, `['clarification', 'checkpoint', 'approval'].every((id) => document.getElementById(id).hidden)`) {
		t.Error("a question is still shown after the end")
	}
	if !slices.Contains(p.Documents, "synthesis.md") {
		t.Errorf("documents %q", p.Documents)
	}
	doc := eval[string](t, ctx, `(() => {
	  const x = new XMLHttpRequest();
	  x.open('GET', document.querySelector('#document-list a[download$="synthesis.md"]').href, false);
	  x.send();
	  return x.responseText;
	})()`)
	for _, want := range []string{"**Status:** Approved — " + feedback, "**Answer:** " + answer} {
		if !strings.Contains(doc, want) {
			t.Errorf("synthesis.md lacks %q:\n%.800s", want, doc)
		}
	}
	checkArgumentMap(t, p)
	scrollTo(t, ctx, "#outcome")
	screenshot(t, ctx, "web-moderated.png")
}

// TestBrowserPersuasion: a persuasion dialogue from the page shows each
// turn's speech acts and the commitment stores; then the history lists it
// and opens it read-only.
func TestBrowserPersuasion(t *testing.T) {
	ctx := deadline(t, browser(t))
	hs := serve(t, newServer(llm.NewStub(1), store.NewMemory(), nil))
	startFromPage(t, ctx, hs.URL, "persuasion", "Should we rewrite the billing service in Go?",
		chromedp.SetValue(chromedp.ID("cfg-maxRounds"), "1"))
	waitFor(t, ctx, "the end", finished+` && !document.getElementById('documents').hidden`)
	p := readThePage(t, ctx)
	type store struct {
		Side  string   `json:"side"`
		Items []string `json:"items"`
	}
	stores := eval[[]store](t, ctx, `[...document.querySelectorAll('.commitment-list')].map((ul) => ({
	  side: ul.dataset.side, items: [...ul.querySelectorAll('li:not(.hint)')].map((li) => li.textContent) }))`)
	if len(stores) != 2 || len(stores[0].Items) == 0 || len(stores[1].Items) == 0 {
		t.Errorf("commitment stores %+v; want PRO's and OPP's, not empty", stores)
	}
	acts := eval[[]string](t, ctx, `[...document.querySelectorAll('.card .moves li')].map((li) => li.dataset.act)`)
	if !slices.Contains(acts, "claim") || len(acts) < 4 {
		t.Errorf("speech acts shown %q", acts)
	}
	checkPersuasionCards(t, ctx, p)
	if !strings.Contains(p.Outcome, "Verdict") || !strings.Contains(p.Outcome, "Rationale") {
		t.Errorf("outcome %q", p.Outcome)
	}
	checkArgumentMap(t, p)
	scrollTo(t, ctx, "#live")
	screenshot(t, ctx, "web-persuasion.png")

	// The history lists it; Read opens it again, finished, from the store.
	id := eval[string](t, ctx, `document.getElementById('debate-id').textContent`)
	err := chromedp.Do(ctx,
		chromedp.Click(chromedp.ID("nav-history")),
		chromedp.WaitVisible(chromedp.CSS(`#history-table tr[data-id="`+id+`"]`)),
	)
	if err != nil {
		t.Fatal(err)
	}
	row := eval[string](t, ctx, `document.querySelector('#history-table tr[data-id="`+id+`"]').textContent`)
	for _, want := range []string{"Persuasion dialogue", "finished", "Should we rewrite the billing service in Go?", "Read"} {
		if !strings.Contains(row, want) {
			t.Errorf("history row %q lacks %q", row, want)
		}
	}
	screenshot(t, ctx, "web-history.png")
	if err := chromedp.Do(ctx, chromedp.Click(chromedp.CSS(`#history-table tr[data-id="`+id+`"] a`))); err != nil {
		t.Fatal(err)
	}
	waitFor(t, ctx, "the debate read back", finished+` && !document.getElementById('outcome').hidden`)
	again := readThePage(t, ctx)
	if again.Cards != p.Cards || again.Title != p.Title {
		t.Errorf("read back: %d cards, title %q; want %d, %q", again.Cards, again.Title, p.Cards, p.Title)
	}
	if !eval[bool](t, ctx, `document.getElementById('interject').hidden && document.getElementById('checkpoint').hidden`) {
		t.Error("a finished debate offers to steer it")
	}
}
