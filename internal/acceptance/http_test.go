package acceptance

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"github.com/duelogic/duelogic"
	"github.com/duelogic/duelogic/engine"
	"github.com/duelogic/duelogic/llm/openai"
)

// chatServer is an OpenAI-compatible server for a podcast: speeches of
// several sentences (streamed when asked), and for a json_schema request
// an answer in the shape its name asks for. With refuseSchema it refuses
// the first json_schema request with a 400 naming response_format, as a
// server without structured outputs does.
type chatServer struct {
	refuseSchema bool

	mu       sync.Mutex
	formats  map[string][]string // response_format type by json_schema name ("" for none)
	refusals int
}

func (s *chatServer) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	var body struct {
		Stream         bool `json:"stream"`
		ResponseFormat *struct {
			Type       string `json:"type"`
			JSONSchema struct {
				Name   string `json:"name"`
				Strict bool   `json:"strict"`
			} `json:"json_schema"`
		} `json:"response_format"`
		Messages []struct{ Content string } `json:"messages"`
	}
	data, _ := io.ReadAll(r.Body)
	if err := json.Unmarshal(data, &body); err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	typ, name := "", ""
	if f := body.ResponseFormat; f != nil {
		typ, name = f.Type, f.JSONSchema.Name
		if typ == "json_schema" && !f.JSONSchema.Strict {
			typ = "json_schema (not strict)"
		}
	}
	s.mu.Lock()
	if s.formats == nil {
		s.formats = map[string][]string{}
	}
	refuse := s.refuseSchema && typ == "json_schema" && s.refusals == 0
	if refuse {
		s.refusals++
	} else {
		s.formats[name] = append(s.formats[name], typ)
	}
	s.mu.Unlock()
	w.Header().Set("Content-Type", "application/json")
	if refuse {
		w.WriteHeader(http.StatusBadRequest)
		io.WriteString(w, `{"error":{"message":"response_format of type json_schema is not supported by this server","type":"invalid_request_error","param":"response_format"}}`)
		return
	}
	content := "I hold my ground on this question. The other side makes a fair point about costs. " +
		"Still, the evidence favours my framework here. Let me say why that matters. It matters for everyone affected."
	switch name {
	case duelogic.PurposeEvaluation:
		content = `{"adherenceScore": 80, "steelManning": {"attempted": true, "quality": "adequate", "notes": "fair"},
			"selfCritique": {"attempted": true, "quality": "weak", "notes": "brief"},
			"frameworkConsistency": {"consistent": true, "violations": []},
			"intellectualHonesty": {"score": "high", "issues": []}, "requiresInterjection": false, "interjectionReason": ""}`
	case duelogic.PurposeInterruptCheck:
		content = `{"shouldInterrupt": false, "interruptingChairPosition": null, "reason": null, "triggerContent": null, "urgency": 0.1, "suggestedOpener": null}`
	default:
		if typ != "" {
			content = "{}"
		}
	}
	if !body.Stream {
		json.NewEncoder(w).Encode(map[string]any{"id": "x", "object": "chat.completion", "model": "m",
			"choices": []any{map[string]any{"index": 0, "finish_reason": "stop", "message": map[string]any{"role": "assistant", "content": content}}},
			"usage":   map[string]any{"prompt_tokens": 100, "completion_tokens": 20}})
		return
	}
	w.Header().Set("Content-Type", "text/event-stream")
	for _, word := range strings.SplitAfter(content, " ") {
		chunk, _ := json.Marshal(map[string]any{"choices": []any{map[string]any{"index": 0, "delta": map[string]any{"content": word}}}})
		fmt.Fprintf(w, "data: %s\n\n", chunk)
	}
	fmt.Fprint(w, `data: {"choices":[{"index":0,"delta":{},"finish_reason":"stop"}],"usage":{"prompt_tokens":100,"completion_tokens":20}}`+"\n\ndata: [DONE]\n\n")
}

// TestJudgmentsOverHTTP: a podcast through llm/openai sends its evaluation
// and interrupt-check requests with a strict json_schema response_format
// named by their purpose, and its speeches with none; a server that refuses
// json_schema gets json_object from then on, and the debate goes on.
func TestJudgmentsOverHTTP(t *testing.T) {
	for _, refuse := range []bool{false, true} {
		t.Run(fmt.Sprintf("refuse=%v", refuse), func(t *testing.T) {
			srv := &chatServer{refuseSchema: refuse}
			ts := httptest.NewServer(srv)
			defer ts.Close()
			cfg := duelogic.DefaultConfig()
			cfg.Chairs = cfg.Chairs[:2]
			cfg.Flow.MaxExchanges = 3
			cfg.Interruptions.CheckMinChars = 40
			p, err := duelogic.NewPodcast(cfg)
			if err != nil {
				t.Fatal(err)
			}
			c := openai.New(openai.Config{BaseURL: ts.URL + "/v1", APIKey: "k"})
			res, err := engine.Run(t.Context(), c, p, engine.Debate{Proposition: "Should cities ban cars?"})
			if err != nil {
				t.Fatal(err)
			}
			srv.mu.Lock()
			defer srv.mu.Unlock()
			plain, objects := 0, 0
			for _, f := range srv.formats[""] {
				switch f {
				case "":
					plain++
				case "json_object":
					objects++
				default:
					t.Errorf("a request with response_format %q but no schema name", f)
				}
			}
			if plain == 0 {
				t.Error("no speech was asked for")
			}
			for _, purpose := range []string{duelogic.PurposeEvaluation, duelogic.PurposeInterruptCheck} {
				got := srv.formats[purpose]
				for _, f := range got {
					if f != "json_schema" {
						t.Errorf("%s request with response_format %q; want a strict json_schema", purpose, f)
					}
				}
				switch {
				case !refuse && len(got) == 0:
					t.Errorf("no %s request carried a json_schema", purpose)
				case refuse && len(got) > 0:
					t.Errorf("%d %s requests carried a json_schema after the server refused it", len(got), purpose)
				}
			}
			switch {
			case refuse && (srv.refusals != 1 || objects == 0):
				t.Errorf("refused %d times, then %d json_object requests; want once, then json_object", srv.refusals, objects)
			case !refuse && objects > 0:
				t.Errorf("%d json_object requests from a client whose server takes json_schema", objects)
			}
			t.Logf("judgments %+v", res.Judgments)
			if res.Transcript[len(res.Transcript)-1].Kind != duelogic.KindClosing {
				t.Error("the debate did not end with the closing")
			}
		})
	}
}
