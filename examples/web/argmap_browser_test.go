package main

import (
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"math"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"
	gocmp "github.com/google/go-cmp/cmp"

	"github.com/duelogic/duelogic"
	"github.com/duelogic/duelogic/argumentation"
	"github.com/duelogic/duelogic/engine"
	"github.com/duelogic/duelogic/llm"
)

// The seed lines these tests draw (seeds/002-persuasion-dialogue-argumentation.md):
//
//	5. **Pollock's Defeaters** — Rebutting vs Undercutting attacks
//	### Argument Map (ASCII)
//	  [A3: S₁] ──support──→ [A1: φ] ←──rebut── [A2: ¬φ]
//	     └──undercut── [A5: ...]          [A4: T₁] ─┘support
//
// and issue 16: "an SVG graph (nodes sized or shaded by strength and coloured
// by side, attacks and supports drawn differently, rebut vs undercut
// distinguishable, hover or click shows the argument's text and score), laid
// out readably for at least 60 arguments".

// argmapPage serves static/ and the fixture page testdata/argmap/index.html
// and opens the page in a fresh browser.
func argmapPage(t *testing.T) context.Context {
	t.Helper()
	ctx := browser(t)
	mux := http.NewServeMux()
	mux.Handle("GET /static/", http.StripPrefix("/static/", http.FileServerFS(os.DirFS("static"))))
	mux.HandleFunc("GET /{$}", func(w http.ResponseWriter, r *http.Request) {
		http.ServeFile(w, r, filepath.Join("testdata", "argmap", "index.html"))
	})
	hs := httptest.NewServer(mux)
	t.Cleanup(hs.Close)
	tctx, cancel := context.WithTimeout(ctx, time.Minute)
	defer cancel()
	err := chromedp.Do(tctx,
		chromedp.Navigate(hs.URL),
		chromedp.WaitReady(chromedp.ID("map")),
		// A click on the page's margin gives the page focus, as a person's
		// first click does; a headless tab without it fires no focus events.
		chromedp.MouseClickXY(2, 2),
	)
	if err != nil {
		t.Fatalf("open the fixture page: %v", err)
	}
	if ok, err := chromedp.Run(tctx, chromedp.Evaluate[bool](`typeof window.drawArgumentMap === 'function'`)); err != nil || !ok {
		t.Fatalf("window.drawArgumentMap is not a function (%v)", err)
	}
	return ctx
}

// box is an argument's box as the browser lays it out (getBBox).
type box struct {
	ID         string
	X, Y, W, H float64
}

// nodeLook is how an argument's box looks: its border colour, the opacity
// of its shade and the length of its strength bar (0 to 1).
type nodeLook struct {
	ID, Side, Stroke string
	Shade, Bar       float64
}

// edgeLook is how a kind of relation is drawn: the marker at its head (ID
// and shape) and its computed stroke colour and dashes.
type edgeLook struct {
	Ref    string `json:"ref"`
	Shape  string `json:"shape"`
	Stroke string `json:"stroke"`
	Dash   string `json:"dash"`
}

// drawing is what the browser drew of a map.
type drawing struct {
	Graphs   int                 `json:"graphs"`
	Nodes    int                 `json:"nodes"`
	Edges    int                 `json:"edges"`
	Data     map[string]int      `json:"data"`
	Returned map[string]int      `json:"returned"`
	Kinds    map[string]int      `json:"kinds"`
	Markers  map[string]edgeLook `json:"markers"`
	Boxes    []box               `json:"boxes"`
	Looks    []nodeLook          `json:"looks"`
	Paths    []string            `json:"paths"`
	ViewW    float64             `json:"viewW"`
	ViewH    float64             `json:"viewH"`
	Legend   string              `json:"legend"`
	Summary  string              `json:"summary"`
	Titles   []string            `json:"titles"`
	Elements []string            `json:"elements"`
	Pwned    bool                `json:"pwned"`
}

