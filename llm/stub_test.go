package llm

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/google/go-cmp/cmp"
)

const testProposition = "Should AI development be paused?"

// chairSystem is a chair's system prompt in the root package's shape.
func chairSystem(role string, opponents ...string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "You are holding the %s in this Duelogic debate.\n\n**Your Assigned Framework:**\nSome description.\n\n**Your Opponents:**\n", role)
	for _, o := range opponents {
		fmt.Fprintf(&b, "- %s: Argues from somewhere.\n", o)
	}
	b.WriteString("\n**MANDATORY OBLIGATIONS:**\n1. Steel-man first.\n2. Acknowledge your weaknesses.\n")
	return b.String()
}

func chairRequest(purpose, role, extra string) Request {
	return Request{
		Model:   "anthropic/claude-sonnet-4",
		Purpose: purpose,
		Messages: []Message{
			{Role: System, Content: chairSystem(role, "Grok 3 (Virtue Ethics Chair)", "GPT-4o (Pragmatic Chair)")},
			{Role: User, Content: "<proposition>\n" + testProposition + "\n</proposition>\n\n" + extra + "\nIt is your turn."},
		},
	}
}

const testChairList = "- chair_1: Claude Sonnet 4 from Anthropic, Utilitarian Chair\n" +
	"- chair_2: Grok 3 from xAI, Virtue Ethics Chair\n" +
	"- chair_3: GPT-4o from OpenAI, Pragmatic Chair\n"

func arbiterRequest(purpose, user string) Request {
	return Request{
		Model:   "openai/gpt-4o",
		Purpose: purpose,
		Messages: []Message{
			{Role: System, Content: "You are the Arbiter and host of the podcast."},
			{Role: User, Content: user},
		},
	}
}

const testResponse = "I want to be fair here, because Grok 3 makes a compelling case that wisdom is a practiced skill. " +
	"Where I push back is this: outcomes matter. The utilitarian view has a blind spot too: it can ignore rights."

func evaluationRequest(response string) Request {
	r := arbiterRequest("evaluation", "Evaluate this response by the Utilitarian Chair.\n\n<response>\n"+response+"\n</response>\n\nRespond in JSON.")
	r.JSON = true
	return r
}

func interruptRequest(response string) Request {
	r := arbiterRequest("interrupt_check", "Current speaker:\n- chair_1: Claude Sonnet 4 (Utilitarian Chair)\n\n"+
		"What they just said:\n<response>\n"+response+"\n</response>\n\n"+
		"Other chairs who could interrupt:\n- chair_2: Grok 3 (Virtue Ethics Chair)\n- chair_3: GPT-4o (Pragmatic Chair)\n\n"+
		"Should any chair interrupt? Respond in JSON.")
	r.JSON = true
	return r
}

// sampleRequests covers every purpose the stub knows and two it does not.
func sampleRequests() []Request {
	unknownJSON := arbiterRequest("verdict", "<proposition>\n"+testProposition+"\n</proposition>")
	unknownJSON.JSON = true
	return []Request{
		arbiterRequest("introduction", "Show name: Duelogic\n\nChairs:\n"+testChairList+"\n<proposition>\n"+testProposition+"\n</proposition>"),
		chairRequest("opening", "Utilitarian Chair", "<context>\nLabs are racing.\n</context>"),
		chairRequest("response", "Virtue Ethics Chair", ""),
		chairRequest("interruption", "Pragmatic Chair", "<opener>\nI have to push back on that—\n</opener>"),
		evaluationRequest(testResponse),
		interruptRequest(testResponse),
		arbiterRequest("interjection", "<chair>\nGrok 3 (Virtue Ethics Chair)\n</chair>\n<reason>\nSelf-critique absent.\n</reason>"),
		arbiterRequest("closing", "Chairs:\n"+testChairList+"\n<proposition>\n"+testProposition+"\n</proposition>\nEnd with: subscribe."),
		arbiterRequest("verdict", "<proposition>\n"+testProposition+"\n</proposition>"),
		unknownJSON,
	}
}

func complete(t testing.TB, s *Stub, req Request) Response {
	t.Helper()
	resp, err := s.Complete(context.Background(), req)
	if err != nil {
		t.Fatalf("Complete(%s): %v", req.Purpose, err)
	}
	return resp
}

// TestStubKnowsEveryPurpose checks the Duelogic purposes and argument
// extraction are answered; the debate formats register their own purposes
// and test them in their packages.
func TestStubKnowsEveryPurpose(t *testing.T) {
	for _, p := range []string{"closing", "evaluation", "interjection", "interrupt_check", "interruption",
		"introduction", "opening", "response", "argument_extraction"} {
		if stubWriters[p] == nil {
			t.Errorf("the stub does not answer %q", p)
		}
	}
}

