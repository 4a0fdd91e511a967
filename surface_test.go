package duelogic

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/duelogic/duelogic/engine"
	"github.com/duelogic/duelogic/llm"
	"github.com/duelogic/duelogic/llm/llmtest"
	"github.com/duelogic/duelogic/store"
	"github.com/duelogic/duelogic/store/storetest"
)

// The one surface of issue 23: the podcast's outcome is an engine.Outcome,
// it opens by name, its zero config is the default, its stored
// configuration is its Config's JSON, and a debate that stops keeps its
// result.

var surfaceClock = WithClock(func() time.Time { return time.Date(2026, 1, 3, 20, 0, 0, 0, time.UTC) })

// surfaceConfig is the config the tests below open by name: the defaults
// with 3 exchanges.
const surfaceConfig = `{"flow": {"maxExchanges": 3}}`

func surfaceDebate(id string) Debate {
	return Debate{ID: id, Proposition: "Should cities ban private cars from their centres?"}
}

func openPodcast(t *testing.T, config string) engine.Format[engine.Outcome] {
	t.Helper()
	f, err := engine.Open(FormatName, json.RawMessage(config))
	if err != nil {
		t.Fatal(err)
	}
	return f
}

// reference is the uninterrupted debate id on the stub, opened with
// surfaceConfig.
func reference(t *testing.T, id string) *engine.Result[engine.Outcome] {
	t.Helper()
	res, err := engine.Run(t.Context(), llm.NewStub(1), openPodcast(t, surfaceConfig), surfaceDebate(id),
		engine.WithStore(store.NewMemory()), surfaceClock)
	if err != nil {
		t.Fatal(err)
	}
	return res
}

// outcomeOf is a result's outcome as the podcast's.
func outcomeOf(t *testing.T, o engine.Outcome) *Outcome {
	t.Helper()
	out, ok := o.(*Outcome)
	if !ok {
		t.Fatalf("Detail is a %T, want *Outcome", o)
	}
	return out
}

func TestOutcomeVerdict(t *testing.T) {
	live := outcomeOf(t, reference(t, "verdict").Detail)
	for _, tt := range []struct {
		name string
		o    *Outcome
		want string
	}{
		{"stub run", live, "2 chairs, 3 exchanges; steel-manning 67%, self-critique 75%, 2 interruptions, 2 interjections"},
		{"nothing measured", &Outcome{Config: DefaultConfig()},
			"2 chairs, 8 exchanges; steel-manning not measured, self-critique not measured, 0 interruptions, 0 interjections"},
		{"one of each", &Outcome{
			Config:  Config{Chairs: make([]Chair, 3), Flow: FlowConfig{MaxExchanges: 1}},
			Metrics: Metrics{CritiqueResponses: 4, SteelManningRate: 0.75, SubstantiveResponses: 2, SelfCritiqueRate: 1, Interruptions: 1, Interjections: 1},
		}, "3 chairs, 1 exchange; steel-manning 75%, self-critique 100%, 1 interruption, 1 interjection"},
		{"zero", &Outcome{}, "0 chairs, 0 exchanges; steel-manning not measured, self-critique not measured, 0 interruptions, 0 interjections"},
		{"nil: not finished", nil, "the debate did not finish"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			// The podcast names no winner: no winner, no draw, no void.
			want := engine.Verdict{Summary: tt.want}
			if diff := cmp.Diff(want, tt.o.Verdict()); diff != "" {
				t.Errorf("Verdict (-want +got):\n%s", diff)
			}
		})
	}
}