// draw calls drawArgumentMap on #map with the JSON of am and labels, and
// reads what was drawn.
func draw(t *testing.T, ctx context.Context, am any, labels map[string]string) drawing {
	t.Helper()
	amJSON, err := json.Marshal(am)
	if err != nil {
		t.Fatal(err)
	}
	labelJSON, err := json.Marshal(labels)
	if err != nil {
		t.Fatal(err)
	}
	script := `(() => {
  const map = document.getElementById('map');
  const r = window.drawArgumentMap(map, ` + string(amJSON) + `, {label: ` + string(labelJSON) + `});
  const svg = map.querySelector('svg.argmap-graph');
  const all = (sel) => [...svg.querySelectorAll(sel)];
  const markers = {};
  for (const k of ['support', 'rebut', 'undercut']) {
    const e = svg.querySelector('.argmap-edges .argmap-' + k);
    if (!e) continue;
    const id = e.getAttribute('marker-end').replace(/^url\(#|\)$/g, '');
    const m = document.getElementById(id);
    const cs = getComputedStyle(e);
    markers[k] = {ref: id, shape: m ? m.querySelector('path').getAttribute('d') : '',
      stroke: cs.stroke, dash: cs.strokeDasharray};
  }
  const data = {};
  for (const k of ['nodes', 'edges', 'supports', 'rebuts', 'undercuts']) data[k] = Number(svg.dataset[k]);
  const vb = svg.viewBox.baseVal;
  return {
    graphs: map.querySelectorAll('svg.argmap-graph').length,
    nodes: all('.argmap-nodes .argmap-node').length,
    edges: all('.argmap-edges .argmap-edge').length,
    data,
    returned: {nodes: r.nodes, edges: r.edges, supports: r.supports, rebuts: r.rebuts, undercuts: r.undercuts},
    kinds: {support: all('.argmap-edges .argmap-support').length, rebut: all('.argmap-edges .argmap-rebut').length,
      undercut: all('.argmap-edges .argmap-undercut').length, attack: all('.argmap-edges .argmap-attack').length},
    markers,
    boxes: all('.argmap-box').map((b) => {
      const bb = b.getBBox();
      return {ID: b.closest('.argmap-node').dataset.id, X: bb.x, Y: bb.y, W: bb.width, H: bb.height};
    }),
    looks: all('.argmap-node').map((g) => ({
      ID: g.dataset.id, Side: g.dataset.side, Stroke: getComputedStyle(g.querySelector('.argmap-box')).stroke,
      Shade: Number(getComputedStyle(g.querySelector('.argmap-shade')).fillOpacity),
      Bar: g.querySelector('.argmap-bar').getBBox().width / g.querySelector('.argmap-bar-bg').getBBox().width,
    })),
    paths: all('.argmap-edges .argmap-edge').map((p) => p.getAttribute('d')),
    viewW: vb.width, viewH: vb.height,
    legend: map.querySelector('.argmap-legend').textContent,
    summary: map.querySelector('.argmap-summary').textContent,
    titles: all('.argmap-node > title').map((n) => n.textContent),
    elements: [...new Set([...map.querySelectorAll('*')].map((e) => e.localName))].sort(),
    pwned: window.pwned !== undefined,
  };
})()`
	tctx, cancel := context.WithTimeout(ctx, time.Minute)
	defer cancel()
	d, err := chromedp.Run(tctx, chromedp.Evaluate[drawing](script))
	if err != nil {
		t.Fatalf("draw: %v", err)
	}
	return d
}

// kindCounts counts a map's relations by how they should be drawn.
func kindCounts(am *engine.ArgumentMap) map[string]int {
	n := map[string]int{"support": 0, "rebut": 0, "undercut": 0, "attack": 0}
	for _, r := range am.Relations {
		switch {
		case r.Type == argumentation.Support:
			n["support"]++
		case r.Kind == argumentation.Undercut:
			n["undercut"]++
			n["attack"]++
		default:
			n["rebut"]++
			n["attack"]++
		}
	}
	return n
}