func TestStubDeterministic(t *testing.T) {
	for _, req := range sampleRequests() {
		a := complete(t, NewStub(42), req)
		b := complete(t, NewStub(42), req)
		if diff := cmp.Diff(a, b); diff != "" {
			t.Errorf("%s: same seed, different responses (-first +second):\n%s", req.Purpose, diff)
		}
		// Different seeds give different texts; a JSON verdict has fewer
		// possible values, so look for variety over several seeds.
		seen := make(map[string]bool)
		for seed := range int64(8) {
			seen[complete(t, NewStub(seed), req).Content] = true
		}
		want := 8
		switch {
		case req.Purpose == "verdict":
			want = 1 // unknown purposes: a fixed choice among few sentences, or "{}"
		case req.Purpose == "interjection" || req.JSON:
			want = 2
		}
		if len(seen) < want {
			t.Errorf("%s: %d distinct responses over 8 seeds, want at least %d", req.Purpose, len(seen), want)
		}
	}
}

// TestStubConcurrent checks that concurrent calls, in any order, answer
// exactly as sequential ones do. Run with -race.
func TestStubConcurrent(t *testing.T) {
	reqs := sampleRequests()
	s := NewStub(7)
	want := make([]Response, len(reqs))
	for i, req := range reqs {
		want[i] = complete(t, s, req)
	}
	got := make([][]Response, 8)
	var wg sync.WaitGroup
	for g := range got {
		got[g] = make([]Response, len(reqs))
		wg.Go(func() {
			for k := range reqs {
				i := (k + g) % len(reqs) // each goroutine in another order
				var resp Response
				var err error
				if g%2 == 0 {
					resp, err = s.Complete(context.Background(), reqs[i])
				} else {
					resp, err = s.Stream(context.Background(), reqs[i], nil)
				}
				if err != nil {
					t.Error(err)
				}
				got[g][i] = resp
			}
		})
	}
	wg.Wait()
	for g := range got {
		if diff := cmp.Diff(want, got[g]); diff != "" {
			t.Errorf("goroutine %d (-sequential +concurrent):\n%s", g, diff)
		}
	}
}

func TestStubResponseFields(t *testing.T) {
	for _, req := range sampleRequests() {
		resp := complete(t, NewStub(1), req)
		if strings.TrimSpace(resp.Content) == "" {
			t.Errorf("%s: empty content", req.Purpose)
		}
		prompt := 0
		for _, m := range req.Messages {
			prompt += len([]rune(m.Content))
		}
		want := Response{
			Content:      resp.Content,
			Model:        req.Model,
			FinishReason: "stop",
			Usage:        Usage{PromptTokens: (prompt + 3) / 4, CompletionTokens: (len([]rune(resp.Content)) + 3) / 4},
		}
		if diff := cmp.Diff(want, resp); diff != "" {
			t.Errorf("%s (-want +got):\n%s", req.Purpose, diff)
		}
		if !req.JSON && strings.ContainsAny(resp.Content, "{}") {
			t.Errorf("%s: unexpanded template in %q", req.Purpose, resp.Content)
		}
	}
}

// allRoles are the roles of every built-in voice, plus unknown ones.
func allRoles() []string {
	var roles []string
	for _, v := range stubVoiceList {
		roles = append(roles, v.role())
	}
	return append(roles, "Compliance First perspective", "Stoic Chair")
}

func TestStubChairTexts(t *testing.T) {
	long := strings.Repeat("Should frontier AI laboratories be required to pause training runs ", 8) + "?"
	for _, purpose := range []string{"opening", "response", "interruption"} {
		for _, role := range allRoles() {
			for seed := range int64(30) {
				for _, prop := range []string{testProposition, long} {
					req := chairRequest(purpose, role, "<context>\n"+strings.Repeat("Background. ", 40)+"\n</context>")
					req.Messages[1].Content = strings.Replace(req.Messages[1].Content, testProposition, prop, 1)
					text := complete(t, NewStub(seed), req).Content
					if n := stubWords(text); n < stubChairMinWords || n > stubChairMaxWords {
						t.Fatalf("%s/%s/seed %d: %d words, want %d-%d:\n%s", purpose, role, seed, n, stubChairMinWords, stubChairMaxWords, text)
					}
					if n := strings.Count(text, `"`+stubShorten(prop, 90)); n > 1 {
						t.Fatalf("%s/%s/seed %d: the proposition is quoted %d times:\n%s", purpose, role, seed, n, text)
					}
				}
			}
		}
	}
}