func TestOutcomeDocuments(t *testing.T) {
	res := reference(t, "documents")
	live := outcomeOf(t, res.Detail)
	closing := res.Transcript[len(res.Transcript)-1]
	if closing.Kind != KindClosing {
		t.Fatalf("the last utterance is a %s", closing.Kind)
	}
	var stored Outcome // as a host reads the stored outcome: no transcript
	if raw, err := json.Marshal(live); err != nil {
		t.Fatal(err)
	} else if err := json.Unmarshal(raw, &stored); err != nil {
		t.Fatal(err)
	}
	hostile := &Outcome{
		Config: DefaultConfig(),
		Debate: Debate{ID: "h", Proposition: "# Not a title\nat all", Context: "line one\n# not a heading"},
		Transcript: []Utterance{{Seq: 2, Speaker: "chair_1", Segment: SegmentOpening, Kind: KindOpening,
			Content: "Opening.\n## Not a section\n> not a quote"}},
	}
	for _, tt := range []struct {
		name          string
		o             *Outcome
		want, without []string
	}{
		{"stub run", live, []string{
			"# Should cities ban private cars from their centres?\n",
			"Debate `documents`, a Duelogic podcast debate: " + live.Verdict().Summary + ".\n",
			"- **Claude Sonnet 4 (Utilitarian Chair)**: chair_1, anthropic/claude-sonnet-4\n",
			"- **Arbiter**: openai/gpt-4o, moderate accountability\n",
			"\n## Introduction\n", "\n## Opening\n", "\n## Exchange\n",
			"\n## Synthesis\n\n**Arbiter** — closing\n\n" + firstLine(closing.Content),
			"> Evaluation: adherence ",
			"\n## Metrics\n\n- responses 6, evaluated 6\n",
			"- interruptions 2, interjections 2\n",
		}, []string{"not part of this outcome"}},
		{"decoded from JSON", &stored, []string{
			"# A Duelogic debate\n", "*The transcript is not part of this outcome", "\n## Metrics\n",
		}, []string{"## Synthesis", "## Opening"}},
		{"text stays text", hostile, []string{
			"# \\# Not a title at all\n", "\n> line one\n> \\# not a heading\n", "\nOpening.\n\\## Not a section\n\\> not a quote\n",
		}, []string{"\n## Not a section", "\n> not a quote"}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			docs := tt.o.Documents()
			if len(docs) != 1 || docs[0].Name != "transcript.md" || docs[0].Title != "Transcript" {
				t.Fatalf("Documents = %d, want one transcript.md", len(docs))
			}
			md := docs[0].Markdown
			for _, s := range tt.want {
				if !strings.Contains(md, s) {
					t.Errorf("the document lacks %q:\n%s", s, md)
				}
			}
			for _, s := range tt.without {
				if strings.Contains(md, s) {
					t.Errorf("the document has %q:\n%s", s, md)
				}
			}
		})
	}
	if docs := (*Outcome)(nil).Documents(); docs != nil {
		t.Errorf("a nil Outcome has documents: %v", docs)
	}
}

func TestOpen(t *testing.T) {
	def := DefaultConfig()
	partial := DefaultConfig()
	partial.Flow.MaxExchanges = 3
	partial.Interruptions.AllowArbiterInterruptions = false
	chairs := DefaultConfig()
	chairs.Chairs = []Chair{{Position: "a", Framework: Libertarian, ModelID: "m"}, {Position: "b", Framework: Pragmatic, ModelID: "m"}}
	for _, tt := range []struct {
		name   string
		config string
		want   *Config
		field  string // of the violation wanted; "" for none
	}{
		{"nil", "", &def, ""},
		{"null", "null", &def, ""},
		{"empty", "{}", &def, ""},
		{"partial", `{"flow": {"maxExchanges": 3}, "interruptions": {"allowArbiterInterruptions": false}}`, &partial, ""},
		{"chairs replace the list", `{"chairs": [{"position": "a", "framework": "libertarian", "modelId": "m"},
			{"position": "b", "framework": "pragmatic", "modelId": "m"}]}`, &chairs, ""},
		{"unknown field", `{"flow": {"maxExchange": 3}}`, nil, "flow.maxExchange"},
		{"unknown chair field", `{"chairs": [{"position": "a", "framework": "libertarian", "modelId": "m", "colour": "red"},
			{"position": "b", "framework": "pragmatic", "modelId": "m"}]}`, nil, "chairs[0].colour"},
		{"unknown top-level field", `{"config": {"flow": {"maxExchanges": 3}}}`, nil, "config"},
		{"wrong type", `{"flow": {"maxExchanges": "three"}}`, nil, "flow.maxExchanges"},
		{"invalid value", `{"flow": {"maxExchanges": 0}}`, nil, "flow.maxExchanges"},
		{"invalid chairs", `{"chairs": []}`, nil, "chairs"},
		{"not an object", `[]`, nil, "config"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			f, err := engine.Open(FormatName, json.RawMessage(tt.config))
			if tt.field == "" {
				if err != nil {
					t.Fatal(err)
				}
				if f.Name() != FormatName {
					t.Fatalf("Open's format is named %q", f.Name())
				}
				got := storedConfig(t, f)
				if diff := cmp.Diff(*tt.want, got); diff != "" {
					t.Errorf("config (-want +got):\n%s", diff)
				}
				return
			}
			var ve *ValidationError
			if !errors.As(err, &ve) || !errors.Is(err, ErrInvalidConfig) || f != nil {
				t.Fatalf("Open = %v, %v; want a *ValidationError and no format", f, err)
			}
			if len(ve.Violations) == 0 || ve.Violations[0].Field != tt.field {
				t.Errorf("violations %+v, want one of %q", ve.Violations, tt.field)
			}
		})
	}
}

