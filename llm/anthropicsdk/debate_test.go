package anthropicsdk_test

import (
	"context"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/duelogic/duelogic/engine"
	"github.com/duelogic/duelogic/llm"
	"github.com/duelogic/duelogic/llm/anthropicsdk"
	_ "github.com/duelogic/duelogic/scored" // registers the "scored" format
)

// ignoreRunOrder leaves out of a comparison of two runs what differs
// between any two runs of the same debate: the timings, and the sequence
// numbers, which concurrent steps (an evaluation and the next speech) take
// in either order.
var ignoreRunOrder = cmp.Options{
	cmpopts.IgnoreFields(engine.Result[engine.Outcome]{}, "Timing"),
	cmp.FilterPath(func(p cmp.Path) bool {
		f, ok := p.Last().(cmp.StructField)
		return ok && f.Name() == "Seq"
	}, cmp.Ignore()),
	cmpopts.EquateEmpty(),
}

// A whole scored debate runs through the SDK client against a server that
// answers as the stub model does, and ends exactly as the same debate on
// the stub: every JSON call went out with its schema as output_config.format and
// came back whole, and every usage reached the result.
func TestDebateAgainstMockServer(t *testing.T) {
	stub := llm.NewStub(1)
	srv := &mockServer{answer: stubAnswer(stub)}
	c := anthropicsdk.New(serve(t, srv), withPurpose)

	run := func(client llm.Client) *engine.Result[engine.Outcome] {
		t.Helper()
		f, err := engine.Open("scored", nil)
		if err != nil {
			t.Fatal(err)
		}
		d := engine.Debate{ID: "clinic-scheduler", Proposition: "A scheduling assistant for small clinics"}
		at := func() time.Time { return time.Date(2026, 3, 2, 10, 0, 0, 0, time.UTC) }
		res, err := engine.Run(context.Background(), client, f, d, engine.WithClock(at))
		if err != nil {
			t.Fatal(err)
		}
		return res
	}
	got, want := run(c), run(llm.NewStub(1))
	if diff := cmp.Diff(want, got, ignoreRunOrder); diff != "" {
		t.Errorf("the debate through anthropicsdk differs from the stub's (-stub +sdk):\n%s", diff)
	}
	if got.Usage.Total() == 0 {
		t.Error("the debate's usage is zero")
	}

	schemas := 0
	for _, body := range srv.requests() {
		oc, ok := body["output_config"].(map[string]any)
		if !ok {
			continue
		}
		f, _ := oc["format"].(map[string]any)
		if f["type"] != "json_schema" || f["schema"] == nil {
			t.Errorf("output_config %v, want a json_schema format with a schema", oc)
			continue
		}
		schemas++
	}
	if schemas == 0 {
		t.Error("no request of the debate carried an output_config format")
	}
	streams := 0
	for _, body := range srv.requests() {
		if body["stream"] == true {
			streams++
		}
	}
	if streams == 0 {
		t.Error("no request of the debate was streamed")
	}
	t.Logf("%d requests, %d with a schema, %d streamed", len(srv.requests()), schemas, streams)
}