func TestStubFrameworksDistinct(t *testing.T) {
	for _, purpose := range []string{"opening", "response"} {
		texts := make(map[string]string)
		for _, role := range allRoles() {
			text := complete(t, NewStub(3), chairRequest(purpose, role, "")).Content
			v, _ := stubVoiceFor(role)
			lower := strings.ToLower(text)
			if !strings.Contains(lower, v.label) && !strings.Contains(lower, v.question) && !slices.ContainsFunc(v.claims, func(c string) bool {
				head, _, _ := strings.Cut(c, "{P}")
				return strings.Contains(text, head)
			}) {
				t.Errorf("%s by %s does not speak in its voice:\n%s", purpose, role, text)
			}
			for other, o := range texts {
				if o == text {
					t.Errorf("%s: %s and %s wrote the same text", purpose, role, other)
				}
			}
			texts[role] = text
		}
	}
}

func TestStubPropositionInText(t *testing.T) {
	tests := []struct{ prop, want string }{
		{"Should AI development be paused?", `"Should AI development be paused?"`},
		{"AI labs should pause frontier training.", `"AI labs should pause frontier training"`},
		{`"Quoted already."`, `"Quoted already"`},
	}
	for _, tt := range tests {
		req := chairRequest("response", "Utilitarian Chair", "")
		req.Messages[1].Content = strings.Replace(req.Messages[1].Content, testProposition, tt.prop, 1)
		found := false
		for seed := range int64(20) {
			text := complete(t, NewStub(seed), req).Content
			found = found || strings.Contains(text, tt.want)
			if strings.Contains(text, `."`) || strings.Contains(text, `?".`) {
				t.Errorf("seed %d: doubled punctuation around the proposition:\n%s", seed, text)
			}
		}
		if !found {
			t.Errorf("no response over 20 seeds quotes %s", tt.want)
		}
	}
}

func TestStubUnknownChairVoice(t *testing.T) {
	text := complete(t, NewStub(1), chairRequest("opening", "Compliance First perspective", "")).Content
	if !strings.Contains(strings.ToLower(text), "compliance first") {
		t.Errorf("an unknown perspective's text does not use its name:\n%s", text)
	}
	// No chair prompt at all: still a chair text.
	req := Request{Purpose: "response", Messages: []Message{{Role: User, Content: "Respond."}}}
	if n := stubWords(complete(t, NewStub(1), req).Content); n < stubChairMinWords {
		t.Errorf("response without a chair prompt has %d words", n)
	}
}

// TestStubMandateLapses checks that most chair texts steel-man and admit a
// blind spot, and that now and then one of them is missing.
func TestStubMandateLapses(t *testing.T) {
	const n = 600
	noSteel, noBlind := 0, 0
	for seed := range int64(n) {
		text := complete(t, NewStub(seed), chairRequest("response", "Utilitarian Chair", "")).Content
		if !stubContainsAny(text, stubSteelPhrases) {
			noSteel++
		}
		if !stubContainsAny(text, stubBlindPhrases) {
			noBlind++
		}
	}
	for name, k := range map[string]int{"steel-man": noSteel, "blind spot": noBlind} {
		if rate := float64(k) / n; rate < 0.09 || rate > 0.21 {
			t.Errorf("%s omitted in %.0f%% of responses, want about 15%%", name, rate*100)
		}
	}
}

// The seed's ResponseEvaluation, as the root package decodes it.
type testEvaluation struct {
	AdherenceScore int `json:"adherenceScore"`
	SteelManning   struct {
		Attempted bool   `json:"attempted"`
		Quality   string `json:"quality"`
		Notes     string `json:"notes"`
	} `json:"steelManning"`
	SelfCritique struct {
		Attempted bool   `json:"attempted"`
		Quality   string `json:"quality"`
		Notes     string `json:"notes"`
	} `json:"selfCritique"`
	FrameworkConsistency struct {
		Consistent bool     `json:"consistent"`
		Violations []string `json:"violations"`
	} `json:"frameworkConsistency"`
	IntellectualHonesty struct {
		Score  string   `json:"score"`
		Issues []string `json:"issues"`
	} `json:"intellectualHonesty"`
	RequiresInterjection bool   `json:"requiresInterjection"`
	InterjectionReason   string `json:"interjectionReason"`
}

func decodeStrict(t *testing.T, s string, v any) {
	t.Helper()
	dec := json.NewDecoder(strings.NewReader(s))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		t.Fatalf("invalid JSON %q: %v", s, err)
	}
	if dec.More() {
		t.Fatalf("more than one JSON value in %q", s)
	}
}