// checkDrawing checks that d draws am: one node per argument, one edge per
// relation, each kind with its own class, marker and stroke, and no two
// argument boxes overlapping.
func checkDrawing(t *testing.T, am *engine.ArgumentMap, d drawing) {
	t.Helper()
	if d.Graphs != 1 {
		t.Errorf("%d argument map SVGs in the container; want 1", d.Graphs)
	}
	if d.Nodes != len(am.Arguments) || d.Edges != len(am.Relations) {
		t.Errorf("%d nodes and %d edges drawn; the map has %d arguments and %d relations",
			d.Nodes, d.Edges, len(am.Arguments), len(am.Relations))
	}
	want := kindCounts(am)
	if diff := gocmp.Diff(want, d.Kinds); diff != "" {
		t.Errorf("edges by class (-map +drawn):\n%s", diff)
	}
	wantData := map[string]int{"nodes": len(am.Arguments), "edges": len(am.Relations),
		"supports": want["support"], "rebuts": want["rebut"], "undercuts": want["undercut"]}
	if diff := gocmp.Diff(wantData, d.Data); diff != "" {
		t.Errorf("data attributes (-want +got):\n%s", diff)
	}
	if diff := gocmp.Diff(wantData, d.Returned); diff != "" {
		t.Errorf("return value (-want +got):\n%s", diff)
	}
	// Each kind present is drawn its own way: its own marker shape, and
	// attacks vs supports by stroke colour, rebut vs undercut by dashes.
	looks := d.Markers
	for k, n := range want {
		if _, ok := looks[k]; n > 0 && k != "attack" && !ok {
			t.Errorf("no %s edge read", k)
		}
	}
	kinds := slices.Sorted(maps.Keys(looks))
	for i, a := range kinds {
		for _, b := range kinds[i+1:] {
			la, lb := looks[a], looks[b]
			if la.Ref == lb.Ref || la.Shape == lb.Shape {
				t.Errorf("%s and %s edges share a marker: %+v, %+v", a, b, la, lb)
			}
			if la.Stroke == lb.Stroke && la.Dash == lb.Dash {
				t.Errorf("%s and %s edges are stroked alike: %+v", a, b, la)
			}
		}
	}
	if s, ok := looks["support"]; ok {
		for _, k := range []string{"rebut", "undercut"} {
			if a, ok := looks[k]; ok && a.Stroke == s.Stroke {
				t.Errorf("%s and support edges have the same colour %s", k, s.Stroke)
			}
		}
	}
	if r, ok := looks["rebut"]; ok {
		if u, ok := looks["undercut"]; ok && r.Dash == u.Dash {
			t.Errorf("rebut and undercut edges have the same dashes %q", r.Dash)
		}
	}
	// No two boxes overlap, and every box is inside the picture.
	for i, a := range d.Boxes {
		if a.W <= 0 || a.H <= 0 || a.X < 0 || a.Y < 0 || a.X+a.W > d.ViewW || a.Y+a.H > d.ViewH {
			t.Errorf("box %+v outside the %vx%v picture", a, d.ViewW, d.ViewH)
		}
		for _, b := range d.Boxes[i+1:] {
			if a.X < b.X+b.W && b.X < a.X+a.W && a.Y < b.Y+b.H && b.Y < a.Y+a.H {
				t.Errorf("boxes overlap: %+v and %+v", a, b)
			}
		}
	}
	// Shaded by strength, coloured by side.
	score := map[string]float64{}
	for _, a := range am.Arguments {
		score[a.ID] = a.Score
	}
	sideColour := map[string]string{}
	colourSide := map[string]string{}
	for _, l := range d.Looks {
		if math.Abs(l.Bar-score[l.ID]) > 0.01 {
			t.Errorf("%s: strength bar %.3f long; its strength is %.3f", l.ID, l.Bar, score[l.ID])
		}
		if c, ok := sideColour[l.Side]; ok && c != l.Stroke {
			t.Errorf("side %s drawn in %s and %s", l.Side, c, l.Stroke)
		}
		if s, ok := colourSide[l.Stroke]; ok && s != l.Side {
			t.Errorf("sides %s and %s share the colour %s", s, l.Side, l.Stroke)
		}
		sideColour[l.Side], colourSide[l.Stroke] = l.Stroke, l.Side
	}
	byStrength := slices.SortedFunc(slices.Values(d.Looks), func(a, b nodeLook) int { return cmp.Compare(score[a.ID], score[b.ID]) })
	for i := 1; i < len(byStrength); i++ {
		if l, o := byStrength[i], byStrength[i-1]; score[l.ID] > score[o.ID]+0.005 && l.Shade <= o.Shade {
			t.Errorf("%s (strength %.2f) is shaded %.3f, no deeper than %s (strength %.2f) at %.3f",
				l.ID, score[l.ID], l.Shade, o.ID, score[o.ID], o.Shade)
			break
		}
	}
	for _, w := range []string{"supports", "rebuts", "undercuts"} {
		if !strings.Contains(d.Legend, w) {
			t.Errorf("legend %q lacks %q", d.Legend, w)
		}
	}
}

