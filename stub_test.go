package duelogic

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/duelogic/duelogic/internal/stubtext"
	"github.com/duelogic/duelogic/llm"
)

// The tests of the stub's answers to this package's purposes (stub_*.go).

const stubTestProposition = "Should AI development be paused?"

// stubTestChairSystem is a chair's system prompt in this package's shape.
func stubTestChairSystem(role string, opponents ...string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "You are holding the %s in this Duelogic debate.\n\n**Your Assigned Framework:**\nSome description.\n\n**Your Opponents:**\n", role)
	for _, o := range opponents {
		fmt.Fprintf(&b, "- %s: Argues from somewhere.\n", o)
	}
	b.WriteString("\n**MANDATORY OBLIGATIONS:**\n1. Steel-man first.\n2. Acknowledge your weaknesses.\n")
	return b.String()
}

func stubChairRequest(purpose, role, extra string) llm.Request {
	return llm.Request{
		Model:   "anthropic/claude-sonnet-4",
		Purpose: purpose,
		Messages: []llm.Message{
			{Role: llm.System, Content: stubTestChairSystem(role, "Grok 3 (Virtue Ethics Chair)", "GPT-4o (Pragmatic Chair)")},
			{Role: llm.User, Content: "<proposition>\n" + stubTestProposition + "\n</proposition>\n\n" + extra + "\nIt is your turn."},
		},
	}
}

const stubTestChairList = "- chair_1: Claude Sonnet 4 from Anthropic, Utilitarian Chair\n" +
	"- chair_2: Grok 3 from xAI, Virtue Ethics Chair\n" +
	"- chair_3: GPT-4o from OpenAI, Pragmatic Chair\n"

func stubArbiterRequest(purpose, user string) llm.Request {
	return llm.Request{
		Model:   "openai/gpt-4o",
		Purpose: purpose,
		Messages: []llm.Message{
			{Role: llm.System, Content: "You are the Arbiter and host of the podcast."},
			{Role: llm.User, Content: user},
		},
	}
}

const stubTestResponse = "I want to be fair here, because Grok 3 makes a compelling case that wisdom is a practiced skill. " +
	"Where I push back is this: outcomes matter. The utilitarian view has a blind spot too: it can ignore rights."

func stubEvaluationRequest(response string) llm.Request {
	r := stubArbiterRequest(PurposeEvaluation, "Evaluate this response by the Utilitarian Chair.\n\n<response>\n"+response+"\n</response>\n\nRespond in JSON.")
	r.JSON = true
	return r
}

func stubInterruptRequest(response string) llm.Request {
	r := stubArbiterRequest(PurposeInterruptCheck, "Current speaker:\n- chair_1: Claude Sonnet 4 (Utilitarian Chair)\n\n"+
		"What they just said:\n<response>\n"+response+"\n</response>\n\n"+
		"Other chairs who could interrupt:\n- chair_2: Grok 3 (Virtue Ethics Chair)\n- chair_3: GPT-4o (Pragmatic Chair)\n\n"+
		"Should any chair interrupt? Respond in JSON.")
	r.JSON = true
	return r
}

// stubSampleRequests asks each of this package's purposes once.
func stubSampleRequests() []llm.Request {
	return []llm.Request{
		stubArbiterRequest(PurposeIntroduction, "Show name: Duelogic\n\nChairs:\n"+stubTestChairList+"\n<proposition>\n"+stubTestProposition+"\n</proposition>"),
		stubChairRequest(PurposeOpening, "Utilitarian Chair", "<context>\nLabs are racing.\n</context>"),
		stubChairRequest(PurposeResponse, "Virtue Ethics Chair", ""),
		stubChairRequest(PurposeInterruption, "Pragmatic Chair", "<opener>\nI have to push back on that—\n</opener>"),
		stubEvaluationRequest(stubTestResponse),
		stubInterruptRequest(stubTestResponse),
		stubArbiterRequest(PurposeInterjection, "<chair>\nGrok 3 (Virtue Ethics Chair)\n</chair>\n<reason>\nSelf-critique absent.\n</reason>"),
		stubArbiterRequest(PurposeClosing, "Chairs:\n"+stubTestChairList+"\n<proposition>\n"+stubTestProposition+"\n</proposition>\nEnd with: subscribe."),
		stubExtractionRequest("chair_2", "- M1 [chair_1] claim: A pause saves lives", stubTestResponse),
	}
}