func TestStubEvaluation(t *testing.T) {
	const n = 300
	interject := 0
	for seed := range int64(n) {
		role := allRoles()[seed%int64(len(allRoles()))]
		response := complete(t, NewStub(seed), chairRequest("response", role, "")).Content
		var e testEvaluation
		decodeStrict(t, complete(t, NewStub(seed), evaluationRequest(response)).Content, &e)

		steel := stubContainsAny(response, stubSteelPhrases)
		self := stubContainsAny(response, stubBlindPhrases)
		check := func(what string, present, attempted bool, quality string) {
			if attempted != present {
				t.Errorf("seed %d: %s attempted = %v, but the response has the phrase: %v", seed, what, attempted, present)
			}
			if ok := quality == "strong" || quality == "adequate"; present != ok || (!present && quality != "absent") {
				t.Errorf("seed %d: %s quality %q for present=%v", seed, what, quality, present)
			}
		}
		check("steelManning", steel, e.SteelManning.Attempted, e.SteelManning.Quality)
		check("selfCritique", self, e.SelfCritique.Attempted, e.SelfCritique.Quality)
		if e.AdherenceScore < 0 || e.AdherenceScore > 100 {
			t.Errorf("seed %d: adherenceScore %d", seed, e.AdherenceScore)
		}
		if e.FrameworkConsistency.Consistent != (len(e.FrameworkConsistency.Violations) == 0) || e.FrameworkConsistency.Violations == nil {
			t.Errorf("seed %d: frameworkConsistency %+v", seed, e.FrameworkConsistency)
		}
		if !slices.Contains([]string{"high", "medium", "low"}, e.IntellectualHonesty.Score) || e.IntellectualHonesty.Issues == nil {
			t.Errorf("seed %d: intellectualHonesty %+v", seed, e.IntellectualHonesty)
		}
		clean := steel && self && e.FrameworkConsistency.Consistent && e.IntellectualHonesty.Score == "high"
		if e.RequiresInterjection == clean || e.RequiresInterjection != (e.InterjectionReason != "") {
			t.Errorf("seed %d: requiresInterjection %v, reason %q, for a clean=%v response", seed, e.RequiresInterjection, e.InterjectionReason, clean)
		}
		switch {
		case clean && e.AdherenceScore < 74:
			t.Errorf("seed %d: clean response scored %d", seed, e.AdherenceScore)
		case (!steel || !self) && e.AdherenceScore > 71:
			t.Errorf("seed %d: response with a missing mandate scored %d", seed, e.AdherenceScore)
		}
		if e.RequiresInterjection {
			interject++
		}
	}
	if rate := float64(interject) / n; rate < 0.2 || rate > 0.45 {
		t.Errorf("interjection asked for %.0f%% of responses", rate*100)
	}
}

func TestStubEvaluationWithoutResponse(t *testing.T) {
	req := Request{Purpose: "evaluation", JSON: true}
	var e testEvaluation
	decodeStrict(t, complete(t, NewStub(1), req).Content, &e)
	if e.SteelManning.Attempted || e.SelfCritique.Attempted || !e.RequiresInterjection {
		t.Errorf("evaluation of nothing = %+v, want mandates absent and an interjection", e)
	}
}

type testInterrupt struct {
	ShouldInterrupt           bool    `json:"shouldInterrupt"`
	InterruptingChairPosition *string `json:"interruptingChairPosition"`
	Reason                    string  `json:"reason"`
	TriggerContent            string  `json:"triggerContent"`
	Urgency                   float64 `json:"urgency"`
	SuggestedOpener           string  `json:"suggestedOpener"`
}

var testReasons = []string{"factual_correction", "straw_man_detected", "direct_challenge", "clarification_needed", "strong_agreement", "pivotal_point"}

func TestStubInterruptCheck(t *testing.T) {
	const n = 400
	interrupts := 0
	for seed := range int64(n) {
		response := complete(t, NewStub(seed), chairRequest("response", "Utilitarian Chair", "")).Content
		var ic testInterrupt
		decodeStrict(t, complete(t, NewStub(seed), interruptRequest(response)).Content, &ic)
		if !slices.Contains(testReasons, ic.Reason) {
			t.Errorf("seed %d: reason %q", seed, ic.Reason)
		}
		if ic.TriggerContent == "" || !strings.Contains(response, ic.TriggerContent) || stubWords(ic.TriggerContent) > 8 {
			t.Errorf("seed %d: triggerContent %q is not a short phrase of the response", seed, ic.TriggerContent)
		}
		if w := stubWords(ic.SuggestedOpener); w < 2 || w > 8 {
			t.Errorf("seed %d: suggestedOpener %q has %d words", seed, ic.SuggestedOpener, w)
		}
		if ic.ShouldInterrupt {
			interrupts++
			if ic.InterruptingChairPosition == nil || (*ic.InterruptingChairPosition != "chair_2" && *ic.InterruptingChairPosition != "chair_3") {
				t.Errorf("seed %d: interrupting chair %v, want chair_2 or chair_3", seed, ic.InterruptingChairPosition)
			}
			if ic.Urgency < 0.72 || ic.Urgency > 0.95 {
				t.Errorf("seed %d: urgency %v of an interruption", seed, ic.Urgency)
			}
		} else if ic.InterruptingChairPosition != nil || ic.Urgency < 0 || ic.Urgency > 0.45 {
			t.Errorf("seed %d: no interruption but chair %v, urgency %v", seed, ic.InterruptingChairPosition, ic.Urgency)
		}
	}
	if rate := float64(interrupts) / n; rate < 0.2 || rate > 0.32 {
		t.Errorf("interruptions in %.0f%% of checks, want 20-30%%", rate*100)
	}
}

