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
