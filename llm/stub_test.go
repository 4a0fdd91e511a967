package llm

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"regexp"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/google/go-cmp/cmp"
)

// The purposes this test registers: an echo of every draw and reading of a
// call, and the same on a call rekeyed on the prompt with its digits masked.
const (
	echoPurpose  = "llm_test_echo"
	rekeyPurpose = "llm_test_rekey"
)

func init() {
	RegisterStub(echoPurpose, writeEcho)
	RegisterStub(rekeyPurpose, func(c *StubCall) string {
		return writeEcho(c.Rekey(testDigits.ReplaceAllString(c.Prompt(), "#")))
	})
}

var testDigits = regexp.MustCompile(`\d+`)

var testWords = []string{"alpha", "beta", "gamma", "delta", "epsilon", "zeta", "eta", "theta"}

// writeEcho reports what it reads and draws, one "key: value" per line.
func writeEcho(c *StubCall) string {
	topic, _ := c.Tag("topic")
	return strings.Join([]string{
		"purpose: " + c.Request().Purpose,
		"topic: " + topic,
		"speaker: " + c.Field("Speaker"),
		"pick: " + c.Pick(testWords),
		"picks: " + strings.Join(c.PickN(testWords, 3), " "),
		fmt.Sprintf("n: %d", c.Intn(1_000_000)),
		fmt.Sprintf("roll: %.6f", c.Roll("decision")),
		"numbers: " + strings.Join(testDigits.FindAllString(c.Prompt(), -1), " "),
	}, "\n")
}

func echoRequest(purpose, speaker, topic string) Request {
	return Request{
		Model:   "test/model",
		Purpose: purpose,
		Messages: []Message{
			{Role: System, Content: "You are a test."},
			{Role: User, Content: "Speaker: " + speaker + "\n<topic>\n" + topic + "\n</topic>"},
		},
	}
}

const testProposition = "Should AI development be paused?"

// sampleRequests covers a registered purpose, a rekeyed one and the
// fallbacks for unknown purposes.
func sampleRequests() []Request {
	unknown := Request{Model: "m", Purpose: "verdict", Messages: []Message{{Role: User, Content: "<proposition>\n" + testProposition + "\n</proposition>"}}}
	unknownJSON := unknown
	unknownJSON.JSON = true
	return []Request{
		echoRequest(echoPurpose, "chair_1", "pausing AI"),
		echoRequest(rekeyPurpose, "chair_2", "dated 2026-11-23"),
		unknown,
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

func TestStubDispatch(t *testing.T) {
	tests := []struct {
		name string
		req  Request
		want func(string) bool
	}{
		{"registered purpose", echoRequest(echoPurpose, "chair_1", "x"), func(s string) bool { return strings.HasPrefix(s, "purpose: "+echoPurpose+"\n") }},
		{"unknown purpose", sampleRequests()[2], func(s string) bool { return strings.Contains(s, `"`+testProposition+`"`) && !strings.Contains(s, "{") }},
		{"unknown JSON purpose", sampleRequests()[3], func(s string) bool { return s == "{}" }},
		{"unknown purpose without a proposition", Request{Purpose: "x"}, func(s string) bool { return strings.Contains(strings.ToLower(s), "this question") }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := complete(t, NewStub(1), tt.req).Content; !tt.want(got) {
				t.Errorf("answer %q", got)
			}
		})
	}
}

func TestRegisterStubPanics(t *testing.T) {
	tests := []struct {
		name    string
		purpose string
		write   func(*StubCall) string
	}{
		{"duplicate", echoPurpose, writeEcho},
		{"nil writer", "llm_test_nil", nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			defer func() {
				if recover() == nil {
					t.Error("RegisterStub did not panic")
				}
			}()
			RegisterStub(tt.purpose, tt.write)
		})
	}
	if stubWriter("llm_test_nil") != nil {
		t.Error("a nil writer was registered")
	}
}