// podcastMap runs the stub podcast of preset with argument mapping on and
// returns its map.
func podcastMap(t *testing.T, preset string) *engine.ArgumentMap {
	t.Helper()
	cfg, err := duelogic.ConfigForPreset(preset)
	if err != nil {
		t.Fatal(err)
	}
	cfg.Flow.MaxExchanges = 3
	o, err := duelogic.New(cfg, llm.NewStub(2), duelogic.WithArgumentMap(argumentation.Additive))
	if err != nil {
		t.Fatal(err)
	}
	res, err := o.Run(context.Background(), duelogic.Debate{ID: "mapped", Proposition: "Should cities ban private cars from their centres?"})
	if err != nil {
		t.Fatal(err)
	}
	if res.Arguments == nil || len(res.Arguments.Relations) == 0 {
		t.Fatal("the stub podcast mapped no relations")
	}
	return res.Arguments
}

// chairLabels names a podcast's chairs as the page does: model and framework.
func chairLabels(t *testing.T, preset string) map[string]string {
	cfg, err := duelogic.ConfigForPreset(preset)
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]string{}
	for _, c := range cfg.Chairs {
		out[c.Position] = fmt.Sprintf("%s · %s", c.Framework, c.ModelDisplayName)
	}
	return out
}

// syntheticMap builds, with the argumentation package, a two-sided
// dialogue over six rounds: each side argues twice a round, each argument
// a conclusion with reasons (supports), from round 1 on attacking the other
// side's last arguments by rebuttal or undercut, with challenges answered
// and concessions. hostile, when not empty, is the text of PRO's first
// claim.
func syntheticMap(t *testing.T, hostile string) *engine.ArgumentMap {
	t.Helper()
	openers := []string{"Evidence shows", "In practice", "On balance", "Residents report",
		"The council found", "Even critics accept", "Transport studies say"}
	topics := []string{
		"car-free centres cut asthma admissions near schools",
		"delivery vans still need access before ten in the morning",
		"small shops lose passing trade when parking disappears",
		"bus lanes move more people per hour than car lanes",
		"disabled residents depend on door-to-door car journeys",
		"pedestrianised streets saw retail rents rise",
		"congestion charging paid for night buses",
		"the evidence comes from a handful of wealthy cities",
		"a ban moves traffic onto the ring road next to housing",
		"cycling injuries fall once through traffic is removed",
		"tourists spend longer where streets are quiet",
		"emergency vehicles reach calls faster without queues",
	}
	sides := []string{"PRO", "OPP"}
	d := argumentation.NewDialogue(sides...)
	n := 0
	// text is a new proposition each call (up to 84 of them).
	text := func() string {
		n++
		return openers[n%len(openers)] + " " + topics[(n/len(openers))%len(topics)]
	}
	apply := func(m argumentation.Move) {
		t.Helper()
		if err := d.Apply(m); err != nil {
			t.Fatalf("apply %v: %v", m, err)
		}
	}
	last := map[string][]string{} // a side's since moves of the previous round
	for round := 0; round < 6; round++ {
		this := map[string][]string{}
		for _, side := range sides {
			other := sides[0]
			if side == other {
				other = sides[1]
			}
			for k := 0; k < 2; k++ {
				id := fmt.Sprintf("%s%d%c", side[:1], round, 'a'+k)
				m := argumentation.Move{ID: id, Speaker: side, Act: argumentation.Since, Round: round,
					Proposition: text(), Reasons: []string{text(), text()}}
				if round == 0 && k == 0 && side == "PRO" && hostile != "" {
					m.Proposition = hostile
				}
				if (round+k)%3 == 2 {
					m.Reasons = m.Reasons[:1]
				}
				if round > 0 {
					m.Target = last[other][k]
					m.Attack = "rebut"
					if (round+k)%2 == 1 {
						m.Attack = "undercut"
					}
				}
				apply(m)
				this[side] = append(this[side], id)
			}
		}
		// A challenge, answered, and a concession now and then.
		if round%2 == 1 {
			target := this["PRO"][0]
			mv := d.Moves()
			var reason string
			for _, x := range mv {
				if x.ID == target {
					reason = x.Reasons[0]
				}
			}
			apply(argumentation.Move{ID: fmt.Sprintf("W%d", round), Speaker: "OPP", Act: argumentation.Why, Round: round,
				Proposition: reason, Target: target})
			apply(argumentation.Move{ID: fmt.Sprintf("S%d", round), Speaker: "PRO", Act: argumentation.Since, Round: round,
				Proposition: reason, Reasons: []string{text()}, Target: fmt.Sprintf("W%d", round)})
		}
		last = this
	}
	rep, err := d.Judge(argumentation.Additive, argumentation.VerdictOptions{})
	if err != nil {
		t.Fatal(err)
	}
	am := &engine.ArgumentMap{Moves: d.Moves(), Relations: rep.Graph.Relations(), Verdict: rep.Verdict}
	for _, a := range rep.Graph.Arguments() {
		am.Arguments = append(am.Arguments, argumentation.ScoredArgument{Argument: a, Score: rep.Scores.Strength[a.ID]})
	}
	return am
}

