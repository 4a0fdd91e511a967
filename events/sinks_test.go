package events_test

import (
	"bytes"
	"context"
	"encoding/json"
	"log/slog"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/duelogic/duelogic"
	"github.com/duelogic/duelogic/argumentation"
	"github.com/duelogic/duelogic/engine"
	"github.com/duelogic/duelogic/events"
	"github.com/duelogic/duelogic/llm"
)

func TestFanOut(t *testing.T) {
	var got []string
	sink := func(name string) engine.EventSink {
		return engine.SinkFunc(func(_ context.Context, e engine.Event) {
			got = append(got, name+":"+string(e.Type))
		})
	}
	panicky := engine.SinkFunc(func(context.Context, engine.Event) { panic("sink fails") })
	f := events.FanOut(sink("a"), nil, panicky, sink("b"), engine.SinkFunc(func(context.Context, engine.Event) { panic("second") }))

	var recovered any
	func() {
		defer func() { recovered = recover() }()
		f.Emit(context.Background(), engine.Event{Type: duelogic.EventUtterance})
	}()
	if diff := cmp.Diff([]string{"a:utterance", "b:utterance"}, got); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
	if recovered != "sink fails" {
		t.Errorf("recovered %v; want the first panic", recovered)
	}
	events.FanOut().Emit(context.Background(), engine.Event{}) // no sinks: nothing happens
}