func TestStubDeterministic(t *testing.T) {
	for _, req := range sampleRequests() {
		a := complete(t, NewStub(42), req)
		b := complete(t, NewStub(42), req)
		if diff := cmp.Diff(a, b); diff != "" {
			t.Errorf("%s: same seed, different responses (-first +second):\n%s", req.Purpose, diff)
		}
		// Different seeds give different texts, except the "{}" of an
		// unknown JSON purpose.
		seen := make(map[string]bool)
		for seed := range int64(8) {
			seen[complete(t, NewStub(seed), req).Content] = true
		}
		want := 8
		switch {
		case req.JSON:
			want = 1
		case req.Purpose == "verdict":
			want = 2 // the generic paragraph: a choice among a few sentences
		}
		if len(seen) < want {
			t.Errorf("%s: %d distinct responses over 8 seeds, want at least %d", req.Purpose, len(seen), want)
		}
	}
}

// TestStubDependsOnTheWholeRequest checks that each part of a request
// changes a registered writer's draws.
func TestStubDependsOnTheWholeRequest(t *testing.T) {
	base := echoRequest(echoPurpose, "chair_1", "x")
	draws := func(seed int64, req Request) string {
		_, d, _ := strings.Cut(complete(t, NewStub(seed), req).Content, "pick: ")
		d, _, _ = strings.Cut(d, "\nnumbers:")
		return d
	}
	want := draws(1, base)
	changes := map[string]func(*Request, *int64){
		"seed":    func(_ *Request, s *int64) { *s = 2 },
		"model":   func(r *Request, _ *int64) { r.Model = "other" },
		"role":    func(r *Request, _ *int64) { r.Messages[0].Role = User },
		"message": func(r *Request, _ *int64) { r.Messages[1].Content += "." },
		"split": func(r *Request, _ *int64) { // the same text, cut elsewhere
			r.Messages[0].Content += r.Messages[1].Content[:3]
			r.Messages[1].Content = r.Messages[1].Content[3:]
		},
	}
	for name, change := range changes {
		req := base
		req.Messages = append([]Message(nil), base.Messages...)
		seed := int64(1)
		change(&req, &seed)
		if got := draws(seed, req); got == want {
			t.Errorf("changing the %s leaves the draws as they were: %q", name, got)
		}
	}
}

func TestStubRekey(t *testing.T) {
	ask := func(seed int64, purpose, topic string) string {
		return complete(t, NewStub(seed), echoRequest(purpose, "chair_1", topic)).Content
	}
	draws := func(s string) string {
		_, d, _ := strings.Cut(s, "pick: ")
		d, _, _ = strings.Cut(d, "\nnumbers:")
		return d
	}
	for seed := range int64(20) {
		a, b := ask(seed, rekeyPurpose, "on 2026-11-23"), ask(seed, rekeyPurpose, "on 1999-01-02")
		if draws(a) != draws(b) {
			t.Fatalf("seed %d: masked values changed the draws:\n%s\n---\n%s", seed, a, b)
		}
		// The readers still see the real prompt.
		if !strings.Contains(a, "topic: on 2026-11-23") || !strings.Contains(b, "numbers: 1 1999 01 02") {
			t.Fatalf("seed %d: the rekeyed call does not read the real prompt:\n%s\n---\n%s", seed, a, b)
		}
	}
	// Whatever is not masked still counts, as do the seed and the purpose.
	differ := 0
	for seed := range int64(20) {
		if draws(ask(seed, rekeyPurpose, "on 2026-11-23")) != draws(ask(seed, rekeyPurpose, "after 2026-11-23")) {
			differ++
		}
	}
	if differ != 20 {
		t.Errorf("unmasked text changed the draws for %d of 20 seeds", differ)
	}
	if draws(ask(1, rekeyPurpose, "x")) == draws(ask(2, rekeyPurpose, "x")) {
		t.Error("the seed does not change a rekeyed call's draws")
	}
	c := newStubCall(1, echoRequest(echoPurpose, "chair_1", "x"))
	if c.Rekey("x").Intn(1<<30) == c.Rekey("y").Intn(1<<30) {
		t.Error("the text does not change a rekeyed call's draws")
	}
	d := newStubCall(1, echoRequest(rekeyPurpose, "chair_1", "x"))
	if c.Rekey("x").Intn(1<<30) == d.Rekey("x").Intn(1<<30) {
		t.Error("the purpose does not change a rekeyed call's draws")
	}
}

