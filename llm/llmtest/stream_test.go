package llmtest_test

import (
	"context"
	"slices"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/duelogic/duelogic/llm"
	"github.com/duelogic/duelogic/llm/llmtest"
)

func TestSentences(t *testing.T) {
	for _, tt := range []struct {
		in   string
		want []string
	}{
		{"", nil},
		{"One.", []string{"One."}},
		{"One. Two! Three?", []string{"One. ", "Two! ", "Three?"}},
		{"He said \"no.\"  Then 3.14 stayed.\n\nEnd", []string{"He said \"no.\"  ", "Then 3.14 stayed.\n\n", "End"}},
		{"Wait… what", []string{"Wait… ", "what"}},
	} {
		got := llmtest.Sentences(tt.in)
		if !slices.Equal(got, tt.want) || strings.Join(got, "") != tt.in {
			t.Errorf("Sentences(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

// TestPacedStreamsASentenceAtATime: the first sentence after Latency, each
// next one PerSentence later; a cancelled stream is logged as such.
func TestPacedStreamsASentenceAtATime(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		f := llmtest.New()
		f.Default().Reply("One. Two. Three.")
		p := &llmtest.Paced{Client: f, Latency: 100 * time.Millisecond, PerSentence: 10 * time.Millisecond}
		start := time.Now()
		var at []time.Duration
		resp, err := p.Stream(context.Background(), llm.Request{}, func(string) error {
			at = append(at, time.Since(start))
			return nil
		})
		if err != nil || resp.Content != "One. Two. Three." {
			t.Fatalf("Stream = %+v, %v", resp, err)
		}
		if want := []time.Duration{100 * time.Millisecond, 110 * time.Millisecond, 120 * time.Millisecond}; !slices.Equal(at, want) {
			t.Errorf("deltas at %v, want %v", at, want)
		}
		ctx, cancel := context.WithCancel(context.Background())
		p.Stream(ctx, llm.Request{}, func(string) error { cancel(); return nil })
		if s := p.Streams(); len(s) != 2 || s[0].Cancelled || !s[1].Cancelled || s[1].Delivered != "One. " {
			t.Errorf("streams %+v", s)
		}
		start = time.Now()
		if _, err := p.Complete(context.Background(), llm.Request{}); err != nil || time.Since(start) != 120*time.Millisecond {
			t.Errorf("Complete took %v (%v), want 120ms", time.Since(start), err)
		}
	})
}
