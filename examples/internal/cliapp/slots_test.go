package cliapp

import (
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

// TestWarnsOfAOneSlotServer: before a podcast, the command asks a
// llama.cpp server how many replies it generates at once, and warns when
// it is one, which makes the interrupt check wait for the speech it
// watches; other formats, and servers that do not say, draw no warning.
func TestWarnsOfAOneSlotServer(t *testing.T) {
	for _, tt := range []struct {
		name, format, props string
		warn                bool
	}{
		{"one slot", "duelogic", `{"total_slots": 1}`, true},
		{"two slots", "duelogic", `{"total_slots": 2}`, false},
		{"not llama.cpp", "duelogic", "", false},
		{"another format", "scored", `{"total_slots": 1}`, false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			s := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				w.Header().Set("Content-Type", "application/json")
				switch {
				case r.URL.Path == "/props" && tt.props != "":
					io.WriteString(w, tt.props)
				case r.URL.Path == "/v1/models":
					io.WriteString(w, `{"object":"list","data":[{"id":"local.gguf"}]}`)
				default:
					w.WriteHeader(http.StatusNotFound)
					fmt.Fprintf(w, `{"error":{"message":"no %s","type":"not_found"}}`, r.URL.Path)
				}
			}))
			defer s.Close()
			r := debate(t, t.TempDir(), "", "--format", tt.format, "--base-url", s.URL+"/v1", "q?")
			if got := strings.Contains(r.stderr, oneSlot); got != tt.warn {
				t.Errorf("warned %t, want %t:\n%s", got, tt.warn, r.stderr)
			}
		})
	}
}