func TestStubCallReaders(t *testing.T) {
	req := Request{Purpose: "p", Model: "m", Messages: []Message{
		{Role: System, Content: "<proposition>\nold\n</proposition>\nSpeaker:\n**Side**: \"negative\""},
		{Role: User, Content: "first user"},
		{Role: Assistant, Content: "reply"},
		{Role: User, Content: "<response>\nfirst\n</response>\n<response>\n  second  \n</response>\n<opener>\nunclosed\n- speaker: chair_2\nSpeakers: many"},
	}}
	c := newStubCall(1, req)
	for tag, want := range map[string]string{"proposition": "old", "response": "second", "opener": "unclosed\n- speaker: chair_2\nSpeakers: many", "missing": ""} {
		if got, ok := c.Tag(tag); got != want || ok != (tag != "missing") {
			t.Errorf("Tag(%q) = %q, %v; want %q", tag, got, ok, want)
		}
	}
	fields := []struct {
		keys []string
		want string
	}{
		{[]string{"Speaker"}, "chair_2"}, // the empty "Speaker:" does not count
		{[]string{"side"}, "negative"},
		{[]string{"Missing", "Side"}, "negative"},
		{[]string{"Speakers"}, "many"},
		{[]string{"Missing"}, ""},
	}
	for _, f := range fields {
		if got := c.Field(f.keys...); got != f.want {
			t.Errorf("Field(%q) = %q, want %q", f.keys, got, f.want)
		}
	}
	if got := c.System(); got != req.Messages[0].Content {
		t.Errorf("System() = %q", got)
	}
	if got := c.LastUser(); got != req.Messages[3].Content {
		t.Errorf("LastUser() = %q", got)
	}
	if got, want := c.Prompt(), req.Messages[0].Content+"\nfirst user\nreply\n"+req.Messages[3].Content; got != want {
		t.Errorf("Prompt() = %q, want %q", got, want)
	}
	if diff := cmp.Diff(req, c.Request()); diff != "" {
		t.Errorf("Request() (-want +got):\n%s", diff)
	}
	empty := newStubCall(1, Request{})
	if empty.System() != "" || empty.LastUser() != "" || empty.Prompt() != "" || empty.Field("x") != "" {
		t.Error("an empty request reads as not empty")
	}
}

