package openai

import (
	"context"
	"errors"
	"net/http"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestModels(t *testing.T) {
	tests := []struct {
		name    string
		base    string // appended to the server's URL
		handler http.HandlerFunc
		want    []string
		wantErr bool
	}{
		{"llama.cpp", "/v1", reply(200, "application/json",
			`{"object":"list","data":[{"id":"qwen2-tiny.gguf","object":"model","owned_by":"llamacpp"}]}`), []string{"qwen2-tiny.gguf"}, false},
		{"several, in order", "", reply(200, "application/json",
			`{"data":[{"id":"b"},{"id":""},{"id":"a"}]}`), []string{"b", "a"}, false},
		{"a 401", "/v1", reply(401, "application/json", `{"error":{"message":"bad key","type":"invalid_request_error"}}`), nil, true},
		{"not JSON", "/v1", reply(200, "text/html", `<html>`), nil, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var path, auth string
			s := serve(t, func(w http.ResponseWriter, r *http.Request) {
				path, auth = r.Method+" "+r.URL.Path, r.Header.Get("Authorization")
				tt.handler(w, r)
			})
			c, _ := testClient(Config{BaseURL: s.URL + tt.base, APIKey: "sk-test"})
			got, err := c.Models(context.Background())
			if (err != nil) != tt.wantErr {
				t.Fatalf("Models: %v", err)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
			if path != "GET /v1/models" || auth != "Bearer sk-test" {
				t.Errorf("request %q with Authorization %q; want GET /v1/models with the key", path, auth)
			}
			var apiErr *APIError
			if tt.name == "a 401" && (!errors.As(err, &apiErr) || apiErr.StatusCode != 401) {
				t.Errorf("err = %v; want an *APIError with status 401", err)
			}
		})
	}
}
