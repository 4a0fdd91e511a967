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
	"github.com/duelogic/duelogic/events"
)

func TestFanOut(t *testing.T) {
	var got []string
	sink := func(name string) duelogic.EventSink {
		return duelogic.SinkFunc(func(_ context.Context, e duelogic.Event) {
			got = append(got, name+":"+string(e.Type))
		})
	}
	panicky := duelogic.SinkFunc(func(context.Context, duelogic.Event) { panic("sink fails") })
	f := events.FanOut(sink("a"), nil, panicky, sink("b"), duelogic.SinkFunc(func(context.Context, duelogic.Event) { panic("second") }))

	var recovered any
	func() {
		defer func() { recovered = recover() }()
		f.Emit(context.Background(), duelogic.Event{Type: duelogic.EventUtterance})
	}()
	if diff := cmp.Diff([]string{"a:utterance", "b:utterance"}, got); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
	if recovered != "sink fails" {
		t.Errorf("recovered %v; want the first panic", recovered)
	}
	events.FanOut().Emit(context.Background(), duelogic.Event{}) // no sinks: nothing happens
}

func TestSlog(t *testing.T) {
	eval := &duelogic.ResponseEvaluation{AdherenceScore: 70, SteelManning: duelogic.MandateCheck{Quality: duelogic.QualityStrong},
		SelfCritique: duelogic.MandateCheck{Quality: duelogic.QualityWeak}, IntellectualHonesty: duelogic.IntellectualHonesty{Score: duelogic.HonestyHigh}}
	evs := []duelogic.Event{
		{Type: duelogic.EventToken, DebateID: "d", Speaker: "chair_1", Delta: "Hello "},
		{Type: duelogic.EventUtterance, DebateID: "d", Seq: 3, Segment: duelogic.SegmentOpening, Speaker: "chair_1",
			Utterance: &duelogic.Utterance{Kind: duelogic.KindOpening, Model: "m", Content: "Hello world"}},
		{Type: duelogic.EventEvaluation, DebateID: "d", Seq: 4, Speaker: "chair_1", Evaluation: eval},
	}
	tests := []struct {
		name     string
		level    slog.Level // the handler's
		wantMsgs []string
	}{
		{"info", slog.LevelInfo, []string{
			`{"level":"INFO","msg":"duelogic event","debate":"d","type":"utterance","seq":3,"segment":"opening","speaker":"chair_1","kind":"opening","exchange":0,"model":"m","chars":11}`,
			`{"level":"INFO","msg":"duelogic event","debate":"d","type":"evaluation","seq":4,"speaker":"chair_1","adherence":70,"steel_manning":"strong","self_critique":"weak","consistent":false,"honesty":"high","requires_interjection":false}`,
		}},
		{"debug", slog.LevelDebug, []string{
			`{"level":"DEBUG","msg":"duelogic event","debate":"d","type":"token","speaker":"chair_1","bytes":6}`,
			`{"level":"INFO","msg":"duelogic event","debate":"d","type":"utterance","seq":3,"segment":"opening","speaker":"chair_1","kind":"opening","exchange":0,"model":"m","chars":11}`,
			`{"level":"INFO","msg":"duelogic event","debate":"d","type":"evaluation","seq":4,"speaker":"chair_1","adherence":70,"steel_manning":"strong","self_critique":"weak","consistent":false,"honesty":"high","requires_interjection":false}`,
		}},
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