func TestStubCallDraws(t *testing.T) {
	c := newStubCall(3, echoRequest(echoPurpose, "chair_1", "x"))
	roll := c.Roll("a")
	if roll < 0 || roll >= 1 {
		t.Errorf("Roll = %v, want [0, 1)", roll)
	}
	c.Intn(10)
	c.Pick(testWords)
	if got := c.Roll("a"); got != roll {
		t.Errorf("Roll(a) = %v after other draws, was %v", got, roll)
	}
	if c.Roll("b") == roll {
		t.Error("Roll gives the same number for another label")
	}
	for _, tt := range []struct{ n, want int }{{3, 3}, {8, 8}, {20, 8}, {0, 0}, {-1, 0}} {
		got := c.PickN(testWords, tt.n)
		seen := map[string]bool{}
		for _, w := range got {
			seen[w] = true
		}
		if len(got) != tt.want || len(seen) != tt.want {
			t.Errorf("PickN(%d) = %q, want %d distinct words", tt.n, got, tt.want)
		}
	}
	if c.Pick(nil) != "" || c.Intn(0) != 0 || c.Intn(-3) != 0 {
		t.Error("Pick(nil) or Intn(<=0) draw something")
	}
	for range 100 {
		if n := c.Intn(7); n < 0 || n >= 7 {
			t.Fatalf("Intn(7) = %d", n)
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
	_, err := NewStub(1).Stream(context.Background(), sampleRequests()[0], func(string) error {
		calls++
		return errTestStop
	})
	if err != errTestStop || calls != 1 {
		t.Errorf("err = %v after %d deltas, want errTestStop after 1", err, calls)
	}
}

var errTestStop = errors.New("stop")

func TestStubTokenDelay(t *testing.T) {
	req := sampleRequests()[0]
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
				time.Sleep(35 * time.Millisecond) // on the bubble's fake clock
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

func TestStubDeltas(t *testing.T) {
	tests := []struct {
		in   string
		want []string
	}{
		{"", nil},
		{"one", []string{"one"}},
		{"Hello world.\n\nNext  one ", []string{"Hello", " world.", "\n\nNext", "  one", " "}},
		{"  lead", []string{"  lead"}},
		{"é ü—x", []string{"é", " ü—x"}},
	}
	for _, tt := range tests {
		if diff := cmp.Diff(tt.want, stubDeltas(tt.in)); diff != "" {
			t.Errorf("stubDeltas(%q) (-want +got):\n%s", tt.in, diff)
		}
	}
}

// Purposes whose registered answers fit, or drift from, testSchema.
const (
	schemaFitPurpose   = "llm_test_schema_fit"
	schemaDriftPurpose = "llm_test_schema_drift"
)

func init() {
	RegisterStub(schemaFitPurpose, func(c *StubCall) string {
		return fmt.Sprintf(`{"score": %d, "reason": null}`, c.Intn(101))
	})
	RegisterStub(schemaDriftPurpose, func(c *StubCall) string {
		return `{"score": "high", "reason": null, "mood": "bold"}`
	})
}

const testSchema = `{"type":"object","properties":{"score":{"type":"integer","minimum":0,"maximum":100},"reason":{"type":["string","null"]}},"required":["score","reason"],"additionalProperties":false}`

func TestStubSchema(t *testing.T) {
	withSchema := func(purpose, schema string) Request {
		r := echoRequest(purpose, "judge", "x")
		r.Schema = json.RawMessage(schema)
		return r
	}
	tests := []struct {
		name     string
		req      Request
		want     string // the answer; "" when it is an error
		wantErr  string // what the error says
		mismatch bool   // the error wraps ErrSchemaMismatch
	}{
		{name: "registered answer fits", req: withSchema(schemaFitPurpose, testSchema), want: `{"score": `},
		{name: "registered answer drifts", req: withSchema(schemaDriftPurpose, testSchema), mismatch: true,
			wantErr: `llm: stub "llm_test_schema_drift": llm: reply does not satisfy the request's schema: jsonschema: $.score: want integer, got string; $.mood: unexpected property (not in the schema)`},
		{name: "unregistered purpose gets the zero document", req: withSchema("llm_test_unregistered", testSchema), want: `{"reason":null,"score":0}`},
		{name: "schema not strict", req: withSchema(schemaFitPurpose, `{"type":"object","properties":{"score":{"type":"integer"}},"additionalProperties":false}`),
			wantErr: `the request's schema: jsonschema: not valid for strict mode: #: required must list every property; it lacks "score"`},
		{name: "schema invalid", req: withSchema("llm_test_unregistered", `{"type":"object","properties":{"a":{"type":"string","format":"email"}}}`),
			wantErr: `unsupported keyword "format"`},
		{name: "no document fits", req: withSchema("llm_test_unregistered", `{"type":"object","properties":{"a":{"type":"integer","minimum":1,"maximum":0}},"required":["a"],"additionalProperties":false}`),
			wantErr: `no answer fits the request's schema`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			for _, stream := range []bool{false, true} {
				var resp Response
				var err error
				if stream {
					resp, err = NewStub(3).Stream(context.Background(), tt.req, nil)
				} else {
					resp, err = NewStub(3).Complete(context.Background(), tt.req)
				}
				if tt.wantErr == "" {
					if err != nil || !strings.HasPrefix(resp.Content, tt.want) {
						t.Errorf("stream %v: %q, %v; want an answer starting %q", stream, resp.Content, err, tt.want)
					}
					continue
				}
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Errorf("stream %v: error %v, want one saying %q", stream, err, tt.wantErr)
				}
				if errors.Is(err, ErrSchemaMismatch) != tt.mismatch {
					t.Errorf("stream %v: errors.Is(%v, ErrSchemaMismatch) = %v, want %v", stream, err, !tt.mismatch, tt.mismatch)
				}
			}
		})
	}
}