func TestStubInterruptCheckWithoutCandidates(t *testing.T) {
	for seed := range int64(100) {
		req := Request{Purpose: "interrupt_check", JSON: true, Messages: []Message{{Role: User, Content: "<response>\n" + testResponse + "\n</response>"}}}
		var ic testInterrupt
		decodeStrict(t, complete(t, NewStub(seed), req).Content, &ic)
		if ic.ShouldInterrupt || ic.InterruptingChairPosition != nil {
			t.Fatalf("seed %d: interrupted with no chair to interrupt: %+v", seed, ic)
		}
	}
}

// TestStubInterruptCheckOddText is a regression test: the header was found
// in a lower-cased copy of the prompt, whose byte offsets differ when the
// prompt holds invalid UTF-8 or letters that change length.
func TestStubInterruptCheckOddText(t *testing.T) {
	for _, noise := range []string{"\xb5\xb5\xb5\xb5", "İİİİ", "ẞ"} {
		for seed := range int64(50) {
			req := Request{Purpose: "interrupt_check", JSON: true, Messages: []Message{{Role: User, Content: strings.Repeat(noise, 50) +
				"\n<response>\n" + testResponse + "\n</response>\nOther chairs who COULD INTERRUPT:\n- chair_2: Grok 3 (Virtue Ethics Chair)\n\nRespond."}}}
			var ic testInterrupt
			decodeStrict(t, complete(t, NewStub(seed), req).Content, &ic)
			if ic.ShouldInterrupt && *ic.InterruptingChairPosition != "chair_2" {
				t.Fatalf("seed %d: interrupting chair %q, want chair_2", seed, *ic.InterruptingChairPosition)
			}
		}
	}
}

func TestStubInterruptionOpener(t *testing.T) {
	for _, opener := range []string{"I have to push back on that—", "Wait, help me understand.", "Exactly right"} {
		for seed := range int64(20) {
			text := complete(t, NewStub(seed), chairRequest("interruption", "Care Ethics Chair", "<opener>\n"+opener+"\n</opener>")).Content
			if !strings.HasPrefix(text, opener) {
				t.Fatalf("interruption does not start with %q:\n%s", opener, text)
			}
		}
	}
}

func TestStubIntroduction(t *testing.T) {
	tests := []struct {
		name  string
		user  string
		wants []string
	}{
		{
			name: "full prompt",
			user: "Show name: Ethics Hour\nEpisode: 12\n\nChairs:\n" + testChairList + "\n<proposition>\n" + testProposition + "\n</proposition>\n<context>\nLabs are racing.\n</context>",
			wants: []string{"Welcome to Ethics Hour", "episode 12", "Claude Sonnet 4 from Anthropic", "Grok 3 from xAI", "GPT-4o from OpenAI",
				"Utilitarian Chair", "Virtue Ethics Chair", "Pragmatic Chair", `"` + testProposition + `"`, "Labs are racing", "steel", "Claude, the floor is yours."},
		},
		{
			name:  "perspectives, no provider",
			user:  "- chair_1: Model A, Performance Advocate\n- chair_2: Model B (Security Advocate)\n<proposition>\nRedis or PostgreSQL?\n</proposition>",
			wants: []string{"Welcome to Duelogic", "Model A", "Performance Advocate perspective", "Model B", "Security Advocate perspective", "Model, the floor is yours."},
		},
		{
			name:  "show and episode from the root package's prompt",
			user:  "You are the Arbiter and host of the Ethics Hour podcast.\n   Mention that this is episode 3.\n" + testChairList + "<proposition>\nLabs should pause.\n</proposition>",
			wants: []string{"Welcome to Ethics Hour", "This is episode 3.", `Today's proposition: "Labs should pause".`, "Claude, the floor is yours."},
		},
		{
			name:  "nothing to parse",
			user:  "Introduce the show.",
			wants: []string{"Welcome to Duelogic", "Let's begin."},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			for seed := range int64(10) {
				text := complete(t, NewStub(seed), arbiterRequest("introduction", tt.user)).Content
				for _, w := range tt.wants {
					if !strings.Contains(text, w) {
						t.Fatalf("seed %d: introduction lacks %q:\n%s", seed, w, text)
					}
				}
				if n := stubWords(text); n > 400 {
					t.Errorf("seed %d: introduction of %d words", seed, n)
				}
			}
		})
	}
}