// saveArgmapScreenshot saves a picture of the fixture's map panel in the
// test's temporary directory and, when DUELOGIC_SCREENSHOT names a file,
// as web-argmap-graph.png beside it (docs/).
func saveArgmapScreenshot(t *testing.T, ctx context.Context) {
	t.Helper()
	// A viewport as tall as the page, so that the detail panel (sticky at
	// the viewport's bottom) is in its place below the map.
	h, err := chromedp.Run(ctx, chromedp.Evaluate[int64](`document.documentElement.scrollHeight`))
	if err != nil {
		t.Fatal(err)
	}
	if err := chromedp.Do(ctx, chromedp.EmulateViewport(1200, h)); err != nil {
		t.Fatal(err)
	}
	png, err := chromedp.Run(ctx, chromedp.Screenshot(chromedp.CSS("section.panel")))
	if err != nil {
		t.Fatalf("screenshot: %v", err)
	}
	paths := []string{filepath.Join(t.TempDir(), "web-argmap-graph.png")}
	if p := os.Getenv("DUELOGIC_SCREENSHOT"); p != "" {
		paths = append(paths, filepath.Join(filepath.Dir(p), "web-argmap-graph.png"))
	}
	for _, p := range paths {
		if err := os.WriteFile(p, png, 0o644); err != nil {
			t.Fatal(err)
		}
		t.Logf("screenshot: %s", p)
	}
}

func TestArgumentMapDrawsAPodcastMap(t *testing.T) {
	ctx := argmapPage(t)
	for _, preset := range []string{"three_way_ethics", "classic_clash", "battle_royale"} {
		t.Run(preset, func(t *testing.T) {
			am := podcastMap(t, preset)
			labels := chairLabels(t, preset)
			d := draw(t, ctx, am, labels)
			checkDrawing(t, am, d)
			for _, l := range labels {
				if !strings.Contains(d.Legend, l) {
					t.Errorf("legend %q lacks the chair %q", d.Legend, l)
				}
			}
			want := fmt.Sprintf("%d arguments by %d sides", len(am.Arguments), len(am.Verdict.Sides))
			if !strings.HasPrefix(d.Summary, want) {
				t.Errorf("summary %q; want it to start %q", d.Summary, want)
			}
		})
	}
}

func TestArgumentMapDrawsSixtyArguments(t *testing.T) {
	ctx := argmapPage(t)
	am := syntheticMap(t, "")
	k := kindCounts(am)
	if len(am.Arguments) < 60 || k["rebut"] == 0 || k["undercut"] == 0 || k["support"] == 0 {
		t.Fatalf("the synthetic map is thin: %d arguments, %v", len(am.Arguments), k)
	}
	labels := map[string]string{"PRO": "Proposition", "OPP": "Opposition"}
	small := podcastMap(t, "classic_clash")

	// A live update: a small map, then the big one in the same container.
	first := draw(t, ctx, small, nil)
	checkDrawing(t, small, first)
	d := draw(t, ctx, am, labels)
	checkDrawing(t, am, d)
	t.Logf("%d arguments, %d relations %v in a %vx%v picture", len(am.Arguments), len(am.Relations), k, d.ViewW, d.ViewH)

	// The same map always gives the same drawing.
	draw(t, ctx, small, nil)
	again := draw(t, ctx, am, labels)
	if diff := gocmp.Diff(d.Boxes, again.Boxes); diff != "" {
		t.Errorf("boxes moved on a redraw of the same map (-first +again):\n%s", diff)
	}
	if diff := gocmp.Diff(d.Paths, again.Paths); diff != "" {
		t.Errorf("edges moved on a redraw of the same map (-first +again):\n%s", diff)
	}
	// Readable in the page's 900-pixel column: not shrunk below three quarters.
	if d.ViewW > 900/0.75 {
		t.Errorf("the picture is %v wide; the page would shrink it below 75%%", d.ViewW)
	}

	// What a person sees: the argument with the most kinds of relation, then
	// the most relations, shown.
	top, best := "", [2]int{}
	for _, a := range am.Arguments {
		kinds := map[string]bool{}
		n := 0
		for _, r := range am.Relations {
			if r.From == a.ID || r.To == a.ID {
				kinds[fmt.Sprint(r.Type, r.Kind)] = true
				n++
			}
		}
		if s := [2]int{len(kinds), n}; s[0] > best[0] || s[0] == best[0] && s[1] > best[1] {
			top, best = a.ID, s
		}
	}
	if err := chromedp.Do(ctx, chromedp.Evaluate[chromedp.Void](
		`document.querySelector('#map [data-id="`+top+`"]').dispatchEvent(new MouseEvent('click'))`)); err != nil {
		t.Fatal(err)
	}
	saveArgmapScreenshot(t, ctx)
}

