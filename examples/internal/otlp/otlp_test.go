package otlp_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"github.com/duelogic/duelogic/examples/internal/otlp"
	"github.com/duelogic/duelogic/otel/otelduelogic"
)

func TestWanted(t *testing.T) {
	for _, tt := range []struct {
		flag string
		env  map[string]string
		want bool
	}{
		{"", nil, false},
		{"http://collector:4318", nil, true},
		{"", map[string]string{"OTEL_EXPORTER_OTLP_ENDPOINT": "http://c:4318"}, true},
		{"", map[string]string{"OTEL_EXPORTER_OTLP_LOGS_ENDPOINT": "http://c:4318/v1/logs"}, true},
		{"", map[string]string{"OTEL_SERVICE_NAME": "x"}, false},
	} {
		if got := otlp.Wanted(tt.flag, func(k string) string { return tt.env[k] }); got != tt.want {
			t.Errorf("Wanted(%q, %v) = %v, want %v", tt.flag, tt.env, got, tt.want)
		}
	}
}

// New refuses a base URL that is not HTTP; the providers it builds export
// to the base URL's signal paths, and Shutdown flushes them.
func TestNewExportsToTheBaseURL(t *testing.T) {
	if _, err := otlp.New(t.Context(), "localhost:4318", "test"); err == nil || !strings.Contains(err.Error(), "want an http") {
		t.Errorf("New with a URL without a scheme: %v", err)
	}
	var mu sync.Mutex
	paths := map[string]int{}
	recv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		paths[r.URL.Path]++
		mu.Unlock()
		w.Header().Set("Content-Type", "application/x-protobuf")
	}))
	defer recv.Close()
	tel, err := otlp.New(t.Context(), recv.URL+"/", "test")
	if err != nil {
		t.Fatal(err)
	}
	ctx, d := otelduelogic.StartDebate(context.Background(), "dl-1", tel.Options()...)
	_ = ctx
	d.End(nil)
	if err := tel.Shutdown(t.Context()); err != nil {
		t.Fatal(err)
	}
	mu.Lock()
	defer mu.Unlock()
	if paths["/v1/traces"] == 0 || paths["/v1/metrics"] == 0 {
		t.Errorf("the receiver got %v; want the traces and the metrics at their paths", paths)
	}
}