func TestStubClosing(t *testing.T) {
	tests := []struct {
		name    string
		user    string
		wants   []string
		wantCTA bool
	}{
		{
			name:    "with call to action",
			user:    "Chairs:\n" + testChairList + "<proposition>\n" + testProposition + "\n</proposition>\nCall to action: ask listeners to subscribe.",
			wants:   []string{"Claude", "Grok", "GPT-4o", "Utilitarian Chair", "key clash", "Thank you to Claude Sonnet 4, Grok 3 and GPT-4o", "This has been Duelogic."},
			wantCTA: true,
		},
		{
			name:  "show from the root package's prompt",
			user:  "You are the Arbiter closing out this episode of Ethics Hour.\n\nThe chairs:\n" + testChairList,
			wants: []string{"This has been Ethics Hour.", "Thank you to Claude Sonnet 4, Grok 3 and GPT-4o"},
		},
		{
			name:  "without",
			user:  "Show: Ethics Hour\n- chair_1: Model A (Libertarian Chair)\n",
			wants: []string{"Model A", "Libertarian Chair", "Thank you to Model A", "This has been Ethics Hour."},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			for seed := range int64(10) {
				text := complete(t, NewStub(seed), arbiterRequest("closing", tt.user)).Content
				for _, w := range tt.wants {
					if !strings.Contains(text, w) {
						t.Fatalf("seed %d: closing lacks %q:\n%s", seed, w, text)
					}
				}
				if got := strings.Contains(text, "subscribe"); got != tt.wantCTA {
					t.Errorf("seed %d: call to action %v, want %v", seed, got, tt.wantCTA)
				}
			}
		})
	}
}

func TestStubInterjection(t *testing.T) {
	tests := []struct {
		name     string
		user     string
		wantName string
		wantAny  []string // one of these, by kind of lapse
	}{
		{"tags", "<chair>\nGrok 3 (Virtue Ethics Chair)\n</chair>\n<reason>\nSteel-manning absent: attacked a weak version.\n</reason>", "Grok", []string{"best version of"}},
		{"self-critique", "Chair: Claude Sonnet 4 (Utilitarian Chair)\nReason: Self-critique absent: no weakness admitted.", "Claude", []string{"Utilitarian Chair"}},
		{"framework drift from an evaluation reason", "- chair_2: Grok 3 (Virtue Ethics Chair)\nFramework inconsistency: argued like a utilitarian.", "Grok", []string{"Virtue Ethics Chair"}},
		{"evasion", "<chair>\nModel X (Care Ethics Chair)\n</chair>\n<reason>\nEvasion: dodged the question.\n</reason>", "Model", []string{"unanswered", "did not directly answer"}},
		{"name only", "Speaker: Grok 3\nReason: something else", "Grok", []string{"your own framework", "best version"}},
		{"root package's prompt: the violation wins over the reason",
			"Violation: Straw-Manning (attacking a weak version of the opponent's argument)\nChair: GPT-4o, holding the Deontological Chair\n" +
				"Opponent: Grok 3 (Virtue Ethics Chair)\nWhy:\n<reason>\nSelf-critique absent: no weakness.\n</reason>\nInterject now.",
			"GPT-4o", []string{"best version of"}},
		{"root package's prompt: self-critique",
			"Violation: Missing Self-Critique (not acknowledging the framework's weaknesses)\nChair: GPT-4o, holding the Deontological Chair\nInterject now.",
			"GPT-4o", []string{"the Deontological Chair"}},
		{"framework only", "The Deontological Chair ignored the rules.", "Deontological Chair", []string{"Deontological Chair"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			for seed := range int64(10) {
				text := complete(t, NewStub(seed), arbiterRequest("interjection", tt.user)).Content
				if strings.Contains(text, ",,") {
					t.Fatalf("seed %d: doubled comma:\n%s", seed, text)
				}
				if !strings.Contains(text, tt.wantName) || !slices.ContainsFunc(tt.wantAny, func(w string) bool { return strings.Contains(text, w) }) {
					t.Fatalf("seed %d: interjection lacks %q or one of %q:\n%s", seed, tt.wantName, tt.wantAny, text)
				}
				if n := stubWords(text); n < 30 || n > 75 {
					t.Errorf("seed %d: interjection of %d words:\n%s", seed, n, text)
				}
			}
		})
	}
}

func TestStubUnknownPurpose(t *testing.T) {
	req := arbiterRequest("verdict", "<proposition>\n"+testProposition+"\n</proposition>")
	if text := complete(t, NewStub(1), req).Content; !strings.Contains(text, testProposition) {
		t.Errorf("generic text does not mention the proposition: %q", text)
	}
	req.JSON = true
	if text := complete(t, NewStub(1), req).Content; text != "{}" {
		t.Errorf("unknown JSON purpose = %q, want {}", text)
	}
}

