package jsonsec

import (
	"encoding/json"
	"errors"
	"testing"
	"time"
)

func TestParse(t *testing.T) {
	for _, tt := range []struct {
		in   string
		want time.Duration
		kind bool // want an error wrapping ErrKind
		err  bool
	}{
		{in: `120`, want: 2 * time.Minute},
		{in: `1.5`, want: 1500 * time.Millisecond},
		{in: `0`, want: 0},
		{in: `1e3`, want: 1000 * time.Second},
		{in: `"45m"`, want: 45 * time.Minute},
		{in: `" 90s "`, want: 90 * time.Second},
		{in: `"soon"`, kind: true, err: true},
		{in: `true`, kind: true, err: true},
		{in: `[]`, kind: true, err: true},
		{in: `1e30`, err: true},
	} {
		t.Run(tt.in, func(t *testing.T) {
			got, err := Parse(json.RawMessage(tt.in))
			if (err != nil) != tt.err || (tt.kind && !errors.Is(err, ErrKind)) || (!tt.err && got != tt.want) {
				t.Errorf("Parse(%s) = %v, %v; want %v (error: %v, ErrKind: %v)", tt.in, got, err, tt.want, tt.err, tt.kind)
			}
		})
	}
}

func FuzzFormatParse(f *testing.F) {
	for _, n := range []int64{0, 1, -1, 999_999_999, 1_000_000_000, -1_500_000_000, 1<<63 - 1, -1 << 63} {
		f.Add(n)
	}
	f.Fuzz(func(t *testing.T, n int64) {
		d := time.Duration(n)
		got, err := Parse(Format(d))
		if err != nil || got != d {
			t.Fatalf("Parse(Format(%d)) = %d, %v (Format wrote %s)", n, got, err, Format(d))
		}
	})
}

func TestSeconds(t *testing.T) {
	var v struct {
		D Seconds `json:"d"`
	}
	v.D = Seconds(90 * time.Second)
	raw, err := json.Marshal(v)
	if err != nil || string(raw) != `{"d":90}` {
		t.Fatalf("Marshal = %s, %v", raw, err)
	}
	for _, tt := range []struct {
		in   string
		want time.Duration
		ok   bool
	}{
		{`{"d": 1.5}`, 1500 * time.Millisecond, true},
		{`{"d": "2m"}`, 2 * time.Minute, true},
		{`{"d": null}`, 90 * time.Second, true}, // unchanged
		{`{}`, 90 * time.Second, true},
		{`{"d": true}`, 0, false},
	} {
		v.D = Seconds(90 * time.Second)
		err := json.Unmarshal([]byte(tt.in), &v)
		if (err == nil) != tt.ok || tt.ok && time.Duration(v.D) != tt.want {
			t.Errorf("Unmarshal(%s) = %v, %v; want %v (ok %t)", tt.in, time.Duration(v.D), err, tt.want, tt.ok)
		}
	}
}
