package moderated

import (
	"encoding/json"
	"strings"
	"testing"
	"time"
)

// TestElapsedIsSeconds: every duration a moderated debate writes to JSON is
// seconds, and what earlier versions wrote in nanoseconds still reads.
func TestElapsedIsSeconds(t *testing.T) {
	raw, err := json.Marshal(&Outcome{Elapsed: 90 * time.Second, EndReason: EndTimeout})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(raw), `"elapsed":90`) || strings.Contains(string(raw), "elapsedNs") {
		t.Errorf("outcome JSON %s, want elapsed in seconds", raw)
	}
	raw, err = json.Marshal(Summary{Elapsed: 1500 * time.Millisecond})
	if err != nil || !strings.Contains(string(raw), `"elapsed":1.5`) {
		t.Errorf("summary JSON %s, %v; want elapsed 1.5", raw, err)
	}
	for _, tt := range []struct {
		name, in string
		want     time.Duration
	}{
		{"seconds", `{"elapsed": 240, "endReason": "timeout"}`, 240 * time.Second},
		{"duration string", `{"elapsed": "4m"}`, 4 * time.Minute},
		{"earlier nanoseconds", `{"elapsedNs": 80000000000}`, 80 * time.Second},
		{"absent", `{"endReason": "timeout"}`, 7 * time.Second},
	} {
		t.Run(tt.name, func(t *testing.T) {
			o := Outcome{Elapsed: 7 * time.Second}
			if err := json.Unmarshal([]byte(tt.in), &o); err != nil || o.Elapsed != tt.want {
				t.Errorf("outcome: %v, %v; want %v", o.Elapsed, err, tt.want)
			}
			s := Summary{Elapsed: 7 * time.Second}
			if err := json.Unmarshal([]byte(tt.in), &s); err != nil || s.Elapsed != tt.want {
				t.Errorf("summary: %v, %v; want %v", s.Elapsed, err, tt.want)
			}
		})
	}
	for _, tt := range []struct {
		in   string
		want time.Duration
	}{
		{`{"spent": 12.5}`, 12500 * time.Millisecond},
		{`{"spentNs": 3000000000}`, 3 * time.Second},
	} {
		var e elapsed
		if err := json.Unmarshal([]byte(tt.in), &e); err != nil || e.duration() != tt.want {
			t.Errorf("elapsed record %s: %v, %v; want %v", tt.in, e.duration(), err, tt.want)
		}
	}
	if raw, _ := json.Marshal(elapsed{Spent: 2}); string(raw) != `{"spent":0.000000002}` {
		t.Errorf("elapsed record JSON %s", raw)
	}
}