// TestOpenNilRunsTheDefaultDebate: engine.Open with no config gives the
// default debate, runnable on the stub, and Formats lists it.
func TestOpenNilRunsTheDefaultDebate(t *testing.T) {
	found := false
	for _, n := range engine.Formats() {
		found = found || n == FormatName
	}
	if !found {
		t.Fatalf("Formats() = %v lacks %q", engine.Formats(), FormatName)
	}
	res, err := engine.Run(t.Context(), llm.NewStub(1), openPodcast(t, ""), surfaceDebate("default"), surfaceClock)
	if err != nil {
		t.Fatal(err)
	}
	out := outcomeOf(t, res.Detail)
	if diff := cmp.Diff(DefaultConfig(), out.Config); diff != "" {
		t.Errorf("the default debate's config (-want +got):\n%s", diff)
	}
	if v := out.Verdict().Summary; !strings.HasPrefix(v, "2 chairs, 8 exchanges;") {
		t.Errorf("the default debate: %s", v)
	}
}

func TestZeroConfigFieldsTakeTheDefaults(t *testing.T) {
	short := DefaultConfig()
	short.Flow.MaxExchanges = 3
	// Zero is a setting for booleans, the target duration and the cooldown.
	short.Flow.TargetDurationMinutes = 0
	short.Interruptions = InterruptionConfig{Aggressiveness: 3}
	short.Podcast = PodcastConfig{ShowName: "Duelogic"}
	short.Mandates = Mandates{}
	seated := DefaultConfig()
	seated.Chairs = []Chair{
		{Position: "chair_1", Framework: CareEthics, ModelID: "anthropic/claude-sonnet-4", ModelDisplayName: "Claude Sonnet 4", ProviderName: "Anthropic"},
		{Position: "devil", Framework: Pragmatic, ModelID: "mine"},
		{Position: "chair_3", Framework: Deontological, ModelID: "openai/gpt-4o", ModelDisplayName: "GPT-4o", ProviderName: "OpenAI"},
	}
	arbiter := DefaultConfig()
	arbiter.Arbiter = ArbiterConfig{ModelID: "mine", AccountabilityLevel: Strict}
	for _, tt := range []struct {
		name string
		cfg  Config
		want Config
	}{
		{"zero is the default", Config{}, DefaultConfig()},
		{"default is the default", DefaultConfig(), DefaultConfig()},
		{"one field", Config{Flow: FlowConfig{MaxExchanges: 3}}, short},
		{"chairs by framework", func() Config {
			c := DefaultConfig()
			c.Chairs = []Chair{{Framework: CareEthics}, {Position: "devil", Framework: Pragmatic, ModelID: "mine"}, {Framework: Deontological}}
			return c
		}(), seated},
		{"the arbiter's own model keeps no default name", func() Config {
			c := DefaultConfig()
			c.Arbiter = ArbiterConfig{ModelID: "mine", AccountabilityLevel: Strict}
			return c
		}(), arbiter},
	} {
		t.Run(tt.name, func(t *testing.T) {
			p, err := NewPodcast(tt.cfg)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.want, p.Config); diff != "" {
				t.Errorf("NewPodcast's config (-want +got):\n%s", diff)
			}
			o, err := New(tt.cfg, llm.NewStub(1))
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.want, o.Config()); diff != "" {
				t.Errorf("New's config (-want +got):\n%s", diff)
			}
		})
	}
	bad := Config{Chairs: []Chair{{Framework: CareEthics}}}
	if _, err := NewPodcast(bad); !errors.Is(err, ErrInvalidConfig) {
		t.Errorf("one chair: %v, want ErrInvalidConfig", err)
	}
	// A zero Podcast is what resumes; it does not run.
	if _, err := engine.Run(t.Context(), llm.NewStub(1), &Podcast{}, surfaceDebate("zero")); !errors.Is(err, ErrInvalidConfig) {
		t.Errorf("Run(&Podcast{}) = %v, want ErrInvalidConfig", err)
	}
}