func TestSlog(t *testing.T) {
	eval := &duelogic.ResponseEvaluation{AdherenceScore: 70, SteelManning: duelogic.MandateCheck{Quality: duelogic.QualityStrong},
		SelfCritique: duelogic.MandateCheck{Quality: duelogic.QualityWeak}, IntellectualHonesty: duelogic.IntellectualHonesty{Score: duelogic.HonestyHigh}}
	evs := []engine.Event{
		{Type: duelogic.EventToken, DebateID: "d", Speaker: "chair_1", Delta: "Hello "},
		{Type: duelogic.EventUtterance, DebateID: "d", Seq: 3, Segment: duelogic.SegmentOpening, Speaker: "chair_1",
			Utterance: &duelogic.Utterance{Kind: duelogic.KindOpening, Model: "m", Content: "Hello world"}},
		{Type: duelogic.EventEvaluation, DebateID: "d", Seq: 4, Speaker: "chair_1", Data: jsonData(t, eval)},
		{Type: duelogic.EventInterruption, DebateID: "d", Seq: 5, Speaker: "chair_2", Data: jsonData(t, duelogic.InterruptCandidate{
			InterruptingChair: duelogic.Chair{Position: "chair_2"}, InterruptedChair: duelogic.Chair{Position: "chair_1"},
			TriggerReason: duelogic.ReasonDirectChallenge, Urgency: 0.75})},
		{Type: engine.EventArgumentMap, DebateID: "d", Seq: 6, Data: jsonData(t, engine.MovesUpdate{UtteranceSeq: 3,
			Applied: []argumentation.Move{{Speaker: "chair_1", Act: argumentation.Claim, Proposition: "p"},
				{Speaker: "chair_1", Act: argumentation.Since, Proposition: "p", Reasons: []string{"q"}}},
			Illegal: []engine.IllegalMove{{UtteranceSeq: 3, Move: argumentation.Move{Speaker: "chair_1", Act: argumentation.Why, Proposition: "p"}, Reason: "own claim"}}})},
		{Type: engine.EventDebateEnded, DebateID: "d", Seq: 7, Data: jsonData(t, engine.Ended{Format: duelogic.FormatName,
			Usage:  llm.Usage{PromptTokens: 100, CompletionTokens: 20},
			Detail: jsonData(t, duelogic.Outcome{Metrics: duelogic.Metrics{Responses: 6, Interruptions: 1, Interjections: 2}})})},
		{Type: engine.EventDebateEnded, DebateID: "f", Seq: 9, Data: jsonData(t, engine.Ended{Format: "formal",
			Usage: llm.Usage{PromptTokens: 10, CompletionTokens: 2}, Detail: json.RawMessage(`{"winner":"pro"}`)})},
		{Type: "verdict", DebateID: "f", Seq: 8, Speaker: "judge", Data: json.RawMessage(`{"winner":"pro"}`)},
	}
	rest := []string{
		`{"level":"INFO","msg":"duelogic event","debate":"d","type":"interruption","seq":5,"speaker":"chair_2","data":"{\"interruptingChair\":{\"position\":\"chair_2\",\"framework\":\"\",\"modelId\":\"\"},\"interruptedChair\":{\"position\":\"chair_1\",\"framework\":\"\",\"modelId\":\"\"},\"triggerReason\":\"direct_challenge\",\"triggerContent\":\"\",\"urgency\":0.75}"}`,
		`{"level":"INFO","msg":"duelogic event","debate":"d","type":"argument_map","seq":6,"utterance":3,"applied":2,"illegal":1}`,
		`{"level":"INFO","msg":"duelogic event","debate":"d","type":"debate_ended","seq":7,"format":"duelogic","prompt_tokens":100,"completion_tokens":20}`,
		`{"level":"INFO","msg":"duelogic event","debate":"f","type":"debate_ended","seq":9,"format":"formal","prompt_tokens":10,"completion_tokens":2}`,
		`{"level":"INFO","msg":"duelogic event","debate":"f","type":"verdict","seq":8,"speaker":"judge","data":"{\"winner\":\"pro\"}"}`,
	}
	tests := []struct {
		name     string
		level    slog.Level // the handler's
		wantMsgs []string
	}{
		{"info", slog.LevelInfo, append([]string{
			`{"level":"INFO","msg":"duelogic event","debate":"d","type":"utterance","seq":3,"segment":"opening","speaker":"chair_1","kind":"opening","exchange":0,"model":"m","chars":11}`,
			`{"level":"INFO","msg":"duelogic event","debate":"d","type":"evaluation","seq":4,"speaker":"chair_1","data":"{\"adherenceScore\":70,\"steelManning\":{\"attempted\":false,\"quality\":\"strong\"},\"selfCritique\":{\"attempted\":false,\"quality\":\"weak\"},\"frameworkConsistency\":{\"consistent\":false},\"intellectualHonesty\":{\"score\":\"high\"},\"requiresInterjection\":false}"}`,
		}, rest...)},
		{"debug", slog.LevelDebug, append([]string{
			`{"level":"DEBUG","msg":"duelogic event","debate":"d","type":"token","speaker":"chair_1","bytes":6}`,
			`{"level":"INFO","msg":"duelogic event","debate":"d","type":"utterance","seq":3,"segment":"opening","speaker":"chair_1","kind":"opening","exchange":0,"model":"m","chars":11}`,
			`{"level":"INFO","msg":"duelogic event","debate":"d","type":"evaluation","seq":4,"speaker":"chair_1","data":"{\"adherenceScore\":70,\"steelManning\":{\"attempted\":false,\"quality\":\"strong\"},\"selfCritique\":{\"attempted\":false,\"quality\":\"weak\"},\"frameworkConsistency\":{\"consistent\":false},\"intellectualHonesty\":{\"score\":\"high\"},\"requiresInterjection\":false}"}`,
		}, rest...)},
		{"warn", slog.LevelWarn, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var buf bytes.Buffer
			h := slog.NewJSONHandler(&buf, &slog.HandlerOptions{Level: tt.level, ReplaceAttr: func(_ []string, a slog.Attr) slog.Attr {
				if a.Key == slog.TimeKey {
					return slog.Attr{}
				}
				return a
			}})
			s := events.Slog(slog.New(h), slog.LevelInfo)
			for _, e := range evs {
				s.Emit(context.Background(), e)
			}
			var got []string
			for _, line := range strings.Split(strings.TrimSpace(buf.String()), "\n") {
				if line != "" {
					if !json.Valid([]byte(line)) {
						t.Errorf("not JSON: %s", line)
					}
					got = append(got, line)
				}
			}
			if diff := cmp.Diff(tt.wantMsgs, got); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
	events.Slog(nil, slog.LevelInfo).Emit(context.Background(), evs[1]) // a nil logger logs nothing
}

// jsonData marshals v as an event's Data.
func jsonData(t *testing.T, v any) json.RawMessage {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return b
}
