package cliapp

import (
	"bytes"
	"context"
	"strings"
	"sync"
	"testing"
)

// cancelAt is a writer that cancels a context once what was written holds
// marker.
type cancelAt struct {
	mu     sync.Mutex
	b      bytes.Buffer
	marker string
	cancel context.CancelFunc
}

func (w *cancelAt) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	n, err := w.b.Write(p)
	if strings.Contains(w.b.String(), w.marker) {
		w.cancel()
	}
	return n, err
}

// TestInterruptSaysSo: a debate stopped by Ctrl-C (its context canceled)
// says it was interrupted and how to continue it, not that a model call
// failed with "context canceled".
func TestInterruptSaysSo(t *testing.T) {
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	out := &cancelAt{marker: "▶", cancel: cancel}
	var stderr bytes.Buffer
	dir := t.TempDir()
	code := Run(ctx, []string{"--store", dir, "--stub-delay", "1ms", "Should we?"}, strings.NewReader(""), out, &stderr,
		func(string) string { return "" }, nil)
	if code != exitFail {
		t.Fatalf("exit %d, want %d\n%s", code, exitFail, stderr.String())
	}
	got := stderr.String()
	if !strings.Contains(got, "debate: interrupted\n") || strings.Contains(got, "context canceled") ||
		!strings.Contains(got, "the debate is stored; continue it with: debate --store "+dir+" --resume dl-") {
		t.Errorf("stderr:\n%s\nwant it to say the debate was interrupted and how to continue it", got)
	}
}
