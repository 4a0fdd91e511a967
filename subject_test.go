package duelogic

import (
	"context"
	"strings"
	"sync"
	"testing"

	"github.com/duelogic/duelogic/engine"
	"github.com/duelogic/duelogic/llm"
)

// subjects records what each call says it is about (engine.SpeakingOf,
// engine.JudgingOf): the replies of the speeches, and the prompts of the
// judgments, by the utterance.
type subjects struct {
	llm.Client
	mu      sync.Mutex
	said    map[engine.Subject]string
	judged  map[engine.Subject][]llm.Request
	unnamed map[string]int // judgments of a speech that name none, by purpose
}

func (c *subjects) note(ctx context.Context, req llm.Request, resp llm.Response) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if sub, ok := engine.JudgingOf(ctx); ok {
		c.judged[sub] = append(c.judged[sub], req)
		return
	}
	if sub, ok := engine.SpeakingOf(ctx); ok {
		c.said[sub] = resp.Content
		return
	}
	if req.Purpose == PurposeEvaluation || req.Purpose == PurposeInterruptCheck {
		c.unnamed[req.Purpose]++
	}
}

func (c *subjects) Complete(ctx context.Context, req llm.Request) (llm.Response, error) {
	resp, err := c.Client.Complete(ctx, req)
	c.note(ctx, req, resp)
	return resp, err
}

func (c *subjects) Stream(ctx context.Context, req llm.Request, onDelta func(string) error) (llm.Response, error) {
	resp, err := llm.Stream(ctx, c.Client, req, onDelta)
	c.note(ctx, req, resp)
	return resp, err
}

// TestJudgmentsNameTheSpeechTheyJudge: every evaluation and interrupt
// check of a podcast names the utterance it judges, whose speech (a
// response of this debate) its prompt quotes.
func TestJudgmentsNameTheSpeechTheyJudge(t *testing.T) {
	c := &subjects{Client: llm.NewStub(7), said: map[engine.Subject]string{}, judged: map[engine.Subject][]llm.Request{}, unnamed: map[string]int{}}
	d := prop
	d.ID = "judged"
	if _, err := engine.Run(t.Context(), c, mustPodcast(t), d); err != nil {
		t.Fatal(err)
	}
	if len(c.unnamed) > 0 {
		t.Errorf("judgments of a speech that name none: %v", c.unnamed)
	}
	purposes := map[string]int{}
	for sub, reqs := range c.judged {
		said, ok := c.said[sub]
		if !ok || sub.DebateID != "judged" {
			t.Errorf("judged %+v, which no speech of the debate said", sub)
			continue
		}
		quote := strings.Fields(said)
		quote = quote[:min(8, len(quote))]
		for _, req := range reqs {
			purposes[req.Purpose]++
			if p := req.Messages[len(req.Messages)-1].Content; !strings.Contains(p, strings.Join(quote, " ")) {
				t.Errorf("%s of %s does not quote its speech %q", req.Purpose, sub.Key, strings.Join(quote, " "))
			}
		}
	}
	if purposes[PurposeEvaluation] == 0 || purposes[PurposeInterruptCheck] == 0 {
		t.Errorf("judgments naming their speech, by purpose: %v; want evaluations and interrupt checks", purposes)
	}
}