func TestStubStream(t *testing.T) {
	for _, req := range sampleRequests() {
		want := complete(t, NewStub(5), req)
		var deltas []string
		got, err := NewStub(5).Stream(context.Background(), req, func(d string) error {
			deltas = append(deltas, d)
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("%s: Stream and Complete differ (-Complete +Stream):\n%s", req.Purpose, diff)
		}
		if joined := strings.Join(deltas, ""); joined != got.Content {
			t.Errorf("%s: deltas join to %q, want %q", req.Purpose, joined, got.Content)
		}
		for _, d := range deltas {
			if len(strings.Fields(d)) != 1 {
				t.Errorf("%s: delta %q is not one word", req.Purpose, d)
			}
		}
	}
}

func TestStubStreamOnDeltaError(t *testing.T) {
	calls := 0
	_, err := NewStub(1).Stream(context.Background(), chairRequest("opening", "Utilitarian Chair", ""), func(string) error {
		calls++
		return errTestStop
	})
	if err != errTestStop || calls != 1 {
		t.Errorf("err = %v after %d deltas, want errTestStop after 1", err, calls)
	}
}

var errTestStop = errors.New("stop")

func TestStubTokenDelay(t *testing.T) {
	req := chairRequest("opening", "Utilitarian Chair", "")
	words := len(stubDeltas(complete(t, NewStub(1), req).Content))

	t.Run("Complete takes as long as streaming", func(t *testing.T) {
		synctest.Test(t, func(t *testing.T) {
			s := NewStub(1)
			s.TokenDelay = 10 * time.Millisecond
			start := time.Now()
			complete(t, s, req)
			if got, want := time.Since(start), time.Duration(words)*s.TokenDelay; got != want {
				t.Errorf("Complete took %v, want %v", got, want)
			}
		})
	})
	t.Run("Stream stops when ctx is cancelled", func(t *testing.T) {
		synctest.Test(t, func(t *testing.T) {
			s := NewStub(1)
			s.TokenDelay = 10 * time.Millisecond
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			go func() {
				time.Sleep(35 * time.Millisecond)
				cancel()
			}()
			start := time.Now()
			n := 0
			_, err := s.Stream(ctx, req, func(string) error { n++; return nil })
			if !errors.Is(err, context.Canceled) || n != 3 || time.Since(start) != 35*time.Millisecond {
				t.Errorf("err = %v after %d deltas and %v; want context.Canceled after 3 and 35ms", err, n, time.Since(start))
			}
		})
	})
	t.Run("Complete stops when ctx times out", func(t *testing.T) {
		synctest.Test(t, func(t *testing.T) {
			s := NewStub(1)
			s.TokenDelay = time.Second
			ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
			defer cancel()
			start := time.Now()
			_, err := s.Complete(ctx, req)
			if !errors.Is(err, context.DeadlineExceeded) || time.Since(start) != 5*time.Second {
				t.Errorf("err = %v after %v; want DeadlineExceeded after 5s", err, time.Since(start))
			}
		})
	})
	t.Run("a done ctx fails at once without delay", func(t *testing.T) {
		ctx, cancel := context.WithCancel(context.Background())
		cancel()
		s := NewStub(1)
		if _, err := s.Complete(ctx, req); !errors.Is(err, context.Canceled) {
			t.Errorf("Complete: err = %v", err)
		}
		if _, err := s.Stream(ctx, req, nil); !errors.Is(err, context.Canceled) {
			t.Errorf("Stream: err = %v", err)
		}
	})
}

func TestParseStubChair(t *testing.T) {
	tests := []struct {
		line string
		want stubChair
		ok   bool
	}{
		{"- chair_1: Claude Sonnet 4 from Anthropic, Utilitarian Chair", stubChair{"chair_1", "Claude Sonnet 4", "Anthropic", "Utilitarian Chair"}, true},
		{"  * **chair_2**: Grok 3 from xAI, Virtue Ethics Chair.", stubChair{"chair_2", "Grok 3", "xAI", "Virtue Ethics Chair"}, true},
		{"- chair_2: Grok 3 (Virtue Ethics Chair)", stubChair{"chair_2", "Grok 3", "", "Virtue Ethics Chair"}, true},
		{"- Grok 3 (Virtue Ethics Chair): Argues from character, wisdom (and more)", stubChair{"", "Grok 3", "", "Virtue Ethics Chair"}, true},
		{"- chair_2: Grok 3 (Virtue Ethics Chair): Argues from character, and wisdom", stubChair{"chair_2", "Grok 3", "", "Virtue Ethics Chair"}, true},
		{"- chair_3: GPT-4o (2024-08) from OpenAI, Pragmatic Chair", stubChair{"chair_3", "GPT-4o (2024-08)", "OpenAI", "Pragmatic Chair"}, true},
		{"- chair_1: Model A, Performance Advocate", stubChair{"chair_1", "Model A", "", "Performance Advocate"}, true},
		{"- chair_4: Custom Model (Compliance First)", stubChair{"chair_4", "Custom Model", "", "Compliance First"}, true},
		{"- Note: see the rules (below)", stubChair{"Note", "see the rules", "", "below"}, false},
		{"- Be direct, not hostile", stubChair{}, false},
		{"Claude Sonnet 4 from Anthropic, Utilitarian Chair", stubChair{}, false},
		{"", stubChair{}, false},
	}
	for _, tt := range tests {
		got, ok := parseStubChair(tt.line)
		if ok != tt.ok || (ok && got != tt.want) {
			t.Errorf("parseStubChair(%q) = %+v, %v; want %+v, %v", tt.line, got, ok, tt.want, tt.ok)
		}
	}
}

func TestStubHelpers(t *testing.T) {
	deltas := []struct {
		in   string
		want []string
	}{
		{"", nil},
		{"one", []string{"one"}},
		{"Hello world.\n\nNext  one ", []string{"Hello", " world.", "\n\nNext", "  one", " "}},
		{"  lead", []string{"  lead"}},
		{"é ü—x", []string{"é", " ü—x"}},
	}
	for _, tt := range deltas {
		if diff := cmp.Diff(tt.want, stubDeltas(tt.in)); diff != "" {
			t.Errorf("stubDeltas(%q) (-want +got):\n%s", tt.in, diff)
		}
	}
	shorten := []struct {
		in   string
		max  int
		want string
	}{
		{"short", 10, "short"},
		{"  spread \n out  ", 10, "spread out"},
		{"one two three four", 9, "one two…"},
		{"one two, three", 8, "one two…"},
		{"abcdefghij", 4, "abcd…"},
		{"ééééé ééé", 6, "ééééé…"},
	}
	for _, tt := range shorten {
		if got := stubShorten(tt.in, tt.max); got != tt.want {
			t.Errorf("stubShorten(%q, %d) = %q, want %q", tt.in, tt.max, got, tt.want)
		}
	}
	vars := map[string]string{"opp": "my opponent", "x": "X"}
	expand := []struct{ in, want string }{
		{"{opp} said", "my opponent said"},
		{"{Opp} said", "My opponent said"},
		{"{X} and {x}", "X and X"},
		{"{unknown} {", "{unknown} {"},
	}
	for _, tt := range expand {
		if got := stubExpand(tt.in, vars); got != tt.want {
			t.Errorf("stubExpand(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
	c := newStubCall(1, Request{Messages: []Message{
		{Role: System, Content: "<proposition>\nold\n</proposition>"},
		{Role: User, Content: "<response>\nfirst\n</response>\n<response>\n  second  \n</response>\n<opener>\nunclosed"},
	}})
	for tag, want := range map[string]string{"proposition": "old", "response": "second", "opener": "unclosed", "missing": ""} {
		if got, _ := c.tag(tag); got != want {
			t.Errorf("tag(%q) = %q, want %q", tag, got, want)
		}
	}
	if got := stubSentences("One. Two? Three!\nFour e.g.five"); !slices.Equal(got, []string{"One.", "Two?", "Three!", "Four e.g.five"}) {
		t.Errorf("stubSentences = %q", got)
	}
}

// FuzzStub feeds arbitrary prompts to every purpose: the stub must not panic,
// must answer JSON purposes with JSON, and must stream what it completes.
func FuzzStub(f *testing.F) {
	for _, req := range sampleRequests() {
		f.Add(req.Messages[0].Content, req.Messages[len(req.Messages)-1].Content)
	}
	f.Add("You are holding the ", "<response>")
	f.Add("- x: (y)\n- chair_1: a from b, c", "<opener>\n—\n</opener><proposition></proposition>")
	purposes := []string{"unknown"}
	for p := range stubWriters {
		purposes = append(purposes, p)
	}
	slices.Sort(purposes)
	f.Fuzz(func(t *testing.T, system, user string) {
		for _, p := range purposes {
			req := Request{Purpose: p, JSON: p == "evaluation" || p == "interrupt_check", Messages: []Message{{Role: System, Content: system}, {Role: User, Content: user}}}
			resp := complete(t, NewStub(1), req)
			if req.JSON && !json.Valid([]byte(resp.Content)) {
				t.Fatalf("%s: invalid JSON %q", p, resp.Content)
			}
			if resp.Content == "" {
				t.Fatalf("%s: empty answer", p)
			}
			var b strings.Builder
			if _, err := NewStub(1).Stream(context.Background(), req, func(d string) error { b.WriteString(d); return nil }); err != nil {
				t.Fatal(err)
			}
			if b.String() != resp.Content {
				t.Fatalf("%s: stream %q != content %q", p, b.String(), resp.Content)
			}
		}
	})
}
