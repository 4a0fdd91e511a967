package main

import (
	"context"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/duelogic/duelogic"
	"github.com/duelogic/duelogic/llm"
	"github.com/duelogic/duelogic/llm/llmtest"
	"github.com/duelogic/duelogic/store"
)

// browser returns a tab of a fresh headless browser, or skips the test when
// none is installed (.ci/browser.sh installs Chromium) unless
// DUELOGIC_REQUIRE_BROWSER is set.
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
	t.Cleanup(func() {
		cancelTab()
		cancelAlloc()
	})
	if err := chromedp.Do(ctx); err != nil { // start the browser
		t.Fatalf("start %s: %v", path, err)
	}
	return ctx
}

// page is what a person sees of a debate.
type page struct {
	Status       string   `json:"status"`
	Title        string   `json:"title"`
	Intro        int      `json:"intro"`
	Closing      int      `json:"closing"`
	Names        []string `json:"names"`
	Roster       []string `json:"roster"`
	EvalBadges   int      `json:"evalBadges"`
	Streaming    int      `json:"streaming"`
	Metrics      string   `json:"metrics"`
	MetricsShown bool     `json:"metricsShown"`
	ArgMap       string   `json:"argmap"`
	Texts        []string `json:"texts"`
	Images       int      `json:"images"`
	TitleNodes   int      `json:"titleNodes"`
}

const readPage = `(() => {
  const all = (sel) => [...document.querySelectorAll(sel)];
  return {
    status: document.getElementById('status').textContent,
    title: document.getElementById('title').textContent,
    intro: all('.card.kind-introduction').length,
    closing: all('.card.kind-closing').length,
    names: [...new Set(all('.card .name').map((n) => n.textContent))],
    roster: all('#roster strong').map((n) => n.textContent),
    evalBadges: all('.card .badge.eval').length,
    streaming: all('.card.streaming').length,
    metrics: document.getElementById('metrics').textContent,
    metricsShown: !document.getElementById('metrics').hidden,
    argmap: document.getElementById('argmap').hidden ? '' : document.getElementById('argmap').textContent,
    texts: all('.card .text').map((n) => n.textContent),
    images: all('img').length,
    titleNodes: document.getElementById('title').children.length,
  };
})()`

// debateInBrowser serves a server with client, starts a debate of preset
// from the page with proposition, waits for its end and reads the page.
func debateInBrowser(t *testing.T, client llm.Client, preset, proposition string) (context.Context, page) {
	ctx := browser(t)
	s := newServer(client, store.NewMemory(), nil)
	hs := httptest.NewServer(s.routes())
	t.Cleanup(func() {
		hs.Close()
		s.shutdown(0)
	})
	tctx, cancel := context.WithTimeout(ctx, 2*time.Minute)
	defer cancel()
	err := chromedp.Do(tctx,
		chromedp.Navigate(hs.URL),
		chromedp.WaitReady(chromedp.CSS(`#preset option[value="`+preset+`"]`)),
		chromedp.SetValue(chromedp.ID("preset"), preset),
		chromedp.SetValue(chromedp.ID("proposition"), proposition),
		chromedp.SetValue(chromedp.ID("exchanges"), "3"),
		chromedp.Click(chromedp.ID("start")),
		chromedp.WaitVisible(chromedp.ID("metrics")),
		chromedp.Evaluate[chromedp.Void](`window.scrollTo(0, 0)`),
	)
	if err != nil {
		t.Fatalf("drive the page: %v", err)
	}
	p, err := chromedp.Run(tctx, chromedp.Evaluate[page](readPage))
	if err != nil {
		t.Fatalf("read the page: %v", err)
	}
	return ctx, p
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
		// named after it: web.png, web-argmap.png.
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

func TestBrowserWatchesADebate(t *testing.T) {
	stub := llm.NewStub(2)
	stub.TokenDelay = time.Millisecond // stream, but quickly
	ctx, p := debateInBrowser(t, stub, "three_way_ethics", "Should cities ban private cars from their centres?")
	// The picture: the exchange, under the debate's sticky header.
	err := chromedp.Do(ctx, chromedp.Evaluate[chromedp.Void](`(() => {
	  const seg = [...document.querySelectorAll('.segment')].find((s) => s.textContent === 'The exchange');
	  const head = document.querySelector('.debate-head').getBoundingClientRect().height;
	  window.scrollTo(0, seg.getBoundingClientRect().top + window.scrollY - head - 24);
	})()`))
	if err != nil {
		t.Fatal(err)
	}
	screenshot(t, ctx, "web.png")
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
	if p.EvalBadges == 0 {
		t.Error("no evaluation badge")
	}
	if p.Streaming != 0 {
		t.Errorf("%d cards still streaming after the end", p.Streaming)
	}
	if !p.MetricsShown {
		t.Error("metrics panel hidden")
	}
	for _, want := range []string{"Steel-manning", "Self-critique", "Mean adherence", "Interjections"} {
		if !strings.Contains(p.Metrics, want) {
			t.Errorf("metrics panel lacks %q:\n%s", want, p.Metrics)
		}
	}
	for _, want := range []string{"Argument map", "Strength", "Clashes", "moves"} {
		if !strings.Contains(p.ArgMap, want) {
			t.Errorf("argument map lacks %q:\n%s", want, p.ArgMap)
		}
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
	_, p := debateInBrowser(t, f, "classic_clash", question)

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
}