// oldSpec is a podcast's configuration as versions before issue 23 stored
// it: {"config": {...}}.
const oldSpec = `{"config":{"chairs":[{"position":"chair_1","framework":"utilitarian","modelId":"anthropic/claude-sonnet-4","modelDisplayName":"Claude Sonnet 4","providerName":"Anthropic"},{"position":"chair_2","framework":"virtue_ethics","modelId":"x-ai/grok-3","modelDisplayName":"Grok 3","providerName":"xAI"}],"arbiter":{"modelId":"openai/gpt-4o","modelDisplayName":"GPT-4o","accountabilityLevel":"moderate"},"flow":{"style":"conversational","maxExchanges":3,"targetDurationMinutes":45},"interruptions":{"enabled":true,"allowChairInterruptions":true,"allowArbiterInterruptions":true,"aggressiveness":3,"cooldownSeconds":60},"tone":"spirited","podcastMode":{"enabled":true,"showName":"Duelogic","includeCallToAction":true},"mandates":{"requireSteelManning":true,"requireSelfCritique":true,"arbiterCanInterject":true}}}`

// oldHead stores the first record of debate id as versions before issue 23
// wrote it, with oldSpec.
func oldHead(t *testing.T, st store.Store, id string) {
	t.Helper()
	data := `{"key":"debate","value":{"version":2,"format":"duelogic","debate":{"id":"` + id +
		`","proposition":"Should cities ban private cars from their centres?"},"spec":` + oldSpec + `},"event":{"type":"debate_started"}}`
	if err := st.Append(t.Context(), store.Record{DebateID: id, Seq: 1, Time: time.Date(2026, 1, 3, 20, 0, 0, 0, time.UTC), Type: engine.RecordDebate, Data: []byte(data)}); err != nil {
		t.Fatal(err)
	}
}