// nodeCentre returns the centre of argument id's box in the viewport,
// scrolled into view.
func nodeCentre(t *testing.T, ctx context.Context, id string) (x, y float64) {
	t.Helper()
	p, err := chromedp.Run(ctx, chromedp.Evaluate[[]float64](`(() => {
  const n = document.querySelector('#map .argmap-node[data-id="`+id+`"] .argmap-box');
  n.scrollIntoView({block: 'center'});
  const r = n.getBoundingClientRect();
  return [r.x + r.width / 2, r.y + r.height / 2];
})()`))
	if err != nil || len(p) != 2 {
		t.Fatalf("find %s: %v", id, err)
	}
	return p[0], p[1]
}

// shown is the detail panel and the map's state.
type shown struct {
	Detail  string   `json:"detail"`
	ID      string   `json:"id"`
	Active  string   `json:"active"`
	Pressed []string `json:"pressed"`
	On      []string `json:"on"`
}

func readShown(t *testing.T, ctx context.Context) shown {
	t.Helper()
	s, err := chromedp.Run(ctx, chromedp.Evaluate[shown](`(() => {
  const map = document.getElementById('map');
  const det = map.querySelector('.argmap-detail');
  const a = document.activeElement;
  return {
    detail: det.textContent,
    id: det.querySelector('.argmap-detail-id') ? det.querySelector('.argmap-detail-id').textContent : '',
    active: a && a.classList && a.classList.contains('argmap-node') ? a.dataset.id : '',
    pressed: [...map.querySelectorAll('.argmap-node[aria-pressed="true"]')].map((n) => n.dataset.id),
    on: [...map.querySelectorAll('.argmap-edge.argmap-on')].map((e) => e.dataset.from + '>' + e.dataset.to),
  };
})()`))
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func TestArgumentMapHoverFocusAndClickShowTheArgument(t *testing.T) {
	ctx := argmapPage(t)
	am := syntheticMap(t, "")
	draw(t, ctx, am, nil)
	byID := map[string]argumentation.ScoredArgument{}
	for _, a := range am.Arguments {
		byID[a.ID] = a
	}
	related := func(id string) []string {
		var out []string
		for _, r := range am.Relations {
			if r.From == id || r.To == id {
				out = append(out, r.From+">"+r.To)
			}
		}
		return out
	}
	showsArgument := func(t *testing.T, s shown, id string) {
		t.Helper()
		a := byID[id]
		if s.ID != id || !strings.Contains(s.Detail, a.Text) || !strings.Contains(s.Detail, fmt.Sprintf("strength %.2f", a.Score)) {
			t.Errorf("detail shows %q (%q); want %s's text %q and strength %.2f", s.ID, s.Detail, id, a.Text, a.Score)
		}
		if want := related(id); !gocmp.Equal(want, s.On, gocmp.Transformer("sort", func(x []string) []string {
			return slices.Sorted(slices.Values(x))
		})) {
			t.Errorf("highlighted edges %q; want %s's %q", s.On, id, want)
		}
	}
	// An argument with both kinds of relation.
	target := ""
	for _, a := range am.Arguments {
		if len(related(a.ID)) >= 3 {
			target = a.ID
			break
		}
	}
	other := am.Arguments[len(am.Arguments)-1].ID

	// Hover: the pointer over a box shows it; leaving shows nothing pinned.
	x, y := nodeCentre(t, ctx, target)
	if err := chromedp.Do(ctx, chromedp.MouseEvent(chromedp.MouseMoved, x, y)); err != nil {
		t.Fatal(err)
	}
	showsArgument(t, readShown(t, ctx), target)
	if err := chromedp.Do(ctx, chromedp.MouseEvent(chromedp.MouseMoved, 2, 2)); err != nil {
		t.Fatal(err)
	}
	if s := readShown(t, ctx); s.ID != "" || len(s.On) != 0 {
		t.Errorf("after the pointer left, the detail still shows %q with edges %q", s.ID, s.On)
	}

	// Click: pinned, stays after the pointer leaves.
	if err := chromedp.Do(ctx, chromedp.MouseClickXY(x, y), chromedp.MouseEvent(chromedp.MouseMoved, 2, 2)); err != nil {
		t.Fatal(err)
	}
	s := readShown(t, ctx)
	showsArgument(t, s, target)
	if !slices.Equal(s.Pressed, []string{target}) {
		t.Errorf("pressed %q after a click on %s", s.Pressed, target)
	}

	// Escape clears it.
	if err := chromedp.Do(ctx, chromedp.KeyEvent(kb.Escape)); err != nil {
		t.Fatal(err)
	}
	if s = readShown(t, ctx); s.ID != "" || len(s.Pressed) != 0 {
		t.Errorf("after Escape: detail %q, pressed %q", s.ID, s.Pressed)
	}

	// Keyboard: Tab from the top reaches the first argument, focus shows it,
	// Enter pins it, Escape clears.
	err := chromedp.Do(ctx,
		chromedp.Evaluate[chromedp.Void](`document.getElementById('heading').setAttribute('tabindex', '-1'); document.getElementById('heading').focus()`),
		chromedp.KeyEvent(kb.Tab),
	)
	if err != nil {
		t.Fatal(err)
	}
	s = readShown(t, ctx)
	if s.Active == "" {
		t.Fatalf("Tab did not reach an argument (detail %q)", s.Detail)
	}
	showsArgument(t, s, s.Active)
	first := s.Active
	if err := chromedp.Do(ctx, chromedp.KeyEvent(kb.Enter), chromedp.KeyEvent(kb.Tab)); err != nil {
		t.Fatal(err)
	}
	s = readShown(t, ctx)
	if s.Active == "" || s.Active == first {
		t.Errorf("a second Tab stayed on %q", s.Active)
	} else {
		showsArgument(t, s, s.Active)
	}
	if !slices.Equal(s.Pressed, []string{first}) {
		t.Errorf("pressed %q after Enter on %s", s.Pressed, first)
	}
	if err := chromedp.Do(ctx, chromedp.KeyEvent(kb.Escape)); err != nil {
		t.Fatal(err)
	}
	if s = readShown(t, ctx); s.ID != "" || len(s.Pressed) != 0 {
		t.Errorf("after Escape: detail %q, pressed %q", s.ID, s.Pressed)
	}

	// Focus from script (a screen reader's cursor) and a live update: the
	// redraw keeps the focused argument focused and shown.
	if err := chromedp.Do(ctx, chromedp.Focus(chromedp.CSS(`#map .argmap-node[data-id="`+other+`"]`))); err != nil {
		t.Fatal(err)
	}
	showsArgument(t, readShown(t, ctx), other)
	draw(t, ctx, am, nil)
	if s = readShown(t, ctx); s.Active != other {
		t.Errorf("after a redraw the focus is on %q; want %s", s.Active, other)
	} else {
		showsArgument(t, s, other)
	}
}

func TestArgumentMapShowsModelTextAsText(t *testing.T) {
	const hostile = `<img src=x onerror="window.pwned=1"><script>window.pwned=2</script>`
	const side = `<b onmouseover="window.pwned=3">PRO</b>`
	ctx := argmapPage(t)
	am := syntheticMap(t, hostile)
	var id string
	for _, a := range am.Arguments {
		if a.Text == hostile {
			id = a.ID
		}
	}
	if id == "" {
		t.Fatal("the hostile claim is not an argument")
	}
	d := draw(t, ctx, am, map[string]string{"PRO": side})
	checkDrawing(t, am, d)
	if d.Pwned {
		t.Error("hostile text ran while the map was drawn")
	}
	for _, bad := range []string{"img", "script", "b"} {
		if slices.Contains(d.Elements, bad) {
			t.Errorf("a <%s> element in the map; model text was parsed as HTML (elements %q)", bad, d.Elements)
		}
	}
	if !strings.Contains(d.Legend, side) {
		t.Errorf("legend %q lacks the literal side label %q", d.Legend, side)
	}
	found := false
	for _, title := range d.Titles {
		if strings.Contains(title, hostile) && strings.Contains(title, side) {
			found = true
		}
	}
	if !found {
		t.Errorf("no node title carries the literal text %q by %q", hostile, side)
	}
	if err := chromedp.Do(ctx, chromedp.Focus(chromedp.CSS(`#map .argmap-node[data-id="`+id+`"]`))); err != nil {
		t.Fatal(err)
	}
	s := readShown(t, ctx)
	if !strings.Contains(s.Detail, hostile) || !strings.Contains(s.Detail, side) {
		t.Errorf("detail %q lacks the literal text and side", s.Detail)
	}
	pwned, err := chromedp.Run(ctx, chromedp.Evaluate[bool](`window.pwned !== undefined || !!document.querySelector('#map img, #map script, #map b')`))
	if err != nil || pwned {
		t.Errorf("hostile text ran or became elements (%v)", err)
	}
}

func TestArgumentMapDrawsAnEmptyMap(t *testing.T) {
	ctx := argmapPage(t)
	for _, am := range []any{&engine.ArgumentMap{}, nil, map[string]any{"arguments": nil}} {
		d := draw(t, ctx, am, nil)
		if d.Graphs != 1 || d.Nodes != 0 || d.Edges != 0 || d.Data["nodes"] != 0 {
			t.Errorf("%v: %d graphs, %d nodes, %d edges", am, d.Graphs, d.Nodes, d.Edges)
		}
		if d.Summary != "No arguments mapped yet." {
			t.Errorf("%v: summary %q", am, d.Summary)
		}
	}
	// A relation to an argument the map lacks is left out and counted.
	n, err := chromedp.Run(ctx, chromedp.Evaluate[[]int](`(() => {
  const r = drawArgumentMap(document.getElementById('map'), {arguments: [{ID: 'A1', Score: 0.5}],
    relations: [{From: 'A1', To: 'A9', Type: 0, Kind: 'rebut'}]});
  const svg = document.querySelector('#map svg.argmap-graph');
  return [r.edges, Number(svg.dataset.skipped), svg.querySelectorAll('.argmap-edges .argmap-edge').length];
})()`))
	if err != nil || !slices.Equal(n, []int{0, 1, 0}) {
		t.Errorf("dangling relation: edges, skipped, drawn = %v (%v); want [0 1 0]", n, err)
	}
}

func TestArgumentMapSideOrderAndColours(t *testing.T) {
	ctx := argmapPage(t)
	am, err := json.Marshal(syntheticMap(t, ""))
	if err != nil {
		t.Fatal(err)
	}
	// sides fixes the columns, an empty one included; color the colours.
	got, err := chromedp.Run(ctx, chromedp.Evaluate[[]string](`(() => {
  const map = document.getElementById('map');
  drawArgumentMap(map, `+string(am)+`, {sides: ['OPP', 'MOD', 'PRO'], color: {PRO: 'rgb(1, 2, 3)'}});
  const svg = map.querySelector('svg.argmap-graph');
  const heads = [...svg.querySelectorAll('.argmap-head')].map((h) => h.dataset.side);
  const x = (side) => Math.min(...[...svg.querySelectorAll('.argmap-node[data-side="' + side + '"] .argmap-box')].map((b) => b.getBBox().x));
  const stroke = getComputedStyle(svg.querySelector('.argmap-node[data-side="PRO"] .argmap-box')).stroke;
  return [...heads, svg.dataset.sides, String(x('OPP') < x('PRO')), stroke];
})()`))
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{"OPP", "MOD", "PRO", "3", "true", "rgb(1, 2, 3)"}; !slices.Equal(got, want) {
		t.Errorf("heads, sides, OPP left of PRO, PRO's colour = %q; want %q", got, want)
	}
}