// stubExtractionRequest asks for the moves of speaker's response, after
// the moves listed one per line.
func stubExtractionRequest(speaker, moves, response string) llm.Request {
	r := stubArbiterRequest(PurposeArgumentExtraction, "Speaker: "+speaker+"\n\nMoves so far:\n"+moves+"\n\n<response>\n"+response+"\n</response>")
	r.JSON = true
	return r
}

// stubJSONPurposes are the purposes answered with a JSON object.
var stubJSONPurposes = []string{PurposeEvaluation, PurposeInterruptCheck, PurposeArgumentExtraction}

func stubComplete(t testing.TB, s *llm.Stub, req llm.Request) llm.Response {
	t.Helper()
	resp, err := s.Complete(context.Background(), req)
	if err != nil {
		t.Fatalf("Complete(%s): %v", req.Purpose, err)
	}
	return resp
}

// stubAllRoles are the roles of every built-in voice, plus unknown ones.
func stubAllRoles() []string {
	var roles []string
	for _, v := range stubVoices.List() {
		roles = append(roles, v.Role())
	}
	return append(roles, "Compliance First perspective", "Stoic Chair")
}

func TestStubChairTexts(t *testing.T) {
	long := strings.Repeat("Should frontier AI laboratories be required to pause training runs ", 8) + "?"
	seeds := int64(8) // 30 with DUELOGIC_EXHAUSTIVE=1, as CI runs it
	if os.Getenv("DUELOGIC_EXHAUSTIVE") == "1" {
		seeds = 30
	}
	for _, purpose := range []string{"opening", "response", "interruption"} {
		for _, role := range stubAllRoles() {
			for seed := range seeds {
				for _, prop := range []string{stubTestProposition, long} {
					req := stubChairRequest(purpose, role, "<context>\n"+strings.Repeat("Background. ", 40)+"\n</context>")
					req.Messages[1].Content = strings.Replace(req.Messages[1].Content, stubTestProposition, prop, 1)
					text := stubComplete(t, llm.NewStub(seed), req).Content
					if n := stubtext.Words(text); n < stubChairMinWords || n > stubChairMaxWords {
						t.Fatalf("%s/%s/seed %d: %d words, want %d-%d:\n%s", purpose, role, seed, n, stubChairMinWords, stubChairMaxWords, text)
					}
					if n := strings.Count(text, `"`+stubtext.Shorten(prop, 90)); n > 1 {
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
		for _, role := range stubAllRoles() {
			text := stubComplete(t, llm.NewStub(3), stubChairRequest(purpose, role, "")).Content
			v := stubVoices.For(role)
			lower := strings.ToLower(text)
			if !strings.Contains(lower, v.Label) && !strings.Contains(lower, v.Question) && !slices.ContainsFunc(v.Claims, func(c string) bool {
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
		req := stubChairRequest("response", "Utilitarian Chair", "")
		req.Messages[1].Content = strings.Replace(req.Messages[1].Content, stubTestProposition, tt.prop, 1)
		found := false
		for seed := range int64(20) {
			text := stubComplete(t, llm.NewStub(seed), req).Content
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
	text := stubComplete(t, llm.NewStub(1), stubChairRequest("opening", "Compliance First perspective", "")).Content
	if !strings.Contains(strings.ToLower(text), "compliance first") {
		t.Errorf("an unknown perspective's text does not use its name:\n%s", text)
	}
	// No chair prompt at all: still a chair text.
	req := llm.Request{Purpose: "response", Messages: []llm.Message{{Role: llm.User, Content: "Respond."}}}
	if n := stubtext.Words(stubComplete(t, llm.NewStub(1), req).Content); n < stubChairMinWords {
		t.Errorf("response without a chair prompt has %d words", n)
	}
}

// TestStubMandateLapses checks that most chair texts steel-man and admit a
// blind spot, and that now and then one of them is missing.
func TestStubMandateLapses(t *testing.T) {
	const n = 600
	noSteel, noBlind := 0, 0
	for seed := range int64(n) {
		text := stubComplete(t, llm.NewStub(seed), stubChairRequest("response", "Utilitarian Chair", "")).Content
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
type stubTestEvaluation struct {
	CritiquesOpponent bool `json:"critiquesOpponent"`
	Substantive       bool `json:"substantive"`
	AdherenceScore    int  `json:"adherenceScore"`
	SteelManning      struct {
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

func stubDecodeStrict(t *testing.T, s string, v any) {
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
		role := stubAllRoles()[seed%int64(len(stubAllRoles()))]
		response := stubComplete(t, llm.NewStub(seed), stubChairRequest("response", role, "")).Content
		var e stubTestEvaluation
		stubDecodeStrict(t, stubComplete(t, llm.NewStub(seed), stubEvaluationRequest(response)).Content, &e)

		steel := stubContainsAny(response, stubSteelPhrases)
		self := stubContainsAny(response, stubBlindPhrases)
		if !e.CritiquesOpponent || !e.Substantive {
			t.Errorf("seed %d: a whole response judged critiquesOpponent=%v substantive=%v, want both", seed, e.CritiquesOpponent, e.Substantive)
		}
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
	req := llm.Request{Purpose: "evaluation", JSON: true}
	var e stubTestEvaluation
	stubDecodeStrict(t, stubComplete(t, llm.NewStub(1), req).Content, &e)
	// Nothing said critiques no one and is not substantive: the mandates
	// are absent but not owed.
	if e.SteelManning.Attempted || e.SelfCritique.Attempted || e.CritiquesOpponent || e.Substantive || e.RequiresInterjection {
		t.Errorf("evaluation of nothing = %+v, want mandates absent, not owed, and no interjection", e)
	}
}

type stubTestInterrupt struct {
	ShouldInterrupt           bool    `json:"shouldInterrupt"`
	InterruptingChairPosition *string `json:"interruptingChairPosition"`
	Reason                    string  `json:"reason"`
	TriggerContent            string  `json:"triggerContent"`
	Urgency                   float64 `json:"urgency"`
	SuggestedOpener           string  `json:"suggestedOpener"`
}

var stubTestReasons = []string{"factual_correction", "straw_man_detected", "direct_challenge", "clarification_needed", "strong_agreement", "pivotal_point"}

func TestStubInterruptCheck(t *testing.T) {
	const n = 400
	interrupts := 0
	for seed := range int64(n) {
		response := stubComplete(t, llm.NewStub(seed), stubChairRequest("response", "Utilitarian Chair", "")).Content
		var ic stubTestInterrupt
		stubDecodeStrict(t, stubComplete(t, llm.NewStub(seed), stubInterruptRequest(response)).Content, &ic)
		if !slices.Contains(stubTestReasons, ic.Reason) {
			t.Errorf("seed %d: reason %q", seed, ic.Reason)
		}
		if ic.TriggerContent == "" || !strings.Contains(response, ic.TriggerContent) || stubtext.Words(ic.TriggerContent) > 8 {
			t.Errorf("seed %d: triggerContent %q is not a short phrase of the response", seed, ic.TriggerContent)
		}
		if w := stubtext.Words(ic.SuggestedOpener); w < 2 || w > 8 {
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
		req := llm.Request{Purpose: "interrupt_check", JSON: true, Messages: []llm.Message{{Role: llm.User, Content: "<response>\n" + stubTestResponse + "\n</response>"}}}
		var ic stubTestInterrupt
		stubDecodeStrict(t, stubComplete(t, llm.NewStub(seed), req).Content, &ic)
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
			req := llm.Request{Purpose: "interrupt_check", JSON: true, Messages: []llm.Message{{Role: llm.User, Content: strings.Repeat(noise, 50) +
				"\n<response>\n" + stubTestResponse + "\n</response>\nOther chairs who COULD INTERRUPT:\n- chair_2: Grok 3 (Virtue Ethics Chair)\n\nRespond."}}}
			var ic stubTestInterrupt
			stubDecodeStrict(t, stubComplete(t, llm.NewStub(seed), req).Content, &ic)
			if ic.ShouldInterrupt && *ic.InterruptingChairPosition != "chair_2" {
				t.Fatalf("seed %d: interrupting chair %q, want chair_2", seed, *ic.InterruptingChairPosition)
			}
		}
	}
}

func TestStubInterruptionOpener(t *testing.T) {
	for _, opener := range []string{"I have to push back on that—", "Wait, help me understand.", "Exactly right"} {
		for seed := range int64(20) {
			text := stubComplete(t, llm.NewStub(seed), stubChairRequest("interruption", "Care Ethics Chair", "<opener>\n"+opener+"\n</opener>")).Content
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
			user: "Show name: Ethics Hour\nEpisode: 12\n\nChairs:\n" + stubTestChairList + "\n<proposition>\n" + stubTestProposition + "\n</proposition>\n<context>\nLabs are racing.\n</context>",
			wants: []string{"Welcome to Ethics Hour", "episode 12", "Claude Sonnet 4 from Anthropic", "Grok 3 from xAI", "GPT-4o from OpenAI",
				"Utilitarian Chair", "Virtue Ethics Chair", "Pragmatic Chair", `"` + stubTestProposition + `"`, "Labs are racing", "steel", "Claude, the floor is yours."},
		},
		{
			name:  "perspectives, no provider",
			user:  "- chair_1: Model A, Performance Advocate\n- chair_2: Model B (Security Advocate)\n<proposition>\nRedis or PostgreSQL?\n</proposition>",
			wants: []string{"Welcome to Duelogic", "Model A", "Performance Advocate perspective", "Model B", "Security Advocate perspective", "Model, the floor is yours."},
		},
		{
			name:  "show and episode from the root package's prompt",
			user:  "You are the Arbiter and host of the Ethics Hour podcast.\n   Mention that this is episode 3.\n" + stubTestChairList + "<proposition>\nLabs should pause.\n</proposition>",
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
				text := stubComplete(t, llm.NewStub(seed), stubArbiterRequest("introduction", tt.user)).Content
				for _, w := range tt.wants {
					if !strings.Contains(text, w) {
						t.Fatalf("seed %d: introduction lacks %q:\n%s", seed, w, text)
					}
				}
				if n := stubtext.Words(text); n > 400 {
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
			user:    "Chairs:\n" + stubTestChairList + "<proposition>\n" + stubTestProposition + "\n</proposition>\nCall to action: ask listeners to subscribe.",
			wants:   []string{"Claude", "Grok", "GPT-4o", "Utilitarian Chair", "key clash", "Thank you to Claude Sonnet 4, Grok 3 and GPT-4o", "This has been Duelogic."},
			wantCTA: true,
		},
		{
			name:  "show from the root package's prompt",
			user:  "You are the Arbiter closing out this episode of Ethics Hour.\n\nThe chairs:\n" + stubTestChairList,
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
				text := stubComplete(t, llm.NewStub(seed), stubArbiterRequest("closing", tt.user)).Content
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
				text := stubComplete(t, llm.NewStub(seed), stubArbiterRequest("interjection", tt.user)).Content
				if strings.Contains(text, ",,") {
					t.Fatalf("seed %d: doubled comma:\n%s", seed, text)
				}
				if !strings.Contains(text, tt.wantName) || !slices.ContainsFunc(tt.wantAny, func(w string) bool { return strings.Contains(text, w) }) {
					t.Fatalf("seed %d: interjection lacks %q or one of %q:\n%s", seed, tt.wantName, tt.wantAny, text)
				}
				if n := stubtext.Words(text); n < 30 || n > 75 {
					t.Errorf("seed %d: interjection of %d words:\n%s", seed, n, text)
				}
			}
		})
	}
}

// TestStubVariety checks that different seeds give different answers.
func TestStubVariety(t *testing.T) {
	for _, req := range stubSampleRequests() {
		seen := make(map[string]bool)
		for seed := range int64(8) {
			text := stubComplete(t, llm.NewStub(seed), req).Content
			seen[text] = true
			if !req.JSON && strings.ContainsAny(text, "{}") {
				t.Errorf("%s: unexpanded template in %q", req.Purpose, text)
			}
		}
		want := 8
		if req.Purpose == PurposeInterjection || req.JSON {
			want = 2 // a few templates, or a JSON object with few possible values
		}
		if len(seen) < want {
			t.Errorf("%s: %d distinct responses over 8 seeds, want at least %d", req.Purpose, len(seen), want)
		}
	}
}

// TestStubVoicesCoverTheCatalog checks that every built-in framework and
// perspective has its own voice, found by name, ID and role.
func TestStubVoicesCoverTheCatalog(t *testing.T) {
	all := DefaultCatalog().All()
	if got := len(stubVoices.List()); got != len(all) {
		t.Errorf("%d voices for %d catalog entries", got, len(all))
	}
	for _, f := range all {
		for _, name := range []string{f.Name, string(f.ID), "the " + f.RoleName()} {
			v, ok := stubVoices.Lookup(name)
			if !ok || v.Name != f.Name || (v.Frame == "perspective") != (f.Kind == KindPerspective) {
				t.Errorf("voice for %q = %+v, %v; want %s", name, v, ok, f.Name)
			}
		}
	}
}

// TestStubReadsThePrompts runs the stub on this package's own prompts, so
// that a change to a prompt that the stub no longer reads fails here.
func TestStubReadsThePrompts(t *testing.T) {
	cfg := threeChairs()
	cfg.Podcast.ShowName = "Deep Disagreements"
	cfg.Podcast.EpisodeNumber = 12
	req := func(purpose string, p Prompt) llm.Request {
		return llm.Request{Purpose: purpose, Messages: p.Messages(), JSON: slices.Contains(stubJSONPurposes, purpose)}
	}
	chairs := make([]string, len(cfg.Chairs))
	for i, ch := range cfg.Chairs {
		chairs[i] = ch.Position
	}
	system, err := ChairSystemPrompt(cfg, nil, chairs[0])
	if err != nil {
		t.Fatal(err)
	}
	self := stubVoices.For(DefaultCatalog().Info(cfg.Chairs[0].Framework).Name)
	var opponents []string
	for _, ch := range stubChairs(system) {
		opponents = append(opponents, ch.name)
	}
	if len(opponents) != len(chairs)-1 {
		t.Fatalf("the stub finds opponents %q in the chair's system prompt:\n%s", opponents, system)
	}
	tests := []struct {
		name  string
		req   llm.Request
		check func(t *testing.T, text string)
	}{
		{"opening in the chair's voice", req(PurposeOpening, Prompt{System: system, User: fence("proposition", testDebate.Proposition) + "\nGive your opening."}),
			func(t *testing.T, text string) {
				if !strings.Contains(text, self.Label) && !slices.ContainsFunc(self.Claims, func(c string) bool {
					head, _, _ := strings.Cut(c, "{P}")
					return strings.Contains(text, head)
				}) {
					t.Errorf("the opening does not speak as the %s:\n%s", self.Name, text)
				}
				if stubContainsAny(text, stubSteelPhrases) && !slices.ContainsFunc(opponents, func(o string) bool { return strings.Contains(text, o) }) {
					t.Errorf("the steel-man names none of %q:\n%s", opponents, text)
				}
			}},
		{"introduction", req(PurposeIntroduction, ArbiterIntroPrompt(cfg, nil, testDebate)),
			func(t *testing.T, text string) {
				first := cfg.Chairs[0]
				for _, w := range []string{"Welcome to Deep Disagreements", "This is episode 12.", first.ModelDisplayName + " from " + first.ProviderName, "the floor is yours"} {
					if !strings.Contains(text, w) {
						t.Errorf("the introduction lacks %q:\n%s", w, text)
					}
				}
			}},
		{"closing", req(PurposeClosing, ArbiterClosingPrompt(cfg, nil, testDebate, ClosingMaterial{})),
			func(t *testing.T, text string) {
				if !strings.HasSuffix(text, "This has been Deep Disagreements.") {
					t.Errorf("the closing does not sign off with the show's name:\n%s", text)
				}
			}},
		{"interjection", req(PurposeInterjection, InterjectionPrompt(cfg, nil, Interjection{Type: ViolationStrawManning, Target: chairs[1], Opponent: chairs[0]}, "Duty is a mere heuristic.")),
			func(t *testing.T, text string) {
				if !strings.Contains(text, "best version of") {
					t.Errorf("the interjection does not call out straw-manning:\n%s", text)
				}
			}},
		{"evaluation", req(PurposeEvaluation, EvaluationPrompt(cfg, nil, chairs[1], "",
			"Where I push back is this: duty is all that matters, and nothing else does. "+strings.Repeat("Consequences are noise next to what we owe each other. ", 6))),
			func(t *testing.T, text string) {
				var e stubTestEvaluation
				stubDecodeStrict(t, text, &e)
				if e.SteelManning.Attempted || e.SelfCritique.Attempted || !e.CritiquesOpponent || !e.Substantive || !e.RequiresInterjection {
					t.Errorf("evaluation of a substantive critique with neither mandate = %+v", e)
				}
			}},
		{"interrupt check", req(PurposeInterruptCheck, InterruptCheckPrompt(cfg, nil, testDebate, chairs[0], "Duty is a mere heuristic.")),
			func(t *testing.T, text string) {
				var ic stubTestInterrupt
				stubDecodeStrict(t, text, &ic)
				if ic.ShouldInterrupt && !slices.Contains(chairs[1:], *ic.InterruptingChairPosition) {
					t.Errorf("interrupting chair %q, want one of %q", *ic.InterruptingChairPosition, chairs[1:])
				}
			}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			for seed := range int64(10) {
				tt.check(t, stubComplete(t, llm.NewStub(seed), tt.req).Content)
			}
		})
	}
	// Some check asks for an interruption.
	interrupts := 0
	for seed := range int64(40) {
		var ic stubTestInterrupt
		stubDecodeStrict(t, stubComplete(t, llm.NewStub(seed), req(PurposeInterruptCheck, InterruptCheckPrompt(cfg, nil, testDebate, chairs[0], "Duty is a mere heuristic."))).Content, &ic)
		if ic.ShouldInterrupt {
			interrupts++
		}
	}
	if interrupts == 0 {
		t.Error("no interrupt check over 40 seeds asks for an interruption")
	}
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

// FuzzStub feeds arbitrary prompts to every purpose of this package: the stub must not panic,
// must answer JSON purposes with JSON, and must stream what it completes.
func FuzzStub(f *testing.F) {
	for _, req := range stubSampleRequests() {
		f.Add(req.Messages[0].Content, req.Messages[len(req.Messages)-1].Content)
	}
	f.Add("You are holding the ", "<response>")
	f.Add("- x: (y)\n- chair_1: a from b, c", "<opener>\n—\n</opener><proposition></proposition>")
	var purposes []string
	for _, req := range stubSampleRequests() {
		purposes = append(purposes, req.Purpose)
	}
	f.Fuzz(func(t *testing.T, system, user string) {
		for _, p := range purposes {
			req := llm.Request{Purpose: p, JSON: slices.Contains(stubJSONPurposes, p), Messages: []llm.Message{{Role: llm.System, Content: system}, {Role: llm.User, Content: user}}}
			resp := stubComplete(t, llm.NewStub(1), req)
			if req.JSON && !json.Valid([]byte(resp.Content)) {
				t.Fatalf("%s: invalid JSON %q", p, resp.Content)
			}
			if resp.Content == "" {
				t.Fatalf("%s: empty answer", p)
			}
			var b strings.Builder
			if _, err := llm.NewStub(1).Stream(context.Background(), req, func(d string) error { b.WriteString(d); return nil }); err != nil {
				t.Fatal(err)
			}
			if b.String() != resp.Content {
				t.Fatalf("%s: stream %q != content %q", p, b.String(), resp.Content)
			}
		}
	})
}