func TestStoredConfigIsTheConfig(t *testing.T) {
	want := DefaultConfig()
	want.Flow.MaxExchanges = 3
	t.Run("the spec is the config's JSON", func(t *testing.T) {
		mem := store.NewMemory()
		p, err := NewPodcast(want)
		if err != nil {
			t.Fatal(err)
		}
		_, err = engine.Run(t.Context(), llm.NewStub(1), p, surfaceDebate("spec"), engine.WithStore(storetest.FailAfter(mem, 1, errDisk)))
		if !errors.Is(err, errDisk) {
			t.Fatalf("Run = %v", err)
		}
		sum, err := engine.Inspect(t.Context(), mem, "spec")
		if err != nil {
			t.Fatal(err)
		}
		cfgJSON, err := json.Marshal(want)
		if err != nil {
			t.Fatal(err)
		}
		if string(sum.Spec) != string(cfgJSON) {
			t.Errorf("stored spec\n%s\nwant the config's JSON\n%s", sum.Spec, cfgJSON)
		}
		if got, ok := ConfigOf(sum); !ok || !cmp.Equal(got, want) {
			t.Errorf("ConfigOf = %+v, %t", got, ok)
		}
		// The stored spec opens again, also patched.
		patched := strings.Replace(string(sum.Spec), `"tone":"spirited"`, `"tone":"heated"`, 1)
		f, err := engine.Open(FormatName, json.RawMessage(patched))
		if err != nil {
			t.Fatal(err)
		}
		want := want
		want.Tone = ToneHeated
		if diff := cmp.Diff(want, storedConfig(t, f)); diff != "" {
			t.Errorf("reopened (-want +got):\n%s", diff)
		}
	})
	t.Run("the old shape decodes", func(t *testing.T) {
		for _, spec := range []string{oldSpec, string(mustJSON(t, want))} {
			var p Podcast
			if err := json.Unmarshal([]byte(spec), &p); err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(want, p.Config); diff != "" {
				t.Errorf("decoded config (-want +got):\n%s", diff)
			}
			if got, ok := ConfigOf(Summary{Format: FormatName, Spec: json.RawMessage(spec)}); !ok || !cmp.Equal(got, want) {
				t.Errorf("ConfigOf = %+v, %t", got, ok)
			}
		}
	})
	ref := reference(t, "old")
	for _, tt := range []struct {
		name   string
		resume func(st store.Store) (Config, []Utterance, error)
	}{
		{"engine.ResumeStored", func(st store.Store) (Config, []Utterance, error) {
			res, err := engine.ResumeStored(t.Context(), llm.NewStub(1), "old", engine.WithStore(st), surfaceClock)
			if err != nil {
				return Config{}, nil, err
			}
			return outcomeOf(t, res.Detail).Config, res.Transcript, nil
		}},
		{"engine.Resume with &Podcast{}", func(st store.Store) (Config, []Utterance, error) {
			res, err := engine.Resume(t.Context(), llm.NewStub(1), &Podcast{}, "old", engine.WithStore(st), surfaceClock)
			if err != nil {
				return Config{}, nil, err
			}
			return res.Detail.Config, res.Transcript, nil
		}},
		{"Orchestrator.Resume", func(st store.Store) (Config, []Utterance, error) {
			res, err := mustNew(t, Config{}, llm.NewStub(1), WithStore(st), surfaceClock).Resume(t.Context(), "old")
			if err != nil {
				return Config{}, nil, err
			}
			return outcomeOf(t, res.Detail).Config, res.Transcript, nil
		}},
	} {
		t.Run("an old log resumes: "+tt.name, func(t *testing.T) {
			mem := store.NewMemory()
			oldHead(t, mem, "old")
			cfg, tr, err := tt.resume(mem)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(want, cfg); diff != "" {
				t.Errorf("config (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(ref.Transcript, tr); diff != "" {
				t.Errorf("transcript (-want +got):\n%s", diff)
			}
		})
	}
}

// storedConfig is the configuration engine.Run stores for f, decoded.
func storedConfig(t *testing.T, f engine.Format[engine.Outcome]) Config {
	t.Helper()
	mem := store.NewMemory()
	_, err := engine.Run(t.Context(), llm.NewStub(1), f, surfaceDebate("stored"), engine.WithStore(storetest.FailAfter(mem, 1, errDisk)))
	if !errors.Is(err, errDisk) {
		t.Fatalf("Run = %v", err)
	}
	sum, err := engine.Inspect(t.Context(), mem, "stored")
	if err != nil {
		t.Fatal(err)
	}
	var got Config
	if err := json.Unmarshal(sum.Spec, &got); err != nil {
		t.Fatal(err)
	}
	return got
}

func mustJSON(t *testing.T, v any) []byte {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// failingPurpose sends the requests of one purpose to a fake that fails
// them, the others to the stub; it streams as the stub does.
type failingPurpose struct {
	stub    *llm.Stub
	fake    *llmtest.Fake
	purpose string
}

func (c failingPurpose) client(req llm.Request) llm.Client {
	if req.Purpose == c.purpose {
		return c.fake
	}
	return c.stub
}

func (c failingPurpose) Complete(ctx context.Context, req llm.Request) (llm.Response, error) {
	return c.client(req).Complete(ctx, req)
}

func (c failingPurpose) Stream(ctx context.Context, req llm.Request, onDelta func(string) error) (llm.Response, error) {
	return c.client(req).(llm.Streamer).Stream(ctx, req, onDelta)
}

// cancelling is the stub, which cancels the debate's context at the first
// request of a purpose.
type cancelling struct {
	*llm.Stub
	purpose string
	cancel  context.CancelFunc
}

func (c cancelling) Complete(ctx context.Context, req llm.Request) (llm.Response, error) {
	if req.Purpose == c.purpose {
		c.cancel()
	}
	return c.Stub.Complete(ctx, req)
}

func (c cancelling) Stream(ctx context.Context, req llm.Request, onDelta func(string) error) (llm.Response, error) {
	if req.Purpose == c.purpose {
		c.cancel()
	}
	return c.Stub.Stream(ctx, req, onDelta)
}

// saidRow is an utterance as said, without what amends it later.
type saidRow struct {
	Seq              int64
	Speaker, Content string
	Kind             UtteranceKind
}

func said(tr []Utterance) []saidRow {
	out := make([]saidRow, len(tr))
	for i, u := range tr {
		out[i] = saidRow{u.Seq, u.Speaker, u.Content, u.Kind}
	}
	return out
}

// stopped is what a run that stopped returned and what its resume did.
type stopped struct {
	id, format string
	cfg        *Config // nil through the engine; the stored one through the orchestrator
	transcript []Utterance
	done       bool // the result carries an outcome
}

// TestFailuresKeepTheirDebate stops a debate by a model error, a store
// error and a cancelled context, through engine.Run and Orchestrator.Run:
// each returns the result so far with the error, and a resume (by
// engine.ResumeStored, or Orchestrator.Resume) finishes it as the
// uninterrupted run did.
func TestFailuresKeepTheirDebate(t *testing.T) {
	const id = "stops"
	ref := reference(t, id)
	refOut := outcomeOf(t, ref.Detail)
	cfg := DefaultConfig()
	cfg.Flow.MaxExchanges = 3
	errUpstream := errors.New("upstream 503")
	type failure struct {
		name   string
		client func(cancel context.CancelFunc) llm.Client
		store  func(store.Store) store.Store
		is     func(error) bool
	}
	failures := []failure{
		{
			name: "model error",
			client: func(context.CancelFunc) llm.Client {
				fake := llmtest.New()
				fake.OnPurpose(PurposeResponse).Fail(errUpstream)
				return failingPurpose{llm.NewStub(1), fake, PurposeResponse}
			},
			is: func(err error) bool {
				var te *TurnError
				return errors.As(err, &te) && errors.Is(err, errUpstream) && te.Purpose == PurposeResponse
			},
		},
		{
			name:  "store error",
			store: func(st store.Store) store.Store { return storetest.FailAfter(st, 9, errDisk) },
			is:    func(err error) bool { return errors.Is(err, errDisk) },
		},
		{
			name: "cancel",
			client: func(cancel context.CancelFunc) llm.Client {
				return cancelling{llm.NewStub(1), PurposeEvaluation, cancel}
			},
			is: func(err error) bool { return errors.Is(err, context.Canceled) },
		},
	}
	paths := []struct {
		name   string
		run    func(ctx context.Context, c llm.Client, st store.Store) (stopped, error)
		resume func(st store.Store) (stopped, *Outcome, error)
	}{
		{
			name: "engine",
			run: func(ctx context.Context, c llm.Client, st store.Store) (stopped, error) {
				res, err := engine.Run(ctx, c, openPodcast(t, surfaceConfig), surfaceDebate(id), engine.WithStore(st), surfaceClock)
				if res == nil {
					return stopped{}, err
				}
				return stopped{id: res.DebateID, format: res.Format, transcript: res.Transcript, done: res.Detail != nil}, err
			},
			resume: func(st store.Store) (stopped, *Outcome, error) {
				res, err := engine.ResumeStored(t.Context(), llm.NewStub(1), id, engine.WithStore(st), surfaceClock)
				if err != nil {
					return stopped{}, nil, err
				}
				return stopped{id: res.DebateID, format: res.Format, transcript: res.Transcript, done: true}, outcomeOf(t, res.Detail), nil
			},
		},
		{
			name: "orchestrator",
			run: func(ctx context.Context, c llm.Client, st store.Store) (stopped, error) {
				res, err := mustNew(t, cfg, c, WithStore(st), surfaceClock).Run(ctx, surfaceDebate(id))
				if res == nil {
					return stopped{}, err
				}
				// A stopped result has no Detail: its config is the one
				// stored with the debate.
				got := stopped{id: res.DebateID, format: res.Format, transcript: res.Transcript, done: res.Detail != nil}
				if sum, ierr := Inspect(t.Context(), st, id); ierr != nil {
					t.Errorf("Inspect: %v", ierr)
				} else if sc, ok := ConfigOf(sum); ok {
					got.cfg = &sc
				} else {
					t.Errorf("no podcast config stored with %q", id)
				}
				return got, err
			},
			resume: func(st store.Store) (stopped, *Outcome, error) {
				res, err := mustNew(t, Config{}, llm.NewStub(1), WithStore(st), surfaceClock).Resume(t.Context(), id)
				if err != nil {
					return stopped{}, nil, err
				}
				out := outcomeOf(t, res.Detail)
				return stopped{id: res.DebateID, format: res.Format, cfg: &out.Config, transcript: res.Transcript, done: true}, out, nil
			},
		},
	}
	for _, path := range paths {
		for _, f := range failures {
			t.Run(path.name+"/"+f.name, func(t *testing.T) {
				mem := store.NewMemory()
				ctx, cancel := context.WithCancel(t.Context())
				defer cancel()
				var c llm.Client = llm.NewStub(1)
				if f.client != nil {
					c = f.client(cancel)
				}
				var st store.Store = mem
				if f.store != nil {
					st = f.store(mem)
				}
				got, err := path.run(ctx, c, st)
				if !f.is(err) {
					t.Fatalf("Run = %v", err)
				}
				if got.id != id || got.format != FormatName || got.done {
					t.Errorf("the result so far: ID %q, format %q, finished %t", got.id, got.format, got.done)
				}
				if got.cfg != nil && !cmp.Equal(*got.cfg, cfg) {
					t.Errorf("the result so far has config %+v", *got.cfg)
				}
				n := len(got.transcript)
				if n == 0 || n >= len(ref.Transcript) {
					t.Fatalf("the result so far has %d utterances of %d", n, len(ref.Transcript))
				}
				// The last utterance so far may still lack the review that
				// amends it: compare what was said.
				if diff := cmp.Diff(said(ref.Transcript[:n]), said(got.transcript)); diff != "" {
					t.Errorf("the transcript so far (-want +got):\n%s", diff)
				}
				fin, out, err := path.resume(mem)
				if err != nil {
					t.Fatal(err)
				}
				if diff := cmp.Diff(ref.Transcript, fin.transcript); diff != "" {
					t.Errorf("resumed transcript (-want +got):\n%s", diff)
				}
				if diff := cmp.Diff(refOut.Config, out.Config); diff != "" {
					t.Errorf("resumed config (-want +got):\n%s", diff)
				}
				if diff := cmp.Diff(refOut.Metrics, out.Metrics); diff != "" {
					t.Errorf("resumed metrics (-want +got):\n%s", diff)
				}
				if diff := cmp.Diff(refOut.Interruptions, out.Interruptions); diff != "" {
					t.Errorf("resumed interruptions (-want +got):\n%s", diff)
				}
				if got, want := out.Verdict(), refOut.Verdict(); got != want {
					t.Errorf("resumed verdict %+v, want %+v", got, want)
				}
			})
		}
	}
}

// TestDocumentsMarkTruncatedSpeeches: a speech the model cut short at its
// length limit says so in the podcast's transcript document, and in the
// command's transcript of any format.
func TestDocumentsMarkTruncatedSpeeches(t *testing.T) {
	o := &Outcome{Config: DefaultConfig(), Transcript: []Utterance{
		{Seq: 3, Speaker: "chair_1", Segment: SegmentOpening, Kind: KindOpening, Content: "It was going well until", Truncated: true},
		{Seq: 4, Speaker: "chair_2", Segment: SegmentOpening, Kind: KindOpening, Content: "All said."},
	}}
	md := o.Documents()[0].Markdown
	if strings.Count(md, "cut short at the model's length limit") != 1 {
		t.Errorf("the transcript marks %d truncated speeches, want 1:\n%s", strings.Count(md, "cut short"), md)
	}
}
